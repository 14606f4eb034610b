package httpapi

// The runtime's start and stop: Start hands the queue the server's
// periodic jobs and starts it, resumes the store's unfinished jobs and
// starts the outbox worker; Close stops them. What runs, and how each
// kind's Work is executed, is executor.go's.

import (
	"context"
	"errors"
	"fmt"
)

// errStarted and errClosed are Start's refusals.
var (
	errStarted = errors.New("httpapi: server already started")
	errClosed  = errors.New("httpapi: server closed")
)

// Start starts the server's background work: the queue's workers (site
// analyses, shared-crawl helpers and rank checks), the store's unfinished
// jobs handed to the queue, the periodic jobs (schedule tick, outbox
// poll, rank re-check) and the outbox worker, which sends the deliveries
// (alerts and job callbacks) still pending. Close stops them. Start may be called once; a server closed
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
// server's fetcher keeps alive are closed, and the MCP sessions ended.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.mu.Unlock()
	s.cancel()
	if m := s.mcpBuilt.Load(); m != nil {
		m.Close()
	}
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
