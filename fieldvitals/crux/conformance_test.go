package crux

import (
	"net/http/httptest"
	"testing"
	"time"

	"github.com/seokit/seokit/fieldvitals"
	"github.com/seokit/seokit/fieldvitals/fieldvitalstest"
	"github.com/seokit/seokit/internal/googlefake"
)

const key = "AIzaSy-test-key"

// full is the fake's data: every metric, good LCP, poor INP.
var full = &googlefake.CrUXData{P75: map[string]float64{
	"largest_contentful_paint": 2100, "interaction_to_next_paint": 560, "cumulative_layout_shift": 0.12,
	"first_contentful_paint": 1500, "experimental_time_to_first_byte": 700,
}}

func newSource(t *testing.T, f *googlefake.CrUX) *Source {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	// A virtual clock: a 429's pause passes at once.
	s, err := New(key, &Options{BaseURL: srv.URL, Timeout: 5 * time.Second, Limiter: NewLimiter(&LimiterOptions{Clock: &vclock{}})})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestConformance(t *testing.T) {
	fake := &googlefake.CrUX{Key: key, Data: func(googlefake.CrUXQuery) *googlefake.CrUXData { return full }}
	src := newSource(t, fake)
	f := func(v float64) *float64 { return &v }
	bins := func(a, b, d0, d1, d2 float64) []fieldvitals.Bin {
		return []fieldvitals.Bin{{Start: 0, End: f(a), Density: d0}, {Start: a, End: f(b), Density: d1}, {Start: b, Density: d2}}
	}
	fails := map[fieldvitalstest.Answer]string{
		fieldvitalstest.ServerError: "server", fieldvitalstest.RateLimited: "rate", fieldvitalstest.Unauthorized: "denied",
		fieldvitalstest.Garbage: "garbage", fieldvitalstest.Truncated: "truncated", fieldvitalstest.Slow: "slow",
	}
	fieldvitalstest.RunSource(t, src, fieldvitalstest.Case{
		URL: "https://example.com/shoes", Origin: "https://example.com",
		Want: &fieldvitals.Record{
			Query: fieldvitals.Query{URL: "https://example.com/shoes", FormFactor: fieldvitals.Phone}, Source: Name, Status: fieldvitals.StatusOK,
			Period: &fieldvitals.Period{First: "2026-11-02", Last: "2026-11-29"},
			Metrics: []fieldvitals.Metric{
				{Name: "lcp", Unit: "ms", Status: "ok", P75: f(2100), Rating: "good", Histogram: bins(2500, 4000, 0.8, 0.13, 0.07)},
				{Name: "inp", Unit: "ms", Status: "ok", P75: f(560), Rating: "poor", Histogram: bins(200, 500, 0.3, 0.2, 0.5)},
				{Name: "cls", Unit: "", Status: "ok", P75: f(0.12), Rating: "needs_improvement", Histogram: bins(0.1, 0.25, 0.55, 0.3, 0.15)},
				{Name: "fcp", Unit: "ms", Status: "ok", P75: f(1500), Rating: "good", Histogram: bins(1800, 3000, 0.8, 0.13, 0.07)},
				{Name: "ttfb", Unit: "ms", Status: "ok", P75: f(700), Rating: "good", Histogram: bins(800, 1800, 0.8, 0.13, 0.07)},
			},
		},
		With: func(t *testing.T, a fieldvitalstest.Answer) fieldvitals.Source {
			switch a {
			case fieldvitalstest.NoData:
				return newSource(t, &googlefake.CrUX{})
			case fieldvitalstest.Partial:
				return newSource(t, &googlefake.CrUX{Data: func(googlefake.CrUXQuery) *googlefake.CrUXData {
					return &googlefake.CrUXData{P75: map[string]float64{"largest_contentful_paint": 3100, "cumulative_layout_shift": 0.02, "first_contentful_paint": 1900},
						Missing: map[int]bool{0: true, 1: true}}
				}})
			}
			mode, ok := fails[a]
			if !ok {
				return nil
			}
			return newSource(t, &googlefake.CrUX{Fail: func(googlefake.CrUXQuery) string { return mode }})
		},
		Requests: fake.Requests,
		Secrets:  []string{key},
	})
}

func TestNoKey(t *testing.T) {
	if _, err := New(" ", nil); err == nil {
		t.Fatal("New without a key succeeded")
	}
}
