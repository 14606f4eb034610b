package crawlertest

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seokit/seokit/crawler"
)

// RunSharedCrawlCap checks that a crawl shared through a
// crawler.SharedFrontier keeps Options.MaxPages across its workers: three
// Runs (a coordinator and two workers) crawl a generated site of 3,000
// articles, a part of them disallowed by robots.txt, with MaxPages 1,000;
// the site must serve exactly 1,000 pages, none twice, and the
// coordinator's report must say max_pages. open returns a new handle on
// the crawl crawlID for each worker; the suite closes them.
func RunSharedCrawlCap(t *testing.T, open func(t *testing.T, crawlID string) crawler.SharedFrontier) {
	t.Helper()
	const maxPages = 1000
	var (
		mu   sync.Mutex
		hits = map[string]int{}
	)
	// Robots.txt blocks /a/1, /a/10..., about a third of the articles:
	// blocked URLs do not count as pages.
	site := NewSite(SiteOptions{Articles: 3000, Categories: 10, PerPage: 100, PageBytes: 2000,
		Disallow: []string{"/a/1"}, NoRequestLog: true, OnRequest: func(r *http.Request) {
			p := r.URL.RequestURI()
			if p == "/" || p == "/about" || strings.HasPrefix(p, "/a/") || strings.HasPrefix(p, "/c/") {
				mu.Lock()
				hits[p]++
				mu.Unlock()
			}
		}})
	defer site.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	id := fmt.Sprintf("cap-%d", time.Now().UnixNano())
	reps := make([]*crawler.SiteReport, 3)
	errs := make([]error, 3)
	var wg sync.WaitGroup
	for i := range reps {
		f := open(t, id)
		defer f.Close()
		o := &crawler.Options{Frontier: f, Worker: i > 0, MaxPages: maxPages, Concurrency: 4,
			AllowPrivate: true, PerHostRate: -1, RequestTimeout: 10 * time.Second,
			SkipExternalLinks: true, SharedPoll: 20 * time.Millisecond}
		wg.Add(1)
		go func() {
			defer wg.Done()
			reps[i], errs[i] = crawler.New(o).Run(ctx, site.URL)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("run %d: %v", i, err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	// The coordinator's site probes ask for the home page once more.
	total := 0
	for p, n := range hits {
		if p == "/" {
			n = min(n, 1)
		}
		if n > 1 {
			t.Errorf("%s fetched %d times", p, n)
		}
		total += n
	}
	t.Logf("pages served: %d; reported: %d by the coordinator (all workers), %d and %d by the workers",
		total, reps[0].Crawl.Fetched, reps[1].Crawl.Fetched, reps[2].Crawl.Fetched)
	if total != maxPages {
		t.Errorf("the site served %d pages, want exactly %d (MaxPages)", total, maxPages)
	}
	c := reps[0].Crawl
	if c.Fetched != maxPages || c.StopReason != crawler.StopMaxPages {
		t.Errorf("coordinator reports %d fetched, stop reason %q; want %d, %q", c.Fetched, c.StopReason, maxPages, crawler.StopMaxPages)
	}
	if c.Blocked == 0 {
		t.Errorf("no URL blocked by robots.txt: the test does not show blocked URLs leave the cap alone")
	}
}
