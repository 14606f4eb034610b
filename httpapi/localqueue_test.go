package httpapi_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seokit/seokit/httpapi"
	"github.com/seokit/seokit/httpapi/queuetest"
	"github.com/seokit/seokit/httpapi/store"
)

// The in-process queue passes the Queue conformance suite.
func TestLocalQueue(t *testing.T) {
	queuetest.Run(t, func(*testing.T) func(*testing.T) httpapi.Queue {
		return func(*testing.T) httpapi.Queue { return httpapi.NewLocalQueue(4, 0) }
	}, nil)
}

// TestLocalQueueJobTimeout: each run of the in-process queue ends at the
// job timeout, and a run the RunFunc leaves unfinished then (its wait for
// a slot ended) is queued again, as River snoozes it, so the job is not
// lost until the next start.
func TestLocalQueueJobTimeout(t *testing.T) {
	const timeout = 100 * time.Millisecond
	q := httpapi.NewLocalQueue(1, timeout)
	type run struct {
		left   time.Duration // of the run's deadline when it started
		hasDDL bool
	}
	runs := make(chan run, 2)
	var n atomic.Int32
	err := q.Start(context.Background(), func(ctx context.Context, _, id string) error {
		d, ok := ctx.Deadline()
		runs <- run{time.Until(d), ok}
		if n.Add(1) == 1 {
			<-ctx.Done() // the first run waits past its timeout
			return fmt.Errorf("%w: %s: %w", httpapi.ErrJobInterrupted, id, ctx.Err())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { q.Stop(context.Background()) })
	if err := q.Enqueue(context.Background(), &store.Job{ID: "job_1", AccountID: "acc_1"}); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		select {
		case r := <-runs:
			if !r.hasDDL || r.left > timeout || r.left <= 0 {
				t.Errorf("run %d: deadline %v ahead (set: %v), want within the %v job timeout", i+1, r.left, r.hasDDL, timeout)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("run %d never came: a run interrupted by its timeout was not queued again", i+1)
		}
	}
}
