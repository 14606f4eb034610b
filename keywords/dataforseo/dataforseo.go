package dataforseo

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/seokit/seokit/internal/dataforseo"
	"github.com/seokit/seokit/keywords"
	"github.com/seokit/seokit/seo"
)

// Name is the driver name, used as Keyword.Source.
const Name = "dataforseo"

// DifficultyMethod labels the difficulty figures this driver reports.
const DifficultyMethod = "dataforseo:keyword_difficulty"

// Endpoint paths (DataForSEO v3).
const (
	SuggestionsPath  = "/v3/dataforseo_labs/google/keyword_suggestions/live"
	SearchVolumePath = "/v3/keywords_data/google_ads/search_volume/live"
)

// Limits documented by DataForSEO.
const (
	// MaxSuggestions is the largest limit keyword_suggestions accepts.
	MaxSuggestions = 1000
	// DefaultSuggestions is keyword_suggestions' own default limit.
	DefaultSuggestions = 100
	// MaxVolumeBatch is the most keywords search_volume takes in one task.
	MaxVolumeBatch = 1000
	// MaxKeywordLength and MaxKeywordWords bound each search_volume keyword.
	MaxKeywordLength = 80
	MaxKeywordWords  = 10
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
}

// Source is a keywords.Source over DataForSEO.
type Source struct {
	c *dataforseo.Client
}

var _ keywords.Source = (*Source)(nil)

// New returns a Source that authenticates with the API login and password.
func New(login, password string, opts *Options) *Source {
	var o Options
	if opts != nil {
		o = *opts
	}
	return &Source{c: dataforseo.New(Name, login, password, &dataforseo.Options{
		BaseURL: o.BaseURL, HTTPClient: o.HTTPClient, Timeout: o.Timeout, MaxBody: o.MaxBody,
	})}
}

// Name returns "dataforseo".
func (s *Source) Name() string { return Name }

// suggestTask is a keyword_suggestions/live task.
type suggestTask struct {
	Keyword            string `json:"keyword"`
	LocationCode       int    `json:"location_code"`
	LanguageCode       string `json:"language_code"`
	Limit              int    `json:"limit"`
	IncludeSeedKeyword bool   `json:"include_seed_keyword"`
}

type labsResult struct {
	SeedKeyword string        `json:"seed_keyword"`
	TotalCount  int           `json:"total_count"`
	ItemsCount  int           `json:"items_count"`
	Items       []labsKeyword `json:"items"`
}

type labsKeyword struct {
	Keyword     string `json:"keyword"`
	KeywordInfo *struct {
		LastUpdatedTime string    `json:"last_updated_time"`
		Competition     *float64  `json:"competition"`
		CPC             *float64  `json:"cpc"`
		SearchVolume    *int      `json:"search_volume"`
		MonthlySearches []monthly `json:"monthly_searches"`
	} `json:"keyword_info"`
	KeywordProperties *struct {
		KeywordDifficulty *int `json:"keyword_difficulty"`
	} `json:"keyword_properties"`
}

type monthly struct {
	Year         int  `json:"year"`
	Month        int  `json:"month"`
	SearchVolume *int `json:"search_volume"`
}

// Suggest returns up to limit keyword ideas for seed from DataForSEO Labs
// (limit 0 means the endpoint's default of 100; at most 1000).
func (s *Source) Suggest(ctx context.Context, seed string, loc seo.Locale, limit int) ([]keywords.Keyword, error) {
	seed, err := keywords.ValidateQuery(seed)
	if err != nil {
		return nil, err
	}
	switch {
	case limit < 0 || limit > MaxSuggestions:
		return nil, &seo.InputError{Field: "limit", Value: fmt.Sprint(limit), Reason: fmt.Sprintf("must be between 0 and %d", MaxSuggestions)}
	case limit == 0:
		limit = DefaultSuggestions
	}
	code, lang, err := dataforseo.Location(loc, keywords.LocationCode)
	if err != nil {
		return nil, err
	}
	raw, err := s.c.Live(ctx, SuggestionsPath, suggestTask{
		Keyword: seed, LocationCode: code, LanguageCode: lang, Limit: limit, IncludeSeedKeyword: true,
	}, map[string]string{"keyword": "query", "limit": "limit", "location_code": "locale", "language_code": "locale"})
	if err != nil {
		return nil, err
	}
	var results []labsResult
	if err := json.Unmarshal(raw, &results); err != nil {
		return nil, fmt.Errorf("dataforseo: %w: unexpected keyword_suggestions result: %v", seo.ErrUnavailable, err)
	}
	if len(results) == 0 {
		return nil, fmt.Errorf("dataforseo: %w: keyword_suggestions answered without a result", seo.ErrUnavailable)
	}
	out := make([]keywords.Keyword, 0, len(results[0].Items))
	for _, it := range results[0].Items {
		if it.Keyword == "" {
			continue
		}
		k := keywords.Keyword{Keyword: it.Keyword, Source: Name}
		if ki := it.KeywordInfo; ki != nil {
			k.Volume = ki.SearchVolume
			k.CPC = ki.CPC
			if ki.Competition != nil {
				// Labs reports Google Ads competition as 0..1; scale to the
				// 0-100 index Keyword.PaidCompetition uses.
				pc := int(*ki.Competition*100 + 0.5)
				k.PaidCompetition = &pc
			}
			k.Monthly = series(ki.MonthlySearches)
			if t, err := time.Parse("2006-01-02 15:04:05 -07:00", ki.LastUpdatedTime); err == nil {
				k.UpdatedAt = t.UTC()
			}
		}
		if kp := it.KeywordProperties; kp != nil && kp.KeywordDifficulty != nil {
			k.Difficulty = kp.KeywordDifficulty
			k.DifficultyMethod = DifficultyMethod
		}
		out = append(out, k)
		if len(out) == limit {
			break
		}
	}
	return out, nil
}

// volumeTask is a Google Ads search_volume/live task.
type volumeTask struct {
	Keywords     []string `json:"keywords"`
	LocationCode int      `json:"location_code"`
	LanguageCode string   `json:"language_code"`
}

type adsKeyword struct {
	Keyword          string    `json:"keyword"`
	SearchVolume     *int      `json:"search_volume"`
	CompetitionIndex *int      `json:"competition_index"`
	CPC              *float64  `json:"cpc"`
	MonthlySearches  []monthly `json:"monthly_searches"`
}

// Volumes returns Google Ads volumes for kws, in batches of 1000 keywords
// per call. Keywords Google Ads has no volume for are left out. Difficulty
// is nil: Google Ads has no organic difficulty; its competition index is
// reported as PaidCompetition.
func (s *Source) Volumes(ctx context.Context, kws []string, loc seo.Locale) ([]keywords.Keyword, error) {
	if len(kws) > keywords.MaxVolumeKeywords {
		return nil, &seo.InputError{Field: "keywords", Value: fmt.Sprint(len(kws)), Reason: fmt.Sprintf("at most %d keywords per call", keywords.MaxVolumeKeywords)}
	}
	clean := make([]string, 0, len(kws))
	seen := make(map[string]bool, len(kws))
	for i, kw := range kws {
		kw = keywords.FoldCase(kw)
		field := fmt.Sprintf("keywords[%d]", i)
		switch {
		case kw == "" || !utf8.ValidString(kw):
			return nil, &seo.InputError{Field: field, Value: kws[i], Reason: "must be a non-empty UTF-8 phrase"}
		case utf8.RuneCountInString(kw) > MaxKeywordLength:
			return nil, &seo.InputError{Field: field, Value: kws[i], Reason: fmt.Sprintf("longer than %d characters, which Google Ads rejects", MaxKeywordLength)}
		case len(strings.Fields(kw)) > MaxKeywordWords:
			return nil, &seo.InputError{Field: field, Value: kws[i], Reason: fmt.Sprintf("more than %d words, which Google Ads rejects", MaxKeywordWords)}
		}
		if !seen[kw] {
			seen[kw] = true
			clean = append(clean, kw)
		}
	}
	if len(clean) == 0 {
		return nil, nil
	}
	code, lang, err := dataforseo.Location(loc, keywords.LocationCode)
	if err != nil {
		return nil, err
	}
	var out []keywords.Keyword
	for batch := range slices.Chunk(clean, MaxVolumeBatch) {
		raw, err := s.c.Live(ctx, SearchVolumePath, volumeTask{Keywords: batch, LocationCode: code, LanguageCode: lang},
			map[string]string{"keywords": "keywords", "location_code": "locale", "language_code": "locale"})
		if err != nil {
			return nil, err
		}
		var items []adsKeyword
		if err := json.Unmarshal(raw, &items); err != nil {
			return nil, fmt.Errorf("dataforseo: %w: unexpected search_volume result: %v", seo.ErrUnavailable, err)
		}
		for _, it := range items {
			if it.Keyword == "" || it.SearchVolume == nil {
				continue
			}
			out = append(out, keywords.Keyword{
				Keyword:         it.Keyword,
				Volume:          it.SearchVolume,
				PaidCompetition: it.CompetitionIndex,
				CPC:             it.CPC,
				Monthly:         series(it.MonthlySearches),
				Source:          Name,
			})
		}
	}
	return out, nil
}

// series converts a monthly_searches array (newest first as DataForSEO
// sends it) to a series oldest first, dropping months without a figure.
func series(ms []monthly) []keywords.MonthlyVolume {
	var out []keywords.MonthlyVolume
	for _, m := range ms {
		if m.SearchVolume == nil || m.Month < 1 || m.Month > 12 {
			continue
		}
		out = append(out, keywords.MonthlyVolume{Year: m.Year, Month: m.Month, Volume: *m.SearchVolume})
	}
	slices.SortFunc(out, func(a, b keywords.MonthlyVolume) int {
		return (a.Year*12 + a.Month) - (b.Year*12 + b.Month)
	})
	return out
}
