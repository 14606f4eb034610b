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

// leasingLimits counts the writes reaching a store that implements
// store.LimitsN.
type leasingLimits struct {
	*sqlstore.Store
	writes atomic.Int64
}

func (c *leasingLimits) Take(ctx context.Context, account string, day time.Time, limit int) (int, bool, error) {
	c.writes.Add(1)
	return c.Store.Take(ctx, account, day, limit)
}

func (c *leasingLimits) TakeN(ctx context.Context, account string, day time.Time, limit, n int) (int, int, error) {
	c.writes.Add(1)
	return c.Store.TakeN(ctx, account, day, limit, n)
}

// usage is the account's stored count on now's day.
func usage(t *testing.T, st store.Limits, account string, now time.Time) int {
	t.Helper()
	u, err := st.Usage(context.Background(), account, now, now)
	if err != nil {
		t.Fatal(err)
	}
	if len(u) == 0 {
		return 0
	}
	return u[0].Count
}

// TestLocalLeases: a busy account is counted a lease at a time, a quiet
// one a request at a time; the store's count never lags what was
// admitted and runs ahead by at most two leases.
func TestLocalLeases(t *testing.T) {
	ctx := context.Background()
	noon := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name      string
		gap       time.Duration // between two requests
		daily     int
		maxWrites int // store writes allowed for the run
	}{
		{"busy", 100 * time.Microsecond, 1 << 30, reqs / 32},
		{"quiet", time.Second, 1 << 30, reqs},
		{"small quota", 100 * time.Microsecond, 150, reqs}, // 1% of 150 rounds to 1: every request written
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st := &leasingLimits{Store: openStore(t, ":memory:")}
			l := ratelimit.NewLocal(st)
			admitted := 0
			for i := range reqs {
				now := noon.Add(time.Duration(i) * tc.gap)
				if now.Day() != noon.Day() {
					t.Fatal("the run crossed midnight")
				}
				r, err := l.Take(ctx, ratelimit.Request{Account: "acct_l", Now: now, Daily: tc.daily, Rate: 1e9, Burst: 1 << 30})
				if err != nil {
					t.Fatal(err)
				}
				if r.Refused != ratelimit.Admitted {
					if r.Refused != ratelimit.DailyLimit || admitted != tc.daily {
						t.Fatalf("take %d refused by %q after %d admitted", i, r.Refused, admitted)
					}
					continue
				}
				admitted++
				if r.Count != admitted {
					t.Fatalf("take %d: count %d, want %d", i, r.Count, admitted)
				}
				if u := usage(t, st, "acct_l", now); u < admitted || u > admitted+2*ratelimit.DefaultMaxLease-1 {
					t.Fatalf("after %d admitted the store counts %d", admitted, u)
				}
			}
			if w := st.writes.Load(); w > int64(tc.maxWrites) {
				t.Errorf("%d store writes for %d requests, want at most %d", w, reqs, tc.maxWrites)
			}
			// The Local's own Usage leaves out the units it holds unspent.
			if lu, err := l.Usage(ctx, "acct_l", noon, noon); err != nil || len(lu) != 1 || lu[0].Count != admitted {
				t.Errorf("Local.Usage = %+v, %v; want %d", lu, err, admitted)
			}
			if tc.gap >= time.Second || tc.daily < 200 {
				if u := usage(t, st, "acct_l", noon); u != admitted {
					t.Errorf("the store counts %d, want exactly the %d admitted", u, admitted)
				}
			}
			t.Logf("%d requests, %d admitted, %d store writes", reqs, admitted, st.writes.Load())
		})
	}
}

const reqs = 4000

// TestLocalLeasesConcurrent: 50 goroutines of one account past its
// daily limit, leases on, admit exactly the limit with unique counts, and
// the store counts exactly that; two Locals sharing the store admit at
// most the limit together.
func TestLocalLeasesConcurrent(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	const daily, goroutines, each = 6000, 50, 160 // 8000 requests
	run := func(ls []*ratelimit.Local) (counts []int) {
		var mu sync.Mutex
		var wg sync.WaitGroup
		for g := range goroutines {
			wg.Go(func() {
				var mine []int
				for range each {
					r, err := ls[g%len(ls)].Take(ctx, ratelimit.Request{Account: "acct_c", Now: now, Daily: daily, Rate: 1e9, Burst: 1 << 30})
					if err != nil {
						t.Error(err)
						return
					}
					if r.Refused == ratelimit.Admitted {
						mine = append(mine, r.Count)
					} else if r.Refused != ratelimit.DailyLimit {
						t.Errorf("refused by %q", r.Refused)
					}
				}
				mu.Lock()
				counts = append(counts, mine...)
				mu.Unlock()
			})
		}
		wg.Wait()
		return counts
	}
	t.Run("one", func(t *testing.T) {
		st := &leasingLimits{Store: openStore(t, ":memory:")}
		counts := run([]*ratelimit.Local{ratelimit.NewLocal(st)})
		if len(counts) != daily {
			t.Fatalf("admitted %d, want %d", len(counts), daily)
		}
		seen := make([]bool, daily+1)
		for _, c := range counts {
			if c < 1 || c > daily || seen[c] {
				t.Fatalf("count %d out of range or given twice", c)
			}
			seen[c] = true
		}
		if u := usage(t, st, "acct_c", now); u != daily {
			t.Errorf("the store counts %d, want %d", u, daily)
		}
		t.Logf("%d admitted with %d store writes", len(counts), st.writes.Load())
	})
	t.Run("two", func(t *testing.T) {
		st := openStore(t, filepath.Join(t.TempDir(), "limits.db"))
		counts := run([]*ratelimit.Local{ratelimit.NewLocal(st), ratelimit.NewLocal(st)})
		u := usage(t, st, "acct_c", now)
		if len(counts) > daily || u != daily || u-len(counts) > 2*(2*ratelimit.DefaultMaxLease-1) {
			t.Fatalf("two Locals admitted %d, the store counts %d; want at most %d admitted and at most two leases per Local unspent", len(counts), u, daily)
		}
	})
}

// TestLocalLeaseLoweredLimit: units leased under a daily limit that is
// then lowered are not spent past the new limit.
func TestLocalLeaseLoweredLimit(t *testing.T) {
	ctx := context.Background()
	st := openStore(t, ":memory:")
	l := ratelimit.NewLocal(st)
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	req := ratelimit.Request{Account: "acct_low", Now: now, Daily: 100_000, Rate: 1e9, Burst: 1 << 30}
	for range 200 { // leases grow
		req.Now = req.Now.Add(time.Microsecond)
		if r, err := l.Take(ctx, req); err != nil || r.Refused != ratelimit.Admitted {
			t.Fatalf("%+v %v", r, err)
		}
	}
	if u := usage(t, st, "acct_low", now); u <= 200 {
		t.Fatalf("the store counts %d after 200 busy requests: no lease unspent, the test proves nothing", u)
	}
	req.Daily = 200
	if r, err := l.Take(ctx, req); err != nil || r.Refused != ratelimit.DailyLimit {
		t.Errorf("take past the lowered limit: %+v %v, want a daily refusal", r, err)
	}
}
