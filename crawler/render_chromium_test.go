package crawler_test

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seokit/seokit/analyzer"
	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/crawler/crawlertest"
	"github.com/seokit/seokit/render"
	"github.com/seokit/seokit/render/chromium"
	"github.com/seokit/seokit/seo"
)

// benchPages is the size of the rendering benchmark's site.
const benchPages = 500

// benchSize is the number of pages of the benchmark's site: benchPages, or
// SEOKIT_BENCH_PAGES.
func benchSize(tb testing.TB) int {
	s := os.Getenv("SEOKIT_BENCH_PAGES")
	if s == "" {
		return benchPages
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 10 {
		tb.Fatalf("SEOKIT_BENCH_PAGES=%q: want a number of at least 10", s)
	}
	return n
}

// benchSetup returns the pool size and rendering wait of the benchmark: the
// pool's and the Request's defaults (chromium.DefaultBrowsers,
// DefaultTabs, render.DefaultIdle, DefaultSettle), which
// SEOKIT_BENCH_BROWSERS, SEOKIT_BENCH_TABS and SEOKIT_BENCH_SETTLE (a
// duration, for both idle and settle) change.
func benchSetup(tb testing.TB) (browsers, tabs int, req render.Request) {
	browsers, tabs = chromium.DefaultBrowsers, chromium.DefaultTabs
	for _, e := range []struct {
		name string
		v    *int
	}{{"SEOKIT_BENCH_BROWSERS", &browsers}, {"SEOKIT_BENCH_TABS", &tabs}} {
		if s := os.Getenv(e.name); s != "" {
			n, err := strconv.Atoi(s)
			if err != nil || n <= 0 {
				tb.Fatalf("%s=%q: want a positive number", e.name, s)
			}
			*e.v = n
		}
	}
	if s := os.Getenv("SEOKIT_BENCH_SETTLE"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil {
			tb.Fatalf("SEOKIT_BENCH_SETTLE=%q: %v", s, err)
		}
		req.Idle, req.Settle = d, d
	}
	return browsers, tabs, req
}

// Targets of the rendering benchmark on a 2-core machine.
const (
	targetRenderedPerSec = 16.0
	targetPeakTreeRSS    = 1.5 * (1 << 30)
)

// newChromium starts a Chromium pool whose fetcher reaches only the test
// server at siteURL. Without a browser the test skips, or fails when
// SEOKIT_REQUIRE_SERVERS is set.
func newChromium(tb testing.TB, siteURL string, browsers, tabs int) *chromium.Pool {
	tb.Helper()
	u, err := url.Parse(siteURL)
	if err != nil {
		tb.Fatal(err)
	}
	port, _ := strconv.Atoi(u.Port())
	f := seo.NewFetcher(&seo.FetcherOptions{
		AllowAddrs:   []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")},
		AllowedPorts: []int{port},
	})
	pool, err := chromium.New(context.Background(), &chromium.Options{Fetcher: f, Browsers: browsers, Tabs: tabs})
	if err != nil {
		if errors.Is(err, render.ErrUnavailable) && os.Getenv("SEOKIT_REQUIRE_SERVERS") == "" {
			tb.Skipf("SKIP: rendering tests need Chromium (install chromium or set SEOKIT_CHROMIUM): %v", err)
		}
		tb.Fatalf("chromium.New: %v", err)
	}
	tb.Cleanup(func() {
		if err := pool.Close(); err != nil {
			tb.Errorf("pool.Close: %v", err)
		}
	})
	return pool
}

// TestRenderedCrawlSPAChromium crawls a client-rendered site with a real
// browser: the rendered crawl reaches the pages linked only from
// JavaScript, the raw crawl does not.
func TestRenderedCrawlSPAChromium(t *testing.T) {
	site := crawlertest.NewSPA(crawlertest.SPAOptions{Pages: 9, Fanout: 2})
	defer site.Close()
	pool := newChromium(t, site.URL, 1, 2)

	raw, err := crawler.New(testOptions(crawler.Options{SkipExternalLinks: true})).Run(context.Background(), site.URL)
	if err != nil {
		t.Fatal(err)
	}
	if len(raw.Pages) != 1 {
		t.Errorf("raw crawl found %d pages, want the home page only", len(raw.Pages))
	}
	opts := testOptions(crawler.Options{SkipExternalLinks: true, TimeBudget: 2 * time.Minute,
		Analyzer: &analyzer.Options{Render: render.Always, Renderer: pool}})
	rep, err := crawler.New(opts).Run(context.Background(), site.URL)
	if err != nil {
		t.Fatal(err)
	}
	pages := pagesByPath(t, site.URL, rep)
	for i := range site.Pages() {
		p, ok := pages[strings.TrimPrefix(site.PageURL(i), site.URL)]
		if !ok {
			t.Errorf("rendered crawl did not reach %s", site.PageURL(i))
			continue
		}
		if p.Rendered == nil || !*p.Rendered || p.Title != fmt.Sprintf("Client-rendered page %d", i) {
			t.Errorf("%s: rendered %v (%s), title %q", p.URL, p.Rendered, p.RenderReason, p.Title)
		}
	}
	if s := rep.Render; s == nil || s.Rendered != site.Pages() || s.LinksOnlyRendered == 0 {
		t.Errorf("render summary = %+v, want %d pages rendered and links only after rendering", rep.Render, site.Pages())
	}
}

// TestRenderedCrawlShadowChromium crawls a site whose pages link to
// others only from the open shadow roots of web components: the rendered
// crawl follows those links, from a page read by the browser's
// serialisation and from one of more than 100,000 elements, read by the
// capped walk; the raw crawl does not.
func TestRenderedCrawlShadowChromium(t *testing.T) {
	page := func(shadowLink string, pad int) string {
		return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Components ` + shadowLink + `</title></head><body>
<h1>Components</h1><a href="/big">Big</a><x-nav></x-nav><div id="pad" hidden></div><script>
customElements.define("x-nav", class extends HTMLElement {
  connectedCallback() { this.attachShadow({ mode: "open" }).innerHTML = '<a href="` + shadowLink + `">Shadow</a>'; }
});
const pad = document.getElementById("pad");
for (let i = 0; i < ` + strconv.Itoa(pad) + `; i++) pad.appendChild(document.createElement("i"));
</script></body></html>`
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body string
		switch r.URL.Path {
		case "/":
			body = page("/from-small", 0)
		case "/big":
			body = page("/from-big", 100001)
		case "/from-small", "/from-big":
			body = `<!DOCTYPE html><html lang="en"><head><title>Linked from a shadow root</title></head><body><h1>Target</h1></body></html>`
		default:
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, body)
	}))
	defer srv.Close()
	pool := newChromium(t, srv.URL, 1, 2)

	raw, err := crawler.New(testOptions(crawler.Options{SkipExternalLinks: true})).Run(context.Background(), srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	if got := slices.Sorted(maps.Keys(pagesByPath(t, srv.URL, raw))); !slices.Equal(got, []string{"/", "/big"}) {
		t.Errorf("raw crawl found %v, want / and /big", got)
	}
	opts := testOptions(crawler.Options{SkipExternalLinks: true, TimeBudget: 2 * time.Minute,
		Analyzer: &analyzer.Options{Render: render.Always, Renderer: pool}})
	rep, err := crawler.New(opts).Run(context.Background(), srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	pages := pagesByPath(t, srv.URL, rep)
	if got := slices.Sorted(maps.Keys(pages)); !slices.Equal(got, []string{"/", "/big", "/from-big", "/from-small"}) {
		t.Errorf("rendered crawl found %v, want the pages linked from shadow roots too", got)
	}
	for _, path := range []string{"/", "/big"} {
		if p := pages[path]; p.Rendered == nil || !*p.Rendered {
			t.Errorf("%s: rendered %v (%s)", path, p.Rendered, p.RenderReason)
		}
	}
}

// TestRenderBenchmark is the rendering benchmark (SEOKIT_BENCH_RENDER=1):
// the raw and the rendered crawl (render always) of a generated 500-page
// client-rendered site on loopback, in the same run. It prints rendered
// pages/s, raw pages/s and their ratio, the CPU time per rendered page of
// the process tree (this process and every Chromium process, from /proc)
// split between this process, the browser's own processes and its
// renderers, and the peaks of the tree's summed RSS and PSS (sampled every
// 100 ms). SEOKIT_BENCH_RENDER_RUNS=n repeats the pair of crawls n times,
// each rendered crawl with a new pool, and prints every run: the memory
// ceiling must hold in each. It fails on a missed target.
func TestRenderBenchmark(t *testing.T) {
	if os.Getenv("SEOKIT_BENCH_RENDER") == "" {
		t.Skip("set SEOKIT_BENCH_RENDER=1 to run the rendering benchmark")
	}
	runs := 1
	if s := os.Getenv("SEOKIT_BENCH_RENDER_RUNS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 || n > 20 {
			t.Fatalf("SEOKIT_BENCH_RENDER_RUNS=%q: want a number from 1 to 20", s)
		}
		runs = n
	}
	site := crawlertest.NewSPA(crawlertest.SPAOptions{Pages: benchPages, Sitemap: true})
	defer site.Close()
	browsers, tabs, req := benchSetup(t)

	var rates []float64
	var worstRSS int64
	var cpuPer time.Duration // CPU per rendered page of the last run
	var pool *chromium.Pool
	for run := 1; run <= runs; run++ {
		raw := benchCrawl(t, site, nil, req, false)
		if pool != nil {
			if err := pool.Close(); err != nil {
				t.Fatalf("pool.Close: %v", err)
			}
		}
		pool = newChromium(t, site.URL, browsers, tabs)
		stop := sampleTree(100 * time.Millisecond)
		rendered := benchCrawl(t, site, pool, req, false)
		use := stop()
		n, s := len(rendered.Pages), rendered.Render
		rate := float64(s.Rendered) / rendered.Crawl.Duration.Seconds()
		rawRate := raw.Crawl.PagesPerSecond
		per := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / float64(max(s.Rendered, 1)) }
		t.Logf("run %d/%d: rendered crawl: %d pages in %v (%s), %d rendered, %d timed out, %d failed: %.1f rendered pages/s (%d browsers x %d tabs, idle %v, settle %v, load average %s)",
			run, runs, n, rendered.Crawl.Duration.Round(time.Millisecond), rendered.Crawl.StopReason, s.Rendered, s.TimedOut, s.Failed,
			rate, browsers, tabs, cmp.Or(req.Idle, render.DefaultIdle), cmp.Or(req.Settle, render.DefaultSettle), loadAverage())
		t.Logf("run %d/%d: CPU time of the process tree during the rendered crawl: %v, %.1f ms per rendered page: this process %.1f ms, the browser's processes %.1f ms, its renderers %.1f ms (the sampler's own %v left out; %d browser restarts, %d tabs opened)",
			run, runs, use.cpu().Round(time.Millisecond), per(use.cpu()), per(use.self), per(use.browser), per(use.renderers), use.sampler, pool.Stats().Restarts, pool.Stats().Tabs)
		t.Logf("run %d/%d: raw crawl: %d pages in %v, %.1f pages/s; rendered/raw = %.4f (the raw crawl is %.0f times faster)",
			run, runs, len(raw.Pages), raw.Crawl.Duration.Round(time.Millisecond), rawRate, rate/rawRate, rawRate/rate)
		t.Logf("run %d/%d: peak of the process tree (this process and its Chromium processes): RSS %.0f MiB (summed), PSS %.0f MiB; peak Chromium processes %d",
			run, runs, float64(use.rss)/(1<<20), float64(use.pss)/(1<<20), use.procs)
		if n != benchPages || s.Rendered != benchPages {
			t.Errorf("run %d: rendered crawl reached %d pages and rendered %d, want %d; not rendered: %v%s",
				run, n, s.Rendered, benchPages, s.NotRenderedReasons, firstReasons(rendered))
		}
		if float64(use.rss) >= targetPeakTreeRSS {
			t.Errorf("run %d: peak tree RSS %.0f MiB, target < %.0f MiB", run, float64(use.rss)/(1<<20), targetPeakTreeRSS/(1<<20))
		}
		rates = append(rates, rate)
		worstRSS = max(worstRSS, use.rss)
		cpuPer = use.cpu() / time.Duration(max(s.Rendered, 1))
	}
	slices.Sort(rates)
	rate := rates[len(rates)/2]
	if runs > 1 {
		t.Logf("%d runs: median %.1f rendered pages/s (%.1f to %.1f), highest peak RSS %.0f MiB (summed)",
			runs, rate, rates[0], rates[len(rates)-1], float64(worstRSS)/(1<<20))
	}
	if rate < targetRenderedPerSec {
		t.Errorf("%.1f rendered pages/s, target >= %.0f", rate, targetRenderedPerSec)
	}
	benchA11y(t, site, pool, req, crawlCost{rate: rate, cpu: cpuPer})
}

// firstReasons lists the render reasons of up to three pages of rep that
// were not rendered, each reason once.
func firstReasons(rep *crawler.SiteReport) string {
	var out []string
	for _, p := range rep.Pages {
		if (p.Rendered == nil || !*p.Rendered) && p.RenderReason != "" && !slices.Contains(out, p.RenderReason) && len(out) < 3 {
			out = append(out, p.RenderReason)
		}
	}
	if len(out) == 0 {
		return ""
	}
	return " (" + strings.Join(out, "; ") + ")"
}

// loadAverage is the 1-minute load average, from /proc/loadavg.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) > 0 {
		return f[0]
	}
	return "unknown"
}

// targetA11ySlowdown is the most the accessibility audit may slow the
// rendered crawl down: its rendered pages/s at least 75% of the same crawl's
// without it.
const targetA11ySlowdown = 0.25

// benchA11y crawls site again with the same pool and the accessibility
// audit on every rendered page, and compares its rendered pages/s and CPU
// time per rendered page with off, the same crawl's without it.
func benchA11y(t *testing.T, site *crawlertest.SPASite, pool *chromium.Pool, req render.Request, off crawlCost) {
	if os.Getenv("SEOKIT_BENCH_A11Y") != "1" {
		// The audited crawl adds a crawl's time to the benchmark; it
		// runs on request (TestA11yBenchmark measures it alone).
		t.Log("audited crawl not measured: set SEOKIT_BENCH_A11Y=1 to compare it")
		return
	}
	if !a11yReady(t, pool) {
		return
	}
	on := measureCrawl(t, site, pool, req, true)
	t.Logf("audited crawl: %.1f rendered pages/s with the audit, %.1f without; with/without = %.4f (%.1f%% slower); CPU per rendered page %.0f ms with, %.0f ms without (+%.0f ms)",
		on.rate, off.rate, on.rate/off.rate, 100*(1-on.rate/off.rate), ms(on.cpu), ms(off.cpu), ms(on.cpu-off.cpu))
	if on.rate < (1-targetA11ySlowdown)*off.rate {
		t.Errorf("the audit slows the rendered crawl down by %.1f%%, target under %.0f%%", 100*(1-on.rate/off.rate), 100*targetA11ySlowdown)
	}
}

// TestA11yBenchmark measures the accessibility audit's cost
// (SEOKIT_BENCH_A11Y=1): rendered crawls of the benchmark's
// client-rendered site (SEOKIT_BENCH_PAGES pages, 500 by default) with one
// pool, without and with the audit, alternated (without, with, without,
// with), so that a machine whose load changes during the run slows both
// alike. It prints each pair's ratio of rendered pages/s and their median,
// and per rendered page the CPU time of the process tree (this process and
// Chromium's, which load does not inflate as it inflates wall time) and
// this process's allocation, with and without the audit; it fails when the
// median slowdown misses targetA11ySlowdown.
func TestA11yBenchmark(t *testing.T) {
	if os.Getenv("SEOKIT_BENCH_A11Y") != "1" {
		t.Skip("set SEOKIT_BENCH_A11Y=1 to measure the accessibility audit's cost")
	}
	site := crawlertest.NewSPA(crawlertest.SPAOptions{Pages: benchSize(t), Sitemap: true})
	defer site.Close()
	browsers, tabs, req := benchSetup(t)
	pool := newChromium(t, site.URL, browsers, tabs)
	if !a11yReady(t, pool) {
		t.Skip("no axe-core")
	}
	const pairs = 2
	var ratios []float64
	var off, on crawlCost
	for i := range pairs {
		o := measureCrawl(t, site, pool, req, false)
		a := measureCrawl(t, site, pool, req, true)
		ratios = append(ratios, a.rate/o.rate)
		t.Logf("pair %d: %.1f rendered pages/s without the audit, %.1f with: with/without = %.4f; CPU per rendered page %.0f ms without, %.0f ms with",
			i+1, o.rate, a.rate, a.rate/o.rate, ms(o.cpu), ms(a.cpu))
		off, on = off.add(o), on.add(a)
	}
	slices.Sort(ratios)
	median := (ratios[(pairs-1)/2] + ratios[pairs/2]) / 2
	t.Logf("a11y audit: %d pages a crawl, median with/without rendered pages/s = %.4f (%.1f%% slower, target under %.0f%%); per rendered page: CPU %.0f ms with, %.0f ms without (+%.0f ms, x%.2f), Go allocation %.0f KiB with, %.0f KiB without",
		site.Pages(), median, 100*(1-median), 100*targetA11ySlowdown, ms(on.cpu/pairs), ms(off.cpu/pairs), ms((on.cpu-off.cpu)/pairs),
		float64(on.cpu)/float64(off.cpu), float64(on.alloc)/pairs/1024, float64(off.alloc)/pairs/1024)
	if median < 1-targetA11ySlowdown {
		t.Errorf("the audit slows the rendered crawl down by %.1f%%, target under %.0f%%", 100*(1-median), 100*targetA11ySlowdown)
	}
}

// a11yReady reports whether pool can audit; without axe-core it logs why
// (and fails with SEOKIT_REQUIRE_SERVERS=1).
func a11yReady(t *testing.T, pool *chromium.Pool) bool {
	if err := pool.A11yAvailable(); err != nil {
		if os.Getenv("SEOKIT_REQUIRE_SERVERS") == "1" {
			t.Fatalf("SEOKIT_REQUIRE_SERVERS=1 but %v", err)
		}
		t.Logf("audited crawl not measured: %v", err)
		return false
	}
	return true
}

// crawlCost is what a rendered crawl cost: its rendered pages/s, and per
// rendered page the CPU time of the process tree and this process's
// allocation.
type crawlCost struct {
	rate  float64
	cpu   time.Duration
	alloc float64
}

func (c crawlCost) add(d crawlCost) crawlCost {
	return crawlCost{c.rate + d.rate, c.cpu + d.cpu, c.alloc + d.alloc}
}

// ms is d in milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// measureCrawl crawls site with pool, rendering every page, with the
// accessibility audit when a11y; every page must be rendered (and
// audited).
func measureCrawl(t *testing.T, site *crawlertest.SPASite, pool *chromium.Pool, req render.Request, a11y bool) crawlCost {
	t.Helper()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	// One walk of /proc a second: the walks allocate in this process, in
	// proportion to the crawl's time rather than its pages.
	stop := sampleTree(time.Second)
	rep := benchCrawl(t, site, pool, req, a11y)
	cpu := stop().cpu()
	runtime.ReadMemStats(&m1)
	s := rep.Render
	if s.Rendered == 0 {
		t.Fatalf("no page rendered of %d (%d timed out, %d failed)", site.Pages(), s.TimedOut, s.Failed)
	}
	if s.Rendered != site.Pages() {
		// Figures are per rendered page; a machine too busy to render
		// some says so.
		t.Logf("%d pages rendered of %d (%d timed out, %d failed)", s.Rendered, site.Pages(), s.TimedOut, s.Failed)
	}
	if a11y {
		a := rep.A11y
		if a == nil {
			t.Fatal("an audited crawl without an accessibility summary")
		}
		if a.NotChecked > 0 {
			// An audit past its time (A11yWait) on a machine too busy for
			// it: reported, not hidden.
			t.Logf("audited crawl: %d pages not audited: %v", a.NotChecked, a.NotCheckedReasons)
		}
	}
	n := float64(s.Rendered)
	return crawlCost{rate: n / rep.Crawl.Duration.Seconds(), cpu: time.Duration(float64(cpu) / n), alloc: float64(m1.TotalAlloc-m0.TotalAlloc) / n}
}

// BenchmarkRenderedCrawl measures rendered crawls of the benchmark site
// (pages/s as a metric); it skips without Chromium.
func BenchmarkRenderedCrawl(b *testing.B) {
	site := crawlertest.NewSPA(crawlertest.SPAOptions{Pages: benchPages, Sitemap: true})
	defer site.Close()
	browsers, tabs, req := benchSetup(b)
	pool := newChromium(b, site.URL, browsers, tabs)
	var rate float64
	for b.Loop() {
		rate = benchCrawl(b, site, pool, req, false).Crawl.PagesPerSecond
	}
	b.ReportMetric(rate, "pages/s")
}

// benchCrawl crawls site, rendering every page with r and req when r is
// not nil, and auditing its accessibility with a11y.
func benchCrawl(tb testing.TB, site *crawlertest.SPASite, r render.Renderer, req render.Request, a11y bool) *crawler.SiteReport {
	tb.Helper()
	o := crawler.Options{MaxPages: site.Pages() + 10, Concurrency: 16, PerHostConcurrency: 16, SkipExternalLinks: true,
		TimeBudget: 10 * time.Minute, Analyzer: &analyzer.Options{}}
	if r != nil {
		o.Analyzer.Render, o.Analyzer.Renderer, o.Analyzer.RenderRequest = render.Always, r, req
		o.Analyzer.A11y = a11y
	}
	rep, err := crawler.New(testOptions(o)).Run(context.Background(), site.URL)
	if err != nil {
		tb.Fatal(err)
	}
	if r != nil && rep.Render == nil {
		tb.Fatal("a rendered crawl without a render summary")
	}
	return rep
}

// treeUse is what sampleTree measured: the peaks in bytes of the tree's
// summed RSS (shared pages counted in each process) and of its summed PSS
// (shared pages split between the processes), the peak number of processes
// besides this one, and the CPU time (user and system) the tree spent,
// split between this process, the browser's processes other than
// renderers (the browser, its zygotes and utilities) and its renderers.
type treeUse struct {
	rss, pss                 int64
	procs                    int
	self, browser, renderers time.Duration
	sampler                  time.Duration // the sampler's own CPU time, not in self
}

func (u treeUse) cpu() time.Duration { return u.self + u.browser + u.renderers }

// Kinds of process of the tree.
const (
	kindSelf = iota
	kindBrowser
	kindRenderer
)

// sampleTree samples the memory and CPU time of this process and all its
// descendants until stop is called, which returns what it measured in
// between. Every interval it reads the RSS of the processes known; every
// tenth interval it walks /proc for the tree (new processes join the
// list) and reads the PSS and CPU time of each. The CPU time of each
// process is its own (user and system), as last read: a process that ends
// between two walks, such as a renderer of a recycled browser, counts up to
// the last walk. The sampler's own CPU time (its thread reads /proc, and
// the kernel's walk of page tables for PSS is charged to it) is not the
// crawl's: it is left out of this process's.
func sampleTree(interval time.Duration) (stop func() treeUse) {
	var use treeUse
	start, last := map[procKey]int64{}, map[procKey]int64{}
	kinds := map[procKey]int{}
	var pids []int
	walk := func(first bool) {
		pids = processTree(os.Getpid())
		var pss int64
		ticks := treeTicks(pids)
		for _, p := range pids {
			pss += procKB(p, "smaps_rollup", "Pss:")
		}
		use.pss = max(use.pss, pss)
		use.procs = max(use.procs, len(ticks)-1)
		for k, t := range ticks {
			if first {
				start[k] = t
			}
			if _, ok := kinds[k]; !ok {
				kinds[k] = procKind(int(k.pid))
			}
			last[k] = t
		}
	}
	sample := func() {
		var rss int64
		for _, p := range pids {
			rss += procKB(p, "status", "VmRSS:")
		}
		use.rss = max(use.rss, rss)
	}
	walk(true)
	sample()
	done := make(chan struct{})
	var own time.Duration // the sampler thread's CPU time
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		began := threadCPU()
		defer func() { own = threadCPU() - began }()
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for i := 1; ; i++ {
			select {
			case <-done:
				walk(false)
				sample()
				return
			case <-tick.C:
			}
			if i%10 == 0 {
				walk(false)
			}
			sample()
		}
	}()
	return func() treeUse {
		close(done)
		wg.Wait() // the figures are read after the sampler ended
		for k, t := range last {
			d := time.Duration(t-start[k]) * 10 * time.Millisecond
			switch kinds[k] {
			case kindSelf:
				use.self += d
			case kindRenderer:
				use.renderers += d
			default:
				use.browser += d
			}
		}
		use.sampler = own
		use.self = max(use.self-own, 0)
		return use
	}
}

// threadCPU is the CPU time (user and system) of the calling thread, from
// /proc/thread-self/stat; 0 where it cannot be read.
func threadCPU() time.Duration {
	stat, err := os.ReadFile("/proc/thread-self/stat")
	i := bytes.LastIndexByte(stat, ')')
	if err != nil || i < 0 {
		return 0
	}
	f := strings.Fields(string(stat[i+1:]))
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * 10 * time.Millisecond
}

// procKind tells this process, a renderer (from its command line) and the
// other processes of the tree apart.
func procKind(pid int) int {
	if pid == os.Getpid() {
		return kindSelf
	}
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if bytes.Contains(b, []byte("--type=renderer")) {
		return kindRenderer
	}
	return kindBrowser
}

// procKey names a process: its pid and start time, as pids are reused.
type procKey struct{ pid, started int64 }

// treeTicks returns the CPU time (utime and stime, in clock ticks of 1/100
// s, the value on Linux) of each of pids, from /proc/pid/stat.
func treeTicks(pids []int) map[procKey]int64 {
	out := map[procKey]int64{}
	for _, p := range pids {
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(p) + "/stat")
		if err != nil {
			continue
		}
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 {
			continue
		}
		// utime and stime are fields 14 and 15, starttime field 22.
		f := strings.Fields(string(stat[i+1:]))
		if len(f) < 20 {
			continue
		}
		ut, _ := strconv.ParseInt(f[11], 10, 64)
		st, _ := strconv.ParseInt(f[12], 10, 64)
		started, _ := strconv.ParseInt(f[19], 10, 64)
		out[procKey{int64(p), started}] = ut + st
	}
	return out
}

// processTree lists pid and its descendants, from /proc.
func processTree(pid int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	children := map[int][]int{}
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// The command name is in parentheses and may hold spaces.
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(stat[i+1:]))
		if len(f) < 2 {
			continue
		}
		pp, _ := strconv.Atoi(f[1])
		children[pp] = append(children[pp], p)
	}
	tree := []int{pid}
	for i := 0; i < len(tree); i++ {
		tree = append(tree, children[tree[i]]...)
	}
	return tree
}

// procKB returns the value in kB of the line starting with key in
// /proc/pid/file, in bytes; 0 when the process is gone.
func procKB(pid int, file, key string) int64 {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/" + file)
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), key); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}
