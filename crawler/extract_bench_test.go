package crawler_test

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/seokit/seokit/analyzer"
	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/crawler/crawlertest"
)

// benchExtractors are five CSS, two XPath and two regex extractors, and
// benchSearch two search rules, as a shop audit would configure them.
var (
	benchExtractors = []analyzer.Extractor{
		{Name: "h1", Kind: "css", Expr: "h1"},
		{Name: "description", Kind: "css", Expr: `meta[name="description"]`, Attr: "content"},
		{Name: "nav links", Kind: "css", Expr: "nav a", Attr: "href"},
		{Name: "paragraphs", Kind: "css", Expr: "main p", Output: "count"},
		{Name: "stylesheet", Kind: "css", Expr: `link[rel="stylesheet"]`, Output: "outer_html"},
		{Name: "title", Kind: "xpath", Expr: "//title"},
		{Name: "links", Kind: "xpath", Expr: "count(//a[@href])"},
		{Name: "article links", Kind: "regex", Expr: `href="(/a/\d+)"`},
		{Name: "h1 text", Kind: "regex", Expr: `<h1>([^<]+)</h1>`},
	}
	benchSearch = []analyzer.SearchRule{
		{Name: "generated", Contains: true, Text: "generated", In: "text"},
		{Name: "no lorem", Contains: false, Regex: `(?i)lorem ipsum`},
	}
)

// crawlExtractBench crawls a generated site of 10,000 articles on loopback
// (SEOKIT_BENCH_ARTICLES overrides the number) without and with the
// extractors, alternating, rounds times each, and returns the pages/s of
// each.
func crawlExtractBench(tb testing.TB, rounds int) (plain, extract float64) {
	articles := 10_000
	if v, err := strconv.Atoi(os.Getenv("SEOKIT_BENCH_ARTICLES")); err == nil && v > 0 {
		articles = v
	}
	site := crawlertest.NewSite(crawlertest.SiteOptions{Articles: articles, Categories: 50, PerPage: 25, NoRequestLog: true})
	defer site.Close()
	var pages [2]int
	var took [2]time.Duration
	for r := range 2 * rounds {
		i := r % 2
		ao := &analyzer.Options{}
		if i == 1 {
			ao.Extract, ao.Search = benchExtractors, benchSearch
		}
		start := time.Now()
		rep, err := crawler.New(&crawler.Options{
			AllowPrivate: true, PerHostRate: -1, MaxPages: site.Pages() + 10,
			Concurrency: 8, PerHostConcurrency: 8, SkipExternalLinks: true, Analyzer: ao,
		}).Run(context.Background(), site.URL)
		if err != nil {
			tb.Fatal(err)
		}
		took[i] += time.Since(start)
		if rep.Crawl.Fetched < site.Pages() {
			tb.Fatalf("fetched %d of %d pages (stop %s)", rep.Crawl.Fetched, site.Pages(), rep.Crawl.StopReason)
		}
		if i == 1 && (len(rep.Extraction) != len(benchExtractors) || rep.Extraction[0].WithValue < site.Pages()/2) {
			tb.Fatalf("extraction stats %+v", rep.Extraction)
		}
		pages[i] += rep.Crawl.Fetched
	}
	return float64(pages[0]) / took[0].Seconds(), float64(pages[1]) / took[1].Seconds()
}

// BenchmarkExtractCrawl crawls 10,000 generated pages with five CSS, two
// XPath and two regex extractors and two search rules, against the same
// crawl without them in the same run:
//
//	go test ./crawler -run '^$' -bench BenchmarkExtractCrawl -benchtime 1x
func BenchmarkExtractCrawl(b *testing.B) {
	for b.Loop() {
		plain, extract := crawlExtractBench(b, 1)
		b.ReportMetric(plain, "plain-pages/s")
		b.ReportMetric(extract, "extract-pages/s")
		b.ReportMetric(extract/plain, "ratio")
	}
}

// TestCrawlExtractBench runs the same comparison as a test when
// SEOKIT_BENCH=1, printing the figures and failing below a ratio of 0.8.
func TestCrawlExtractBench(t *testing.T) {
	if os.Getenv("SEOKIT_BENCH") != "1" {
		t.Skip("set SEOKIT_BENCH=1 to run the extraction crawl benchmark")
	}
	plain, extract := crawlExtractBench(t, 2)
	t.Logf("crawl: %.0f pages/s without extractors, %.0f pages/s with 5 CSS, 2 XPath, 2 regex extractors and 2 search rules: ratio %.2f",
		plain, extract, extract/plain)
	if extract/plain < 0.8 {
		t.Errorf("ratio %.2f, want at least 0.8", extract/plain)
	}
}
