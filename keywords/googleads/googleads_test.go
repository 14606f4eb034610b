package googleads_test

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
	"golang.org/x/oauth2"

	"github.com/seokit/seokit/keywords"
	"github.com/seokit/seokit/keywords/googleads"
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
	path   string
	answer answer
	mu     sync.Mutex
	bodies []map[string]any
}

func (f *fake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != f.path {
		f.t.Errorf("request %s %s, want POST %s", r.Method, r.URL.Path, f.path)
	}
	for h, want := range map[string]string{
		"Authorization":     "Bearer ya29.test-token",
		"developer-token":   "DEVTOKEN123",
		"login-customer-id": "9876543210",
		"Content-Type":      "application/json",
	} {
		if got := r.Header.Get(h); got != want {
			f.t.Errorf("header %s = %q, want %q", h, got, want)
		}
	}
	b, _ := io.ReadAll(r.Body)
	var body map[string]any
	if err := json.Unmarshal(b, &body); err != nil {
		f.t.Errorf("body: %v", err)
	}
	f.mu.Lock()
	f.bodies = append(f.bodies, body)
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
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(f.answer.status)
	if f.answer.fixture != "" {
		data, err := os.ReadFile(filepath.Join("testdata", f.answer.fixture))
		if err != nil {
			f.t.Error(err)
		}
		w.Write(data)
	}
}

func newSource(t *testing.T, method string, a answer) (*googleads.Source, *fake) {
	t.Helper()
	f := &fake{t: t, path: "/v23/customers/1234567890:" + method, answer: a}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	src, err := googleads.New("123-456-7890", "DEVTOKEN123",
		oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "ya29.test-token", TokenType: "Bearer"}),
		&googleads.Options{BaseURL: srv.URL, LoginCustomerID: "987-654-3210", Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return src, f
}

func ip(n int) *int         { return &n }
func fp(f float64) *float64 { return &f }

func TestSuggest(t *testing.T) {
	src, f := newSource(t, "generateKeywordIdeas", answer{status: 200, fixture: "ideas_ok.json"})
	got, err := src.Suggest(context.Background(), "buy laptop", enUS, 10)
	if err != nil {
		t.Fatal(err)
	}
	want := []keywords.Keyword{
		{Keyword: "buy laptop", Volume: ip(12100), PaidCompetition: ip(100), CPC: fp(2.2), Source: "googleads",
			Monthly: []keywords.MonthlyVolume{mv(2024, 9, 12100), mv(2024, 10, 14800), mv(2024, 11, 22200)}},
		{Keyword: "laptop sale", Volume: ip(33100), PaidCompetition: ip(61), Source: "googleads",
			Monthly: []keywords.MonthlyVolume{mv(2024, 9, 40500)}},
		{Keyword: "laptop buy online cheap refurbished", Source: "googleads"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Suggest (-want +got):\n%s", d)
	}
	for _, k := range got {
		if k.Difficulty != nil || k.DifficultyMethod != "" {
			t.Errorf("%s: Google Ads has no organic difficulty", k.Keyword)
		}
	}
	body := f.bodies[0]
	if body["language"] != "languageConstants/1000" || body["pageSize"] != 10.0 || body["keywordPlanNetwork"] != "GOOGLE_SEARCH" {
		t.Errorf("body = %v", body)
	}
	geo, _ := body["geoTargetConstants"].([]any)
	if len(geo) != 1 || geo[0] != "geoTargetConstants/2840" {
		t.Errorf("geoTargetConstants = %v", body["geoTargetConstants"])
	}
	seed, _ := body["keywordSeed"].(map[string]any)
	if kws, _ := seed["keywords"].([]any); len(kws) != 1 || kws[0] != "buy laptop" {
		t.Errorf("keywordSeed = %v", body["keywordSeed"])
	}
}

func TestVolumes(t *testing.T) {
	src, f := newSource(t, "generateKeywordHistoricalMetrics", answer{status: 200, fixture: "historical_ok.json"})
	got, err := src.Volumes(context.Background(), []string{"buy laptop", "zxqv laptop"}, seo.Locale{Language: "de", Region: "DE"})
	if err != nil {
		t.Fatal(err)
	}
	want := []keywords.Keyword{{Keyword: "buy laptop", Volume: ip(12100), PaidCompetition: ip(100), CPC: fp(2.2), Source: "googleads",
		Monthly: []keywords.MonthlyVolume{mv(2024, 9, 12100)}}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Volumes (-want +got):\n%s", d)
	}
	if f.bodies[0]["language"] != "languageConstants/1001" || f.bodies[0]["geoTargetConstants"].([]any)[0] != "geoTargetConstants/2276" {
		t.Errorf("body = %v", f.bodies[0])
	}
}

func TestErrors(t *testing.T) {
	tests := []struct {
		name   string
		answer answer
		is     error
		field  string
		retry  time.Duration
		substr string
	}{
		{"401 unauthenticated", answer{status: 401, fixture: "unauthenticated.json"}, seo.ErrUnavailable, "", 0, "credentials rejected"},
		{"403 permission denied", answer{status: 403, fixture: "permission_denied.json"}, seo.ErrUnavailable, "", 0, "test accounts"},
		{"429 resource exhausted", answer{status: 429, fixture: "resource_exhausted.json"}, seo.ErrRateLimited, "", 30 * time.Second, "Retry in 30 seconds"},
		{"400 invalid argument", answer{status: 400, fixture: "invalid_argument.json"}, seo.ErrInvalidInput, "query", 0, "keyword text is invalid"},
		{"500 internal", answer{status: 500, fixture: "internal.json"}, seo.ErrUnavailable, "", 0, "INTERNAL"},
		{"garbage", answer{status: 200, fixture: "garbage.html"}, seo.ErrUnavailable, "", 0, "not Google Ads JSON"},
		{"truncated", answer{status: 200, fixture: "truncated.json"}, seo.ErrUnavailable, "", 0, "not Google Ads JSON"},
		{"slow", answer{status: 200, fixture: "ideas_ok.json", delay: 3 * time.Second}, seo.ErrUnavailable, "", 0, "deadline"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src, _ := newSource(t, "generateKeywordIdeas", tt.answer)
			got, err := src.Suggest(context.Background(), "buy laptop", enUS, 10)
			if err == nil || got != nil {
				t.Fatalf("Suggest = %v, %v; want an error only", got, err)
			}
			if !errors.Is(err, tt.is) || !strings.Contains(err.Error(), tt.substr) {
				t.Errorf("error %q: want %v mentioning %q", err, tt.is, tt.substr)
			}
			if tt.field != "" {
				if ie, ok := seo.AsInputError(err); !ok || ie.Field != tt.field {
					t.Errorf("want InputError for %q, got %v", tt.field, err)
				}
			}
			if tt.retry > 0 {
				var rl *seo.RateLimitError
				if !errors.As(err, &rl) || rl.RetryAfter != tt.retry {
					t.Errorf("error %v: want RetryAfter %v", err, tt.retry)
				}
			}
		})
	}
}

func TestBadInput(t *testing.T) {
	src, f := newSource(t, "generateKeywordIdeas", answer{status: 200, fixture: "ideas_ok.json"})
	ctx := context.Background()
	tests := []struct {
		name  string
		call  func() error
		field string
	}{
		{"empty seed", func() error { _, err := src.Suggest(ctx, "", enUS, 1); return err }, "query"},
		{"limit", func() error { _, err := src.Suggest(ctx, "x", enUS, 5000); return err }, "limit"},
		{"unknown language", func() error { _, err := src.Suggest(ctx, "x", seo.Locale{Language: "sw", Region: "KE"}, 1); return err }, "locale"},
		{"historic region", func() error { _, err := src.Suggest(ctx, "x", seo.Locale{Language: "en", Region: "YU"}, 1); return err }, "locale"},
		{"long keyword", func() error { _, err := src.Volumes(ctx, []string{"ok", strings.Repeat("a", 81)}, enUS); return err }, "keywords[1]"},
		{"bad customer id", func() error {
			_, err := googleads.New("12345", "t", oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "x"}), nil)
			return err
		}, "customerId"},
		{"no token source", func() error { _, err := googleads.New("1234567890", "t", nil, nil); return err }, "tokens"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if ie, ok := seo.AsInputError(tt.call()); !ok || ie.Field != tt.field {
				t.Errorf("want InputError for %q, got %v", tt.field, ie)
			}
		})
	}
	if len(f.bodies) != 0 {
		t.Errorf("bad input reached the provider")
	}
}

func mv(y, m, v int) keywords.MonthlyVolume {
	return keywords.MonthlyVolume{Year: y, Month: m, Volume: v}
}
