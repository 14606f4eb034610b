package service

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"time"

	"github.com/seokit/seokit/logs"
)

// Logs is the log files service: upload a project's access logs, parsed
// by a job run by the same executor as site analyses (package logs: bots
// classified and verified, joined with the project's latest succeeded
// analysis), and read the parse's report whole or as paged lists. The API
// server implements it (httpapi.Server.Logs); the /v1/projects/{id}/logs
// handlers and the dashboard's log pages call it.
type Logs interface {
	// Upload streams body, a log file (plain or gzip), to the server's
	// log spool, never holding it whole, and queues its parse. The body
	// is capped by the account's plan (plans.Limits.MaxLogBytes as sent,
	// LogExpansion times that once decompressed); the upload is charged
	// one unit of the daily quota and counts as one of the account's
	// queued or running jobs. Bad input is an *seo.InputError or a
	// *FieldError naming the field: "format" or "logFormat" for an
	// unknown or uncompilable format, "body" for an empty, over-size,
	// binary or undecompressable log or one whose format cannot be told
	// from its first lines; nothing is kept of a refused upload.
	Upload(ctx context.Context, accountID, projectID string, req LogUpload, body io.Reader) (*LogJob, error)
	// Get returns the account's log upload of the project and, once its
	// parse succeeded, its report (logs.Report as JSON); res is nil
	// otherwise.
	Get(ctx context.Context, accountID, projectID, id string) (job *LogJob, res Result, err error)
	// List returns the project's log uploads, newest first, at most limit
	// (1 to MaxList), without their reports. Uploads are found among the
	// account's latest MaxLogScan jobs.
	List(ctx context.Context, accountID, projectID string, limit int) ([]LogJob, error)
	// Report returns the account's log upload of the project and, once
	// its parse succeeded, its report decoded (nil otherwise), with the
	// func the caller calls once done with the report. The decode is a
	// report read of the server's admission control, as Page's is: one
	// at a time per account (a *LimitError at once beyond it) and memory
	// reserved from the shared budget until done is called, enough for
	// the report and its HTML (logs.Report.HTMLBody) in a page.
	Report(ctx context.Context, accountID, projectID, id string) (job *LogJob, rep *logs.Report, done func(), err error)
	// Page returns one list of a succeeded upload's report (LogLists),
	// items offset to offset+limit (limit 1 to MaxList). The report is
	// decoded as a report read, as Report's is.
	Page(ctx context.Context, accountID, projectID, id, list string, offset, limit int) (*LogPage, error)
}

// LogExpansion caps how many times its uploaded size a log may grow when
// decompressed: a gzip bomb is refused during the upload.
const LogExpansion = 32

// MaxLogScan is how many of the account's latest jobs Logs.List looks
// through for a project's uploads.
const MaxLogScan = 1000

// LogLists are the lists Logs.Page serves: report fields (bots, urls,
// directories, days, malformed) and the crawl join's lists.
var LogLists = []string{"bots", "urls", "directories", "days", "malformed",
	"orphans", "neverFetched", "nonIndexable", "redirecting", "clientErrors", "serverErrors", "parameters", "disallowed"}

// LogUpload describes an uploaded log (the query of POST
// /v1/projects/{id}/logs).
type LogUpload struct {
	// Name names the log in the report ("access.log.gz"); empty means
	// "upload".
	Name string `json:"name,omitempty"`
	// Format is auto (default), combined, common, w3c, json or nginx
	// (with LogFormat).
	Format string `json:"format,omitempty"`
	// LogFormat is a custom nginx log_format (or Apache LogFormat) string.
	LogFormat string `json:"logFormat,omitempty"`
	// StripQuery drops query strings from the report's URLs.
	StripQuery bool `json:"stripQuery,omitempty"`
	// Size is the body's declared length (Content-Length), -1 when
	// unknown: a declared length over the cap is refused before any byte
	// is read.
	Size int64 `json:"-"`
	// Receive, when set, is called once the upload is admitted, before
	// its body is read, with how long the body may take to arrive (the
	// plan's MaxLogBytes at the slowest rate the server waits for): an
	// HTTP handler passes ReceiveFor(w), so that the server's read and
	// write timeouts, sized for other requests, do not cut the upload.
	Receive func(time.Duration) `json:"-"`
}

// ReceiveFor returns a LogUpload.Receive that moves the read deadline of
// w's connection by the time given, and its write deadline a minute
// further, for the answer. A ResponseWriter that cannot set deadlines
// keeps its own.
func ReceiveFor(w http.ResponseWriter) func(time.Duration) {
	return func(d time.Duration) {
		rc := http.NewResponseController(w)
		until := time.Now().Add(d)
		rc.SetReadDeadline(until)
		rc.SetWriteDeadline(until.Add(time.Minute))
	}
}

// LogProgress is the progress of a running parse.
type LogProgress struct {
	Lines     int64     `json:"lines"`
	BytesRead int64     `json:"bytesRead"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// LogSummary is what a list shows of a succeeded parse.
type LogSummary struct {
	Lines        int64 `json:"lines"`
	Requests     int64 `json:"requests"`
	Malformed    int64 `json:"malformed"`
	BotHits      int64 `json:"botHits"`
	VerifiedHits int64 `json:"verifiedHits"`
	SpoofedHits  int64 `json:"spoofedHits"`
	// Findings counts the report's findings.
	Findings int `json:"findings"`
	// First and Last are the earliest and latest request times.
	First time.Time `json:"first,omitzero"`
	Last  time.Time `json:"last,omitzero"`
	// CrawlJob is the site analysis the log was joined with.
	CrawlJob string `json:"crawlJob,omitempty"`
}

// LogJob is the API's view of a log upload and its parse.
type LogJob struct {
	ID        string `json:"id"`
	ProjectID string `json:"projectId"`
	// Status is queued, running, succeeded, failed or canceled.
	Status     string `json:"status"`
	Name       string `json:"name"`
	Format     string `json:"format"`
	LogFormat  string `json:"logFormat,omitempty"`
	StripQuery bool   `json:"stripQuery"`
	// Bytes is the size of the upload as sent.
	Bytes      int64        `json:"bytes"`
	CreatedAt  time.Time    `json:"createdAt"`
	StartedAt  time.Time    `json:"startedAt,omitzero"`
	FinishedAt time.Time    `json:"finishedAt,omitzero"`
	Progress   *LogProgress `json:"progress,omitempty"`
	// CrawlJob is the site analysis the log was joined with; empty when
	// the project had no succeeded analysis (the report's join is then
	// null).
	CrawlJob string      `json:"crawlJob,omitempty"`
	Summary  *LogSummary `json:"summary,omitempty"`
	Error    string      `json:"error,omitempty"`
	// Result is the report (logs.Report) in GET of one upload only.
	Result json.RawMessage `json:"result,omitempty"`
	Links  JobLinks        `json:"links"`
}

// LogJobList is the body of GET /v1/projects/{id}/logs.
type LogJobList struct {
	Logs []LogJob `json:"logs"`
}

// LogPage is one page of a report list (GET
// /v1/projects/{id}/logs/{lid}/lists/{list}).
type LogPage struct {
	List   string `json:"list"`
	Offset int    `json:"offset"`
	Limit  int    `json:"limit"`
	// Total is the list's length in the report (join lists hold a
	// sample: Count and Hits are then the list's totals).
	Total int             `json:"total"`
	Count *int64          `json:"count,omitempty"`
	Hits  *int64          `json:"hits,omitempty"`
	Items json.RawMessage `json:"items"`
	// Reason says why a join list is empty: no crawl to join, or no
	// robots.txt for "disallowed".
	Reason string `json:"reason,omitempty"`
}
