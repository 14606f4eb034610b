package service

import (
	"context"
	"time"

	"github.com/seokit/seokit/rankings"
	"github.com/seokit/seokit/reports"
)

// Keywords is the keyword suggestions service (GET /v1/keywords/suggest).
// The API server implements it (httpapi.Server.Keywords).
type Keywords interface {
	// SuggestJSON appends to dst the JSON of the suggestions for req (the
	// body of GET /v1/keywords/suggest, without its final newline): a
	// repeated answer is written from the suggester's memory, neither
	// copied nor encoded again. It charges one unit of the account's
	// daily quota, less what the request paid (WithPaid). Bad input is an
	// *seo.InputError naming "query", "locale" or "limit"; a server
	// without a suggester answers a *NotConfiguredError.
	SuggestJSON(ctx context.Context, accountID string, dst []byte, req SuggestRequest) ([]byte, error)
}

// SuggestRequest asks for keyword ideas around a seed.
type SuggestRequest struct {
	// Query is the seed keyword; required (blank is refused).
	Query string
	// Locale is a BCP 47 tag ("en-US", the default when empty).
	Locale string
	// Limit is the most suggestions, 1 to MaxSuggestions; 0 means the
	// suggester's default. Any other value is refused.
	Limit int
	// Site, when set, is a domain of one of the account's newest succeeded
	// site analyses: the noun phrases of its pages (titles, descriptions,
	// H1s) that contain the query are added as ideas with source "site"
	// and the pages they are on. A domain without one is refused
	// (*seo.InputError for "site").
	Site string
}

// MaxSuggestions is the largest SuggestRequest.Limit.
const MaxSuggestions = 1000

// Rankings is the keyword rankings service (GET /v1/rankings and the
// dashboard's rankings page: history, "Track keywords", "untrack"). The API server implements it
// (httpapi.Server.Rankings).
type Rankings interface {
	// Check validates req, charges one unit of the account's daily quota
	// (less what the request paid, WithPaid), makes its keywords tracked
	// (re-checked daily) and returns the latest state of each one,
	// checked live when a SERP source is configured (a provider failure
	// is an entry with status failed, not an error). Bad input is an
	// *seo.InputError naming the field ("projectId", "domain",
	// "keywords[]", "keywords[2]", "locale", "device"); a server without
	// a tracker answers a *NotConfiguredError.
	Check(ctx context.Context, accountID string, req RankingsRequest) (*RankingsResponse, error)
	// Track validates req, charges one unit of the account's daily quota
	// (less what the request paid) and makes its keywords tracked for
	// the target, re-checked daily; with a SERP source they are checked
	// at once, and the states are returned (a provider failure is an
	// entry with status failed). Bad input is an *seo.InputError naming
	// the field ("domain", "keywords[2]", "locale", "device"); a server
	// without a tracker answers a *NotConfiguredError.
	Track(ctx context.Context, accountID string, req TrackRequest) ([]rankings.Ranking, error)
	// Untrack stops the daily re-checks of req's keywords at req's target
	// for its locale and device; their history is kept. It charges
	// nothing. The caller decides that no one else tracks them (the
	// dashboard's watchlist). Bad input is an *seo.InputError naming the
	// field, as Track's; a server without a tracker answers a
	// *NotConfiguredError.
	Untrack(ctx context.Context, accountID string, req TrackRequest) error
	// Source names the SERP provider that checks positions live, "" and
	// false when positions come only from imported data.
	Source() (name string, ok bool)
	// History reads what is stored of req's keywords at req's domain:
	// their observations over [From, To], their latest observations and
	// their latest failed checks at any date. It charges nothing: the
	// checks were paid when they were made. Bad input is an
	// *seo.InputError naming the field ("domain", "keywords"); a server
	// without a tracker answers a *NotConfiguredError.
	History(ctx context.Context, accountID string, req HistoryRequest) (*RankingHistory, error)
}

// HistoryRequest asks for the stored rankings of keywords of a target (a
// host name, optionally narrowed to a path prefix, see
// rankings.ParseTarget).
type HistoryRequest struct {
	Domain string
	// Keywords are 1 to MaxTrack keywords, as tracked (normalized).
	Keywords []string
	// From and To bound the history by day, both included; zero means
	// unbounded on that side.
	From, To time.Time
}

// RankingHistory is what is stored of some keywords: every locale and
// device, with imported data (no locale) among them.
type RankingHistory struct {
	// Observations over the request's days, ordered by keyword, locale,
	// device and date (rankings.Store.History).
	Observations []rankings.Observation
	// Latest is the latest observation of each keyword, locale and
	// device at any date.
	Latest []rankings.Observation
	// Failures is the latest failed check of each keyword, locale and
	// device; empty when the store keeps no failures.
	Failures []rankings.Failure
}

// RankingsRequest asks for the state of keywords of a site: a domain, or
// a project whose domain and (when Keywords is empty) keywords are used.
type RankingsRequest struct {
	Domain    string
	ProjectID string
	// Keywords are checked in order; duplicates are dropped. Empty means
	// the project's keywords.
	Keywords []string
	// Locale is a BCP 47 tag, "en-US" when empty.
	Locale string
	// Device is "desktop" (the default when empty) or "mobile".
	Device string
}

// TrackRequest asks to track keywords of a target: a host name, optionally
// narrowed to a path prefix ("example.com/blog", see rankings.ParseTarget).
type TrackRequest struct {
	Domain string
	// Keywords are 1 to MaxTrack keywords; duplicates are dropped.
	Keywords []string
	// Locale is a BCP 47 tag, "en-US" when empty.
	Locale string
	// Device is "desktop" (the default when empty) or "mobile".
	Device string
}

// MaxTrack is the most keywords one TrackRequest tracks.
const MaxTrack = 1000

// RankingsResponse is the body of GET /v1/rankings. Each entry has a
// status (ranked, not_ranked, unchecked, failed; see rankings.Status):
// a null position alone never means "not ranked".
type RankingsResponse struct {
	Domain string `json:"domain"`
	Locale string `json:"locale"`
	Device string `json:"device"`
	// Source is the SERP provider that checks positions live; null when
	// none is configured.
	Source *string `json:"source"`
	// SourceStatus is "configured" or "none"; with none, positions come
	// only from imported data and Message says so.
	SourceStatus string `json:"sourceStatus"`
	// Message explains SourceStatus "none" in words.
	Message  string             `json:"message,omitempty"`
	Rankings []rankings.Ranking `json:"rankings"`
}

// Values of RankingsResponse.SourceStatus.
const (
	SourceConfigured = "configured"
	SourceNone       = "none"
)

// Reports is the ranking reports service (GET /v1/reports). The API
// server implements it (httpapi.Server.Reports).
type Reports interface {
	// Build validates req, charges one unit of the account's daily quota
	// (less what the request paid, WithPaid) and builds the report of the
	// domain's rankings over [Start, End]. Bad input is an
	// *seo.InputError naming the field ("domain", "start", "end",
	// "locale", "device"); a server without a report builder answers a
	// *NotConfiguredError.
	Build(ctx context.Context, accountID string, req ReportRequest) (*reports.Report, error)
}

// ReportRequest asks for the ranking report of a domain over days.
type ReportRequest struct {
	Domain string
	// Start and End are the first and last day, YYYY-MM-DD, both
	// required, Start not after End.
	Start, End string
	// Locale and Device narrow the report; empty means every one.
	Locale, Device string
}
