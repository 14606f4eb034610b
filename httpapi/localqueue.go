package httpapi

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/seokit/seokit/httpapi/store"
)

// NewLocalQueue returns the in-process Queue that a Server uses when
// Options.Queue is nil: a FIFO list served by workers goroutines (at least
// one). Its jobs live in this process only; the Server re-enqueues its
// store's unfinished jobs when it starts.
func NewLocalQueue(workers int) Queue {
	return newLocalQueue(max(workers, 1))
}

// localQueue is the in-process Queue: a FIFO list served by a fixed number
// of goroutines.
type localQueue struct {
	workers int

	mu      sync.Mutex
	pending []jobRef
	queued  map[jobRef]bool
	wake    chan struct{}
	ctx     context.Context
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	run     RunFunc
	periods []PeriodicJob
}

type jobRef struct{ accountID, id string }

var _ PeriodicQueue = (*localQueue)(nil)

func newLocalQueue(workers int) *localQueue {
	return &localQueue{workers: workers, wake: make(chan struct{}, 1), queued: map[jobRef]bool{}}
}

// Start starts the worker goroutines.
func (q *localQueue) Start(_ context.Context, run RunFunc) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.run != nil {
		return errors.New("httpapi: queue already started")
	}
	q.run = run
	q.ctx, q.cancel = context.WithCancel(context.Background())
	for range q.workers {
		q.wg.Add(1)
		go q.worker()
	}
	for _, p := range q.periods {
		q.wg.Add(1)
		go func() {
			defer q.wg.Done()
			runPeriodic(q.ctx, p)
		}()
	}
	return nil
}

// AddPeriodic registers a periodic job, run in this process every
// job.Interval from Start until Stop, on its own goroutine: it never
// waits for a site analysis's worker.
func (q *localQueue) AddPeriodic(job PeriodicJob) error {
	if job.Interval <= 0 || job.Work == nil {
		return fmt.Errorf("httpapi: periodic job %q needs a positive interval and work", job.Name)
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.run != nil {
		return errors.New("httpapi: periodic job added after the queue started")
	}
	q.periods = append(q.periods, job)
	return nil
}

// Enqueue adds a job at the end of the list; one already waiting is not
// added twice.
func (q *localQueue) Enqueue(_ context.Context, j *store.Job) error {
	r := jobRef{j.AccountID, j.ID}
	q.mu.Lock()
	if !q.queued[r] {
		q.queued[r] = true
		q.pending = append(q.pending, r)
	}
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
	return nil
}

// Stop cancels the running jobs and waits for the workers.
func (q *localQueue) Stop(ctx context.Context) error {
	q.mu.Lock()
	cancel := q.cancel
	q.mu.Unlock()
	if cancel == nil {
		return nil
	}
	cancel()
	done := make(chan struct{})
	go func() {
		q.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// next waits for a queued job; false when the queue stops.
func (q *localQueue) next() (jobRef, bool) {
	for {
		q.mu.Lock()
		if len(q.pending) > 0 {
			r := q.pending[0]
			q.pending = q.pending[1:]
			delete(q.queued, r)
			more := len(q.pending) > 0
			q.mu.Unlock()
			if more {
				select {
				case q.wake <- struct{}{}:
				default:
				}
			}
			return r, true
		}
		q.mu.Unlock()
		select {
		case <-q.wake:
		case <-q.ctx.Done():
			return jobRef{}, false
		}
	}
}

func (q *localQueue) worker() {
	defer q.wg.Done()
	for {
		r, ok := q.next()
		if !ok {
			return
		}
		// An interrupted job stays unfinished in the store; the next
		// server over it resumes it.
		_ = q.run(q.ctx, r.accountID, r.id)
	}
}
