package crawler_test

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/crawler/crawlertest"
)

// peakRSS returns the process's peak resident set size in bytes (VmHWM),
// or 0 where /proc is not available.
func peakRSS() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			f := strings.Fields(rest)
			if len(f) > 0 {
				kb, _ := strconv.ParseInt(f[0], 10, 64)
				return kb << 10
			}
		}
	}
	return 0
}

// BenchmarkCrawl crawls a generated site of 10,000 articles of about 20 KB
// served on loopback, with full per-page analysis, and reports pages/s and
// the peak RSS of the process (server included). Run it with
//
//	go test ./crawler -run '^$' -bench BenchmarkCrawl -benchtime 1x
//
// SEOKIT_BENCH_LARGE=1 crawls 100,000 articles instead and fails when the
// peak RSS reaches 300 MB.
func BenchmarkCrawl(b *testing.B) {
	articles := 10_000
	large := os.Getenv("SEOKIT_BENCH_LARGE") == "1"
	if large {
		articles = 100_000
	}
	site := crawlertest.NewSite(crawlertest.SiteOptions{Articles: articles, Categories: 50, PerPage: 25})
	defer site.Close()
	b.ResetTimer()
	for b.Loop() {
		start := time.Now()
		rep, err := crawler.New(&crawler.Options{
			AllowPrivate: true, PerHostRate: -1, MaxPages: site.Pages() + 10,
			Concurrency: 8, PerHostConcurrency: 8,
		}).Run(context.Background(), site.URL)
		if err != nil {
			b.Fatal(err)
		}
		el := time.Since(start)
		if rep.Crawl.Fetched < site.Pages() {
			b.Fatalf("fetched %d of %d pages (stop %s)", rep.Crawl.Fetched, site.Pages(), rep.Crawl.StopReason)
		}
		pps := float64(rep.Crawl.Fetched) / el.Seconds()
		rss := peakRSS()
		b.ReportMetric(pps, "pages/s")
		b.ReportMetric(float64(rss>>20), "peakRSS-MB")
		b.Logf("%d pages in %v: %.0f pages/s, peak RSS %d MB", rep.Crawl.Fetched, el.Round(time.Millisecond), pps, rss>>20)
		if large && rss >= 300<<20 {
			b.Errorf("peak RSS %d MB, want < 300 MB", rss>>20)
		}
	}
}
