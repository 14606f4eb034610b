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
	"github.com/seokit/seokit/httpapi/store/sqlstore"
)

// parallel50 makes b.RunParallel use about 50 goroutines whatever
// GOMAXPROCS is, the load test's connection count.
func parallel50(b *testing.B) {
	b.SetParallelism(max(1, (50+runtime.GOMAXPROCS(0)-1)/runtime.GOMAXPROCS(0)))
}

// BenchmarkLocalTake measures Local.Take from ~50 goroutines spread over
// 50 accounts:
//
//   - admit-*: every request admitted, so every one is a store write (the
//     UPSERT of sqlstore.Store.Take);
//   - refused: every account past its daily limit, answered in memory;
//   - store-only-file: sqlstore.Store.Take alone, the floor of admit-file;
//   - prepared-file: the same UPSERT as a statement prepared once, to
//     measure what preparing it in sqlstore would save;
//   - groupcommit-file: the prepared UPSERT, with the takes waiting at one
//     moment run in one transaction (up to 64), to measure what group
//     commit in sqlstore would save. Each take keeps its own guarded
//     statement, so exactness is unchanged.
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
	b.Run("prepared-file", func(b *testing.B) {
		st := openStore(b, filepath.Join(b.TempDir(), "bench.db"))
		if st.Dialect() != sqlstore.SQLite {
			b.Skip("sqlite only")
		}
		// The statement of sqlstore.Store.Take (httpapi/store/sqlstore/jobs.go).
		stmt, err := st.DB().PrepareContext(ctx, `INSERT INTO daily_usage (account_id, day, n) VALUES (?, ?, 1)
			ON CONFLICT (account_id, day) DO UPDATE SET n = daily_usage.n + 1 WHERE daily_usage.n < ?
			RETURNING n`)
		if err != nil {
			b.Fatal(err)
		}
		defer stmt.Close()
		day := now.Format(time.DateOnly)
		run(b, func(a int) error {
			var n int
			return stmt.QueryRowContext(ctx, fmt.Sprint("acct_bench_", a), day, 1<<30).Scan(&n)
		})
	})
	b.Run("groupcommit-file", func(b *testing.B) {
		st := openStore(b, filepath.Join(b.TempDir(), "bench.db"))
		stmt, err := st.DB().PrepareContext(ctx, `INSERT INTO daily_usage (account_id, day, n) VALUES (?, ?, 1)
			ON CONFLICT (account_id, day) DO UPDATE SET n = daily_usage.n + 1 WHERE daily_usage.n < ?
			RETURNING n`)
		if err != nil {
			b.Fatal(err)
		}
		defer stmt.Close()
		type take struct {
			account string
			done    chan error
		}
		queue := make(chan take, 256)
		stop := make(chan struct{})
		defer close(stop)
		day := now.Format(time.DateOnly)
		go func() {
			for {
				var batch []take
				select {
				case t := <-queue:
					batch = append(batch, t)
				case <-stop:
					return
				}
			fill:
				for len(batch) < 64 {
					select {
					case t := <-queue:
						batch = append(batch, t)
					default:
						break fill
					}
				}
				tx, err := st.DB().BeginTx(ctx, nil)
				if err == nil {
					txs := tx.StmtContext(ctx, stmt)
					for _, t := range batch {
						var n int
						if err = txs.QueryRowContext(ctx, t.account, day, 1<<30).Scan(&n); err != nil {
							break
						}
					}
					if err == nil {
						err = tx.Commit()
					} else {
						tx.Rollback()
					}
				}
				for _, t := range batch {
					t.done <- err
				}
			}
		}()
		run(b, func(a int) error {
			done := make(chan error, 1)
			queue <- take{fmt.Sprint("acct_bench_", a), done}
			return <-done
		})
	})
}
