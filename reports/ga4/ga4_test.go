package ga4

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

// fakeGA4 speaks runReport and answers fixtures in order (the last
// repeats).
type fakeGA4 struct {
	t       *testing.T
	answers []answer
	mu      sync.Mutex
	reqs    []map[string]any
	paths   []string
}

func (f *fakeGA4) ServeHTTP(w http.ResponseWriter, r *http.Request) {
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

func newSource(t *testing.T, o Options, answers ...answer) (*fakeGA4, *Source) {
	t.Helper()
	f := &fakeGA4{t: t, answers: answers}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	o.BaseURL = srv.URL
	o.TokenSource = oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "ya29.test-token"})
	o.Timeout = 300 * time.Millisecond
	s, err := New(map[string]string{"example.com": "properties/123456789", "shop.example.org": "987654321"}, &o)
	if err != nil {
		t.Fatal(err)
	}
	return f, s
}

var (
	sep1  = time.Date(2024, 9, 1, 0, 0, 0, 0, time.UTC)
	sep30 = time.Date(2024, 9, 30, 0, 0, 0, 0, time.UTC)
)

func TestTraffic(t *testing.T) {
	// report.json and page{1,2}.json hold 2024-09-01, -02 and -04 with
	// 123, 140 and 97 sessions; -03 has no row and must stay absent.
	type day struct {
		date     string
		sessions int
	}
	want := []day{{"2024-09-01", 123}, {"2024-09-02", 140}, {"2024-09-04", 97}}
	tests := []struct {
		name       string
		o          Options
		domain     string
		answers    []answer
		wantPath   string
		wantOffset []float64
		wantLimit  float64
	}{
		{name: "one page", domain: "example.com", answers: []answer{{200, "report.json", 0}},
			wantPath: "/v1beta/properties/123456789:runReport", wantOffset: []float64{0}, wantLimit: 10000},
		{name: "paged by limit and offset", o: Options{PageSize: 2}, domain: "shop.example.org",
			answers:  []answer{{200, "page1.json", 0}, {200, "page2.json", 0}},
			wantPath: "/v1beta/properties/987654321:runReport", wantOffset: []float64{0, 2}, wantLimit: 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, s := newSource(t, tc.o, tc.answers...)
			tr, err := s.Traffic(context.Background(), tc.domain, sep1, sep30)
			if err != nil {
				t.Fatal(err)
			}
			if tr.Source != "ga4" || tr.Sessions == nil || *tr.Sessions != 360 || tr.Clicks != nil || tr.Impressions != nil || tr.CTR != nil {
				t.Fatalf("Traffic = %+v", tr)
			}
			if len(tr.Daily) != len(want) {
				t.Fatalf("Daily has %d days, want %d", len(tr.Daily), len(want))
			}
			for i, w := range want {
				if d := tr.Daily[i]; d.Date != w.date || *d.Sessions != w.sessions || d.Clicks != nil {
					t.Errorf("day %d = %s %d, want %+v", i, d.Date, *d.Sessions, w)
				}
			}
			if len(f.reqs) != len(tc.wantOffset) || f.paths[0] != tc.wantPath {
				t.Fatalf("%d requests to %s; want %d to %s", len(f.reqs), f.paths[0], len(tc.wantOffset), tc.wantPath)
			}
			for i, off := range tc.wantOffset {
				if f.reqs[i]["offset"] != off || f.reqs[i]["limit"] != tc.wantLimit {
					t.Errorf("request %d limit/offset = %v/%v", i, f.reqs[i]["limit"], f.reqs[i]["offset"])
				}
			}
			body, _ := json.Marshal(map[string]any{"d": f.reqs[0]["dateRanges"], "m": f.reqs[0]["metrics"], "f": f.reqs[0]["dimensionFilter"], "x": f.reqs[0]["dimensions"]})
			wantBody := `{"d":[{"endDate":"2024-09-30","startDate":"2024-09-01"}],"f":{"filter":{"fieldName":"sessionDefaultChannelGroup","stringFilter":{"matchType":"EXACT","value":"Organic Search"}}},"m":[{"name":"sessions"},{"name":"totalUsers"}],"x":[{"name":"date"}]}`
			if string(body) != wantBody {
				t.Errorf("request = %s\nwant      %s", body, wantBody)
			}
		})
	}
}

func TestDays(t *testing.T) {
	_, s := newSource(t, Options{}, answer{200, "report.json", 0})
	days, err := s.Days(context.Background(), "example.com", sep1, sep30)
	if err != nil {
		t.Fatal(err)
	}
	want := []Day{{"2024-09-01", 123, 101}, {"2024-09-02", 140, 118}, {"2024-09-04", 97, 85}}
	if len(days) != len(want) {
		t.Fatalf("Days = %+v", days)
	}
	for i := range want {
		if days[i] != want[i] {
			t.Errorf("day %d = %+v, want %+v", i, days[i], want[i])
		}
	}
}

func TestTrafficNoData(t *testing.T) {
	_, s := newSource(t, Options{}, answer{200, "empty.json", 0})
	tr, err := s.Traffic(context.Background(), "example.com", sep1, sep30)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Source != "ga4" || tr.Sessions != nil || len(tr.Daily) != 0 {
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
		{name: "value not a count", answer: answer{200, "bad_value.json", 0}, want: seo.ErrUnavailable},
		{name: "rowCount without rows", answer: answer{200, "short.json", 0}, want: seo.ErrUnavailable},
		{name: "slow server", answer: answer{200, "report.json", 2 * time.Second}, want: seo.ErrUnavailable},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, s := newSource(t, Options{}, tc.answer)
			tr, err := s.Traffic(context.Background(), "example.com", sep1, sep30)
			if !errors.Is(err, tc.want) || tr != nil {
				t.Fatalf("Traffic = %v, %v; want nil, %v", tr, err, tc.want)
			}
			if tc.want == seo.ErrUnavailable && errors.Is(err, seo.ErrRateLimited) {
				t.Errorf("%v is also rate limited", err)
			}
		})
	}
}

func TestTrafficBadInput(t *testing.T) {
	f, s := newSource(t, Options{}, answer{200, "report.json", 0})
	tests := []struct {
		name       string
		domain     string
		start, end time.Time
		field      string
		want       error
	}{
		{name: "empty domain", start: sep1, end: sep30, field: "domain"},
		{name: "domain with scheme", domain: "https://example.com", start: sep1, end: sep30, field: "domain"},
		{name: "start after end", domain: "example.com", start: sep30, end: sep1, field: "start"},
		{name: "missing start", domain: "example.com", end: sep30, field: "start"},
		{name: "unmapped domain", domain: "other.com", start: sep1, end: sep30, want: seo.ErrNotFound},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s.Traffic(context.Background(), tc.domain, tc.start, tc.end)
			if tc.want != nil {
				if !errors.Is(err, tc.want) {
					t.Fatalf("err = %v, want %v", err, tc.want)
				}
				return
			}
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
		props map[string]string
		o     *Options
		field string
	}{
		{name: "no properties", o: &Options{TokenSource: ts}, field: "properties"},
		{name: "non-numeric id", props: map[string]string{"example.com": "UA-1234-1"}, o: &Options{TokenSource: ts}, field: "properties"},
		{name: "bad domain", props: map[string]string{"exa mple": "123"}, o: &Options{TokenSource: ts}, field: "properties"},
		{name: "page size too big", props: map[string]string{"example.com": "123"}, o: &Options{TokenSource: ts, PageSize: MaxPageSize + 1}, field: "pageSize"},
		{name: "no credentials", props: map[string]string{"example.com": "123"}, field: "credentials"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(tc.props, tc.o)
			if ie, ok := seo.AsInputError(err); !ok || ie.Field != tc.field {
				t.Fatalf("err = %v, want InputError for %s", err, tc.field)
			}
		})
	}
}
