package httpapi

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// The runtime: everything a Server runs in the background, between Start
// and Close. New starts none of it, so an embedded handler that is never
// started only answers requests.
//
// Each kind of work is one unit that only does the work and returns an
// error; the executor around it owns the job's state, retries and
// cancellation:
//
//	kind                 work                       executor
//	site analysis        runJob (work_site.go)      Queue (local or River): RunFunc
//	shared-crawl helper  runHelper (frontiers.go)   Queue: RunFunc, ID from helperID
//	schedule tick        scheduleTick               Queue: PeriodicJob (one leader with River)
//	outbox poll          outboxPollWork             Queue: PeriodicJob (one leader with River)
//	rank re-check        rankRecheck                Queue: PeriodicJob (one leader with River)
//	project rank check   rankCheck (work_schedule)  claimed by a schedule tick, bounded by rankRunTimeout
//	delivery             outbox.attempt (outbox.go) the outbox worker: leased claims, settle
//
// Deliveries (job callbacks and alerts) follow one retry rule (settle)
// with one signed poster (monitor.Webhook); they are claimed with a lease
// in the store, so each attempt is made by one instance however many
// run, and no receiver ever holds a job worker or a crawl slot.

// PeriodicJob is work a queue runs every Interval, such as the schedule
// tick. Work only does the work; an error is logged and the next period
// runs again.
type PeriodicJob struct {
	// Name identifies the job among the server's periodic jobs
	// ("seokit.schedule_tick"); a shared queue stores it with each run.
	Name string
	// Interval is the time between two runs; it must be positive.
	Interval time.Duration
	// Work runs one period's work; ctx ends when the queue stops.
	Work func(ctx context.Context) error
}

// PeriodicQueue is a Queue that runs periodic jobs itself. A queue shared
// by several instances runs each period's job once over all of them
// (riverjobs: only the elected leader inserts it, and one worker runs
// it). Start hands the queue its periodic jobs before starting it; the
// server runs those of a Queue that is not a PeriodicQueue on a timer in
// its own process.
type PeriodicQueue interface {
	Queue
	// AddPeriodic registers job; it is called before Start.
	AddPeriodic(job PeriodicJob) error
}

// Names of the server's periodic jobs.
const (
	// PeriodicScheduleTick runs the projects' due schedules
	// (RunDueSchedules) every Options.ScheduleInterval.
	PeriodicScheduleTick = "seokit.schedule_tick"
	// PeriodicOutboxPoll wakes the outbox worker to claim the deliveries
	// due (alerts and job callbacks) every Options.AlertPollInterval.
	PeriodicOutboxPoll = "seokit.outbox_poll"
	// PeriodicRankRecheck re-checks the tracked keywords
	// (Tracker.RecheckDue) every Options.RankRecheckInterval.
	PeriodicRankRecheck = "seokit.rank_recheck"
)

// errStarted and errClosed are Start's refusals.
var (
	errStarted = errors.New("httpapi: server already started")
	errClosed  = errors.New("httpapi: server closed")
)

// Start starts the server's background work: the queue's workers (site
// analyses and shared-crawl helpers), the store's unfinished jobs handed
// to the queue, the periodic jobs (schedule tick, outbox poll, rank
// re-check) and the outbox
// worker, which sends the deliveries (alerts and job callbacks) still
// pending. Close stops them. Start may be called once; a server closed
// before it cannot be started.
func (s *Server) Start(ctx context.Context) error {
	s.mu.Lock()
	switch {
	case s.closed:
		s.mu.Unlock()
		return errClosed
	case s.started:
		s.mu.Unlock()
		return errStarted
	}
	s.started = true
	s.mu.Unlock()
	periodic := s.periodicJobs()
	var local []PeriodicJob
	if pq, ok := s.queue.(PeriodicQueue); ok {
		for _, p := range periodic {
			if err := pq.AddPeriodic(p); err != nil {
				return fmt.Errorf("httpapi: periodic job %s: %w", p.Name, err)
			}
		}
	} else {
		local = periodic
	}
	if err := s.queue.Start(ctx, s.execute); err != nil {
		return fmt.Errorf("httpapi: start job queue: %w", err)
	}
	if err := s.resume(ctx); err != nil {
		s.queue.Stop(context.Background())
		return err
	}
	for _, p := range local {
		s.goBackground(func(ctx context.Context) { runPeriodic(ctx, p) })
	}
	s.startOutbox()
	return nil
}

// Close stops the job workers, the periodic jobs and the deliveries and
// waits for them. Jobs still running stay unfinished in the store: the
// in-process queue's are resumed by the next Start over it, a shared
// queue's run again on another instance. It does not close the store.
// Close without Start only marks the server closed. The connections the
// server's fetcher keeps alive are closed.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.mu.Unlock()
	s.cancel()
	qerr := s.queue.Stop(context.Background())
	s.wg.Wait()
	// The shared fetcher's kept-alive connections each hold goroutines.
	s.fetcher.Client().CloseIdleConnections()
	if qerr != nil {
		return fmt.Errorf("httpapi: stop job queue: %w", qerr)
	}
	return nil
}

// periodicJobs are the server's periodic jobs: the schedule tick, unless
// Options.ScheduleInterval turns it off, the outbox poll, and the rank
// re-check when Options.RankRecheckInterval and a Tracker are set.
func (s *Server) periodicJobs() []PeriodicJob {
	var ps []PeriodicJob
	if every := s.opts.ScheduleInterval; every >= 0 {
		if every == 0 {
			every = DefaultScheduleInterval
		}
		ps = append(ps, PeriodicJob{Name: PeriodicScheduleTick, Interval: every, Work: s.scheduleTick})
	}
	ps = append(ps, PeriodicJob{Name: PeriodicOutboxPoll, Interval: s.outboxPoll(), Work: s.outboxPollWork})
	if every := s.opts.RankRecheckInterval; every > 0 && s.opts.Tracker != nil {
		ps = append(ps, PeriodicJob{Name: PeriodicRankRecheck, Interval: every, Work: s.rankRecheck})
	}
	for i := range ps {
		ps[i].Work = s.logFailure(ps[i].Name, ps[i].Work)
	}
	return ps
}

// logFailure returns work that logs the errors of w, whichever queue
// runs it.
func (s *Server) logFailure(name string, w func(ctx context.Context) error) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		err := w(ctx)
		if err != nil && ctx.Err() == nil {
			s.log.Warn("periodic job failed; it runs again next period", "job", name, "err", err)
		}
		return err
	}
}

// goBackground runs f on a goroutine that Close waits for, with the
// server's context; it returns false, running nothing, once the server is
// closing.
func (s *Server) goBackground(f func(ctx context.Context)) bool {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return false
	}
	s.wg.Add(1)
	s.mu.Unlock()
	go func() {
		defer s.wg.Done()
		f(s.ctx)
	}()
	return true
}

// rankRecheck is the work of the periodic job PeriodicRankRecheck: one
// pass of Tracker.RecheckDue. Keywords whose check failed are due again
// in the next period.
func (s *Server) rankRecheck(ctx context.Context) error {
	rep, err := s.opts.Tracker.RecheckDue(ctx)
	if rep != nil {
		s.log.Info("rank re-check pass", "due", rep.Due, "checked", rep.Checked, "failed", len(rep.Failed))
	}
	if err != nil {
		return fmt.Errorf("httpapi: rank re-check: %w", err)
	}
	return nil
}

// runPeriodic runs p every p.Interval until ctx ends, each run after the
// previous one ended (runs never overlap).
func runPeriodic(ctx context.Context, p PeriodicJob) {
	t := time.NewTicker(p.Interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		_ = p.Work(ctx) // logged by the server (logFailure)
	}
}
