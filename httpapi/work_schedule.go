package httpapi

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/seokit/seokit/httpapi/service"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/monitor"
	"github.com/seokit/seokit/seo"
)

// The work of the schedule tick (the periodic job PeriodicScheduleTick):
// the due schedules are claimed, each due time by one instance
// (store.Schedules.ClaimSchedule), and run: a site analysis queued as a
// job, or a project's rank check (rankCheck).

// scheduleTick is the work of the periodic job PeriodicScheduleTick: the
// due schedules of every account run.
func (s *Server) scheduleTick(ctx context.Context) error {
	s.RunDueSchedules(ctx)
	return ctx.Err()
}

// Bounds of one scheduler tick.
const (
	scheduleBatch   = 100
	scheduleBatches = 10
)

// RunDueSchedules runs the schedules of every account due at Options.Now,
// as the scheduler does every Options.ScheduleInterval (tests with a fake
// clock call it). Each due schedule runs once, for the latest due time
// missed (monitor.Schedule.LatestDue): after downtime the older due times
// are skipped. Instances sharing a store may call it at once: each due
// time is claimed by one of them (store.Schedules.ClaimSchedule), which
// counts the run against the account's daily quota and queues it.
func (s *Server) RunDueSchedules(ctx context.Context) {
	s.startWaiting(ctx)
	for range scheduleBatches {
		now := s.now()
		due, err := s.st.DueSchedules(ctx, now, scheduleBatch)
		if err != nil {
			if ctx.Err() == nil {
				s.log.Warn("due schedules not listed", "err", err)
			}
			return
		}
		progressed := false
		for i := range due {
			if ctx.Err() != nil {
				return
			}
			if s.runSchedule(ctx, &due[i], now) {
				progressed = true
			}
		}
		if len(due) < scheduleBatch || !progressed {
			return
		}
	}
}

// runSchedule claims and starts the run of one due schedule; it reports
// whether the schedule is no longer due (claimed here or elsewhere).
func (s *Server) runSchedule(ctx context.Context, sc *store.Schedule, now time.Time) bool {
	p, err := s.st.Project(ctx, sc.AccountID, sc.ProjectID)
	if err != nil {
		if !errors.Is(err, store.ErrNotFound) {
			s.log.Warn("scheduled run: project not read", "schedule", sc.ID, "err", err)
		}
		return false
	}
	sched, err := monitor.ParseSchedule(sc.Spec, p.TimeZone)
	if err != nil {
		// Stored valid, so the project's zone is gone from this server's
		// time zone database: try again in a day, saying why.
		return s.skipRun(ctx, sc, sc.NextRun, now.Add(24*time.Hour), "the schedule cannot be read: "+err.Error())
	}
	at := sched.LatestDue(sc.NextRun, now)
	if at.IsZero() {
		return false // a clock behind the instance that listed it
	}
	if plan, err := s.accountPlan(ctx, sc.AccountID); err == nil {
		if tooSoon(sched, at, sc.LastRun, plan.MinScheduleInterval) {
			// Due sooner after the last run than the plan allows (a next
			// run stored before this rule held): move it, without a run.
			moved := *sc
			moved.NextRun, moved.UpdatedAt = keepInterval(sched, at, sc.LastRun, plan.MinScheduleInterval), now.UTC()
			if err := s.st.UpdateSchedule(ctx, &moved); err != nil && !errors.Is(err, store.ErrConflict) {
				s.log.Warn("early scheduled run not moved", "schedule", sc.ID, "err", err)
				return false
			}
			s.log.Info("scheduled run moved to keep the plan's interval", "schedule", sc.ID, "due", at, "next", moved.NextRun)
			return true
		}
	}
	next := sched.Next(at)
	if next.IsZero() {
		next = at.AddDate(8, 0, 0)
	}
	if why := s.planRefusal(ctx, sc, sched); why != "" {
		return s.skipRun(ctx, sc, at, next, why)
	}
	if sc.Kind == store.ScheduleRankings {
		return s.runRankSchedule(ctx, sc, p, at, next)
	}
	return s.runSiteSchedule(ctx, sc, p, at, next)
}

// planRefusal says why the account's plan no longer allows the schedule
// (a plan changed since it was made: too frequent, or more schedules than
// the plan's cap), or "" when it does.
func (s *Server) planRefusal(ctx context.Context, sc *store.Schedule, sched *monitor.Schedule) string {
	plan, err := s.accountPlan(ctx, sc.AccountID)
	if err != nil {
		return "the account's plan could not be read"
	}
	if min := plan.MinScheduleInterval; min > 0 && sched.MinInterval() < min {
		return "the schedule runs every " + fmtInterval(sched.MinInterval()) + " at the shortest and the account's plan allows one run every " +
			fmtInterval(min) + " at most: change its spec"
	}
	if plan.Schedules > 0 {
		n, err := s.st.CountSchedules(ctx, sc.AccountID)
		if err != nil {
			return "the account's schedules could not be counted"
		}
		if n > plan.Schedules {
			return "the account has " + strconv.Itoa(n) + " schedules and its plan allows " + strconv.Itoa(plan.Schedules) + ": delete some"
		}
	}
	return ""
}

// skipRun claims the run due at without running it and records why.
func (s *Server) skipRun(ctx context.Context, sc *store.Schedule, at, next time.Time, why string) bool {
	ok, err := s.st.ClaimSchedule(ctx, sc.ID, at, next, nil)
	if err != nil {
		s.log.Warn("scheduled run not claimed", "schedule", sc.ID, "err", err)
		return false
	}
	if ok {
		s.recordSkip(ctx, sc, at, why)
	}
	return true
}

func (s *Server) recordSkip(ctx context.Context, sc *store.Schedule, at time.Time, why string) {
	s.log.Info("scheduled run skipped", "schedule", sc.ID, "project", sc.ProjectID, "due", at, "reason", why)
	if err := s.st.SetScheduleError(ctx, sc.ID, at, "skipped: "+why); err != nil {
		s.log.Warn("skipped run not recorded", "schedule", sc.ID, "err", err)
	}
}

// runSiteSchedule claims the run with its site analysis job and queues
// the job, unless the project's previous analysis is still going, the
// account is at its plan's concurrent analyses or its daily quota is
// spent: then the job is stored failed, saying why, and not retried.
func (s *Server) runSiteSchedule(ctx context.Context, sc *store.Schedule, p *store.Project, at, next time.Time) bool {
	j, err := s.prepareSite(ctx, sc.AccountID, SiteRequest{ProjectID: p.ID})
	if err != nil {
		msg := err.Error()
		if ie, ok := seo.AsInputError(err); ok {
			msg = "the project's crawl settings are not valid: " + inputMessage(ie)
		} else if ae, ok := err.(*Error); ok {
			msg = ae.Message
		} else if le, ok := err.(*service.LimitError); ok {
			msg = le.Message
		}
		return s.skipRun(ctx, sc, at, next, msg)
	}
	ok, err := s.st.ClaimSchedule(ctx, sc.ID, at, next, j)
	if err != nil {
		s.log.Warn("scheduled run not claimed", "schedule", sc.ID, "err", err)
		return false
	}
	if !ok {
		return true // another instance runs it
	}
	plan, err := s.accountPlan(ctx, sc.AccountID)
	if err != nil {
		s.failSkipped(ctx, sc, j, at, "the account's plan could not be read")
		return true
	}
	switch why, busy := s.siteRunBlocked(ctx, j, plan.ConcurrentSiteJobs); {
	case busy:
		// The account runs its plan's analyses at once: the run waits,
		// stored queued, and startWaiting starts it when a slot frees.
		s.deferRun(ctx, j, why)
		return true
	case why != "":
		s.failSkipped(ctx, sc, j, at, why)
		return true
	}
	return s.startRun(ctx, sc, j, at)
}

// startRun counts a claimed scheduled site analysis against the daily
// quota and queues it; a refused quota fails it as skipped (and records
// why on sc, when given).
func (s *Server) startRun(ctx context.Context, sc *store.Schedule, j *store.Job, at time.Time) bool {
	q, err := s.take(ctx, j.AccountID)
	switch {
	case err != nil:
		s.failSkipped(ctx, sc, j, at, "the daily quota could not be counted")
		return true
	case q.refusal() != nil:
		s.failSkipped(ctx, sc, j, at, q.refusal().Message)
		return true
	}
	if err := s.queue.Enqueue(ctx, j); err != nil {
		// Stored queued: the next start resumes it.
		s.log.Warn("scheduled site analysis not queued; it runs at the next start", "job", j.ID, "err", err)
	}
	return true
}

// siteRunBlocked says why a claimed scheduled job must not run now: another
// analysis of the project is still queued, waiting or running (the run is
// skipped), or, with busy, the account is at its plan's concurrent
// analyses (the job itself counted; the run waits).
func (s *Server) siteRunBlocked(ctx context.Context, j *store.Job, concurrent int) (why string, busy bool) {
	js, err := s.st.ProjectJobs(ctx, j.AccountID, j.ProjectID, 20)
	if err != nil {
		return "the project's analyses could not be read", false
	}
	for _, o := range js {
		if o.ID != j.ID && !o.Status.Done() {
			return "the previous analysis of the project (" + o.ID + ") is still " + string(o.Status), false
		}
	}
	active, err := s.st.ActiveJobs(ctx, j.AccountID)
	if err != nil {
		return "the account's analyses could not be counted", false
	}
	if concurrent > 0 && active > concurrent {
		return "the account runs " + strconv.Itoa(concurrent) + " site analyses at once, the most its plan allows; this run starts when one ends", true
	}
	return "", false
}

// waitingPrefix starts the Error of a scheduled site analysis that waits,
// queued, for one of the account's analyses to end (deferRun): such a job
// is not handed to the queue until startWaiting does.
const waitingPrefix = "waiting: "

// waiting reports whether j is a scheduled run waiting for a slot.
func waiting(j *store.Job) bool {
	return j.Status == store.JobQueued && strings.HasPrefix(j.Error, waitingPrefix)
}

// deferRun stores a claimed scheduled job as waiting, saying why.
func (s *Server) deferRun(ctx context.Context, j *store.Job, why string) {
	w := *j
	w.Error, w.UpdatedAt = waitingPrefix+why, s.now().UTC()
	if err := s.st.UpdateJob(ctx, &w); err != nil {
		s.log.Warn("waiting scheduled run not recorded", "job", j.ID, "err", err)
	}
}

// startWaiting starts the scheduled runs that wait for a slot, oldest
// first, for each account as far as its plan's concurrent analyses allow
// (its running and queued analyses counted, by the store, in the step
// that releases a run: store.Jobs.ActivateJob). Each account's runs wait only
// for its own analyses, so no account's runs hold up another's.
func (s *Server) startWaiting(ctx context.Context) {
	js, err := s.st.Unfinished(ctx) // oldest first
	if err != nil {
		if ctx.Err() == nil {
			s.log.Warn("waiting scheduled runs not listed", "err", err)
		}
		return
	}
	active := map[string]int{}
	for i := range js {
		if !waiting(&js[i]) {
			active[js[i].AccountID]++
		}
	}
	for i := range js {
		j := &js[i]
		if !waiting(j) || ctx.Err() != nil {
			continue
		}
		plan, err := s.accountPlan(ctx, j.AccountID)
		if err != nil || (plan.ConcurrentSiteJobs > 0 && active[j.AccountID] >= plan.ConcurrentSiteJobs) {
			continue
		}
		// The store counts the account's analyses and releases the run in
		// one atomic step: instances releasing runs at once never exceed
		// the plan, nor release one run twice.
		j.Error, j.UpdatedAt = "", s.now().UTC()
		ok, err := s.st.ActivateJob(ctx, j.AccountID, j.ID, waitingPrefix, plan.ConcurrentSiteJobs, j.UpdatedAt)
		if err != nil || !ok {
			continue // released elsewhere, canceled, or no slot free now
		}
		active[j.AccountID]++
		s.startRun(ctx, nil, j, time.Time{})
	}
}

// failSkipped stores a claimed scheduled job as failed because its run was
// skipped, and records why on the schedule.
func (s *Server) failSkipped(ctx context.Context, sc *store.Schedule, j *store.Job, at time.Time, why string) {
	now := s.now().UTC()
	f := *j
	f.Status, f.Error, f.FinishedAt, f.UpdatedAt = store.JobFailed, "skipped: "+why, now, now
	if err := s.st.UpdateJob(ctx, &f); err != nil {
		s.log.Warn("skipped scheduled job not recorded", "job", j.ID, "err", err)
	}
	if sc != nil {
		s.recordSkip(ctx, sc, at, why)
	}
}
