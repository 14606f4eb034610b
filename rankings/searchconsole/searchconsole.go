package searchconsole

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/oauth2"
	"golang.org/x/text/language"

	"github.com/seokit/seokit/internal/google"
	"github.com/seokit/seokit/rankings"
	"github.com/seokit/seokit/seo"
)

// Name is the driver name reported in SERP.Source.
const Name = "searchconsole"

// Defaults of Options.
const (
	// DefaultDays is the length of the Search window.
	DefaultDays = 7
	// DefaultLagDays is how many days before today the Search window ends:
	// Search Console's final data lags by about two days.
	DefaultLagDays = 2
	// DefaultMaxRows caps the rows Queries returns.
	DefaultMaxRows = 100000
)

// MaxKeywordLength is the longest keyword Search accepts, in characters.
const MaxKeywordLength = 200

// Options configures a Source. The zero value uses the public API with the
// defaults above; credentials (HTTPClient or TokenSource) are required.
type Options struct {
	// HTTPClient sends requests with OAuth 2.0 credentials for the scope
	// https://www.googleapis.com/auth/webmasters.readonly.
	HTTPClient *http.Client
	// TokenSource supplies access tokens when HTTPClient is nil.
	TokenSource oauth2.TokenSource
	// BaseURL replaces https://searchconsole.googleapis.com (tests, proxies).
	BaseURL string
	// Timeout bounds each request; zero means 30 seconds.
	Timeout time.Duration
	// Days is the length of the Search window in days; zero means DefaultDays.
	Days int
	// LagDays is how many days before today (UTC) the Search window ends;
	// zero means DefaultLagDays, a negative value means today.
	LagDays int
	// Fresh asks for fresh, not yet final data (dataState "all").
	Fresh bool
	// Type is the search type: web (the default), image, video, news,
	// discover or googleNews.
	Type string
	// RowLimit is the page size of a query; zero means 25,000, the maximum.
	RowLimit int
	// MaxRows caps the rows Queries returns; zero means DefaultMaxRows.
	MaxRows int
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Source reads average positions from the Search Analytics API of one
// Search Console property. It implements rankings.Source.
type Source struct {
	site string
	c    *google.Client
	o    Options
}

var _ rankings.Source = (*Source)(nil)

var searchTypes = map[string]bool{"web": true, "image": true, "video": true, "news": true, "discover": true, "googleNews": true}

// New returns a Source for the property site: "sc-domain:example.com" for a
// Domain property or a URL prefix such as "https://www.example.com/". A bad
// site is an *seo.InputError for "site"; missing credentials one for
// "credentials".
func New(site string, opts *Options) (*Source, error) {
	s := &Source{}
	if opts != nil {
		s.o = *opts
	}
	var err error
	if s.site, err = google.ParseSite("site", site); err != nil {
		return nil, err
	}
	switch {
	case s.o.Days < 0 || s.o.Days > 16*31:
		return nil, &seo.InputError{Field: "days", Value: fmt.Sprint(s.o.Days), Reason: "must be between 1 and 496 (Search Console keeps 16 months)"}
	case s.o.Days == 0:
		s.o.Days = DefaultDays
	}
	if s.o.LagDays == 0 {
		s.o.LagDays = DefaultLagDays
	} else if s.o.LagDays < 0 {
		s.o.LagDays = 0
	}
	if s.o.Type == "" {
		s.o.Type = "web"
	} else if !searchTypes[s.o.Type] {
		return nil, &seo.InputError{Field: "type", Value: s.o.Type, Reason: "must be web, image, video, news, discover or googleNews"}
	}
	if s.o.MaxRows <= 0 {
		s.o.MaxRows = DefaultMaxRows
	}
	if s.o.Now == nil {
		s.o.Now = time.Now
	}
	s.c, err = google.New(google.Config{
		Name: Name, BaseURL: s.o.BaseURL, HTTPClient: s.o.HTTPClient,
		TokenSource: s.o.TokenSource, Timeout: s.o.Timeout,
	}, google.SearchConsoleBase)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// Name returns "searchconsole".
func (s *Source) Name() string { return Name }

// Site returns the property the source reads.
func (s *Source) Site() string { return s.site }

// Window returns the inclusive UTC days Search reads: Days days ending
// LagDays before today.
func (s *Source) Window() (start, end time.Time) {
	y, m, d := s.o.Now().UTC().Date()
	end = time.Date(y, m, d-s.o.LagDays, 0, 0, 0, 0, time.UTC)
	start = end.AddDate(0, 0, -(s.o.Days - 1))
	return start, end
}

// PageStat is Search Console's measurement of one page for one query over
// a window. Position is Google's average position: the mean, over
// impressions, of the topmost position the page held, not one observed
// result page.
type PageStat struct {
	URL         string
	Clicks      int
	Impressions int
	CTR         float64
	Position    float64
}

// Pages returns the pages of the property that had impressions for q's
// keyword (exact match) in the Search window, filtered by q's country and
// device, with their exact average positions, most impressions first.
func (s *Source) Pages(ctx context.Context, q rankings.Query) ([]PageStat, error) {
	req, err := s.request(q)
	if err != nil {
		return nil, err
	}
	rows, _, err := google.SearchAnalytics(ctx, s.c, s.site, req, s.o.MaxRows)
	if err != nil {
		return nil, err
	}
	out := make([]PageStat, 0, len(rows))
	for _, r := range rows {
		out = append(out, PageStat{URL: r.Keys[1], Clicks: r.Clicks, Impressions: r.Impressions, CTR: r.CTR, Position: r.Position})
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Impressions != b.Impressions {
			return a.Impressions > b.Impressions
		}
		if a.Position != b.Position {
			return a.Position < b.Position
		}
		return a.URL < b.URL
	})
	return out, nil
}

// Search returns a SERP with Average set and at most one Result: the
// property's page with the most impressions for the keyword in the window
// (ties: better average position). Result.Position is that page's average
// position rounded to the nearest integer (at least 1); Pages gives the
// exact figure. An empty SERP means the property had no impressions for
// the keyword in the window, which Search Console cannot tell apart from
// ranking beyond where searchers looked. SERP.Depth is q.Depth, raised to
// the reported position when that is deeper: Search Console has no result
// page depth.
func (s *Source) Search(ctx context.Context, q rankings.Query) (*rankings.SERP, error) {
	pages, err := s.Pages(ctx, q)
	if err != nil {
		return nil, err
	}
	serp := &rankings.SERP{Query: q, Depth: q.Depth, Average: true, Source: Name, CheckedAt: s.o.Now().UTC()}
	serp.Results = []rankings.Result{}
	if len(pages) > 0 {
		p := pages[0]
		pos := max(1, int(math.Round(p.Position)))
		serp.Results = append(serp.Results, rankings.Result{Position: pos, URL: p.URL})
		serp.Depth = max(serp.Depth, pos)
	}
	return serp, nil
}

func (s *Source) request(q rankings.Query) (google.SearchAnalyticsRequest, error) {
	kw := strings.TrimSpace(q.Keyword)
	switch {
	case kw == "":
		return google.SearchAnalyticsRequest{}, &seo.InputError{Field: "keyword", Reason: "is empty"}
	case utf8.RuneCountInString(kw) > MaxKeywordLength:
		return google.SearchAnalyticsRequest{}, &seo.InputError{Field: "keyword", Value: kw, Reason: fmt.Sprintf("is longer than %d characters", MaxKeywordLength)}
	case !utf8.ValidString(kw):
		return google.SearchAnalyticsRequest{}, &seo.InputError{Field: "keyword", Reason: "is not valid UTF-8"}
	}
	if q.Depth < 0 {
		return google.SearchAnalyticsRequest{}, &seo.InputError{Field: "depth", Value: fmt.Sprint(q.Depth), Reason: "must not be negative"}
	}
	filters := []google.Filter{{Dimension: "query", Operator: "equals", Expression: kw}}
	if q.Locale.Region != "" {
		c, err := Country(q.Locale)
		if err != nil {
			return google.SearchAnalyticsRequest{}, err
		}
		filters = append(filters, google.Filter{Dimension: "country", Operator: "equals", Expression: c})
	}
	switch q.Device {
	case "", rankings.Desktop:
		filters = append(filters, google.Filter{Dimension: "device", Operator: "equals", Expression: "DESKTOP"})
	case rankings.Mobile:
		filters = append(filters, google.Filter{Dimension: "device", Operator: "equals", Expression: "MOBILE"})
	default:
		return google.SearchAnalyticsRequest{}, &seo.InputError{Field: "device", Value: string(q.Device), Reason: "must be desktop or mobile"}
	}
	start, end := s.Window()
	return google.SearchAnalyticsRequest{
		StartDate:             google.Day(start),
		EndDate:               google.Day(end),
		Dimensions:            []string{"query", "page"},
		Type:                  s.o.Type,
		DimensionFilterGroups: []google.FilterGroup{{GroupType: "and", Filters: filters}},
		RowLimit:              s.o.RowLimit,
		DataState:             s.dataState(),
	}, nil
}

func (s *Source) dataState() string {
	if s.o.Fresh {
		return "all"
	}
	return ""
}

// Country returns the Search Console country code of a locale's region:
// ISO 3166-1 alpha-3 in lowercase ("usa" for en-US). An unknown region is
// an *seo.InputError for "locale".
func Country(loc seo.Locale) (string, error) {
	r, err := language.ParseRegion(loc.Region)
	if err != nil || !r.IsCountry() {
		return "", &seo.InputError{Field: "locale", Value: loc.String(), Reason: "has no known country"}
	}
	a3 := r.ISO3()
	if len(a3) != 3 {
		return "", &seo.InputError{Field: "locale", Value: loc.String(), Reason: "has no ISO 3166-1 alpha-3 country code"}
	}
	return strings.ToLower(a3), nil
}

// QueryStat is Search Console's measurement of one query for the whole
// property over a range. Position is the average of the property's
// topmost position per impression, labelled as an average.
type QueryStat struct {
	Query       string
	Clicks      int
	Impressions int
	CTR         float64
	Position    float64
}

// Queries returns every query of the property for the UTC days start..end
// inclusive (Search Console dates are Pacific time days) with clicks,
// impressions, CTR and average position, in Google's order (most clicks
// first). It pages with rowLimit and startRow and stops after MaxRows rows;
// Google itself returns only its top rows. Queries Google anonymises are
// not listed. start after end is an *seo.InputError naming "start".
func (s *Source) Queries(ctx context.Context, start, end time.Time) ([]QueryStat, error) {
	if err := google.CheckRange(start, end, 0); err != nil {
		return nil, err
	}
	req := google.SearchAnalyticsRequest{
		StartDate:  google.Day(start),
		EndDate:    google.Day(end),
		Dimensions: []string{"query"},
		Type:       s.o.Type,
		RowLimit:   s.o.RowLimit,
		DataState:  s.dataState(),
	}
	rows, _, err := google.SearchAnalytics(ctx, s.c, s.site, req, s.o.MaxRows)
	if err != nil {
		return nil, err
	}
	out := make([]QueryStat, 0, len(rows))
	for _, r := range rows {
		out = append(out, QueryStat{Query: r.Keys[0], Clicks: r.Clicks, Impressions: r.Impressions, CTR: r.CTR, Position: r.Position})
	}
	return out, nil
}
