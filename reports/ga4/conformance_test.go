package ga4

import (
	"testing"
	"time"

	"github.com/seokit/seokit/reports"
	"github.com/seokit/seokit/reports/reportstest"
)

// conformanceAnswers are the recorded runReport answers of each provider
// answer the conformance suite asks for.
var conformanceAnswers = map[reportstest.Answer]answer{
	reportstest.Empty:        {200, "empty.json", 0},
	reportstest.ServerError:  {500, "error_500.json", 0},
	reportstest.RateLimited:  {429, "error_429.json", 0},
	reportstest.Unauthorized: {401, "error_401.json", 0},
	reportstest.Garbage:      {200, "garbage.txt", 0},
	reportstest.Slow:         {200, "report.json", 2 * time.Second},
}

func TestConformance(t *testing.T) {
	f, src := newSource(t, Options{}, answer{200, "report.json", 0})
	n := func(v int) *int { return &v }
	reportstest.RunTrafficSource(t, src, reportstest.TrafficCase{
		Domain: "example.com", Start: sep1, End: sep30,
		Want: &reports.Traffic{Source: Name, Sessions: n(360), Daily: []reports.DailyTraffic{
			{Date: "2024-09-01", Sessions: n(123)}, {Date: "2024-09-02", Sessions: n(140)}, {Date: "2024-09-04", Sessions: n(97)},
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
