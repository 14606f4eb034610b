package ratelimit_test

import (
	"context"
	"fmt"
	"time"

	"github.com/seokit/seokit/httpapi/ratelimit"
	"github.com/seokit/seokit/httpapi/store/sqlstore"
)

// Example counts requests of one account with a daily limit of 2 and a
// bucket of 3 tokens refilled at one per second.
func Example() {
	ctx := context.Background()
	st, err := sqlstore.Open(ctx, ":memory:", nil)
	if err != nil {
		panic(err)
	}
	defer st.Close()
	l := ratelimit.NewLocal(st)
	now := time.Date(2026, 11, 21, 23, 59, 59, 0, time.UTC)
	for _, at := range []time.Time{now, now, now, now.Add(time.Second)} {
		r, err := l.Take(ctx, ratelimit.Request{Account: "acct_1", Now: at, Daily: 2, Rate: 1, Burst: 3})
		if err != nil {
			panic(err)
		}
		fmt.Printf("%s count=%d refused=%q\n", at.Format(time.DateTime), r.Count, r.Refused)
	}
	// Output:
	// 2026-11-21 23:59:59 count=1 refused=""
	// 2026-11-21 23:59:59 count=2 refused=""
	// 2026-11-21 23:59:59 count=2 refused="daily"
	// 2026-11-22 00:00:00 count=1 refused=""
}
