package dashboard_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/httpapi"
	"github.com/seokit/seokit/httpapi/dashboard"
	"github.com/seokit/seokit/httpapi/plans"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/render"
)

// TestAnalysisAccessibility: the analysis page of an audited crawl shows
// the accessibility section: the mean score, pages audited and not (with
// the reasons), and the violations by rule and template with the shared
// ones marked; a crawl without the audit has no such section.
func TestAnalysisAccessibility(t *testing.T) {
	e := newEnv(t, nil)
	ctx := context.Background()
	score := 83
	rep := &crawler.SiteReport{Domain: "spa.example", StartURL: "https://spa.example/", StatusCodes: map[int]int{200: 2},
		Crawl:  crawler.CrawlStats{Fetched: 2, StopReason: "done", DepthHistogram: []int{1, 1}},
		Render: &crawler.RenderSummary{Mode: render.Always, Device: render.Mobile, Rendered: 2},
		A11y: &crawler.A11ySummary{Standard: "automated subset of WCAG", Checked: 2, NotChecked: 1, NotCheckedReasons: map[string]int{"not checked: axe-core not found": 1},
			Score: &score, PagesWithViolations: 2, Groups: []crawler.A11yGroup{{Rule: "color-contrast", CheckID: "a11y.color-contrast", Impact: "serious",
				WCAG: []string{"1.4.3"}, Level: "AA", Template: "aaaaaaaaaaaa", Pages: 2, TemplatePages: 2, Shared: true, Nodes: 4, Target: "footer > p",
				Examples: []string{"https://spa.example/"}}}},
	}
	res, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	j := &store.Job{AccountID: e.acct.ID, Kind: "site", Request: []byte(`{"domain":"spa.example","options":{"render":"always","a11y":true}}`)}
	if err := e.st.CreateJob(ctx, j); err != nil {
		t.Fatal(err)
	}
	j.Status, j.Result, j.StartedAt, j.FinishedAt = store.JobSucceeded, res, time.Now(), time.Now()
	if err := e.st.UpdateJob(ctx, j); err != nil {
		t.Fatal(err)
	}
	c := e.client(t)
	e.login(t, c)
	resp, body := get(t, c, e.srv.URL+"/dashboard/analyses/"+j.ID)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("analysis page: %d", resp.StatusCode)
	}
	for _, want := range []string{`id="accessibility"`, `<a href="#accessibility">Accessibility</a>`, "automated subset of WCAG", `<span class="num">83</span>`, "not checked: axe-core not found (1)",
		"<code>color-contrast</code>", "1.4.3 AA", "2 of 2 <strong>shared</strong>", "footer &gt; p"} {
		if !strings.Contains(body, want) {
			t.Errorf("analysis page lacks %q", want)
		}
	}
	plain, _ := renderedJob(t, e, 1)
	if _, body := get(t, c, e.srv.URL+"/dashboard/analyses/"+plain.ID); strings.Contains(body, `accessibility"`) {
		t.Error("an accessibility section for a crawl without the audit")
	}
}

// TestAnalysisA11yChoice starts analyses with the form's accessibility
// checkbox: it says it needs rendering; with rendering "none" the service's
// refusal of options.a11y (the API server's, as examples/server wires it)
// comes back as a 400 on the checkbox, and no job is created; with
// rendering the job's request carries options.a11y.
func TestAnalysisA11yChoice(t *testing.T) {
	late := &lateAPI{}
	e := newEnv(t, &envOptions{realClock: true, opts: dashboard.Options{Analyses: late, Quota: late},
		api: func(e *env) http.Handler {
			s, err := httpapi.New(context.Background(), &httpapi.Options{Store: e.st, Auth: e.au, AllowPrivate: true, Queue: idleQueue{},
				Plans:    map[store.Plan]plans.Limits{store.Free: {ConcurrentSiteJobs: 5}},
				Renderer: unusedRenderer{}, Logger: slog.New(slog.DiscardHandler)})
			if err != nil {
				t.Fatalf("httpapi.New: %v", err)
			}
			if err := s.Start(context.Background()); err != nil {
				t.Fatalf("Start: %v", err)
			}
			t.Cleanup(func() { s.Close() })
			late.s = s
			return s
		}})
	c := e.client(t)
	token := e.login(t, c)
	_, body := get(t, c, e.srv.URL+"/dashboard/analyses")
	for _, v := range []string{`name="a11y"`, `data-needs-render="render"`, `aria-describedby="a11y-hint"`, "Needs rendering (Auto or Always)"} {
		if !strings.Contains(body, v) {
			t.Fatalf("the new analysis form has no %s", v)
		}
	}
	if strings.Contains(body, `name="a11y" data-needs-render="render" aria-describedby="a11y-hint" checked`) {
		t.Error("the audit is checked by default")
	}
	resp, body := post(t, c, e.srv.URL+"/dashboard/analyses", url.Values{"csrf_token": {token}, "domain": {"127.0.0.1:9"}, "render": {"none"}, "a11y": {"on"}})
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("audit without rendering: %d, want 400", resp.StatusCode)
	}
	for _, v := range []string{`aria-describedby="a11y-hint" checked aria-invalid="true"`, "options.a11y needs options.render"} {
		if !strings.Contains(body, v) {
			t.Errorf("the refusal lacks %q: %s", v, body)
		}
	}
	if jobs, err := e.st.Jobs(context.Background(), e.acct.ID, 10); err != nil || len(jobs) != 0 {
		t.Fatalf("jobs after the refusal: %d, %v", len(jobs), err)
	}
	for _, tc := range []struct {
		render string
		a11y   bool
	}{{"always", true}, {"auto", true}, {"always", false}} {
		form := url.Values{"csrf_token": {token}, "domain": {"127.0.0.1:9"}, "render": {tc.render}}
		if tc.a11y {
			form.Set("a11y", "on")
		}
		if resp, _ := post(t, c, e.srv.URL+"/dashboard/analyses", form); resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("render %s, a11y %v: %d", tc.render, tc.a11y, resp.StatusCode)
		}
		jobs, err := e.st.Jobs(context.Background(), e.acct.ID, 1)
		if err != nil || len(jobs) != 1 {
			t.Fatalf("jobs %d, %v", len(jobs), err)
		}
		var req struct {
			Options struct {
				Render string `json:"render"`
				A11y   bool   `json:"a11y"`
			} `json:"options"`
		}
		if err := json.Unmarshal(jobs[0].Request, &req); err != nil || req.Options.Render != tc.render || req.Options.A11y != tc.a11y {
			t.Errorf("stored request %s, want options.render %s and options.a11y %v", jobs[0].Request, tc.render, tc.a11y)
		}
	}
}

// unusedRenderer lets the API server accept analyses that render; with
// idleQueue none runs, so it is never called.
type unusedRenderer struct{}

func (unusedRenderer) Render(context.Context, *render.Request) (*render.Result, error) {
	return nil, render.ErrUnavailable
}
