package httpapi

import (
	"context"
	"io"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/seokit/seokit/fieldvitals"
	"github.com/seokit/seokit/fieldvitals/crux"
	"github.com/seokit/seokit/httpapi/auth"
	"github.com/seokit/seokit/httpapi/mcpserver"
	"github.com/seokit/seokit/httpapi/service"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/indexstatus"
	"github.com/seokit/seokit/indexstatus/indexstatustest"
	"github.com/seokit/seokit/indexstatus/searchconsole"
	"github.com/seokit/seokit/internal/googlefake"
)

// virtualClock moves on at once when slept on: the quota pacing of a
// day's run takes no wall-clock time.
type virtualClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *virtualClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *virtualClock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
	return nil
}

// testQuota is the property quota of the API tests: a tenth of Google's,
// so that a day's run stays cheap (indexstatus's tests run the documented
// one over 10,000 pages).
var testQuota = indexstatus.Quota{PerMinute: 60, PerDay: 200}

// googleFakes serves a Search Console that enforces testQuota by clock,
// and a CrUX that has data for every URL but /blog/3.
func googleFakes(t *testing.T, clock *virtualClock) (*Options, *googlefake.SearchConsole, *googlefake.CrUX) {
	t.Helper()
	gsc := &googlefake.SearchConsole{Now: clock.Now, PerMinute: testQuota.PerMinute, PerDay: testQuota.PerDay, Status: indexstatustest.Status}
	cx := &googlefake.CrUX{Key: "AIza-api", Data: func(q googlefake.CrUXQuery) *googlefake.CrUXData {
		if strings.HasSuffix(q.URL, "/blog/3") {
			return nil
		}
		return &googlefake.CrUXData{P75: map[string]float64{"largest_contentful_paint": 2900, "interaction_to_next_paint": 150, "cumulative_layout_shift": 0.05, "first_contentful_paint": 1600}}
	}}
	gs, cs := httptest.NewServer(gsc), httptest.NewServer(cx)
	t.Cleanup(gs.Close)
	t.Cleanup(cs.Close)
	ins, err := searchconsole.New(&searchconsole.Options{BaseURL: gs.URL, TokenSource: oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "t"})})
	if err != nil {
		t.Fatal(err)
	}
	src, err := crux.New("AIza-api", &crux.Options{BaseURL: cs.URL})
	if err != nil {
		t.Fatal(err)
	}
	return &Options{Inspector: ins, IndexLedger: indexstatus.NewLedger(testQuota, clock), FieldVitals: src,
		IndexAccess: grantEveryAccount("sc-domain:example.com")}, gsc, cx
}

// grantEveryAccount is an Options.IndexAccess granting props to every
// account.
func grantEveryAccount(props ...string) func(context.Context, string, string) (bool, error) {
	return func(_ context.Context, _, property string) (bool, error) {
		return slices.Contains(props, property), nil
	}
}

// TestIndexStatusAPI starts an index status run over a stored 10,000-page
// analysis, polls it to the end and checks the quota held (testQuota,
// enforced by the fake), the sample's composition, the join and the units
// charged to the account.
func TestIndexStatusAPI(t *testing.T) {
	clock := &virtualClock{now: time.Date(2026, 12, 1, 17, 0, 0, 0, time.UTC)}
	opts, gsc, _ := googleFakes(t, clock)
	a := newTestAPI(t, opts)
	a.acct, a.key = a.account("pro@example.com", store.Pro, "read", "write")
	site := indexstatustest.Site(10000)
	id := a.storeSiteJob(a.acct.ID, "example.com", store.JobSucceeded, site, time.Now())
	polls := 0

	resp := a.call("POST", "/v1/analyze/site/"+id+"/index-status", a.key, `{"sampleSize":0}`)
	wantStatus(t, resp, 202)
	before, _ := strconv.Atoi(resp.Header.Get("X-RateLimit-Remaining"))
	var run service.IndexStatusRun
	readJSON(t, resp, &run)
	if run.Status != service.IndexRunning || run.Property != "sc-domain:example.com" {
		t.Fatalf("run %+v", run)
	}
	// Poll until the run ends: each GET is an event; the run is bounded
	// by 200 fake answers.
	for i := 0; run.Status == service.IndexRunning; i++ {
		if i == 1000 {
			t.Fatalf("run still going after %d polls: %+v", i, run.Progress)
		}
		time.Sleep(20 * time.Millisecond)
		polls++
		resp = a.call("GET", "/v1/analyze/site/"+id+"/index-status", a.key, "")
		wantStatus(t, resp, 200)
		readJSON(t, resp, &run)
	}
	after, _ := strconv.Atoi(resp.Header.Get("X-RateLimit-Remaining"))
	rep := run.Report
	if run.Status != service.IndexSucceeded || rep == nil {
		t.Fatalf("run ended %s: %s", run.Status, run.Error)
	}
	reqs, answered, refused := gsc.Stats()
	t.Logf("API run: %d of %d eligible inspected; fake: %d requests, %d refused; peak per minute %d over %d minutes; made %+v",
		rep.Counts.Inspected, rep.Sample.Eligible, reqs, refused, rep.Quota.PeakPerMinute, rep.Quota.Minutes, rep.Quota.Made)
	t.Logf("counts %+v", rep.Counts)
	for _, s := range rep.Sample.Strata {
		t.Logf("stratum %s/%s: %d pages, %d sampled", s.Template, s.Segment, s.Pages, s.Sampled)
	}
	t.Logf("quota remaining: %d after the POST, %d after the last GET (%d units: the run's and the polls')", before, after, before-after)
	if answered != testQuota.PerDay || refused != 0 || rep.Quota.PeakPerMinute > testQuota.PerMinute || rep.SampleLimit != indexstatus.LimitDailyQuota {
		t.Errorf("answered %d, refused %d, peak %d, limit %q", answered, refused, rep.Quota.PeakPerMinute, rep.SampleLimit)
	}
	if rep.Counts.Inspected != 200 || len(rep.Pages) != 200 || len(rep.Findings) == 0 {
		t.Errorf("report: counts %+v, %d pages, %d findings", rep.Counts, len(rep.Pages), len(rep.Findings))
	}
	// The run charged one unit beyond the request's (200 inspections, 100
	// a unit); the polls charged one each.
	if used := before - after - polls; used != 1 {
		t.Errorf("the account was charged %d units over the run besides %d polls, want 1", used, polls)
	}

	// Bad input and unknown analyses.
	apiErr(t, a.call("POST", "/v1/analyze/site/"+id+"/index-status", a.key, `{"sampleSize":5000}`), 400, CodeInvalidRequest)
	apiErr(t, a.call("POST", "/v1/analyze/site/"+id+"/index-status", a.key, `{"property":"example"}`), 400, CodeInvalidRequest)
	apiErr(t, a.call("GET", "/v1/analyze/site/job_nope/index-status", a.key, ""), 404, CodeNotFound)
	other := a.storeSiteJob(a.acct.ID, "example.org", store.JobSucceeded, indexstatustest.Site(5), time.Now())
	apiErr(t, a.call("GET", "/v1/analyze/site/"+other+"/index-status", a.key, ""), 404, CodeNotFound)
	running := a.storeSiteJob(a.acct.ID, "example.net", store.JobRunning, nil, time.Now())
	apiErr(t, a.call("POST", "/v1/analyze/site/"+running+"/index-status", a.key, ""), 409, CodeConflict)
}

// TestIndexStatusGrants: the server inspects every property with one
// service account, so an account inspects only the properties
// Options.IndexAccess grants it. A refusal is a 403 naming the property
// and the grant, before the run is charged or anything is inspected; a
// grant of one property does not cover another; nil IndexAccess grants
// none.
func TestIndexStatusGrants(t *testing.T) {
	clock := &virtualClock{now: time.Date(2026, 12, 1, 17, 0, 0, 0, time.UTC)}
	opts, gsc, _ := googleFakes(t, clock)
	var (
		mu     sync.Mutex
		grants = map[string][]string{}
		asked  []string
	)
	opts.IndexAccess = func(_ context.Context, account, property string) (bool, error) {
		mu.Lock()
		defer mu.Unlock()
		asked = append(asked, account+" "+property)
		return slices.Contains(grants[account], property), nil
	}
	a := newTestAPI(t, opts)
	owner, ownerKey := a.account("owner@example.com", store.Pro, "read", "write")
	other, otherKey := a.account("other@example.net", store.Pro, "read", "write")
	mu.Lock()
	grants[owner.ID] = []string{"sc-domain:example.com"}
	mu.Unlock()
	ownerJob := a.storeSiteJob(owner.ID, "example.com", store.JobSucceeded, indexstatustest.Site(20), time.Now())
	otherJob := a.storeSiteJob(other.ID, "example.com", store.JobSucceeded, indexstatustest.Site(20), time.Now())
	remaining := func(a *testAPI, key, job string) int {
		t.Helper()
		resp := a.call("GET", "/v1/analyze/site/"+job+"/index-status", key, "")
		resp.Body.Close()
		n, err := strconv.Atoi(resp.Header.Get("X-RateLimit-Remaining"))
		if err != nil {
			t.Fatalf("X-RateLimit-Remaining %q", resp.Header.Get("X-RateLimit-Remaining"))
		}
		return n
	}
	refused := func(a *testAPI, account, key, job, body, property string) {
		t.Helper()
		before := remaining(a, key, job)
		e := apiErr(t, a.call("POST", "/v1/analyze/site/"+job+"/index-status", key, body), 403, CodeForbidden)
		if !strings.Contains(e.Message, property) || !strings.Contains(e.Message, "-gsc-grant") {
			t.Errorf("refusal of %s does not name it and the grant: %q", property, e.Message)
		}
		// The POST is one request, as every refused request is; the
		// refusal charged nothing more.
		if after := remaining(a, key, job); after != before-2 {
			t.Errorf("refused start of %s charged %d units besides the POST", property, before-2-after)
		}
		if _, err := a.srv.IndexStatus().Get(context.Background(), account, job); err == nil {
			t.Errorf("a refused start of %s left a run", property)
		}
	}

	// An account crawled example.com and asks for its default property,
	// or names another customer's: neither is its grant.
	refused(a, other.ID, otherKey, otherJob, "", "sc-domain:example.com")
	refused(a, other.ID, otherKey, otherJob, `{"property":"https://www.example.com/"}`, "https://www.example.com/")
	// The owner's grant of sc-domain:example.com does not cover a URL
	// prefix property of the domain, nor another domain.
	refused(a, owner.ID, ownerKey, ownerJob, `{"property":"https://example.com"}`, "https://example.com/")
	refused(a, owner.ID, ownerKey, ownerJob, `{"property":"sc-domain:example.org"}`, "sc-domain:example.org")
	if reqs, _, _ := gsc.Stats(); reqs != 0 {
		t.Fatalf("refused runs made %d inspections", reqs)
	}
	a.srv.idx.mu.Lock()
	ledger := a.srv.idx.indexLedger(a.srv)
	a.srv.idx.mu.Unlock()
	if used, err := ledger.UsedToday(context.Background(), "sc-domain:example.com"); err != nil || used != 0 {
		t.Fatalf("refused runs used %d of the property's quota (%v)", used, err)
	}
	mu.Lock()
	if !slices.Contains(asked, other.ID+" https://www.example.com/") || !slices.Contains(asked, owner.ID+" https://example.com/") {
		t.Errorf("IndexAccess was not asked with the normalised property: %q", asked)
	}
	mu.Unlock()

	// The owner's granted property runs.
	resp := a.call("POST", "/v1/analyze/site/"+ownerJob+"/index-status", ownerKey, `{"sampleSize":5}`)
	wantStatus(t, resp, 202)
	var run service.IndexStatusRun
	readJSON(t, resp, &run)
	for i := 0; run.Status == service.IndexRunning; i++ {
		if i == 500 {
			t.Fatalf("run still going: %+v", run.Progress)
		}
		time.Sleep(10 * time.Millisecond)
		resp = a.call("GET", "/v1/analyze/site/"+ownerJob+"/index-status", ownerKey, "")
		wantStatus(t, resp, 200)
		readJSON(t, resp, &run)
	}
	if run.Status != service.IndexSucceeded || run.Property != "sc-domain:example.com" || run.Report == nil || run.Report.Counts.Inspected != 5 {
		t.Fatalf("granted run: %s %s %q", run.Status, run.Property, run.Error)
	}

	// Without IndexAccess no account inspects any property.
	opts.IndexAccess = nil
	b := newTestAPI(t, opts)
	bJob := b.storeSiteJob(b.acct.ID, "example.com", store.JobSucceeded, indexstatustest.Site(20), time.Now())
	refused(b, b.acct.ID, b.key, bJob, "", "sc-domain:example.com")
}

// TestFieldVitalsAPI reads field vitals beside an analysis's lab values,
// an honest "not enough data", bad input, a project's trend, and 503
// without a source.
func TestFieldVitalsAPI(t *testing.T) {
	opts, _, cx := googleFakes(t, &virtualClock{now: time.Now()})
	a := newTestAPI(t, opts)
	site := indexstatustest.Site(20)
	site.Pages[0].URL = "https://example.com/"
	lcp, cls, tbt := 1300.0, 0.0, 80.0
	for i := range site.Pages {
		if site.Pages[i].URL == "https://example.com/" {
			site.Pages[i].LCPMs, site.Pages[i].CLS, site.Pages[i].TBTMs = &lcp, &cls, &tbt
		}
	}
	id := a.storeSiteJob(a.acct.ID, "example.com", store.JobSucceeded, site, time.Now())

	resp := a.call("GET", "/v1/field-vitals?url=https://example.com/&formFactor=PHONE&history=true&analysisId="+id, a.key, "")
	wantStatus(t, resp, 200)
	var out service.FieldVitalsResponse
	readJSON(t, resp, &out)
	if out.Record.Status != fieldvitals.StatusOK || out.History == nil || len(out.History.Periods) != 25 || len(out.Compare) != 3 {
		t.Fatalf("answer %+v", out)
	}
	if c := out.Compare[0]; c.Lab == nil || *c.Lab != 1300 || c.Field == nil || *c.Field != 2900 || c.Difference == nil || *c.Difference != 1600 {
		t.Errorf("LCP comparison %+v", c)
	}
	if n := cx.Requests(); n != 2 {
		t.Errorf("CrUX got %d requests, want 2 (record and history)", n)
	}

	resp = a.call("GET", "/v1/field-vitals?url=https://example.com/blog/3", a.key, "")
	wantStatus(t, resp, 200)
	var none service.FieldVitalsResponse
	readJSON(t, resp, &none)
	if none.Record.Status != fieldvitals.StatusInsufficient || len(none.Record.Metrics) != 0 || none.Record.Period != nil {
		t.Errorf("no data answered %+v", none.Record)
	}

	for _, tc := range []struct{ query, field string }{
		{"", "url"},
		{"url=https://example.com/&origin=https://example.com", "origin"},
		{"url=/relative", "url"},
		{"origin=https://example.com/path", "origin"},
		{"url=https://example.com/&formFactor=WATCH", "formFactor"},
		{"url=https://example.com/&history=maybe", "history"},
		{"url=https://example.com/&analysisId=job_nope", "analysisId"},
	} {
		e := apiErr(t, a.call("GET", "/v1/field-vitals?"+tc.query, a.key, ""), 400, CodeInvalidRequest)
		if e.Field != tc.field {
			t.Errorf("%q: field %q, want %q", tc.query, e.Field, tc.field)
		}
	}

	resp = a.call("POST", "/v1/projects", a.key, `{"domain":"example.com"}`)
	wantStatus(t, resp, 201)
	var p service.Project
	readJSON(t, resp, &p)
	resp = a.call("GET", "/v1/projects/"+p.ID+"/field-vitals", a.key, "")
	wantStatus(t, resp, 200)
	var trend service.FieldVitalsResponse
	readJSON(t, resp, &trend)
	if trend.Record.Query.Origin != "https://example.com" || trend.History == nil || len(trend.History.Metrics) != 4 {
		t.Errorf("project trend %+v", trend)
	}

	bare := newTestAPI(t, nil)
	apiErr(t, bare.call("GET", "/v1/field-vitals?url=https://example.com/", bare.key, ""), 503, CodeUnavailable)
	bid := bare.storeSiteJob(bare.acct.ID, "example.com", store.JobSucceeded, site, time.Now())
	apiErr(t, bare.call("POST", "/v1/analyze/site/"+bid+"/index-status", bare.key, ""), 503, CodeUnavailable)
}

// TestAnalysisDecodeAdmission: the field Web Vitals and index status
// requests that read an analysis decode its whole report, and pass the
// admission control as a report read: while the account's report read is
// held a second is 429 at once, naming report reads, another account's is
// admitted, and each admitted decode reserves mcpserver.ReportDecodeFactor
// times the stored size. They decoded outside admission, any number at
// once; and a server without CrUX decoded the report before saying so.
func TestAnalysisDecodeAdmission(t *testing.T) {
	opts, _, _ := googleFakes(t, &virtualClock{now: time.Now()})
	opts.Admission = &AdmissionOptions{Wait: 50 * time.Millisecond}
	a := newTestAPI(t, opts)
	b, bKey := a.account("b@example.com", store.Free, auth.ScopeRead, auth.ScopeWrite)
	site := indexstatustest.Site(20)
	id := a.storeSiteJob(a.acct.ID, "example.com", store.JobSucceeded, site, time.Now())
	bid := a.storeSiteJob(b.ID, "example.com", store.JobSucceeded, site, time.Now())
	field := "/v1/field-vitals?url=https://example.com/&analysisId="
	k := a.srv.adm.kinds[KindReport]

	hold, err := a.srv.adm.acquireSlot(context.Background(), KindReport, a.acct.ID, 1, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, call := range []struct{ method, path string }{{"GET", field + id}, {"POST", "/v1/analyze/site/" + id + "/index-status"}} {
		if e := apiErr(t, a.call(call.method, call.path, a.key, ""), 429, CodeRateLimited); !strings.Contains(e.Message, "report reads") {
			t.Errorf("%s %s while the account's report read is held: %q, want the report reads' limit", call.method, call.path, e.Message)
		}
	}
	before := k.admitted.Load()
	wantStatus(t, a.call("GET", field+bid, bKey, ""), 200)
	if k.admitted.Load() != before+1 {
		t.Errorf("another account's decode: %d report reads admitted, want 1", k.admitted.Load()-before)
	}
	hold()
	wantStatus(t, a.call("GET", field+id, a.key, ""), 200)
	if n := k.inFlight.Load(); n != 0 {
		t.Errorf("%d report reads in flight after the answers, want 0", n)
	}

	// The decode reserves its estimate: with one byte less of the budget
	// free, it is 503.
	_, res, err := a.srv.Analyses().Get(context.Background(), a.acct.ID, id)
	if err != nil {
		t.Fatal(err)
	}
	mem := a.srv.adm.mem
	taken, err := mem.reserve(context.Background(), mem.total-(int64(res.Size())*mcpserver.ReportDecodeFactor-1))
	if err != nil {
		t.Fatal(err)
	}
	apiErr(t, a.call("GET", field+id, a.key, ""), 503, CodeUnavailable)
	taken()
	wantStatus(t, a.call("GET", field+id, a.key, ""), 200)

	// Without CrUX the answer says so before any report is read.
	bare := newTestAPI(t, nil)
	bareID := bare.storeSiteJob(bare.acct.ID, "example.com", store.JobSucceeded, site, time.Now())
	apiErr(t, bare.call("GET", field+bareID, bare.key, ""), 503, CodeUnavailable)
	if n := bare.srv.adm.kinds[KindReport].admitted.Load(); n != 0 {
		t.Errorf("a server without CrUX admitted %d report reads, want none", n)
	}
}

// heldCrUX is a field Web Vitals source whose answers wait until release
// is closed, as the server's CrUX limiter makes them wait once the key's
// queries of the minute are spent; entered receives each query as it
// starts.
type heldCrUX struct {
	entered chan string
	release chan struct{}
}

func (h *heldCrUX) Name() string { return "held" }

func (h *heldCrUX) Record(ctx context.Context, q fieldvitals.Query) (*fieldvitals.Record, error) {
	h.entered <- q.URL
	select {
	case <-h.release:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return &fieldvitals.Record{Query: q, Status: fieldvitals.StatusInsufficient, Metrics: []fieldvitals.Metric{}}, nil
}

func (h *heldCrUX) History(ctx context.Context, q fieldvitals.Query) (*fieldvitals.History, error) {
	return &fieldvitals.History{Query: q, Status: fieldvitals.StatusInsufficient}, nil
}

// TestFieldVitalsPerAccount: the server's CrUX key is one quota (150
// queries a minute) every account shares, so an account looks up field
// Web Vitals one at a time: while its lookup waits on CrUX, its next is
// 429 at once, naming field Web Vitals lookups, and another account's
// goes through. Lookups were not limited per account: one Free account's
// burst of lookups filled the key's minute, and every other account's
// waited behind them until its request timed out.
func TestFieldVitalsPerAccount(t *testing.T) {
	h := &heldCrUX{entered: make(chan string, 8), release: make(chan struct{})}
	a := newTestAPI(t, &Options{FieldVitals: h, Admission: &AdmissionOptions{Wait: 50 * time.Millisecond}})
	_, bKey := a.account("b@example.com", store.Free, auth.ScopeRead, auth.ScopeWrite)
	type answer struct {
		status int
		body   string
	}
	answers := make(chan answer, 3)
	lookup := func(key, url string) {
		resp, err := a.send(a.req("GET", "/v1/field-vitals?url="+url, key, ""))
		if err != nil {
			answers <- answer{body: err.Error()}
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		answers <- answer{resp.StatusCode, string(b)}
	}
	go lookup(a.key, "https://example.com/first")
	if u := <-h.entered; u != "https://example.com/first" {
		t.Fatalf("CrUX asked for %s", u)
	}
	go lookup(a.key, "https://example.com/second")
	select {
	case u := <-h.entered:
		close(h.release)
		t.Fatalf("the account's second lookup reached CrUX (%s) while its first waited there", u)
	case ans := <-answers:
		if ans.status != 429 || !strings.Contains(ans.body, `"rate_limited"`) || !strings.Contains(ans.body, "field Web Vitals lookups") {
			t.Errorf("the account's second lookup: %d %s, want 429 rate_limited naming its limit of field Web Vitals lookups", ans.status, ans.body)
		}
	}
	go lookup(bKey, "https://example.com/other")
	select {
	case u := <-h.entered:
		if u != "https://example.com/other" {
			t.Errorf("CrUX asked for %s, want the other account's URL", u)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("another account's lookup did not reach CrUX")
	}
	close(h.release)
	for range 2 {
		if ans := <-answers; ans.status != 200 {
			t.Errorf("a held lookup answered %d %s, want 200", ans.status, ans.body)
		}
	}
	wantStatus(t, a.call("GET", "/v1/field-vitals?url=https://example.com/second", a.key, ""), 200)
}

// heldInspector is a URL Inspection that answers nothing until its
// context ends: an index status run over it goes on until the server
// stops.
type heldInspector struct{ calls atomic.Int64 }

func (*heldInspector) Name() string { return "held" }

func (h *heldInspector) Inspect(ctx context.Context, _, _ string) (*indexstatus.Inspection, error) {
	h.calls.Add(1)
	<-ctx.Done()
	return nil, ctx.Err()
}

// TestIndexRunPerAccount: an index status run goes on in the background
// with its analysis's decoded report, so each running run holds
// mcpserver.ReportDecodeFactor times the stored report's size of the
// memory budget until it ends, and an account runs one at a time on a
// server: its run of another analysis is 429 at once naming index status
// runs, a second start of the running one answers that run, and another
// account's starts. A run held the report outside the budget once its
// start had answered, one per analysis of the account at once.
func TestIndexRunPerAccount(t *testing.T) {
	ins := &heldInspector{}
	a := newTestAPI(t, &Options{Inspector: ins, IndexLedger: indexstatus.NewLedger(testQuota, nil),
		IndexAccess: grantEveryAccount("sc-domain:example.com"), Admission: &AdmissionOptions{Wait: 50 * time.Millisecond}})
	b, bKey := a.account("b@example.com", store.Free, auth.ScopeRead, auth.ScopeWrite)
	site := indexstatustest.Site(20)
	first := a.storeSiteJob(a.acct.ID, "example.com", store.JobSucceeded, site, time.Now())
	second := a.storeSiteJob(a.acct.ID, "example.com", store.JobSucceeded, site, time.Now())
	other := a.storeSiteJob(b.ID, "example.com", store.JobSucceeded, site, time.Now())
	_, res, err := a.srv.Analyses().Get(context.Background(), a.acct.ID, first)
	if err != nil {
		t.Fatal(err)
	}
	mem := a.srv.adm.mem
	free := func() int64 {
		t.Helper()
		n := int64(0)
		for n < mem.total && mem.sem.TryAcquire(4<<10) {
			n += 4 << 10
		}
		mem.sem.Release(n)
		return n
	}
	idle := free()
	wantStatus(t, a.call("POST", "/v1/analyze/site/"+first+"/index-status", a.key, ""), 202)
	eventually(t, "the run's first inspection", func() bool { return ins.calls.Load() > 0 })
	if held := idle - free(); held < int64(res.Size())*mcpserver.ReportDecodeFactor-4<<10 {
		t.Errorf("a running index status run holds %d bytes of the memory budget; want its decoded report's %d", held, int64(res.Size())*mcpserver.ReportDecodeFactor)
	}
	resp := a.call("POST", "/v1/analyze/site/"+second+"/index-status", a.key, "")
	if resp.StatusCode != 429 {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		t.Fatalf("the account's run of another analysis while one runs: %d %s, want 429", resp.StatusCode, b)
	}
	var e struct{ Error Error }
	readJSON(t, resp, &e)
	if !strings.Contains(e.Error.Message, "index status runs") {
		t.Errorf("429 %q does not name index status runs", e.Error.Message)
	}
	resp = a.call("POST", "/v1/analyze/site/"+first+"/index-status", a.key, "")
	wantStatus(t, resp, 202)
	var run service.IndexStatusRun
	readJSON(t, resp, &run)
	if run.AnalysisID != first || run.Status != service.IndexRunning {
		t.Errorf("a second start of the running run answered %+v", run)
	}
	wantStatus(t, a.call("POST", "/v1/analyze/site/"+other+"/index-status", bKey, ""), 202)
}
