package storetest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/seokit/seokit/httpapi/store"
)

// Caps checks that every capped creation holds its cap when many are
// attempted at once through several handles on one database, as several
// server instances do: open returns the handles (at least one; the same
// database behind each), and Caps closes them. Each cap is raced by
// capRacers creations spread over the handles; exactly the cap succeed,
// the others fail with store.ErrLimitReached, and the stored count is the
// cap. Its subtests run in parallel (open is called from them), as Run's.
func Caps(t *testing.T, open func(t *testing.T) []store.Store) {
	t.Helper()
	fresh := func(t *testing.T) ([]store.Store, context.Context) {
		t.Helper()
		parallel(t)
		ss := open(t)
		if len(ss) == 0 {
			t.Fatal("open returned no store")
		}
		t.Cleanup(func() {
			for _, s := range ss {
				s.Close()
			}
		})
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		t.Cleanup(cancel)
		return ss, ctx
	}
	t.Run("Projects", func(t *testing.T) { ss, ctx := fresh(t); testProjectCap(ctx, t, ss) })
	t.Run("Schedules", func(t *testing.T) { ss, ctx := fresh(t); testScheduleCap(ctx, t, ss) })
	t.Run("AlertRules", func(t *testing.T) { ss, ctx := fresh(t); testAlertRuleCap(ctx, t, ss) })
	t.Run("ActiveJobs", func(t *testing.T) { ss, ctx := fresh(t); testActiveJobCap(ctx, t, ss) })
	t.Run("HeldJobs", func(t *testing.T) { ss, ctx := fresh(t); testActivateJobCap(ctx, t, ss) })
	t.Run("Renders", func(t *testing.T) { ss, ctx := fresh(t); testRenderCap(ctx, t, ss) })
	t.Run("Screenshots", func(t *testing.T) {
		ss, ctx := fresh(t)
		for _, s := range ss {
			if _, ok := s.(store.Screenshots); !ok {
				t.Skip("the store does not implement store.Screenshots")
			}
		}
		testScreenshotCap(ctx, t, ss)
	})
}

// capRacers is how many creations race for each cap.
const capRacers = 16

// race runs capRacers calls of create at once, call i through store
// i%len(ss), and returns how many succeeded. Every failure must be a
// *store.LimitError with the given limit; anything else fails the test.
func race(t *testing.T, ss []store.Store, limit int, create func(s store.Store, i int) error) int {
	t.Helper()
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		ok    int
		start = make(chan struct{})
	)
	for i := range capRacers {
		wg.Go(func() {
			<-start
			err := create(ss[i%len(ss)], i)
			mu.Lock()
			defer mu.Unlock()
			var le *store.LimitError
			switch {
			case err == nil:
				ok++
			case !errors.Is(err, store.ErrLimitReached) || !errors.As(err, &le):
				t.Errorf("creation %d: %v; want nil or a *store.LimitError", i, err)
			case le.Limit != limit || le.Count < limit:
				t.Errorf("creation %d: %+v; want limit %d and a count at least that", i, le, limit)
			}
		})
	}
	close(start)
	wg.Wait()
	return ok
}

func testProjectCap(ctx context.Context, t *testing.T, ss []store.Store) {
	s := ss[0]
	a := mustAccount(ctx, t, s, "project-cap@example.com")
	b := mustAccount(ctx, t, s, "project-cap2@example.com")
	const limit = 3
	ok := race(t, ss, limit, func(s store.Store, i int) error {
		return s.CreateProjectWithin(ctx, &store.Project{AccountID: a.ID, Domain: fmt.Sprintf("p%d.example.com", i)}, limit)
	})
	ps, err := s.Projects(ctx, a.ID)
	if err != nil || ok != limit || len(ps) != limit {
		t.Fatalf("%d creations at once under a cap of %d: %d succeeded, %d stored (%v); want %d", capRacers, limit, ok, len(ps), err, limit)
	}
	// Another account's count is its own; a duplicate domain below the
	// cap is still a conflict; a missing account is not found.
	if err := s.CreateProjectWithin(ctx, &store.Project{AccountID: b.ID, Domain: "p0.example.com"}, 1); err != nil {
		t.Errorf("CreateProjectWithin for another account: %v", err)
	}
	if err := s.CreateProjectWithin(ctx, &store.Project{AccountID: a.ID, Domain: ps[0].Domain}, limit+1); !errors.Is(err, store.ErrConflict) {
		t.Errorf("CreateProjectWithin of a domain the account has: %v, want ErrConflict", err)
	}
	if err := s.CreateProjectWithin(ctx, &store.Project{AccountID: "acct_missing", Domain: "x.example.com"}, limit); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("CreateProjectWithin for a missing account: %v, want ErrNotFound", err)
	}
	// A cap lowered below the count refuses, and says how many there are.
	var le *store.LimitError
	if err := s.CreateProjectWithin(ctx, &store.Project{AccountID: a.ID, Domain: "more.example.com"}, 2); !errors.As(err, &le) || le.Count != limit || le.What != "projects" {
		t.Errorf("CreateProjectWithin over a lowered cap: %v, want a LimitError counting %d projects", err, limit)
	}
}

func testScheduleCap(ctx context.Context, t *testing.T, ss []store.Store) {
	s := ss[0]
	a := mustAccount(ctx, t, s, "schedule-cap@example.com")
	b := mustAccount(ctx, t, s, "schedule-cap2@example.com")
	p := mustProject(ctx, t, s, a.ID, "one.example.com", base)
	q := mustProject(ctx, t, s, a.ID, "two.example.com", base)
	pb := mustProject(ctx, t, s, b.ID, "one.example.com", base)
	const limit = 2
	next := base.Add(time.Hour)
	ok := race(t, ss, limit, func(s store.Store, i int) error {
		prj := p.ID
		if i%2 == 1 {
			prj = q.ID // the cap is the account's, over its projects
		}
		return s.CreateScheduleWithin(ctx, &store.Schedule{AccountID: a.ID, ProjectID: prj, Kind: store.ScheduleSite, Spec: "daily", NextRun: next}, limit)
	})
	n, err := s.CountSchedules(ctx, a.ID)
	if err != nil || ok != limit || n != limit {
		t.Fatalf("%d creations at once under a cap of %d: %d succeeded, %d stored (%v); want %d", capRacers, limit, ok, n, err, limit)
	}
	if err := s.CreateScheduleWithin(ctx, &store.Schedule{AccountID: a.ID, ProjectID: pb.ID, Kind: store.ScheduleSite, Spec: "daily", NextRun: next}, 100); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("CreateScheduleWithin on another account's project: %v, want ErrNotFound", err)
	}
	// The project's own cap, store.MaxSchedules, holds whatever the
	// account's.
	for range store.MaxSchedules {
		mustSchedule(ctx, t, s, b.ID, pb.ID, store.ScheduleSite, next)
	}
	var le *store.LimitError
	err = s.CreateScheduleWithin(ctx, &store.Schedule{AccountID: b.ID, ProjectID: pb.ID, Kind: store.ScheduleSite, Spec: "daily", NextRun: next}, 0)
	if !errors.As(err, &le) || le.Project != pb.ID || le.Limit != store.MaxSchedules {
		t.Errorf("CreateScheduleWithin past the project's cap: %v, want a LimitError of project %s", err, pb.ID)
	}
}

func testAlertRuleCap(ctx context.Context, t *testing.T, ss []store.Store) {
	s := ss[0]
	a := mustAccount(ctx, t, s, "rule-cap@example.com")
	b := mustAccount(ctx, t, s, "rule-cap2@example.com")
	p := mustProject(ctx, t, s, a.ID, "one.example.com", base)
	q := mustProject(ctx, t, s, a.ID, "two.example.com", base)
	pb := mustProject(ctx, t, s, b.ID, "one.example.com", base)
	const limit = 5
	rule := func(account, project string) *store.AlertRule {
		return &store.AlertRule{AccountID: account, ProjectID: project, Kind: "new_findings", Channel: "webhook", Target: "https://hooks.example.com/x"}
	}
	ok := race(t, ss, limit, func(s store.Store, i int) error {
		prj := p.ID
		if i%2 == 1 {
			prj = q.ID
		}
		return s.CreateAlertRuleWithin(ctx, rule(a.ID, prj), limit)
	})
	n, err := s.CountAlertRules(ctx, a.ID)
	if err != nil || ok != limit || n != limit {
		t.Fatalf("%d creations at once under a cap of %d: %d succeeded, %d stored (%v); want %d", capRacers, limit, ok, n, err, limit)
	}
	if err := s.CreateAlertRuleWithin(ctx, rule(a.ID, pb.ID), 100); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("CreateAlertRuleWithin on another account's project: %v, want ErrNotFound", err)
	}
	for range store.MaxAlertRules {
		if err := s.CreateAlertRule(ctx, rule(b.ID, pb.ID)); err != nil {
			t.Fatal(err)
		}
	}
	var le *store.LimitError
	if err := s.CreateAlertRuleWithin(ctx, rule(b.ID, pb.ID), 0); !errors.As(err, &le) || le.Project != pb.ID || le.Limit != store.MaxAlertRules {
		t.Errorf("CreateAlertRuleWithin past the project's cap: %v, want a LimitError of project %s", err, pb.ID)
	}
}

func testActiveJobCap(ctx context.Context, t *testing.T, ss []store.Store) {
	s := ss[0]
	a := mustAccount(ctx, t, s, "job-cap@example.com")
	const limit = 2
	// A finished job does not count.
	done := &store.Job{AccountID: a.ID, Kind: "site", Status: store.JobSucceeded}
	if err := s.CreateJob(ctx, done); err != nil {
		t.Fatal(err)
	}
	ok := race(t, ss, limit, func(s store.Store, i int) error {
		return s.CreateJobWithin(ctx, &store.Job{AccountID: a.ID, Kind: "site"}, limit)
	})
	n, err := s.ActiveJobs(ctx, a.ID)
	if err != nil || ok != limit || n != limit {
		t.Fatalf("%d creations at once under a cap of %d: %d succeeded, %d active stored (%v); want %d", capRacers, limit, ok, n, err, limit)
	}
	if err := s.CreateJobWithin(ctx, &store.Job{AccountID: a.ID, Kind: "site", ProjectID: "prj_missing"}, limit+1); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("CreateJobWithin with a missing project: %v, want ErrNotFound", err)
	}
}

func testActivateJobCap(ctx context.Context, t *testing.T, ss []store.Store) {
	s := ss[0]
	a := mustAccount(ctx, t, s, "held-cap@example.com")
	const (
		limit = 2
		held  = "waiting: "
	)
	// One job runs; capRacers wait. Each racer releases its own job.
	if err := s.CreateJob(ctx, &store.Job{AccountID: a.ID, Kind: "site", Status: store.JobRunning}); err != nil {
		t.Fatal(err)
	}
	jobs := make([]*store.Job, capRacers)
	for i := range jobs {
		jobs[i] = &store.Job{AccountID: a.ID, Kind: "site", Error: held + "the account runs its plan's analyses"}
		if err := s.CreateJob(ctx, jobs[i]); err != nil {
			t.Fatal(err)
		}
	}
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		released int
	)
	for i := range capRacers {
		wg.Go(func() {
			ok, err := ss[i%len(ss)].ActivateJob(ctx, a.ID, jobs[i].ID, held, limit, base)
			if err != nil {
				t.Errorf("ActivateJob %d: %v", i, err)
			}
			if ok {
				mu.Lock()
				released++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if released != limit-1 {
		t.Fatalf("%d held jobs released at once with 1 running under a cap of %d: %d released; want %d", capRacers, limit, released, limit-1)
	}
	// A released job is not released twice; without a cap every held
	// job is released; a held prefix is matched as written.
	for _, j := range jobs {
		cur, err := s.Job(ctx, a.ID, j.ID)
		if err != nil {
			t.Fatal(err)
		}
		if cur.Error == "" {
			if ok, err := s.ActivateJob(ctx, a.ID, j.ID, held, 0, base); err != nil || ok {
				t.Errorf("ActivateJob of a released job = %v, %v; want false", ok, err)
			}
			continue
		}
		if ok, err := s.ActivateJob(ctx, a.ID, j.ID, "wait%", 0, base); err != nil || ok {
			t.Errorf("ActivateJob with a prefix the job does not have = %v, %v; want false", ok, err)
		}
		if ok, err := s.ActivateJob(ctx, a.ID, j.ID, held, 0, base); err != nil || !ok {
			t.Errorf("ActivateJob without a cap = %v, %v; want true", ok, err)
		}
	}
}

func testRenderCap(ctx context.Context, t *testing.T, ss []store.Store) {
	s := ss[0]
	a := mustAccount(ctx, t, s, "render-cap@example.com")
	j := &store.Job{AccountID: a.ID, Kind: "site"}
	if err := s.CreateJob(ctx, j); err != nil {
		t.Fatal(err)
	}
	const limit = 5
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		taken []string
	)
	for i := range capRacers {
		wg.Go(func() {
			u := fmt.Sprintf("https://example.com/%d", i)
			ok, err := ss[i%len(ss)].TakeRender(ctx, j.ID, u, limit)
			if err != nil {
				t.Errorf("TakeRender(%s): %v", u, err)
			}
			if ok {
				mu.Lock()
				taken = append(taken, u)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(taken) != limit {
		t.Fatalf("%d pages rendered at once under a cap of %d: %d admitted; want %d", capRacers, limit, len(taken), limit)
	}
	// A page admitted before is admitted again (a resumed crawl renders
	// it again) and not counted twice; a new one is refused.
	for _, u := range taken {
		if ok, err := s.TakeRender(ctx, j.ID, u, limit); err != nil || !ok {
			t.Errorf("TakeRender(%s) again = %v, %v; want true", u, ok, err)
		}
	}
	if ok, err := s.TakeRender(ctx, j.ID, "https://example.com/new", limit); err != nil || ok {
		t.Errorf("TakeRender of a new page at the cap = %v, %v; want false", ok, err)
	}
	if ok, err := s.TakeRender(ctx, "job_missing", "https://example.com/", limit); ok || !errors.Is(err, store.ErrNotFound) {
		t.Errorf("TakeRender of a missing job = %v, %v; want ErrNotFound", ok, err)
	}
	// The count goes with the job.
	other := &store.Job{AccountID: a.ID, Kind: "site"}
	if err := s.CreateJob(ctx, other); err != nil {
		t.Fatal(err)
	}
	if ok, err := s.TakeRender(ctx, other.ID, taken[0], 1); err != nil || !ok {
		t.Errorf("TakeRender for another job = %v, %v; want true", ok, err)
	}
}

func testScreenshotCap(ctx context.Context, t *testing.T, ss []store.Store) {
	s := ss[0]
	a := mustAccount(ctx, t, s, "shot-cap@example.com")
	j := &store.Job{AccountID: a.ID, Kind: "site"}
	if err := s.CreateJob(ctx, j); err != nil {
		t.Fatal(err)
	}
	const limit = 3
	png := []byte("\x89PNG\r\n\x1a\nshot")
	ok := race(t, ss, limit, func(s store.Store, i int) error {
		return s.(store.Screenshots).PutScreenshotWithin(ctx, j.ID, fmt.Sprintf("https://example.com/%d", i), png, limit)
	})
	stored := 0
	for i := range capRacers {
		if _, err := s.(store.Screenshots).Screenshot(ctx, a.ID, j.ID, fmt.Sprintf("https://example.com/%d", i)); err == nil {
			stored++
		}
	}
	if ok != limit || stored != limit {
		t.Fatalf("%d screenshots at once under a cap of %d: %d accepted, %d stored; want %d", capRacers, limit, ok, stored, limit)
	}
	// Replacing a stored one at the cap is allowed.
	for i := range capRacers {
		u := fmt.Sprintf("https://example.com/%d", i)
		if _, err := s.(store.Screenshots).Screenshot(ctx, a.ID, j.ID, u); err == nil {
			if err := s.(store.Screenshots).PutScreenshotWithin(ctx, j.ID, u, []byte("\x89PNG again"), limit); err != nil {
				t.Errorf("replacing a stored screenshot at the cap: %v", err)
			}
			break
		}
	}
	if err := s.(store.Screenshots).PutScreenshotWithin(ctx, "job_missing", "https://example.com/", png, limit); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("PutScreenshotWithin for a missing job: %v, want ErrNotFound", err)
	}
}
