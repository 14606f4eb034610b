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
	fmt.Println(tab.For(&store.Account{Plan: store.Pro}))
	fmt.Println(tab.For(&store.Account{Plan: store.Enterprise, DailyLimit: 50_000}))
	// Output:
	// {2000 10000 3 0 2000 50}
	// {50000 10000 10 0 10000 1000}
}
