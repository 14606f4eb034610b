package redisfrontier_test

import (
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/crawler/crawlertest"
	"github.com/seokit/seokit/internal/redistest"
)

// BenchmarkDistributedCrawl crawls one generated site of 10,000 articles
// (10,402 pages of about 20 KB, the site of BenchmarkCrawl in package
// crawler) on loopback with 1, 2 and 3 workers sharing a Redis frontier
// and host gate, each worker a crawler with its own clients in this
// process, and reports pages/s (all workers together, wall time from start
// to the coordinator's report). The host rate is unlimited, so the gate is
// not asked; SEOKIT_BENCH_RATE sets one (requests/s) to put it on the
// path. SEOKIT_BENCH_ARTICLES changes the site's size. Run it with
//
//	go test ./crawler/redisfrontier -run '^$' -bench BenchmarkDistributedCrawl -benchtime 1x
//
// The workers share this process's cores: on one machine more workers
// cannot add CPU, so the figures show the cost of sharing the crawl, not
// the gain of more machines.
func BenchmarkDistributedCrawl(b *testing.B) {
	srv := redistest.Start(b)
	articles := 10_000
	if v, err := strconv.Atoi(os.Getenv("SEOKIT_BENCH_ARTICLES")); err == nil && v > 0 {
		articles = v
	}
	rate := -1.0
	if v, err := strconv.ParseFloat(os.Getenv("SEOKIT_BENCH_RATE"), 64); err == nil && v > 0 {
		rate = v
	}
	site := crawlertest.NewSite(crawlertest.SiteOptions{Articles: articles, Categories: 50, PerPage: 25, NoRequestLog: true})
	defer site.Close()
	for _, n := range []int{1, 2, 3} {
		b.Run(fmt.Sprintf("workers=%d", n), func(b *testing.B) {
			for b.Loop() {
				rep, own, el := sharedCrawl(b, srv.Addr(), site.URL, n, crawler.Options{
					MaxPages: site.Pages() + 100, Concurrency: 8, PerHostConcurrency: 8, PerHostRate: rate, PerHostBurst: 8,
				})
				if rep.Crawl.Fetched != site.Pages() {
					b.Fatalf("fetched %d of %d pages", rep.Crawl.Fetched, site.Pages())
				}
				pps := float64(rep.Crawl.Fetched) / el.Seconds()
				b.ReportMetric(pps, "pages/s")
				b.Logf("%d workers: %d pages in %v, %.0f pages/s; per worker %v", n, rep.Crawl.Fetched, el.Round(1e6), pps, own)
			}
		})
	}
}
