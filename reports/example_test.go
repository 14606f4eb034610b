package reports_test

import (
	"context"
	"fmt"
	"time"

	"github.com/seokit/seokit/rankings"
	"github.com/seokit/seokit/reports"
)

func ExampleBuilder_Build() {
	st := &memStore{}
	// "running shoes" moves from 4 to 2; "trail shoes" enters at 9.
	st.obs = []rankings.Observation{
		obs("running shoes", "2026-01-01", pos(4)), obs("running shoes", "2026-01-07", pos(2)),
		obs("trail shoes", "2026-01-01", nil), obs("trail shoes", "2026-01-07", pos(9)),
	}
	vol := &volumes{table: map[string]int{"running shoes": 1000, "trail shoes": 500}}
	b := reports.New(st, vol, &reports.Options{Now: func() time.Time { return date("2026-02-01") }})

	start, end, err := reports.ParseRange("2026-01-01", "2026-01-07", date("2026-02-01"), 0)
	if err != nil {
		panic(err)
	}
	rep, err := b.Build(context.Background(), "example.com", start, end, nil)
	if err != nil {
		panic(err)
	}
	r := rep.Metrics.Rankings
	fmt.Printf("visibility %.2f (%s weights, %s)\n", *rep.Metrics.Visibility, rep.Metrics.VisibilityWeights, rep.Metrics.CTRModel)
	fmt.Printf("ranked %d, top 3 %d, improved %d, new %d, average position %.1f\n", r.Ranked, r.Top3, r.Improved, r.New, *r.AveragePosition)
	fmt.Printf("estimated monthly clicks %.1f\n", *rep.Metrics.Traffic.EstimatedMonthlyClicks)
	// 100 * (1000*18.7% + 500*1.9%) / (1500*39.8%) = 32.91
	// Output:
	// visibility 32.91 (volume weights, fps-2024+aol-2006)
	// ranked 2, top 3 1, improved 1, new 1, average position 5.5
	// estimated monthly clicks 196.5
}
