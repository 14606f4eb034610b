package crawler_test

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/crawler/crawlertest"
	"github.com/seokit/seokit/crawler/sqlitefrontier"
	"github.com/seokit/seokit/seo"
)

// testOptions are fast options for loopback crawls.
func testOptions(o crawler.Options) *crawler.Options {
	o.AllowPrivate = true
	if o.PerHostRate == 0 {
		o.PerHostRate = -1
	}
	if o.RequestTimeout == 0 {
		o.RequestTimeout = 5 * time.Second
	}
	return &o
}

func pagesByPath(t *testing.T, base string, rep *crawler.SiteReport) map[string]crawler.PageSummary {
	t.Helper()
	m := map[string]crawler.PageSummary{}
	for _, p := range rep.Pages {
		path := strings.TrimPrefix(p.URL, base)
		if _, dup := m[path]; dup {
			t.Errorf("page %s reported twice", p.URL)
		}
		m[path] = p
	}
	return m
}

// depthOf returns a page's click depth, -1 for none (null).
func depthOf(p crawler.PageSummary) int {
	if p.Depth == nil {
		return -1
	}
	return *p.Depth
}

func hasFinding(rep *crawler.SiteReport, id string) bool {
	for _, f := range rep.SiteFindings {
		if f.ID == id {
			return true
		}
	}
	return false
}

func TestCrawlSite(t *testing.T) {
	site := crawlertest.NewSite(crawlertest.SiteOptions{
		Articles: 60, Categories: 3, PerPage: 10, Redirects: 2, RedirectLoop: true, Broken: 2,
		Disallow: []string{"/a/5$"}, Orphans: 2, SitemapIndex: true,
	})
	defer site.Close()
	rep, err := crawler.New(testOptions(crawler.Options{Concurrency: 4})).Run(context.Background(), site.URL)
	if err != nil {
		t.Fatal(err)
	}
	pages := pagesByPath(t, site.URL, rep)
	if rep.Crawl.StopReason != crawler.StopDone {
		t.Errorf("StopReason = %q, want done", rep.Crawl.StopReason)
	}
	tests := []struct {
		name, path string
		status     int
		depth      int
	}{
		{"home", "/", 200, 0},
		{"category", "/c/1", 200, 1},
		{"pagination", "/c/2/p/2", 200, 2},
		{"article from home", "/a/3", 200, 1},
		{"article from category", "/a/40", 200, 2},
		{"redirect", "/old/1", 301, 1},
		{"broken", "/missing/0", 404, 1},
		{"loop a", "/loop/a", 302, 1},
		{"loop b", "/loop/b", 302, 1},
		{"sitemap-only orphan", "/a/61", 200, -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, ok := pages[tc.path]
			if !ok {
				t.Fatalf("%s not crawled", tc.path)
			}
			if p.Status != tc.status || depthOf(p) != tc.depth {
				t.Errorf("%s: status %d depth %v, want %d %d", tc.path, p.Status, p.Depth, tc.status, tc.depth)
			}
		})
	}
	// A robots-blocked URL is not a page: it is listed apart, with its
	// reason and the page linking to it.
	if p, ok := pages["/a/5"]; ok || site.Hits("/a/5") != 0 {
		t.Errorf("/a/5: reported as a page %+v, hits=%d; want only in NotFetched and never fetched", p, site.Hits("/a/5"))
	}
	if len(rep.NotFetched) != 1 || rep.NotFetched[0].URL != site.URL+"/a/5" || rep.NotFetched[0].Reason != crawler.NotFetchedRobots ||
		rep.NotFetched[0].FoundOn == "" || rep.NotFetched[0].Depth == nil {
		t.Errorf("NotFetched = %+v, want /a/5 robots_blocked with where it was found", rep.NotFetched)
	}
	for _, p := range rep.Pages {
		if (p.Score == nil) != (p.Status != 200) || (p.Score == nil && p.ScoreReason == "") {
			t.Errorf("%s: status %d score %v reason %q; want a score exactly for the 200 pages", p.URL, p.Status, p.Score, p.ScoreReason)
		}
	}
	if p := pages["/old/1"]; len(p.Redirects) != 1 || !strings.HasSuffix(p.FinalURL, "/a/1") {
		t.Errorf("/old/1 redirects = %+v final %q", p.Redirects, p.FinalURL)
	}
	// Every page is fetched once: redirect targets, sitemap URLs and links
	// to the same URL are de-duplicated.
	for i := range 62 {
		if h := site.Hits(fmt.Sprintf("/a/%d", i)); h > 1 || (h == 0 && i != 5) {
			t.Errorf("/a/%d fetched %d times", i, h)
		}
	}
	if got, want := rep.Crawl.Fetched, site.Pages()+2+2+2+2-1; got != want {
		t.Errorf("Fetched = %d, want %d", got, want)
	}
	if rep.Crawl.Blocked != 1 {
		t.Errorf("Blocked = %d, want 1", rep.Crawl.Blocked)
	}
	kinds := map[string]int{}
	for _, s := range rep.Sitemaps {
		kinds[s.Kind] += s.URLs
	}
	if kinds["sitemapindex"] != 2 || kinds["urlset"] != 63+3 {
		t.Errorf("sitemaps = %+v", rep.Sitemaps)
	}
	if len(rep.Crawl.DepthHistogram) < 3 || rep.Crawl.DepthHistogram[0] != 1 {
		t.Errorf("DepthHistogram = %v", rep.Crawl.DepthHistogram)
	}
	if hasFinding(rep, "site.sitemap_missing") || hasFinding(rep, "site.robots_txt_missing") {
		t.Errorf("unexpected sitemap/robots findings: %v", rep.SiteFindings)
	}
	if !hasFinding(rep, "site.favicon_missing") {
		t.Errorf("favicon_missing not reported though /favicon.ico is 404")
	}
}

func TestNormalisationAndScope(t *testing.T) {
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { t.Errorf("other server fetched: %s", r.URL) }))
	defer other.Close()
	site := crawlertest.NewSite(crawlertest.SiteOptions{
		Articles: 1, Categories: 1, NoSitemap: true,
		ExtraLinks: []string{"/x#frag", "/x", "/q/../x", "/y?utm_source=news&b=2&a=1", "/y?a=1&b=2", "/y?b=2&a=1&sid=abc",
			other.URL + "/z", "http://example.com/external", "mailto:someone@example.com"},
		Extra: map[string]http.HandlerFunc{
			"/x": func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "<html><title>x</title></html>") },
			"/y": func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "<html><title>y</title></html>") },
		},
	})
	defer site.Close()
	u := strings.Replace(site.URL, "127.0.0.1", "127.0.0.1", 1)
	rep, err := crawler.New(testOptions(crawler.Options{SortQuery: true, SkipExternalLinks: true})).Run(context.Background(), strings.ToUpper(u[:4])+u[4:]+"/")
	if err != nil {
		t.Fatal(err)
	}
	if h := site.Hits("/x"); h != 1 {
		t.Errorf("/x fetched %d times, want 1 (fragment and dot segments normalised)", h)
	}
	if h := site.Hits("/y?a=1&b=2"); h != 1 {
		t.Errorf("/y?a=1&b=2 fetched %d times, want 1 (sorted query, tracking and session params removed)", h)
	}
	for _, p := range rep.Pages {
		if strings.Contains(p.URL, "utm_") || strings.Contains(p.URL, "sid=") || strings.Contains(p.URL, "example.com") {
			t.Errorf("unexpected page %s", p.URL)
		}
	}
	found := false
	for _, tr := range rep.Crawl.Traps {
		found = found || tr.Reason == crawler.TrapSessionID
	}
	if !found {
		t.Errorf("session id not reported: %+v", rep.Crawl.Traps)
	}
}

// fakeResolver resolves every name to loopback.
type fakeResolver struct{}

func (fakeResolver) LookupIPAddr(ctx context.Context, host string) ([]net.IPAddr, error) {
	return []net.IPAddr{{IP: net.IPv4(127, 0, 0, 1)}}, nil
}

func TestSubdomains(t *testing.T) {
	var mu sync.Mutex
	hosts := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host, port, _ := net.SplitHostPort(r.Host)
		mu.Lock()
		hosts[host+r.URL.Path]++
		mu.Unlock()
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprintf(w, `<html><title>%s</title><a href="http://blog.example.com:%s/">blog</a> <a href="http://shop.example.com:%s/">shop</a>`+
			`<a href="http://notexample.com:%s/">lookalike</a> <a href="http://www.example.com:%s/">www</a></html>`, host, port, port, port, port)
	}))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	fetcher := seo.NewFetcher(&seo.FetcherOptions{AllowPrivate: true, Resolver: fakeResolver{}})
	for _, tc := range []struct {
		name       string
		subdomains bool
		want       []string
	}{
		{"off", false, []string{"example.com/", "www.example.com/"}},
		{"on", true, []string{"blog.example.com/", "example.com/", "shop.example.com/", "www.example.com/"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mu.Lock()
			clear(hosts)
			mu.Unlock()
			rep, err := crawler.New(&crawler.Options{Fetcher: fetcher, SkipExternalLinks: true, IncludeSubdomains: tc.subdomains, PerHostRate: -1}).
				Run(context.Background(), "http://example.com:"+port+"/")
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range rep.Pages {
				if p.Status == 200 {
					u := strings.TrimPrefix(p.URL, "http://")
					got = append(got, strings.Replace(u, ":"+port, "", 1))
				}
			}
			if fmt.Sprint(sorted(got)) != fmt.Sprint(tc.want) {
				t.Errorf("crawled %v, want %v", sorted(got), tc.want)
			}
			mu.Lock()
			defer mu.Unlock()
			if hosts["notexample.com/"] != 0 {
				t.Errorf("lookalike domain fetched")
			}
		})
	}
}

func sorted(s []string) []string {
	out := append([]string(nil), s...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

func TestPoliteness(t *testing.T) {
	t.Run("per_host_concurrency", func(t *testing.T) {
		site := crawlertest.NewSite(crawlertest.SiteOptions{Articles: 40, Categories: 2, Latency: 20 * time.Millisecond})
		defer site.Close()
		_, err := crawler.New(testOptions(crawler.Options{Concurrency: 8, PerHostConcurrency: 2})).Run(context.Background(), site.URL)
		if err != nil {
			t.Fatal(err)
		}
		if m := site.MaxConcurrent(); m > 3 || m < 2 { // +1: the site probes run beside the crawl
			t.Errorf("max concurrent requests = %d, want 2 (3 with a probe)", m)
		}
	})
	t.Run("rate", func(t *testing.T) {
		site := crawlertest.NewSite(crawlertest.SiteOptions{Articles: 15, Categories: 1, NoSitemap: true})
		defer site.Close()
		start := time.Now()
		rep, err := crawler.New(testOptions(crawler.Options{PerHostRate: 20})).Run(context.Background(), site.URL)
		if err != nil {
			t.Fatal(err)
		}
		el := time.Since(start)
		// n fetches at 20/s with a burst of 1 take at least (n-1)/20 s.
		if min := time.Duration(rep.Crawl.Fetched-1) * time.Second / 20; el < min {
			t.Errorf("%d pages in %v, faster than 20/s (%v)", rep.Crawl.Fetched, el, min)
		}
	})
	t.Run("retry_after", func(t *testing.T) {
		site := crawlertest.NewSite(crawlertest.SiteOptions{Articles: 5, Categories: 1, NoSitemap: true, Throttle: []string{"/a/3"}})
		defer site.Close()
		rep, err := crawler.New(testOptions(crawler.Options{})).Run(context.Background(), site.URL)
		if err != nil {
			t.Fatal(err)
		}
		times := site.Times("/a/3")
		if len(times) != 2 {
			t.Fatalf("/a/3 requested %d times, want 2", len(times))
		}
		if gap := times[1].Sub(times[0]); gap < 900*time.Millisecond {
			t.Errorf("retried after %v, want >= 1 s (Retry-After)", gap)
		}
		if p := pagesByPath(t, site.URL, rep)["/a/3"]; p.Status != 200 {
			t.Errorf("/a/3 status %d after retry, want 200", p.Status)
		}
	})
}

func TestLimits(t *testing.T) {
	site := crawlertest.NewSite(crawlertest.SiteOptions{Articles: 200, Categories: 4})
	defer site.Close()
	for _, tc := range []struct {
		name   string
		opts   crawler.Options
		check  func(t *testing.T, rep *crawler.SiteReport)
		reason string
	}{
		{"max_pages", crawler.Options{MaxPages: 25}, func(t *testing.T, rep *crawler.SiteReport) {
			if rep.Crawl.Fetched != 25 || !rep.Crawl.LimitReached || rep.Crawl.Queued == 0 || !hasFinding(rep, "site.crawl_limit_reached") {
				t.Errorf("fetched %d limit %v queued %d", rep.Crawl.Fetched, rep.Crawl.LimitReached, rep.Crawl.Queued)
			}
		}, crawler.StopMaxPages},
		{"max_depth", crawler.Options{MaxDepth: 1}, func(t *testing.T, rep *crawler.SiteReport) {
			for _, p := range rep.Pages {
				if depthOf(p) > 1 {
					t.Errorf("%s at depth %v", p.URL, p.Depth)
				}
			}
		}, crawler.StopDone},
		{"byte_budget", crawler.Options{ByteBudget: 100_000, Concurrency: 1}, func(t *testing.T, rep *crawler.SiteReport) {
			if rep.Crawl.Bytes < 100_000 || rep.Crawl.Bytes > 160_000 {
				t.Errorf("bytes %d fetched %d", rep.Crawl.Bytes, rep.Crawl.Fetched)
			}
		}, crawler.StopByteBudget},
		{"time_budget", crawler.Options{TimeBudget: 300 * time.Millisecond, PerHostRate: 10}, func(t *testing.T, rep *crawler.SiteReport) {
			if rep.Crawl.Fetched > 10 || rep.Crawl.Queued == 0 {
				t.Errorf("fetched %d queued %d", rep.Crawl.Fetched, rep.Crawl.Queued)
			}
		}, crawler.StopTimeBudget},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep, err := crawler.New(testOptions(tc.opts)).Run(context.Background(), site.URL)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Crawl.StopReason != tc.reason {
				t.Errorf("StopReason = %q, want %q", rep.Crawl.StopReason, tc.reason)
			}
			tc.check(t, rep)
		})
	}
}

func TestResumeWithSQLite(t *testing.T) {
	site := crawlertest.NewSite(crawlertest.SiteOptions{Articles: 40, Categories: 2})
	defer site.Close()
	path := filepath.Join(t.TempDir(), "crawl.db")
	run := func(maxPages int) *crawler.SiteReport {
		f, err := sqlitefrontier.Open(path, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		rep, err := crawler.New(testOptions(crawler.Options{MaxPages: maxPages, Frontier: f})).Run(context.Background(), site.URL)
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	first := run(12)
	if first.Crawl.StopReason != crawler.StopMaxPages || first.Crawl.Fetched != 12 {
		t.Fatalf("first run: %s after %d pages", first.Crawl.StopReason, first.Crawl.Fetched)
	}
	second := run(1000)
	if second.Crawl.StopReason != crawler.StopDone {
		t.Fatalf("second run: %s", second.Crawl.StopReason)
	}
	if got, want := len(pagesByPath(t, site.URL, second)), site.Pages(); got < want {
		t.Errorf("resumed report has %d pages, want at least %d", got, want)
	}
	for i := range 40 {
		if h := site.Hits(fmt.Sprintf("/a/%d", i)); h != 1 {
			t.Errorf("/a/%d fetched %d times over both runs, want 1", i, h)
		}
	}
}

// TestProgressAndSink checks that progress counts the pages the report
// counts: Done never goes down, and the final snapshot says what the
// report says, also when robots.txt blocks URLs (not fetched, so skipped).
func TestProgressAndSink(t *testing.T) {
	site := crawlertest.NewSite(crawlertest.SiteOptions{Articles: 30, Categories: 2, Latency: 5 * time.Millisecond,
		Disallow: []string{"/a/3", "/a/7"}})
	defer site.Close()
	var buf bytes.Buffer
	sink := crawler.NewJSONLinesSink(&buf)
	var mu sync.Mutex
	var calls []crawler.Progress
	rep, err := crawler.New(testOptions(crawler.Options{
		Sink: sink, ProgressInterval: 10 * time.Millisecond, Concurrency: 2,
		Progress: func(p crawler.Progress) { mu.Lock(); calls = append(calls, p); mu.Unlock() },
	})).Run(context.Background(), site.URL)
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(calls) < 2 {
		t.Fatalf("progress called %d times, want several", len(calls))
	}
	for i := 1; i < len(calls); i++ {
		if calls[i].Done < calls[i-1].Done {
			t.Errorf("progress went from %d pages done to %d", calls[i-1].Done, calls[i].Done)
		}
	}
	last := calls[len(calls)-1]
	if rep.Crawl.Blocked != 2 {
		t.Errorf("blocked %d, want 2", rep.Crawl.Blocked)
	}
	if !last.Final || last.Done != rep.Crawl.Fetched || last.Errors != rep.Crawl.Errors ||
		last.Skipped != rep.Crawl.Skipped+rep.Crawl.Blocked || last.PagesPerSecond <= 0 {
		t.Errorf("final progress %+v, report %+v", last, rep.Crawl)
	}
	if n := strings.Count(buf.String(), "\n"); n != rep.Crawl.Fetched || sink.Count() != n {
		t.Errorf("sink got %d lines, crawl fetched %d", n, rep.Crawl.Fetched)
	}
}

func TestRunInvalidDomain(t *testing.T) {
	_, err := crawler.New(nil).Run(context.Background(), "not a domain")
	if _, ok := seo.AsInputError(err); !ok {
		t.Fatalf("err = %v, want an input error", err)
	}
}
