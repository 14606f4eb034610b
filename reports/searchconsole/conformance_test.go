package searchconsole

import (
	"testing"
	"time"

	"github.com/seokit/seokit/reports"
	"github.com/seokit/seokit/reports/reportstest"
)

// conformanceAnswers are the recorded searchAnalytics.query answers of
// each provider answer the conformance suite asks for.
var conformanceAnswers = map[reportstest.Answer]answer{
	reportstest.Empty:        {200, "empty.json", 0},
	reportstest.ServerError:  {500, "error_500.json", 0},
	reportstest.RateLimited:  {429, "error_429.json", 0},
	reportstest.Unauthorized: {401, "error_401.json", 0},
	reportstest.Garbage:      {200, "garbage.txt", 0},
	reportstest.Slow:         {200, "daily.json", 2 * time.Second},
}

func TestConformance(t *testing.T) {
	f, src := newSource(t, Options{}, answer{200, "daily.json", 0})
	n := func(v int) *int { return &v }
	ctr := 90.0 / 3500
	reportstest.RunTrafficSource(t, src, reportstest.TrafficCase{
		Domain: "example.com", Start: sep1, End: sep30,
		Want: &reports.Traffic{Source: Name, Clicks: n(90), Impressions: n(3500), CTR: &ctr, Daily: []reports.DailyTraffic{
			{Date: "2024-09-01", Clicks: n(30), Impressions: n(1200)},
			{Date: "2024-09-02", Clicks: n(42), Impressions: n(1500)},
			{Date: "2024-09-04", Clicks: n(18), Impressions: n(800)},
		}},
		With: func(t *testing.T, a reportstest.Answer) reports.TrafficSource {
			ans, ok := conformanceAnswers[a]
			if !ok {
				return nil
			}
			_, s := newSource(t, Options{}, ans)
			return s
		},
		Requests: func() int {
			f.mu.Lock()
			defer f.mu.Unlock()
			return len(f.reqs)
		},
		Secrets: []string{"ya29.test-token"},
	})
}
