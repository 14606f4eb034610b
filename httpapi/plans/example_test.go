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
	for _, a := range []store.Account{{Plan: store.Pro}, {Plan: store.Enterprise, DailyLimit: 50_000}} {
		l := tab.For(&a)
		fmt.Printf("%s: %d requests a day, %d pages, %d analyses at once\n", a.Plan, l.DailyRequests, l.MaxSitePages, l.ConcurrentSiteJobs)
	}
	// Output:
	// pro: 2000 requests a day, 10000 pages, 3 analyses at once
	// enterprise: 50000 requests a day, 10000 pages, 10 analyses at once
}
