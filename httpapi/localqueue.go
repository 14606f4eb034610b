package httpapi

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/seokit/seokit/httpapi/store"
)

// NewLocalQueue returns the in-process Queue that a Server uses when
// Options.Queue is nil: a FIFO list served by workers goroutines (at least
// one), and rank checks on a lane of their own, served by one goroutine,
// so that a rank check never waits for a site analysis. Each run gets
// jobTimeout (zero or less means DefaultJobTimeout), as a River worker
// does: a job the RunFunc leaves unfinished at the timeout (it ended the
// job's wait for a slot) goes back to the end of its lane, as River
// snoozes it. Its jobs live in this process only; the Server re-enqueues
// its store's unfinished jobs when it starts.
func NewLocalQueue(workers int, jobTimeout time.Duration) Queue {
	return newLocalQueue(max(workers, 1), jobTimeout)
}

// localQueue is the in-process Queue: FIFO lanes, each served by a fixed
// number of goroutines: site analyses (and helper runs) on one, rank
// checks on the other.
type localQueue struct {
	timeout time.Duration // of each run

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

func newLocalQueue(workers int, timeout time.Duration) *localQueue {
	if timeout <= 0 {
		timeout = DefaultJobTimeout
	}
	q := &localQueue{timeout: timeout}
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
	l := q.lanes[laneSite]
	if KindOf(j.ID) == JobRankCheck {
		l = q.lanes[laneRank]
	}
	q.push(l, jobRef{j.AccountID, j.ID})
	return nil
}

// push adds r at the end of l unless it is waiting there already, and
// wakes a worker.
func (q *localQueue) push(l *lane, r jobRef) {
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
		q.runOne(l, r)
	}
}

// runOne runs r within the job timeout. The RunFunc ends a run that
// outlives it (a site analysis fails, saying so) and frees its slot; one
// it leaves unfinished at the timeout (it came while the job waited for a
// slot) is queued again at the end of l. A run interrupted by a stop
// stays unfinished in the store, and the next server over it resumes it.
func (q *localQueue) runOne(l *lane, r jobRef) {
	ctx, cancel := context.WithTimeout(q.ctx, q.timeout)
	defer cancel()
	err := q.run(ctx, r.accountID, r.id)
	if errors.Is(err, ErrJobInterrupted) && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		q.push(l, r)
	}
}
