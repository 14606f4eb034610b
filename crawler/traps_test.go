package crawler_test

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/crawler/crawlertest"
)

// TestPaginationNotTrap crawls a 60-page numbered chain (/big/p1.html, each
// page linking to the next) and a ?page={n} chain of 250: numbered
// pagination is crawled to its end, not cut as a calendar.
func TestPaginationNotTrap(t *testing.T) {
	chain := func(next func(int) string, n int) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			i, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/big/p"), ".html"))
			if q := r.URL.Query().Get("page"); q != "" {
				i, _ = strconv.Atoi(q)
			}
			w.Header().Set("Content-Type", "text/html")
			link := ""
			if i < n {
				link = fmt.Sprintf(`<a href="%s">Next page</a>`, next(i+1))
			}
			fmt.Fprintf(w, `<html lang="en"><head><title>Page %d of the list</title></head><body><h1>Page %d</h1><p>Items of page %d.</p>%s</body></html>`, i, i, i, link)
		}
	}
	big := chain(func(i int) string { return fmt.Sprintf("/big/p%d.html", i) }, 60)
	extra := map[string]http.HandlerFunc{"/list": chain(func(i int) string { return fmt.Sprintf("/list?page=%d", i) }, 250)}
	for i := 1; i <= 60; i++ {
		extra[fmt.Sprintf("/big/p%d.html", i)] = big
	}
	site := crawlertest.NewSite(crawlertest.SiteOptions{Articles: 2, Categories: 1, NoSitemap: true,
		ExtraLinks: []string{"/big/p1.html", "/list?page=1"}, Extra: extra})
	defer site.Close()
	rep, err := crawler.New(testOptions(crawler.Options{MaxPages: 1000, MaxDepth: 300, Concurrency: 4, SkipExternalLinks: true})).Run(context.Background(), site.URL)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Crawl.Traps) > 0 || hasFinding(rep, "site.crawl_trap") {
		t.Errorf("traps %+v on numbered pagination", rep.Crawl.Traps)
	}
	got := map[string]bool{}
	for _, p := range rep.Pages {
		got[strings.TrimPrefix(p.URL, site.URL)] = true
	}
	for _, u := range []string{"/big/p60.html", "/list?page=250"} {
		if !got[u] {
			t.Errorf("%s not crawled (fetched %d)", u, rep.Crawl.Fetched)
		}
	}
}

// TestTrapDroppedNotFetched checks that URLs a trap guard leaves out are
// listed in NotFetched with reason "trap", and the finding names the
// pattern and reason.
func TestTrapDroppedNotFetched(t *testing.T) {
	site := crawlertest.NewSite(crawlertest.SiteOptions{Articles: 5, Categories: 1, Calendar: true})
	defer site.Close()
	rep, err := crawler.New(testOptions(crawler.Options{MaxPages: 2000, Concurrency: 4, SkipExternalLinks: true})).Run(context.Background(), site.URL)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Crawl.Traps) == 0 {
		t.Fatal("no trap found on an endless calendar")
	}
	tr := rep.Crawl.Traps[0]
	trapped := 0
	for _, nf := range rep.NotFetched {
		if nf.Reason == crawler.NotFetchedTrap {
			trapped++
			if !strings.Contains(nf.Error, tr.Pattern) || nf.FoundOn == "" {
				t.Errorf("trapped URL %+v does not name the trap %q and its page", nf, tr.Pattern)
			}
		}
	}
	if trapped == 0 || trapped != tr.Dropped {
		t.Errorf("%d trapped URLs in NotFetched, trap dropped %d", trapped, tr.Dropped)
	}
	for _, f := range rep.SiteFindings {
		if f.ID == "site.crawl_trap" && (!strings.Contains(f.Message, tr.Pattern) || f.Evidence.Detail != tr.Reason) {
			t.Errorf("finding %q / %+v does not name pattern %q and reason %q", f.Message, f.Evidence, tr.Pattern, tr.Reason)
		}
	}
}
