package chromium

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"

	"github.com/seokit/seokit/crawler/crawlertest"
	"github.com/seokit/seokit/render"
)

// TestA11yPhases splits the accessibility audit's cost on the pages of the
// rendering benchmark (crawlertest.NewSPA) by process and by phase
// (SEOKIT_BENCH_A11Y=1).
//
// One tab renders the pages without and with the audit in alternated
// rounds, as the pool runs it, and the test prints per rendering the CPU
// time of the renderer processes, of the browser's other processes and of
// this process, and how many renderer processes the tab used.
//
// A second tab of the same browser, with axe-core's loader on each new
// document as prepareA11y gives it, then loads the pages itself and times
// in the page axe's setup (the loader's call: compiling the function and
// running axe's init) on the tab's first page and on later ones, and
// axe.run with the audit's options (a11yOptions). It then prints the
// renderers' CPU time per page, level by level in alternated rounds: the
// page alone, with the loader defined, with axe's setup run, and with the
// audit's expression (a11yRun). A last pass runs axe.run with
// performanceTimer and sums its measures per rule: the timer slows the run
// down, so its figures give shares, not costs.
func TestA11yPhases(t *testing.T) {
	if os.Getenv("SEOKIT_BENCH_A11Y") != "1" {
		t.Skip("set SEOKIT_BENCH_A11Y=1 to measure the accessibility audit's phases")
	}
	axePath := requireAxe(t)
	site := crawlertest.NewSPA(crawlertest.SPAOptions{Pages: 400, Sitemap: true})
	defer site.Close()
	p := newTestPool(t, &Options{Browsers: 1, Tabs: 1, Fetcher: testFetcher(t, site.Server), AxePath: axePath})
	ctx := context.Background()

	const rounds, per = 5, 15 // the first round warms up and is not counted
	var cpu [2]map[string]time.Duration
	var n [2]int
	renderers := map[int]bool{}
	next := 0
	for round := range rounds {
		for v, a11y := range []bool{false, true} {
			c0 := cpuByProcess(renderers)
			for range per {
				next++
				res, err := p.Render(ctx, &render.Request{URL: site.PageURL(next), A11y: a11y})
				if err != nil {
					t.Fatal(err)
				}
				if a11y && res.A11y == nil {
					t.Fatalf("page %d not audited: %s", next, res.A11yReason)
				}
			}
			c1 := cpuByProcess(renderers)
			if round == 0 {
				continue
			}
			if cpu[v] == nil {
				cpu[v] = map[string]time.Duration{}
			}
			for k, d := range c1 {
				cpu[v][k] += d - c0[k]
			}
			n[v] += per
		}
	}
	for v, name := range []string{"without the audit", "with the audit"} {
		per := func(k string) float64 { return ms(cpu[v][k]) / float64(n[v]) }
		t.Logf("%s: %d renderings, CPU per rendering: renderer %.1f ms, browser's other processes %.1f ms, this process %.1f ms",
			name, n[v], per("renderer"), per("browser"), per("self"))
	}
	t.Logf("renderer processes used by the tab over %d renderings: %d", rounds*2*per, len(renderers))

	tg, registered := loaderTab(ctx, t, p)
	src, err := p.loadAxe()
	if err != nil {
		t.Fatal(err)
	}
	opts, _ := json.Marshal(map[string]any{"tags": render.A11yTags})
	type phases struct {
		Setup, Run float64
		Rules      map[string]float64
		Others     map[string]float64
	}
	// load loads url in the tab and waits for its load event.
	load := func(url string) {
		t.Helper()
		if _, err := cdp.Call(ctx, tg, page.Navigate, page.NavigateParams{URL: url}); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(10 * time.Second)
		for {
			r, err := cdp.Call(ctx, tg, runtime.Evaluate, runtime.EvaluateParams{Expression: `document.readyState === "complete" && location.href === ` + fmt.Sprintf("%q", url)})
			if err == nil && r.Result != nil && string(r.Result.Value) == "true" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s not loaded", url)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	// world returns the audit's world of the tab's page.
	world := func() runtime.ExecutionContextID {
		t.Helper()
		w, err := cdp.Call(ctx, tg, page.CreateIsolatedWorld, page.CreateIsolatedWorldParams{FrameID: cdp.FrameID(tg.TargetID), WorldName: a11yWorld})
		if err != nil {
			t.Fatal(err)
		}
		return w.ExecutionContextID
	}
	blank := func() {
		t.Helper()
		if _, err := cdp.Call(ctx, tg, page.Navigate, page.NavigateParams{URL: "about:blank"}); err != nil {
			t.Fatal(err)
		}
	}
	measure := func(url string, timer bool) phases {
		t.Helper()
		load(url)
		expr := `(async (o) => {
  performance.clearMeasures();
  const t0 = performance.now();
  globalThis.__seokitAxe();
  const t1 = performance.now();
  await axe.run(document, Object.assign(` + a11yOptions + `, { performanceTimer: o.timer }));
  const t2 = performance.now();
  const rules = {}, others = {};
  for (const e of performance.getEntriesByType("measure")) {
    if (e.name.startsWith("rule_") && !e.name.includes("#")) rules[e.name.slice(5)] = e.duration;
    else if (!e.name.startsWith("rule_") && !e.name.startsWith("runchecks_")) others[e.name] = (others[e.name] || 0) + e.duration;
  }
  return { setup: t1 - t0, run: t2 - t1, rules, others };
})(` + strings.TrimSuffix(string(opts), "}") + fmt.Sprintf(`, "timer": %v})`, timer)
		yes := true
		r, err := cdp.Call(ctx, tg, runtime.Evaluate, runtime.EvaluateParams{Expression: expr, ContextID: world(), ReturnByValue: &yes, AwaitPromise: &yes})
		if err != nil {
			t.Fatal(err)
		}
		if r.ExceptionDetails != nil || r.Result == nil {
			t.Fatalf("%s: the timed audit failed: %v", url, r.ExceptionDetails)
		}
		var ph phases
		if err := json.Unmarshal(r.Result.Value, &ph); err != nil {
			t.Fatal(err)
		}
		blank()
		return ph
	}
	const pages = 25
	var setups, runs []float64
	for i := range pages {
		ph := measure(site.PageURL(i+1), false)
		if i == 0 {
			t.Logf("the tab's first page: axe's setup %.1f ms, axe.run %.1f ms", ph.Setup, ph.Run)
			continue
		}
		setups, runs = append(setups, ph.Setup), append(runs, ph.Run)
	}
	t.Logf("the tab's next %d pages: axe's setup median %.1f ms (%.1f to %.1f), axe.run median %.1f ms (%.1f to %.1f)",
		len(runs), median(setups), slices.Min(setups), slices.Max(setups), median(runs), slices.Min(runs), slices.Max(runs))

	// The renderers' CPU time per page, level by level, in alternated
	// rounds: the page alone, with the loader defined in its document, with
	// axe's setup run too, and with the audit's own expression (a11yRun:
	// setup, axe.run, the capped answer).
	levels := []struct {
		name   string
		loader bool
		expr   string
	}{
		{"the page alone", false, ""},
		{"with the loader defined", true, ""},
		{"with axe's setup", true, `typeof globalThis.__seokitAxe === "function" && (globalThis.__seokitAxe(), typeof globalThis.axe)`},
		{"with the audit", true, a11yRun(a11yArgs())},
	}
	// The loader the tab was opened with is the first level's to remove.
	loader := registered
	cpu1 := make([]time.Duration, len(levels))
	const levelRounds, levelPages = 4, 10
	next = 2 * pages
	for range levelRounds {
		for i, l := range levels {
			switch {
			case l.loader && loader == "":
				r, err := cdp.Call(ctx, tg, page.AddScriptToEvaluateOnNewDocument,
					page.AddScriptToEvaluateOnNewDocumentParams{Source: axeLoader(src), WorldName: a11yWorld})
				if err != nil {
					t.Fatal(err)
				}
				loader = r.Identifier
			case !l.loader && loader != "":
				if _, err := cdp.Call(ctx, tg, page.RemoveScriptToEvaluateOnNewDocument,
					page.RemoveScriptToEvaluateOnNewDocumentParams{Identifier: loader}); err != nil {
					t.Fatal(err)
				}
				loader = ""
			}
			c0 := cpuByProcess(renderers)["renderer"]
			for range levelPages {
				next++
				load(site.PageURL(next))
				if l.expr != "" {
					yes := true
					r, err := cdp.Call(ctx, tg, runtime.Evaluate, runtime.EvaluateParams{Expression: l.expr, ContextID: world(), ReturnByValue: &yes, AwaitPromise: &yes})
					if err != nil || r.ExceptionDetails != nil || r.Result == nil || string(r.Result.Value) == "false" || string(r.Result.Value) == strconv.Quote(a11yMissing) {
						t.Fatalf("%s: %v %v", l.name, err, r.ExceptionDetails)
					}
				}
				blank()
			}
			cpu1[i] += cpuByProcess(renderers)["renderer"] - c0
		}
	}
	var steps []string
	for i, l := range levels {
		s := fmt.Sprintf("%s %.1f ms", l.name, ms(cpu1[i])/levelRounds/levelPages)
		if i > 0 {
			s += fmt.Sprintf(" (%+.1f)", ms(cpu1[i]-cpu1[i-1])/levelRounds/levelPages)
		}
		steps = append(steps, s)
	}
	t.Logf("renderer CPU per page loaded by the tab itself, %d pages a level: %s", levelRounds*levelPages, strings.Join(steps, ", "))

	rules, others := map[string]float64{}, map[string]float64{}
	var timed []float64
	for range pages {
		next++
		ph := measure(site.PageURL(next), true)
		timed = append(timed, ph.Run)
		for k, d := range ph.Rules {
			rules[k] += d / pages
		}
		for k, d := range ph.Others {
			others[k] += d / pages
		}
	}
	var sum float64
	ids := make([]string, 0, len(rules))
	for id, d := range rules {
		ids = append(ids, id)
		sum += d
	}
	sort.Slice(ids, func(i, j int) bool { return rules[ids[i]] > rules[ids[j]] })
	var top []string
	for _, id := range ids[:min(10, len(ids))] {
		top = append(top, fmt.Sprintf("%s %.2f", id, rules[id]))
	}
	var rest []string
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range others {
			if !yield(k) {
				return
			}
		}
	}) {
		rest = append(rest, fmt.Sprintf("%s %.2f", k, others[k]))
	}
	t.Logf("with performanceTimer: axe.run median %.1f ms; %d rules, %.1f ms together per page; the 10 costliest (ms): %s; axe's other measures (ms): %s",
		median(timed), len(rules), sum, strings.Join(top, ", "), strings.Join(rest, ", "))
}

// cpuByProcess returns the CPU time (user and system) so far of this
// process ("self"), of Chromium's renderer processes ("renderer", each
// added to renderers) and of its other processes ("browser").
func cpuByProcess(renderers map[int]bool) map[string]time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	out := map[string]time.Duration{"self": time.Duration(ru.Utime.Nano() + ru.Stime.Nano())}
	for _, pid := range processTree(os.Getpid())[1:] {
		kind := "browser"
		if procType(pid) == "renderer" {
			kind = "renderer"
			renderers[pid] = true
		}
		out[kind] += pidCPU(pid)
	}
	return out
}

// ms is d in milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// median returns the median of xs (sorted in place).
func median(xs []float64) float64 {
	slices.Sort(xs)
	if len(xs)%2 == 1 {
		return xs[len(xs)/2]
	}
	return (xs[len(xs)/2-1] + xs[len(xs)/2]) / 2
}
