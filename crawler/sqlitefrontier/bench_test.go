package sqlitefrontier_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/seokit/seokit/internal/proctest"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/crawler/crawlertest"
	"github.com/seokit/seokit/crawler/sqlitefrontier"
)

// BenchmarkCrawlSQLite crawls generated sites of the sizes listed in
// SEOKIT_BENCH_SQLITE (article counts, comma-separated, smallest first,
// e.g. "1000000", or "20000,100000" on a slow machine) on an SQLite
// frontier with the default analysis and the memory budget of
// crawler/MEMORY.md as Options.MemoryLimit, and prints for each its pages/s,
// peak RSS (VmHWM, test server included) and the bytes per crawled page over
// the process's RSS before the crawl; with two sizes or more, the slope
// between the last two: what one more page costs. It fails when a crawl
// of a million pages or more peaks at 1 GiB RSS or more. The million-page
// run of crawler/MEMORY.md (10-20 minutes on a quiet 2-core machine; too
// long for CI, which runs 2000,10000):
//
//	SEOKIT_BENCH_SQLITE=100000,1000000 go test ./crawler/sqlitefrontier -run '^$' -bench CrawlSQLite -benchtime 1x -timeout 3h
//
// Pages are about 10 KB (crawlertest.SiteOptions.PageBytes), one category
// per 2,000 articles (at most 500), no sitemap: every URL the crawl knows
// it found by a link, and every known URL is crawled.
// SEOKIT_BENCH_HEAPPROFILE=dir writes a heap profile of the moment the live
// heap peaked to dir/heap-peak-<size>.pprof for each size.
func BenchmarkCrawlSQLite(b *testing.B) {
	env := os.Getenv("SEOKIT_BENCH_SQLITE")
	if env == "" {
		b.Skip("set SEOKIT_BENCH_SQLITE to the article counts to crawl, e.g. 1000000")
	}
	var sizes []int
	for _, f := range strings.Split(env, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 100 {
			b.Fatalf("SEOKIT_BENCH_SQLITE: %q is not an article count of 100 or more", f)
		}
		sizes = append(sizes, n)
	}
	type point struct{ pages, rss, live int64 }
	var points []point
	for b.Loop() {
		for _, n := range sizes {
			pages, peak, live := crawlSQLite(b, n)
			points = append(points, point{pages, peak, live})
			b.ReportMetric(float64(peak>>20), "peakRSS-MB/"+strconv.Itoa(n))
			if n >= 1_000_000 && peak >= 1<<30 {
				b.Errorf("%d pages: peak RSS %d MB, want < 1 GB", pages, peak>>20)
			}
		}
	}
	if k := len(points); k >= 2 {
		p, q := points[k-2], points[k-1]
		if q.pages > p.pages {
			b.Logf("slope from %d to %d pages: %d bytes of peak RSS and %d bytes of peak live heap per crawled page",
				p.pages, q.pages, (q.rss-p.rss)/(q.pages-p.pages), (q.live-p.live)/(q.pages-p.pages))
		}
	}
}

// crawlSQLite crawls a generated site of n articles on a fresh SQLite
// frontier and returns the pages crawled, the peak RSS of the crawl and its
// peak live heap.
func crawlSQLite(b *testing.B, n int) (pages, peak, live int64) {
	b.Helper()
	site := crawlertest.NewSite(crawlertest.SiteOptions{
		Articles: n, Categories: min(500, max(10, n/2000)), PerPage: 25, PageBytes: 10_000,
		NoSitemap: true, NoRequestLog: true,
	})
	defer site.Close()
	front, err := sqlitefrontier.Open(filepath.Join(b.TempDir(), "frontier.db"), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer front.Close()
	o := &crawler.Options{
		AllowPrivate: true, PerHostRate: -1, MaxPages: site.Pages() + 10,
		Concurrency: 8, PerHostConcurrency: 8, Frontier: front,
	}
	o.MemoryLimit = crawlertest.MemoryBudget(o.MaxPages)
	runtime.GC()
	debug.FreeOSMemory()
	base := crawlertest.RSS()
	if !crawlertest.ResetPeakRSS() {
		b.Log("cannot reset the peak RSS: it is the process's")
	}
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	cpu0 := proctest.CPUTime()
	stopHeap := proctest.HeapPeak()
	if dir := os.Getenv("SEOKIT_BENCH_HEAPPROFILE"); dir != "" {
		// One sample per 16 KB allocated instead of 512 KB: the crawl's
		// state is many small objects.
		runtime.MemProfileRate = 16 << 10
		path := filepath.Join(dir, "heap-peak-"+strconv.Itoa(n)+".pprof")
		stop := proctest.ProfileHeapPeak(path)
		defer func() {
			if _, err := stop(); err != nil {
				b.Error(err)
			}
			b.Logf("heap profile at the live heap's peak in %s", path)
		}()
	}
	start := time.Now()
	rep, err := crawler.New(o).Run(context.Background(), site.URL)
	el := time.Since(start)
	live = int64(stopHeap())
	if err != nil {
		b.Fatal(err)
	}
	cpu := proctest.CPUTime() - cpu0
	runtime.ReadMemStats(&ms1)
	peak = crawlertest.PeakRSS()
	got := rep.Crawl.Fetched
	if got < site.Pages() {
		b.Fatalf("fetched %d of %d pages (stop %s)", got, site.Pages(), rep.Crawl.StopReason)
	}
	b.Logf("%d pages on the SQLite frontier in %v: %.0f pages/s, CPU %v per page, %d bytes allocated per page; memory limit %d MB; RSS %d MB before, peak %d MB: %d bytes per crawled page; peak live heap %d MB: %d bytes per crawled page (every known URL was crawled: %d links kept)",
		got, el.Round(time.Second), float64(got)/el.Seconds(), (cpu / time.Duration(got)).Round(time.Microsecond),
		(ms1.TotalAlloc-ms0.TotalAlloc)/uint64(got), o.MemoryLimit>>20, base>>20, peak>>20, (peak-base)/int64(got), live>>20, live/int64(got), rep.Graph.Edges)
	return int64(got), peak, live
}
