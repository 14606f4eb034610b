package httpapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/seokit/seokit/httpapi/service"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/monitor"
	"github.com/seokit/seokit/rankings"
	"github.com/seokit/seokit/seo"
)

// DefaultScheduleInterval is how often the scheduler looks for due
// schedules.
const DefaultScheduleInterval = 30 * time.Second

// The schedule types are the service's (package service).
type (
	// ScheduleRequest is the body of POST /v1/projects/{id}/schedules and
	// of PATCH /v1/projects/{id}/schedules/{sid}.
	ScheduleRequest = service.ScheduleRequest
	// Schedule is the API's view of a schedule.
	Schedule = service.Schedule
	// ScheduleList is the body of GET /v1/projects/{id}/schedules.
	ScheduleList = service.ScheduleList
)

// scheduleView renders a stored schedule in the project's zone.
func scheduleView(sc *store.Schedule, p *store.Project) Schedule {
	loc := time.UTC
	v := Schedule{ID: sc.ID, ProjectID: sc.ProjectID, Kind: sc.Kind, Spec: sc.Spec, TimeZone: "UTC",
		Paused: sc.Paused, LastJobID: sc.LastJobID, LastError: sc.LastError}
	if parsed, err := monitor.ParseSchedule(sc.Spec, p.TimeZone); err == nil {
		loc, v.Cron, v.TimeZone = parsed.Location(), parsed.Cron(), parsed.Location().String()
	}
	v.CreatedAt = sc.CreatedAt.In(loc)
	if !sc.Paused && !sc.NextRun.IsZero() {
		t := sc.NextRun.In(loc)
		v.NextRun = &t
	}
	if !sc.LastRun.IsZero() {
		t := sc.LastRun.In(loc)
		v.LastRun = &t
	}
	return v
}

// parseProjectSchedule parses spec in the project's zone and checks it
// against the plan's minimum interval.
func (s *Server) parseProjectSchedule(ctx context.Context, accountID string, p *store.Project, spec string) (*monitor.Schedule, error) {
	sched, err := monitor.ParseSchedule(spec, p.TimeZone)
	if err != nil {
		return nil, err
	}
	plan, err := s.accountPlan(ctx, accountID)
	if err != nil {
		return nil, err
	}
	if min := plan.MinScheduleInterval; min > 0 && sched.MinInterval() < min {
		return nil, &seo.InputError{Field: "spec", Value: spec,
			Reason: "runs every " + fmtInterval(sched.MinInterval()) + " at the shortest; this account's plan allows one run every " + fmtInterval(min) + " at most"}
	}
	return sched, nil
}

// fmtInterval writes d as "24h", "1h30m" or "15m".
func fmtInterval(d time.Duration) string {
	s := d.String()
	for _, z := range []string{"m0s", "h0m"} {
		if len(s) > len(z) && s[len(s)-len(z):] == z {
			s = s[:len(s)-len(z)+1]
		}
	}
	return s
}

// Schedules returns the schedules service over the server's store: the
// schedule handlers call it, and so does the dashboard.
func (s *Server) Schedules() service.Schedules { return scheduleService{s} }

// scheduleService implements service.Schedules.
type scheduleService struct{ s *Server }

var _ service.Schedules = scheduleService{}

func (ss scheduleService) Create(ctx context.Context, acct, projectID string, req ScheduleRequest) (*Schedule, error) {
	s := ss.s
	p, err := s.st.Project(ctx, acct, projectID)
	if err != nil {
		return nil, err
	}
	if req.Kind != store.ScheduleSite && req.Kind != store.ScheduleRankings {
		return nil, invalid("kind", `kind must be "site" or "rankings"`)
	}
	if req.Spec == nil {
		return nil, invalid("spec", "spec is required: daily, daily@HH:MM, weekly, weekly@mon HH:MM, hourly or a 5-field cron expression")
	}
	sched, err := s.parseProjectSchedule(ctx, acct, p, *req.Spec)
	if err != nil {
		return nil, err
	}
	plan, err := s.accountPlan(ctx, acct)
	if err != nil {
		return nil, err
	}
	now := s.now().UTC()
	sc := &store.Schedule{AccountID: acct, ProjectID: p.ID, Kind: req.Kind, Spec: sched.String(),
		NextRun: sched.Next(now), Paused: req.Paused != nil && *req.Paused, CreatedAt: now}
	// The store counts and creates in one atomic step, so instances
	// sharing a database together never exceed the caps.
	err = s.st.CreateScheduleWithin(ctx, sc, plan.Schedules)
	var le *store.LimitError
	switch {
	case errors.As(err, &le) && le.Project != "":
		err = conflict("this project has " + strconv.Itoa(le.Count) +
			" schedules, the most a project may have; delete one to create another")
	case errors.As(err, &le):
		err = conflict("this account has " + strconv.Itoa(le.Count) +
			" schedules, the most its plan allows; delete one to create another")
	}
	if err != nil {
		return nil, err
	}
	v := scheduleView(sc, p)
	return &v, nil
}

func (ss scheduleService) List(ctx context.Context, acct, projectID string) ([]Schedule, error) {
	p, err := ss.s.st.Project(ctx, acct, projectID)
	if err != nil {
		return nil, err
	}
	scs, err := ss.s.st.Schedules(ctx, acct, p.ID)
	if err != nil {
		return nil, err
	}
	out := make([]Schedule, 0, len(scs))
	for i := range scs {
		out = append(out, scheduleView(&scs[i], p))
	}
	return out, nil
}

// projectSchedule loads the project and its schedule; a schedule of
// another project is not found.
func (s *Server) projectSchedule(ctx context.Context, acct, projectID, id string) (*store.Project, *store.Schedule, error) {
	p, err := s.st.Project(ctx, acct, projectID)
	if err != nil {
		return nil, nil, err
	}
	sc, err := s.st.Schedule(ctx, acct, id)
	if err != nil {
		return nil, nil, err
	}
	if sc.ProjectID != p.ID {
		return nil, nil, fmt.Errorf("httpapi: schedule of another project: %w", store.ErrNotFound)
	}
	return p, sc, nil
}

func (ss scheduleService) Update(ctx context.Context, acct, projectID, id string, req ScheduleRequest) (*Schedule, error) {
	s := ss.s
	p, sc, err := s.projectSchedule(ctx, acct, projectID, id)
	if err != nil {
		return nil, err
	}
	if req.Kind != "" && req.Kind != sc.Kind {
		return nil, invalid("kind", "the kind of a schedule cannot change; create another schedule")
	}
	spec := sc.Spec
	if req.Spec != nil {
		spec = *req.Spec
	}
	sched, err := s.parseProjectSchedule(ctx, sc.AccountID, p, spec)
	if err != nil {
		return nil, err
	}
	plan, err := s.accountPlan(ctx, sc.AccountID)
	if err != nil {
		return nil, err
	}
	// A run claimed meanwhile makes the store refuse the update
	// (ErrConflict): read the schedule again and apply the request to it.
	for attempt := 1; ; attempt++ {
		resumed := req.Paused != nil && !*req.Paused && sc.Paused
		if req.Paused != nil {
			sc.Paused = *req.Paused
		}
		now := s.now().UTC()
		// A new spec, or a resumed schedule, runs next from now: no
		// catch-up run for the time it was paused.
		if sched.String() != sc.Spec || resumed {
			sc.Spec, sc.NextRun = sched.String(), sched.Next(now)
		}
		// Whatever changed, the next run keeps the plan's interval after
		// the last one.
		sc.NextRun = keepInterval(sched, sc.NextRun, sc.LastRun, plan.MinScheduleInterval)
		sc.UpdatedAt = now
		err = s.st.UpdateSchedule(ctx, sc)
		if !errors.Is(err, store.ErrConflict) || attempt == 3 {
			break
		}
		if sc, err = s.st.Schedule(ctx, sc.AccountID, sc.ID); err != nil {
			break
		}
	}
	if err != nil {
		return nil, err
	}
	v := scheduleView(sc, p)
	return &v, nil
}

func (ss scheduleService) Delete(ctx context.Context, acct, projectID, id string) error {
	_, sc, err := ss.s.projectSchedule(ctx, acct, projectID, id)
	if err != nil {
		return err
	}
	return ss.s.st.DeleteSchedule(ctx, sc.AccountID, sc.ID)
}

func (s *Server) createSchedule(w http.ResponseWriter, r *http.Request) {
	var req ScheduleRequest
	if err := decodeJSON(w, r, s.opts.MaxBodyBytes, &req); err != nil {
		s.fail(w, r, err)
		return
	}
	v, err := s.Schedules().Create(r.Context(), principal(r.Context()).AccountID, r.PathValue("id"), req)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	w.Header().Set("Location", s.opts.BasePath+"/v1/projects/"+v.ProjectID+"/schedules/"+v.ID)
	writeJSON(w, http.StatusCreated, v)
}

func (s *Server) listSchedules(w http.ResponseWriter, r *http.Request) {
	scs, err := s.Schedules().List(r.Context(), principal(r.Context()).AccountID, r.PathValue("id"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, ScheduleList{Schedules: scs})
}

func (s *Server) updateSchedule(w http.ResponseWriter, r *http.Request) {
	var req ScheduleRequest
	if err := decodeJSON(w, r, s.opts.MaxBodyBytes, &req); err != nil {
		s.fail(w, r, err)
		return
	}
	v, err := s.Schedules().Update(r.Context(), principal(r.Context()).AccountID, r.PathValue("id"), r.PathValue("sid"), req)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, v)
}

// tooSoon reports whether a run of sched at at comes sooner after its
// last run, due at last, than the plan's minimum interval min allows.
// The interval is counted in the schedule's wall-clock time, as
// monitor.Schedule.MinInterval counts it, so a daily run stays daily
// across a daylight-saving change (23 or 25 hours apart); a last run at
// the end of a skipped hour (02:30 run at 03:00) counts from the clock
// before the jump, the time it stood for. Never too soon before a first
// run or without a minimum.
func tooSoon(sched *monitor.Schedule, at, last time.Time, min time.Duration) bool {
	if last.IsZero() || min <= 0 {
		return false
	}
	loc := sched.Location()
	from := wallClock(last, loc)
	if start, _ := last.In(loc).ZoneBounds(); start.Equal(last) {
		_, after := last.In(loc).Zone()
		_, before := last.Add(-time.Second).In(loc).Zone()
		if after > before {
			from = from.Add(-time.Duration(after-before) * time.Second)
		}
	}
	return wallClock(at, loc).Sub(from) < min
}

// wallClock is t's wall-clock time in loc, written as a UTC time.
func wallClock(t time.Time, loc *time.Location) time.Time {
	l := t.In(loc)
	return time.Date(l.Year(), l.Month(), l.Day(), l.Hour(), l.Minute(), l.Second(), l.Nanosecond(), time.UTC)
}

// maxIntervalSteps bounds keepInterval's walk over due times: a spec the
// plan allows reaches the interval in two or three.
const maxIntervalSteps = 10_000

// keepInterval returns next, or, when it is tooSoon after last, the
// schedule's first due time after it that is not: whatever PATCH or a
// time zone change does to a schedule, its next run never comes sooner
// after its last than the plan allows.
func keepInterval(sched *monitor.Schedule, next, last time.Time, min time.Duration) time.Time {
	n := next
	for range maxIntervalSteps {
		if !tooSoon(sched, n, last, min) {
			return n
		}
		if n = sched.Next(n); n.IsZero() {
			break
		}
	}
	// No due time within reach: an hour past the interval in real time
	// is never too soon, whatever the zone's changes.
	return last.Add(min + time.Hour)
}

func (s *Server) deleteSchedule(w http.ResponseWriter, r *http.Request) {
	if err := s.Schedules().Delete(r.Context(), principal(r.Context()).AccountID, r.PathValue("id"), r.PathValue("sid")); err != nil {
		s.fail(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// ---- the scheduler

// startScheduler starts the loop that runs due schedules every
// Options.ScheduleInterval, until Close.
func (s *Server) startScheduler() {
	every := s.opts.ScheduleInterval
	if every < 0 {
		return
	}
	if every == 0 {
		every = DefaultScheduleInterval
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-s.ctx.Done():
				return
			case <-t.C:
				s.RunDueSchedules(s.ctx)
			}
		}
	}()
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

// rezoneSchedules moves the next run of the project's schedules to their
// next due time in the project's new time zone.
func (s *Server) rezoneSchedules(ctx context.Context, p *store.Project) {
	scs, err := s.st.Schedules(ctx, p.AccountID, p.ID)
	if err != nil {
		s.log.Warn("schedules not moved to the project's time zone", "project", p.ID, "err", err)
		return
	}
	plan, err := s.accountPlan(ctx, p.AccountID)
	if err != nil {
		s.log.Warn("schedules not moved to the project's time zone", "project", p.ID, "err", err)
		return
	}
	for i := range scs {
		sc := &scs[i]
		// A run claimed meanwhile refuses the update: read it again.
		for attempt := 1; ; attempt++ {
			sched, err := monitor.ParseSchedule(sc.Spec, p.TimeZone)
			if err != nil || sc.Paused {
				break
			}
			now := s.now().UTC()
			sc.NextRun, sc.UpdatedAt = keepInterval(sched, sched.Next(now), sc.LastRun, plan.MinScheduleInterval), now
			err = s.st.UpdateSchedule(ctx, sc)
			if errors.Is(err, store.ErrConflict) && attempt < 3 {
				if sc, err = s.st.Schedule(ctx, sc.AccountID, sc.ID); err == nil {
					continue
				}
			}
			if err != nil {
				s.log.Warn("schedule not moved to the project's time zone", "schedule", sc.ID, "err", err)
			}
			break
		}
	}
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

// rankRunTimeout bounds one scheduled rank check.
const rankRunTimeout = 10 * time.Minute

// runRankSchedule claims the run and checks the project's keywords with
// the Tracker, which records their positions in the rank history. The
// check runs in the background, bounded in time, and ends with Close.
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
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		rctx, cancel := context.WithTimeout(s.ctx, rankRunTimeout)
		defer cancel()
		before, err := s.opts.Tracker.Latest(rctx, p.Domain, p.Keywords, nil)
		if err != nil {
			s.log.Warn("positions before the scheduled rank check not read", "schedule", sc.ID, "err", err)
		}
		after, err := s.opts.Tracker.Rankings(rctx, p.Domain, p.Keywords, nil)
		if err == nil && before != nil {
			if err := s.EvaluateKeywordAlerts(context.WithoutCancel(rctx), sc.AccountID, p.ID, keywordMoves(before, after)); err != nil {
				s.log.Warn("keyword alerts not evaluated", "project", p.ID, "err", err)
			}
		}
		if err != nil {
			s.log.Warn("scheduled rank check failed", "schedule", sc.ID, "project", p.ID, "err", err)
			msg := "the rank check failed"
			if ie, ok := seo.AsInputError(err); ok {
				msg += ": " + inputMessage(ie)
			} else if errors.Is(err, seo.ErrUnavailable) {
				msg += ": the ranking source is unavailable"
			}
			if err := s.st.SetScheduleError(context.WithoutCancel(rctx), sc.ID, at, msg); err != nil {
				s.log.Warn("failed rank check not recorded", "schedule", sc.ID, "err", err)
			}
		}
	}()
	return true
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
