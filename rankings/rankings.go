package rankings

import (
	"context"
	"time"

	"github.com/seokit/seokit/seo"
)

// Device is the kind of device a search result page was fetched for.
type Device string

// Devices.
const (
	Desktop Device = "desktop"
	Mobile  Device = "mobile"
)

// Query is one search to check.
type Query struct {
	Keyword string
	Locale  seo.Locale
	Device  Device // "" means Desktop
	// Depth is how many organic results to look through; 0 means the
	// source's default (100 where the provider allows it).
	Depth int
}

// Result is one organic result of a search result page.
type Result struct {
	// Position is the 1-based organic rank (DataForSEO rank_group,
	// SerpApi position); ads and SERP features are not counted.
	Position int    `json:"position"`
	URL      string `json:"url"`
	Title    string `json:"title,omitempty"`
}

// SERP is the organic results a source returned for a query.
type SERP struct {
	Query   Query
	Results []Result
	// Depth is how many organic positions were actually examined; a domain
	// absent from Results is "not ranked within Depth".
	Depth int
	// Average is true when positions are averages over a period (Search
	// Console) rather than one observed result page.
	Average bool
	// Source is the driver name.
	Source    string
	CheckedAt time.Time
}

// Source is the driver interface for search result providers.
//
// A provider failure (timeout, quota, garbage answer) is an error wrapping
// seo.ErrUnavailable or seo.ErrRateLimited, never an empty SERP: an empty
// SERP means the provider answered and nothing ranked.
type Source interface {
	Name() string
	Search(ctx context.Context, q Query) (*SERP, error)
}

// Observation is one dated ranking of a keyword for a domain.
type Observation struct {
	Domain  string
	Keyword string
	Locale  seo.Locale
	Device  Device
	// Date is the UTC calendar day of the check (time part zero).
	Date time.Time
	// Position is the organic rank; nil when not found within Depth.
	Position *float64 // float: Search Console positions are averages
	URL      string
	Depth    int
	Average  bool
	Source   string
	// CheckedAt is the exact time of the check.
	CheckedAt time.Time
}

// Ranking is the API's view of a keyword's latest position for a domain:
// the SPEC's rankings[] entry plus its state and where it came from. Make
// one with [NewRanking], which derives Status.
type Ranking struct {
	Keyword string `json:"keyword"`
	// Status is ranked, not_ranked, unchecked or failed; read it before
	// Position, which is null in all but ranked (and may hold the last
	// known position when failed).
	Status Status `json:"status"`
	// Reason explains a status other than ranked in words.
	Reason string `json:"reason,omitempty"`
	// Position is the organic rank; null when not ranked within Depth,
	// never checked, or never checked successfully. For an average
	// position it is AveragePosition rounded to the nearest integer.
	Position *int   `json:"position"`
	URL      string `json:"url,omitempty"`
	// AveragePosition is set, and Average true, when the source reports an
	// average over a period (Search Console) rather than one result page.
	AveragePosition *float64 `json:"averagePosition,omitempty"`
	Average         bool     `json:"average,omitempty"`
	// Depth is how many organic results the latest successful check
	// looked through (0: unknown, as in imported data).
	Depth     int       `json:"depth,omitempty"`
	Source    string    `json:"source,omitempty"`
	CheckedAt time.Time `json:"checkedAt,omitzero"`
	// Error is the provider's error when Status is failed (no
	// credentials in it), and FailedAt when the check failed.
	Error    string    `json:"error,omitempty"`
	FailedAt time.Time `json:"failedAt,omitzero"`
}

// Tracked is a keyword tracked for a domain, for one locale and device.
type Tracked struct {
	Domain  string
	Keyword string
	Locale  seo.Locale
	Device  Device
	AddedAt time.Time
}

// Filter selects tracked keywords or observations. Zero fields match all.
type Filter struct {
	Domain   string     // required by Store methods
	Keywords []string   // nil means every keyword
	Locale   seo.Locale // zero means every locale
	Device   Device     // "" means every device
	From, To time.Time  // inclusive UTC days; zero means unbounded
}

// Store keeps tracked keywords and dated observations.
//
// Record is atomic: a batch is stored whole or not at all, and one
// observation per (domain, keyword, locale, device, date) is kept (the
// latest wins). Implementations run rankingstest.RunStore.
type Store interface {
	// Track adds keywords to track; ones already tracked are skipped.
	Track(ctx context.Context, keywords []Tracked) error
	// Untrack stops tracking and keeps the history.
	Untrack(ctx context.Context, f Filter) error
	// Tracked lists the tracked keywords matching f; an empty Domain lists
	// every domain's.
	Tracked(ctx context.Context, f Filter) ([]Tracked, error)
	// Record stores observations.
	Record(ctx context.Context, obs []Observation) error
	// Latest returns the most recent observation per keyword, locale and
	// device matching f.
	Latest(ctx context.Context, f Filter) ([]Observation, error)
	// History returns the observations matching f, ordered by keyword,
	// locale, device and date.
	History(ctx context.Context, f Filter) ([]Observation, error)
}
