package serpapi_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seokit/seokit/rankings"
	"github.com/seokit/seokit/rankings/serpapi"
	"github.com/seokit/seokit/seo"
)

var enUS = seo.Locale{Language: "en", Region: "US"}

type answer struct {
	status  int
	fixture string
	header  map[string]string
	delay   time.Duration
}

// fake answers pages[start] for each start offset.
type fake struct {
	t      *testing.T
	pages  map[string]answer
	mu     sync.Mutex
	starts []string
	query  map[string]string
}

func (f *fake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if r.Method != http.MethodGet || r.URL.Path != "/search.json" {
		f.t.Errorf("request %s %s, want GET /search.json", r.Method, r.URL.Path)
	}
	if q.Get("api_key") != "secret-key" || q.Get("engine") != "google" || q.Get("num") != "10" {
		f.t.Errorf("query = %v", q)
	}
	f.mu.Lock()
	f.starts = append(f.starts, q.Get("start"))
	f.query = map[string]string{"q": q.Get("q"), "gl": q.Get("gl"), "hl": q.Get("hl"), "device": q.Get("device")}
	f.mu.Unlock()
	a, ok := f.pages[q.Get("start")]
	if !ok {
		f.t.Errorf("unexpected start %q", q.Get("start"))
		w.WriteHeader(500)
		return
	}
	if a.delay > 0 {
		select {
		case <-time.After(a.delay):
		case <-r.Context().Done():
			return
		}
	}
	for k, v := range a.header {
		w.Header().Set(k, v)
	}
	w.WriteHeader(a.status)
	if a.fixture != "" {
		b, err := os.ReadFile(filepath.Join("testdata", a.fixture))
		if err != nil {
			f.t.Error(err)
		}
		w.Write(b)
	}
}

var checked = time.Date(2024, 10, 11, 17, 20, 36, 0, time.UTC)

func newSource(t *testing.T, pages map[string]answer) (*serpapi.Source, *fake) {
	f := &fake{t: t, pages: pages}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return serpapi.New("secret-key", &serpapi.Options{BaseURL: srv.URL, Timeout: time.Second, Now: func() time.Time { return checked }}), f
}

func TestSearch(t *testing.T) {
	tests := []struct {
		name       string
		q          rankings.Query
		pages      map[string]answer
		wantStarts string
		wantN      int
		wantDepth  int
		wantLast   rankings.Result
	}{
		{
			name:       "two pages until no next",
			q:          rankings.Query{Keyword: "espresso machine", Locale: enUS, Device: rankings.Mobile},
			pages:      map[string]answer{"0": {status: 200, fixture: "page1.json"}, "10": {status: 200, fixture: "page2.json"}},
			wantStarts: "[0 10]", wantN: 13, wantDepth: 13,
			wantLast: rankings.Result{Position: 13, URL: "https://www.williams-sonoma.com/shop/electrics/espresso-machines/", Title: "Espresso machines - www.williams-sonoma.com"},
		},
		{
			name:       "depth ten is one page",
			q:          rankings.Query{Keyword: "espresso machine", Locale: enUS, Depth: 10},
			pages:      map[string]answer{"0": {status: 200, fixture: "page1.json"}},
			wantStarts: "[0]", wantN: 10, wantDepth: 10,
			wantLast: rankings.Result{Position: 10, URL: "https://www.homegrounds.co/best-espresso-machines/", Title: "Espresso machines - www.homegrounds.co"},
		},
		{
			name:       "depth five trims",
			q:          rankings.Query{Keyword: "espresso machine", Locale: enUS, Depth: 5},
			pages:      map[string]answer{"0": {status: 200, fixture: "page1.json"}},
			wantStarts: "[0]", wantN: 5, wantDepth: 5,
			wantLast: rankings.Result{Position: 5, URL: "https://www.reddit.com/r/espresso/wiki/machines/", Title: "Espresso machines - www.reddit.com"},
		},
		{
			name:       "fully empty is zero results",
			q:          rankings.Query{Keyword: "qzxwv ptlkjh", Locale: enUS},
			pages:      map[string]answer{"0": {status: 200, fixture: "fully_empty.json"}},
			wantStarts: "[0]", wantN: 0, wantDepth: 0,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src, f := newSource(t, tt.pages)
			serp, err := src.Search(context.Background(), tt.q)
			if err != nil {
				t.Fatal(err)
			}
			if got := fmt.Sprint(f.starts); got != tt.wantStarts {
				t.Errorf("start offsets = %s, want %s", got, tt.wantStarts)
			}
			if len(serp.Results) != tt.wantN || serp.Depth != tt.wantDepth {
				t.Fatalf("got %d results depth %d, want %d depth %d", len(serp.Results), serp.Depth, tt.wantN, tt.wantDepth)
			}
			for i, r := range serp.Results {
				if r.Position != i+1 {
					t.Errorf("result %d has position %d", i, r.Position)
				}
			}
			if tt.wantN > 0 && serp.Results[tt.wantN-1] != tt.wantLast {
				t.Errorf("last = %+v, want %+v", serp.Results[tt.wantN-1], tt.wantLast)
			}
			wantDevice := string(tt.q.Device)
			if wantDevice == "" {
				wantDevice = "desktop"
			}
			if f.query["gl"] != "us" || f.query["hl"] != "en" || f.query["device"] != wantDevice || f.query["q"] != tt.q.Keyword {
				t.Errorf("query = %v", f.query)
			}
			if serp.Source != "serpapi" || !serp.CheckedAt.Equal(checked) || serp.Results == nil {
				t.Errorf("serp = %+v", serp)
			}
		})
	}
}

func TestSearchErrors(t *testing.T) {
	tests := []struct {
		name   string
		pages  map[string]answer
		is     error
		substr string
	}{
		{"401 invalid key", map[string]answer{"0": {status: 401, fixture: "invalid_key.json"}}, seo.ErrUnavailable, "credentials rejected"},
		{"429 out of searches", map[string]answer{"0": {status: 429, fixture: "out_of_searches.json", header: map[string]string{"Retry-After": "60"}}}, seo.ErrRateLimited, "run out of searches"},
		{"500", map[string]answer{"0": {status: 500, fixture: "internal.json"}}, seo.ErrUnavailable, "HTTP 500"},
		{"search status error", map[string]answer{"0": {status: 200, fixture: "search_error.json"}}, seo.ErrUnavailable, "Failed to fetch"},
		{"garbage", map[string]answer{"0": {status: 200, fixture: "garbage.html"}}, seo.ErrUnavailable, "not SerpApi JSON"},
		{"truncated", map[string]answer{"0": {status: 200, fixture: "truncated.json"}}, seo.ErrUnavailable, "not SerpApi JSON"},
		{"slow", map[string]answer{"0": {status: 200, fixture: "page1.json", delay: 3 * time.Second}}, seo.ErrUnavailable, "deadline"},
		{"second page fails", map[string]answer{"0": {status: 200, fixture: "page1.json"}, "10": {status: 503}}, seo.ErrUnavailable, "HTTP 503"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src, _ := newSource(t, tt.pages)
			serp, err := src.Search(context.Background(), rankings.Query{Keyword: "espresso machine", Locale: enUS})
			if err == nil || serp != nil {
				t.Fatalf("Search = %v, %v; want an error and no SERP", serp, err)
			}
			if !errors.Is(err, tt.is) || !strings.Contains(err.Error(), tt.substr) {
				t.Errorf("error %q: want %v mentioning %q", err, tt.is, tt.substr)
			}
			if strings.Contains(err.Error(), "secret-key") {
				t.Errorf("error leaks the API key: %v", err)
			}
		})
	}
}

func TestSearchBadInput(t *testing.T) {
	src, f := newSource(t, map[string]answer{})
	for _, tt := range []struct {
		name  string
		q     rankings.Query
		field string
	}{
		{"empty keyword", rankings.Query{Locale: enUS}, "keyword"},
		{"tablet", rankings.Query{Keyword: "k", Locale: enUS, Device: "tablet"}, "device"},
		{"depth", rankings.Query{Keyword: "k", Locale: enUS, Depth: 101}, "depth"},
		{"no locale", rankings.Query{Keyword: "k"}, "locale"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := src.Search(context.Background(), tt.q)
			if ie, ok := seo.AsInputError(err); !ok || ie.Field != tt.field {
				t.Errorf("error %v: want InputError for %q", err, tt.field)
			}
		})
	}
	if len(f.starts) != 0 {
		t.Errorf("bad input reached the provider")
	}
}
