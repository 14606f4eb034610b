package storetest

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/seo"
)

func mustSchedule(ctx context.Context, t *testing.T, s store.Store, accountID, projectID, kind string, next time.Time) *store.Schedule {
	t.Helper()
	sc := &store.Schedule{AccountID: accountID, ProjectID: projectID, Kind: kind, Spec: "daily@06:00", NextRun: next, CreatedAt: next.Add(-time.Hour)}
	if err := s.CreateSchedule(ctx, sc); err != nil {
		t.Fatalf("CreateSchedule: %v", err)
	}
	return sc
}

func testSchedules(ctx context.Context, t *testing.T, s store.Store) {
	a := mustAccount(ctx, t, s, "schedules@example.com")
	b := mustAccount(ctx, t, s, "other-schedules@example.com")
	p := mustProject(ctx, t, s, a.ID, "sched.example.com", base)
	q := mustProject(ctx, t, s, a.ID, "sched2.example.com", base)
	pb := mustProject(ctx, t, s, b.ID, "sched.example.com", base)

	next := base.Add(24 * time.Hour)
	sc := &store.Schedule{AccountID: a.ID, ProjectID: p.ID, Kind: store.ScheduleSite, Spec: "weekly@mon 06:00", NextRun: next, CreatedAt: base}
	if err := s.CreateSchedule(ctx, sc); err != nil {
		t.Fatalf("CreateSchedule: %v", err)
	}
	if len(sc.ID) < 8 || sc.ID[:4] != "sch_" || !sc.UpdatedAt.Equal(sc.CreatedAt) {
		t.Fatalf("CreateSchedule left ID %q, UpdatedAt %v", sc.ID, sc.UpdatedAt)
	}
	got, err := s.Schedule(ctx, a.ID, sc.ID)
	if err != nil {
		t.Fatalf("Schedule: %v", err)
	}
	if got.ProjectID != p.ID || got.Kind != "site" || got.Spec != "weekly@mon 06:00" || !got.NextRun.Equal(next) || got.NextRun.Location() != time.UTC ||
		!got.LastRun.IsZero() || got.LastJobID != "" || got.LastError != "" || got.Paused || !got.CreatedAt.Equal(base) {
		t.Errorf("Schedule = %+v", got)
	}

	// Another account's project or schedule is not found.
	if err := s.CreateSchedule(ctx, &store.Schedule{AccountID: a.ID, ProjectID: pb.ID, Kind: "site", Spec: "daily", NextRun: next}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("CreateSchedule on another account's project: %v, want ErrNotFound", err)
	}
	if err := s.CreateSchedule(ctx, &store.Schedule{AccountID: a.ID, ProjectID: "prj_missing", Kind: "site", Spec: "daily", NextRun: next}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("CreateSchedule on a missing project: %v, want ErrNotFound", err)
	}
	if _, err := s.Schedule(ctx, b.ID, sc.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Schedule of another account: %v, want ErrNotFound", err)
	}
	other := *got
	other.AccountID = b.ID
	if err := s.UpdateSchedule(ctx, &other); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("UpdateSchedule of another account's: %v, want ErrNotFound", err)
	}
	if err := s.DeleteSchedule(ctx, b.ID, sc.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("DeleteSchedule of another account's: %v, want ErrNotFound", err)
	}

	// Bad input.
	for _, bad := range []store.Schedule{
		{ProjectID: p.ID, Kind: "site", Spec: "daily", NextRun: next},
		{AccountID: a.ID, ProjectID: p.ID, Kind: "crawl", Spec: "daily", NextRun: next},
		{AccountID: a.ID, ProjectID: p.ID, Kind: "site", NextRun: next},
		{AccountID: a.ID, ProjectID: p.ID, Kind: "site", Spec: "daily"},
	} {
		if err := s.CreateSchedule(ctx, &bad); !errors.Is(err, seo.ErrInvalidInput) {
			t.Errorf("CreateSchedule(%+v): %v, want an input error", bad, err)
		}
	}

	// Update: spec, next run, paused.
	got.Spec, got.NextRun, got.Paused, got.UpdatedAt = "daily", next.Add(time.Hour), true, base.Add(time.Minute)
	if err := s.UpdateSchedule(ctx, got); err != nil {
		t.Fatalf("UpdateSchedule: %v", err)
	}
	if g, err := s.Schedule(ctx, a.ID, sc.ID); err != nil || g.Spec != "daily" || !g.NextRun.Equal(next.Add(time.Hour)) || !g.Paused || !g.UpdatedAt.Equal(base.Add(time.Minute)) {
		t.Errorf("after UpdateSchedule: %+v, %v", g, err)
	}

	// Lists and counts.
	r := mustSchedule(ctx, t, s, a.ID, p.ID, store.ScheduleRankings, next)
	mustSchedule(ctx, t, s, a.ID, q.ID, store.ScheduleSite, next)
	mustSchedule(ctx, t, s, b.ID, pb.ID, store.ScheduleSite, next)
	list, err := s.Schedules(ctx, a.ID, p.ID)
	if err != nil || len(list) != 2 || list[0].ID != sc.ID || list[1].ID != r.ID {
		t.Errorf("Schedules = %d schedules, %v; want %s then %s", len(list), err, sc.ID, r.ID)
	}
	if list, err := s.Schedules(ctx, b.ID, p.ID); err != nil || len(list) != 0 {
		t.Errorf("Schedules of another account's project = %v, %v; want none", list, err)
	}
	if n, err := s.CountSchedules(ctx, a.ID); err != nil || n != 3 {
		t.Errorf("CountSchedules = %d, %v; want 3", n, err)
	}

	// Due: not paused, next run at or before now, longest due first.
	due, err := s.DueSchedules(ctx, next, 10)
	if err != nil || len(due) != 3 {
		t.Fatalf("DueSchedules = %d, %v; want 3 (the paused one left out)", len(due), err)
	}
	for _, d := range due {
		if d.ID == sc.ID || d.Paused {
			t.Errorf("DueSchedules listed paused schedule %s", d.ID)
		}
	}
	if due, err := s.DueSchedules(ctx, next.Add(-time.Microsecond), 10); err != nil || len(due) != 0 {
		t.Errorf("DueSchedules before the next run = %d, %v; want none", len(due), err)
	}
	if due, err := s.DueSchedules(ctx, next, 2); err != nil || len(due) != 2 {
		t.Errorf("DueSchedules limit 2 = %d, %v", len(due), err)
	}

	// Delete one; deleting a project deletes its schedules.
	if err := s.DeleteSchedule(ctx, a.ID, r.ID); err != nil {
		t.Fatalf("DeleteSchedule: %v", err)
	}
	if _, err := s.Schedule(ctx, a.ID, r.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("deleted schedule: %v, want ErrNotFound", err)
	}
	if err := s.DeleteProject(ctx, a.ID, p.ID); err != nil {
		t.Fatalf("DeleteProject: %v", err)
	}
	if _, err := s.Schedule(ctx, a.ID, sc.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("schedule of a deleted project: %v, want ErrNotFound", err)
	}
	if n, err := s.CountSchedules(ctx, a.ID); err != nil || n != 1 {
		t.Errorf("CountSchedules after deletes = %d, %v; want 1", n, err)
	}
}

func testClaimSchedule(ctx context.Context, t *testing.T, s store.Store) {
	a := mustAccount(ctx, t, s, "claim@example.com")
	p := mustProject(ctx, t, s, a.ID, "claim.example.com", base)
	due := base.Add(time.Hour)
	sc := mustSchedule(ctx, t, s, a.ID, p.ID, store.ScheduleSite, due)
	next := due.Add(24 * time.Hour)

	// A job given to the claim is stored with the schedule's account and
	// project.
	j := &store.Job{Kind: "site", Request: []byte(`{"domain":"claim.example.com"}`), CreatedAt: due}
	ok, err := s.ClaimSchedule(ctx, sc.ID, due, next, j)
	if err != nil || !ok {
		t.Fatalf("ClaimSchedule = %v, %v; want claimed", ok, err)
	}
	got, err := s.Schedule(ctx, a.ID, sc.ID)
	if err != nil || !got.NextRun.Equal(next) || !got.LastRun.Equal(due) || got.LastJobID != j.ID || j.ID == "" {
		t.Fatalf("after ClaimSchedule: %+v, %v; want next %v, last %v, job %s", got, err, next, due, j.ID)
	}
	stored, err := s.Job(ctx, a.ID, j.ID)
	if err != nil || stored.ProjectID != p.ID || stored.Status != store.JobQueued || stored.Kind != "site" {
		t.Fatalf("claimed job = %+v, %v; want queued in project %s", stored, err, p.ID)
	}

	// The same due time again, or an earlier one, claims nothing and
	// stores no job.
	for _, d := range []time.Time{due, due.Add(-time.Hour)} {
		j2 := &store.Job{Kind: "site", CreatedAt: due}
		if ok, err := s.ClaimSchedule(ctx, sc.ID, d, next, j2); err != nil || ok {
			t.Errorf("second ClaimSchedule(%v) = %v, %v; want false", d, ok, err)
		}
		if _, err := s.Job(ctx, a.ID, j2.ID); j2.ID != "" && !errors.Is(err, store.ErrNotFound) {
			t.Errorf("a losing claim stored its job: %v", err)
		}
	}

	// A later due time (after downtime) is claimed, without a job.
	late := next.Add(48 * time.Hour)
	if ok, err := s.ClaimSchedule(ctx, sc.ID, late, late.Add(24*time.Hour), nil); err != nil || !ok {
		t.Fatalf("ClaimSchedule(late) = %v, %v", ok, err)
	}
	if g, _ := s.Schedule(ctx, a.ID, sc.ID); g.LastJobID != "" || !g.LastRun.Equal(late) {
		t.Errorf("after a claim without job: %+v", g)
	}
	if err := s.SetScheduleError(ctx, sc.ID, late, "skipped: quota"); err != nil {
		t.Fatal(err)
	}
	if err := s.SetScheduleError(ctx, sc.ID, due, "an old run's error"); err != nil {
		t.Fatal(err)
	}
	if g, _ := s.Schedule(ctx, a.ID, sc.ID); g.LastError != "skipped: quota" {
		t.Errorf("LastError = %q, want the latest run's", g.LastError)
	}
	// A new claim clears the error.
	later := late.Add(24 * time.Hour)
	if ok, err := s.ClaimSchedule(ctx, sc.ID, later, later.Add(24*time.Hour), nil); err != nil || !ok {
		t.Fatalf("ClaimSchedule(later) = %v, %v", ok, err)
	}
	if g, _ := s.Schedule(ctx, a.ID, sc.ID); g.LastError != "" {
		t.Errorf("LastError after a new claim = %q", g.LastError)
	}

	// A paused schedule is never claimed.
	g, _ := s.Schedule(ctx, a.ID, sc.ID)
	g.Paused = true
	if err := s.UpdateSchedule(ctx, g); err != nil {
		t.Fatal(err)
	}
	if ok, err := s.ClaimSchedule(ctx, sc.ID, g.NextRun, g.NextRun.Add(time.Hour), nil); err != nil || ok {
		t.Errorf("ClaimSchedule of a paused schedule = %v, %v; want false", ok, err)
	}
	// Unknown schedule; next not after due.
	if ok, err := s.ClaimSchedule(ctx, "sch_missing", due, next, nil); err != nil || ok {
		t.Errorf("ClaimSchedule(missing) = %v, %v; want false", ok, err)
	}
	if _, err := s.ClaimSchedule(ctx, sc.ID, due, due, nil); !errors.Is(err, seo.ErrInvalidInput) {
		t.Errorf("ClaimSchedule with next = due: %v, want an input error", err)
	}
}

// testClaimRace claims one due time from many goroutines at once: exactly
// one wins and exactly one job is stored.
func testClaimRace(ctx context.Context, t *testing.T, s store.Store) {
	a := mustAccount(ctx, t, s, "claimrace@example.com")
	p := mustProject(ctx, t, s, a.ID, "race.example.com", base)
	const callers, rounds = 8, 5
	sc := mustSchedule(ctx, t, s, a.ID, p.ID, store.ScheduleSite, base)
	for round := range rounds {
		due := base.Add(time.Duration(round) * 24 * time.Hour)
		var wins atomic.Int32
		var wg sync.WaitGroup
		for range callers {
			wg.Go(func() {
				j := &store.Job{Kind: "site", CreatedAt: due}
				ok, err := s.ClaimSchedule(ctx, sc.ID, due, due.Add(24*time.Hour), j)
				if err != nil {
					t.Errorf("ClaimSchedule: %v", err)
					return
				}
				if ok {
					wins.Add(1)
				}
			})
		}
		wg.Wait()
		if wins.Load() != 1 {
			t.Errorf("round %d: %d of %d concurrent claims won, want exactly 1", round, wins.Load(), callers)
		}
	}
	js, err := s.ProjectJobs(ctx, a.ID, p.ID, 100)
	if err != nil || len(js) != rounds {
		t.Errorf("jobs stored = %d, %v; want exactly %d (one per due time)", len(js), err, rounds)
	}
}

// testUpdateAfterClaim checks that UpdateSchedule refuses a schedule read
// before a run was claimed: a next run computed from the older last run
// could fall inside the plan's interval after the newer one.
func testUpdateAfterClaim(ctx context.Context, t *testing.T, s store.Store) {
	a := mustAccount(ctx, t, s, "update-claim@example.com")
	p := mustProject(ctx, t, s, a.ID, "update-claim.example.com", base)
	due := base.Add(time.Hour)
	sc := mustSchedule(ctx, t, s, a.ID, p.ID, store.ScheduleSite, due)
	stale, err := s.Schedule(ctx, a.ID, sc.ID)
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := s.ClaimSchedule(ctx, sc.ID, due, due.Add(24*time.Hour), nil); err != nil || !ok {
		t.Fatalf("ClaimSchedule = %v, %v", ok, err)
	}
	stale.NextRun = due.Add(2 * time.Minute)
	if err := s.UpdateSchedule(ctx, stale); !errors.Is(err, store.ErrConflict) {
		t.Errorf("UpdateSchedule of a schedule read before a claim: %v, want ErrConflict", err)
	}
	if g, err := s.Schedule(ctx, a.ID, sc.ID); err != nil || !g.NextRun.Equal(due.Add(24*time.Hour)) {
		t.Errorf("after the refused update: %+v, %v; want NextRun %v kept", g, err, due.Add(24*time.Hour))
	}
	fresh, err := s.Schedule(ctx, a.ID, sc.ID)
	if err != nil {
		t.Fatal(err)
	}
	fresh.NextRun = due.Add(25 * time.Hour)
	if err := s.UpdateSchedule(ctx, fresh); err != nil {
		t.Errorf("UpdateSchedule of a schedule read after the claim: %v", err)
	}
}
