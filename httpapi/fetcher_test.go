package httpapi

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/seokit/seokit/analyzer"
	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/httpapi/store"
)

// TestPageAnalysesShareFetcher: page analyses (and their link checks) go
// through the server's one fetcher, so the site analysed sees connections
// reused across analyses instead of new ones for each.
func TestPageAnalysesShareFetcher(t *testing.T) {
	site := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, `<!doctype html><html lang="en"><head><title>Oak tables made by hand</title></head>
<body><h1>Oak tables</h1><p>Solid oak tables that last for generations.</p><a href="/about">About us</a></body></html>`)
		case "/about":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, `<!doctype html><title>About</title>`)
		default:
			http.NotFound(w, r)
		}
	}))
	var conns atomic.Int64
	site.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	site.Start()
	defer site.Close()
	a := newTestAPI(t, &Options{AllowPrivate: true})
	const n = 10
	body := `{"url":"` + site.URL + `/","options":{"checkLinks":true}}`
	var first int64
	for i := range n {
		resp := a.call("POST", "/v1/analyze/page", a.key, body)
		wantStatus(t, resp, http.StatusOK)
		resp.Body.Close()
		if i == 0 {
			first = conns.Load()
		}
	}
	total := conns.Load()
	t.Logf("%d page analyses opened %d connections to the site (%d for the first)", n, total, first)
	if total >= n {
		t.Errorf("%d page analyses opened %d connections: they do not share one connection pool", n, total)
	}
}

// TestSiteAnalysesShareFetcher: site analyses go through the server's one
// fetcher too, so the site sees connections reused across analyses, and
// every request of a crawl, robots.txt included, carries the crawl's user
// agent rather than the fetcher's default (the page analyses'). The
// connection count is logged, not checked: the site closes some
// connections itself.
func TestSiteAnalysesShareFetcher(t *testing.T) {
	const crawlUA, pageUA = "seokit-crawl-test/1", "seokit-page-test/1"
	var mu sync.Mutex
	agents := map[string]int{}
	conns := map[string]bool{} // peer addresses of connections with requests
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		agents[r.UserAgent()]++
		conns[r.RemoteAddr] = true
		mu.Unlock()
		switch r.URL.Path {
		case "/robots.txt":
			fmt.Fprint(w, "User-agent: *\nAllow: /\n")
		case "/", "/about", "/contact":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprintf(w, `<!doctype html><html lang="en"><head><title>Oak tables: page %s</title></head>
<body><h1>Oak tables</h1><a href="/about">About us</a> <a href="/contact">Contact</a></body></html>`, r.URL.Path)
		default:
			http.NotFound(w, r)
		}
	}))
	defer site.Close()
	a := newTestAPI(t, &Options{
		AllowPrivate:    true,
		Limits:          map[store.Plan]int{store.Free: 10_000},
		AnalyzerOptions: &analyzer.Options{UserAgent: pageUA},
		CrawlerOptions:  &crawler.Options{UserAgent: crawlUA},
	})
	const n = 6
	body := fmt.Sprintf(`{"domain":%q,"options":{"maxPages":10}}`, hostOf(t, site.URL))
	var first int
	for i := range n {
		resp := a.call("POST", "/v1/analyze/site", a.key, body)
		wantStatus(t, resp, http.StatusAccepted)
		var created Job
		readJSON(t, resp, &created)
		j := waitJob(t, a, a.key, created.ID, func(j Job) bool { return j.Status == "succeeded" || j.Status == "failed" })
		if j.Status != "succeeded" || j.Progress == nil || j.Progress.PagesDone != 3 {
			t.Fatalf("job %d: %+v", i, j)
		}
		if i == 0 {
			mu.Lock()
			first = len(conns)
			mu.Unlock()
		}
	}
	mu.Lock()
	defer mu.Unlock()
	total := len(conns)
	t.Logf("%d site analyses made requests on %d connections to the site (%d for the first)", n, total, first)
	if co, _ := a.srv.crawlerOptions("", SiteRequest{}); co.Fetcher != a.srv.fetcher {
		t.Error("site analyses do not use the server's fetcher")
	}
	if len(agents) != 1 || agents[crawlUA] == 0 {
		t.Errorf("user agents seen by the site: %v, want only %q", agents, crawlUA)
	}
}
