package crawler_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/seokit/seokit/internal/proctest"

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

// extractBenchRun is the outcome of one configuration of
// crawlExtractBench, summed over its rounds.
type extractBenchRun struct {
	pages int
	wall  time.Duration
	cpu   time.Duration // user and system time of the process, server included
}

func (r extractBenchRun) pps() float64 { return float64(r.pages) / r.wall.Seconds() }

// cpuPerPage returns the CPU time per page in microseconds.
func (r extractBenchRun) cpuPerPage() float64 {
	return float64(r.cpu.Microseconds()) / float64(r.pages)
}

// crawlExtractBench crawls a generated site of 10,000 articles on loopback
// (SEOKIT_BENCH_ARTICLES overrides the number) without extractors, with the
// nine extractors, and with the extractors and the two search rules,
// alternating, rounds times each. It returns the figures of the three
// configurations and the number of pages of the site.
func crawlExtractBench(tb testing.TB, rounds int) (runs [3]extractBenchRun, sitePages int) {
	articles := 10_000
	if v, err := strconv.Atoi(os.Getenv("SEOKIT_BENCH_ARTICLES")); err == nil && v > 0 {
		articles = v
	}
	site := crawlertest.NewSite(crawlertest.SiteOptions{Articles: articles, Categories: 50, PerPage: 25, NoRequestLog: true})
	defer site.Close()
	for r := range 3 * rounds {
		i := r % 3
		ao := &analyzer.Options{}
		switch i {
		case 1:
			ao.Extract = benchExtractors
		case 2:
			ao.Extract, ao.Search = benchExtractors, benchSearch
		}
		start, cpu := time.Now(), proctest.CPUTime()
		rep, err := crawler.New(&crawler.Options{
			AllowPrivate: true, PerHostRate: -1, MaxPages: site.Pages() + 10,
			Concurrency: 8, PerHostConcurrency: 8, SkipExternalLinks: true, Analyzer: ao,
		}).Run(context.Background(), site.URL)
		if err != nil {
			tb.Fatal(err)
		}
		runs[i].wall += time.Since(start)
		runs[i].cpu += proctest.CPUTime() - cpu
		if rep.Crawl.Fetched < site.Pages() {
			tb.Fatalf("fetched %d of %d pages (stop %s)", rep.Crawl.Fetched, site.Pages(), rep.Crawl.StopReason)
		}
		if i > 0 && (len(rep.Extraction) != len(benchExtractors) || rep.Extraction[0].WithValue < site.Pages()/2) {
			tb.Fatalf("extraction stats %+v", rep.Extraction)
		}
		runs[i].pages += rep.Crawl.Fetched
	}
	return runs, site.Pages()
}

// extractBenchLine is the line the benchmark prints: pages/s and CPU time
// per page (user and system, server included; a busy machine inflates it
// far less than wall time) of the three configurations, and the ratios of
// the extractor crawl to the plain one.
func extractBenchLine(runs [3]extractBenchRun, pages int) string {
	p, x, s := runs[0], runs[1], runs[2]
	return fmt.Sprintf("extract crawl: %d pages: %.0f pages/s (%.0f µs CPU/page) without extractors, "+
		"%.0f pages/s (%.0f µs CPU/page) with 5 CSS, 2 XPath, 2 regex extractors: ratio %.2f (CPU %.2f); "+
		"with 2 search rules too: %.0f pages/s (%.0f µs CPU/page), ratio %.2f (CPU %.2f); target ratio 0.8",
		pages, p.pps(), p.cpuPerPage(), x.pps(), x.cpuPerPage(), x.pps()/p.pps(), p.cpuPerPage()/x.cpuPerPage(),
		s.pps(), s.cpuPerPage(), s.pps()/p.pps(), p.cpuPerPage()/s.cpuPerPage())
}

// BenchmarkExtractCrawl crawls 10,000 generated pages with five CSS, two
// XPath and two regex extractors against the same crawl without them in
// the same run, and with two search rules added (reported apart), and
// prints the "extract crawl:" line:
//
//	go test ./crawler -run '^$' -bench BenchmarkExtractCrawl -benchtime 1x
func BenchmarkExtractCrawl(b *testing.B) {
	for b.Loop() {
		runs, pages := crawlExtractBench(b, 1)
		b.ReportMetric(runs[0].pps(), "plain-pages/s")
		b.ReportMetric(runs[1].pps(), "extract-pages/s")
		b.ReportMetric(runs[1].pps()/runs[0].pps(), "ratio")
		b.ReportMetric(runs[0].cpuPerPage()/runs[1].cpuPerPage(), "cpu-ratio")
		fmt.Println(extractBenchLine(runs, pages))
	}
}

// TestCrawlExtractBench runs the same comparison as a test when
// SEOKIT_BENCH=1, printing the figures. It fails when the extractor crawl
// needs more than 1/0.8 of the plain crawl's CPU time per page: the CPU
// ratio, unlike pages/s, holds on a machine busy with other work.
func TestCrawlExtractBench(t *testing.T) {
	if os.Getenv("SEOKIT_BENCH") != "1" {
		t.Skip("set SEOKIT_BENCH=1 to run the extraction crawl benchmark")
	}
	runs, pages := crawlExtractBench(t, 2)
	t.Log(extractBenchLine(runs, pages))
	if r := runs[0].cpuPerPage() / runs[1].cpuPerPage(); r < 0.8 {
		t.Errorf("CPU ratio %.2f, want at least 0.8", r)
	}
}
