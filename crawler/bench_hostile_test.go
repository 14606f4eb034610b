package crawler_test

import (
	"context"
	"encoding/json"
	"io"
	"runtime"
	"testing"
	"time"

	"github.com/seokit/seokit/internal/proctest"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/crawler/crawlertest"
)

// crawlHostile crawls site to maxPages and reports pages/s, the peak RSS
// (as BenchmarkCrawl measures it, after resetting it where Linux allows),
// the peak live heap and the size of the report's JSON.
func crawlHostile(b *testing.B, url string, maxPages int) *crawler.SiteReport {
	b.Helper()
	var rep *crawler.SiteReport
	for b.Loop() {
		runtime.GC()
		crawlertest.ResetPeakRSS()
		stop := proctest.HeapPeak()
		start := time.Now()
		var err error
		rep, err = crawler.New(&crawler.Options{
			AllowPrivate: true, PerHostRate: -1, MaxPages: maxPages,
			Concurrency: 8, PerHostConcurrency: 8, SkipExternalLinks: true,
		}).Run(context.Background(), url)
		if err != nil {
			b.Fatal(err)
		}
		el := time.Since(start)
		heap := stop()
		rss := crawlertest.PeakRSS()
		cw := &countWriter{}
		if err := json.NewEncoder(cw).Encode(rep); err != nil {
			b.Fatal(err)
		}
		pps := float64(rep.Crawl.Fetched) / el.Seconds()
		b.ReportMetric(pps, "pages/s")
		b.ReportMetric(float64(rss>>20), "peakRSS-MB")
		b.ReportMetric(float64(heap>>20), "peakHeap-MB")
		b.ReportMetric(float64(cw.n>>10), "reportJSON-KB")
		b.Logf("%d pages in %v: %.0f pages/s, peak RSS %d MB, peak live heap %d MB, report JSON %d bytes, graph nodes %d edges %d, truncated %v, orphan check %s",
			rep.Crawl.Fetched, el.Round(time.Millisecond), pps, rss>>20, heap>>20, cw.n, rep.Graph.Nodes, rep.Graph.Edges, rep.Truncated, rep.Graph.OrphanCheck)
	}
	return rep
}

type countWriter struct{ n int64 }

func (w *countWriter) Write(p []byte) (int, error) { w.n += int64(len(p)); return len(p), nil }

var _ io.Writer = (*countWriter)(nil)

// BenchmarkCrawlLinkFlood crawls 1,000 pages of a site whose every page
// links to 6,000 URLs never seen before, and reports the peak RSS. Run it
// with
//
//	go test ./crawler -run '^$' -bench 'BenchmarkCrawl' -benchtime 1x
func BenchmarkCrawlLinkFlood(b *testing.B) {
	site := crawlertest.NewHostileSite(crawlertest.HostileOptions{NewLinksPerPage: 6000})
	defer site.Close()
	rep := crawlHostile(b, site.URL, 1000)
	if rep.Crawl.Fetched < 1000 {
		b.Fatalf("fetched %d pages, want 1000", rep.Crawl.Fetched)
	}
}

// BenchmarkCrawlSitemapFlood crawls 10 pages of a site whose sitemap index
// lists 1,000,000 URLs in sitemaps of 50,000, and reports the peak RSS and
// the size of the report's JSON.
func BenchmarkCrawlSitemapFlood(b *testing.B) {
	site := crawlertest.NewHostileSite(crawlertest.HostileOptions{SitemapURLs: 1_000_000, Gzip: true})
	defer site.Close()
	rep := crawlHostile(b, site.URL, 10)
	if n := len(rep.Sitemaps); n != site.Sitemaps()+1 {
		b.Fatalf("read %d sitemaps, want %d", n, site.Sitemaps()+1)
	}
}
