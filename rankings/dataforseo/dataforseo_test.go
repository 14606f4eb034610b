package dataforseo_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/seokit/seokit/rankings"
	"github.com/seokit/seokit/rankings/dataforseo"
	"github.com/seokit/seokit/seo"
)

var enUS = seo.Locale{Language: "en", Region: "US"}

type answer struct {
	status  int
	fixture string
	header  map[string]string
	delay   time.Duration
}

type fake struct {
	t      *testing.T
	answer answer
	mu     sync.Mutex
	tasks  []map[string]any
}

func (f *fake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != dataforseo.SERPPath {
		f.t.Errorf("request %s %s, want POST %s", r.Method, r.URL.Path, dataforseo.SERPPath)
	}
	if u, p, ok := r.BasicAuth(); !ok || u != "login" || p != "pw" {
		f.t.Errorf("basic auth = %q %q %v", u, p, ok)
	}
	body, _ := io.ReadAll(r.Body)
	var tasks []map[string]any
	if err := json.Unmarshal(body, &tasks); err != nil || len(tasks) != 1 {
		f.t.Errorf("body is not an array of one task: %v: %s", err, body)
	}
	f.mu.Lock()
	f.tasks = append(f.tasks, tasks...)
	f.mu.Unlock()
	if f.answer.delay > 0 {
		select {
		case <-time.After(f.answer.delay):
		case <-r.Context().Done():
			return
		}
	}
	for k, v := range f.answer.header {
		w.Header().Set(k, v)
	}
	w.WriteHeader(f.answer.status)
	if f.answer.fixture != "" {
		b, err := os.ReadFile(filepath.Join("testdata", f.answer.fixture))
		if err != nil {
			f.t.Error(err)
		}
		w.Write(b)
	}
}

var checked = time.Date(2024, 10, 4, 10, 17, 0, 0, time.UTC)

func newSource(t *testing.T, a answer) (*dataforseo.Source, *fake) {
	f := &fake{t: t, answer: a}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return dataforseo.New("login", "pw", &dataforseo.Options{BaseURL: srv.URL, Timeout: time.Second, Now: func() time.Time { return checked }}), f
}

func TestSearch(t *testing.T) {
	tests := []struct {
		name      string
		fixture   string
		q         rankings.Query
		wantTask  map[string]any
		want      []rankings.Result
		wantDepth int
	}{
		{
			name:     "mobile organic only",
			fixture:  "serp_ok.json",
			q:        rankings.Query{Keyword: "iphone 12 pro", Locale: enUS, Device: rankings.Mobile},
			wantTask: map[string]any{"keyword": "iphone 12 pro", "location_code": 2840.0, "language_code": "en", "device": "mobile", "depth": 100.0},
			want: []rankings.Result{
				{Position: 1, URL: "https://www.apple.com/iphone-12-pro/", Title: "iPhone 12 Pro and iPhone 12 Pro Max - Apple"},
				{Position: 2, URL: "https://www.t-mobile.com/cell-phone/apple-iphone-12-pro", Title: "Apple iPhone 12 Pro | T-Mobile"},
				{Position: 3, URL: "https://en.wikipedia.org/wiki/IPhone_12_Pro", Title: "iPhone 12 Pro - Wikipedia"},
			},
			wantDepth: 3,
		},
		{
			name:      "depth cuts results",
			fixture:   "serp_ok.json",
			q:         rankings.Query{Keyword: "iphone 12 pro", Locale: seo.Locale{Language: "de", Region: "DE"}, Depth: 2},
			wantTask:  map[string]any{"location_code": 2276.0, "language_code": "de", "device": "desktop", "depth": 2.0},
			want:      []rankings.Result{{Position: 1, URL: "https://www.apple.com/iphone-12-pro/", Title: "iPhone 12 Pro and iPhone 12 Pro Max - Apple"}, {Position: 2, URL: "https://www.t-mobile.com/cell-phone/apple-iphone-12-pro", Title: "Apple iPhone 12 Pro | T-Mobile"}},
			wantDepth: 2,
		},
		{
			name:     "nothing ranked",
			fixture:  "serp_empty.json",
			q:        rankings.Query{Keyword: "qzxwv ptlkjh mmnbv", Locale: enUS},
			wantTask: map[string]any{"device": "desktop"},
			want:     []rankings.Result{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src, f := newSource(t, answer{status: 200, fixture: tt.fixture})
			serp, err := src.Search(context.Background(), tt.q)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, serp.Results); d != "" {
				t.Errorf("results (-want +got):\n%s", d)
			}
			if serp.Depth != tt.wantDepth || serp.Source != "dataforseo" || !serp.CheckedAt.Equal(checked) || serp.Average {
				t.Errorf("serp = depth %d source %q checked %v average %v", serp.Depth, serp.Source, serp.CheckedAt, serp.Average)
			}
			for k, v := range tt.wantTask {
				if f.tasks[0][k] != v {
					t.Errorf("task[%s] = %v, want %v", k, f.tasks[0][k], v)
				}
			}
		})
	}
}

func TestSearchErrors(t *testing.T) {
	tests := []struct {
		name   string
		answer answer
		is     error
		substr string
	}{
		{"http 401", answer{status: 401, fixture: "unauthorized.json"}, seo.ErrUnavailable, "credentials rejected"},
		{"http 402", answer{status: 402, fixture: "payment.json"}, seo.ErrUnavailable, "payment"},
		{"http 429", answer{status: 429, header: map[string]string{"Retry-After": "12"}}, seo.ErrRateLimited, "12s"},
		{"http 500", answer{status: 500}, seo.ErrUnavailable, "500"},
		{"rate limit code", answer{status: 200, fixture: "rate_limited.json"}, seo.ErrRateLimited, "40202"},
		{"task 40101", answer{status: 200, fixture: "task_40101.json"}, seo.ErrUnavailable, "Internal SE Server Error"},
		{"garbage", answer{status: 200, fixture: "garbage.html"}, seo.ErrUnavailable, "not DataForSEO JSON"},
		{"truncated", answer{status: 200, fixture: "truncated.json"}, seo.ErrUnavailable, "not DataForSEO JSON"},
		{"slow", answer{status: 200, fixture: "serp_ok.json", delay: 3 * time.Second}, seo.ErrUnavailable, "deadline"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src, _ := newSource(t, tt.answer)
			serp, err := src.Search(context.Background(), rankings.Query{Keyword: "iphone", Locale: enUS})
			if err == nil || serp != nil {
				t.Fatalf("Search = %v, %v; want an error and no SERP", serp, err)
			}
			if !errors.Is(err, tt.is) || !strings.Contains(err.Error(), tt.substr) {
				t.Errorf("error %q: want %v mentioning %q", err, tt.is, tt.substr)
			}
		})
	}
}

func TestSearchBadInput(t *testing.T) {
	src, f := newSource(t, answer{status: 200, fixture: "serp_ok.json"})
	tests := []struct {
		name  string
		q     rankings.Query
		field string
	}{
		{"empty keyword", rankings.Query{Keyword: " ", Locale: enUS}, "keyword"},
		{"long keyword", rankings.Query{Keyword: strings.Repeat("k", 701), Locale: enUS}, "keyword"},
		{"tablet", rankings.Query{Keyword: "k", Locale: enUS, Device: "tablet"}, "device"},
		{"depth too deep", rankings.Query{Keyword: "k", Locale: enUS, Depth: 201}, "depth"},
		{"negative depth", rankings.Query{Keyword: "k", Locale: enUS, Depth: -1}, "depth"},
		{"no locale", rankings.Query{Keyword: "k"}, "locale"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := src.Search(context.Background(), tt.q)
			if ie, ok := seo.AsInputError(err); !ok || ie.Field != tt.field {
				t.Errorf("error %v: want InputError for %q", err, tt.field)
			}
		})
	}
	if len(f.tasks) != 0 {
		t.Errorf("bad input reached the provider")
	}
}
