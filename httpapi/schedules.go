package httpapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/seokit/seokit/httpapi/service"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/monitor"
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

// scheduleView renders a stored schedule: its times in UTC, like every
// other resource's, and the zone its spec is read in as timeZone.
func scheduleView(sc *store.Schedule, p *store.Project) Schedule {
	v := Schedule{ID: sc.ID, ProjectID: sc.ProjectID, Kind: sc.Kind, Spec: sc.Spec, TimeZone: "UTC",
		Paused: sc.Paused, LastJobID: sc.LastJobID, LastError: sc.LastError}
	if parsed, err := monitor.ParseSchedule(sc.Spec, p.TimeZone); err == nil {
		v.Cron, v.TimeZone = parsed.Cron(), parsed.Location().String()
	}
	v.CreatedAt = sc.CreatedAt.UTC()
	if !sc.Paused && !sc.NextRun.IsZero() {
		t := sc.NextRun.UTC()
		v.NextRun = &t
	}
	if !sc.LastRun.IsZero() {
		t := sc.LastRun.UTC()
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
