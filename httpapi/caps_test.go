package httpapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/httpapi/auth"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/render"
)

// TestRenderCapAcrossResume: the pages a site analysis renders and the
// screenshots it stores are counted with the job, so a run that resumes
// it (a fresh renderer and sink, their counters at zero, as after a
// kill -9) continues from the count and stops at the cap. A page rendered
// before the interruption may be rendered again and is not counted twice.
func TestRenderCapAcrossResume(t *testing.T) {
	a := newTestAPI(t, &Options{AllowPrivate: true})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	j := &store.Job{AccountID: a.acct.ID, Kind: "site"}
	if err := a.st.CreateJob(ctx, j); err != nil {
		t.Fatal(err)
	}
	const limit = 5
	f := &fakeRenderer{}
	page := func(i int) string { return fmt.Sprintf("https://example.com/%d", i) }
	run := func(pages ...int) (rendered, shots int) {
		t.Helper()
		jr := &jobRenderer{r: f, adm: a.srv.adm, max: limit, st: a.st, job: j.ID}
		sink := &jobScreenshots{st: a.st.(store.Screenshots), job: j.ID, max: limit}
		for _, i := range pages {
			_, err := jr.Render(ctx, &render.Request{URL: page(i)})
			switch {
			case err == nil:
				rendered++
			case errors.Is(err, render.ErrDeclined):
				continue
			default:
				t.Fatalf("Render(%s): %v", page(i), err)
			}
			switch err := sink.PutScreenshot(ctx, page(i), onePixelPNG); {
			case err == nil:
				shots++
			case !errors.Is(err, crawler.ErrScreenshotsFull):
				t.Fatalf("PutScreenshot(%s): %v", page(i), err)
			}
		}
		return rendered, shots
	}
	r1, s1 := run(1, 2, 3)
	// The resumed run renders page 3 again (it was in flight), then new
	// pages until the cap.
	r2, s2 := run(3, 4, 5, 6, 7, 8)
	renders, err := a.st.TakeRender(ctx, j.ID, page(99), limit)
	if err != nil {
		t.Fatal(err)
	}
	stored := 0
	for i := range 10 {
		if _, err := a.st.(store.Screenshots).Screenshot(ctx, a.acct.ID, j.ID, page(i)); err == nil {
			stored++
		}
	}
	t.Logf("renderPages cap %d: first run rendered %d, resumed run %d (page 3 again); distinct pages rendered %d; screenshots stored %d of cap %d",
		limit, r1, r2, r1+r2-1, stored, limit)
	if r1 != 3 || r2 != 3 || renders || stored != limit || s1+s2 != limit+1 || f.calls.Load() != 6 {
		t.Errorf("rendered %d then %d (renderer called %d times), a new page at the cap admitted %v, %d screenshots stored (%d writes); want 3, 3 (6), false, %d (%d)",
			r1, r2, f.calls.Load(), renders, stored, s1+s2, limit, limit+1)
	}
}

// TestSchedulePatchKeepsInterval: a Free schedule (one run a day) that
// ran at 13:38 and is then PATCHed to 13:40, paused and resumed, or has
// its project's time zone changed, runs next a day after 13:38, not two
// minutes later. Each step is checked on the stored next run and by
// running the scheduler on a fake clock.
func TestSchedulePatchKeepsInterval(t *testing.T) {
	start := time.Date(2026, 11, 23, 12, 30, 0, 0, time.UTC) // 13:30 in Paris
	e := newScheduleEnv(t, start, nil)
	p := e.project(e.acct.ID, "shop")
	sc := e.schedule(e.key, p.ID, `{"kind":"site","spec":"daily@13:38"}`)
	path := "/v1/projects/" + p.ID + "/schedules/" + sc.ID
	ran := time.Date(2026, 11, 23, 13, 38, 0, 0, e.paris)
	e.clk.Add(ran.Sub(start) + 30*time.Second)
	e.srv.RunDueSchedules(context.Background())
	if js := e.finish(); len(js) != 1 {
		t.Fatalf("first due time: %d runs, want 1", len(js))
	}
	newYork, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Skipf("time zone America/New_York not available: %v", err)
	}
	for _, step := range []struct {
		name, path, body string
		want             time.Time // zero: paused
	}{
		// The first 13:40 a day after 13:38.
		{"spec moved two minutes later", path, `{"spec":"daily@13:40"}`, time.Date(2026, 11, 24, 13, 40, 0, 0, e.paris)},
		// Tuesday 09:00 is 19h22m after the last run: Wednesday's.
		{"spec moved earlier in the day", path, `{"spec":"daily@09:00"}`, time.Date(2026, 11, 25, 9, 0, 0, 0, e.paris)},
		{"paused", path, `{"paused":true}`, time.Time{}},
		{"resumed", path, `{"paused":false}`, time.Date(2026, 11, 25, 9, 0, 0, 0, e.paris)},
		// 09:00 in New York is 15:00 in Paris: Monday's is 1h22m after
		// the last run, Tuesday's the first a day after it.
		{"time zone changed", "/v1/projects/" + p.ID, `{"timeZone":"America/New_York"}`, time.Date(2026, 11, 24, 9, 0, 0, 0, newYork)},
	} {
		resp := e.call("PATCH", step.path, e.key, step.body)
		wantStatus(t, resp, http.StatusOK)
		resp.Body.Close()
		if step.want.IsZero() {
			continue
		}
		cur := e.stored(e.acct.ID, sc.ID)
		t.Logf("%s: last run %s, next run %s (%v later)", step.name, cur.LastRun.In(e.paris).Format("Mon Jan 2 15:04 MST"),
			cur.NextRun.In(e.paris).Format("Mon Jan 2 15:04 MST"), cur.NextRun.Sub(cur.LastRun))
		if !cur.NextRun.Equal(step.want) {
			t.Errorf("%s: next run %v, want %v", step.name, cur.NextRun.In(e.paris), step.want.In(e.paris))
		}
	}
	// Nothing runs in the rest of the day; the next day's run does.
	e.clk.Add(20 * time.Hour)
	e.srv.RunDueSchedules(context.Background())
	if js := e.finish(); len(js) != 0 {
		t.Fatalf("%d runs within a day of the last, want none", len(js))
	}
	e.clk.Add(6 * time.Hour)
	e.srv.RunDueSchedules(context.Background())
	if js := e.finish(); len(js) != 1 {
		t.Fatalf("%d runs a day later, want 1", len(js))
	}
}

// TestScheduleEarlyRowMoved: a next run stored too soon after the last
// (by a server without the interval rule) is moved, not run.
func TestScheduleEarlyRowMoved(t *testing.T) {
	start := time.Date(2026, 11, 23, 12, 30, 0, 0, time.UTC) // 13:30 in Paris
	e := newScheduleEnv(t, start, nil)
	p := e.project(e.acct.ID, "shop")
	sc := e.schedule(e.key, p.ID, `{"kind":"site","spec":"daily@13:38"}`)
	e.clk.Add(9 * time.Minute)
	e.srv.RunDueSchedules(context.Background())
	if js := e.finish(); len(js) != 1 {
		t.Fatalf("first due time: %d runs, want 1", len(js))
	}
	cur := e.stored(e.acct.ID, sc.ID)
	cur.Spec, cur.NextRun = "daily@13:40", cur.LastRun.Add(2*time.Minute)
	if err := e.st.UpdateSchedule(context.Background(), cur); err != nil {
		t.Fatal(err)
	}
	e.clk.Add(5 * time.Minute)
	e.srv.RunDueSchedules(context.Background())
	if js := e.finish(); len(js) != 0 {
		t.Fatalf("an early stored run ran %d times, want 0", len(js))
	}
	got := e.stored(e.acct.ID, sc.ID)
	if want := cur.LastRun.Add(24*time.Hour + 2*time.Minute); !got.NextRun.Equal(want) {
		t.Errorf("early run moved to %v, want %v", got.NextRun, want)
	}
}

// TestScheduleIntervalAcrossDST: the interval rule counts wall-clock time,
// as the plan's check of a spec does, so schedules run at each of their
// times across both daylight-saving changes: daily runs 23 and 25 hours
// apart, 23h30 from 02:30 to the skipped 02:30 run at 03:00 and 23h30
// from it to the next 02:30, once on the day 02:30 shows twice; an hourly
// Pro schedule 30 minutes apart around the skipped 02:30.
func TestScheduleIntervalAcrossDST(t *testing.T) {
	for _, tc := range []struct {
		name, spec string
		plan       store.Plan
		start      time.Time // UTC
		ticks      int       // of 15 minutes
		want       int
	}{
		{"spring forward", "daily@06:00", store.Free, time.Date(2026, 3, 27, 12, 0, 0, 0, time.UTC), 4 * 96, 4},
		{"spring forward, skipped time", "daily@02:30", store.Free, time.Date(2026, 3, 27, 12, 0, 0, 0, time.UTC), 4 * 96, 4},
		{"fall back", "daily@06:00", store.Free, time.Date(2026, 10, 23, 12, 0, 0, 0, time.UTC), 4 * 96, 4},
		{"fall back, repeated time", "daily@02:30", store.Free, time.Date(2026, 10, 23, 12, 0, 0, 0, time.UTC), 4 * 96, 4},
		// March 29 in Paris, 00:00 to 24:00 (23 hours): 24 runs, the
		// 02:30 one at 03:00.
		{"spring forward, hourly", "30 * * * *", store.Pro, time.Date(2026, 3, 28, 23, 0, 0, 0, time.UTC), 23 * 4, 24},
		// October 25 in Paris (25 hours): 24 runs, 02:30 once.
		{"fall back, hourly", "30 * * * *", store.Pro, time.Date(2026, 10, 24, 22, 0, 0, 0, time.UTC), 25 * 4, 24},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newScheduleEnv(t, tc.start, nil)
			acct, key := e.account("dst@example.com", tc.plan, auth.ScopeRead, auth.ScopeWrite)
			p := e.project(acct.ID, "shop")
			e.schedule(key, p.ID, `{"kind":"site","spec":"`+tc.spec+`"}`)
			runs := 0
			for range tc.ticks {
				e.clk.Add(15 * time.Minute)
				e.srv.RunDueSchedules(context.Background())
				runs += len(e.finish())
			}
			if runs != tc.want {
				t.Errorf("%d runs, want %d", runs, tc.want)
			}
		})
	}
}
