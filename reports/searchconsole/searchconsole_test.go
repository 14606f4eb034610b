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
	"sync"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/seokit/seokit/seo"
)

type answer struct {
	status int
	file   string
	delay  time.Duration
}

// fakeGSC speaks searchAnalytics.query and answers fixtures in order (the
// last repeats).
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
	if got := r.Header.Get("Authorization"); r.Method != http.MethodPost || got != "Bearer ya29.test-token" {
		f.t.Errorf("%s with Authorization %q", r.Method, got)
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

func newSource(t *testing.T, o Options, answers ...answer) (*fakeGSC, *Source) {
	t.Helper()
	f := &fakeGSC{t: t, answers: answers}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	o.BaseURL = srv.URL
	o.TokenSource = oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "ya29.test-token"})
	o.Timeout = 300 * time.Millisecond
	s, err := New(&o)
	if err != nil {
		t.Fatal(err)
	}
	return f, s
}

var (
	sep1  = time.Date(2024, 9, 1, 0, 0, 0, 0, time.UTC)
	sep30 = time.Date(2024, 9, 30, 0, 0, 0, 0, time.UTC)
)

type day struct {
	date        string
	clicks, imp int
}

func TestTraffic(t *testing.T) {
	// daily.json and daily_page{1,2}.json hold 2024-09-01, -02 and -04;
	// -03 has no row and must stay absent.
	wantDays := []day{{"2024-09-01", 30, 1200}, {"2024-09-02", 42, 1500}, {"2024-09-04", 18, 800}}
	tests := []struct {
		name     string
		o        Options
		answers  []answer
		domain   string
		wantPath string
		calls    int
	}{
		{
			name: "domain property", answers: []answer{{200, "daily.json", 0}}, domain: "example.com",
			wantPath: "/webmasters/v3/sites/sc-domain%3Aexample.com/searchAnalytics/query", calls: 1,
		},
		{
			name: "mapped url prefix, paged", o: Options{RowLimit: 2, Properties: map[string]string{"example.com": "https://www.example.com/"}},
			answers: []answer{{200, "daily_page1.json", 0}, {200, "daily_page2.json", 0}}, domain: "Example.com",
			wantPath: "/webmasters/v3/sites/https%3A%2F%2Fwww.example.com%2F/searchAnalytics/query", calls: 2,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, s := newSource(t, tc.o, tc.answers...)
			tr, err := s.Traffic(context.Background(), tc.domain, sep1, sep30)
			if err != nil {
				t.Fatal(err)
			}
			if tr.Source != "searchconsole" || tr.Clicks == nil || *tr.Clicks != 90 || *tr.Impressions != 3500 || tr.Sessions != nil {
				t.Fatalf("Traffic = %+v", tr)
			}
			if want := 90.0 / 3500.0; tr.CTR == nil || *tr.CTR != want {
				t.Errorf("CTR = %v, want %v", tr.CTR, want)
			}
			if len(tr.Daily) != len(wantDays) {
				t.Fatalf("Daily has %d days, want %d", len(tr.Daily), len(wantDays))
			}
			for i, w := range wantDays {
				d := tr.Daily[i]
				if d.Date != w.date || *d.Clicks != w.clicks || *d.Impressions != w.imp || d.Sessions != nil {
					t.Errorf("day %d = %s %d %d, want %+v", i, d.Date, *d.Clicks, *d.Impressions, w)
				}
			}
			if len(f.reqs) != tc.calls || f.paths[0] != tc.wantPath {
				t.Errorf("calls %d path %s; want %d %s", len(f.reqs), f.paths[0], tc.calls, tc.wantPath)
			}
			dims, _ := json.Marshal(f.reqs[0]["dimensions"])
			if string(dims) != `["date"]` || f.reqs[0]["startDate"] != "2024-09-01" || f.reqs[0]["endDate"] != "2024-09-30" {
				t.Errorf("request = %v", f.reqs[0])
			}
		})
	}
}

func TestTrafficNoData(t *testing.T) {
	_, s := newSource(t, Options{}, answer{200, "empty.json", 0})
	tr, err := s.Traffic(context.Background(), "example.com", sep1, sep30)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Source != "searchconsole" || tr.Clicks != nil || tr.Impressions != nil || tr.CTR != nil || len(tr.Daily) != 0 {
		t.Fatalf("Traffic = %+v, want no figures", tr)
	}
}

func TestTrafficErrors(t *testing.T) {
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
		{name: "date outside the range", answer: answer{200, "daily_outside.json", 0}, want: seo.ErrUnavailable},
		{name: "slow server", answer: answer{200, "daily.json", 2 * time.Second}, want: seo.ErrUnavailable},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, s := newSource(t, Options{}, tc.answer)
			tr, err := s.Traffic(context.Background(), "example.com", sep1, sep30)
			if !errors.Is(err, tc.want) || tr != nil {
				t.Fatalf("Traffic = %v, %v; want nil, %v", tr, err, tc.want)
			}
		})
	}
}

func TestTrafficBadInput(t *testing.T) {
	tests := []struct {
		name       string
		domain     string
		start, end time.Time
		field      string
	}{
		{name: "empty domain", domain: "", start: sep1, end: sep30, field: "domain"},
		{name: "domain with path", domain: "example.com/blog", start: sep1, end: sep30, field: "domain"},
		{name: "domain with scheme", domain: "https://example.com", start: sep1, end: sep30, field: "domain"},
		{name: "start after end", domain: "example.com", start: sep30, end: sep1, field: "start"},
		{name: "missing end", domain: "example.com", start: sep1, field: "end"},
		{name: "range too long", domain: "example.com", start: sep1.AddDate(-2, 0, 0), end: sep30, field: "end"},
	}
	f, s := newSource(t, Options{}, answer{200, "daily.json", 0})
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s.Traffic(context.Background(), tc.domain, tc.start, tc.end)
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
		name  string
		o     *Options
		field string
	}{
		{name: "no credentials", field: "credentials"},
		{name: "bad property", o: &Options{TokenSource: ts, Properties: map[string]string{"example.com": "example.com"}}, field: "properties"},
		{name: "bad domain key", o: &Options{TokenSource: ts, Properties: map[string]string{"not a domain": "sc-domain:example.com"}}, field: "properties"},
		{name: "bad type", o: &Options{TokenSource: ts, Type: "shopping"}, field: "type"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(tc.o)
			if ie, ok := seo.AsInputError(err); !ok || ie.Field != tc.field {
				t.Fatalf("err = %v, want InputError for %s", err, tc.field)
			}
		})
	}
}
