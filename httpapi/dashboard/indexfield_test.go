package dashboard_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"golang.org/x/oauth2"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/fieldvitals"
	"github.com/seokit/seokit/fieldvitals/crux"
	"github.com/seokit/seokit/httpapi"
	"github.com/seokit/seokit/httpapi/dashboard"
	"github.com/seokit/seokit/httpapi/plans"
	"github.com/seokit/seokit/httpapi/service"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/indexstatus"
	"github.com/seokit/seokit/indexstatus/indexstatustest"
	"github.com/seokit/seokit/indexstatus/searchconsole"
	"github.com/seokit/seokit/internal/googlefake"
)

// virtualClock moves on at once when slept on, so the quota pacing of a
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

// lateIndexField forwards to the API server's index status and field
// vitals services, created with the environment.
type lateIndexField struct{ l *lateAPI }

func (x lateIndexField) Start(ctx context.Context, account, id string, req service.IndexStatusRequest) (*service.IndexStatusRun, error) {
	return x.l.s.IndexStatus().Start(ctx, account, id, req)
}
func (x lateIndexField) Get(ctx context.Context, account, id string) (*service.IndexStatusRun, error) {
	return x.l.s.IndexStatus().Get(ctx, account, id)
}
func (x lateIndexField) Lookup(ctx context.Context, account string, req service.FieldVitalsRequest) (*service.FieldVitalsResponse, error) {
	return x.l.s.FieldVitals().Lookup(ctx, account, req)
}
func (x lateIndexField) Project(ctx context.Context, account, id string, ff fieldvitals.FormFactor) (*service.FieldVitalsResponse, error) {
	return x.l.s.FieldVitals().Project(ctx, account, id, ff)
}

// newIndexEnv is a dashboard over the real API server, whose Search
// Console and CrUX are local fakes speaking the documented formats (the
// Search Console one enforcing the quotas by the ledger's clock), with a
// stored analysis of a synthetic crawl of pages pages whose home page
// has lab vitals. It returns the analysis ID and the Search Console fake.
func newIndexEnv(t *testing.T, pages int) (*env, *lateAPI, string, *googlefake.SearchConsole) {
	t.Helper()
	clock := &virtualClock{now: time.Date(2026, 12, 1, 17, 0, 0, 0, time.UTC)}
	// A tenth of Google's quota keeps a day's run cheap (indexstatus's
	// tests run the documented one over 10,000 pages).
	q := indexstatus.Quota{PerMinute: 60, PerDay: 200}
	gsc := &googlefake.SearchConsole{Now: clock.Now, PerMinute: q.PerMinute, PerDay: q.PerDay, Status: indexstatustest.Status}
	cx := &googlefake.CrUX{Data: func(q googlefake.CrUXQuery) *googlefake.CrUXData {
		if strings.HasSuffix(q.URL, "/blog/3") {
			return nil
		}
		return &googlefake.CrUXData{P75: map[string]float64{"largest_contentful_paint": 2900, "interaction_to_next_paint": 240, "cumulative_layout_shift": 0.06, "first_contentful_paint": 1700}}
	}}
	gs, cs := httptest.NewServer(gsc), httptest.NewServer(cx)
	t.Cleanup(gs.Close)
	t.Cleanup(cs.Close)
	ins, err := searchconsole.New(&searchconsole.Options{BaseURL: gs.URL, TokenSource: oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "t"})})
	if err != nil {
		t.Fatal(err)
	}
	src, err := crux.New("AIza-dash", &crux.Options{BaseURL: cs.URL})
	if err != nil {
		t.Fatal(err)
	}
	late := &lateAPI{}
	lf := lateIndexField{late}
	e := newEnv(t, &envOptions{realClock: true, opts: dashboard.Options{Analyses: late, Quota: late, Projects: lateProjects{late}, IndexStatus: lf, FieldVitals: lf}, api: func(e *env) http.Handler {
		s, err := httpapi.New(context.Background(), &httpapi.Options{Store: e.st, Auth: e.au, AllowPrivate: true, Queue: idleQueue{},
			Plans:     map[store.Plan]plans.Limits{store.Free: {DailyRequests: 1000, ConcurrentSiteJobs: 5, MaxSitePages: 500}},
			Inspector: ins, IndexLedger: indexstatus.NewLedger(q, clock), FieldVitals: src,
			IndexAccess: func(_ context.Context, _, property string) (bool, error) {
				return property == "sc-domain:example.com", nil
			},
			Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatalf("httpapi.New: %v", err)
		}
		if err := s.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		late.s = s
		return s
	}})
	rep := indexstatustest.Site(pages)
	lcp, cls, tbt := 1250.0, 0.01, 140.0
	for i := range rep.Pages {
		if rep.Pages[i].URL == "https://example.com/" {
			rep.Pages[i].LCPMs, rep.Pages[i].CLS, rep.Pages[i].TBTMs = &lcp, &cls, &tbt
		}
	}
	return e, late, storeAnalysis(t, e, rep), gsc
}

// storeAnalysis stores a succeeded site analysis with rep as its report.
func storeAnalysis(t *testing.T, e *env, rep *crawler.SiteReport) string {
	t.Helper()
	ctx := context.Background()
	req, _ := json.Marshal(httpapi.SiteRequest{Domain: rep.Domain})
	j := &store.Job{AccountID: e.acct.ID, Kind: "site", Status: store.JobQueued, Request: req, CreatedAt: time.Now()}
	if err := e.st.CreateJob(ctx, j); err != nil {
		t.Fatal(err)
	}
	j.Status, j.FinishedAt = store.JobSucceeded, time.Now()
	j.Result, _ = json.Marshal(rep)
	if err := e.st.UpdateJob(ctx, j); err != nil {
		t.Fatal(err)
	}
	return j.ID
}

// TestIndexFieldPage starts an index status run from the analysis's page,
// sees it end with the sample's composition, the quota and the joined
// pages, then looks up field vitals beside the lab and a URL without data.
func TestIndexFieldPage(t *testing.T) {
	e, late, id, gsc := newIndexEnv(t, 2500)
	c := e.client(t)
	token := e.login(t, c)
	page := e.srv.URL + "/dashboard/analyses/" + id + "/index"
	_, body := get(t, c, page)
	if !strings.Contains(body, "Inspect index status") || !strings.Contains(body, "Look up field data") {
		t.Fatalf("page without a run lacks its forms:\n%s", body)
	}
	// A property the operator has not granted is refused as the API
	// refuses it, naming the property, before anything is inspected.
	resp, body := post(t, c, page, url.Values{"csrf_token": {token}, "property": {"sc-domain:victim.example"}})
	if reqs, _, _ := gsc.Stats(); resp.StatusCode != http.StatusForbidden || !strings.Contains(body, "sc-domain:victim.example") || reqs != 0 {
		t.Fatalf("ungranted property: %d, %d inspections\n%s", resp.StatusCode, reqs, body)
	}
	resp, body = post(t, c, page, url.Values{"csrf_token": {token}, "sample": {""}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("start: %d\n%s", resp.StatusCode, body)
	}
	// Each reload is an event; the run is bounded by 200 fake answers.
	for i := 0; !strings.Contains(body, `id="index-inspected"`); i++ {
		if i == 1000 {
			t.Fatalf("the run did not end:\n%s", body)
		}
		time.Sleep(20 * time.Millisecond)
		_, body = get(t, c, page)
	}
	_, _, refused := gsc.Stats()
	for _, want := range []string{`id="index-inspected">200<`, "Inspected of 2475 eligible pages", "at most 60 in one minute",
		"200 of 200 used", "cut by the inspections the property had left today", "index.canonical_mismatch",
		"<td>product</td><td>shop</td><td class=\"num\">1500</td><td class=\"num\">",
		"175 more inspected pages"} {
		if !strings.Contains(body, want) {
			t.Errorf("finished run lacks %q", want)
		}
	}
	if refused != 0 {
		t.Errorf("Search Console refused %d inspections", refused)
	}
	_, body = get(t, c, page+"?url="+url.QueryEscape("https://example.com/")+"&form_factor=PHONE")
	for _, want := range []string{"2900 ms", "1250 ms", "Field is 1650 ms worse than the lab value", "lab: tbt", "not enough data"} {
		if !strings.Contains(body, want) {
			t.Errorf("field section lacks %q", want)
		}
	}
	_, body = get(t, c, page+"?url="+url.QueryEscape("https://example.com/blog/3"))
	if !strings.Contains(body, `id="field-none"`) {
		t.Error("a URL without CrUX data is not shown as not enough data")
	}
	_, body = get(t, c, page+"?url=notaurl")
	if !strings.Contains(body, `id="field-error"`) {
		t.Error("a bad URL shows no error")
	}

	// A project's trend, from the CrUX History API.
	domain := "example.com"
	p, err := lateProjects{late}.Create(context.Background(), e.acct.ID, service.ProjectRequest{Domain: &domain})
	if err != nil {
		t.Fatal(err)
	}
	_, body = get(t, c, e.srv.URL+"/dashboard/projects/"+p.ID)
	if !strings.Contains(body, `id="field-trend-link"`) {
		t.Error("the project page does not link its field trend")
	}
	_, body = get(t, c, e.srv.URL+"/dashboard/projects/"+p.ID+"/field?form_factor=PHONE")
	for _, want := range []string{"Field Web Vitals of example.com", `id="field-trend"`, "LCP p75 (ms)", "CLS p75", "<svg"} {
		if !strings.Contains(body, want) {
			t.Errorf("trend page lacks %q", want)
		}
	}
}

// TestIndexFieldBrowser drives the same page and a project's field trend in
// headless Chromium and takes the screenshots of docs/
// (SEOKIT_UPDATE_SCREENSHOTS=1).
func TestIndexFieldBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("e2e: skipped in -short mode")
	}
	ctx := browser(t)
	e, late, id, _ := newIndexEnv(t, 2500)
	dir := artefacts(t)
	page := e.srv.URL + "/dashboard/analyses/" + id + "/index"
	step := func(name string, timeout time.Duration, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		sctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		if err := chromedp.Do(sctx, steps...); err != nil {
			text, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector("main") ? document.querySelector("main").innerText.slice(0, 2000) : ""`))
			t.Fatalf("%s: %v\npage text:\n%s", name, err, text)
		}
	}
	eval := func(js string) string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Evaluate[string](js))
		if err != nil {
			t.Fatalf("evaluate %s: %v", js, err)
		}
		return v
	}
	step("sign in", 15*time.Second,
		chromedp.Navigate(e.srv.URL+"/dashboard/"), chromedp.WaitVisible(chromedp.CSS("#email")),
		chromedp.SendKeys(chromedp.CSS("#email"), testEmail),
		chromedp.SendKeys(chromedp.CSS("#password"), testPassword),
		chromedp.Click(chromedp.CSS("button.primary")),
		chromedp.WaitVisible(chromedp.CSS("a.tile")),
	)
	step("start index status", 15*time.Second,
		chromedp.Navigate(page), chromedp.WaitVisible(chromedp.CSS(`form[action$="/index"] button`)),
		chromedp.Click(chromedp.CSS(`form[action$="/index"] button`)),
		chromedp.WaitVisible(chromedp.CSS("#index-status")),
	)
	for i := 0; eval(`document.querySelector("#index-inspected") ? "done" : ""`) == ""; i++ {
		if i == 300 {
			t.Fatal("the run did not end")
		}
		step("reload", 15*time.Second, chromedp.Sleep(100*time.Millisecond), chromedp.Navigate(page), chromedp.WaitVisible(chromedp.CSS("#index-status")))
	}
	text := strings.ToLower(eval(`document.querySelector("main").innerText`))
	for _, want := range []string{"200", "2475 eligible", "index.canonical_mismatch", "submitted and indexed"} {
		if !strings.Contains(text, want) {
			t.Errorf("index section lacks %q", want)
		}
	}
	screenshot(t, ctx, dir, "index-status")
	step("field vitals", 15*time.Second,
		chromedp.Navigate(page+"?url="+url.QueryEscape("https://example.com/")+"&form_factor=PHONE#field"),
		chromedp.WaitVisible(chromedp.CSS("#field-compare")),
		chromedp.ScrollIntoView(chromedp.CSS("#field-h")),
	)
	if got := eval(`document.querySelector("#field-compare").innerText`); !strings.Contains(got, "1250 ms") || !strings.Contains(got, "2900 ms") {
		t.Errorf("comparison table: %s", got)
	}
	screenshot(t, ctx, dir, "field-vitals")

	domain := "example.com"
	p, err := lateProjects{late}.Create(context.Background(), e.acct.ID, service.ProjectRequest{Domain: &domain})
	if err != nil {
		t.Fatal(err)
	}
	step("project trend", 15*time.Second,
		chromedp.Navigate(e.srv.URL+"/dashboard/projects/"+p.ID), chromedp.WaitVisible(chromedp.CSS("#field-trend-link")),
		chromedp.Click(chromedp.CSS("#field-trend-link")), chromedp.WaitVisible(chromedp.CSS("#field-trend svg")),
	)
	screenshot(t, ctx, dir, "field-trend")
}
