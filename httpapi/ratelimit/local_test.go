package ratelimit_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seokit/seokit/httpapi/ratelimit"
	"github.com/seokit/seokit/httpapi/ratelimit/ratelimittest"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/httpapi/store/sqlstore"
	"github.com/seokit/seokit/internal/pgtest"
)

func openStore(t testing.TB, dsn string) *sqlstore.Store {
	t.Helper()
	st, err := sqlstore.Open(context.Background(), dsn, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func TestLocalSQLite(t *testing.T) {
	ratelimittest.RunLimiter(t, func(t *testing.T) ratelimit.Limiter {
		return ratelimit.NewLocal(openStore(t, ":memory:"))
	})
}

func TestLocalSQLiteFile(t *testing.T) {
	ratelimittest.RunLimiter(t, func(t *testing.T) ratelimit.Limiter {
		return ratelimit.NewLocal(openStore(t, filepath.Join(t.TempDir(), "limits.db")))
	})
}

func TestLocalPostgres(t *testing.T) {
	st := openStore(t, pgtest.DSN(t))
	ratelimittest.RunLimiter(t, func(t *testing.T) ratelimit.Limiter {
		return ratelimit.NewLocal(st)
	})
}

// countingLimits counts the calls reaching a real store and can make them
// fail.
type countingLimits struct {
	store.Limits
	takes atomic.Int64
	fail  atomic.Bool
}

func (c *countingLimits) Take(ctx context.Context, account string, day time.Time, limit int) (int, bool, error) {
	c.takes.Add(1)
	if c.fail.Load() {
		return 0, false, fmt.Errorf("test: database down: %w", store.ErrUnavailable)
	}
	return c.Limits.Take(ctx, account, day, limit)
}

func TestLocalRefusesExhaustedAccountWithoutStore(t *testing.T) {
	ctx := context.Background()
	cl := &countingLimits{Limits: openStore(t, ":memory:")}
	l := ratelimit.NewLocal(cl)
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	req := ratelimit.Request{Account: "acct_a", Now: now, Daily: 5, Rate: 1e6, Burst: 1e6}
	for range 5 {
		if r, err := l.Take(ctx, req); err != nil || r.Refused != ratelimit.Admitted {
			t.Fatalf("%+v %v", r, err)
		}
	}
	for range 100 {
		r, err := l.Take(ctx, req)
		if err != nil || r.Refused != ratelimit.DailyLimit || r.Count != 5 {
			t.Fatalf("take past the limit: %+v %v", r, err)
		}
	}
	// The fifth admission brought the count to the limit: the 100
	// refusals are answered in memory.
	if n := cl.takes.Load(); n != 5 {
		t.Errorf("store takes = %d, want 5", n)
	}
	// A raised limit (plan upgrade) goes to the store again.
	req.Daily = 6
	if r, err := l.Take(ctx, req); err != nil || r.Refused != ratelimit.Admitted || r.Count != 6 {
		t.Fatalf("take after raising the limit: %+v %v", r, err)
	}
}

func TestLocalStoreFailure(t *testing.T) {
	ctx := context.Background()
	cl := &countingLimits{Limits: openStore(t, ":memory:")}
	l := ratelimit.NewLocal(cl)
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	req := ratelimit.Request{Account: "acct_a", Now: now, Daily: 100, Rate: 0.001, Burst: 2}
	cl.fail.Store(true)
	for range 5 {
		r, err := l.Take(ctx, req)
		if !errors.Is(err, store.ErrUnavailable) || r.Refused != ratelimit.Admitted || r.Count != 0 {
			t.Fatalf("take with the store down: %+v, %v; want an ErrUnavailable error", r, err)
		}
	}
	cl.fail.Store(false)
	// The failed takes gave their burst tokens back: both are there.
	for i := 1; i <= 2; i++ {
		if r, err := l.Take(ctx, req); err != nil || r.Refused != ratelimit.Admitted || r.Count != i {
			t.Fatalf("take %d after recovery: %+v %v", i, r, err)
		}
	}
}

func TestLocalBoundedBuckets(t *testing.T) {
	ctx := context.Background()
	l := ratelimit.NewLocalWith(openStore(t, ":memory:"), &ratelimit.LocalOptions{MaxAccounts: 50})
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	for i := range 1000 {
		if _, err := l.Take(ctx, ratelimit.Request{Account: fmt.Sprint("acct_", i), Now: now, Daily: 10, Rate: 1, Burst: 1}); err != nil {
			t.Fatal(err)
		}
	}
	if n := l.Buckets(); n != 50 {
		t.Errorf("buckets in memory = %d, want 50", n)
	}
	if n := ratelimit.NewLocal(openStore(t, ":memory:")); n.Buckets() != 0 {
		t.Errorf("a new Local holds %d buckets", n.Buckets())
	}
	// The most recent account kept its bucket (empty: Burst 1 spent).
	r, err := l.Take(ctx, ratelimit.Request{Account: "acct_999", Now: now, Daily: 10, Rate: 1, Burst: 1})
	if err != nil || r.Refused != ratelimit.BurstLimit || r.Count != 1 {
		t.Errorf("most recent account: %+v %v, want a burst refusal at count 1", r, err)
	}
}

// TestLocalRestart: a new Local over the same database file continues the
// day's counts.
func TestLocalRestart(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "limits.db")
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	req := ratelimit.Request{Account: "acct_a", Now: now, Daily: 5, Rate: 1e6, Burst: 1e6}
	st, err := sqlstore.Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	l := ratelimit.NewLocal(st)
	for range 3 {
		if _, err := l.Take(ctx, req); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	l2 := ratelimit.NewLocal(openStore(t, path))
	for i, want := range []ratelimit.Result{{Count: 4}, {Count: 5}, {Count: 5, Refused: ratelimit.DailyLimit}} {
		r, err := l2.Take(ctx, req)
		if err != nil || r != want {
			t.Fatalf("take %d after restart: %+v %v, want %+v", i+1, r, err, want)
		}
	}
}

// TestLocalPostgresSharedDaily: two Locals over two connections to one
// PostgreSQL database (two API processes) admit exactly the daily limit
// together; the database row lock does it.
func TestLocalPostgresSharedDaily(t *testing.T) {
	dsn := pgtest.DSN(t)
	ls := []*ratelimit.Local{ratelimit.NewLocal(openStore(t, dsn)), ratelimit.NewLocal(openStore(t, dsn))}
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	var admitted atomic.Int64
	var wg sync.WaitGroup
	for i := range 300 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := ls[i%2].Take(context.Background(), ratelimit.Request{Account: "acct_pg", Now: now, Daily: 100, Rate: 1e6, Burst: 1e6})
			if err != nil {
				t.Error(err)
				return
			}
			if r.Refused == ratelimit.Admitted {
				admitted.Add(1)
			}
		}()
	}
	wg.Wait()
	if n := admitted.Load(); n != 100 {
		t.Fatalf("admitted %d across two processes, want 100", n)
	}
}
