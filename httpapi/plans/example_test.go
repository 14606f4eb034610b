package plans_test

import (
	"fmt"

	"github.com/seokit/seokit/httpapi/plans"
	"github.com/seokit/seokit/httpapi/store"
)

// Example raises the Pro plan's daily requests and reads the limits of an
// Enterprise account with its own daily limit.
func Example() {
	tab, err := plans.New(nil, map[store.Plan]int{store.Pro: 2000}, 0)
	if err != nil {
		panic(err)
	}
	for _, a := range []*store.Account{{Plan: store.Pro}, {Plan: store.Enterprise, DailyLimit: 50_000}} {
		l := tab.For(a)
		fmt.Println(l.DailyRequests, l.MaxSitePages, l.ConcurrentSiteJobs, l.RenderPages, l.Projects, l.Schedules, l.MinScheduleInterval, l.HistoryAnalyses, l.HistoryDays)
	}
	// Output:
	// 2000 10000 3 2000 50 100 1h0m0s 100 365
	// 50000 10000 10 10000 1000 1000 15m0s 1000 730
}
