package redislimit_test

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seokit/seokit/httpapi/ratelimit"
	"github.com/seokit/seokit/httpapi/ratelimit/redislimit"
	"github.com/seokit/seokit/internal/redistest"
)

// BenchmarkTake measures one Take (one script run on a loopback Redis)
// from ~50 goroutines over 50 accounts, admitted and refused.
func BenchmarkTake(b *testing.B) {
	srv := redistest.Start(b)
	ctx := context.Background()
	l, err := redislimit.Open(ctx, srv.URL(), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name  string
		daily int
	}{{"admit", 1 << 30}, {"refused", 0}} {
		b.Run(tc.name, func(b *testing.B) {
			var next atomic.Int64
			b.SetParallelism(max(1, (50+runtime.GOMAXPROCS(0)-1)/runtime.GOMAXPROCS(0)))
			b.RunParallel(func(pb *testing.PB) {
				req := ratelimit.Request{Account: fmt.Sprint("acct_bench_", next.Add(1)%50), Now: now, Daily: tc.daily, Rate: 1e9, Burst: 1 << 30}
				for pb.Next() {
					r, err := l.Take(ctx, req)
					if err != nil || (r.Refused == ratelimit.Admitted) != (tc.daily > 0) {
						b.Errorf("%+v %v", r, err)
						return
					}
				}
			})
		})
	}
}
