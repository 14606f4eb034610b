package customsearch

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
const Name = "customsearch"

// Defaults and the API's limits.
const (
	DefaultBaseURL = "https://www.googleapis.com"
	DefaultTimeout = 30 * time.Second
	DefaultMaxBody = 32 << 20
	// MaxDepth is the most results the API returns for one query.
	MaxDepth = 100
	// PageSize is the API's maximum num.
	PageSize = 10
)

// Options configures a Source. The zero value is usable.
type Options struct {
	// BaseURL is the API root; "" means https://www.googleapis.com.
	BaseURL string
	// HTTPClient makes the requests; nil means http.DefaultClient.
	HTTPClient *http.Client
	// Timeout bounds each request; 0 means 30 s.
	Timeout time.Duration
	// MaxBody caps each response body; 0 means 32 MiB.
	MaxBody int64
	// Now returns the check time; nil means time.Now.
	Now func() time.Time
}

// Source is a rankings.Source over the Custom Search JSON API.
type Source struct {
	key, cx string
	o       Options
	base    string
	c       *provider.Client
}

var _ rankings.Source = (*Source)(nil)

// New returns a Source using the API key and the search engine ID cx.
func New(apiKey, cx string, opts *Options) *Source {
	s := &Source{key: apiKey, cx: cx}
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
		Format: "Custom Search", ParseError: parseError,
	})
	return s
}

// Name returns "customsearch".
func (s *Source) Name() string { return Name }

type response struct {
	Kind              string `json:"kind"`
	SearchInformation *struct {
		TotalResults string `json:"totalResults"`
	} `json:"searchInformation"`
	Items []struct {
		Title string `json:"title"`
		Link  string `json:"link"`
	} `json:"items"`
}

type rpcError struct {
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Status  string `json:"status"`
	} `json:"error"`
}

// Search fetches up to q.Depth results (0 means 100, at most 100) for
// desktop; Device mobile is an *seo.InputError.
func (s *Source) Search(ctx context.Context, q rankings.Query) (*rankings.SERP, error) {
	kw := strings.TrimSpace(q.Keyword)
	if kw == "" || !utf8.ValidString(kw) || len(kw) > 2048 {
		return nil, &seo.InputError{Field: "keyword", Value: q.Keyword, Reason: "must be a non-empty UTF-8 phrase"}
	}
	switch q.Device {
	case "", rankings.Desktop:
		q.Device = rankings.Desktop
	default:
		return nil, &seo.InputError{Field: "device", Value: string(q.Device), Reason: "the Custom Search JSON API has no device setting; only desktop is supported"}
	}
	switch {
	case q.Depth < 0 || q.Depth > MaxDepth:
		return nil, &seo.InputError{Field: "depth", Value: fmt.Sprint(q.Depth), Reason: fmt.Sprintf("must be between 0 and %d, the API's limit", MaxDepth)}
	case q.Depth == 0:
		q.Depth = MaxDepth
	}
	if len(q.Locale.Language) != 2 || len(q.Locale.Region) != 2 {
		return nil, &seo.InputError{Field: "locale", Value: q.Locale.String(), Reason: "a language and a region are required, such as en-US"}
	}
	serp := &rankings.SERP{Query: q, Source: Name, CheckedAt: s.o.Now().UTC(), Results: []rankings.Result{}}
	for start := 1; start <= q.Depth; start += PageSize {
		num := min(PageSize, q.Depth-start+1)
		v := url.Values{
			"key": {s.key}, "cx": {s.cx}, "q": {kw},
			"start": {strconv.Itoa(start)}, "num": {strconv.Itoa(num)},
			"gl": {strings.ToLower(q.Locale.Region)}, "hl": {strings.ToLower(q.Locale.Language)},
		}
		r, err := s.get(ctx, v)
		if err != nil {
			return nil, err
		}
		items := r.Items[:min(len(r.Items), num)]
		for i, it := range items {
			if it.Link == "" {
				continue
			}
			serp.Results = append(serp.Results, rankings.Result{Position: start + i, URL: it.Link, Title: it.Title})
		}
		serp.Depth = start - 1 + len(items)
		total, _ := strconv.Atoi(r.SearchInformation.TotalResults)
		if len(items) < num || start-1+len(items) >= total {
			break
		}
	}
	return serp, nil
}

func (s *Source) get(ctx context.Context, v url.Values) (*response, error) {
	var r response
	err := s.c.Do(ctx, &provider.Request{URL: s.base + "/customsearch/v1?" + v.Encode()}, &r)
	if pe := (*seo.ProviderError)(nil); errors.As(err, &pe) && pe.Status == http.StatusBadRequest {
		return nil, &seo.InputError{Field: "keyword", Value: v.Get("q"), Reason: "rejected by the Custom Search API: " + pe.Message}
	}
	if err != nil {
		return nil, err
	}
	if r.Kind != "customsearch#search" || r.SearchInformation == nil {
		return nil, fmt.Errorf("customsearch: %w: answer is not a customsearch#search result", seo.ErrUnavailable)
	}
	return &r, nil
}

// parseError reads a google.rpc.Status error answer.
func parseError(a *provider.ErrorAnswer) {
	var e rpcError
	if json.Unmarshal(a.Body, &e) == nil && e.Error != nil {
		a.Code, a.Message = e.Error.Status, e.Error.Message
	}
	a.RateLimited = a.Code == "RESOURCE_EXHAUSTED"
}
