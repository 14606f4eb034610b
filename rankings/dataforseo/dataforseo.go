package dataforseo

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/seokit/seokit/internal/dataforseo"
	"github.com/seokit/seokit/keywords"
	"github.com/seokit/seokit/rankings"
	"github.com/seokit/seokit/seo"
)

// Name is the driver name, used as SERP.Source.
const Name = "dataforseo"

// SERPPath is the Live Advanced Google organic endpoint.
const SERPPath = "/v3/serp/google/organic/live/advanced"

// Depth limits of the live advanced endpoint (its current documentation:
// depth up to 200, billed per 10 results).
const (
	DefaultDepth = 100
	MaxDepth     = 200
	// MaxKeywordLength is the longest keyword the endpoint accepts.
	MaxKeywordLength = 700
)

// Options configures a Source. The zero value is usable.
type Options struct {
	// BaseURL is the API root; "" means https://api.dataforseo.com.
	BaseURL string
	// HTTPClient makes the requests; nil means http.DefaultClient.
	HTTPClient *http.Client
	// Timeout bounds each API call; 0 means 60 s.
	Timeout time.Duration
	// MaxBody caps each response body; 0 means 32 MiB.
	MaxBody int64
	// Now returns the check time; nil means time.Now.
	Now func() time.Time
}

// Source is a rankings.Source over DataForSEO.
type Source struct {
	c   *dataforseo.Client
	now func() time.Time
}

var _ rankings.Source = (*Source)(nil)

// New returns a Source that authenticates with the API login and password.
func New(login, password string, opts *Options) *Source {
	var o Options
	if opts != nil {
		o = *opts
	}
	s := &Source{c: dataforseo.New(Name, login, password, &dataforseo.Options{
		BaseURL: o.BaseURL, HTTPClient: o.HTTPClient, Timeout: o.Timeout, MaxBody: o.MaxBody,
	}), now: o.Now}
	if s.now == nil {
		s.now = time.Now
	}
	return s
}

// Name returns "dataforseo".
func (s *Source) Name() string { return Name }

type serpTask struct {
	Keyword      string `json:"keyword"`
	LocationCode int    `json:"location_code"`
	LanguageCode string `json:"language_code"`
	Device       string `json:"device"`
	Depth        int    `json:"depth"`
}

type serpResult struct {
	Keyword    string     `json:"keyword"`
	Type       string     `json:"type"`
	ItemsCount int        `json:"items_count"`
	Items      []serpItem `json:"items"`
}

type serpItem struct {
	Type      string `json:"type"`
	RankGroup int    `json:"rank_group"`
	URL       string `json:"url"`
	Title     string `json:"title"`
}

// Search fetches the organic results of q. Depth 0 means 100; at most 200.
func (s *Source) Search(ctx context.Context, q rankings.Query) (*rankings.SERP, error) {
	kw := strings.TrimSpace(q.Keyword)
	if kw == "" || !utf8.ValidString(kw) || utf8.RuneCountInString(kw) > MaxKeywordLength {
		return nil, &seo.InputError{Field: "keyword", Value: q.Keyword, Reason: fmt.Sprintf("must be a non-empty UTF-8 phrase of at most %d characters", MaxKeywordLength)}
	}
	device := q.Device
	switch device {
	case "":
		device = rankings.Desktop
	case rankings.Desktop, rankings.Mobile:
	default:
		return nil, &seo.InputError{Field: "device", Value: string(q.Device), Reason: "must be desktop or mobile"}
	}
	depth := q.Depth
	switch {
	case depth < 0 || depth > MaxDepth:
		return nil, &seo.InputError{Field: "depth", Value: fmt.Sprint(q.Depth), Reason: fmt.Sprintf("must be between 0 and %d", MaxDepth)}
	case depth == 0:
		depth = DefaultDepth
	}
	code, lang, err := dataforseo.Location(q.Locale, keywords.LocationCode)
	if err != nil {
		return nil, err
	}
	raw, err := s.c.Live(ctx, SERPPath, serpTask{Keyword: kw, LocationCode: code, LanguageCode: lang, Device: string(device), Depth: depth},
		map[string]string{"keyword": "keyword", "location_code": "locale", "language_code": "locale", "device": "device", "depth": "depth"})
	if err != nil {
		return nil, err
	}
	var results []serpResult
	if err := json.Unmarshal(raw, &results); err != nil {
		return nil, fmt.Errorf("dataforseo: %w: unexpected SERP result: %v", seo.ErrUnavailable, err)
	}
	if len(results) == 0 {
		return nil, fmt.Errorf("dataforseo: %w: SERP task answered without a result", seo.ErrUnavailable)
	}
	q.Device = device
	q.Depth = depth
	serp := &rankings.SERP{Query: q, Source: Name, CheckedAt: s.now().UTC(), Results: []rankings.Result{}}
	for _, it := range results[0].Items {
		if it.Type != "organic" || it.RankGroup < 1 || it.RankGroup > depth || it.URL == "" {
			continue
		}
		serp.Results = append(serp.Results, rankings.Result{Position: it.RankGroup, URL: it.URL, Title: it.Title})
		serp.Depth = max(serp.Depth, it.RankGroup)
	}
	return serp, nil
}
