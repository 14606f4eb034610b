package httpapi

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/seokit/seokit/httpapi/store"
)

// Queue hands stored site analyses to workers. The Server keeps every job
// in its store (status, progress, result, callback state); the queue only
// decides where and when a job runs. A nil Options.Queue means the
// in-process queue: Options.JobWorkers goroutines in this process. The
// riverjobs package is a driver that shares the work between instances
// over PostgreSQL.
//
// A Queue serves one Server: Server.Start calls Start once and Close
// calls Stop. A queue that also runs periodic jobs is a PeriodicQueue.
type Queue interface {
	// Start starts the workers, which call run for each job.
	Start(ctx context.Context, run RunFunc) error
	// Enqueue hands a stored job to the workers. Enqueueing a job already
	// waiting or running may be ignored; a job whose work is over is run
	// again, which only delivers a callback still pending.
	Enqueue(ctx context.Context, j *store.Job) error
	// Stop stops the workers: the contexts of running jobs are canceled,
	// and Stop waits until their RunFunc calls return or ctx ends. Jobs so
	// interrupted stay unfinished in the store and run again later.
	Stop(ctx context.Context) error
}

// RunFunc runs one stored job to its end. It returns nil when there is
// nothing left to do (the job reached a final state and its callback is
// delivered or given up, or the job no longer exists) and an error
// wrapping ErrJobInterrupted when ctx ended first and the job must run
// again. A ctx that ends with context.DeadlineExceeded (a job timeout)
// fails the job instead.
type RunFunc func(ctx context.Context, accountID, jobID string) error

// ErrJobInterrupted is wrapped by the error of a RunFunc stopped before the
// job's end: the queue should run the job again.
var ErrJobInterrupted = errors.New("httpapi: job interrupted")

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
