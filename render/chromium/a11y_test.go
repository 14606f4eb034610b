package chromium

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/seokit/seokit/render"
)

// requireAxe returns axe-core's script path, skipping the test when it is
// not installed (failing it when SEOKIT_REQUIRE_SERVERS=1).
func requireAxe(t *testing.T) string {
	t.Helper()
	path, err := FindAxe("")
	if err != nil {
		if os.Getenv("SEOKIT_REQUIRE_SERVERS") == "1" {
			t.Fatalf("SEOKIT_REQUIRE_SERVERS=1 but %v", err)
		}
		t.Skipf("skipping: %v", err)
	}
	return path
}

// a11yPages are pages with one known defect each, and one whose own
// scripts try to fake the audit's answer from the page's world, and write
// what they see of the audit's script in #peek.
var a11yPages = map[string]string{
	"/alt": `<!DOCTYPE html><html lang="en"><head><title>Alt</title></head><body><main><h1>Alt</h1><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" width="10" height="10"></main></body></html>`,
	"/faker": `<!DOCTYPE html><html lang="en"><head><title>Faker</title><script>
window.axe = { run: async () => ({ violations: [], incomplete: [], passes: [], inapplicable: [] }), version: "0.0.0" };
Array.prototype.slice = function () { return []; };
addEventListener("load", () => { document.getElementById("peek").textContent = "peek:" + typeof window.__seokitAxe; });
</script></head><body><main><h1>Faker</h1><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" width="10" height="10"><p id="peek"></p></main></body></html>`,
}

func TestA11yAudit(t *testing.T) {
	axePath := requireAxe(t)
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := a11yPages[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, body)
	}))
	p := newTestPool(t, &Options{Tabs: 2, Fetcher: testFetcher(t, srv), AxePath: axePath})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	sent := a11ySent.Load()
	for _, path := range []string{"/alt", "/faker", "/alt"} {
		res, err := p.Render(ctx, &render.Request{URL: srv.URL + path, A11y: true})
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		a := res.A11y
		if a == nil {
			t.Fatalf("%s: no audit: %s", path, res.A11yReason)
		}
		if !strings.HasPrefix(a.Engine, "axe-core 4.") {
			t.Errorf("%s: engine %q", path, a.Engine)
		}
		i := slices.IndexFunc(a.Violations, func(r render.A11yRule) bool { return r.ID == "image-alt" })
		if i < 0 {
			t.Fatalf("%s: image-alt not reported: %+v", path, a.Violations)
		}
		v := a.Violations[i]
		if v.Impact != "critical" || !slices.Contains(v.Tags, "wcag111") || v.NodeCount != 1 || len(v.Nodes) != 1 ||
			!strings.HasPrefix(v.Nodes[0].HTML, "<img") || v.Nodes[0].Target == "" || v.Nodes[0].Summary == "" || !strings.Contains(v.HelpURL, "image-alt") {
			t.Errorf("%s: image-alt = %+v", path, v)
		}
		if len(a.Passes) == 0 {
			t.Errorf("%s: no rule passed", path)
		}
		if !strings.Contains(string(res.HTML), "<img") {
			t.Errorf("%s: the DOM was not read", path)
		}
		if path == "/faker" && !strings.Contains(string(res.HTML), "peek:undefined") {
			t.Errorf("the page's world sees the audit's script, or did not run: %s", res.HTML)
		}
	}
	// The tabs define axe-core in each document: no audit sent it.
	if n := a11ySent.Load() - sent; n != 0 {
		t.Errorf("%d audits sent axe-core's script, want none", n)
	}

	// A rendering that does not ask for the audit runs none.
	res, err := p.Render(ctx, &render.Request{URL: srv.URL + "/alt"})
	if err != nil {
		t.Fatal(err)
	}
	if res.A11y != nil || res.A11yReason != "" {
		t.Errorf("audit without asking: %+v %q", res.A11y, res.A11yReason)
	}
}

// TestA11yNoCSSOM: the audit does not preload the page's style sheets (no
// rule it runs reads them): axe-core would fetch the text of a cross-origin
// sheet again, which the sheet's server would see as a second request. The
// verdicts that depend on styles are axe's own still (color-contrast on
// text the sheet styles).
func TestA11yNoCSSOM(t *testing.T) {
	axePath := requireAxe(t)
	var sheets atomic.Int64
	css := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sheets.Add(1)
		w.Header().Set("Content-Type", "text/css")
		fmt.Fprint(w, "p { color: #ccc; background: #fff; }")
	}))
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!DOCTYPE html><html lang="en"><head><title>Styled</title><link rel="stylesheet" href="%s/s.css"></head>`+
			`<body><main><h1>Styled</h1><p>Light grey text on white.</p></main></body></html>`, css.URL)
	}))
	p := newTestPool(t, &Options{Tabs: 1, Fetcher: testFetcher(t, srv, css), AxePath: axePath})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := p.Render(ctx, &render.Request{URL: srv.URL + "/", A11y: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.A11y == nil {
		t.Fatalf("no audit: %s", res.A11yReason)
	}
	if !slices.ContainsFunc(res.A11y.Violations, func(r render.A11yRule) bool { return r.ID == "color-contrast" }) {
		t.Errorf("color-contrast not reported: %+v", res.A11y.Violations)
	}
	if n := sheets.Load(); n != 1 {
		t.Errorf("the style sheet was requested %d times, want once (by the page)", n)
	}
}

// TestA11yAxeMissing: without axe-core the audit is "not checked", with
// the places looked at, and the rendering itself succeeds.
func TestA11yAxeMissing(t *testing.T) {
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, a11yPages["/alt"])
	}))
	missing := filepath.Join(t.TempDir(), "axe.min.js")
	p := newTestPool(t, &Options{Tabs: 1, Fetcher: testFetcher(t, srv), AxePath: missing})
	if err := p.A11yAvailable(); !errors.Is(err, ErrAxeNotFound) {
		t.Fatalf("A11yAvailable = %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := p.Render(ctx, &render.Request{URL: srv.URL + "/alt", A11y: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.A11y != nil || !strings.HasPrefix(res.A11yReason, "not checked: ") || !strings.Contains(res.A11yReason, "axe-core not found") ||
		!strings.Contains(res.A11yReason, missing) {
		t.Errorf("A11y = %+v, reason %q", res.A11y, res.A11yReason)
	}
	if len(res.HTML) == 0 {
		t.Error("no DOM")
	}
}

func TestCapRules(t *testing.T) {
	long := strings.Repeat("é", 2*render.MaxA11ySnippet)
	rules := make([]render.A11yRule, render.MaxA11yRules+5)
	for i := range rules {
		rules[i] = render.A11yRule{ID: fmt.Sprint("r", i), NodeCount: 0, Nodes: make([]render.A11yNode, render.MaxA11yNodes+3)}
		rules[i].Nodes[0].HTML = long
	}
	rules[0].ID = ""
	out, omitted := capRules(rules, 2)
	if len(out) != render.MaxA11yRules-1 || omitted != 7 {
		t.Fatalf("rules %d, omitted %d", len(out), omitted)
	}
	r := out[0]
	if len(r.Nodes) != render.MaxA11yNodes || r.NodeCount != render.MaxA11yNodes || len(r.Nodes[0].HTML) > render.MaxA11ySnippet || !strings.HasSuffix(r.Nodes[0].HTML, "…") {
		t.Errorf("rule %q: %d nodes, count %d, snippet %d bytes", r.ID, len(r.Nodes), r.NodeCount, len(r.Nodes[0].HTML))
	}
}

// TestA11yAuditTimeout: an audit that outlasts its time is stopped and
// reported as not checked, the rendering keeps its DOM, and the pool
// renders the next page.
func TestA11yAuditTimeout(t *testing.T) {
	axePath := requireAxe(t)
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if r.URL.Path == "/big" {
			// 10,000 elements: axe takes well over 50 ms on them on
			// any machine (about a second on a fast one).
			fmt.Fprint(w, `<!DOCTYPE html><html lang="en"><head><title>Big</title></head><body><main><h1>Big</h1>`)
			for i := range 5000 {
				fmt.Fprintf(w, `<p><a href="#%d">%d</a></p>`, i, i)
			}
			fmt.Fprint(w, `</main></body></html>`)
			return
		}
		fmt.Fprint(w, a11yPages["/alt"])
	}))
	old := a11yWait
	a11yWait = 50 * time.Millisecond
	t.Cleanup(func() { a11yWait = old })
	p := newTestPool(t, &Options{Tabs: 1, Fetcher: testFetcher(t, srv), AxePath: axePath})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := p.Render(ctx, &render.Request{URL: srv.URL + "/big", A11y: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.A11y != nil || res.A11yReason != "not checked: the audit did not finish within 50ms" {
		t.Errorf("A11y %v, reason %q", res.A11y != nil, res.A11yReason)
	}
	if !strings.Contains(string(res.HTML), `href="#4999"`) {
		t.Error("the DOM was not kept")
	}
	a11yWait = old
	res, err = p.Render(ctx, &render.Request{URL: srv.URL + "/alt", A11y: true})
	if err != nil || res.A11y == nil {
		t.Fatalf("next rendering: %v, %q", err, res.A11yReason)
	}
}

// TestA11yCost measures the accessibility audit's cost per rendering
// (SEOKIT_BENCH_A11Y=1): one tab renders a small page (a heading, 120
// words, a few links) again and again, without the audit, with it as the
// pool runs it (axe-core defined in each document by the tab's script),
// and with the script sent by each audit, in alternated rounds. It prints,
// per rendering, the CPU time of the process tree (this process and
// Chromium's, which load does not inflate as it inflates wall time), the
// wall time and axe-core's own run time, and the audit's extra CPU time
// either way.
func TestA11yCost(t *testing.T) {
	if os.Getenv("SEOKIT_BENCH_A11Y") != "1" {
		t.Skip("set SEOKIT_BENCH_A11Y=1 to measure the accessibility audit's cost")
	}
	axePath := requireAxe(t)
	body := `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Page</title></head><body><div id="root"><h1>Page</h1><p>` +
		strings.Repeat("word ", 120) + `</p><nav><a href="/">/</a><a href="/p/1">/p/1</a><a href="/p/2">/p/2</a><a href="/p/3">/p/3</a></nav></div></body></html>`
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, body)
	}))
	p := newTestPool(t, &Options{Browsers: 1, Tabs: 1, Fetcher: testFetcher(t, srv), AxePath: axePath})
	t.Cleanup(func() { a11yPrepare = true })
	type cost struct {
		cpu, wall time.Duration
		axeMs     float64
		n         int
	}
	variants := []struct {
		name          string
		a11y, prepare bool
	}{{"without the audit", false, true}, {"with the audit", true, true}, {"with the audit, script sent each time", true, false}}
	costs := make([]cost, len(variants))
	const rounds, per = 2, 10
	ctx := context.Background()
	for range rounds {
		for i, v := range variants {
			a11yPrepare = v.prepare
			c0, w0 := treeCPU(), time.Now()
			for range per {
				res, err := p.Render(ctx, &render.Request{URL: srv.URL + "/", A11y: v.a11y})
				if err != nil {
					t.Fatal(err)
				}
				if v.a11y && res.A11y == nil {
					t.Fatalf("%s: %s", v.name, res.A11yReason)
				}
				if res.A11y != nil {
					costs[i].axeMs += res.A11y.ElapsedMs
				}
			}
			costs[i].cpu += treeCPU() - c0
			costs[i].wall += time.Since(w0)
			costs[i].n += per
		}
	}
	for i, v := range variants {
		c := costs[i]
		n := time.Duration(c.n)
		t.Logf("%s: %d renderings, per rendering CPU %v, wall %v, axe-core's run %.0f ms", v.name, c.n,
			(c.cpu / n).Round(time.Millisecond), (c.wall / n).Round(time.Millisecond), c.axeMs/float64(c.n))
	}
	off := costs[0].cpu / time.Duration(costs[0].n)
	t.Logf("the audit's CPU time per rendering: +%v as the pool runs it, +%v with the script sent each time",
		(costs[1].cpu/time.Duration(costs[1].n) - off).Round(time.Millisecond), (costs[2].cpu/time.Duration(costs[2].n) - off).Round(time.Millisecond))
}

// treeCPU is the CPU time (user and system) of this process and its
// descendants (Chromium's processes) so far, from getrusage and /proc (in
// clock ticks of 1/100 s).
func treeCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	total := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	for _, pid := range processTree(os.Getpid())[1:] {
		total += pidCPU(pid)
	}
	return total
}

// pidCPU is the CPU time (user and system) of process pid so far, from
// /proc (in clock ticks of 1/100 s); 0 when it cannot be read.
func pidCPU(pid int) time.Duration {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * 10 * time.Millisecond
}

// TestA11yLoaderTopLevel: a tab's documents define axe-core's loader in
// the audit's world only where an audit can run, the top-level document of
// a page: not in its frames, nor in the blank page that resets the tab.
func TestA11yLoaderTopLevel(t *testing.T) {
	axePath := requireAxe(t)
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if r.URL.Path == "/frame" {
			fmt.Fprint(w, `<!DOCTYPE html><html lang="en"><head><title>Frame</title></head><body><p>frame</p></body></html>`)
			return
		}
		fmt.Fprint(w, `<!DOCTYPE html><html lang="en"><head><title>Page</title></head><body><main><h1>Page</h1><iframe src="/frame" title="f"></iframe></main></body></html>`)
	}))
	p := newTestPool(t, &Options{Browsers: 1, Tabs: 1, Fetcher: testFetcher(t, srv), AxePath: axePath})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := p.Render(ctx, &render.Request{URL: srv.URL + "/", A11y: true}); err != nil {
		t.Fatal(err)
	}
	tg, _ := loaderTab(ctx, t, p)
	// defined reports whether the audit's world of frame has the loader.
	defined := func(frame cdp.FrameID) string {
		t.Helper()
		w, err := cdp.Call(ctx, tg, page.CreateIsolatedWorld, page.CreateIsolatedWorldParams{FrameID: frame, WorldName: a11yWorld})
		if err != nil {
			t.Fatal(err)
		}
		r, err := cdp.Call(ctx, tg, runtime.Evaluate, runtime.EvaluateParams{Expression: "location.href + ' ' + typeof globalThis.__seokitAxe", ContextID: w.ExecutionContextID})
		if err != nil || r.Result == nil {
			t.Fatal(err)
		}
		var s string
		_ = json.Unmarshal(r.Result.Value, &s)
		return s
	}
	if _, err := cdp.Call(ctx, tg, page.Navigate, page.NavigateParams{URL: srv.URL + "/"}); err != nil {
		t.Fatal(err)
	}
	var frames *page.FrameTree
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		ft, err := cdp.Call(ctx, tg, page.GetFrameTree, cdp.Empty{})
		if err != nil {
			t.Fatal(err)
		}
		if frames = ft.FrameTree; len(frames.ChildFrames) == 1 && strings.HasSuffix(frames.ChildFrames[0].Frame.URL, "/frame") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the page's frame did not load")
		}
	}
	if got, want := defined(frames.Frame.ID), srv.URL+"/ function"; got != want {
		t.Errorf("the page's world: %q, want %q", got, want)
	}
	if got, want := defined(frames.ChildFrames[0].Frame.ID), srv.URL+"/frame undefined"; got != want {
		t.Errorf("the frame's world: %q, want %q", got, want)
	}
	if _, err := cdp.Call(ctx, tg, page.Navigate, page.NavigateParams{URL: "about:blank"}); err != nil {
		t.Fatal(err)
	}
	if got, want := defined(frames.Frame.ID), "about:blank undefined"; got != want {
		t.Errorf("the blank page's world: %q, want %q", got, want)
	}
}

// loaderTab opens a tab of p's first browser whose documents define
// axe-core's loader in the audit's world, as prepareA11y does, and which
// loads pages itself (no rendering continues its requests). It returns
// the tab and the identifier of the loader's script. The tab is closed
// when t ends.
func loaderTab(ctx context.Context, t *testing.T, p *Pool) (*chromedp.Target, page.ScriptIdentifier) {
	t.Helper()
	src, err := p.loadAxe()
	if err != nil {
		t.Fatal(err)
	}
	p.mu.Lock()
	b := p.browsers[0]
	p.mu.Unlock()
	tb, err := p.openTab(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tb.cancel)
	tg := tb.c.Target
	if _, err := cdp.Call(ctx, tg, fetch.Disable, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	r, err := cdp.Call(ctx, tg, page.AddScriptToEvaluateOnNewDocument,
		page.AddScriptToEvaluateOnNewDocumentParams{Source: axeLoader(src), WorldName: a11yWorld})
	if err != nil {
		t.Fatal(err)
	}
	return tg, r.Identifier
}

// TestA11yRendererEndsDuringAudit: an audit that takes the page over the
// renderer's memory limit (here a stand-in for axe-core that allocates
// until it is stopped) ends the renderer after the DOM and the screenshot
// were read: the rendering is kept, its audit "not checked" with the
// reason, and the pool renders the next page in a fresh tab. The rendering
// was lost before.
func TestA11yRendererEndsDuringAudit(t *testing.T) {
	bomb := filepath.Join(t.TempDir(), "axe.min.js")
	if err := os.WriteFile(bomb, []byte(`globalThis.axe = { version: "4.0.0", run: async () => {
  const keep = [];
  for (let i = 0; ; i++) keep.push(new Array(1 << 20).fill(i));
} };`), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := serve(t, htmlPage(`<!doctype html><html lang="en"><title>kept</title><h1>The page itself</h1></html>`))
	p := newTestPool(t, &Options{Tabs: 1, MaxRenderMemory: 256 << 20, Fetcher: testFetcher(t, srv), AxePath: bomb})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := p.Render(ctx, &render.Request{URL: srv.URL + "/", A11y: true, Screenshot: render.Viewport, Timeout: 20 * time.Second})
	if err != nil {
		t.Fatalf("Render: %v; want the rendering kept without its audit", err)
	}
	if !strings.Contains(string(res.HTML), "The page itself") || len(res.Screenshot) == 0 {
		t.Errorf("the rendering lost its DOM or screenshot: %d bytes of HTML, %d of screenshot", len(res.HTML), len(res.Screenshot))
	}
	if res.A11y != nil || !strings.Contains(res.A11yReason, "memory limit") {
		t.Errorf("audit %+v, reason %q; want none, and the memory limit as its reason", res.A11y, res.A11yReason)
	}
	next, err := p.Render(ctx, &render.Request{URL: srv.URL + "/"})
	if err != nil || !strings.Contains(string(next.HTML), "The page itself") {
		t.Fatalf("the next rendering: %v", err)
	}
}
