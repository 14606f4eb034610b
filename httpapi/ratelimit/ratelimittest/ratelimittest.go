package ratelimittest

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/seokit/seokit/httpapi/ratelimit"
	"github.com/seokit/seokit/seo"
)

// LooseRate and LooseBurst make a short-term limit that never refuses in
// the suite's tests of the daily quota.
const (
	LooseRate  = 1e6
	LooseBurst = 1 << 20
)

// RunLimiter runs the conformance suite. newLimiter returns a fresh
// limiter for each subtest; accounts are unique per subtest, so limiters
// may share their backing state.
func RunLimiter(t *testing.T, newLimiter func(t *testing.T) ratelimit.Limiter) {
	t.Helper()
	var seq int
	var mu sync.Mutex
	account := func(t *testing.T) string {
		mu.Lock()
		defer mu.Unlock()
		seq++
		return fmt.Sprintf("acct_rltest_%d_%d", time.Now().UnixNano(), seq)
	}
	ctx := context.Background()
	noon := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

	t.Run("ExactUnderConcurrency", func(t *testing.T) {
		l := newLimiter(t)
		acct := account(t)
		const n, limit = 300, 100
		var wg sync.WaitGroup
		results := make([]ratelimit.Result, n)
		errs := make([]error, n)
		start := make(chan struct{})
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				results[i], errs[i] = l.Take(ctx, ratelimit.Request{Account: acct, Now: noon.Add(time.Duration(i) * time.Millisecond), Daily: limit, Rate: LooseRate, Burst: LooseBurst})
			}()
		}
		close(start)
		wg.Wait()
		var counts []int
		refused := 0
		for i, r := range results {
			if errs[i] != nil {
				t.Fatalf("take %d: %v", i, errs[i])
			}
			switch r.Refused {
			case ratelimit.Admitted:
				counts = append(counts, r.Count)
			case ratelimit.DailyLimit:
				refused++
				if r.Count != limit {
					t.Errorf("refused take reports count %d, want %d", r.Count, limit)
				}
			default:
				t.Errorf("take %d refused by %q, want daily or admitted", i, r.Refused)
			}
		}
		if len(counts) != limit || refused != n-limit {
			t.Fatalf("admitted %d and refused %d of %d, want %d and %d", len(counts), refused, n, limit, n-limit)
		}
		sort.Ints(counts)
		for i, c := range counts {
			if c != i+1 {
				t.Fatalf("admitted counts are not 1..%d each once: position %d holds %d", limit, i, c)
			}
		}
		wantUsage(t, l, acct, noon, noon, map[string]int{"2026-11-21": limit})
	})

	t.Run("DayRollsOverAtUTCMidnight", func(t *testing.T) {
		l := newLimiter(t)
		acct := account(t)
		// 23:59:59.999 UTC, written in a zone east of UTC where it is
		// already the next day: the quota's day is the UTC one.
		east := time.FixedZone("UTC+5", 5*3600)
		before := time.Date(2026, 11, 22, 4, 59, 59, 999e6, east)
		take := func(now time.Time) ratelimit.Result {
			t.Helper()
			r, err := l.Take(ctx, ratelimit.Request{Account: acct, Now: now, Daily: 2, Rate: LooseRate, Burst: LooseBurst})
			if err != nil {
				t.Fatal(err)
			}
			return r
		}
		for i := 1; i <= 2; i++ {
			if r := take(before); r.Refused != ratelimit.Admitted || r.Count != i {
				t.Fatalf("take %d before midnight: %+v", i, r)
			}
		}
		if r := take(before); r.Refused != ratelimit.DailyLimit || r.Count != 2 {
			t.Fatalf("third take before midnight: %+v, want a daily refusal at count 2", r)
		}
		midnight := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
		if r := take(midnight); r.Refused != ratelimit.Admitted || r.Count != 1 {
			t.Fatalf("take at midnight: %+v, want admitted with count 1", r)
		}
		wantUsage(t, l, acct, midnight.AddDate(0, 0, -1), midnight, map[string]int{"2026-11-21": 2, "2026-11-22": 1})
	})

	t.Run("BurstRefusalAndRetryAfter", func(t *testing.T) {
		l := newLimiter(t)
		acct := account(t)
		req := ratelimit.Request{Account: acct, Now: noon, Daily: 1000, Rate: 2, Burst: 3}
		for i := 1; i <= 3; i++ {
			r, err := l.Take(ctx, req)
			if err != nil || r.Refused != ratelimit.Admitted || r.Count != i {
				t.Fatalf("take %d: %+v, %v", i, r, err)
			}
		}
		r, err := l.Take(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		// A bucket of 3 refilled at 2/s: the next token comes in 500 ms.
		if r.Refused != ratelimit.BurstLimit || r.RetryAfter < 499*time.Millisecond || r.RetryAfter > 501*time.Millisecond {
			t.Fatalf("fourth take: %+v, want a burst refusal with RetryAfter 500ms", r)
		}
		if r.Count != 3 {
			t.Errorf("burst refusal reports count %d, want 3", r.Count)
		}
		// Too early by 100 ms: still refused, and the wait shrank.
		req.Now = noon.Add(400 * time.Millisecond)
		r, err = l.Take(ctx, req)
		if err != nil || r.Refused != ratelimit.BurstLimit || r.RetryAfter > 101*time.Millisecond || r.RetryAfter <= 0 {
			t.Fatalf("take 100ms early: %+v, %v", r, err)
		}
		// The refused requests counted against neither limit.
		req.Now = noon.Add(500 * time.Millisecond)
		r, err = l.Take(ctx, req)
		if err != nil || r.Refused != ratelimit.Admitted || r.Count != 4 {
			t.Fatalf("take after RetryAfter: %+v, %v; want admitted with count 4", r, err)
		}
		wantUsage(t, l, acct, noon, noon, map[string]int{"2026-11-21": 4})
	})

	t.Run("DailyRefusalKeepsBurstToken", func(t *testing.T) {
		l := newLimiter(t)
		acct := account(t)
		// One token per 1,000 s: the bucket does not refill during the test.
		req := ratelimit.Request{Account: acct, Now: time.Date(2026, 11, 21, 23, 59, 59, 0, time.UTC), Daily: 2, Rate: 0.001, Burst: 3}
		for i := range 4 {
			r, err := l.Take(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			want := ratelimit.Admitted
			if i >= 2 {
				want = ratelimit.DailyLimit
			}
			if r.Refused != want {
				t.Fatalf("take %d: %+v, want %q", i+1, r, want)
			}
		}
		// Next day, one second later: the third token is still there.
		req.Now = req.Now.Add(time.Second)
		if r, err := l.Take(ctx, req); err != nil || r.Refused != ratelimit.Admitted || r.Count != 1 {
			t.Fatalf("first take of the next day: %+v, %v; want admitted (daily refusals must not spend burst tokens)", r, err)
		}
		if r, err := l.Take(ctx, req); err != nil || r.Refused != ratelimit.BurstLimit {
			t.Fatalf("second take of the next day: %+v, %v; want a burst refusal", r, err)
		}
	})

	t.Run("ExtremeRates", func(t *testing.T) {
		l := newLimiter(t)
		for _, tc := range []struct {
			name  string
			rate  float64
			burst int
		}{
			{"one a million seconds, huge bucket", 1e-6, 1 << 30},
			{"a million a second, bucket of one", 1e6, 1},
		} {
			t.Run(tc.name, func(t *testing.T) {
				req := ratelimit.Request{Account: account(t), Now: noon, Daily: 10, Rate: tc.rate, Burst: tc.burst}
				r, err := l.Take(ctx, req)
				if err != nil || r.Refused != ratelimit.Admitted {
					t.Fatalf("first take: %+v %v", r, err)
				}
				if tc.burst > 1 {
					return
				}
				r, err = l.Take(ctx, req)
				if err != nil || r.Refused != ratelimit.BurstLimit || r.RetryAfter <= 0 || r.RetryAfter > time.Microsecond {
					t.Fatalf("second take at the same time: %+v %v; want a burst refusal for at most 1µs", r, err)
				}
				req.Now = req.Now.Add(time.Microsecond)
				if r, err = l.Take(ctx, req); err != nil || r.Refused != ratelimit.Admitted || r.Count != 2 {
					t.Fatalf("take 1µs later: %+v %v", r, err)
				}
			})
		}
	})

	t.Run("AccountsIndependent", func(t *testing.T) {
		l := newLimiter(t)
		a, b := account(t), account(t)
		for range 3 {
			if _, err := l.Take(ctx, ratelimit.Request{Account: a, Now: noon, Daily: 3, Rate: 1, Burst: 3}); err != nil {
				t.Fatal(err)
			}
		}
		if r, _ := l.Take(ctx, ratelimit.Request{Account: a, Now: noon, Daily: 3, Rate: 1, Burst: 3}); r.Refused == ratelimit.Admitted {
			t.Fatalf("account a admitted past both limits: %+v", r)
		}
		r, err := l.Take(ctx, ratelimit.Request{Account: b, Now: noon, Daily: 3, Rate: 1, Burst: 3})
		if err != nil || r.Refused != ratelimit.Admitted || r.Count != 1 {
			t.Fatalf("account b after a is exhausted: %+v, %v; want admitted with count 1", r, err)
		}
		wantUsage(t, l, b, noon, noon, map[string]int{"2026-11-21": 1})
	})

	t.Run("ZeroDailyAdmitsNothing", func(t *testing.T) {
		l := newLimiter(t)
		r, err := l.Take(ctx, ratelimit.Request{Account: account(t), Now: noon, Daily: 0, Rate: LooseRate, Burst: LooseBurst})
		if err != nil || r.Refused != ratelimit.DailyLimit || r.Count != 0 {
			t.Fatalf("take with a zero limit: %+v, %v", r, err)
		}
	})

	t.Run("Usage", func(t *testing.T) {
		l := newLimiter(t)
		acct := account(t)
		days := map[string]int{"2026-11-01": 3, "2026-11-15": 1, "2026-11-20": 2}
		for _, d := range []string{"2026-11-01", "2026-11-15", "2026-11-20"} { // in time order
			n := days[d]
			day, _ := time.Parse(time.DateOnly, d)
			for range n {
				if r, err := l.Take(ctx, ratelimit.Request{Account: acct, Now: day.Add(13 * time.Hour), Daily: 10, Rate: LooseRate, Burst: LooseBurst}); err != nil || r.Refused != ratelimit.Admitted {
					t.Fatalf("take on %s: %+v, %v", d, r, err)
				}
			}
		}
		from := time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)
		to := time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC)
		wantUsage(t, l, acct, from, to, map[string]int{"2026-11-15": 1, "2026-11-20": 2})
		wantUsage(t, l, acct, from.AddDate(0, 0, -1), to, days)
		wantUsage(t, l, account(t), from, to, nil)
	})

	t.Run("CanceledContext", func(t *testing.T) {
		l := newLimiter(t)
		acct := account(t)
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		r, err := l.Take(cctx, ratelimit.Request{Account: acct, Now: noon, Daily: 10, Rate: LooseRate, Burst: LooseBurst})
		if err == nil {
			t.Fatalf("take with a canceled context: %+v, want an error", r)
		}
		r, err = l.Take(ctx, ratelimit.Request{Account: acct, Now: noon, Daily: 10, Rate: LooseRate, Burst: LooseBurst})
		if err != nil || r.Count != 1 {
			t.Fatalf("take after a canceled one: %+v, %v; want count 1", r, err)
		}
	})

	t.Run("BadInput", func(t *testing.T) {
		l := newLimiter(t)
		acct := account(t)
		for _, tc := range []struct {
			name  string
			req   ratelimit.Request
			field string
		}{
			{"empty account", ratelimit.Request{Now: noon, Daily: 1, Rate: 1, Burst: 1}, "account"},
			{"negative daily", ratelimit.Request{Account: acct, Now: noon, Daily: -1, Rate: 1, Burst: 1}, "daily"},
			{"zero rate", ratelimit.Request{Account: acct, Now: noon, Daily: 1, Rate: 0, Burst: 1}, "rate"},
			{"zero burst", ratelimit.Request{Account: acct, Now: noon, Daily: 1, Rate: 1, Burst: 0}, "burst"},
			{"time before 1970", ratelimit.Request{Account: acct, Now: time.Date(1969, 12, 31, 0, 0, 0, 0, time.UTC), Daily: 1, Rate: 1, Burst: 1}, "now"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				_, err := l.Take(ctx, tc.req)
				ie, ok := seo.AsInputError(err)
				if !ok || ie.Field != tc.field || !errors.Is(err, seo.ErrInvalidInput) {
					t.Fatalf("err = %v, want an InputError naming %q", err, tc.field)
				}
			})
		}
		wantUsage(t, l, acct, noon, noon, nil)
	})
}

// wantUsage checks the account's Usage in [from, to] against want (UTC
// dates to counts).
func wantUsage(t *testing.T, l ratelimit.Limiter, account string, from, to time.Time, want map[string]int) {
	t.Helper()
	got, err := l.Usage(context.Background(), account, from, to)
	if err != nil {
		t.Fatalf("usage: %v", err)
	}
	gotMap := map[string]int{}
	var last time.Time
	for _, u := range got {
		if !u.Day.Equal(ratelimit.Day(u.Day)) || u.Day.Location() != time.UTC {
			t.Errorf("usage day %v is not a UTC midnight", u.Day)
		}
		if !last.IsZero() && !u.Day.After(last) {
			t.Errorf("usage days not in increasing order: %v after %v", u.Day, last)
		}
		last = u.Day
		gotMap[u.Day.Format(time.DateOnly)] = u.Count
	}
	if len(gotMap) != len(want) {
		t.Fatalf("usage %v, want %v", gotMap, want)
	}
	for d, n := range want {
		if gotMap[d] != n {
			t.Fatalf("usage %v, want %v", gotMap, want)
		}
	}
}
