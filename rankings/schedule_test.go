package rankings_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/seokit/seokit/rankings"
	"github.com/seokit/seokit/rankings/memstore"
	"github.com/seokit/seokit/seo"
)

// fakeClock lets a test step the scheduler: every After call is handed to
// the test, which moves the clock and fires it.
type fakeClock struct {
	mu    sync.Mutex
	now   time.Time
	waits chan fakeWait
}

type fakeWait struct {
	d  time.Duration
	ch chan time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) After(d time.Duration) <-chan time.Time {
	ch := make(chan time.Time, 1)
	c.waits <- fakeWait{d, ch}
	return ch
}

// next waits for the scheduler's next sleep, checks its length, then
// moves the clock and wakes it.
func (c *fakeClock) next(t *testing.T, want time.Duration) {
	t.Helper()
	select {
	case w := <-c.waits:
		if w.d != want {
			t.Fatalf("scheduler sleeps %v, want %v", w.d, want)
		}
		c.mu.Lock()
		c.now = c.now.Add(w.d)
		now := c.now
		c.mu.Unlock()
		w.ch <- now
	case <-time.After(testWait):
		t.Fatal("scheduler did not sleep")
	}
}

// testWait bounds every wait for the scheduler: far more than it needs even
// on a loaded machine.
const testWait = time.Minute

// startRun runs tr.Run with the fake clock in a goroutine. The function it
// returns cancels Run, wakes the sleep Run may be in, waits for it and
// returns its error; it also runs at the end of the test, so that Run
// never outlives the test, even one that failed early.
func startRun(t *testing.T, tr *rankings.Tracker, clock *fakeClock, opts *rankings.ScheduleOptions) (stop func() error) {
	ctx, cancel := context.WithCancel(context.Background())
	o := *opts
	o.After = clock.After
	done := make(chan error, 1)
	go func() { done <- tr.Run(ctx, &o) }()
	stop = sync.OnceValue(func() error {
		cancel()
		deadline := time.After(testWait)
		for {
			select {
			case err := <-done:
				return err
			case w := <-clock.waits:
				w.ch <- time.Time{}
			case <-deadline:
				return errors.New("Run did not stop on cancel")
			}
		}
	})
	t.Cleanup(func() { stop() })
	return stop
}

// nextPass returns the report of the scheduler's next pass.
func nextPass(t *testing.T, passes <-chan *rankings.RecheckReport) *rankings.RecheckReport {
	t.Helper()
	select {
	case r := <-passes:
		return r
	case <-time.After(testWait):
		t.Fatal("no pass")
		return nil
	}
}

func TestRun(t *testing.T) {
	t.Parallel()
	clock := &fakeClock{now: time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC), waits: make(chan fakeWait)}
	src := newFake(map[string][]rankings.Result{
		"ok":    {{Position: 2, URL: "https://example.com/ok"}},
		"flaky": {{Position: 7, URL: "https://example.com/flaky"}},
	})
	src.setFail("flaky", seo.ErrUnavailable)
	src.now = clock.Now
	st := memstore.New(nil)
	tr := rankings.NewTracker(src, st, &rankings.TrackerOptions{Now: clock.Now})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := tr.Track(ctx, "example.com", []string{"ok", "flaky"}, nil); err != nil {
		t.Fatal(err)
	}
	passes := make(chan *rankings.RecheckReport, 10)
	stop := startRun(t, tr, clock, &rankings.ScheduleOptions{OnPass: func(r *rankings.RecheckReport) { passes <- r }})
	clock.next(t, 17*time.Hour) // 10:00 -> 03:00 the next day
	rep := nextPass(t, passes)
	if rep.Due != 2 || rep.Checked != 1 || len(rep.Failed) != 1 || rep.Failed[0].Tracked.Keyword != "flaky" || !errors.Is(rep.Failed[0].Err, seo.ErrUnavailable) {
		t.Fatalf("first pass = %+v", rep)
	}
	src.setFail("flaky", nil)
	clock.next(t, time.Hour) // retry of the failure
	rep = nextPass(t, passes)
	if rep.Due != 1 || rep.Checked != 1 || len(rep.Failed) != 0 {
		t.Fatalf("retry pass = %+v, want flaky only, checked", rep)
	}
	if src.callsOf("ok") != 1 || src.callsOf("flaky") != 2 {
		t.Errorf("calls ok=%d flaky=%d, want 1 and 2 (ok not checked twice the same day)", src.callsOf("ok"), src.callsOf("flaky"))
	}
	clock.next(t, 23*time.Hour) // 04:00 -> 03:00 the day after
	rep = nextPass(t, passes)
	if rep.Due != 2 || rep.Checked != 2 || len(rep.Failed) != 0 {
		t.Errorf("second day pass = %+v, want both checked again", rep)
	}
	h, _ := st.History(ctx, rankings.Filter{Domain: "example.com", Keywords: []string{"ok"}})
	if len(h) != 2 || !h[0].Date.Equal(time.Date(2025, 3, 2, 0, 0, 0, 0, time.UTC)) || !h[1].Date.Equal(time.Date(2025, 3, 3, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("history of ok = %+v, want 2025-03-02 and 2025-03-03", h)
	}
	if err := stop(); !errors.Is(err, context.Canceled) {
		t.Errorf("Run = %v, want context.Canceled", err)
	}
}

func TestRunBoundedRetries(t *testing.T) {
	t.Parallel()
	clock := &fakeClock{now: time.Date(2025, 3, 1, 2, 0, 0, 0, time.UTC), waits: make(chan fakeWait)}
	src := newFake(nil)
	src.setFail("down", seo.ErrRateLimited)
	st := memstore.New(nil)
	tr := rankings.NewTracker(src, st, &rankings.TrackerOptions{Now: clock.Now})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	tr.Track(ctx, "example.com", []string{"down"}, nil)
	passes := make(chan *rankings.RecheckReport, 10)
	startRun(t, tr, clock, &rankings.ScheduleOptions{At: 90*time.Minute + 2*time.Hour, MaxRetries: 2, RetryEvery: 10 * time.Minute,
		OnPass: func(r *rankings.RecheckReport) { passes <- r }})
	clock.next(t, 90*time.Minute) // 02:00 -> 03:30
	nextPass(t, passes)
	clock.next(t, 10*time.Minute)
	nextPass(t, passes)
	clock.next(t, 10*time.Minute)
	nextPass(t, passes)
	// Two retries done: the next sleep is to tomorrow's 03:30.
	clock.next(t, 24*time.Hour-20*time.Minute)
	rep := nextPass(t, passes)
	if len(rep.Failed) != 1 {
		t.Errorf("next day pass = %+v", rep)
	}
	if c := src.callsOf("down"); c != 4 {
		t.Errorf("searched %d times, want 4 (3 + 1 the next day)", c)
	}
}

func TestRecheckDueSkipsCheckedToday(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	src := newFake(map[string][]rankings.Result{"a": {{Position: 1, URL: "https://example.com/"}}})
	st := memstore.New(nil)
	tr := rankings.NewTracker(src, st, &rankings.TrackerOptions{Now: func() time.Time { return now }})
	if _, err := tr.Rankings(ctx, "example.com", []string{"a"}, &rankings.CheckOptions{Device: rankings.Mobile}); err != nil {
		t.Fatal(err)
	}
	tr.Track(ctx, "example.org", []string{"b"}, nil)
	rep, err := tr.RecheckDue(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Due != 1 || rep.Checked != 1 || src.callsOf("a") != 1 || src.callsOf("b") != 1 {
		t.Errorf("RecheckDue = %+v, calls a=%d b=%d; want only b due", rep, src.callsOf("a"), src.callsOf("b"))
	}
	if _, err := rankings.NewTracker(nil, st, nil).RecheckDue(ctx); !errors.Is(err, seo.ErrUnavailable) {
		t.Errorf("RecheckDue without source = %v", err)
	}
	if err := tr.Run(ctx, &rankings.ScheduleOptions{At: 25 * time.Hour}); !errors.Is(err, seo.ErrInvalidInput) {
		t.Errorf("Run(At 25h) = %v, want ErrInvalidInput", err)
	}
}

func TestNextRun(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		now  time.Time
		want time.Time
	}{
		{"before", time.Date(2025, 3, 1, 1, 0, 0, 0, time.UTC), time.Date(2025, 3, 1, 3, 0, 0, 0, time.UTC)},
		{"exactly", time.Date(2025, 3, 1, 3, 0, 0, 0, time.UTC), time.Date(2025, 3, 2, 3, 0, 0, 0, time.UTC)},
		{"after", time.Date(2025, 12, 31, 23, 0, 0, 0, time.UTC), time.Date(2026, 1, 1, 3, 0, 0, 0, time.UTC)},
		{"other zone", time.Date(2025, 3, 1, 1, 0, 0, 0, time.FixedZone("X", -5*3600)), time.Date(2025, 3, 2, 3, 0, 0, 0, time.UTC)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := rankings.NextRun(c.now, 3*time.Hour); !got.Equal(c.want) {
				t.Errorf("NextRun(%v) = %v, want %v", c.now, got, c.want)
			}
		})
	}
}
