package keywords

import (
	"context"
	"time"

	"github.com/seokit/seokit/seo"
)

// Keyword is one keyword with its metrics. Every number says where it came
// from: Source names the driver (or import format) that supplied it, and
// Estimated marks figures that were computed rather than measured.
type Keyword struct {
	// Keyword is the phrase as the source spells it.
	Keyword string `json:"keyword"`
	// Volume is the average monthly search volume; nil when unknown.
	Volume *int `json:"volume"`
	// Difficulty is an organic keyword difficulty 0-100; nil when the source
	// has none. Paid competition is never reported here.
	Difficulty *int `json:"difficulty"`
	// DifficultyMethod says how Difficulty was obtained, e.g.
	// "dataforseo:keyword_difficulty" or "imported:semrush".
	DifficultyMethod string `json:"difficultyMethod,omitempty"`
	// PaidCompetition is Google Ads' competition index 0-100 (share of ad
	// slots filled): paid, not organic, competition.
	PaidCompetition *int `json:"paidCompetition,omitempty"`
	// CPC is the average cost per click in the account's currency.
	CPC *float64 `json:"cpc,omitempty"`
	// Monthly is the monthly volume series, oldest first, when known.
	Monthly []MonthlyVolume `json:"monthly,omitempty"`
	// Source names where the figures came from: a driver name
	// ("dataforseo", "googleads", "local") or an import format
	// ("keyword-planner", "search-console", "semrush").
	Source string `json:"source"`
	// Estimated is true when Volume or Difficulty is an estimate rather
	// than a provider's figure; Method then says how.
	Estimated bool `json:"estimated"`
	// Expansion is true for a phrase generated from the query by a question
	// or modifier template; its Volume is nil unless a source knows it.
	Expansion bool `json:"expansion,omitempty"`
	// VolumeRange is the bucket a source gave instead of a figure, such as
	// "1K – 10K" in some Keyword Planner exports; Volume stays nil then,
	// because no point inside the bucket is known.
	VolumeRange string `json:"volumeRange,omitempty"`
	// SearchConsole holds the Search Console figures imported for the
	// phrase. Impressions are not search volume and never fill Volume.
	SearchConsole *SearchConsoleStats `json:"searchConsole,omitempty"`
	// Why says where the idea came from and why it is listed: the pages
	// of the site it occurs on, its Search Console figures, the imported
	// list or the provider that measured it. Explain writes it for sources
	// that leave it empty.
	Why string `json:"why,omitempty"`
	// UpdatedAt is when the source measured or the store last refreshed
	// the figures; zero when unknown.
	UpdatedAt time.Time `json:"updatedAt,omitzero"`
}

// SearchConsoleStats are one query's figures from a Google Search Console
// Performance export, for the site and date range of that export.
type SearchConsoleStats struct {
	// Clicks on the site's results for the query.
	Clicks int `json:"clicks"`
	// Impressions of the site's results for the query (not search volume).
	Impressions int `json:"impressions"`
	// CTR is Clicks divided by Impressions, 0-1, as exported.
	CTR *float64 `json:"ctr,omitempty"`
	// Position is the average position of the site's best result, 1-based.
	Position *float64 `json:"position,omitempty"`
}

// MaxVolumeKeywords is the most keywords one Volumes call accepts; more is
// an *seo.InputError for the field "keywords". Drivers batch below it.
const MaxVolumeKeywords = 1000

// MonthlyVolume is the search volume of one calendar month.
type MonthlyVolume struct {
	Year   int `json:"year"`
	Month  int `json:"month"`
	Volume int `json:"volume"`
}

// Source is the driver interface for keyword data providers.
//
// Implementations return seo errors: an *seo.InputError for a query the
// provider rejects, seo.ErrRateLimited (wrapped) when the provider says so,
// seo.ErrUnavailable (wrapped) for timeouts, 5xx answers and garbage bodies.
// They never return made-up figures.
type Source interface {
	// Name is the driver's short name, used as Keyword.Source.
	Name() string
	// Suggest returns keyword ideas for a seed phrase, at most limit.
	Suggest(ctx context.Context, seed string, loc seo.Locale, limit int) ([]Keyword, error)
	// Volumes returns the metrics of the given keywords; keywords the
	// source does not know are left out. More than MaxVolumeKeywords
	// keywords is an *seo.InputError for the field "keywords".
	Volumes(ctx context.Context, keywords []string, loc seo.Locale) ([]Keyword, error)
}
