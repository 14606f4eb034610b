package googleads

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/oauth2"

	"github.com/seokit/seokit/internal/provider"
	"github.com/seokit/seokit/keywords"
	"github.com/seokit/seokit/seo"
)

// Name is the driver name, used as Keyword.Source.
const Name = "googleads"

// Defaults.
const (
	DefaultBaseURL    = "https://googleads.googleapis.com"
	DefaultAPIVersion = "v23"
	DefaultTimeout    = 60 * time.Second
	DefaultMaxBody    = 32 << 20
	// DefaultSuggestions is the page size Suggest asks for when limit is 0.
	DefaultSuggestions = 100
	// MaxSuggestions is the most ideas Suggest returns (one page).
	MaxSuggestions = 1000
	// VolumeBatch is how many keywords Volumes sends per request.
	VolumeBatch = 1000
	// MaxKeywordLength is the longest keyword Google Ads accepts (80
	// characters, as the keyword planner documents).
	MaxKeywordLength = 80
)

// Options configures a Source. The zero value is usable.
type Options struct {
	// BaseURL is the API root; "" means https://googleads.googleapis.com.
	BaseURL string
	// APIVersion is the path version; "" means DefaultAPIVersion.
	APIVersion string
	// LoginCustomerID is the manager account to act through (digits,
	// dashes allowed); "" sends no login-customer-id header.
	LoginCustomerID string
	// HTTPClient makes the requests; nil means http.DefaultClient.
	HTTPClient *http.Client
	// Timeout bounds each API call; 0 means 60 s.
	Timeout time.Duration
	// MaxBody caps each response body; 0 means 32 MiB.
	MaxBody int64
	// SearchPartners includes Google search partners in the figures
	// (GOOGLE_SEARCH_AND_PARTNERS); false means GOOGLE_SEARCH only.
	SearchPartners bool
}

// Source is a keywords.Source over the Google Ads API.
type Source struct {
	customerID, loginID, devToken string
	tokens                        oauth2.TokenSource
	o                             Options
	root                          string
	c                             *provider.Client
}

var _ keywords.Source = (*Source)(nil)

// New returns a Source for the Google Ads account customerID (digits,
// dashes allowed) using developerToken and OAuth tokens from tokens. A
// customer ID that is not 10 digits is an *seo.InputError.
func New(customerID, developerToken string, tokens oauth2.TokenSource, opts *Options) (*Source, error) {
	s := &Source{devToken: developerToken, tokens: tokens}
	if opts != nil {
		s.o = *opts
	}
	var err error
	if s.customerID, err = normID("customerId", customerID); err != nil {
		return nil, err
	}
	if s.o.LoginCustomerID != "" {
		if s.loginID, err = normID("loginCustomerId", s.o.LoginCustomerID); err != nil {
			return nil, err
		}
	}
	if tokens == nil {
		return nil, &seo.InputError{Field: "tokens", Reason: "an OAuth 2.0 token source is required"}
	}
	if developerToken == "" {
		return nil, &seo.InputError{Field: "developerToken", Reason: "is required"}
	}
	s.root = strings.TrimRight(cmp.Or(s.o.BaseURL, DefaultBaseURL), "/") + "/" + cmp.Or(s.o.APIVersion, DefaultAPIVersion)
	s.c = provider.New(Name, &provider.Options{
		HTTPClient: s.o.HTTPClient, Timeout: cmp.Or(s.o.Timeout, DefaultTimeout), MaxBody: s.o.MaxBody,
		Format: "Google Ads", ParseError: parseError,
	})
	return s, nil
}

func normID(field, id string) (string, error) {
	d := strings.ReplaceAll(strings.TrimSpace(id), "-", "")
	if len(d) != 10 || strings.Trim(d, "0123456789") != "" {
		return "", &seo.InputError{Field: field, Value: id, Reason: "must be a 10-digit Google Ads customer ID"}
	}
	return d, nil
}

// Name returns "googleads".
func (s *Source) Name() string { return Name }

type ideasRequest struct {
	Language           string      `json:"language"`
	GeoTargetConstants []string    `json:"geoTargetConstants"`
	KeywordPlanNetwork string      `json:"keywordPlanNetwork"`
	PageSize           int         `json:"pageSize,omitempty"`
	KeywordSeed        *seed       `json:"keywordSeed,omitempty"`
	Keywords           []string    `json:"keywords,omitempty"`
	HistoricalOptions  *histOption `json:"historicalMetricsOptions,omitempty"`
}

type seed struct {
	Keywords []string `json:"keywords"`
}

type histOption struct {
	IncludeAverageCpc bool `json:"includeAverageCpc"`
}

// metrics is KeywordPlanHistoricalMetrics.
type metrics struct {
	AvgMonthlySearches     *int64str     `json:"avgMonthlySearches"`
	Competition            string        `json:"competition"`
	CompetitionIndex       *int64str     `json:"competitionIndex"`
	AverageCpcMicros       *int64str     `json:"averageCpcMicros"`
	MonthlySearchVolumes   []monthVolume `json:"monthlySearchVolumes"`
	LowTopOfPageBidMicros  *int64str     `json:"lowTopOfPageBidMicros"`
	HighTopOfPageBidMicros *int64str     `json:"highTopOfPageBidMicros"`
}

type monthVolume struct {
	Year            int64str  `json:"year"`
	Month           string    `json:"month"`
	MonthlySearches *int64str `json:"monthlySearches"`
}

// int64str decodes a proto int64, which JSON carries as a string (numbers
// are accepted too).
type int64str int64

func (n *int64str) UnmarshalJSON(b []byte) error {
	s := strings.Trim(string(b), `"`)
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return fmt.Errorf("int64 value %s: %w", b, err)
	}
	*n = int64str(v)
	return nil
}

type ideasResponse struct {
	Results []struct {
		Text               string   `json:"text"`
		KeywordIdeaMetrics *metrics `json:"keywordIdeaMetrics"`
	} `json:"results"`
	NextPageToken string   `json:"nextPageToken"`
	TotalSize     int64str `json:"totalSize"`
}

type historicalResponse struct {
	Results []struct {
		Text           string   `json:"text"`
		CloseVariants  []string `json:"closeVariants"`
		KeywordMetrics *metrics `json:"keywordMetrics"`
	} `json:"results"`
}

// Suggest returns up to limit keyword ideas for seed (limit 0 means 100; at
// most 1000, one page of generateKeywordIdeas).
func (s *Source) Suggest(ctx context.Context, seedKw string, loc seo.Locale, limit int) ([]keywords.Keyword, error) {
	seedKw, err := keywords.ValidateQuery(seedKw)
	if err != nil {
		return nil, err
	}
	switch {
	case limit < 0 || limit > MaxSuggestions:
		return nil, &seo.InputError{Field: "limit", Value: fmt.Sprint(limit), Reason: fmt.Sprintf("must be between 0 and %d", MaxSuggestions)}
	case limit == 0:
		limit = DefaultSuggestions
	}
	req, err := s.base(loc)
	if err != nil {
		return nil, err
	}
	req.PageSize = limit
	req.KeywordSeed = &seed{Keywords: []string{seedKw}}
	req.HistoricalOptions = &histOption{IncludeAverageCpc: true}
	var resp ideasResponse
	if err := s.call(ctx, "generateKeywordIdeas", req, &resp, "query"); err != nil {
		return nil, err
	}
	out := make([]keywords.Keyword, 0, len(resp.Results))
	for _, r := range resp.Results {
		if r.Text == "" {
			continue
		}
		out = append(out, toKeyword(r.Text, r.KeywordIdeaMetrics))
		if len(out) == limit {
			break
		}
	}
	return out, nil
}

// Volumes returns historical metrics of kws (batches of 1000 per request).
// Keywords without an average monthly volume are left out.
func (s *Source) Volumes(ctx context.Context, kws []string, loc seo.Locale) ([]keywords.Keyword, error) {
	if len(kws) > keywords.MaxVolumeKeywords {
		return nil, &seo.InputError{Field: "keywords", Value: fmt.Sprint(len(kws)), Reason: fmt.Sprintf("at most %d keywords per call", keywords.MaxVolumeKeywords)}
	}
	clean := make([]string, 0, len(kws))
	seen := map[string]bool{}
	for i, kw := range kws {
		kw = strings.Join(strings.Fields(kw), " ")
		if kw == "" || !utf8.ValidString(kw) || utf8.RuneCountInString(kw) > MaxKeywordLength {
			return nil, &seo.InputError{Field: fmt.Sprintf("keywords[%d]", i), Value: kws[i], Reason: fmt.Sprintf("must be a non-empty UTF-8 phrase of at most %d characters", MaxKeywordLength)}
		}
		if k := keywords.FoldCase(kw); !seen[k] {
			seen[k] = true
			clean = append(clean, kw)
		}
	}
	if len(clean) == 0 {
		return nil, nil
	}
	var out []keywords.Keyword
	for batch := range slices.Chunk(clean, VolumeBatch) {
		req, err := s.base(loc)
		if err != nil {
			return nil, err
		}
		req.Keywords = batch
		req.HistoricalOptions = &histOption{IncludeAverageCpc: true}
		var resp historicalResponse
		if err := s.call(ctx, "generateKeywordHistoricalMetrics", req, &resp, "keywords"); err != nil {
			return nil, err
		}
		for _, r := range resp.Results {
			if r.Text == "" || r.KeywordMetrics == nil || r.KeywordMetrics.AvgMonthlySearches == nil {
				continue
			}
			out = append(out, toKeyword(r.Text, r.KeywordMetrics))
		}
	}
	return out, nil
}

func (s *Source) base(loc seo.Locale) (*ideasRequest, error) {
	lang, ok := keywords.AdsLanguage(loc)
	if !ok {
		return nil, &seo.InputError{Field: "locale", Value: loc.String(), Reason: "no Google Ads language constant for this language"}
	}
	geo, ok := keywords.LocationCode(loc)
	if !ok {
		return nil, &seo.InputError{Field: "locale", Value: loc.String(), Reason: "no Google Ads geo target for this region"}
	}
	network := "GOOGLE_SEARCH"
	if s.o.SearchPartners {
		network = "GOOGLE_SEARCH_AND_PARTNERS"
	}
	return &ideasRequest{
		Language:           lang,
		GeoTargetConstants: []string{"geoTargetConstants/" + strconv.Itoa(geo)},
		KeywordPlanNetwork: network,
	}, nil
}

var months = map[string]int{
	"JANUARY": 1, "FEBRUARY": 2, "MARCH": 3, "APRIL": 4, "MAY": 5, "JUNE": 6,
	"JULY": 7, "AUGUST": 8, "SEPTEMBER": 9, "OCTOBER": 10, "NOVEMBER": 11, "DECEMBER": 12,
}

func toKeyword(text string, m *metrics) keywords.Keyword {
	k := keywords.Keyword{Keyword: text, Source: Name}
	if m == nil {
		return k
	}
	if m.AvgMonthlySearches != nil {
		v := int(*m.AvgMonthlySearches)
		k.Volume = &v
	}
	if m.CompetitionIndex != nil {
		v := int(*m.CompetitionIndex)
		k.PaidCompetition = &v
	}
	if m.AverageCpcMicros != nil {
		v := float64(*m.AverageCpcMicros) / 1e6
		k.CPC = &v
	}
	for _, mv := range m.MonthlySearchVolumes {
		mo, ok := months[mv.Month]
		if !ok || mv.MonthlySearches == nil {
			continue
		}
		k.Monthly = append(k.Monthly, keywords.MonthlyVolume{Year: int(mv.Year), Month: mo, Volume: int(*mv.MonthlySearches)})
	}
	slices.SortFunc(k.Monthly, func(a, b keywords.MonthlyVolume) int {
		return (a.Year*12 + a.Month) - (b.Year*12 + b.Month)
	})
	return k
}

// rpcError is a google.rpc.Status error body.
type rpcError struct {
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Status  string `json:"status"`
		Details []struct {
			Errors []struct {
				Message string `json:"message"`
				Details *struct {
					QuotaErrorDetails *struct {
						RetryDelay string `json:"retryDelay"`
					} `json:"quotaErrorDetails"`
				} `json:"details"`
			} `json:"errors"`
		} `json:"details"`
	} `json:"error"`
}

// call posts body to customers/{id}:method and decodes the answer into out.
// field names the caller's input blamed for INVALID_ARGUMENT.
func (s *Source) call(ctx context.Context, method string, body, out any, field string) error {
	tok, err := s.tokens.Token()
	if err != nil {
		return fmt.Errorf("googleads: %w: getting an OAuth token: %w", seo.ErrUnavailable, err)
	}
	h := http.Header{"Authorization": {tok.Type() + " " + tok.AccessToken}, "Developer-Token": {s.devToken}}
	if s.loginID != "" {
		h.Set("login-customer-id", s.loginID)
	}
	err = s.c.Do(ctx, &provider.Request{URL: s.root + "/customers/" + s.customerID + ":" + method, Header: h, Body: body}, out)
	if pe := (*seo.ProviderError)(nil); errors.As(err, &pe) && pe.Code == "INVALID_ARGUMENT" {
		return &seo.InputError{Field: field, Reason: "rejected by Google Ads: " + pe.Message}
	}
	return err
}

// parseError reads a google.rpc.Status error answer with GoogleAdsFailure
// details: their messages are added to the message, and a quota error's
// retryDelay is the wait.
func parseError(a *provider.ErrorAnswer) {
	var e rpcError
	if json.Unmarshal(a.Body, &e) != nil || e.Error == nil {
		return
	}
	a.Code, a.Message = e.Error.Status, e.Error.Message
	for _, d := range e.Error.Details {
		for _, de := range d.Errors {
			if de.Message != "" {
				a.Message += ": " + de.Message
			}
			if de.Details != nil && de.Details.QuotaErrorDetails != nil {
				if d, err := time.ParseDuration(de.Details.QuotaErrorDetails.RetryDelay); err == nil {
					a.RetryAfter = d
				}
			}
		}
	}
	a.RateLimited = a.Code == "RESOURCE_EXHAUSTED"
}
