package httpapi

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/httpapi/service"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/httpapi/store/sqlstore"
	"github.com/seokit/seokit/indexstatus"
	"github.com/seokit/seokit/indexstatus/indexstatustest"
	"github.com/seokit/seokit/internal/pgtest"
)

// pollIndexRun polls a run on a until it is no longer running; each GET
// is an event, and a run is bounded by the fake's quota.
func pollIndexRun(t *testing.T, a *testAPI, key, id string) service.IndexStatusRun {
	t.Helper()
	var run service.IndexStatusRun
	for i := 0; ; i++ {
		if i == 2000 {
			t.Fatalf("run of %s still going after %d polls: %+v", id, i, run.Progress)
		}
		resp := a.call("GET", "/v1/analyze/site/"+id+"/index-status", key, "")
		wantStatus(t, resp, 200)
		readJSON(t, resp, &run)
		if run.Status != service.IndexRunning {
			return run
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// maxPerMinute is the most of times in any 60-second span.
func maxPerMinute(times []time.Time) int {
	best, lo := 0, 0
	for hi := range times {
		for times[hi].Sub(times[lo]) >= time.Minute {
			lo++
		}
		best = max(best, hi-lo+1)
	}
	return best
}

// TestIndexQuotaSharedPostgres runs two API servers on one PostgreSQL
// database, each inspecting an analysis of the same domain (one Search
// Console property) at once: the inspections of both together stay
// within the property's minute and day quotas, which the fake Search
// Console enforces, and each server answers for the other's run.
func TestIndexQuotaSharedPostgres(t *testing.T) {
	dsn := pgtest.DSN(t)
	ctx := context.Background()
	clock := &virtualClock{now: time.Date(2026, 12, 1, 17, 0, 0, 0, time.UTC)}
	opts, gsc, _ := googleFakes(t, clock)
	var apis [2]*testAPI
	for i := range apis {
		st, err := sqlstore.Open(ctx, dsn, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		o := *opts
		o.Store = st
		apis[i] = newTestAPI(t, &o, apiConfig{noAccount: true})
	}
	acct, key := apis[0].account("pro@example.com", store.Pro, "read", "write")
	ids := [2]string{
		apis[0].storeSiteJob(acct.ID, "example.com", store.JobSucceeded, indexstatustest.Site(3000), time.Now()),
		apis[1].storeSiteJob(acct.ID, "example.com", store.JobSucceeded, indexstatustest.Site(3000), time.Now()),
	}
	var (
		wg   sync.WaitGroup
		runs [2]service.IndexStatusRun
	)
	for i := range apis {
		wg.Add(1)
		go func() {
			defer wg.Done()
			wantStatus(t, apis[i].call("POST", "/v1/analyze/site/"+ids[i]+"/index-status", key, ""), 202)
			runs[i] = pollIndexRun(t, apis[i], key, ids[i])
		}()
	}
	wg.Wait()
	reqs, answered, refused := gsc.Stats()
	peak := maxPerMinute(gsc.Times())
	inspected := 0
	for i, r := range runs {
		if r.Status != service.IndexSucceeded || r.Report == nil {
			t.Fatalf("run %d ended %s: %s", i, r.Status, r.Error)
		}
		inspected += r.Report.Counts.Inspected
		t.Logf("server %d: %d inspected, %d not inspected %v; property used %d before, %d after",
			i, r.Report.Counts.Inspected, r.Report.Counts.NotInspected, r.Report.Counts.NotInspectedReasons, r.Report.Quota.UsedBefore, r.Report.Quota.UsedAfter)
	}
	t.Logf("two servers, one property (quota %d/min, %d/day): fake %d requests, %d answered, %d refused; at most %d in any minute",
		testQuota.PerMinute, testQuota.PerDay, reqs, answered, refused, peak)
	if refused != 0 || answered != testQuota.PerDay || inspected != testQuota.PerDay || peak > testQuota.PerMinute {
		t.Errorf("answered %d, refused %d, inspected %d, peak %d; want %d answered and inspected, none refused, at most %d a minute",
			answered, refused, inspected, peak, testQuota.PerDay, testQuota.PerMinute)
	}
	// Each server reads the other's run from the store.
	var other service.IndexStatusRun
	resp := apis[1].call("GET", "/v1/analyze/site/"+ids[0]+"/index-status", key, "")
	wantStatus(t, resp, 200)
	readJSON(t, resp, &other)
	if other.Status != service.IndexSucceeded || other.Report == nil || other.Report.Counts.Inspected != runs[0].Report.Counts.Inspected {
		t.Errorf("server 1's view of server 0's run: %s %+v", other.Status, other.Progress)
	}
}

// TestIndexRunInterrupted: a run whose server stopped (its lease ran out
// with the run still "running") is reported as interrupted with its
// progress, not as running forever nor as a success; a new POST starts
// it again.
func TestIndexRunInterrupted(t *testing.T) {
	clock := &virtualClock{now: time.Date(2026, 12, 1, 17, 0, 0, 0, time.UTC)}
	opts, _, _ := googleFakes(t, clock)
	a := newTestAPI(t, opts)
	a.acct, a.key = a.account("pro@example.com", store.Pro, "read", "write")
	id := a.storeSiteJob(a.acct.ID, "example.com", store.JobSucceeded, indexstatustest.Site(50), time.Now())
	is := a.st.(store.IndexStatus)
	gone := time.Now().Add(-time.Hour)
	row := &store.IndexRun{AccountID: a.acct.ID, AnalysisID: id, Property: "sc-domain:example.com", StartedAt: gone,
		LeaseUntil: gone.Add(indexRunLease), Progress: []byte(`{"done":7,"total":50,"inspected":7,"failed":0}`)}
	if _, started, err := is.StartIndexRun(context.Background(), row); err != nil || !started {
		t.Fatalf("StartIndexRun: %v %v", started, err)
	}
	var run service.IndexStatusRun
	resp := a.call("GET", "/v1/analyze/site/"+id+"/index-status", a.key, "")
	wantStatus(t, resp, 200)
	readJSON(t, resp, &run)
	t.Logf("interrupted run: %s: %s", run.Status, run.Error)
	if run.Status != service.IndexFailed || !strings.Contains(run.Error, "interrupted") || run.Progress.Done != 7 || run.Report != nil {
		t.Fatalf("interrupted run = %+v", run)
	}
	wantStatus(t, a.call("POST", "/v1/analyze/site/"+id+"/index-status", a.key, ""), 202)
	if run = pollIndexRun(t, a, a.key, id); run.Status != service.IndexSucceeded || run.Report == nil || run.Report.Counts.Inspected == 0 {
		t.Fatalf("run started again = %s %s", run.Status, run.Error)
	}
}

// TestIndexFindingsMerged: a finished run's index.* findings are in the
// analysis's stored report, with the counts of the run's report, and in
// its summary.
func TestIndexFindingsMerged(t *testing.T) {
	clock := &virtualClock{now: time.Date(2026, 12, 1, 17, 0, 0, 0, time.UTC)}
	opts, _, _ := googleFakes(t, clock)
	a := newTestAPI(t, opts)
	a.acct, a.key = a.account("pro@example.com", store.Pro, "read", "write")
	site := indexstatustest.Site(120)
	id := a.storeSiteJob(a.acct.ID, "example.com", store.JobSucceeded, site, time.Now())
	wantStatus(t, a.call("POST", "/v1/analyze/site/"+id+"/index-status", a.key, ""), 202)
	run := pollIndexRun(t, a, a.key, id)
	if run.Status != service.IndexSucceeded || len(run.Report.Findings) == 0 {
		t.Fatalf("run = %s %s, %d findings", run.Status, run.Error, len(run.Report.Findings))
	}
	_, res, err := a.srv.Analyses().Get(context.Background(), a.acct.ID, id)
	if err != nil {
		t.Fatal(err)
	}
	var rep crawler.SiteReport
	rc, err := res.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	if err := json.NewDecoder(rc).Decode(&rep); err != nil {
		t.Fatal(err)
	}
	groups := map[string]int{}
	for _, g := range rep.Findings {
		if indexstatus.IsIndexFinding(g.ID) {
			groups[g.ID] = g.Count
		}
	}
	for _, f := range run.Report.Findings {
		t.Logf("%s: %d in the run, %d in the stored report", f.ID, f.Occurrences(), groups[f.ID])
		if groups[f.ID] != f.Occurrences() {
			t.Errorf("%s counts %d in the stored report, %d in the run", f.ID, groups[f.ID], f.Occurrences())
		}
	}
	if len(groups) != len(run.Report.Findings) {
		t.Errorf("%d index groups in the stored report, %d findings in the run", len(groups), len(run.Report.Findings))
	}
	crawlChecks := site.FindingCounts.Checks
	if got := rep.FindingCounts.Checks; got.Warnings+got.Notices+got.Errors != crawlChecks.Warnings+crawlChecks.Notices+crawlChecks.Errors+len(groups) {
		t.Errorf("finding counts %+v, crawl's %+v plus %d index checks", got, crawlChecks, len(groups))
	}
}

// TestIndexFindingsAlert: a project's new_findings rule fires when an
// index status run merges index.* findings its previous analysis did not
// have, and the alert names them.
func TestIndexFindingsAlert(t *testing.T) {
	clock := &virtualClock{now: time.Date(2026, 12, 1, 17, 0, 0, 0, time.UTC)}
	opts, _, _ := googleFakes(t, clock)
	opts.AllowPrivate = true
	opts.AlertPollInterval = 20 * time.Millisecond
	opts.AlertRetryDelays = []time.Duration{10 * time.Millisecond}
	a := newTestAPI(t, opts)
	a.acct, a.key = a.account("pro@example.com", store.Pro, "read", "write")
	ctx := context.Background()
	p := &store.Project{AccountID: a.acct.ID, Name: "Example", Domain: "example.com"}
	if err := a.st.CreateProject(ctx, p); err != nil {
		t.Fatal(err)
	}
	hook := &hookReceiver{}
	createRule(t, a, a.key, p.ID, `{"kind":"new_findings","params":{"severity":"notice"},"channel":"webhook","target":"`+newHook(t, hook)+`"}`)
	site, _ := json.Marshal(indexstatustest.Site(60))
	var ids []string
	for i := range 2 {
		req, _ := json.Marshal(SiteRequest{Domain: "example.com"})
		at := time.Now().Add(time.Duration(i-2) * time.Hour)
		j := &store.Job{AccountID: a.acct.ID, Kind: "site", Status: store.JobQueued, Request: req, ProjectID: p.ID, CreatedAt: at}
		if err := a.st.CreateJob(ctx, j); err != nil {
			t.Fatal(err)
		}
		j.Status, j.FinishedAt, j.Result = store.JobSucceeded, at, site
		if err := a.st.UpdateJob(ctx, j); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, j.ID)
	}
	wantStatus(t, a.call("POST", "/v1/analyze/site/"+ids[1]+"/index-status", a.key, ""), 202)
	if run := pollIndexRun(t, a, a.key, ids[1]); run.Status != service.IndexSucceeded || len(run.Report.Findings) == 0 {
		t.Fatalf("run = %s %s", run.Status, run.Error)
	}
	eventually(t, "the webhook alert", func() bool { b, _, _ := hook.got(); return len(b) > 0 })
	bodies, _, _ := hook.got()
	t.Logf("alert: %.300s", bodies[0])
	if len(bodies) != 1 || !strings.Contains(string(bodies[0]), `"index.`) {
		t.Errorf("%d alerts; first %s", len(bodies), bodies[0])
	}
}
