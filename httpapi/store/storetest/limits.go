package storetest

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seokit/seokit/httpapi/store"
)

func testTake(ctx context.Context, t *testing.T, s store.Store) {
	a := mustAccount(ctx, t, s, "take@example.com")
	b := mustAccount(ctx, t, s, "take2@example.com")
	day := base
	for i := 1; i <= 3; i++ {
		n, ok, err := s.Take(ctx, a.ID, day, 3)
		if err != nil || !ok || n != i {
			t.Fatalf("Take #%d = %d, %v, %v; want %d, true", i, n, ok, err, i)
		}
	}
	for range 2 {
		n, ok, err := s.Take(ctx, a.ID, day, 3)
		if err != nil || ok || n != 3 {
			t.Errorf("Take over the limit = %d, %v, %v; want 3, false (refusals are not counted)", n, ok, err)
		}
	}
	// Another time of the same UTC day shares the counter.
	sameDay := time.Date(day.UTC().Year(), day.UTC().Month(), day.UTC().Day(), 23, 59, 59, 0, time.UTC)
	if n, ok, err := s.Take(ctx, a.ID, sameDay, 3); err != nil || ok || n != 3 {
		t.Errorf("Take later the same UTC day = %d, %v, %v; want 3, false", n, ok, err)
	}
	// A raised limit admits again.
	if n, ok, err := s.Take(ctx, a.ID, day, 4); err != nil || !ok || n != 4 {
		t.Errorf("Take with a raised limit = %d, %v, %v; want 4, true", n, ok, err)
	}
	if n, ok, err := s.Take(ctx, a.ID, day.AddDate(0, 0, 1), 3); err != nil || !ok || n != 1 {
		t.Errorf("Take on the next day = %d, %v, %v; want 1, true", n, ok, err)
	}
	if n, ok, err := s.Take(ctx, b.ID, day, 3); err != nil || !ok || n != 1 {
		t.Errorf("Take of another account = %d, %v, %v; want 1, true", n, ok, err)
	}
	if n, ok, err := s.Take(ctx, b.ID, day, 0); err != nil || ok || n != 1 {
		t.Errorf("Take with limit 0 = %d, %v, %v; want 1, false", n, ok, err)
	}
}

func testTakeConcurrent(ctx context.Context, t *testing.T, s store.Store) {
	a := mustAccount(ctx, t, s, "burst@example.com")
	const limit, callers = 100, 150
	var admitted, refused atomic.Int32
	var wg sync.WaitGroup
	seen := make([]atomic.Bool, limit+1)
	for range callers {
		wg.Go(func() {
			n, ok, err := s.Take(ctx, a.ID, base, limit)
			if err != nil {
				t.Errorf("Take: %v", err)
				return
			}
			if ok {
				admitted.Add(1)
				if n < 1 || n > limit || seen[n].Swap(true) {
					t.Errorf("admitted Take returned count %d twice or out of range", n)
				}
			} else {
				refused.Add(1)
			}
		})
	}
	wg.Wait()
	if admitted.Load() != limit || refused.Load() != callers-limit {
		t.Errorf("%d concurrent Take on limit %d: %d admitted, %d refused; want exactly %d admitted", callers, limit, admitted.Load(), refused.Load(), limit)
	}
	u, err := s.Usage(ctx, a.ID, base, base)
	if err != nil || len(u) != 1 || u[0].Count != limit {
		t.Errorf("Usage after the burst = %+v, %v; want one day of %d", u, err, limit)
	}
}

// testTakeN checks store.LimitsN on stores that offer it: several units
// counted at once, cut at the limit, shared with Take, and exact when
// concurrent callers with different n race for the last units.
func testTakeN(ctx context.Context, t *testing.T, s store.Store) {
	ln, ok := s.(store.LimitsN)
	if !ok {
		t.Skip("the store does not implement store.LimitsN")
	}
	a := mustAccount(ctx, t, s, "taken@example.com")
	steps := []struct {
		limit, n         int
		wantCount, taken int
	}{
		{10, 4, 4, 4},
		{10, 1, 5, 1},
		{10, 8, 10, 5}, // cut at the limit
		{10, 3, 10, 0}, // nothing left
		{12, 5, 12, 2}, // a raised limit
	}
	for i, st := range steps {
		n, taken, err := ln.TakeN(ctx, a.ID, base, st.limit, st.n)
		if err != nil || n != st.wantCount || taken != st.taken {
			t.Fatalf("step %d: TakeN(limit %d, n %d) = %d, %d, %v; want %d, %d", i, st.limit, st.n, n, taken, err, st.wantCount, st.taken)
		}
	}
	if n, ok, err := s.Take(ctx, a.ID, base, 13); err != nil || !ok || n != 13 {
		t.Errorf("Take after TakeN = %d, %v, %v; want 13, true", n, ok, err)
	}
	for _, bad := range []int{0, -1} {
		if _, _, err := ln.TakeN(ctx, a.ID, base, 100, bad); err == nil {
			t.Errorf("TakeN with n %d accepted", bad)
		}
	}
	b := mustAccount(ctx, t, s, "taken2@example.com")
	const limit = 500
	var counted atomic.Int64
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Go(func() {
			for range 5 {
				_, taken, err := ln.TakeN(ctx, b.ID, base, limit, 1+i%7)
				if err != nil {
					t.Errorf("TakeN: %v", err)
					return
				}
				counted.Add(int64(taken))
			}
		})
	}
	wg.Wait()
	u, err := s.Usage(ctx, b.ID, base, base)
	if err != nil || len(u) != 1 || u[0].Count != int(counted.Load()) || u[0].Count > limit {
		t.Errorf("after concurrent TakeN: Usage %+v, %v, %d units reported counted; want equal and at most %d", u, err, counted.Load(), limit)
	}
}

func testUsage(ctx context.Context, t *testing.T, s store.Store) {
	a := mustAccount(ctx, t, s, "usage@example.com")
	d0 := time.Date(2026, 1, 30, 12, 0, 0, 0, time.UTC)
	counts := map[int]int{0: 2, 1: 1, 3: 4} // day offset -> requests; day 2 has none
	for off, n := range counts {
		for range n {
			if _, _, err := s.Take(ctx, a.ID, d0.AddDate(0, 0, off), 100); err != nil {
				t.Fatalf("Take: %v", err)
			}
		}
	}
	midnight := func(off int) time.Time { return time.Date(2026, 1, 30+off, 0, 0, 0, 0, time.UTC) }
	tests := []struct {
		name     string
		from, to time.Time
		want     string
	}{
		{"all days", d0.AddDate(0, 0, -5), d0.AddDate(0, 0, 10), fmt.Sprint([]store.Usage{{Day: midnight(0), Count: 2}, {Day: midnight(1), Count: 1}, {Day: midnight(3), Count: 4}})},
		{"inclusive bounds", midnight(1), midnight(3), fmt.Sprint([]store.Usage{{Day: midnight(1), Count: 1}, {Day: midnight(3), Count: 4}})},
		{"empty day only", midnight(2), midnight(2), fmt.Sprint([]store.Usage(nil))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.Usage(ctx, a.ID, tt.from, tt.to)
			if err != nil {
				t.Fatalf("Usage: %v", err)
			}
			if fmt.Sprint(got) != tt.want {
				t.Errorf("Usage = %v, want %v", got, tt.want)
			}
			for _, u := range got {
				if u.Day.Location() != time.UTC {
					t.Errorf("Usage day %v is not UTC", u.Day)
				}
			}
		})
	}
	if got, err := s.Usage(ctx, "acct_other", d0.AddDate(0, 0, -5), d0.AddDate(0, 0, 10)); err != nil || len(got) != 0 {
		t.Errorf("Usage of another account = %v, %v; want none", got, err)
	}
}
