package serpapi

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/seokit/seokit/internal/provider"
	"github.com/seokit/seokit/rankings"
	"github.com/seokit/seokit/seo"
)

// Name is the driver name, used as SERP.Source.
const Name = "serpapi"

// Defaults and limits.
const (
	DefaultBaseURL = "https://serpapi.com"
	DefaultTimeout = 60 * time.Second
	DefaultMaxBody = 32 << 20
	// DefaultDepth is the depth used when Query.Depth is 0.
	DefaultDepth = 100
	// MaxDepth bounds a check to ten pages of ten results.
	MaxDepth = 100
	// PageSize is the results asked for per search.
	PageSize = 10
	// MaxKeywordLength bounds the query (Google ignores words past 32).
	MaxKeywordLength = 2048
)

// Options configures a Source. The zero value is usable.
type Options struct {
	// BaseURL is the API root; "" means https://serpapi.com.
	BaseURL string
	// HTTPClient makes the requests; nil means http.DefaultClient.
	HTTPClient *http.Client
	// Timeout bounds each search; 0 means 60 s.
	Timeout time.Duration
	// MaxBody caps each response body; 0 means 32 MiB.
	MaxBody int64
	// Now returns the check time; nil means time.Now.
	Now func() time.Time
}

// Source is a rankings.Source over SerpApi.
type Source struct {
	key  string
	o    Options
	base string
	c    *provider.Client
}

var _ rankings.Source = (*Source)(nil)

// New returns a Source using the SerpApi key apiKey.
func New(apiKey string, opts *Options) *Source {
	s := &Source{key: apiKey}
	if opts != nil {
		s.o = *opts
	}
	if s.o.Now == nil {
		s.o.Now = time.Now
	}
	if s.o.Timeout <= 0 {
		s.o.Timeout = DefaultTimeout
	}
	s.base = strings.TrimRight(cmp.Or(s.o.BaseURL, DefaultBaseURL), "/")
	s.c = provider.New(Name, &provider.Options{
		HTTPClient: s.o.HTTPClient, Timeout: s.o.Timeout, MaxBody: s.o.MaxBody,
		Format: "SerpApi", ParseError: parseError,
	})
	return s
}

// Name returns "serpapi".
func (s *Source) Name() string { return Name }

type page struct {
	Error          string `json:"error"`
	SearchMetadata struct {
		Status string `json:"status"`
	} `json:"search_metadata"`
	SearchInformation struct {
		OrganicResultsState string `json:"organic_results_state"`
	} `json:"search_information"`
	OrganicResults []struct {
		Position int    `json:"position"`
		Title    string `json:"title"`
		Link     string `json:"link"`
	} `json:"organic_results"`
	SerpapiPagination struct {
		Next string `json:"next"`
	} `json:"serpapi_pagination"`
	Pagination struct {
		Next string `json:"next"`
	} `json:"pagination"`
}

// Search fetches the organic results of q, paging until q.Depth (0 means
// 100; at most 100).
func (s *Source) Search(ctx context.Context, q rankings.Query) (*rankings.SERP, error) {
	kw := strings.TrimSpace(q.Keyword)
	if kw == "" || !utf8.ValidString(kw) || len(kw) > MaxKeywordLength {
		return nil, &seo.InputError{Field: "keyword", Value: q.Keyword, Reason: "must be a non-empty UTF-8 phrase"}
	}
	switch q.Device {
	case "":
		q.Device = rankings.Desktop
	case rankings.Desktop, rankings.Mobile:
	default:
		return nil, &seo.InputError{Field: "device", Value: string(q.Device), Reason: "must be desktop or mobile"}
	}
	switch {
	case q.Depth < 0 || q.Depth > MaxDepth:
		return nil, &seo.InputError{Field: "depth", Value: fmt.Sprint(q.Depth), Reason: fmt.Sprintf("must be between 0 and %d", MaxDepth)}
	case q.Depth == 0:
		q.Depth = DefaultDepth
	}
	if len(q.Locale.Language) != 2 || len(q.Locale.Region) != 2 {
		return nil, &seo.InputError{Field: "locale", Value: q.Locale.String(), Reason: "a language and a region are required, such as en-US"}
	}
	serp := &rankings.SERP{Query: q, Source: Name, CheckedAt: s.o.Now().UTC(), Results: []rankings.Result{}}
	for start := 0; start < q.Depth; start += PageSize {
		v := url.Values{
			"engine":  {"google"},
			"q":       {kw},
			"gl":      {strings.ToLower(q.Locale.Region)},
			"hl":      {strings.ToLower(q.Locale.Language)},
			"device":  {string(q.Device)},
			"num":     {strconv.Itoa(PageSize)},
			"start":   {strconv.Itoa(start)},
			"api_key": {s.key},
		}
		p, err := s.get(ctx, v)
		if err != nil {
			return nil, err
		}
		if p.SearchInformation.OrganicResultsState == "Fully empty" {
			break
		}
		if p.Error != "" || p.SearchMetadata.Status != "Success" {
			return nil, fmt.Errorf("serpapi: %w: search not successful (status %q): %s", seo.ErrUnavailable, p.SearchMetadata.Status, seo.Clip(p.Error))
		}
		n := 0
		for _, r := range p.OrganicResults {
			pos := r.Position
			if start > 0 && pos <= start {
				// A page-relative position: make it absolute.
				pos += start
			}
			if pos < 1 || pos > q.Depth || r.Link == "" {
				continue
			}
			serp.Results = append(serp.Results, rankings.Result{Position: pos, URL: r.Link, Title: r.Title})
			serp.Depth = max(serp.Depth, pos)
			n++
		}
		if n == 0 || (p.SerpapiPagination.Next == "" && p.Pagination.Next == "") {
			break
		}
	}
	return serp, nil
}

func (s *Source) get(ctx context.Context, v url.Values) (*page, error) {
	var p page
	err := s.c.Do(ctx, &provider.Request{URL: s.base + "/search.json?" + v.Encode()}, &p)
	if pe := (*seo.ProviderError)(nil); errors.As(err, &pe) && pe.Status == http.StatusBadRequest {
		return nil, &seo.InputError{Field: "keyword", Value: v.Get("q"), Reason: "rejected by SerpApi: " + pe.Message}
	}
	if err != nil {
		return nil, err
	}
	return &p, nil
}

// parseError reads SerpApi's {"error": "..."} answer.
func parseError(a *provider.ErrorAnswer) {
	var p page
	if json.Unmarshal(a.Body, &p) == nil && p.Error != "" {
		a.Message = p.Error
	}
}
