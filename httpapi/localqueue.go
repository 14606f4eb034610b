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
// one), and rank checks on a lane of their own, served by one goroutine,
// so that a rank check never waits for a site analysis. Its jobs live in
// this process only; the Server re-enqueues its store's unfinished jobs
// when it starts.
func NewLocalQueue(workers int) Queue {
	return newLocalQueue(max(workers, 1))
}

// localQueue is the in-process Queue: FIFO lanes, each served by a fixed
// number of goroutines: site analyses (and helper runs) on one, rank
// checks on the other.
type localQueue struct {
	mu      sync.Mutex
	lanes   [2]*lane // laneSite, laneRank
	ctx     context.Context
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	run     RunFunc
	periods []PeriodicJob
}

// The lanes of a localQueue.
const (
	laneSite = iota
	laneRank
)

// lane is a FIFO list of queued jobs and its workers.
type lane struct {
	workers int
	pending []jobRef
	queued  map[jobRef]bool
	wake    chan struct{}
}

type jobRef struct{ accountID, id string }

var _ PeriodicQueue = (*localQueue)(nil)

func newLocalQueue(workers int) *localQueue {
	q := &localQueue{}
	for i, n := range [...]int{laneSite: workers, laneRank: 1} {
		q.lanes[i] = &lane{workers: n, wake: make(chan struct{}, 1), queued: map[jobRef]bool{}}
	}
	return q
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
	for _, l := range q.lanes {
		for range l.workers {
			q.wg.Add(1)
			go q.worker(l)
		}
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

// Enqueue adds a job at the end of its kind's lane; one already waiting
// is not added twice.
func (q *localQueue) Enqueue(_ context.Context, j *store.Job) error {
	r := jobRef{j.AccountID, j.ID}
	l := q.lanes[laneSite]
	if KindOf(j.ID) == JobRankCheck {
		l = q.lanes[laneRank]
	}
	q.mu.Lock()
	if !l.queued[r] {
		l.queued[r] = true
		l.pending = append(l.pending, r)
	}
	q.mu.Unlock()
	select {
	case l.wake <- struct{}{}:
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

// next waits for a job queued on l; false when the queue stops.
func (q *localQueue) next(l *lane) (jobRef, bool) {
	for {
		q.mu.Lock()
		if len(l.pending) > 0 {
			r := l.pending[0]
			l.pending = l.pending[1:]
			delete(l.queued, r)
			more := len(l.pending) > 0
			q.mu.Unlock()
			if more {
				select {
				case l.wake <- struct{}{}:
				default:
				}
			}
			return r, true
		}
		q.mu.Unlock()
		select {
		case <-l.wake:
		case <-q.ctx.Done():
			return jobRef{}, false
		}
	}
}

func (q *localQueue) worker(l *lane) {
	defer q.wg.Done()
	for {
		r, ok := q.next(l)
		if !ok {
			return
		}
		// An interrupted job stays unfinished in the store; the next
		// server over it resumes it.
		_ = q.run(q.ctx, r.accountID, r.id)
	}
}
