package crawler_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"os"
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

// The rendering benchmark's setup: the pool and the rendering wait it is
// measured with. Browsers and Tabs are chromium's defaults unless set
// here; the rendering waits DefaultIdle and DefaultSettle.
const (
	benchPages    = 500
	benchBrowsers = 2
	benchTabs     = 4
)

// Targets of the rendering benchmark on a 2-core machine.
const (
	targetRenderedPerSec = 8.0
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

// TestRenderBenchmark is the rendering benchmark (SEOKIT_BENCH_RENDER=1):
// the raw and the rendered crawl (render always) of a generated
// 500-page client-rendered site on loopback, in the same run. It prints
// rendered pages/s, raw pages/s, their ratio and the peak RSS of the
// whole process tree (this process and every Chromium process, sampled
// every 100 ms), and fails on a missed target.
func TestRenderBenchmark(t *testing.T) {
	if os.Getenv("SEOKIT_BENCH_RENDER") == "" {
		t.Skip("set SEOKIT_BENCH_RENDER=1 to run the rendering benchmark")
	}
	site := crawlertest.NewSPA(crawlertest.SPAOptions{Pages: benchPages})
	defer site.Close()

	rawRate, rawN := benchCrawl(t, site, nil)
	pool := newChromium(t, site.URL, benchBrowsers, benchTabs)
	stop := sampleTreeRSS(100 * time.Millisecond)
	rate, n := benchCrawl(t, site, pool)
	maxRSS := stop()
	t.Logf("rendered crawl: %d pages, %.1f rendered pages/s (%d browsers x %d tabs, idle %v, settle %v)",
		n, rate, benchBrowsers, benchTabs, render.DefaultIdle, render.DefaultSettle)
	t.Logf("raw crawl: %d pages, %.1f pages/s; rendered/raw = %.3f", rawN, rawRate, rate/rawRate)
	t.Logf("peak RSS of the process tree: %.0f MiB", float64(maxRSS)/(1<<20))
	if n != benchPages {
		t.Errorf("rendered crawl reached %d pages, want %d", n, benchPages)
	}
	if rate < targetRenderedPerSec {
		t.Errorf("%.1f rendered pages/s, target >= %.0f", rate, targetRenderedPerSec)
	}
	if float64(maxRSS) >= targetPeakTreeRSS {
		t.Errorf("peak tree RSS %.0f MiB, target < %.0f MiB", float64(maxRSS)/(1<<20), targetPeakTreeRSS/(1<<20))
	}
}

// BenchmarkRenderedCrawl measures rendered crawls of the benchmark site
// (pages/s as a metric); it skips without Chromium.
func BenchmarkRenderedCrawl(b *testing.B) {
	site := crawlertest.NewSPA(crawlertest.SPAOptions{Pages: benchPages})
	defer site.Close()
	pool := newChromium(b, site.URL, benchBrowsers, benchTabs)
	var rate float64
	for b.Loop() {
		rate, _ = benchCrawl(b, site, pool)
	}
	b.ReportMetric(rate, "pages/s")
}

// benchCrawl crawls site, rendering every page with r when it is not nil,
// and returns the pages per second and the pages crawled.
func benchCrawl(tb testing.TB, site *crawlertest.SPASite, r render.Renderer) (float64, int) {
	tb.Helper()
	o := crawler.Options{MaxPages: benchPages, Concurrency: 16, PerHostConcurrency: 16, SkipExternalLinks: true,
		TimeBudget: 5 * time.Minute, Analyzer: &analyzer.Options{}}
	if r != nil {
		o.Analyzer.Render, o.Analyzer.Renderer = render.Always, r
	}
	rep, err := crawler.New(testOptions(o)).Run(context.Background(), site.URL)
	if err != nil {
		tb.Fatal(err)
	}
	if r != nil && (rep.Render == nil || rep.Render.Rendered != len(rep.Pages)) {
		tb.Errorf("rendered %+v of %d pages", rep.Render, len(rep.Pages))
	}
	return rep.Crawl.PagesPerSecond, len(rep.Pages)
}

// sampleTreeRSS samples the RSS of this process and all its descendants
// every interval until stop is called; stop returns the peak in bytes.
func sampleTreeRSS(interval time.Duration) (stop func() int64) {
	var peak int64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			peak = max(peak, treeRSS(os.Getpid()))
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	return func() int64 {
		close(done)
		wg.Wait() // peak is read after the sampler ended
		return peak
	}
}

// treeRSS sums VmRSS over pid and its descendants, from /proc.
func treeRSS(pid int) int64 {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0
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
	var total int64
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		total += vmRSS(p)
		queue = append(queue, children[p]...)
	}
	return total
}

// vmRSS returns the resident set size of pid in bytes, 0 when gone.
func vmRSS(pid int) int64 {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}
