package google

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

	"github.com/seokit/seokit/seo"
)

func fixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// answer is one canned HTTP answer.
type answer struct {
	status int
	file   string
	header map[string]string
	delay  time.Duration
}

// fakeAPI answers requests in order (the last answer repeats) and records
// the decoded request bodies.
type fakeAPI struct {
	t       *testing.T
	answers []answer
	mu      sync.Mutex
	bodies  []map[string]any
	paths   []string
	auth    []string
}

func (f *fakeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	n := len(f.bodies)
	var body map[string]any
	raw, _ := io.ReadAll(r.Body)
	if err := json.Unmarshal(raw, &body); err != nil {
		f.t.Errorf("request body is not JSON: %v", err)
	}
	if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/json" {
		f.t.Errorf("got %s with Content-Type %q, want POST application/json", r.Method, r.Header.Get("Content-Type"))
	}
	f.bodies = append(f.bodies, body)
	f.paths = append(f.paths, r.URL.EscapedPath())
	f.auth = append(f.auth, r.Header.Get("Authorization"))
	a := f.answers[min(n, len(f.answers)-1)]
	f.mu.Unlock()
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
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(a.status)
	w.Write(fixture(f.t, a.file))
}

func newFake(t *testing.T, answers ...answer) (*fakeAPI, *Client) {
	t.Helper()
	f := &fakeAPI{t: t, answers: answers}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	c, err := New(Config{
		Name: "searchconsole", BaseURL: srv.URL, Timeout: 500 * time.Millisecond,
		TokenSource: oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "ya29.test", TokenType: "Bearer"}),
	}, SearchConsoleBase)
	if err != nil {
		t.Fatal(err)
	}
	return f, c
}

func TestPostErrors(t *testing.T) {
	tests := []struct {
		name      string
		answer    answer
		want      []error
		notWant   []error
		msg       string
		retry     time.Duration
		apiStatus string
	}{
		{name: "401 unauthenticated", answer: answer{status: 401, file: "error_401.json"}, want: []error{seo.ErrUnavailable}, notWant: []error{seo.ErrRateLimited}, msg: "credentials rejected", apiStatus: "UNAUTHENTICATED"},
		{name: "403 permission denied", answer: answer{status: 403, file: "error_403.json"}, want: []error{seo.ErrUnavailable}, notWant: []error{seo.ErrRateLimited}, msg: "sufficient permission", apiStatus: "PERMISSION_DENIED"},
		{name: "403 legacy quota reason", answer: answer{status: 403, file: "error_403_quota.json"}, want: []error{seo.ErrRateLimited}, notWant: []error{seo.ErrUnavailable}, msg: "rate limited"},
		{name: "429 resource exhausted", answer: answer{status: 429, file: "error_429.json"}, want: []error{seo.ErrRateLimited}, notWant: []error{seo.ErrUnavailable}, msg: "quota exceeded", retry: 30 * time.Second, apiStatus: "RESOURCE_EXHAUSTED"},
		{name: "429 retry-after header", answer: answer{status: 429, file: "error_500.json", header: map[string]string{"Retry-After": "7"}}, want: []error{seo.ErrRateLimited}, retry: 7 * time.Second},
		{name: "404", answer: answer{status: 404, file: "error_404.json"}, want: []error{seo.ErrUnavailable, seo.ErrNotFound}},
		{name: "400 invalid argument", answer: answer{status: 400, file: "error_400.json"}, want: []error{seo.ErrUnavailable}, msg: "request rejected"},
		{name: "500 internal", answer: answer{status: 500, file: "error_500.json"}, want: []error{seo.ErrUnavailable}, msg: "internal error encountered", apiStatus: "INTERNAL"},
		{name: "502 html page", answer: answer{status: 502, file: "error_502.html"}, want: []error{seo.ErrUnavailable}, msg: "not a google.rpc error"},
		{name: "200 garbage", answer: answer{status: 200, file: "garbage.txt"}, want: []error{seo.ErrUnavailable}, msg: "not the documented json"},
		{name: "slow server", answer: answer{status: 200, file: "sa_empty.json", delay: time.Minute}, want: []error{seo.ErrUnavailable, context.DeadlineExceeded}, msg: "no answer within"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, c := newFake(t, tc.answer)
			var out map[string]any
			start := time.Now()
			err := c.Post(context.Background(), "/x", map[string]int{"a": 1}, &out)
			if err == nil {
				t.Fatal("no error")
			}
			if time.Since(start) > 30*time.Second { // far below the slow answer's minute
				t.Errorf("took %s, the timeout is 500ms", time.Since(start))
			}
			for _, w := range tc.want {
				if !errors.Is(err, w) {
					t.Errorf("error %q does not wrap %v", err, w)
				}
			}
			for _, w := range tc.notWant {
				if errors.Is(err, w) {
					t.Errorf("error %q wraps %v", err, w)
				}
			}
			if !strings.HasPrefix(err.Error(), "searchconsole: ") {
				t.Errorf("error %q lacks the driver prefix", err)
			}
			if tc.msg != "" && !strings.Contains(strings.ToLower(err.Error()), tc.msg) {
				t.Errorf("error %q does not say %q", err, tc.msg)
			}
			var rl *seo.RateLimitError
			if errors.As(err, &rl) != errors.Is(err, seo.ErrRateLimited) {
				t.Errorf("error %T: *seo.RateLimitError only for rate limits", err)
			}
			if rl != nil && rl.RetryAfter != tc.retry {
				t.Errorf("RetryAfter = %s, want %s", rl.RetryAfter, tc.retry)
			}
			var pe *seo.ProviderError
			if tc.apiStatus != "" && rl == nil && (!errors.As(err, &pe) || pe.Code != tc.apiStatus) {
				t.Errorf("error %v: want an *seo.ProviderError with Code %q", err, tc.apiStatus)
			}
			f.mu.Lock()
			if len(f.auth) != 1 || f.auth[0] != "Bearer ya29.test" {
				t.Errorf("Authorization = %q", f.auth)
			}
			f.mu.Unlock()
		})
	}
}

func TestPostCancelled(t *testing.T) {
	// The answer would come long after the cancellation, however slow the machine.
	_, c := newFake(t, answer{status: 200, file: "sa_empty.json", delay: time.Minute})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	defer time.AfterFunc(50*time.Millisecond, cancel).Stop()
	var out map[string]any
	err := c.Post(ctx, "/x", struct{}{}, &out)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestPostBodyCap(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"rows":[` + strings.Repeat(`{"keys":["x"]},`, 1000) + `{}]}`))
	}))
	defer srv.Close()
	c, err := New(Config{Name: "t", BaseURL: srv.URL, HTTPClient: srv.Client(), MaxBody: 1024}, SearchConsoleBase)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	err = c.Post(context.Background(), "/", struct{}{}, &out)
	if !errors.Is(err, seo.ErrUnavailable) || !errors.Is(err, seo.ErrTooLarge) {
		t.Fatalf("err = %v, want unavailable and too large", err)
	}
}

func TestTokenSourceFailure(t *testing.T) {
	tok := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(400)
		w.Write([]byte(`{"error":"invalid_grant","error_description":"Token has been expired or revoked."}`))
	}))
	defer tok.Close()
	_, api := newFake(t, answer{status: 200, file: "sa_empty.json"})
	cfg := &oauth2.Config{ClientID: "id", ClientSecret: "secret", Endpoint: oauth2.Endpoint{TokenURL: tok.URL}}
	ts := cfg.TokenSource(context.Background(), &oauth2.Token{RefreshToken: "old", Expiry: time.Now().Add(-time.Hour)})
	c, err := New(Config{Name: "searchconsole", BaseURL: api.base, TokenSource: ts}, SearchConsoleBase)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	err = c.Post(context.Background(), "/x", struct{}{}, &out)
	if !errors.Is(err, seo.ErrUnavailable) || !strings.Contains(err.Error(), "credentials rejected") || !strings.Contains(err.Error(), "invalid_grant") {
		t.Fatalf("err = %v", err)
	}
}

func TestNewConfig(t *testing.T) {
	ts := oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "x"})
	tests := []struct {
		name  string
		cfg   Config
		field string
	}{
		{name: "no credentials", cfg: Config{}, field: "credentials"},
		{name: "base url not absolute", cfg: Config{TokenSource: ts, BaseURL: "localhost:8080"}, field: "baseURL"},
		{name: "base url ftp", cfg: Config{TokenSource: ts, BaseURL: "ftp://example.com"}, field: "baseURL"},
		{name: "ok token source", cfg: Config{TokenSource: ts}},
		{name: "ok http client", cfg: Config{HTTPClient: http.DefaultClient, BaseURL: "http://127.0.0.1:1/"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(tc.cfg, SearchConsoleBase)
			if tc.field == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			ie, ok := seo.AsInputError(err)
			if !ok || ie.Field != tc.field {
				t.Fatalf("err = %v, want InputError for %q", err, tc.field)
			}
		})
	}
}

func TestParseSite(t *testing.T) {
	tests := []struct {
		in, want string
		bad      bool
	}{
		{in: "sc-domain:example.com", want: "sc-domain:example.com"},
		{in: "sc-domain:Example.COM", want: "sc-domain:example.com"},
		{in: "https://www.example.com/", want: "https://www.example.com/"},
		{in: "https://WWW.example.com", want: "https://www.example.com/"},
		{in: "http://example.com/blog/", want: "http://example.com/blog/"},
		{in: "", bad: true},
		{in: "example.com", bad: true},
		{in: "sc-domain:", bad: true},
		{in: "sc-domain:https://example.com", bad: true},
		{in: "sc-domain:example.com/path", bad: true},
		{in: "ftp://example.com/", bad: true},
		{in: "https://example.com/?q=1", bad: true},
		{in: "https://user:pw@example.com/", bad: true},
		// A Domain property's domain goes through seo.ParseHost.
		{in: "sc-domain:example.com:8443", bad: true},
		{in: "sc-domain:example.com:", bad: true},
		{in: "sc-domain: example.com", bad: true},
		{in: "sc-domain:a..example.com", bad: true},
		{in: "sc-domain:" + strings.Repeat("a", 64) + ".com", bad: true},
		{in: "sc-domain:example", bad: true},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseSite("site", tc.in)
			if tc.bad {
				ie, ok := seo.AsInputError(err)
				if !ok || ie.Field != "site" {
					t.Fatalf("ParseSite(%q) = %q, %v; want InputError for site", tc.in, got, err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("ParseSite(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
			}
		})
	}
}

func TestSearchAnalyticsPaging(t *testing.T) {
	f, c := newFake(t, answer{status: 200, file: "sa_page1.json"}, answer{status: 200, file: "sa_page2.json"})
	req := SearchAnalyticsRequest{StartDate: "2024-09-01", EndDate: "2024-09-30", Dimensions: []string{"query"}, RowLimit: 3}
	rows, truncated, err := SearchAnalytics(context.Background(), c, "https://www.example.com/", req, 0)
	if err != nil {
		t.Fatal(err)
	}
	if truncated || len(rows) != 4 {
		t.Fatalf("got %d rows, truncated %v; want 4, false", len(rows), truncated)
	}
	if rows[3].Keys[0] != "broken link checker" || rows[3].Clicks != 3 || rows[3].Impressions != 410 || rows[3].Position != 17.9 {
		t.Errorf("last row = %+v", rows[3])
	}
	if len(f.bodies) != 2 || f.bodies[0]["startRow"] != 0.0 || f.bodies[1]["startRow"] != 3.0 || f.bodies[1]["rowLimit"] != 3.0 {
		t.Errorf("requests = %v", f.bodies)
	}
	wantPath := "/webmasters/v3/sites/https%3A%2F%2Fwww.example.com%2F/searchAnalytics/query"
	if f.paths[0] != wantPath {
		t.Errorf("path = %s, want %s", f.paths[0], wantPath)
	}
}

func TestSearchAnalyticsCapAndEmpty(t *testing.T) {
	tests := []struct {
		name      string
		answers   []answer
		maxRows   int
		wantRows  int
		truncated bool
		calls     int
	}{
		{name: "rows absent", answers: []answer{{status: 200, file: "sa_empty.json"}}, wantRows: 0, calls: 1},
		{name: "cap stops paging", answers: []answer{{status: 200, file: "sa_page1.json"}}, maxRows: 3, wantRows: 3, truncated: true, calls: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, c := newFake(t, tc.answers...)
			rows, tr, err := SearchAnalytics(context.Background(), c, "sc-domain:example.com", SearchAnalyticsRequest{Dimensions: []string{"query"}}, tc.maxRows)
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != tc.wantRows || tr != tc.truncated || len(f.bodies) != tc.calls {
				t.Fatalf("rows %d truncated %v calls %d; want %d %v %d", len(rows), tr, len(f.bodies), tc.wantRows, tc.truncated, tc.calls)
			}
			if f.paths[0] != "/webmasters/v3/sites/sc-domain%3Aexample.com/searchAnalytics/query" {
				t.Errorf("path = %s", f.paths[0])
			}
		})
	}
}

func TestSearchAnalyticsBadRow(t *testing.T) {
	_, c := newFake(t, answer{status: 200, file: "sa_badrow.json"})
	_, _, err := SearchAnalytics(context.Background(), c, "sc-domain:example.com", SearchAnalyticsRequest{Dimensions: []string{"query"}}, 0)
	if !errors.Is(err, seo.ErrUnavailable) || !strings.Contains(err.Error(), "clicks") {
		t.Fatalf("err = %v", err)
	}
}

func TestCheckRange(t *testing.T) {
	d := func(s string) time.Time { v, _ := time.Parse(DateLayout, s); return v }
	tests := []struct {
		name       string
		start, end time.Time
		max        int
		field      string
	}{
		{name: "one day", start: d("2024-09-01"), end: d("2024-09-01")},
		{name: "start after end", start: d("2024-09-02"), end: d("2024-09-01"), field: "start"},
		{name: "missing start", end: d("2024-09-01"), field: "start"},
		{name: "missing end", start: d("2024-09-01"), field: "end"},
		{name: "over limit", start: d("2024-09-01"), end: d("2024-09-11"), max: 10, field: "end"},
		{name: "at limit", start: d("2024-09-01"), end: d("2024-09-10"), max: 10},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckRange(tc.start, tc.end, tc.max)
			if tc.field == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if ie, ok := seo.AsInputError(err); !ok || ie.Field != tc.field {
				t.Fatalf("err = %v, want InputError for %s", err, tc.field)
			}
		})
	}
}
