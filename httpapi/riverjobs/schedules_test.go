package riverjobs_test

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/seokit/seokit/httpapi"
	"github.com/seokit/seokit/httpapi/auth"
	"github.com/seokit/seokit/httpapi/riverjobs"
	"github.com/seokit/seokit/httpapi/store"
)

// fakeClock is a time source the test moves, shared by the instances.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Set(t time.Time) {
	c.mu.Lock()
	c.t = t
	c.mu.Unlock()
}

// TestScheduleThreeInstances runs a daily schedule on three API instances
// sharing PostgreSQL and the River queue, on one fake clock: at every due
// time the three tick at once, and exactly one site analysis is created
// for it, and run.
func TestScheduleThreeInstances(t *testing.T) {
	t.Parallel() // a database of its own; it waits on events and deadlines, not on time
	dsn := migrated.DSN(t)
	site := newSlowSite(t, 3, 0)
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Skipf("time zone Europe/Paris not available: %v", err)
	}
	start := time.Date(2026, 3, 27, 12, 0, 0, 0, paris) // the week-end clocks change
	clk := &fakeClock{t: start}
	var ins [3]*instance
	for i := range ins {
		ins[i] = startInstance(t, dsn, &riverjobs.Options{Workers: 1}, &httpapi.Options{Now: clk.Now, ScheduleInterval: -1})
	}
	ctx := context.Background()
	acct, key := scheduleAccount(t, ins[0].st)
	p := &store.Project{AccountID: acct, Name: "slow site", Domain: site.domain(t), TimeZone: "Europe/Paris", CreatedAt: start}
	if err := ins[0].st.CreateProject(ctx, p); err != nil {
		t.Fatal(err)
	}
	var sc httpapi.Schedule
	if code := call(t, "POST", ins[1].url, "/v1/projects/"+p.ID+"/schedules", key, `{"kind":"site","spec":"daily@02:30"}`, &sc); code != http.StatusCreated {
		t.Fatalf("POST schedule answered %d", code)
	}

	// Due times: Saturday 02:30, Sunday 03:00 (02:30 does not exist that
	// day in Paris), Monday 02:30.
	dues := []time.Time{
		time.Date(2026, 3, 28, 2, 30, 0, 0, paris),
		time.Date(2026, 3, 29, 3, 0, 0, 0, paris),
		time.Date(2026, 3, 30, 2, 30, 0, 0, paris),
	}
	var jobIDs []string
	for i, due := range dues {
		for _, at := range []time.Time{due.Add(-time.Minute), due, due.Add(time.Minute)} {
			clk.Set(at)
			var wg sync.WaitGroup
			for _, in := range ins {
				wg.Go(func() { in.srv.RunDueSchedules(ctx) })
			}
			wg.Wait()
		}
		js, err := ins[2].st.ProjectJobs(ctx, acct, p.ID, 100)
		if err != nil {
			t.Fatal(err)
		}
		if len(js) != i+1 {
			t.Fatalf("after due time %v: %d jobs, want %d", due, len(js), i+1)
		}
		id := js[0].ID
		jobIDs = append(jobIDs, id)
		got := waitJob(t, ins[i%3].url, key, id, 60*time.Second, func(j httpapi.Job) bool { return j.Status != "queued" && j.Status != "running" })
		if got.Status != "succeeded" {
			t.Fatalf("scheduled job %s: %s (%s)", id, got.Status, got.Error)
		}
		if r := waitRiverState(t, ins[0].pool, id, "completed"); r.state != "completed" || r.attempt != 1 {
			t.Errorf("river job of %s: %+v, want completed at the first attempt", id, r)
		}
		cur, err := ins[0].st.Schedule(ctx, acct, sc.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !cur.LastRun.Equal(due) || cur.LastJobID != id {
			t.Errorf("schedule after due time %v: lastRun %v, lastJob %s (want %s)", due, cur.LastRun, cur.LastJobID, id)
		}
	}
	var n int
	if err := ins[0].pool.QueryRow(ctx, `SELECT count(*) FROM river_job WHERE kind = $1`, riverjobs.KindSiteAnalysis).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != len(dues) {
		t.Errorf("%d river jobs for %d due times, want one each", n, len(dues))
	}
	t.Logf("three instances, %d due times: jobs %v", len(dues), jobIDs)
}

// scheduleAccount creates a Free account with a read-write key in the
// shared store.
func scheduleAccount(t *testing.T, st store.Store) (id, key string) {
	t.Helper()
	ctx := context.Background()
	a, err := auth.New(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	acct, err := a.CreateAccount(ctx, "schedules@example.com", "schedules", "", store.Free)
	if err != nil {
		t.Fatal(err)
	}
	key, _, err = a.CreateAPIKey(ctx, acct.ID, "test", []string{auth.ScopeRead, auth.ScopeWrite}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	return acct.ID, key
}
