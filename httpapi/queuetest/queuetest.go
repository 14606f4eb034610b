// Package queuetest provides the conformance suite of httpapi.Queue
// drivers.
package queuetest

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seokit/seokit/httpapi"
	"github.com/seokit/seokit/httpapi/store"
)

// Options describe the driver under test. The zero value describes an
// in-process queue.
type Options struct {
	// Durable queues keep their jobs outside the process: a job enqueued
	// on one queue, or interrupted when it stopped, runs on another queue
	// over the same backend, and a job whose RunFunc returns
	// ErrJobInterrupted runs again without being enqueued again. Other
	// queues only run a job again when it is enqueued again (the Server
	// re-enqueues its store's unfinished jobs when it starts).
	Durable bool
	// Timeout bounds each wait for a job to run; zero means 30 s.
	Timeout time.Duration
}

// Run runs the Queue conformance suite. newBackend is called once per
// subtest and returns a function that opens a queue on that subtest's
// fresh backend (for a durable driver, every queue it opens shares the
// backend's jobs; for an in-process one each is new). The suite starts and
// stops the queues it opens and stops them again at cleanup.
func Run(t *testing.T, newBackend func(t *testing.T) func(t *testing.T) httpapi.Queue, opts *Options) {
	t.Helper()
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Timeout <= 0 {
		o.Timeout = 30 * time.Second
	}

	t.Run("every_job_runs_once", func(t *testing.T) {
		open := newBackend(t)
		r := newRecorder()
		q := start(t, open, r.run)
		const n = 20
		for i := range n {
			enqueue(t, q, jobID(i))
		}
		for i := range n {
			r.waitRuns(t, jobID(i), 1, o.Timeout)
		}
		settle()
		for i := range n {
			if got := r.runs(t, jobID(i)); got != 1 {
				t.Errorf("job %s ran %d times, want once", jobID(i), got)
			}
		}
	})

	t.Run("waiting_job_enqueued_once", func(t *testing.T) {
		open := newBackend(t)
		q := open(t)
		stopAtCleanup(t, q)
		// Not started: every Enqueue finds the job waiting.
		for range 5 {
			enqueue(t, q, "dup")
		}
		r := newRecorder()
		if err := q.Start(context.Background(), r.run); err != nil {
			t.Fatal(err)
		}
		r.waitRuns(t, "dup", 1, o.Timeout)
		settle()
		if got := r.runs(t, "dup"); got != 1 {
			t.Errorf("a job enqueued 5 times while waiting ran %d times, want once", got)
		}
	})

	t.Run("stop_cancels_and_waits", func(t *testing.T) {
		open := newBackend(t)
		started := make(chan struct{}, 1)
		var returned atomic.Bool
		q := start(t, open, func(ctx context.Context, _, id string) error {
			select {
			case started <- struct{}{}:
			default:
			}
			<-ctx.Done()
			// Work after the cancel that Stop must wait for.
			time.Sleep(100 * time.Millisecond)
			returned.Store(true)
			return fmt.Errorf("%w: %s: %w", httpapi.ErrJobInterrupted, id, ctx.Err())
		})
		enqueue(t, q, "long")
		select {
		case <-started:
		case <-time.After(o.Timeout):
			t.Fatalf("job did not start within %v", o.Timeout)
		}
		ctx, cancel := context.WithTimeout(context.Background(), o.Timeout)
		defer cancel()
		if err := q.Stop(ctx); err != nil {
			t.Fatalf("Stop = %v", err)
		}
		if !returned.Load() {
			t.Error("Stop returned before the running job's RunFunc did")
		}
	})

	t.Run("interrupted_job_runs_again", func(t *testing.T) {
		open := newBackend(t)
		r := newRecorder()
		r.interruptFirst = true
		q := start(t, open, r.run)
		enqueue(t, q, "again")
		r.waitRuns(t, "again", 1, o.Timeout)
		if !o.Durable {
			enqueue(t, q, "again")
		}
		r.waitRuns(t, "again", 2, o.Timeout)
		settle()
		if got := r.runs(t, "again"); got != 2 {
			t.Errorf("a job interrupted once ran %d times, want twice", got)
		}
	})

	t.Run("periodic_job_runs_from_start_to_stop", func(t *testing.T) {
		open := newBackend(t)
		q := open(t)
		stopAtCleanup(t, q)
		pq, ok := q.(httpapi.PeriodicQueue)
		if !ok {
			t.Skip("not a PeriodicQueue: the server runs its periodic jobs itself")
		}
		var (
			mu   sync.Mutex
			runs []time.Time
		)
		ran := make(chan struct{}, 1)
		job := httpapi.PeriodicJob{Name: "seokit.queuetest_tick", Interval: time.Second, Work: func(context.Context) error {
			mu.Lock()
			runs = append(runs, time.Now())
			mu.Unlock()
			select {
			case ran <- struct{}{}:
			default:
			}
			return nil
		}}
		if err := pq.AddPeriodic(job); err != nil {
			t.Fatalf("AddPeriodic = %v", err)
		}
		count := func() int {
			mu.Lock()
			defer mu.Unlock()
			return len(runs)
		}
		if n := count(); n != 0 {
			t.Fatalf("the periodic job ran %d times before Start", n)
		}
		if err := q.Start(context.Background(), newRecorder().run); err != nil {
			t.Fatalf("Start = %v", err)
		}
		if err := pq.AddPeriodic(httpapi.PeriodicJob{Name: "seokit.queuetest_late", Interval: time.Second, Work: job.Work}); err == nil {
			t.Error("AddPeriodic after Start succeeded")
		}
		deadline := time.After(o.Timeout)
		for count() < 2 {
			select {
			case <-ran:
			case <-deadline:
				t.Fatalf("the periodic job ran %d times within %v, want 2", count(), o.Timeout)
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), o.Timeout)
		defer cancel()
		if err := q.Stop(ctx); err != nil {
			t.Fatalf("Stop = %v", err)
		}
		mu.Lock()
		gap := runs[1].Sub(runs[0])
		mu.Unlock()
		stopped := count()
		// Two of the measured gaps between runs: a queue still running it
		// would run it again.
		time.Sleep(2 * gap)
		if n := count(); n != stopped {
			t.Errorf("the periodic job ran %d times after Stop (runs %v apart)", n-stopped, gap)
		}
	})

	if !o.Durable {
		return
	}

	t.Run("jobs_survive_stop_start", func(t *testing.T) {
		open := newBackend(t)
		started := make(chan struct{}, 1)
		first := start(t, open, func(ctx context.Context, _, id string) error {
			select {
			case started <- struct{}{}:
			default:
			}
			<-ctx.Done()
			return fmt.Errorf("%w: %s: %w", httpapi.ErrJobInterrupted, id, ctx.Err())
		})
		enqueue(t, first, "running")
		select {
		case <-started:
		case <-time.After(o.Timeout):
			t.Fatalf("job did not start within %v", o.Timeout)
		}
		ctx, cancel := context.WithTimeout(context.Background(), o.Timeout)
		defer cancel()
		if err := first.Stop(ctx); err != nil {
			t.Fatalf("Stop = %v", err)
		}
		// Enqueued while no queue runs.
		enqueue(t, first, "waiting")

		r := newRecorder()
		start(t, open, r.run)
		r.waitRuns(t, "running", 1, o.Timeout)
		r.waitRuns(t, "waiting", 1, o.Timeout)
		settle()
		for _, id := range []string{"running", "waiting"} {
			if got := r.runs(t, id); got != 1 {
				t.Errorf("job %s ran %d times after the restart, want once", id, got)
			}
		}
	})
}

// accountID is the account of the suite's jobs.
const accountID = "acct-queuetest"

func jobID(i int) string { return fmt.Sprintf("job-%02d", i) }

// start opens a queue, starts it with run and stops it at cleanup.
func start(t *testing.T, open func(t *testing.T) httpapi.Queue, run httpapi.RunFunc) httpapi.Queue {
	t.Helper()
	q := open(t)
	stopAtCleanup(t, q)
	if err := q.Start(context.Background(), run); err != nil {
		t.Fatalf("Start = %v", err)
	}
	return q
}

// stopAtCleanup stops q when t ends; a queue already stopped is stopped
// again, which must be harmless.
func stopAtCleanup(t *testing.T, q httpapi.Queue) {
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := q.Stop(ctx); err != nil {
			t.Logf("Stop at cleanup: %v", err)
		}
	})
}

func enqueue(t *testing.T, q httpapi.Queue, id string) {
	t.Helper()
	if err := q.Enqueue(context.Background(), &store.Job{ID: id, AccountID: accountID}); err != nil {
		t.Fatalf("Enqueue(%s) = %v", id, err)
	}
}

// settle gives a queue time to run a job a second time, which it must not.
func settle() { time.Sleep(300 * time.Millisecond) }

// recorder is a RunFunc counting the runs of each job.
type recorder struct {
	// interruptFirst makes the first run of each job return
	// ErrJobInterrupted.
	interruptFirst bool

	mu    sync.Mutex
	count map[string]int
	wake  chan struct{}
	wrong []string // accounts other than accountID the jobs ran for
}

func newRecorder() *recorder {
	return &recorder{count: map[string]int{}, wake: make(chan struct{})}
}

func (r *recorder) run(_ context.Context, acct, id string) error {
	r.mu.Lock()
	r.count[id]++
	n := r.count[id]
	if acct != accountID {
		r.wrong = append(r.wrong, acct)
	}
	close(r.wake)
	r.wake = make(chan struct{})
	r.mu.Unlock()
	if r.interruptFirst && n == 1 {
		return fmt.Errorf("%w: %s", httpapi.ErrJobInterrupted, id)
	}
	return nil
}

// runs returns how many times job id ran, and fails t when a job ran for
// another account than the one it was enqueued for.
func (r *recorder) runs(t *testing.T, id string) int {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.wrong) > 0 {
		t.Fatalf("jobs ran for accounts %q, want %q", r.wrong, accountID)
	}
	return r.count[id]
}

// waitRuns waits until job id has run at least n times.
func (r *recorder) waitRuns(t *testing.T, id string, n int, timeout time.Duration) {
	t.Helper()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		r.mu.Lock()
		got, wake := r.count[id], r.wake
		r.mu.Unlock()
		if got >= n {
			return
		}
		select {
		case <-wake:
		case <-deadline.C:
			t.Fatalf("job %s ran %d times within %v, want %d", id, got, timeout, n)
		}
	}
}
