package crawler_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/crawler/crawlertest"
)

// TestOrphansPartialCrawl crawls a site of about 200 pages to 20: the
// sitemap URLs it did not reach are not orphans (issue 14), and the report
// says orphans were not checked. Crawled to the end, the same site reports
// its real orphans.
func TestOrphansPartialCrawl(t *testing.T) {
	site := crawlertest.NewSite(crawlertest.SiteOptions{Articles: 180, Categories: 4, PerPage: 20, Orphans: 3, PageBytes: 2000})
	defer site.Close()
	if n := site.Pages(); n < 190 || n > 210 {
		t.Fatalf("site has %d pages, want about 200", n)
	}
	orphans := func(rep *crawler.SiteReport) int {
		n := 0
		for _, f := range rep.SiteFindings {
			if f.ID == "site.orphan" {
				n++
			}
		}
		return n
	}
	for _, tc := range []struct {
		name     string
		maxPages int
		check    string
		orphans  int
	}{
		{"partial", 20, crawler.OrphanCheckNotDone, 0},
		{"complete", site.Pages() + 50, crawler.OrphanCheckDone, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep, err := crawler.New(testOptions(crawler.Options{MaxPages: tc.maxPages, Concurrency: 4, PerHostConcurrency: 4, SkipExternalLinks: true})).
				Run(context.Background(), site.URL)
			if err != nil {
				t.Fatal(err)
			}
			if got := orphans(rep); got != tc.orphans || rep.Graph.Orphans != tc.orphans || rep.Graph.OrphanCheck != tc.check {
				t.Errorf("%d site.orphan findings, graph orphans %d, orphan check %q; want %d and %q (fetched %d, stop %s)",
					got, rep.Graph.Orphans, rep.Graph.OrphanCheck, tc.orphans, tc.check, rep.Crawl.Fetched, rep.Crawl.StopReason)
			}
		})
	}
}

// TestHostileSitesBounded crawls the hostile sites with small caps: the
// crawl keeps within them and says what it left out.
func TestHostileSitesBounded(t *testing.T) {
	t.Run("link flood", func(t *testing.T) {
		site := crawlertest.NewHostileSite(crawlertest.HostileOptions{NewLinksPerPage: 600})
		defer site.Close()
		rep, err := crawler.New(testOptions(crawler.Options{MaxPages: 20, MaxLinkTargets: 100, Concurrency: 4, SkipExternalLinks: true})).
			Run(context.Background(), site.URL)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Crawl.Fetched != 20 || !rep.Crawl.LimitReached {
			t.Errorf("fetched %d, limit reached %v; want 20 and true", rep.Crawl.Fetched, rep.Crawl.LimitReached)
		}
		if tr, ok := rep.Truncated["graph.edges"]; !ok || tr.Omitted == 0 {
			t.Errorf("truncated %+v, want graph.edges", rep.Truncated)
		}
	})
	t.Run("sitemap flood", func(t *testing.T) {
		site := crawlertest.NewHostileSite(crawlertest.HostileOptions{SitemapURLs: 20_000, PerSitemap: 5000, Gzip: true})
		defer site.Close()
		rep, err := crawler.New(testOptions(crawler.Options{MaxPages: 5, MaxSitemapURLs: 1000, Concurrency: 2, SkipExternalLinks: true})).
			Run(context.Background(), site.URL)
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Sitemaps) != site.Sitemaps()+1 { // the index too
			t.Errorf("%d sitemaps read, want %d", len(rep.Sitemaps), site.Sitemaps()+1)
		}
		if tr := rep.Truncated["sitemapUrls"]; tr.Total != 20_000 || tr.Omitted != 19_000 {
			t.Errorf("sitemapUrls truncation %+v, want 20000 with 19000 omitted", tr)
		}
		if rep.Graph.OrphanCheck != crawler.OrphanCheckNotDone || rep.Graph.Orphans != 0 {
			t.Errorf("orphan check %q, orphans %d; want not_done, 0", rep.Graph.OrphanCheck, rep.Graph.Orphans)
		}
	})
}

// TestOrphansAreRealPages lists a 404, a redirect and a PDF only in the
// sitemap, next to one real orphan page: each of the three is reported by
// its own sitemap check, and only the real page is an orphan, in the
// findings and in Graph.Orphans alike.
func TestOrphansAreRealPages(t *testing.T) {
	site := crawlertest.NewSite(crawlertest.SiteOptions{Articles: 6, Categories: 2, Orphans: 1,
		SitemapExtra: []string{"/gone", "/old/1", "/file.pdf"},
		Extra: map[string]http.HandlerFunc{"/file.pdf": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/pdf")
			w.Write([]byte("%PDF-1.4\n"))
		}}})
	defer site.Close()
	rep, err := crawler.New(testOptions(crawler.Options{Concurrency: 2, SkipExternalLinks: true})).Run(context.Background(), site.URL)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string][]string{}
	for _, f := range rep.SiteFindings {
		ids[f.ID] = append(ids[f.ID], strings.TrimPrefix(f.URL, site.URL))
	}
	if got := ids["site.orphan"]; len(got) != 1 || got[0] != "/a/6" || rep.Graph.Orphans != 1 {
		t.Errorf("orphans %q, graph orphans %d; want only /a/6", got, rep.Graph.Orphans)
	}
	if got := ids["site.sitemap_broken_url"]; len(got) != 1 || got[0] != "/gone" {
		t.Errorf("site.sitemap_broken_url on %q, want /gone", got)
	}
	if got := ids["site.sitemap_redirect"]; len(got) != 1 || got[0] != "/old/1" {
		t.Errorf("site.sitemap_redirect on %q, want /old/1", got)
	}
}
