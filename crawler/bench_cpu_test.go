package crawler_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/seokit/seokit/internal/proctest"

	"golang.org/x/net/html"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/crawler/crawlertest"
)

// BenchmarkSiteVsParse crawls a generated site of articles from 20 to
// 120 KB with 30 to 150 links each, served on loopback, with full per-page
// analysis, and, in the same run, times a bare html.Parse of a sample of
// the same pages on every core before and after each crawl. It prints the
// crawl's throughput as a ratio of the parse's, the same ratio by CPU time
// (the figure a loaded machine changes least), the CPU time per page of
// both (process user+sys, the site's server included for the crawl) and
// the bytes allocated per page (runtime TotalAlloc, server included). Run it with
//
//	go test ./crawler -run '^$' -bench BenchmarkSiteVsParse -benchtime 1x
//
// SEOKIT_BENCH_CRAWL_PAGES sets the number of articles (default 5,000;
// the figure is for 50,000).
func BenchmarkSiteVsParse(b *testing.B) {
	articles := 5000
	if v := os.Getenv("SEOKIT_BENCH_CRAWL_PAGES"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 100 {
			b.Fatalf("SEOKIT_BENCH_CRAWL_PAGES=%q: want a number of at least 100", v)
		}
		articles = n
	}
	site := crawlertest.NewSite(crawlertest.SiteOptions{
		Articles: articles, Categories: 20, PerPage: 50,
		PageBytes: 20_000, MaxPageBytes: 120_000, MaxRelated: 125,
		NoRequestLog: true,
	})
	defer site.Close()
	sample := sampleArticles(b, site, min(articles, 2000), articles)
	var ratios, crawlCPU, parseCPU, crawlAlloc, parseAlloc []float64
	var pages int
	b.ResetTimer()
	for b.Loop() {
		before := parseSample(b, sample)
		crawl := measureWork(func() {
			rep, err := crawler.New(&crawler.Options{
				AllowPrivate: true, PerHostRate: -1, MaxPages: site.Pages() + 10,
				Concurrency: 8, PerHostConcurrency: 8,
			}).Run(context.Background(), site.URL)
			if err != nil {
				b.Fatal(err)
			}
			if rep.Crawl.Fetched < site.Pages() {
				b.Fatalf("fetched %d of %d pages (stop %s)", rep.Crawl.Fetched, site.Pages(), rep.Crawl.StopReason)
			}
			pages = rep.Crawl.Fetched
		})
		after := parseSample(b, sample)
		parse := workCost{wall: (before.wall + after.wall) / 2, cpu: (before.cpu + after.cpu) / 2, alloc: (before.alloc + after.alloc) / 2}
		parsePPS := float64(len(sample)) / parse.wall.Seconds()
		crawlPPS := float64(pages) / crawl.wall.Seconds()
		ratios = append(ratios, crawlPPS/parsePPS)
		crawlCPU = append(crawlCPU, float64(crawl.cpu)/float64(pages)/1e6)
		parseCPU = append(parseCPU, float64(parse.cpu)/float64(len(sample))/1e6)
		crawlAlloc = append(crawlAlloc, float64(crawl.alloc)/float64(pages))
		parseAlloc = append(parseAlloc, float64(parse.alloc)/float64(len(sample)))
		b.Logf("crawl %d pages in %v: %.0f pages/s; html.Parse of %d of them: %.0f pages/s (before %v, after %v)",
			pages, crawl.wall.Round(time.Millisecond), crawlPPS, len(sample), parsePPS,
			before.wall.Round(time.Millisecond), after.wall.Round(time.Millisecond))
	}
	ratio, ccpu, pcpu, calloc, palloc := medianOf(ratios), medianOf(crawlCPU), medianOf(parseCPU), medianOf(crawlAlloc), medianOf(parseAlloc)
	b.ReportMetric(ratio, "vs-parse")
	b.ReportMetric(pcpu/ccpu, "cpu-vs-parse")
	b.ReportMetric(ccpu, "cpu-ms/page")
	b.ReportMetric(calloc, "alloc-B/page")
	b.ReportMetric(0, "ns/op")
	fmt.Printf("crawl vs parse: %d pages, crawl/parse throughput %.2f (target >= 0.5), by CPU time %.2f; CPU %.2f ms/page (parse %.2f, %.1fx); allocated %.0f KB/page (parse %.0f KB/page)\n",
		pages, ratio, pcpu/ccpu, ccpu, pcpu, ccpu/pcpu, calloc/1024, palloc/1024)
}

// workCost is what a piece of work took: wall time, process CPU time and bytes
// allocated.
type workCost struct {
	wall, cpu time.Duration
	alloc     uint64
}

// measureWork runs f and returns its workCost.
func measureWork(f func()) workCost {
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	cpu0, start := proctest.CPUTime(), time.Now()
	f()
	wall, cpu := time.Since(start), proctest.CPUTime()-cpu0
	runtime.ReadMemStats(&m1)
	return workCost{wall: wall, cpu: cpu, alloc: m1.TotalAlloc - m0.TotalAlloc}
}

// sampleArticles downloads n articles spread evenly over the first
// articles of site: the bodies a parse baseline parses.
func sampleArticles(b *testing.B, site *crawlertest.Site, n, articles int) [][]byte {
	b.Helper()
	pages := make([][]byte, 0, n)
	for k := range n {
		resp, err := http.Get(site.ArticleURL(k * articles / n))
		if err != nil {
			b.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			b.Fatal(err)
		}
		pages = append(pages, body)
	}
	return pages
}

// parseSample parses every page once with html.Parse on every core and
// returns what it cost.
func parseSample(b *testing.B, pages [][]byte) workCost {
	return measureWork(func() { parseOnCores(b, pages) })
}

// parseOnCores parses every page once with html.Parse, the pages shared
// out over every core: the floor any analysing crawler pays, which the
// crawl benchmarks measure in the same run as the crawl so that their
// figures read as ratios on a shared, noisy machine.
func parseOnCores(b *testing.B, pages [][]byte) {
	workers := runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(pages); i += workers {
				if _, err := html.Parse(bytes.NewReader(pages[i])); err != nil {
					b.Error(err)
				}
			}
		}()
	}
	wg.Wait()
}

func medianOf(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
