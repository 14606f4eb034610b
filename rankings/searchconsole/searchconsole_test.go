package searchconsole

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

	"golang.org/x/oauth2"

	"github.com/seokit/seokit/rankings"
	"github.com/seokit/seokit/seo"
)

// answer is one canned HTTP answer from a fixture file.
type answer struct {
	status int
	file   string
	delay  time.Duration
}

// fakeGSC speaks searchAnalytics.query: it checks the request and answers
// fixtures in order (the last repeats).
type fakeGSC struct {
	t       *testing.T
	answers []answer
	mu      sync.Mutex
	reqs    []map[string]any
	paths   []string
}

func (f *fakeGSC) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	var body map[string]any
	if err := json.Unmarshal(raw, &body); err != nil {
		f.t.Errorf("body is not JSON: %v", err)
	}
	if r.Method != http.MethodPost {
		f.t.Errorf("method %s", r.Method)
	}
	if got := r.Header.Get("Authorization"); got != "Bearer ya29.test-token" {
		f.t.Errorf("Authorization = %q", got)
	}
	f.mu.Lock()
	n := len(f.reqs)
	f.reqs = append(f.reqs, body)
	f.paths = append(f.paths, r.URL.EscapedPath())
	a := f.answers[min(n, len(f.answers)-1)]
	f.mu.Unlock()
	if a.delay > 0 {
		select {
		case <-time.After(a.delay):
		case <-r.Context().Done():
			return
		}
	}
	b, err := os.ReadFile(filepath.Join("testdata", a.file))
	if err != nil {
		f.t.Error(err)
	}
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(a.status)
	w.Write(b)
}

var fixedNow = time.Date(2024, 9, 10, 15, 4, 5, 0, time.UTC)

func newSource(t *testing.T, site string, o Options, answers ...answer) (*fakeGSC, *Source) {
	t.Helper()
	f := &fakeGSC{t: t, answers: answers}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	o.BaseURL = srv.URL
	o.TokenSource = oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "ya29.test-token"})
	if o.Timeout == 0 {
		o.Timeout = 300 * time.Millisecond
	}
	o.Now = func() time.Time { return fixedNow }
	s, err := New(site, &o)
	if err != nil {
		t.Fatal(err)
	}
	return f, s
}

func TestSearch(t *testing.T) {
	f, s := newSource(t, "https://www.example.com/", Options{}, answer{200, "pages.json", 0})
	loc, _ := seo.ParseLocale("en-US")
	serp, err := s.Search(context.Background(), rankings.Query{Keyword: "seo audit", Locale: loc, Device: rankings.Mobile})
	if err != nil {
		t.Fatal(err)
	}
	// pages.json: the page with most impressions (1250) has position 3.6.
	want := []rankings.Result{{Position: 4, URL: "https://www.example.com/audit/"}}
	if len(serp.Results) != 1 || serp.Results[0] != want[0] {
		t.Errorf("Results = %+v, want %+v", serp.Results, want)
	}
	if !serp.Average || serp.Source != "searchconsole" || serp.Depth != 4 || !serp.CheckedAt.Equal(fixedNow) {
		t.Errorf("SERP = %+v", serp)
	}
	if f.paths[0] != "/webmasters/v3/sites/https%3A%2F%2Fwww.example.com%2F/searchAnalytics/query" {
		t.Errorf("path = %s", f.paths[0])
	}
	// The window is 7 days ending 2 days before 2024-09-10.
	req := f.reqs[0]
	if req["startDate"] != "2024-09-02" || req["endDate"] != "2024-09-08" || req["type"] != "web" {
		t.Errorf("dates/type = %v %v %v", req["startDate"], req["endDate"], req["type"])
	}
	dims, _ := json.Marshal(req["dimensions"])
	if string(dims) != `["query","page"]` {
		t.Errorf("dimensions = %s", dims)
	}
	filters, _ := json.Marshal(req["dimensionFilterGroups"])
	wantF := `[{"filters":[{"dimension":"query","expression":"seo audit","operator":"equals"},{"dimension":"country","expression":"usa","operator":"equals"},{"dimension":"device","expression":"MOBILE","operator":"equals"}],"groupType":"and"}]`
	if string(filters) != wantF {
		t.Errorf("filters = %s\nwant      %s", filters, wantF)
	}
	if _, ok := req["dataState"]; ok {
		t.Errorf("dataState sent without Fresh: %v", req["dataState"])
	}

	pages, err := s.Pages(context.Background(), rankings.Query{Keyword: "seo audit"})
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) != 3 || pages[0].Position != 3.6 || pages[0].Impressions != 1250 || pages[2].URL != "https://www.example.com/" {
		t.Errorf("Pages = %+v", pages)
	}
	filters, _ = json.Marshal(f.reqs[1]["dimensionFilterGroups"])
	if !strings.Contains(string(filters), `"DESKTOP"`) || strings.Contains(string(filters), "country") {
		t.Errorf("default device/no country: filters = %s", filters)
	}
}

func TestSearchErrors(t *testing.T) {
	tests := []struct {
		name   string
		answer answer
		want   error
	}{
		{name: "401", answer: answer{401, "error_401.json", 0}, want: seo.ErrUnavailable},
		{name: "403", answer: answer{403, "error_403.json", 0}, want: seo.ErrUnavailable},
		{name: "429 resource exhausted", answer: answer{429, "error_429.json", 0}, want: seo.ErrRateLimited},
		{name: "500", answer: answer{500, "error_500.json", 0}, want: seo.ErrUnavailable},
		{name: "garbage body", answer: answer{200, "garbage.txt", 0}, want: seo.ErrUnavailable},
		{name: "slow server", answer: answer{200, "pages.json", 2 * time.Second}, want: seo.ErrUnavailable},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, s := newSource(t, "sc-domain:example.com", Options{}, tc.answer)
			serp, err := s.Search(context.Background(), rankings.Query{Keyword: "seo audit"})
			if !errors.Is(err, tc.want) || serp != nil {
				t.Fatalf("Search = %v, %v; want nil, %v", serp, err, tc.want)
			}
			if tc.want == seo.ErrUnavailable && errors.Is(err, seo.ErrRateLimited) {
				t.Errorf("%v is also rate limited", err)
			}
		})
	}
}

func TestSearchEmpty(t *testing.T) {
	_, s := newSource(t, "sc-domain:example.com", Options{Days: 28, LagDays: 3, Fresh: true}, answer{200, "empty.json", 0})
	serp, err := s.Search(context.Background(), rankings.Query{Keyword: "never searched", Depth: 50})
	if err != nil {
		t.Fatal(err)
	}
	if serp.Results == nil || len(serp.Results) != 0 || serp.Depth != 50 || !serp.Average {
		t.Errorf("SERP = %+v", serp)
	}
	start, end := s.Window()
	if got := start.Format("2006-01-02") + ".." + end.Format("2006-01-02"); got != "2024-08-11..2024-09-07" {
		t.Errorf("Window = %s", got)
	}
}

func TestBadInput(t *testing.T) {
	long := strings.Repeat("a", MaxKeywordLength+1)
	tests := []struct {
		name  string
		q     rankings.Query
		field string
	}{
		{name: "empty keyword", q: rankings.Query{Keyword: "  "}, field: "keyword"},
		{name: "long keyword", q: rankings.Query{Keyword: long}, field: "keyword"},
		{name: "bad utf8", q: rankings.Query{Keyword: "seo \xff"}, field: "keyword"},
		{name: "unknown device", q: rankings.Query{Keyword: "seo", Device: "tablet"}, field: "device"},
		{name: "unknown region", q: rankings.Query{Keyword: "seo", Locale: seo.Locale{Language: "en", Region: "ZZ"}}, field: "locale"},
		{name: "negative depth", q: rankings.Query{Keyword: "seo", Depth: -1}, field: "depth"},
	}
	f, s := newSource(t, "sc-domain:example.com", Options{}, answer{200, "pages.json", 0})
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s.Search(context.Background(), tc.q)
			if ie, ok := seo.AsInputError(err); !ok || ie.Field != tc.field {
				t.Fatalf("err = %v, want InputError for %s", err, tc.field)
			}
		})
	}
	if len(f.reqs) != 0 {
		t.Errorf("bad input reached the API %d times", len(f.reqs))
	}
}

func TestNewBadInput(t *testing.T) {
	ts := oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "x"})
	tests := []struct {
		name, site string
		o          *Options
		field      string
	}{
		{name: "no credentials", site: "sc-domain:example.com", o: nil, field: "credentials"},
		{name: "bare domain", site: "example.com", o: &Options{TokenSource: ts}, field: "site"},
		{name: "empty site", site: "", o: &Options{TokenSource: ts}, field: "site"},
		{name: "bad type", site: "sc-domain:example.com", o: &Options{TokenSource: ts, Type: "shopping"}, field: "type"},
		{name: "too many days", site: "sc-domain:example.com", o: &Options{TokenSource: ts, Days: 1000}, field: "days"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(tc.site, tc.o)
			if ie, ok := seo.AsInputError(err); !ok || ie.Field != tc.field {
				t.Fatalf("err = %v, want InputError for %s", err, tc.field)
			}
		})
	}
}

func TestQueriesPaging(t *testing.T) {
	f, s := newSource(t, "sc-domain:example.com", Options{RowLimit: 2}, answer{200, "queries_page1.json", 0}, answer{200, "queries_page2.json", 0})
	start := time.Date(2024, 9, 1, 0, 0, 0, 0, time.UTC)
	end := time.Date(2024, 9, 30, 0, 0, 0, 0, time.UTC)
	got, err := s.Queries(context.Background(), start, end)
	if err != nil {
		t.Fatal(err)
	}
	want := []QueryStat{
		{Query: "seo audit", Clicks: 120, Impressions: 3400, CTR: 0.035294117647058823, Position: 4.2},
		{Query: "site audit tool", Clicks: 45, Impressions: 2100, CTR: 0.021428571428571429, Position: 8.7},
		{Query: "seo checker", Clicks: 12, Impressions: 980, CTR: 0.012244897959183673, Position: 11.3},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d rows, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("row %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	if len(f.reqs) != 2 || f.reqs[1]["startRow"] != 2.0 || f.reqs[0]["startDate"] != "2024-09-01" || f.reqs[0]["endDate"] != "2024-09-30" {
		t.Errorf("requests = %v", f.reqs)
	}
	if _, err := s.Queries(context.Background(), end, start); err == nil {
		t.Error("start after end accepted")
	} else if ie, ok := seo.AsInputError(err); !ok || ie.Field != "start" {
		t.Errorf("err = %v", err)
	}
}

func TestQueriesCap(t *testing.T) {
	f, s := newSource(t, "sc-domain:example.com", Options{RowLimit: 2, MaxRows: 2}, answer{200, "queries_page1.json", 0}, answer{200, "queries_page2.json", 0})
	got, err := s.Queries(context.Background(), fixedNow.AddDate(0, 0, -30), fixedNow)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || len(f.reqs) != 1 {
		t.Fatalf("got %d rows in %d requests; want 2 in 1", len(got), len(f.reqs))
	}
}

func TestCancelled(t *testing.T) {
	_, s := newSource(t, "sc-domain:example.com", Options{}, answer{200, "pages.json", 0})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Search(ctx, rankings.Query{Keyword: "seo audit"}); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestCountry(t *testing.T) {
	tests := []struct{ region, want string }{
		{"US", "usa"}, {"GB", "gbr"}, {"DE", "deu"}, {"JP", "jpn"}, {"BR", "bra"},
	}
	for _, tc := range tests {
		t.Run(tc.region, func(t *testing.T) {
			got, err := Country(seo.Locale{Language: "en", Region: tc.region})
			if err != nil || got != tc.want {
				t.Fatalf("Country(%s) = %q, %v; want %q", tc.region, got, err, tc.want)
			}
		})
	}
}
