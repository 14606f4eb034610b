package httpapi

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/seokit/seokit/httpapi/auth"
	"github.com/seokit/seokit/httpapi/plans"
	"github.com/seokit/seokit/httpapi/ratelimit"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/httpapi/store/sqlstore"
	"github.com/seokit/seokit/monitor"
	"github.com/seokit/seokit/rankings"
	rsql "github.com/seokit/seokit/rankings/sqlstore"
)

// recordQueue is a Queue that runs nothing: it records the jobs handed to
// it, which the test then finishes itself.
type recordQueue struct {
	mu   sync.Mutex
	jobs []store.Job
}

func (q *recordQueue) Start(context.Context, RunFunc) error { return nil }
func (q *recordQueue) Stop(context.Context) error           { return nil }
func (q *recordQueue) Enqueue(_ context.Context, j *store.Job) error {
	q.mu.Lock()
	q.jobs = append(q.jobs, *j)
	q.mu.Unlock()
	return nil
}

// take returns and forgets the jobs queued so far.
func (q *recordQueue) take() []store.Job {
	q.mu.Lock()
	defer q.mu.Unlock()
	js := q.jobs
	q.jobs = nil
	return js
}

// runRankChecks runs the rank checks queued so far, one at a time,
// through the server's RunFunc (the executor), and returns how many ran
// and the other jobs queued.
func (e *scheduleEnv) runRankChecks(t *testing.T) (ran int, others []store.Job) {
	t.Helper()
	for _, j := range e.q.take() {
		if KindOf(j.ID) != JobRankCheck {
			others = append(others, j)
			continue
		}
		if err := e.srv.execute(context.Background(), j.AccountID, j.ID); err != nil {
			t.Fatalf("rank check %s: %v", j.ID, err)
		}
		ran++
	}
	return ran, others
}

// scheduleEnv is a server on a fake clock whose queue runs nothing, and a
// local site for its projects.
type scheduleEnv struct {
	*testAPI
	clk      *clock
	q        *recordQueue
	site     string // host:port of a local site
	paris    *time.Location
	projects int
}

func newScheduleEnv(t *testing.T, start time.Time, o *Options) *scheduleEnv {
	t.Helper()
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Skipf("time zone Europe/Paris not available: %v", err)
	}
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("<html><title>t</title></html>"))
	}))
	t.Cleanup(site.Close)
	u, _ := url.Parse(site.URL)
	e := &scheduleEnv{clk: &clock{t: start}, q: &recordQueue{}, site: u.Host, paris: paris}
	var opts Options
	if o != nil {
		opts = *o
	}
	opts.Now, opts.Queue, opts.AllowPrivate, opts.ScheduleInterval = e.clk.Now, e.q, true, -1
	e.testAPI = newTestAPI(t, &opts)
	return e
}

// project stores a project of the account in Europe/Paris. Each project
// of the test gets its own loopback address of the local site's port.
func (e *scheduleEnv) project(accountID, name string, keywords ...string) *store.Project {
	e.t.Helper()
	e.projects++
	_, port, _ := strings.Cut(e.site, ":")
	domain := "127.0.0." + strconv.Itoa(e.projects) + ":" + port
	p := &store.Project{AccountID: accountID, Name: name, Domain: domain, TimeZone: "Europe/Paris", Keywords: keywords, CreatedAt: e.clk.Now()}
	if err := e.st.CreateProject(context.Background(), p); err != nil {
		e.t.Fatal(err)
	}
	return p
}

// schedule creates a schedule through the API.
func (e *scheduleEnv) schedule(key, projectID, body string) Schedule {
	e.t.Helper()
	resp := e.call("POST", "/v1/projects/"+projectID+"/schedules", key, body)
	wantStatus(e.t, resp, http.StatusCreated)
	var v Schedule
	readJSON(e.t, resp, &v)
	return v
}

// finish marks the queued jobs succeeded and returns them.
func (e *scheduleEnv) finish() []store.Job {
	e.t.Helper()
	js := e.q.take()
	for i := range js {
		j := js[i]
		j.Status, j.FinishedAt = store.JobSucceeded, e.clk.Now()
		if err := e.st.UpdateJob(context.Background(), &j); err != nil {
			e.t.Fatal(err)
		}
	}
	return js
}

func (e *scheduleEnv) stored(accountID, id string) *store.Schedule {
	e.t.Helper()
	sc, err := e.st.Schedule(context.Background(), accountID, id)
	if err != nil {
		e.t.Fatal(err)
	}
	return sc
}

// TestScheduleWeek runs daily, weekly and cron schedules over a simulated
// week on a fake clock, ticking twice every 15 minutes: each runs exactly
// once per due time, at the wall-clock times of the project's zone.
func TestScheduleWeek(t *testing.T) {
	paris, _ := time.LoadLocation("Europe/Paris")
	if paris == nil {
		t.Skip("time zone Europe/Paris not available")
	}
	start := time.Date(2026, 11, 23, 0, 0, 0, 0, paris) // a Monday
	// Every request written to the store as it is counted (no leases):
	// the week's usage is compared day by day with the runs.
	st, err := sqlstore.Open(context.Background(), ":memory:", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	e := newScheduleEnv(t, start, &Options{Store: st, Limiter: ratelimit.NewLocalWith(st, &ratelimit.LocalOptions{MaxLease: 1})})
	acct, key := e.account("pro@example.com", store.Pro, auth.ScopeRead, auth.ScopeWrite)
	specs := []string{"daily@06:00", "weekly@wed 09:30", "0 */6 * * *"}
	var scheds []Schedule
	for _, spec := range specs {
		p := e.project(acct.ID, "site "+spec)
		scheds = append(scheds, e.schedule(key, p.ID, `{"kind":"site","spec":"`+spec+`"}`))
	}
	want := map[string][]time.Time{}
	for d := range 7 {
		day := start.AddDate(0, 0, d)
		want[scheds[0].ID] = append(want[scheds[0].ID], day.Add(6*time.Hour))
		if day.Weekday() == time.Wednesday {
			want[scheds[1].ID] = append(want[scheds[1].ID], day.Add(9*time.Hour+30*time.Minute))
		}
		for h := 0; h < 24; h += 6 {
			if d > 0 || h > 0 {
				want[scheds[2].ID] = append(want[scheds[2].ID], day.Add(time.Duration(h)*time.Hour))
			}
		}
	}
	want[scheds[2].ID] = append(want[scheds[2].ID], start.AddDate(0, 0, 7))

	got := map[string][]time.Time{}
	jobs := 0
	end := start.AddDate(0, 0, 7)
	for e.clk.Now().Before(end) {
		e.clk.Add(15 * time.Minute)
		e.srv.RunDueSchedules(context.Background())
		e.srv.RunDueSchedules(context.Background()) // a second tick finds nothing due
		for _, j := range e.finish() {
			jobs++
			if j.ProjectID == "" || j.Kind != "site" || j.AccountID != acct.ID {
				t.Errorf("scheduled job %+v", j)
			}
			for _, sc := range scheds {
				cur := e.stored(acct.ID, sc.ID)
				if cur.LastJobID == j.ID {
					got[sc.ID] = append(got[sc.ID], cur.LastRun.In(paris))
				}
			}
		}
	}
	for i, sc := range scheds {
		if len(got[sc.ID]) != len(want[sc.ID]) {
			t.Errorf("%s: %d runs, want %d: %v", specs[i], len(got[sc.ID]), len(want[sc.ID]), got[sc.ID])
			continue
		}
		for k := range want[sc.ID] {
			if !got[sc.ID][k].Equal(want[sc.ID][k]) {
				t.Errorf("%s run %d due %v, want %v", specs[i], k, got[sc.ID][k], want[sc.ID][k])
			}
		}
	}
	if n := len(want[scheds[0].ID]) + len(want[scheds[1].ID]) + len(want[scheds[2].ID]); jobs != n {
		t.Errorf("%d jobs queued, want %d", jobs, n)
	}
	// The quota counted each run.
	// Through the limiter, which leaves out the requests it holds
	// reserved and unspent.
	us, _ := e.srv.limiter.Usage(context.Background(), acct.ID, start.AddDate(0, 0, -1), end)
	total := 0
	for _, u := range us {
		total += u.Count
	}
	if total != jobs+len(specs) { // the runs and the three POSTs
		t.Errorf("usage %d, want %d", total, jobs+len(specs))
	}
}

// TestScheduleCatchUp: after downtime a schedule runs once, for the latest
// due time missed.
func TestScheduleCatchUp(t *testing.T) {
	start := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	e := newScheduleEnv(t, start, nil)
	p := e.project(e.acct.ID, "shop")
	sc := e.schedule(e.key, p.ID, `{"kind":"site","spec":"daily@06:00"}`)
	if sc.NextRun == nil || !sc.NextRun.Equal(time.Date(2026, 11, 24, 6, 0, 0, 0, e.paris)) || sc.NextRun.Format(time.RFC3339) != "2026-11-24T05:00:00Z" || sc.TimeZone != "Europe/Paris" {
		// 06:00 in Paris, written in UTC like every time of the API; the zone is its own field.
		t.Fatalf("nextRun %v in %q, want 2026-11-24T05:00:00Z in Europe/Paris", sc.NextRun, sc.TimeZone)
	}
	e.clk.Add(3*24*time.Hour + 2*time.Hour) // down from Monday noon to Thursday 14:00 UTC
	e.srv.RunDueSchedules(context.Background())
	e.srv.RunDueSchedules(context.Background())
	js := e.finish()
	cur := e.stored(e.acct.ID, sc.ID)
	if len(js) != 1 || cur.LastJobID != js[0].ID {
		t.Fatalf("after downtime: %d jobs, want 1", len(js))
	}
	if want := time.Date(2026, 11, 26, 6, 0, 0, 0, e.paris); !cur.LastRun.Equal(want) || !cur.NextRun.Equal(want.AddDate(0, 0, 1)) {
		t.Errorf("lastRun %v nextRun %v; want the latest missed (%v) and the next", cur.LastRun, cur.NextRun, want)
	}
}

// TestSchedulePause: a paused schedule does not run; resumed, it runs next
// at its next due time from now, without a catch-up run.
func TestSchedulePause(t *testing.T) {
	start := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	e := newScheduleEnv(t, start, nil)
	p := e.project(e.acct.ID, "shop")
	sc := e.schedule(e.key, p.ID, `{"kind":"site","spec":"daily@06:00"}`)
	path := "/v1/projects/" + p.ID + "/schedules/" + sc.ID
	resp := e.call("PATCH", path, e.key, `{"paused":true}`)
	wantStatus(t, resp, http.StatusOK)
	var v Schedule
	readJSON(t, resp, &v)
	if !v.Paused || v.NextRun != nil {
		t.Fatalf("paused view %+v, want paused with nextRun null", v)
	}
	e.clk.Add(48 * time.Hour)
	e.srv.RunDueSchedules(context.Background())
	if js := e.finish(); len(js) != 0 {
		t.Fatalf("a paused schedule ran %d times", len(js))
	}
	resp = e.call("PATCH", path, e.key, `{"paused":false}`)
	wantStatus(t, resp, http.StatusOK)
	readJSON(t, resp, &v)
	if v.Paused || v.NextRun == nil || !v.NextRun.Equal(time.Date(2026, 11, 26, 6, 0, 0, 0, e.paris)) {
		t.Fatalf("resumed view %+v, want nextRun 2026-11-26T06:00+01:00", v)
	}
	e.srv.RunDueSchedules(context.Background())
	if js := e.finish(); len(js) != 0 {
		t.Fatalf("a resumed schedule caught up %d runs", len(js))
	}
	e.clk.Add(24 * time.Hour)
	e.srv.RunDueSchedules(context.Background())
	if js := e.finish(); len(js) != 1 {
		t.Fatalf("resumed schedule: %d runs at its due time, want 1", len(js))
	}
}

// TestScheduleQuotaRefusal: a run refused by the daily quota is skipped
// and recorded (a failed job saying why), not retried; the next due time
// runs again.
func TestScheduleQuotaRefusal(t *testing.T) {
	start := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	e := newScheduleEnv(t, start, &Options{Limits: map[store.Plan]int{store.Free: 2}})
	p := e.project(e.acct.ID, "shop")
	sc := e.schedule(e.key, p.ID, `{"kind":"site","spec":"daily@06:00"}`)
	e.clk.Add(18 * time.Hour) // Tuesday 06:00 UTC, after the run due at 05:00 UTC
	wantStatus(t, e.call("GET", "/v1/projects/"+p.ID+"/schedules", e.key, ""), http.StatusOK)
	wantStatus(t, e.call("GET", "/v1/projects/"+p.ID+"/schedules", e.key, ""), http.StatusOK)
	for range 3 {
		e.srv.RunDueSchedules(context.Background())
	}
	if js := e.q.take(); len(js) != 0 {
		t.Fatalf("%d jobs queued over the quota", len(js))
	}
	cur := e.stored(e.acct.ID, sc.ID)
	if !strings.HasPrefix(cur.LastError, "skipped: daily request limit of 2 reached") || cur.LastJobID == "" {
		t.Fatalf("schedule after a refused run: %+v", cur)
	}
	j, err := e.st.Job(context.Background(), e.acct.ID, cur.LastJobID)
	if err != nil || j.Status != store.JobFailed || !strings.HasPrefix(j.Error, "skipped: daily request limit") {
		t.Fatalf("refused run's job: %+v, %v", j, err)
	}
	resp := e.call("GET", "/v1/projects/"+p.ID+"/schedules", e.key, "")
	if resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("the quota is not spent: %d", resp.StatusCode)
	}
	e.clk.Add(24 * time.Hour) // a new UTC day: the next run goes
	e.srv.RunDueSchedules(context.Background())
	if js := e.finish(); len(js) != 1 {
		t.Fatalf("next day: %d runs, want 1", len(js))
	}
	if cur := e.stored(e.acct.ID, sc.ID); cur.LastError != "" {
		t.Errorf("lastError after a run: %q", cur.LastError)
	}
}

// TestScheduleOverlap: a run due while the project's previous analysis is
// still going is skipped and recorded.
func TestScheduleOverlap(t *testing.T) {
	start := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	e := newScheduleEnv(t, start, nil)
	p := e.project(e.acct.ID, "shop")
	sc := e.schedule(e.key, p.ID, `{"kind":"site","spec":"daily@06:00"}`)
	e.clk.Add(24 * time.Hour)
	e.srv.RunDueSchedules(context.Background())
	first := e.q.take() // left queued
	if len(first) != 1 {
		t.Fatalf("%d runs, want 1", len(first))
	}
	e.clk.Add(24 * time.Hour)
	e.srv.RunDueSchedules(context.Background())
	if js := e.q.take(); len(js) != 0 {
		t.Fatalf("a run overlapping the previous one was queued")
	}
	cur := e.stored(e.acct.ID, sc.ID)
	if !strings.Contains(cur.LastError, "previous analysis of the project ("+first[0].ID+") is still queued") {
		t.Errorf("lastError %q", cur.LastError)
	}
	var v ScheduleList
	resp := e.call("GET", "/v1/projects/"+p.ID+"/schedules", e.key, "")
	wantStatus(t, resp, http.StatusOK)
	readJSON(t, resp, &v)
	if len(v.Schedules) != 1 || v.Schedules[0].LastError != cur.LastError || v.Schedules[0].LastRun == nil || v.Schedules[0].LastJobID != cur.LastJobID {
		t.Errorf("list %+v", v)
	}
}

// TestScheduleRankings: a rankings schedule checks the project's keywords
// with the Tracker, which records their positions.
func TestScheduleRankings(t *testing.T) {
	rs, err := rsql.Open(context.Background(), ":memory:", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rs.Close() })
	start := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	e := newScheduleEnv(t, start, &Options{Tracker: rankings.NewTracker(fixedSource{}, rs, nil)})
	p := e.project(e.acct.ID, "shop", "oak tables")
	p.Domain = "example.com"
	if err := e.st.UpdateProject(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	e.schedule(e.key, p.ID, `{"kind":"rankings","spec":"daily@06:00"}`)
	e.clk.Add(24 * time.Hour)
	e.srv.RunDueSchedules(context.Background())
	h, err := rs.History(context.Background(), rankings.Filter{Domain: "example.com", Keywords: []string{"oak tables"}})
	if err != nil || len(h) != 0 {
		t.Fatalf("rank history before the queued rank check ran: %+v (%v), want none: the tick only queues it", h, err)
	}
	ran, others := e.runRankChecks(t)
	if ran != 1 || len(others) != 0 {
		t.Fatalf("the tick queued %d rank checks and %d other jobs, want one rank check", ran, len(others))
	}
	h, err = rs.History(context.Background(), rankings.Filter{Domain: "example.com", Keywords: []string{"oak tables"}})
	if err != nil || len(h) != 1 || h[0].Position == nil || *h[0].Position != 2 {
		t.Fatalf("rank history %+v (%v), want position 2 recorded", h, err)
	}
	// A tick at the same time finds nothing due: the run was claimed.
	e.srv.RunDueSchedules(context.Background())
	if ran, _ := e.runRankChecks(t); ran != 0 {
		t.Errorf("a second tick queued %d rank checks for the same due time", ran)
	}

	// Without keywords, the run is skipped and says why.
	q := e.project(e.acct.ID, "blog")
	sc := e.schedule(e.key, q.ID, `{"kind":"rankings","spec":"daily@06:00"}`)
	e.clk.Add(24 * time.Hour)
	e.srv.RunDueSchedules(context.Background())
	if cur := e.stored(e.acct.ID, sc.ID); cur.LastError != "skipped: the project tracks no keywords" {
		t.Errorf("lastError %q", cur.LastError)
	}
}

// TestScheduleRankingsChargeSearches: a scheduled rank check costs what
// the same searches cost through the API (TestRankingsChargeSearches):
// one unit of the daily quota per keyword searched live, the run's own
// unit being the first; a check whose searches the day cannot pay
// searches nothing and says why on the schedule. A run searched up to
// 1,000 keywords at the server's SERP provider (paid per search) for the
// one unit of its claim.
func TestScheduleRankingsChargeSearches(t *testing.T) {
	rs, err := rsql.Open(context.Background(), ":memory:", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rs.Close() })
	src := &countingSource{}
	start := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	e := newScheduleEnv(t, start, &Options{Tracker: rankings.NewTracker(src, rs, nil), Limits: map[store.Plan]int{store.Free: 100}})
	used := func(accountID string) int {
		t.Helper()
		day := e.clk.Now().UTC().Truncate(24 * time.Hour)
		u, err := e.st.Usage(context.Background(), accountID, day, day)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, d := range u {
			n += d.Count
		}
		return n
	}
	project := func(accountID, domain string, n int) *store.Project {
		t.Helper()
		kws := make([]string, n)
		for i := range kws {
			kws[i] = domain + " keyword " + strconv.Itoa(i)
		}
		p := e.project(accountID, domain, kws...)
		p.Domain = domain
		if err := e.st.UpdateProject(context.Background(), p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	p := project(e.acct.ID, "example.com", 40)
	e.schedule(e.key, p.ID, `{"kind":"rankings","spec":"daily@06:00"}`)
	// B's day has 100 - 1 (the schedule's creation) - 50 units left, fewer
	// than its check of 70 keywords costs.
	bAcct, bKey := e.account("b@example.com", store.Free, auth.ScopeRead, auth.ScopeWrite)
	q := project(bAcct.ID, "example.org", 70)
	sc := e.schedule(bKey, q.ID, `{"kind":"rankings","spec":"daily@06:00"}`)
	e.clk.Add(24 * time.Hour)
	for range 50 {
		wantStatus(t, e.call("GET", "/v1/projects", bKey, ""), http.StatusOK)
	}
	before, bBefore := used(e.acct.ID), used(bAcct.ID)
	e.srv.RunDueSchedules(context.Background())
	if ran, _ := e.runRankChecks(t); ran != 2 {
		t.Fatalf("%d rank checks ran, want 2", ran)
	}
	if n, u := src.n.Load(), used(e.acct.ID)-before; n != 40 || u != 40 {
		t.Errorf("a scheduled check of 40 keywords: %d searches, %d units charged; want 40 and 40 (the check of 70 searching none)", n, u)
	}
	if u := used(bAcct.ID) - bBefore; u != 1 {
		t.Errorf("a check the quota could not pay charged %d units; want 1 (the run)", u)
	}
	if cur := e.stored(bAcct.ID, sc.ID); !strings.Contains(cur.LastError, "70") || !strings.Contains(cur.LastError, "daily limit") {
		t.Errorf("lastError %q, want the refusal of the 70 searches by the daily limit", cur.LastError)
	}
	// The schedule is the project's keywords' re-check, charged: they do
	// not join the server's uncharged daily re-check of tracked keywords.
	if ts, err := rs.Tracked(context.Background(), rankings.Filter{}); err != nil || len(ts) != 0 {
		t.Errorf("scheduled checks tracked %d keywords (%v), want none", len(ts), err)
	}
}

func TestScheduleAPI(t *testing.T) {
	start := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	e := newScheduleEnv(t, start, nil)
	p := e.project(e.acct.ID, "shop")
	base := "/v1/projects/" + p.ID + "/schedules"
	for _, tt := range []struct{ body, field string }{
		{`{"kind":"crawl","spec":"daily"}`, "kind"},
		{`{"kind":"site"}`, "spec"},
		{`{"kind":"site","spec":"daily@25:00"}`, "spec"},
		{`{"kind":"site","spec":"0 0 30 2 *"}`, "spec"},
		{`{"kind":"site","spec":"hourly"}`, "spec"}, // Free: daily at most
		{`{"kind":"site","spec":"0 0,12 * * *"}`, "spec"},
		{`{"kind":"site","spec":"daily","extra":1}`, "extra"},
	} {
		ae := apiErr(t, e.call("POST", base, e.key, tt.body), http.StatusBadRequest, CodeInvalidRequest)
		if ae.Field != tt.field {
			t.Errorf("%s: field %q, want %q (%s)", tt.body, ae.Field, tt.field, ae.Message)
		}
	}
	ae := apiErr(t, e.call("POST", base, e.key, `{"kind":"site","spec":"hourly"}`), http.StatusBadRequest, CodeInvalidRequest)
	if !strings.Contains(ae.Message, "plan allows one run every 24h at most") {
		t.Errorf("plan refusal message %q", ae.Message)
	}

	sc := e.schedule(e.key, p.ID, `{"kind":"site","spec":"weekly@mon 06:00"}`)
	if sc.Kind != "site" || sc.Spec != "weekly@mon 06:00" || sc.Cron != "0 6 * * 1" || sc.TimeZone != "Europe/Paris" || sc.LastRun != nil || sc.Paused {
		t.Errorf("created %+v", sc)
	}
	e.clk.Add(time.Second)
	e.schedule(e.key, p.ID, `{"kind":"rankings","spec":"daily","paused":true}`)
	// Free: two schedules.
	apiErr(t, e.call("POST", base, e.key, `{"kind":"site","spec":"daily"}`), http.StatusConflict, CodeConflict)

	// Another account sees none of it.
	_, other := e.account("b@example.com", store.Free, auth.ScopeRead, auth.ScopeWrite)
	apiErr(t, e.call("GET", base, other, ""), http.StatusNotFound, CodeNotFound)
	apiErr(t, e.call("POST", base, other, `{"kind":"site","spec":"daily"}`), http.StatusNotFound, CodeNotFound)
	apiErr(t, e.call("PATCH", base+"/"+sc.ID, other, `{"paused":true}`), http.StatusNotFound, CodeNotFound)
	apiErr(t, e.call("DELETE", base+"/"+sc.ID, other, ""), http.StatusNotFound, CodeNotFound)
	// A schedule under another project of the account is not found.
	q := e.project(e.acct.ID, "blog")
	apiErr(t, e.call("PATCH", "/v1/projects/"+q.ID+"/schedules/"+sc.ID, e.key, `{"paused":true}`), http.StatusNotFound, CodeNotFound)
	// A read-only key cannot write.
	ro := e.newKey(e.acct.ID, auth.ScopeRead)
	wantStatus(t, e.call("GET", base, ro, ""), http.StatusOK)
	apiErr(t, e.call("POST", base, ro, `{"kind":"site","spec":"daily"}`), http.StatusForbidden, CodeForbidden)

	// PATCH: a new spec moves the next run; the kind cannot change.
	resp := e.call("PATCH", base+"/"+sc.ID, e.key, `{"spec":"daily@07:15"}`)
	wantStatus(t, resp, http.StatusOK)
	var v Schedule
	readJSON(t, resp, &v)
	if v.Spec != "daily@07:15" || v.NextRun == nil || v.NextRun.Format(time.RFC3339) != "2026-11-24T06:15:00Z" || v.TimeZone != "Europe/Paris" {
		t.Errorf("after PATCH spec: %+v", v)
	}
	apiErr(t, e.call("PATCH", base+"/"+sc.ID, e.key, `{"kind":"rankings"}`), http.StatusBadRequest, CodeInvalidRequest)
	apiErr(t, e.call("PATCH", base+"/"+sc.ID, e.key, `{"spec":"* * * * *"}`), http.StatusBadRequest, CodeInvalidRequest)

	var list ScheduleList
	resp = e.call("GET", base, e.key, "")
	wantStatus(t, resp, http.StatusOK)
	readJSON(t, resp, &list)
	if len(list.Schedules) != 2 || list.Schedules[0].ID != sc.ID || list.Schedules[1].NextRun != nil {
		t.Errorf("list %+v", list)
	}

	wantStatus(t, e.call("DELETE", base+"/"+sc.ID, e.key, ""), http.StatusNoContent)
	apiErr(t, e.call("DELETE", base+"/"+sc.ID, e.key, ""), http.StatusNotFound, CodeNotFound)
	apiErr(t, e.call("GET", "/v1/projects/prj_missing/schedules", e.key, ""), http.StatusNotFound, CodeNotFound)
}

// TestSchedulerLoop: the loop New starts runs a due schedule by itself and
// ends with Close.
func TestSchedulerLoop(t *testing.T) {
	a := newTestAPI(t, &Options{ScheduleInterval: 20 * time.Millisecond, AllowPrivate: true, Queue: &recordQueue{}})
	q := a.srv.opts.Queue.(*recordQueue)
	p := &store.Project{AccountID: a.acct.ID, Name: "loop", Domain: "127.0.0.1:9", TimeZone: "UTC", CreatedAt: time.Now()}
	if err := a.st.CreateProject(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	sc := &store.Schedule{AccountID: a.acct.ID, ProjectID: p.ID, Kind: store.ScheduleSite, Spec: "daily", NextRun: time.Now().Add(-time.Minute)}
	if err := a.st.CreateSchedule(context.Background(), sc); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		q.mu.Lock()
		n := len(q.jobs)
		q.mu.Unlock()
		if n == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the scheduler loop queued %d jobs in 30 s, want 1", n)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := a.srv.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestKeywordMoves(t *testing.T) {
	pos := func(n int) *int { return &n }
	r := func(k string, st rankings.Status, p *int) rankings.Ranking {
		return rankings.Ranking{Keyword: k, Status: st, Position: p}
	}
	before := []rankings.Ranking{
		r("fell", rankings.StatusRanked, pos(2)), r("out", rankings.StatusRanked, pos(4)),
		r("outage", rankings.StatusRanked, pos(1)), r("new", rankings.StatusUnchecked, nil),
	}
	after := []rankings.Ranking{
		r("fell", rankings.StatusRanked, pos(15)), r("out", rankings.StatusNotRanked, nil),
		r("outage", rankings.StatusFailed, pos(1)), r("new", rankings.StatusRanked, pos(3)),
	}
	got := keywordMoves(before, after)
	want := []monitor.KeywordPosition{{Keyword: "fell", Old: pos(2), New: pos(15)}, {Keyword: "out", Old: pos(4)}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("keywordMoves (-want +got):\n%s", diff)
	}
}

// movingSource ranks example.com at the position it is set to, checked
// at the time of its clock.
type movingSource struct {
	pos atomic.Int64
	now func() time.Time
}

func (*movingSource) Name() string { return "moving" }

func (m *movingSource) Search(_ context.Context, q rankings.Query) (*rankings.SERP, error) {
	return &rankings.SERP{Query: q, Depth: 100, Source: "moving", CheckedAt: m.now(), Results: []rankings.Result{
		{Position: int(m.pos.Load()), URL: "https://example.com/tables", Title: "Oak tables"},
	}}, nil
}

// TestScheduleKeywordAlert: a rank schedule compares each check with the
// positions before it, and a keyword_drop rule raises an alert when a
// tracked keyword falls.
func TestScheduleKeywordAlert(t *testing.T) {
	rs, err := rsql.Open(context.Background(), ":memory:", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rs.Close() })
	var e *scheduleEnv
	now := func() time.Time { return e.clk.Now() }
	src := &movingSource{now: now}
	src.pos.Store(2)
	tr := rankings.NewTracker(src, rs, &rankings.TrackerOptions{Now: now})
	start := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	e = newScheduleEnv(t, start, &Options{Tracker: tr})
	p := e.project(e.acct.ID, "shop", "oak tables")
	p.Domain = "example.com"
	if err := e.st.UpdateProject(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	hook := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	t.Cleanup(hook.Close)
	wantStatus(t, e.call("POST", "/v1/projects/"+p.ID+"/alerts", e.key,
		`{"kind":"keyword_drop","params":{"positions":3},"channel":"webhook","target":"`+hook.URL+`/hook"}`), http.StatusCreated)
	e.schedule(e.key, p.ID, `{"kind":"rankings","spec":"daily@06:00"}`)
	deliveries := func() []store.AlertDelivery {
		t.Helper()
		ds, err := e.st.AlertDeliveries(context.Background(), e.acct.ID, p.ID, 10)
		if err != nil {
			t.Fatal(err)
		}
		return ds
	}
	waitRank := func(want int) {
		t.Helper()
		if ran, _ := e.runRankChecks(t); ran != 1 {
			t.Fatalf("%d rank checks queued by the tick, want 1", ran)
		}
		h, err := rs.Latest(context.Background(), rankings.Filter{Domain: "example.com", Keywords: []string{"oak tables"}})
		if err != nil {
			t.Fatal(err)
		}
		if len(h) != 1 || h[0].Position == nil || *h[0].Position != float64(want) {
			t.Fatalf("latest %+v, want position %d", h, want)
		}
	}
	e.clk.Add(24 * time.Hour)
	e.srv.RunDueSchedules(context.Background())
	waitRank(2)
	src.pos.Store(15)
	e.clk.Add(25 * time.Hour) // past the tracker's 24 h freshness
	e.srv.RunDueSchedules(context.Background())
	waitRank(15)
	deadline := time.Now().Add(30 * time.Second)
	for len(deliveries()) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no alert after the keyword fell from 2 to 15")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if ds := deliveries(); len(ds) != 1 || !strings.Contains(string(ds[0].Payload), "oak tables") {
		t.Errorf("deliveries %+v, want one naming the keyword", ds)
	}
}

// TestSchedulePlanRechecked: a schedule made under a plan that allowed it
// (here stored directly, as after a downgrade) is skipped, saying why, when
// the account's plan no longer allows it.
func TestSchedulePlanRechecked(t *testing.T) {
	start := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	e := newScheduleEnv(t, start, nil)
	p := e.project(e.acct.ID, "shop")
	sc := &store.Schedule{AccountID: e.acct.ID, ProjectID: p.ID, Kind: store.ScheduleSite, Spec: "hourly",
		NextRun: start.Add(time.Hour), CreatedAt: start}
	if err := e.st.CreateSchedule(context.Background(), sc); err != nil {
		t.Fatal(err)
	}
	e.clk.Add(90 * time.Minute)
	e.srv.RunDueSchedules(context.Background())
	if js := e.q.take(); len(js) != 0 {
		t.Fatalf("%d runs of a schedule more frequent than the plan allows", len(js))
	}
	if cur := e.stored(e.acct.ID, sc.ID); !strings.Contains(cur.LastError, "plan allows one run every 24h") {
		t.Errorf("lastError %q, want the plan's reason", cur.LastError)
	}
}

// TestScheduleFollowsTimeZone: changing the project's time zone moves its
// schedules' next run to the due time in the new zone.
func TestScheduleFollowsTimeZone(t *testing.T) {
	start := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	e := newScheduleEnv(t, start, nil)
	p := e.project(e.acct.ID, "shop")
	sc := e.schedule(e.key, p.ID, `{"kind":"site","spec":"daily@06:00"}`)
	wantStatus(t, e.call("PATCH", "/v1/projects/"+p.ID, e.key, `{"timeZone":"America/New_York"}`), http.StatusOK)
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Skip(err)
	}
	if cur := e.stored(e.acct.ID, sc.ID); !cur.NextRun.Equal(time.Date(2026, 11, 24, 6, 0, 0, 0, ny)) {
		t.Errorf("next run %v, want 06:00 in New York", cur.NextRun)
	}
}

// TestScheduleWaitsForSlot: runs due while the account runs its plan's
// concurrent analyses wait, queued and saying why, and start one by one as
// analyses end, oldest first; another account's runs are not held up, and
// a restart does not queue a waiting run.
func TestScheduleWaitsForSlot(t *testing.T) {
	start := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	e := newScheduleEnv(t, start, &Options{Plans: map[store.Plan]plans.Limits{store.Free: {ConcurrentSiteJobs: 1, Projects: 5, Schedules: 5}}})
	var projects []*store.Project
	for _, name := range []string{"a", "b", "c"} {
		p := e.project(e.acct.ID, name)
		e.schedule(e.key, p.ID, `{"kind":"site","spec":"daily@06:00"}`)
		projects = append(projects, p)
	}
	other, okey := e.account("other@example.com", store.Free, auth.ScopeRead, auth.ScopeWrite)
	op := e.project(other.ID, "other")
	e.schedule(okey, op.ID, `{"kind":"site","spec":"daily@06:00"}`)

	e.clk.Add(24 * time.Hour)
	e.srv.RunDueSchedules(context.Background())
	started := e.finish()
	if len(started) != 2 {
		t.Fatalf("%d runs started, want 2 (one per account)", len(started))
	}
	waitingJobs := func() []store.Job {
		t.Helper()
		js, err := e.st.Unfinished(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		var w []store.Job
		for _, j := range js {
			if waiting(&j) {
				w = append(w, j)
			}
		}
		return w
	}
	if w := waitingJobs(); len(w) != 2 || !strings.Contains(w[0].Error, "starts when one ends") {
		t.Fatalf("waiting runs %+v, want 2 saying why", w)
	}
	for round := range 2 {
		e.srv.RunDueSchedules(context.Background()) // the previous analysis ended: one slot
		if js := e.finish(); len(js) != 1 || js[0].AccountID != e.acct.ID {
			t.Fatalf("round %d: %d runs started, want 1 of the waiting account's", round, len(js))
		}
	}
	if w := waitingJobs(); len(w) != 0 {
		t.Errorf("%d runs still waiting", len(w))
	}
	// Each project ran once for the due time.
	for _, p := range projects {
		js, err := e.st.ProjectJobs(context.Background(), e.acct.ID, p.ID, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(js) != 1 || js[0].Status != store.JobSucceeded {
			t.Errorf("project %s: jobs %+v, want one succeeded", p.Name, js)
		}
	}
}
