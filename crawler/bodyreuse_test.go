package crawler_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/seokit/seokit/analyzer"
	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/crawler/crawlertest"
)

// TestReusedBodiesSameSummaries crawls a site of pages from 2 to 60 KB on
// eight workers twice: with pages fetched into reused buffers, and with a
// check of the caller's, which makes the crawl fetch every page into a
// buffer of its own. What each summary says of its page's content must be
// the same, and each article's title its own: a buffer reused while its
// page was still read would show up as another page's text (and, under
// -race, as a data race between the fetch and the analysis).
func TestReusedBodiesSameSummaries(t *testing.T) {
	site := crawlertest.NewSite(crawlertest.SiteOptions{
		Articles: 120, Categories: 4, PerPage: 15, PageBytes: 2000, MaxPageBytes: 60_000, MaxRelated: 20,
	})
	defer site.Close()
	crawl := func(checks []analyzer.Check) map[string]crawler.PageSummary {
		o := testOptions(crawler.Options{Concurrency: 8, PerHostConcurrency: 8})
		if checks != nil {
			o.Analyzer = &analyzer.Options{Checks: checks}
		}
		rep, err := crawler.New(o).Run(context.Background(), site.URL)
		if err != nil {
			t.Fatal(err)
		}
		return pagesByPath(t, site.URL, rep)
	}
	reused := crawl(nil)
	own := crawl([]analyzer.Check{{Area: "test", Run: func(*analyzer.Page, *analyzer.Reporter) {}}})
	if len(reused) != site.Pages() || len(own) != len(reused) {
		t.Fatalf("crawled %d and %d pages, want %d", len(reused), len(own), site.Pages())
	}
	for path, p := range reused {
		q := own[path]
		if p.Title != q.Title || p.Description != q.Description || p.H1 != q.H1 || p.WordCount != q.WordCount ||
			p.Bytes != q.Bytes || !slices.Equal(p.Findings, q.Findings) {
			t.Errorf("%s: reused buffer %q %q %q %d words %d bytes %v; own buffer %q %q %q %d words %d bytes %v", path,
				p.Title, p.Description, p.H1, p.WordCount, p.Bytes, p.Findings, q.Title, q.Description, q.H1, q.WordCount, q.Bytes, q.Findings)
		}
		if n, ok := strings.CutPrefix(path, "/a/"); ok && !strings.HasPrefix(p.Title, "Article "+n+":") {
			t.Errorf("%s: title %q is another page's", path, p.Title)
		}
	}
}
