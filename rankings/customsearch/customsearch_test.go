package customsearch_test

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
	"github.com/seokit/seokit/rankings/customsearch"
	"github.com/seokit/seokit/seo"
)

var enUS = seo.Locale{Language: "en", Region: "US"}

type answer struct {
	status  int
	fixture string
	delay   time.Duration
}

type fake struct {
	t     *testing.T
	pages map[string]answer
	mu    sync.Mutex
	reqs  []string // "start/num"
}

func (f *fake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if r.Method != http.MethodGet || r.URL.Path != "/customsearch/v1" {
		f.t.Errorf("request %s %s", r.Method, r.URL.Path)
	}
	if q.Get("key") != "api-key-1" || q.Get("cx") != "engine-1" || q.Get("gl") != "us" || q.Get("hl") != "en" || q.Get("q") == "" {
		f.t.Errorf("query = %v", q)
	}
	f.mu.Lock()
	f.reqs = append(f.reqs, q.Get("start")+"/"+q.Get("num"))
	f.mu.Unlock()
	a, ok := f.pages[q.Get("start")]
	if !ok {
		f.t.Errorf("unexpected start %s", q.Get("start"))
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
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(a.status)
	b, err := os.ReadFile(filepath.Join("testdata", a.fixture))
	if err != nil {
		f.t.Error(err)
	}
	w.Write(b)
}

func newSource(t *testing.T, pages map[string]answer) (*customsearch.Source, *fake) {
	f := &fake{t: t, pages: pages}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return customsearch.New("api-key-1", "engine-1", &customsearch.Options{BaseURL: srv.URL, Timeout: time.Second}), f
}

var three = map[string]answer{"1": {200, "page1.json", 0}, "11": {200, "page11.json", 0}, "21": {200, "page21.json", 0}}

func TestSearch(t *testing.T) {
	tests := []struct {
		name     string
		depth    int
		pages    map[string]answer
		wantReqs string
		wantN    int
	}{
		{"all pages until short page", 0, three, "[1/10 11/10 21/10]", 23},
		{"depth 15 asks five on page two", 15, three, "[1/10 11/5]", 15},
		{"depth 10 one page", 10, three, "[1/10]", 10},
		{"nothing found", 0, map[string]answer{"1": {200, "empty.json", 0}}, "[1/10]", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src, f := newSource(t, tt.pages)
			serp, err := src.Search(context.Background(), rankings.Query{Keyword: "sourdough starter", Locale: enUS, Depth: tt.depth})
			if err != nil {
				t.Fatal(err)
			}
			if got := fmt.Sprint(f.reqs); got != tt.wantReqs {
				t.Errorf("requests = %s, want %s", got, tt.wantReqs)
			}
			// page11.json holds 10 items even when 5 are asked: results
			// beyond the depth must still not appear.
			if n := len(serp.Results); n != tt.wantN {
				t.Fatalf("got %d results, want %d", n, tt.wantN)
			}
			for i, r := range serp.Results {
				want := fmt.Sprintf("https://site%02d.example.org/sourdough-starter", i+1)
				if r.Position != i+1 || r.URL != want {
					t.Errorf("result %d = %+v, want position %d %s", i, r, i+1, want)
				}
			}
			if serp.Depth != len(serp.Results) || serp.Source != "customsearch" || serp.Query.Device != rankings.Desktop || serp.Results == nil {
				t.Errorf("serp depth %d source %q device %q", serp.Depth, serp.Source, serp.Query.Device)
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
		{"429 quota", map[string]answer{"1": {429, "quota.json", 0}}, seo.ErrRateLimited, "Queries per day"},
		{"403 blocked key", map[string]answer{"1": {403, "forbidden.json", 0}}, seo.ErrUnavailable, "credentials rejected"},
		{"400 invalid", map[string]answer{"1": {400, "invalid.json", 0}}, seo.ErrInvalidInput, "invalid argument"},
		{"500", map[string]answer{"1": {500, "internal.json", 0}}, seo.ErrUnavailable, "Backend Error"},
		{"garbage", map[string]answer{"1": {200, "garbage.html", 0}}, seo.ErrUnavailable, "not Custom Search JSON"},
		{"truncated", map[string]answer{"1": {200, "truncated.json", 0}}, seo.ErrUnavailable, "not Custom Search JSON"},
		{"other json", map[string]answer{"1": {200, "other_json.json", 0}}, seo.ErrUnavailable, "not a customsearch#search"},
		{"slow", map[string]answer{"1": {200, "page1.json", 3 * time.Second}}, seo.ErrUnavailable, "deadline"},
		{"third page fails", map[string]answer{"1": {200, "page1.json", 0}, "11": {200, "page11.json", 0}, "21": {500, "internal.json", 0}}, seo.ErrUnavailable, "HTTP 500"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src, _ := newSource(t, tt.pages)
			serp, err := src.Search(context.Background(), rankings.Query{Keyword: "sourdough starter", Locale: enUS})
			if err == nil || serp != nil {
				t.Fatalf("Search = %v, %v; want an error and no SERP", serp, err)
			}
			if !errors.Is(err, tt.is) || !strings.Contains(err.Error(), tt.substr) {
				t.Errorf("error %q: want %v mentioning %q", err, tt.is, tt.substr)
			}
			if strings.Contains(err.Error(), "api-key-1") {
				t.Errorf("error leaks the key: %v", err)
			}
		})
	}
}

func TestSearchBadInput(t *testing.T) {
	src, f := newSource(t, three)
	for _, tt := range []struct {
		name  string
		q     rankings.Query
		field string
	}{
		{"mobile unsupported", rankings.Query{Keyword: "k", Locale: enUS, Device: rankings.Mobile}, "device"},
		{"depth beyond 100", rankings.Query{Keyword: "k", Locale: enUS, Depth: 101}, "depth"},
		{"empty keyword", rankings.Query{Keyword: "", Locale: enUS}, "keyword"},
		{"no locale", rankings.Query{Keyword: "k"}, "locale"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := src.Search(context.Background(), tt.q)
			if ie, ok := seo.AsInputError(err); !ok || ie.Field != tt.field {
				t.Errorf("error %v: want InputError for %q", err, tt.field)
			}
		})
	}
	if len(f.reqs) != 0 {
		t.Errorf("bad input reached the API")
	}
}
