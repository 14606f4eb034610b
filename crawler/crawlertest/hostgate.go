package crawlertest

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/seo"
)

// RunHostGate runs the crawler.HostGate conformance suite. newGate returns
// a gate with no history for each subtest (gates sharing a store use a
// fresh key prefix); the suite only calls Wait and Pause.
//
// Timings are checked from below only (a gate that waits too little
// fails) or against intervals long enough that a busy machine cannot pass
// for a gate that waits, so the suite holds on a loaded host.
func RunHostGate(t *testing.T, newGate func(t *testing.T) crawler.HostGate) {
	t.Helper()
	ctx := context.Background()
	// slack absorbs timer and clock granularity (a shared gate reserves
	// slots on its server's clock).
	const slack = 15 * time.Millisecond

	t.Run("burst_then_spacing", func(t *testing.T) {
		g := newGate(t)
		const iv = 250 * time.Millisecond
		limit := crawler.HostLimit{Interval: iv, Burst: 3}
		start := time.Now()
		for range 3 {
			mustWait(t, g, "a.test", limit)
		}
		// The burst must not wait: four intervals is far above any
		// scheduling delay.
		if el := time.Since(start); el >= 4*iv {
			t.Errorf("a burst of 3 took %v", el)
		}
		for range 3 {
			mustWait(t, g, "a.test", limit)
		}
		if el := time.Since(start); el < 3*iv-slack {
			t.Errorf("6 requests at burst 3, one per %v, took %v; want at least %v", iv, el, 3*iv)
		}
	})

	t.Run("hosts_independent", func(t *testing.T) {
		g := newGate(t)
		const iv = 10 * time.Second
		limit := crawler.HostLimit{Interval: iv, Burst: 1}
		mustWait(t, g, "a.test", limit)
		start := time.Now()
		mustWait(t, g, "b.test", limit)
		mustWait(t, g, "a.test:8080", limit)
		if el := time.Since(start); el >= iv/2 {
			t.Errorf("other hosts waited %v behind a.test's %v interval", el, iv)
		}
	})

	t.Run("cancel_while_waiting", func(t *testing.T) {
		g := newGate(t)
		limit := crawler.HostLimit{Interval: time.Hour, Burst: 1}
		mustWait(t, g, "a.test", limit)
		cctx, cancel := context.WithCancel(ctx)
		timer := time.AfterFunc(50*time.Millisecond, cancel)
		defer timer.Stop()
		defer cancel()
		start := time.Now()
		if err := g.Wait(cctx, "a.test", limit); !errors.Is(err, context.Canceled) {
			t.Fatalf("Wait canceled while waiting = %v, want context.Canceled", err)
		}
		if el := time.Since(start); el >= time.Minute {
			t.Errorf("Wait returned %v after its context was canceled", el)
		}
		dctx, dcancel := context.WithTimeout(ctx, 50*time.Millisecond)
		defer dcancel()
		if err := g.Wait(dctx, "a.test", limit); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Wait past its deadline = %v, want context.DeadlineExceeded", err)
		}
		done, dcancel2 := context.WithCancel(ctx)
		dcancel2()
		if err := g.Wait(done, "fresh.test", limit); !errors.Is(err, context.Canceled) {
			t.Errorf("Wait with a canceled context = %v, want context.Canceled", err)
		}
		if err := g.Pause(done, "fresh.test", time.Now().Add(time.Second)); !errors.Is(err, context.Canceled) {
			t.Errorf("Pause with a canceled context = %v, want context.Canceled", err)
		}
	})

	t.Run("crawl_delay_change", func(t *testing.T) {
		// A crawl learns a host's Crawl-delay from robots.txt after its
		// first requests: the longer interval holds from the next Wait.
		g := newGate(t)
		fast := crawler.HostLimit{Interval: time.Millisecond, Burst: 5}
		for range 5 {
			mustWait(t, g, "a.test", fast)
		}
		const iv = 200 * time.Millisecond
		slow := crawler.HostLimit{Interval: iv, Burst: 1}
		start := time.Now()
		for range 4 {
			mustWait(t, g, "a.test", slow)
		}
		if el := time.Since(start); el < 3*iv-slack {
			t.Errorf("4 requests after a change to one per %v took %v; want at least %v", iv, el, 3*iv)
		}
	})

	t.Run("pause", func(t *testing.T) {
		g := newGate(t)
		limit := crawler.HostLimit{Interval: time.Millisecond, Burst: 1}
		const pause = 300 * time.Millisecond
		if err := g.Pause(ctx, "a.test", time.Now().Add(pause)); err != nil {
			t.Fatal(err)
		}
		// A pause in the past does not shorten the one set.
		if err := g.Pause(ctx, "a.test", time.Now().Add(-time.Minute)); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		mustWait(t, g, "a.test", limit)
		if el := time.Since(start); el < pause-50*time.Millisecond {
			t.Errorf("Wait during a %v pause returned after %v", pause, el)
		}
		if err := g.Pause(ctx, "a.test", time.Now().Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		start = time.Now()
		mustWait(t, g, "b.test", limit)
		if el := time.Since(start); el >= 30*time.Second {
			t.Errorf("a pause of a.test held b.test for %v", el)
		}
		cctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
		defer cancel()
		if err := g.Wait(cctx, "a.test", limit); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Wait on a host paused for an hour = %v, want context.DeadlineExceeded", err)
		}
	})

	t.Run("concurrent_waits", func(t *testing.T) {
		// 8 goroutines, 5 waits each, burst 2 then one per 20 ms: the 40
		// starts take at least 38 intervals however they interleave.
		g := newGate(t)
		const goroutines, perG = 8, 5
		limit := crawler.HostLimit{Interval: 20 * time.Millisecond, Burst: 2}
		errs := make(chan error, goroutines*perG)
		var wg sync.WaitGroup
		start := time.Now()
		for range goroutines {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range perG {
					if err := g.Wait(ctx, "a.test", limit); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		wg.Wait()
		el := time.Since(start)
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		n := goroutines * perG
		if min := time.Duration(n-limit.Burst) * limit.Interval; el < min-slack {
			t.Errorf("%d concurrent waits took %v, less than the %v the limit allows", n, el, min)
		}
	})

	t.Run("bad_limit", func(t *testing.T) {
		g := newGate(t)
		for _, tc := range []struct {
			limit crawler.HostLimit
			field string
		}{
			{crawler.HostLimit{Burst: 1}, "limit.interval"},
			{crawler.HostLimit{Interval: -time.Second, Burst: 1}, "limit.interval"},
			{crawler.HostLimit{Interval: time.Second}, "limit.burst"},
		} {
			ie, ok := seo.AsInputError(g.Wait(ctx, "a.test", tc.limit))
			if !ok || ie.Field != tc.field {
				t.Errorf("Wait(%+v) = %v, want an InputError on %s", tc.limit, ie, tc.field)
			}
		}
	})
}

// mustWait calls g.Wait with a background context and fails t on an
// error.
func mustWait(t *testing.T, g crawler.HostGate, host string, limit crawler.HostLimit) {
	t.Helper()
	if err := g.Wait(context.Background(), host, limit); err != nil {
		t.Fatalf("Wait(%s, %+v) = %v", host, limit, err)
	}
}
