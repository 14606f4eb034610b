package crawler_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/seokit/seokit/internal/proctest"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/crawler/crawlertest"
)

// BenchmarkCrawl crawls a generated site of 10,000 articles of about 20 KB
// served on loopback, with full per-page analysis, and reports pages/s and
// the peak RSS of the process (server included). Run it with
//
//	go test ./crawler -run '^$' -bench BenchmarkCrawl -benchtime 1x
//
// SEOKIT_BENCH_LARGE=1 crawls 100,000 articles instead and fails when the
// peak RSS reaches 200 MB. SEOKIT_BENCH_HEAPPROFILE=dir writes a heap
// profile of the moment the live heap peaked to dir/heap-peak.pprof.
//
// The crawl runs with the memory budget of MEMORY.md as its
// Options.MemoryLimit (crawlertest.MemoryBudget); SEOKIT_BENCH_MEMLIMIT=off
// runs it without, as a baseline. It prints the peak live heap beside the peak RSS,
// and the CPU time and bytes allocated per page, which load does not skew.
func BenchmarkCrawl(b *testing.B) {
	crawlertest.ResetPeakRSS() // the peak of this benchmark, not of one run before it
	articles := 10_000
	large := os.Getenv("SEOKIT_BENCH_LARGE") == "1"
	if large {
		articles = 100_000
	}
	site := crawlertest.NewSite(crawlertest.SiteOptions{Articles: articles, Categories: 50, PerPage: 25, NoRequestLog: true})
	defer site.Close()
	parsePPS := parseBaseline(b, site)
	if dir := os.Getenv("SEOKIT_BENCH_HEAPPROFILE"); dir != "" {
		path := filepath.Join(dir, "heap-peak.pprof")
		stop := proctest.ProfileHeapPeak(path)
		defer func() {
			peak, err := stop()
			if err != nil {
				b.Error(err)
			}
			b.Logf("peak live heap %d MB (profile in %s)", peak>>20, path)
		}()
	}
	b.ResetTimer()
	for b.Loop() {
		o := &crawler.Options{
			AllowPrivate: true, PerHostRate: -1, MaxPages: site.Pages() + 10,
			Concurrency: 8, PerHostConcurrency: 8,
		}
		if os.Getenv("SEOKIT_BENCH_MEMLIMIT") != "off" {
			o.MemoryLimit = crawlertest.MemoryBudget(o.MaxPages)
		}
		var ms0, ms1 runtime.MemStats
		runtime.ReadMemStats(&ms0)
		cpu0 := proctest.CPUTime()
		stopHeap := proctest.HeapPeak()
		start := time.Now()
		rep, err := crawler.New(o).Run(context.Background(), site.URL)
		el := time.Since(start)
		live := stopHeap()
		if err != nil {
			b.Fatal(err)
		}
		cpu := proctest.CPUTime() - cpu0
		runtime.ReadMemStats(&ms1)
		if n := rep.Crawl.Fetched; n > 0 {
			b.Logf("memory limit %d MB (0: none); peak live heap %d MB; per page: CPU %v (test server included), %d bytes allocated",
				o.MemoryLimit>>20, live>>20, (cpu / time.Duration(n)).Round(time.Microsecond), (ms1.TotalAlloc-ms0.TotalAlloc)/uint64(n))
		}
		if rep.Crawl.Fetched < site.Pages() {
			b.Fatalf("fetched %d of %d pages (stop %s)", rep.Crawl.Fetched, site.Pages(), rep.Crawl.StopReason)
		}
		pps := float64(rep.Crawl.Fetched) / el.Seconds()
		rss := crawlertest.PeakRSS()
		b.ReportMetric(pps, "pages/s")
		b.ReportMetric(float64(rss>>20), "peakRSS-MB")
		b.ReportMetric(pps/parsePPS, "vs-parse")
		b.Logf("%d pages in %v: %.0f pages/s, peak RSS %d MB; a bare html.Parse of the same pages on both cores: %.0f pages/s (crawl/parse %.2f)",
			rep.Crawl.Fetched, el.Round(time.Millisecond), pps, rss>>20, parsePPS, pps/parsePPS)
		// The requests include the 1,000 pages of parseBaseline.
		b.Logf("requests on the site: %d; resources checked %d, external targets checked %d", site.Requests(), rep.ResourceChecked, rep.ExternalChecked)
		if large && rss >= 200<<20 {
			b.Errorf("peak RSS %d MB, want < 200 MB", rss>>20)
		}
	}
}

// parseBaseline downloads 1,000 of the site's pages and times a bare
// html.Parse of them on every core: the floor any analysing crawler pays,
// measured in the same run so the crawl's figure can be read as a ratio on a
// shared, noisy machine.
func parseBaseline(b *testing.B, site *crawlertest.Site) float64 {
	b.Helper()
	pages := sampleArticles(b, site, 1000, 1000)
	const rounds = 5
	start := time.Now()
	for range rounds {
		parseOnCores(b, pages)
	}
	return float64(rounds*len(pages)) / time.Since(start).Seconds()
}
