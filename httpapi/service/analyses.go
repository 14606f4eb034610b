package service

import (
	"context"
	"encoding/json"
	"io"
	"time"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/crawler/compare"
	"github.com/seokit/seokit/httpapi/store"
)

// Analyses is the site analyses service: submit an analysis of a site,
// read one with its report, list and cancel them, and read the
// screenshots of its rendered pages. The API server implements it
// (httpapi.Server.Analyses); the /v1/analyze/site handlers and the
// dashboard's analysis pages call it.
type Analyses interface {
	// Submit validates req against the address policy and the account's
	// plan, charges the analysis to the account's quota (one unit, a
	// rendering one RenderQuotaUnits; less what the request paid, see
	// WithPaid), stores the job and queues it. Bad input is an
	// *seo.InputError naming the field ("domain", "options.maxPages");
	// an account at its plan's concurrent analyses or out of quota gets
	// a *LimitError. The job's CallbackSecret is set when it has a
	// callback.
	Submit(ctx context.Context, accountID string, req SiteRequest) (*Job, error)
	// Get returns the account's job and, for a job with a report (a
	// succeeded one, or one failed with ErrorSiteUnreachable), the stored
	// report; res is nil otherwise. A stored report larger than the
	// server's cap is an error, never read.
	Get(ctx context.Context, accountID, id string) (job *Job, res Result, err error)
	// Report is Get with the report decoded (nil when the job has none),
	// and the func the caller calls once done with it. The decode is a
	// report read of the server's admission control, as the API's own
	// decodes of whole reports are: one at a time per account (a
	// *LimitError at once beyond it) and memory reserved from the shared
	// budget until done is called, enough for the report and a page
	// showing it (the dashboard's analysis, page and HTML report views).
	Report(ctx context.Context, accountID, id string) (job *Job, rep *crawler.SiteReport, done func(), err error)
	// List returns the account's latest jobs, newest first, at most
	// limit (1 to MaxList), without their reports. Jobs are found among
	// the account's latest MaxLogScan jobs, log uploads included (those
	// are listed by Logs.List).
	List(ctx context.Context, accountID string, limit int) ([]Job, error)
	// Cancel cancels a queued or running job of the account and returns
	// it: ErrNotFound for another account's job, ErrConflict (with the job
	// when it is known) for one that has ended.
	Cancel(ctx context.Context, accountID, id string) (*Job, error)
	// Screenshot returns the stored PNG of a page of the account's job;
	// ErrNotFound when there is none.
	Screenshot(ctx context.Context, accountID, jobID, pageURL string) ([]byte, error)
	// Diff compares the account's succeeded analysis id with an earlier
	// one of the same site: against, or by default the previous
	// successful analysis of its domain (in its project when it has one).
	// Its memory is admitted as the server's other work is; a busy server
	// refuses it. It counts one unit of the account's daily quota, unless
	// the request carrying ctx paid it (WithPaid): a *LimitError when the
	// day has none left.
	Diff(ctx context.Context, accountID, id, against string) (*SiteDiff, error)
}

// SiteDiff is the comparison of two analyses of a site (the body of GET
// /v1/analyze/site/{id}/diff).
type SiteDiff struct {
	Old  string        `json:"old"`
	New  string        `json:"new"`
	Diff *compare.Diff `json:"diff"`
}

// MaxList is the most jobs Analyses.List returns at once.
const MaxList = 100

// Result is the stored report of a job (crawler.SiteReport as JSON).
type Result interface {
	// Size is the report's length in bytes, as stored.
	Size() int
	// Open returns a reader of the report's JSON, Size bytes.
	Open() (io.ReadCloser, error)
}

// Job.ErrorCode values.
const (
	// ErrorSiteUnreachable is the code of an analysis of a site that
	// answered nothing.
	ErrorSiteUnreachable = "site_unreachable"
	// ErrorJobTimeout is the code of an analysis that ran longer than the
	// server's job timeout: its report covers what it crawled until then
	// (crawl.stopReason "time_budget").
	ErrorJobTimeout = "job_timeout"
)

// JobErrorCode returns the Job.ErrorCode of a stored job, "" when it has
// none: a failed job's code is read from its summary (its report's stop
// and score reasons).
func JobErrorCode(j *store.Job) string {
	if j.Status != store.JobFailed || len(j.Summary) == 0 {
		return ""
	}
	var sum struct {
		ScoreReason string `json:"scoreReason"`
		StopReason  string `json:"stopReason"`
	}
	switch {
	case json.Unmarshal(j.Summary, &sum) != nil:
		return ""
	case SiteDownReason(sum.ScoreReason):
		return ErrorSiteUnreachable
	case sum.StopReason == crawler.StopTimeBudget:
		// A crawl's own time budget ends it succeeded: failed with its
		// stop reason is the job timeout's.
		return ErrorJobTimeout
	}
	return ""
}

// SiteDownReason reports whether a report's scoreReason says the site
// answered nothing.
func SiteDownReason(reason string) bool {
	return reason == crawler.SiteUnreachable || reason == crawler.SiteRobotsUnavailable
}

// HasResult reports whether job v serves its report: a succeeded job's,
// that of a job failed because its site answered nothing, and the partial
// report a job canceled while it crawled, or stopped by the job timeout,
// kept.
func HasResult(v *Job) bool {
	return v.Status == string(store.JobSucceeded) || v.ErrorCode == ErrorSiteUnreachable || v.ErrorCode == ErrorJobTimeout ||
		v.Status == string(store.JobCanceled) // the partial report it kept, if any
}

// SiteOptions are the options of a site analysis request: a saved crawl
// configuration (crawler.Config, whose JSON Schema is served at GET
// /v1/schemas/crawl-config.json) and the rendering options, which the
// account's plan caps and the server's browser serves. Bad input is a 400
// naming options.FIELD ("options.extract[2].expr", "options.segments[1].url").
type SiteOptions struct {
	crawler.Config
	// Render is "none" (default), "auto" or "always", as for page
	// analyses; links found only in the rendered DOM are crawled.
	Render string `json:"render,omitempty"`
	// Screenshot is "none" or "viewport" (default when rendering): the
	// viewport PNGs of the first rendered pages are stored with the job
	// (GET /v1/analyze/site/{id}/screenshot?url=).
	Screenshot string `json:"screenshot,omitempty"`
	// RenderPages caps the pages the analysis renders; 0 means, and the
	// job records, the plan's cap (plans.Limits.RenderPages), the most
	// it may be. Pages beyond it are analysed as the server sent them.
	RenderPages int `json:"renderPages,omitempty"`
	// A11y audits the accessibility of the rendered pages with axe-core
	// (within RenderPages): each page's a11y section and findings, and the
	// report's summary by rule and template. It needs Render "auto" or
	// "always".
	A11y bool `json:"a11y,omitempty"`
}

// SiteRequest is the body of POST /v1/analyze/site: exactly one of Domain
// and URL.
type SiteRequest struct {
	// Domain is the site's host name with an optional port
	// ("example.com"); the crawl starts at its home page.
	Domain string `json:"domain,omitempty"`
	// URL is a start URL ("https://example.com/blog/"): the crawl starts
	// there, within the URL's host.
	URL     string      `json:"url,omitempty"`
	Options SiteOptions `json:"options"`
	// CallbackURL, when set, receives a signed POST when the job ends.
	CallbackURL string `json:"callbackUrl,omitempty"`
	// ProjectID attaches the analysis to one of the account's projects
	// (see attachProject): domain, url and options may then be left out.
	ProjectID string `json:"projectId,omitempty"`
}

// JobProgress is the progress of a running site analysis.
type JobProgress struct {
	PagesDone      int       `json:"pagesDone"`
	Errors         int       `json:"errors"`
	Queued         int       `json:"queued"`
	Skipped        int       `json:"skipped"`
	PagesPerSecond float64   `json:"pagesPerSecond"`
	Current        string    `json:"current,omitempty"`
	UpdatedAt      time.Time `json:"updatedAt"`
	// Phase is "crawling", then "checking_external" while the crawl waits
	// for the external link checks left when its pages are done, then
	// "finishing" (building the report).
	Phase string `json:"phase,omitempty"`
	// External counts the external link checks: done (checked or given
	// up) of total queued so far, unchecked of them given up. Absent when
	// they are off.
	External *crawler.ExternalProgress `json:"external,omitempty"`
}

// JobCallback is the callback state of a job.
type JobCallback struct {
	URL string `json:"url"`
	// State is "pending", "delivered" or "failed"; empty before the job
	// ends.
	State string `json:"state,omitempty"`
}

// JobLinks are the job's URLs.
type JobLinks struct {
	Self string `json:"self"`
}

// Job is the API's view of a site analysis job.
type Job struct {
	ID     string `json:"id"`
	Status string `json:"status"`
	Domain string `json:"domain"`
	// URL is the start URL when the analysis was requested with one.
	URL        string       `json:"url,omitempty"`
	Options    SiteOptions  `json:"options"`
	CreatedAt  time.Time    `json:"createdAt"`
	StartedAt  time.Time    `json:"startedAt,omitzero"`
	FinishedAt time.Time    `json:"finishedAt,omitzero"`
	Progress   *JobProgress `json:"progress,omitempty"`
	// Result is the report of a succeeded job, of a job failed with
	// ErrorCode "site_unreachable", and the partial report of a job
	// canceled while it crawled (crawl.stopReason "canceled") or failed
	// with ErrorCode "job_timeout" (crawl.stopReason "time_budget"), in
	// GET of one job only (lists leave it out). The server copies the stored
	// report into the answer as is.
	Result json.RawMessage `json:"result,omitempty"`
	Error  string          `json:"error,omitempty"`
	// ErrorCode is "site_unreachable" for a job failed because the site
	// answered nothing: no response from its start URL or robots.txt
	// (result.crawl.stopReason "unreachable", result.crawl.unreachable
	// saying how), or robots.txt answering 5xx or 429 so nothing could be
	// crawled (result.scoreReason "robots_txt_unavailable"). The report is
	// kept, its score null. It is "job_timeout" for a job that ran longer
	// than the server's job timeout; the report of what it crawled until
	// then is kept when it fetched a page. Absent otherwise.
	ErrorCode string       `json:"errorCode,omitempty"`
	Callback  *JobCallback `json:"callback,omitempty"`
	// CallbackSecret is returned once, in the 202 answer: the key that
	// signs this job's callback (see VerifyCallback).
	CallbackSecret string   `json:"callbackSecret,omitempty"`
	Links          JobLinks `json:"links"`
	// ProjectID is the project the analysis belongs to; absent when none
	// (or the project was deleted).
	ProjectID string `json:"projectId,omitempty"`
}

// JobList is the body of GET /v1/analyze/site.
type JobList struct {
	Jobs []Job `json:"jobs"`
}

// JobView is the view of a stored job without its report: what the API
// answers for it (links under base, the API's base path) and the dashboard
// shows. The report is Analyses.Get's Result.
func JobView(j *store.Job, base string) Job {
	v := Job{
		ID: j.ID, Status: string(j.Status), CreatedAt: j.CreatedAt.UTC(),
		StartedAt: j.StartedAt.UTC(), FinishedAt: j.FinishedAt.UTC(),
		Error: j.Error, Links: JobLinks{Self: base + "/v1/analyze/site/" + j.ID}, ProjectID: j.ProjectID,
	}
	if j.StartedAt.IsZero() {
		v.StartedAt = time.Time{}
	}
	if j.FinishedAt.IsZero() {
		v.FinishedAt = time.Time{}
	}
	var req SiteRequest
	if json.Unmarshal(j.Request, &req) == nil {
		v.Domain, v.URL, v.Options = req.Domain, req.URL, req.Options
	}
	v.ErrorCode = JobErrorCode(j)
	if len(j.Progress) > 0 {
		var p JobProgress
		if json.Unmarshal(j.Progress, &p) == nil {
			v.Progress = &p
		}
	}
	if j.CallbackURL != "" {
		v.Callback = &JobCallback{URL: j.CallbackURL, State: j.CallbackState}
	}
	return v
}
