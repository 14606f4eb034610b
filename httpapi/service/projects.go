package service

import (
	"context"
	"encoding/json"
	"time"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/seo"
)

// Projects is the projects service: the sites an account monitors, with
// their saved crawl configuration, tracked keywords and history. The API
// server implements it (httpapi.Server.Projects); the /v1/projects
// handlers and the dashboard's project pages call it.
type Projects interface {
	// Create stores a new project of the account (req.Domain required),
	// within its plan's cap of projects. Bad input is an *seo.InputError
	// naming the field; a second project for a domain, or one over the
	// cap, is a conflict (ErrConflict).
	Create(ctx context.Context, accountID string, req ProjectRequest) (*Project, error)
	// Get returns the account's project; ErrNotFound for another's.
	Get(ctx context.Context, accountID, id string) (*Project, error)
	// List returns the account's projects, newest first.
	List(ctx context.Context, accountID string) ([]Project, error)
	// Update changes the fields req sends.
	Update(ctx context.Context, accountID, id string, req ProjectRequest) (*Project, error)
	// Delete removes the project, its schedules and alert rules; its
	// analyses stay, without a project.
	Delete(ctx context.Context, accountID, id string) error
	// Analyses returns the project's analyses, newest first, at most
	// limit (1 to MaxProjectAnalyses).
	Analyses(ctx context.Context, accountID, id string, limit int) (*ProjectAnalyses, error)
}

// MaxProjectAnalyses caps the limit of Projects.Analyses: the store's cap
// of a project's jobs read at once.
const MaxProjectAnalyses = 1000

// ProjectRequest is the body of POST /v1/projects and PATCH
// /v1/projects/{id}. POST needs domain; PATCH changes only the fields it
// sends.
type ProjectRequest struct {
	// Name is shown in lists; POST without one takes the domain.
	Name *string `json:"name,omitempty"`
	// Domain is the site's host name with an optional port, validated as
	// a site analysis's domain is; one project per domain and account.
	Domain *string `json:"domain,omitempty"`
	// TimeZone is an IANA time zone name ("Europe/Berlin") in which the
	// project's schedules run; POST without one takes "UTC".
	TimeZone *string `json:"timeZone,omitempty"`
	// Config is the project's crawl configuration (crawler.Config, the
	// schema of GET /v1/schemas/crawl-config.json), used by its site
	// analyses that send no options of their own; null resets it to the
	// defaults. A credential sent back as "[redacted]" keeps the value
	// stored.
	Config json.RawMessage `json:"config,omitempty"`
	// Keywords are the tracked keywords (GET /v1/rankings?projectId=),
	// at most MaxProjectKeywords; PATCH replaces the list.
	Keywords *[]string `json:"keywords,omitempty"`
}

// ProjectLinks are a project's URLs.
type ProjectLinks struct {
	Self     string `json:"self"`
	Analyses string `json:"analyses"`
}

// Project is the API's view of a project: one site an account monitors.
type Project struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	Domain   string `json:"domain"`
	TimeZone string `json:"timeZone"`
	// Config is the saved crawl configuration, its credentials shown as
	// "[redacted]".
	Config    crawler.Config `json:"config"`
	Keywords  []string       `json:"keywords"`
	CreatedAt time.Time      `json:"createdAt"`
	UpdatedAt time.Time      `json:"updatedAt"`
	Links     ProjectLinks   `json:"links"`
}

// ProjectList is the body of GET /v1/projects: the account's projects,
// newest first.
type ProjectList struct {
	Projects []Project `json:"projects"`
}

// JobSummary is the small record a site analysis keeps when it succeeds
// (store.Job.Summary): what a project's history and its charts show
// without loading the report. Every number is read from the report.
type JobSummary struct {
	// Score is the site score (the report's score.value); null when the
	// report has none, with ScoreReason (the report's scoreReason) saying
	// why ("unreachable", "robots_txt_unavailable", ...).
	Score       *int   `json:"score"`
	ScoreReason string `json:"scoreReason,omitempty"`
	// Pages counts the pages fetched (crawl.fetched), FetchErrors the
	// URLs whose fetch failed (crawl.errors).
	Pages       int `json:"pages"`
	FetchErrors int `json:"fetchErrors"`
	// Errors, Warnings and Notices count the distinct checks that failed,
	// per severity (findingCounts.checks), as the site score and the
	// comparison's totals count them.
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
	Notices  int `json:"notices"`
	// Findings counts the finding occurrences per severity
	// (findingCounts.findings).
	Findings seo.Counts `json:"findings"`
	// Indexable counts the indexable pages of the report's pages list;
	// null when that list was cut at its cap, with IndexableReason
	// "pages_truncated".
	Indexable       *int   `json:"indexable"`
	IndexableReason string `json:"indexableReason,omitempty"`
	// StopReason says why the crawl ended (crawl.stopReason).
	StopReason string    `json:"stopReason"`
	FinishedAt time.Time `json:"finishedAt"`
}

// ProjectAnalysis is one analysis of a project's history.
type ProjectAnalysis struct {
	ID         string    `json:"id"`
	Kind       string    `json:"kind"`
	Status     string    `json:"status"`
	CreatedAt  time.Time `json:"createdAt"`
	StartedAt  time.Time `json:"startedAt,omitzero"`
	FinishedAt time.Time `json:"finishedAt,omitzero"`
	// Summary is the analysis's summary; null unless it succeeded.
	Summary *JobSummary `json:"summary"`
	// Error is the failure message of a failed analysis.
	Error string   `json:"error,omitempty"`
	Links JobLinks `json:"links"`
}

// ProjectAnalyses is the body of GET /v1/projects/{id}/analyses: the
// project's analyses, newest first, at most limit; HasMore says whether
// older ones were left out.
type ProjectAnalyses struct {
	ProjectID string            `json:"projectId"`
	Analyses  []ProjectAnalysis `json:"analyses"`
	HasMore   bool              `json:"hasMore"`
}
