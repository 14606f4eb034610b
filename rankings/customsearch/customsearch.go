package customsearch

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/seokit/seokit/internal/dataforseo"
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
	timeout := s.o.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	base := s.o.BaseURL
	if base == "" {
		base = DefaultBaseURL
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(base, "/")+"/customsearch/v1?"+v.Encode(), nil)
	if err != nil {
		return nil, fmt.Errorf("customsearch: %w: building request: %v", seo.ErrUnavailable, err)
	}
	hc := s.o.HTTPClient
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		if ue, ok := err.(*url.Error); ok {
			err = ue.Err // the URL carries the key
		}
		return nil, fmt.Errorf("customsearch: %w: %w", seo.ErrUnavailable, err)
	}
	defer resp.Body.Close()
	maxBody := s.o.MaxBody
	if maxBody <= 0 {
		maxBody = DefaultMaxBody
	}
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		return nil, fmt.Errorf("customsearch: %w: reading answer: %w", seo.ErrUnavailable, err)
	}
	if int64(len(raw)) > maxBody {
		return nil, fmt.Errorf("customsearch: %w: answer larger than %d bytes: %w", seo.ErrUnavailable, maxBody, seo.ErrTooLarge)
	}
	if resp.StatusCode != http.StatusOK {
		status, msg := "", resp.Status
		var e rpcError
		if json.Unmarshal(raw, &e) == nil && e.Error != nil {
			status, msg = e.Error.Status, e.Error.Message
		}
		switch {
		case resp.StatusCode == http.StatusTooManyRequests || status == "RESOURCE_EXHAUSTED":
			wait, _ := seo.ParseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
			return nil, &dataforseo.RateLimitError{Provider: Name, Message: msg, Wait: wait}
		case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
			return nil, fmt.Errorf("customsearch: %w: credentials rejected (HTTP %d %s): %s", seo.ErrUnavailable, resp.StatusCode, status, seo.Clip(msg))
		case resp.StatusCode == http.StatusBadRequest:
			return nil, &seo.InputError{Field: "keyword", Value: v.Get("q"), Reason: "rejected by the Custom Search API: " + seo.Clip(msg)}
		default:
			return nil, fmt.Errorf("customsearch: %w: HTTP %d %s: %s", seo.ErrUnavailable, resp.StatusCode, status, seo.Clip(msg))
		}
	}
	var r response
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("customsearch: %w: answer is not Custom Search JSON: %v", seo.ErrUnavailable, err)
	}
	if r.Kind != "customsearch#search" || r.SearchInformation == nil {
		return nil, fmt.Errorf("customsearch: %w: answer is not a customsearch#search result", seo.ErrUnavailable)
	}
	return &r, nil
}
