package ratelimit_test

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seokit/seokit/httpapi/ratelimit"
)

// parallel50 makes b.RunParallel use about 50 goroutines whatever
// GOMAXPROCS is, the load test's connection count.
func parallel50(b *testing.B) {
	b.SetParallelism(max(1, (50+runtime.GOMAXPROCS(0)-1)/runtime.GOMAXPROCS(0)))
}

// BenchmarkLocalTake measures Local.Take from ~50 goroutines spread over
// 50 accounts:
//
//   - admit-*: every request admitted, so every one is a store write
//     (sqlstore.Store.Take, which on SQLite writes concurrent takes in one
//     transaction);
//   - refused: every account past its daily limit, answered in memory;
//   - store-only-file: sqlstore.Store.Take alone, the floor of admit-file.
func BenchmarkLocalTake(b *testing.B) {
	ctx := context.Background()
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	const accounts = 50
	loose := func(acct int) ratelimit.Request {
		return ratelimit.Request{Account: fmt.Sprint("acct_bench_", acct), Now: now, Daily: 1 << 30, Rate: 1e9, Burst: 1 << 30}
	}
	run := func(b *testing.B, take func(acct int) error) {
		var next atomic.Int64
		parallel50(b)
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			acct := int(next.Add(1)) % accounts
			for pb.Next() {
				if err := take(acct); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	b.Run("admit-memory", func(b *testing.B) {
		l := ratelimit.NewLocal(openStore(b, ":memory:"))
		run(b, func(a int) error { _, err := l.Take(ctx, loose(a)); return err })
	})
	b.Run("admit-file", func(b *testing.B) {
		l := ratelimit.NewLocal(openStore(b, filepath.Join(b.TempDir(), "bench.db")))
		run(b, func(a int) error { _, err := l.Take(ctx, loose(a)); return err })
	})
	b.Run("refused", func(b *testing.B) {
		l := ratelimit.NewLocal(openStore(b, filepath.Join(b.TempDir(), "bench.db")))
		for a := range accounts {
			req := loose(a)
			req.Daily = 1
			l.Take(ctx, req)
		}
		run(b, func(a int) error {
			req := loose(a)
			req.Daily = 1
			r, err := l.Take(ctx, req)
			if err == nil && r.Refused != ratelimit.DailyLimit {
				err = fmt.Errorf("admitted past the limit: %+v", r)
			}
			return err
		})
	})
	b.Run("store-only-file", func(b *testing.B) {
		st := openStore(b, filepath.Join(b.TempDir(), "bench.db"))
		run(b, func(a int) error {
			_, _, err := st.Take(ctx, fmt.Sprint("acct_bench_", a), ratelimit.Day(now), 1<<30)
			return err
		})
	})
}
