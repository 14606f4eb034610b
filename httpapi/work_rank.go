package httpapi

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/seokit/seokit/httpapi/service"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/monitor"
	"github.com/seokit/seokit/rankings"
	"github.com/seokit/seokit/seo"
)

// The work of a project's rank check (JobRankCheck): a schedule tick
// claims the due run of a rankings schedule, counts it against the daily
// quota and queues it (runRankSchedule, work_schedule.go); the executor
// runs rankCheck once, on whichever instance takes it.

// rankRunTimeout bounds one scheduled rank check.
const rankRunTimeout = 10 * time.Minute

// rankCheckJob is a queued rank check: the run of a rankings schedule due
// at Due.
type rankCheckJob struct {
	AccountID, ScheduleID string
	Due                   time.Time
}

// runRankSchedule claims the run, counts it against the daily quota and
// queues the project's rank check (rankCheck); a run refused by the quota,
// or that cannot be queued, is recorded on the schedule.
func (s *Server) runRankSchedule(ctx context.Context, sc *store.Schedule, p *store.Project, at, next time.Time) bool {
	switch {
	case s.opts.Tracker == nil:
		return s.skipRun(ctx, sc, at, next, "rank tracking is not configured on this server")
	case len(p.Keywords) == 0:
		return s.skipRun(ctx, sc, at, next, "the project tracks no keywords")
	}
	ok, err := s.st.ClaimSchedule(ctx, sc.ID, at, next, nil)
	if err != nil {
		s.log.Warn("scheduled run not claimed", "schedule", sc.ID, "err", err)
		return false
	}
	if !ok {
		return true
	}
	q, err := s.take(ctx, sc.AccountID)
	switch {
	case err != nil:
		s.recordSkip(ctx, sc, at, "the daily quota could not be counted")
		return true
	case q.refusal() != nil:
		s.recordSkip(ctx, sc, at, q.refusal().Message)
		return true
	}
	job := rankCheckJob{AccountID: sc.AccountID, ScheduleID: sc.ID, Due: at}
	if err := s.queue.Enqueue(ctx, &store.Job{ID: job.queueID(), AccountID: job.AccountID}); err != nil {
		s.log.Warn("scheduled rank check not queued", "schedule", sc.ID, "err", err)
		s.recordSkip(ctx, sc, at, "the rank check could not be queued; it runs at the next due time")
	}
	return true
}

// rankCheck is the Work of a project's scheduled rank check: the
// project's keywords are checked with the Tracker, which records their
// positions in the rank history, their moves raise keyword alerts, and a
// failure is recorded on the schedule. A schedule or project deleted
// since the run was queued ends it with nothing done. It returns an error
// only for the executor to run it again: a store that cannot be read, or
// a stop (ErrJobInterrupted) before the check was made. A failed check is
// not run again by the executor: it is recorded, and its keywords are due
// for the daily re-check (PeriodicRankRecheck) and the next run.
func (s *Server) rankCheck(wctx context.Context, job rankCheckJob) error {
	id := job.queueID()
	var sc *store.Schedule
	var p *store.Project
	err := s.retry(wctx, "load rank check", func(ctx context.Context) (err error) {
		if sc, err = s.st.Schedule(ctx, job.AccountID, job.ScheduleID); err != nil {
			return err
		}
		p, err = s.st.Project(ctx, sc.AccountID, sc.ProjectID)
		return err
	})
	switch {
	case errors.Is(err, store.ErrNotFound):
		return nil
	case err != nil:
		return interrupted(id, err)
	case s.opts.Tracker == nil || len(p.Keywords) == 0:
		// The server or the project changed since the run was claimed.
		s.recordRankFailure(wctx, sc, job.Due, "the rank check did not run: rank tracking is not configured on this server or the project tracks no keywords")
		return nil
	}
	rctx, cancel := context.WithTimeout(wctx, rankRunTimeout)
	defer cancel()
	before, err := s.opts.Tracker.Latest(rctx, p.Domain, p.Keywords, nil)
	if err != nil {
		s.log.Warn("positions before the scheduled rank check not read", "schedule", sc.ID, "err", err)
	}
	// A keyword searched live costs one unit of the daily quota, as it
	// does through the API (research.chargeSearches), the run's unit,
	// counted when it was claimed, being the first: the server's SERP
	// provider is paid per search. A check the day cannot pay searches
	// nothing.
	charge := func(ctx context.Context, searches int) error {
		what := "a scheduled rank check searching " + strconv.Itoa(searches) + " keywords live"
		return s.chargeFor(service.WithPaid(ctx, 1), sc.AccountID, searches, what)
	}
	// NoTrack: the schedule re-checks the project's keywords at its own
	// interval, charged; tracking them would add them to the server's
	// uncharged daily re-check (Tracker.RecheckDue) as well, outside the
	// plan's cap of tracked keywords.
	after, err := s.opts.Tracker.Rankings(rctx, p.Domain, p.Keywords, &rankings.CheckOptions{BeforeSearch: charge, NoTrack: true})
	if err != nil && wctx.Err() != nil && !errors.Is(wctx.Err(), context.DeadlineExceeded) {
		// Stopped: a shared queue runs it again (River: on another
		// instance), and what was checked is stored, not searched twice.
		// The in-process queue forgets it: the schedule says so.
		if s.localQueue {
			s.recordRankFailure(wctx, sc, job.Due, "the rank check was stopped by a server shutdown; it runs at the next due time")
		}
		return interrupted(id, err)
	}
	if err == nil && before != nil {
		if err := s.EvaluateKeywordAlerts(context.WithoutCancel(rctx), sc.AccountID, p.ID, keywordMoves(before, after)); err != nil {
			s.log.Warn("keyword alerts not evaluated", "project", p.ID, "err", err)
		}
	}
	if err != nil {
		s.log.Warn("scheduled rank check failed", "schedule", sc.ID, "project", p.ID, "err", err)
		msg := "the rank check failed"
		var le *service.LimitError
		if ie, ok := seo.AsInputError(err); ok {
			msg += ": " + inputMessage(ie)
		} else if errors.As(err, &le) {
			msg += ": " + le.Message
		} else if errors.Is(err, seo.ErrUnavailable) {
			msg += ": the ranking source is unavailable"
		} else if errors.Is(err, context.DeadlineExceeded) && wctx.Err() != nil {
			msg += ": it took longer than the job timeout" // shorter than rankRunTimeout
		} else if errors.Is(err, context.DeadlineExceeded) {
			msg += ": it took longer than " + rankRunTimeout.String()
		}
		s.recordRankFailure(rctx, sc, job.Due, msg)
	}
	return nil
}

// recordRankFailure records on the schedule why its rank check due at
// failed.
func (s *Server) recordRankFailure(ctx context.Context, sc *store.Schedule, due time.Time, msg string) {
	if err := s.st.SetScheduleError(context.WithoutCancel(ctx), sc.ID, due, msg); err != nil {
		s.log.Warn("failed rank check not recorded", "schedule", sc.ID, "err", err)
	}
}

// keywordMoves pairs each keyword's position before and after a rank
// check for the keyword_drop alerts. Only checked states count: a keyword
// whose check failed or that was never checked on either side is left out,
// so a provider outage never reads as a keyword falling out of the top 10.
func keywordMoves(before, after []rankings.Ranking) []monitor.KeywordPosition {
	old := make(map[string]rankings.Ranking, len(before))
	for _, r := range before {
		old[r.Keyword] = r
	}
	checked := func(r rankings.Ranking) bool {
		return r.Status == rankings.StatusRanked || r.Status == rankings.StatusNotRanked
	}
	var out []monitor.KeywordPosition
	for _, r := range after {
		o, ok := old[r.Keyword]
		if !ok || !checked(o) || !checked(r) {
			continue
		}
		out = append(out, monitor.KeywordPosition{Keyword: r.Keyword, Old: o.Position, New: r.Position})
	}
	return out
}
