package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seokit/seokit/analyzer"
	"github.com/seokit/seokit/httpapi/auth"
	"github.com/seokit/seokit/httpapi/plans"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/render"
	"github.com/seokit/seokit/seo"
)

// fakeRenderer renders without a browser: the raw page's HTML with a
// title and a link set by "JavaScript", a one-pixel screenshot. It counts
// its renderings and, when hold is set, waits for it before answering.
type fakeRenderer struct {
	hold    chan struct{}
	calls   atomic.Int64
	active  atomic.Int64
	peak    atomic.Int64
	started chan struct{} // receives once per rendering when not nil
}

// onePixelPNG is a valid 1×1 PNG.
var onePixelPNG = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\x0f\x00\x00\x01\x01\x00\x05\x18\xd8N\x00\x00\x00\x00IEND\xaeB`\x82")

func (f *fakeRenderer) Render(ctx context.Context, req *render.Request) (*render.Result, error) {
	f.calls.Add(1)
	n := f.active.Add(1)
	defer f.active.Add(-1)
	for {
		p := f.peak.Load()
		if n <= p || f.peak.CompareAndSwap(p, n) {
			break
		}
	}
	if f.started != nil {
		select {
		case f.started <- struct{}{}:
		default:
		}
	}
	if f.hold != nil {
		select {
		case <-f.hold:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	html := `<!doctype html><html lang=en><head><title>Rendered shop</title>` +
		`<meta name="description" content="A shop rendered by JavaScript, with a description long enough to count."></head>` +
		`<body><h1>Rendered shop</h1><p>Oak tables and chairs.</p><a href="/js-only">JS only</a></body></html>`
	res := &render.Result{URL: req.URL, FinalURL: req.URL, Status: 200, Device: render.Mobile, HTML: []byte(html),
		Viewport: render.Size{Width: 412, Height: 915}, ElapsedMs: 1}
	if req.Screenshot != render.NoShot && req.Screenshot != "" {
		res.Screenshot = onePixelPNG
	}
	if req.A11y {
		res.A11y = &render.A11y{Engine: "axe-core 4.14.1", Tags: render.A11yTags, Passes: []string{"html-has-lang"},
			Violations: []render.A11yRule{{ID: "image-alt", Impact: "critical", Help: "Images must have alternative text",
				HelpURL: "https://dequeuniversity.com/rules/axe/4.14/image-alt", Tags: []string{"wcag2a", "wcag111"},
				Nodes: []render.A11yNode{{Target: "img", HTML: `<img src="a.png">`}}, NodeCount: 1}}}
	}
	return res, nil
}

// shellSite serves an application shell at / and /js-only.
func shellSite(t *testing.T) *httptest.Server {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/", "/js-only":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, `<!doctype html><html><head></head><body><div id="root"></div><script src="/app.js"></script></body></html>`)
		case "/app.js":
			w.Header().Set("Content-Type", "text/javascript")
			fmt.Fprint(w, `document.title = "Rendered shop";`)
		case "/plain":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, `<!doctype html><html><head><title>Plain</title></head><body><main><p>`+strings.Repeat("Words a server sends. ", 40)+`</p></main></body></html>`)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(ts.Close)
	return ts
}

func TestRenderUnavailable(t *testing.T) {
	a := newTestAPI(t, &Options{AllowPrivate: true, Queue: idleQueue{}})
	site := shellSite(t)
	for _, call := range []struct{ method, path, body string }{
		{"POST", "/v1/analyze/page", `{"url":"` + site.URL + `/","options":{"render":"always"}}`},
		{"GET", "/v1/analyze?render=auto&url=" + site.URL + "/", ""},
		{"POST", "/v1/analyze/site", `{"url":"` + site.URL + `/","options":{"render":"auto"}}`},
	} {
		e := apiErr(t, a.call(call.method, call.path, a.key, call.body), 503, CodeRenderingUnavailable)
		if !strings.Contains(e.Message, "raw analysis works") {
			t.Errorf("%s %s: message %q does not say raw analysis works", call.method, call.path, e.Message)
		}
	}
	// Raw analyses keep working.
	wantStatus(t, a.call("POST", "/v1/analyze/page", a.key, `{"url":"`+site.URL+`/","options":{"render":"none"}}`), 200)
	wantStatus(t, a.call("GET", "/v1/analyze?url="+site.URL+"/", a.key, ""), 200)
	wantStatus(t, a.call("POST", "/v1/analyze/site", a.key, `{"url":"`+site.URL+`/"}`), 202)
}

func TestRenderOptionsInvalid(t *testing.T) {
	a := newTestAPI(t, &Options{AllowPrivate: true, Queue: idleQueue{}, Renderer: &fakeRenderer{}})
	site := shellSite(t)
	page := func(opts string) string { return `{"url":"` + site.URL + `/","options":` + opts + `}` }
	siteBody := func(opts string) string { return `{"url":"` + site.URL + `/","options":` + opts + `}` }
	free := plans.Defaults[store.Free].RenderPages
	cases := []struct {
		name, method, path, body, field string
	}{
		{"unknown mode", "POST", "/v1/analyze/page", page(`{"render":"sometimes"}`), "options.render"},
		{"mode not a string", "POST", "/v1/analyze/page", page(`{"render":true}`), "options.render"},
		{"query mode", "GET", "/v1/analyze?render=ALWAYS&url=" + site.URL + "/", "", "options.render"},
		{"unknown screenshot", "POST", "/v1/analyze/page", page(`{"render":"always","screenshot":"huge"}`), "options.screenshot"},
		{"screenshot without rendering", "POST", "/v1/analyze/page", page(`{"screenshot":"viewport"}`), "options.screenshot"},
		{"site full screenshot", "POST", "/v1/analyze/site", siteBody(`{"render":"always","screenshot":"full"}`), "options.screenshot"},
		{"site render mode", "POST", "/v1/analyze/site", siteBody(`{"render":"yes"}`), "options.render"},
		{"site render pages over the plan", "POST", "/v1/analyze/site", siteBody(`{"render":"always","renderPages":` + strconv.Itoa(free+1) + `}`), "options.renderPages"},
		{"site render pages negative", "POST", "/v1/analyze/site", siteBody(`{"render":"always","renderPages":-1}`), "options.renderPages"},
		{"a11y without rendering", "POST", "/v1/analyze/page", page(`{"a11y":true}`), "options.a11y"},
		{"a11y not a boolean", "POST", "/v1/analyze/page", page(`{"render":"always","a11y":"yes"}`), "options.a11y"},
		{"query a11y without rendering", "GET", "/v1/analyze?a11y=true&url=" + site.URL + "/", "", "options.a11y"},
		{"query a11y not a boolean", "GET", "/v1/analyze?render=always&a11y=maybe&url=" + site.URL + "/", "", "a11y"},
		{"site a11y without rendering", "POST", "/v1/analyze/site", siteBody(`{"a11y":true}`), "options.a11y"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := apiErr(t, a.call(tc.method, tc.path, a.key, tc.body), 400, CodeInvalidRequest)
			if e.Field != tc.field {
				t.Errorf("field %q, want %q (%s)", e.Field, tc.field, e.Message)
			}
		})
	}
}

func TestRenderErrorMapping(t *testing.T) {
	e, _ := toAPIError(fmt.Errorf("analyzer: %w", render.ErrUnavailable))
	if e.Status != 503 || e.Code != CodeRenderingUnavailable {
		t.Errorf("render.ErrUnavailable: %d %s, want 503 %s", e.Status, e.Code, CodeRenderingUnavailable)
	}
	if e, _ := toAPIError(fmt.Errorf("x: %w", seo.ErrUnavailable)); e.Code != CodeUnavailable {
		t.Errorf("seo.ErrUnavailable: %s, want %s", e.Code, CodeUnavailable)
	}
}

// TestRenderQuotaUnits: an analysis that renders counts RenderQuotaUnits
// requests against the daily quota, page or site; a raw one counts one,
// and so does a page analysis in "auto" mode whose page needs no
// rendering.
func TestRenderQuotaUnits(t *testing.T) {
	const daily = 3*RenderQuotaUnits + 14 // what the calls below take, and 2 units left
	a := newTestAPI(t, &Options{AllowPrivate: true, Queue: idleQueue{}, Renderer: &fakeRenderer{},
		Limits: map[store.Plan]int{store.Free: daily, store.Pro: daily}})
	site := shellSite(t)
	before := a.remaining(t)
	wantStatus(t, a.call("POST", "/v1/analyze/page", a.key, `{"url":"`+site.URL+`/","options":{"render":"always"}}`), 200)
	if got, want := a.remaining(t), before-1-RenderQuotaUnits; got != want {
		t.Errorf("after a rendering page analysis: %d remaining, want %d", got, want)
	}
	before = a.remaining(t)
	wantStatus(t, a.call("POST", "/v1/analyze/page", a.key, `{"url":"`+site.URL+`/"}`), 200)
	if got, want := a.remaining(t), before-2; got != want {
		t.Errorf("after a raw page analysis: %d remaining, want %d", got, want)
	}
	before = a.remaining(t)
	wantStatus(t, a.call("POST", "/v1/analyze/page", a.key, `{"url":"`+site.URL+`/plain","options":{"render":"auto"}}`), 200)
	if got, want := a.remaining(t), before-2; got != want {
		t.Errorf("after an auto page analysis of a page that needs no rendering: %d remaining, want %d", got, want)
	}
	before = a.remaining(t)
	wantStatus(t, a.call("POST", "/v1/analyze/page", a.key, `{"url":"`+site.URL+`/","options":{"render":"auto"}}`), 200)
	if got, want := a.remaining(t), before-1-RenderQuotaUnits; got != want {
		t.Errorf("after an auto page analysis that rendered: %d remaining, want %d", got, want)
	}
	before = a.remaining(t)
	wantStatus(t, a.call("POST", "/v1/analyze/site", a.key, `{"url":"`+site.URL+`/","options":{"render":"auto"}}`), 202)
	if got, want := a.remaining(t), before-1-RenderQuotaUnits; got != want {
		t.Errorf("after a rendering site analysis: %d remaining, want %d", got, want)
	}
	// Too few units left for a rendering: 429 naming the cost, while a
	// raw analysis still fits.
	if left := a.remaining(t); left >= RenderQuotaUnits {
		t.Fatalf("%d units left; the test expects fewer than %d", left, RenderQuotaUnits)
	}
	e := apiErr(t, a.call("POST", "/v1/analyze/page", a.key, `{"url":"`+site.URL+`/","options":{"render":"always"}}`), 429, CodeRateLimited)
	if !strings.Contains(e.Message, strconv.Itoa(RenderQuotaUnits)+" requests") {
		t.Errorf("refusal %q does not say what a rendering counts", e.Message)
	}
}

// TestRenderAutoPastQuota: a page analysis in "auto" mode whose page needs
// rendering when the quota has too few units left is analysed as the
// server sent it and says why it was not rendered, never as a rendering
// failure.
func TestRenderAutoPastQuota(t *testing.T) {
	a := newTestAPI(t, &Options{AllowPrivate: true, Queue: idleQueue{}, Renderer: &fakeRenderer{},
		Limits: map[store.Plan]int{store.Free: 2, store.Pro: 2}})
	site := shellSite(t)
	var rep analyzer.Report
	resp := a.call("POST", "/v1/analyze/page", a.key, `{"url":"`+site.URL+`/","options":{"render":"auto"}}`)
	wantStatus(t, resp, 200)
	readJSON(t, resp, &rep)
	if rep.Render == nil || rep.Render.Rendered || !strings.HasPrefix(rep.Render.Reason, "not rendered: ") {
		t.Errorf("auto analysis past the quota: render %+v, want not rendered with the quota's reason", rep.Render)
	}
	for _, f := range rep.Findings {
		if f.ID == "render.failed" {
			t.Errorf("a rendering declined by the quota is reported as failed: %+v", f)
		}
	}
}

// TestRenderAdmissionClass: page analyses that render take slots of their
// own class, so they cannot take the slots of raw ones.
func TestRenderAdmissionClass(t *testing.T) {
	a := newTestAPI(t, &Options{AllowPrivate: true, Renderer: &fakeRenderer{},
		Admission: &AdmissionOptions{MaxRenders: 1, MaxPageAnalyses: 1, AccountConcurrency: 5, Wait: time.Millisecond}})
	site := newBlockingSite(t)
	status := sendHeld(t, a, a.req("POST", "/v1/analyze/page", a.key, `{"url":"`+site.URL+`/","options":{"render":"always"}}`), site.started, "analysis")
	resp := a.call("POST", "/v1/analyze/page", a.key, `{"url":"`+site.URL+`/","options":{"render":"always"}}`)
	if resp.Header.Get("Retry-After") == "" {
		t.Error("refusal without Retry-After")
	}
	if e := apiErr(t, resp, 503, CodeUnavailable); !strings.Contains(e.Message, "renderings") {
		t.Errorf("message %q does not name renderings", e.Message)
	}
	// A raw analysis of another site is admitted meanwhile.
	other := shellSite(t)
	wantStatus(t, a.call("GET", "/v1/analyze?url="+other.URL+"/", a.key, ""), 200)
	site.free()
	if got := <-status; got != 200 {
		t.Errorf("held rendering analysis: status %d, want 200", got)
	}
}

func TestRenderAdmissionPerAccount(t *testing.T) {
	a := newTestAPI(t, &Options{AllowPrivate: true, Renderer: &fakeRenderer{},
		Admission: &AdmissionOptions{MaxRenders: 5, AccountConcurrency: 1, Wait: time.Millisecond}})
	site := newBlockingSite(t)
	status := sendHeld(t, a, a.req("POST", "/v1/analyze/page", a.key, `{"url":"`+site.URL+`/","options":{"render":"always"}}`), site.started, "analysis")
	resp := a.call("POST", "/v1/analyze/page", a.key, `{"url":"`+site.URL+`/","options":{"render":"always"}}`)
	if resp.Header.Get("Retry-After") == "" {
		t.Error("refusal without Retry-After")
	}
	apiErr(t, resp, 429, CodeRateLimited)
	// Another account is not limited by the first one's renderings.
	_, key := a.account("b@example.com", store.Free, auth.ScopeRead, auth.ScopeWrite)
	other := shellSite(t)
	wantStatus(t, a.call("POST", "/v1/analyze/page", key, `{"url":"`+other.URL+`/","options":{"render":"always"}}`), 200)
	site.free()
	if got := <-status; got != 200 {
		t.Errorf("held rendering analysis: status %d, want 200", got)
	}
}

// TestJobRenderer: a site analysis's renderings wait for the rendering
// class's slots and stop at the plan's cap.
func TestJobRenderer(t *testing.T) {
	adm := newAdmission(&AdmissionOptions{MaxRenders: 2, AccountConcurrency: 1}, discardLogger())
	f := &fakeRenderer{hold: make(chan struct{}), started: make(chan struct{}, 16)}
	jr := &jobRenderer{r: f, adm: adm, max: 6}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := jr.Render(ctx, &render.Request{URL: "http://127.0.0.1/"})
			errs <- err
		}()
	}
	// Two renderings run; the others wait in the queue for a slot.
	for range 2 {
		select {
		case <-f.started:
		case <-ctx.Done():
			t.Fatal("renderings never started")
		}
	}
	close(f.hold)
	wg.Wait()
	close(errs)
	capped, ok := 0, 0
	for err := range errs {
		switch {
		case err == nil:
			ok++
		case errors.Is(err, render.ErrDeclined):
			capped++
		default:
			t.Errorf("Render: %v", err)
		}
	}
	if ok != 6 || capped != 2 {
		t.Errorf("%d rendered, %d over the cap; want 6 and 2", ok, capped)
	}
	if p := f.peak.Load(); p > 2 {
		t.Errorf("%d renderings at once, want at most MaxRenders 2", p)
	}
}

// TestRenderCapacity: MaxRenders defaults to the renderer's capacity.
func TestRenderCapacity(t *testing.T) {
	a := newTestAPI(t, &Options{Renderer: capacityRenderer{fakeRenderer: &fakeRenderer{}, n: 7}})
	if got := a.srv.adm.cfg.MaxRenders; got != 7 {
		t.Errorf("MaxRenders %d, want the renderer's capacity 7", got)
	}
	b := newTestAPI(t, nil)
	if got := b.srv.adm.cfg.MaxRenders; got != DefaultMaxRenders {
		t.Errorf("MaxRenders without a renderer %d, want %d", got, DefaultMaxRenders)
	}
}

type capacityRenderer struct {
	*fakeRenderer
	n int
}

func (c capacityRenderer) Capacity() int { return c.n }

// TestRenderPageAnalysis: a page analysis with options.render runs the
// checks on the rendered DOM and returns the render section with its
// screenshot; without it the report has no render section.
func TestRenderPageAnalysis(t *testing.T) {
	f := &fakeRenderer{}
	a := newTestAPI(t, &Options{AllowPrivate: true, Renderer: f})
	site := shellSite(t)
	var rep struct {
		Title  *struct{ Text string } `json:"title"`
		Render *struct {
			Mode       string `json:"mode"`
			Rendered   bool   `json:"rendered"`
			Screenshot []byte `json:"screenshot"`
			Changes    []struct {
				Field, Raw, Rendered string
			} `json:"changes"`
		} `json:"render"`
	}
	resp := a.call("POST", "/v1/analyze/page", a.key, `{"url":"`+site.URL+`/","options":{"render":"always"}}`)
	wantStatus(t, resp, 200)
	readJSON(t, resp, &rep)
	if rep.Render == nil || !rep.Render.Rendered || rep.Render.Mode != "always" {
		t.Fatalf("render section %+v, want a rendered page", rep.Render)
	}
	if string(rep.Render.Screenshot) != string(onePixelPNG) {
		t.Errorf("screenshot of %d bytes, want the renderer's viewport PNG", len(rep.Render.Screenshot))
	}
	title := false
	for _, c := range rep.Render.Changes {
		title = title || (c.Field == "title" && c.Rendered == "Rendered shop")
	}
	if !title {
		t.Errorf("changes %+v do not show the title set by JavaScript", rep.Render.Changes)
	}
	// GET, auto: the shell is rendered; screenshot none is honoured.
	resp = a.call("GET", "/v1/analyze?render=auto&screenshot=none&url="+site.URL+"/", a.key, "")
	wantStatus(t, resp, 200)
	rep.Render = nil
	readJSON(t, resp, &rep)
	if rep.Render == nil || !rep.Render.Rendered || len(rep.Render.Screenshot) != 0 {
		t.Errorf("GET render=auto&screenshot=none: %+v, want rendered without a screenshot", rep.Render)
	}
	calls := f.calls.Load()
	resp = a.call("POST", "/v1/analyze/page", a.key, `{"url":"`+site.URL+`/"}`)
	wantStatus(t, resp, 200)
	rep.Render = nil
	readJSON(t, resp, &rep)
	if rep.Render != nil || f.calls.Load() != calls {
		t.Errorf("raw analysis rendered: %+v", rep.Render)
	}
}

// TestRenderSiteAnalysis: a site analysis with options.render renders its
// pages, at most options.renderPages of them, and crawls the links found
// only after rendering.
func TestRenderSiteAnalysis(t *testing.T) {
	f := &fakeRenderer{}
	a := newTestAPI(t, &Options{AllowPrivate: true, Renderer: f})
	site := shellSite(t)
	resp := a.call("POST", "/v1/analyze/site", a.key, `{"url":"`+site.URL+`/","options":{"render":"always","renderPages":1,"maxPages":5}}`)
	wantStatus(t, resp, 202)
	var j Job
	readJSON(t, resp, &j)
	if j.Options.Render != "always" || j.Options.Screenshot != "viewport" || j.Options.RenderPages != 1 {
		t.Errorf("job options %+v, want render always, viewport screenshots, 1 page", j.Options)
	}
	done := waitJob(t, a, a.key, j.ID, func(j Job) bool { return j.Status == "succeeded" || j.Status == "failed" })
	if done.Status != "succeeded" {
		t.Fatalf("job %s: %s", done.Status, done.Error)
	}
	var rep struct {
		Render *struct {
			Rendered int `json:"rendered"`
		} `json:"render"`
		Pages []struct {
			URL          string `json:"url"`
			Rendered     *bool  `json:"rendered"`
			RenderReason string `json:"renderReason"`
		} `json:"pages"`
	}
	if err := json.Unmarshal(done.Result, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Render == nil || rep.Render.Rendered != 1 {
		t.Fatalf("render summary %+v, want 1 page rendered (the plan's cap asked)", rep.Render)
	}
	if n := f.calls.Load(); n != 1 {
		t.Errorf("%d renderings, want 1", n)
	}
	found := false
	for _, p := range rep.Pages {
		found = found || strings.HasSuffix(p.URL, "/js-only")
	}
	if !found {
		t.Errorf("pages %+v: the link found only after rendering was not crawled", rep.Pages)
	}
}

// TestA11yPageAnalysis: options.a11y (POST) and a11y=true (GET) audit the
// rendered page: the report's a11y section with its score and the
// a11y.* findings; without it there is no audit.
func TestA11yPageAnalysis(t *testing.T) {
	a := newTestAPI(t, &Options{AllowPrivate: true, Renderer: &fakeRenderer{}})
	site := shellSite(t)
	type report struct {
		A11y *struct {
			Checked    bool `json:"checked"`
			Score      *int `json:"score"`
			Violations []struct {
				Rule string   `json:"rule"`
				WCAG []string `json:"wcag"`
			} `json:"violations"`
		} `json:"a11y"`
		Findings []struct{ ID string } `json:"findings"`
	}
	for _, c := range []struct{ method, path, body string }{
		{"POST", "/v1/analyze/page", `{"url":"` + site.URL + `/","options":{"render":"always","a11y":true}}`},
		{"GET", "/v1/analyze?render=always&a11y=true&url=" + site.URL + "/", ""},
	} {
		resp := a.call(c.method, c.path, a.key, c.body)
		wantStatus(t, resp, 200)
		var rep report
		readJSON(t, resp, &rep)
		if rep.A11y == nil || !rep.A11y.Checked || rep.A11y.Score == nil || len(rep.A11y.Violations) != 1 ||
			rep.A11y.Violations[0].Rule != "image-alt" || len(rep.A11y.Violations[0].WCAG) != 1 || rep.A11y.Violations[0].WCAG[0] != "1.1.1" {
			t.Fatalf("%s: a11y %+v", c.method, rep.A11y)
		}
		found := false
		for _, f := range rep.Findings {
			found = found || f.ID == "a11y.image-alt"
		}
		if !found {
			t.Errorf("%s: no a11y.image-alt finding in %+v", c.method, rep.Findings)
		}
	}
	resp := a.call("POST", "/v1/analyze/page", a.key, `{"url":"`+site.URL+`/","options":{"render":"always"}}`)
	wantStatus(t, resp, 200)
	var rep report
	readJSON(t, resp, &rep)
	if rep.A11y != nil {
		t.Errorf("audited without options.a11y: %+v", rep.A11y)
	}
}

// TestA11ySiteAnalysis: a site analysis with options.a11y audits its
// rendered pages, within options.renderPages: the page past the cap is
// reported as not audited, and the report's a11y summary groups the
// violations.
func TestA11ySiteAnalysis(t *testing.T) {
	f := &fakeRenderer{}
	a := newTestAPI(t, &Options{AllowPrivate: true, Renderer: f})
	site := shellSite(t)
	resp := a.call("POST", "/v1/analyze/site", a.key, `{"url":"`+site.URL+`/","options":{"render":"always","renderPages":1,"maxPages":5,"a11y":true}}`)
	wantStatus(t, resp, 202)
	var j Job
	readJSON(t, resp, &j)
	if !j.Options.A11y {
		t.Errorf("job options %+v, want a11y", j.Options)
	}
	done := waitJob(t, a, a.key, j.ID, func(j Job) bool { return j.Status == "succeeded" || j.Status == "failed" })
	if done.Status != "succeeded" {
		t.Fatalf("job %s: %s", done.Status, done.Error)
	}
	var rep struct {
		A11y *struct {
			Checked           int            `json:"checked"`
			NotChecked        int            `json:"notChecked"`
			NotCheckedReasons map[string]int `json:"notCheckedReasons"`
			Groups            []struct {
				Rule  string `json:"rule"`
				Pages int    `json:"pages"`
			} `json:"groups"`
		} `json:"a11y"`
	}
	if err := json.Unmarshal(done.Result, &rep); err != nil {
		t.Fatal(err)
	}
	a11y := rep.A11y
	if a11y == nil || a11y.Checked != 1 || a11y.NotChecked < 1 || len(a11y.Groups) != 1 || a11y.Groups[0].Rule != "image-alt" || a11y.Groups[0].Pages != 1 {
		t.Fatalf("a11y summary %+v, want 1 page audited (the plan's cap asked), the rest not", a11y)
	}
	for reason := range a11y.NotCheckedReasons {
		if !strings.Contains(reason, "not rendered") {
			t.Errorf("not audited because %q, want the rendering cap", reason)
		}
	}
}

// TestRenderRefusedCountsOnce: a rendering page analysis refused by
// admission costs one request, as any refused request does, not the
// units of a rendering it did not get.
func TestRenderRefusedCountsOnce(t *testing.T) {
	a := newTestAPI(t, &Options{AllowPrivate: true, Renderer: &fakeRenderer{}, Limits: map[store.Plan]int{store.Free: 1000},
		Admission: &AdmissionOptions{MaxRenders: 5, AccountConcurrency: 1, Wait: time.Millisecond}})
	site := newBlockingSite(t)
	status := sendHeld(t, a, a.req("POST", "/v1/analyze/page", a.key, `{"url":"`+site.URL+`/","options":{"render":"always"}}`), site.started, "analysis")
	before := a.remaining(t)
	apiErr(t, a.call("POST", "/v1/analyze/page", a.key, `{"url":"`+site.URL+`/","options":{"render":"always"}}`), 429, CodeRateLimited)
	if got, want := a.remaining(t), before-2; got != want {
		t.Errorf("after a refused rendering analysis: %d remaining, want %d (one for it, one for the count)", got, want)
	}
	site.free()
	if got := <-status; got != 200 {
		t.Errorf("held rendering analysis: status %d, want 200", got)
	}
}

// TestRenderAutoBusyDeclined: a page analysis in "auto" mode whose page
// needs rendering while every rendering slot is taken waits for one as
// long as any request waits for admission, then reports the raw page,
// not rendered, with the reason, and is counted as a raw analysis. It
// waited for as long as the client did, holding its page analysis slot.
func TestRenderAutoBusyDeclined(t *testing.T) {
	fr := &fakeRenderer{hold: make(chan struct{}), started: make(chan struct{}, 1)}
	a := newTestAPI(t, &Options{AllowPrivate: true, Renderer: fr, Limits: map[store.Plan]int{store.Free: 1000},
		Admission: &AdmissionOptions{MaxRenders: 1, Wait: 300 * time.Millisecond}})
	site := shellSite(t)
	_, keyB := a.account("b@example.com", store.Free, auth.ScopeRead, auth.ScopeWrite)
	status := sendHeld(t, a, a.req("POST", "/v1/analyze/page", keyB, `{"url":"`+site.URL+`/","options":{"render":"always"}}`), fr.started, "rendering")
	before := a.remaining(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := time.Now()
	resp, err := a.send(a.req("POST", "/v1/analyze/page", a.key, `{"url":"`+site.URL+`/","options":{"render":"auto"}}`).WithContext(ctx))
	if err != nil {
		t.Fatalf("auto analysis while the renderings are busy: %v after %v, want an answer after the admission wait", err, time.Since(start))
	}
	wantStatus(t, resp, 200)
	var rep analyzer.Report
	readJSON(t, resp, &rep)
	if rep.Render == nil || rep.Render.Rendered || !strings.Contains(rep.Render.Reason, "as many renderings as it can") {
		t.Errorf("render %+v, want not rendered because the server is busy", rep.Render)
	}
	if after := a.remaining(t); after != before-2 {
		t.Errorf("remaining %d then %d: the declined rendering was counted", before, after)
	}
	if n := a.srv.adm.kinds[KindPage].inFlight.Load(); n != 0 {
		t.Errorf("%d page analyses still admitted after the answer", n)
	}
	close(fr.hold)
	if got := <-status; got != 200 {
		t.Errorf("held rendering analysis: status %d, want 200", got)
	}
}

// TestRenderRefusalsCountOnce: a rendering analysis refused, a site
// analysis past the plan's cap of queued and running ones or a page
// analysis the day cannot pay the rendering of, costs one request, as
// any refused request does: none of its rendering's units is counted.
func TestRenderRefusalsCountOnce(t *testing.T) {
	a := newTestAPI(t, &Options{AllowPrivate: true, Queue: idleQueue{}, Renderer: &fakeRenderer{},
		Limits: map[store.Plan]int{store.Free: 1000, store.Pro: 5}})
	site := shellSite(t)
	// remaining counts one request of key and returns what is left after
	// it, -1 when the day has nothing left for it.
	remaining := func(key string) int {
		t.Helper()
		resp := a.call("GET", "/v1/analyze/site?limit=1", key, "")
		if resp.StatusCode == 429 {
			return -1
		}
		wantStatus(t, resp, 200)
		n, err := strconv.Atoi(resp.Header.Get("X-RateLimit-Remaining"))
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	// Free runs one site analysis at once; the idle queue keeps it queued.
	wantStatus(t, a.call("POST", "/v1/analyze/site", a.key, `{"url":"`+site.URL+`/"}`), 202)
	before := remaining(a.key)
	apiErr(t, a.call("POST", "/v1/analyze/site", a.key, `{"url":"`+site.URL+`/","options":{"render":"auto"}}`), 429, CodeRateLimited)
	if got, want := remaining(a.key), before-2; got != want {
		t.Errorf("after a rendering site analysis refused by the plan's cap: %d remaining, want %d (one for it, one for the count)", got, want)
	}
	// An account of 5 requests a day: after the count 4 are left, after
	// the request 3, fewer than the rendering's 4 more.
	_, key := a.account("pro@example.com", store.Pro, auth.ScopeRead, auth.ScopeWrite)
	before = remaining(key)
	apiErr(t, a.call("POST", "/v1/analyze/page", key, `{"url":"`+site.URL+`/","options":{"render":"always"}}`), 429, CodeRateLimited)
	if got, want := remaining(key), before-2; got != want {
		t.Errorf("after a rendering page analysis the day could not pay: %d remaining (-1: none for the count), want %d", got, want)
	}
}

// sendHeld sends req in the background and waits until started says it
// holds what it was held on (the site got its request, the renderer
// started); the returned channel gets its status, -1 when it failed.
func sendHeld(t *testing.T, a *testAPI, req *http.Request, started <-chan struct{}, what string) <-chan int {
	t.Helper()
	status := make(chan int, 1)
	go func() {
		resp, err := a.send(req)
		if err != nil {
			status <- -1
			return
		}
		resp.Body.Close()
		status <- resp.StatusCode
	}()
	select {
	case <-started:
	case st := <-status:
		t.Fatalf("the held %s ended with status %d", what, st)
	case <-time.After(30 * time.Second):
		t.Fatalf("the held %s never started", what)
	}
	return status
}

// remaining reads how many requests of the day the test account has left,
// from a request that costs one.
func (a *testAPI) remaining(t *testing.T) int {
	t.Helper()
	resp := a.call("GET", "/v1/analyze/site?limit=1", a.key, "")
	wantStatus(t, resp, 200)
	n, err := strconv.Atoi(resp.Header.Get("X-RateLimit-Remaining"))
	if err != nil {
		t.Fatal(err)
	}
	return n
}
