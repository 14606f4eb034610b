package crawler_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seokit/seokit/analyzer"
	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/crawler/crawlertest"
	"github.com/seokit/seokit/seo"
)

// htmlPage answers a small HTML page with head extras.
func htmlPage(head string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!DOCTYPE html><html lang="en"><head><title>Page %s</title>%s</head><body><h1>%s</h1><p>Some text.</p><a href="/">Home</a></body></html>`,
			r.URL.Path, head, r.URL.Path)
	}
}

// reportSink keeps the analyzer's page score of every crawled URL.
type reportSink struct {
	mu     sync.Mutex
	scores map[string]int
	ids    map[string][]string
}

func (s *reportSink) Put(_ context.Context, rep *analyzer.Report) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if rep.Score != nil {
		s.scores[rep.URL] = rep.Score.Value
	}
	for _, f := range rep.Findings {
		s.ids[rep.URL] = append(s.ids[rep.URL], f.ID)
	}
	return nil
}

// linkFindings returns the full link findings of the report on the page at
// path, by ID, as lists of target URLs.
func linkFindings(rep *crawler.SiteReport, pageURL string) map[string][]string {
	out := map[string][]string{}
	for _, f := range rep.LinkFindings {
		if f.URL == pageURL {
			out[f.ID] = append(out[f.ID], f.Evidence.Value)
		}
	}
	for _, v := range out {
		slices.Sort(v)
	}
	return out
}

var linkScopeIDs = []string{
	"links.broken_internal", "links.redirect_internal", "links.broken_external", "links.redirect_external",
	"canonical.target_error", "canonical.target_redirect", "canonical.target_noindex",
	"hreflang.target_error", "hreflang.target_redirect", "hreflang.target_noindex", "hreflang.target_non_canonical",
}

func TestLinkScopeInternal(t *testing.T) {
	var site *crawlertest.Site
	canon := func(path string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			htmlPage(`<link rel="canonical" href="`+site.URL+path+`">`)(w, r)
		}
	}
	site = crawlertest.NewSite(crawlertest.SiteOptions{
		Articles: 20, Categories: 2, Broken: 2, Redirects: 2, NoSitemap: true,
		Extra: map[string]http.HandlerFunc{
			"/noidx":     htmlPage(`<meta name="robots" content="noindex">`),
			"/c-err":     canon("/gone"),
			"/c-redir":   canon("/old/0"),
			"/c-noindex": canon("/noidx"),
			"/c-blocked": canon("/private/x"),
			"/c-ok":      canon("/about"),
			"/h-nc":      canon("/about"),
			"/down":      func(w http.ResponseWriter, r *http.Request) { http.Error(w, "down", http.StatusInternalServerError) },
			"/h-src": htmlPage(`<link rel="alternate" hreflang="en" href="/h-src">` +
				`<link rel="alternate" hreflang="de" href="/gone">` +
				`<link rel="alternate" hreflang="fr" href="/old/1">` +
				`<link rel="alternate" hreflang="es" href="/noidx">` +
				`<link rel="alternate" hreflang="it" href="/h-nc">` +
				`<link rel="alternate" hreflang="nl" href="/private/y">` +
				`<link rel="alternate" hreflang="x-default" href="/about">`),
		},
		ExtraLinks: []string{"/gone", "/noidx", "/c-err", "/c-redir", "/c-noindex", "/c-blocked", "/c-ok",
			"/h-nc", "/h-src", "/private/x", "/private/y", "/down"},
	})
	defer site.Close()
	sink := &reportSink{scores: map[string]int{}, ids: map[string][]string{}}
	rep, err := crawler.New(testOptions(crawler.Options{Concurrency: 4, Sink: sink})).Run(context.Background(), site.URL)
	if err != nil {
		t.Fatal(err)
	}
	pages := pagesByPath(t, site.URL, rep)
	abs := func(paths ...string) []string {
		out := make([]string, len(paths))
		for i, p := range paths {
			out[i] = site.URL + p
		}
		slices.Sort(out)
		return out
	}

	tests := []struct {
		name, page string
		want       map[string][]string // ID -> target paths
	}{
		{"home links", "/", map[string][]string{
			"links.broken_internal":   {"/down", "/gone", "/missing/0", "/missing/1"},
			"links.redirect_internal": {"/old/0", "/old/1"},
		}},
		{"canonical 404", "/c-err", map[string][]string{"canonical.target_error": {"/gone"}}},
		{"canonical redirect", "/c-redir", map[string][]string{"canonical.target_redirect": {"/old/0"}}},
		{"canonical noindex", "/c-noindex", map[string][]string{"canonical.target_noindex": {"/noidx"}}},
		{"canonical robots-blocked", "/c-blocked", map[string][]string{"canonical.target_noindex": {"/private/x"}}},
		{"canonical fine", "/c-ok", map[string][]string{}},
		{"hreflang alternates", "/h-src", map[string][]string{
			"hreflang.target_error":         {"/gone"},
			"hreflang.target_redirect":      {"/old/1"},
			"hreflang.target_noindex":       {"/noidx", "/private/y"},
			"hreflang.target_non_canonical": {"/h-nc"},
		}},
		{"clean article", "/a/3", map[string][]string{}},
		{"clean category", "/c/1", map[string][]string{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, ok := pages[tc.page]
			if !ok {
				t.Fatalf("page %s not crawled", tc.page)
			}
			got := linkFindings(rep, p.URL)
			for _, id := range linkScopeIDs {
				want := tc.want[id]
				if want != nil {
					want = abs(want...)
				}
				if fmt.Sprint(got[id]) != fmt.Sprint(want) {
					t.Errorf("%s targets = %v, want %v", id, got[id], want)
				}
				if has := slices.Contains(p.Findings, id); has != (want != nil) {
					t.Errorf("PageSummary.Findings has %s = %v, want %v (findings %v)", id, has, want != nil, p.Findings)
				}
			}
			// Page score rule: each new ID subtracts its weight once.
			base, ok := sink.scores[p.URL]
			if !ok {
				t.Fatalf("no analyzer report for %s", p.URL)
			}
			wantScore := base
			for id := range tc.want {
				if !slices.Contains(sink.ids[p.URL], id) {
					wantScore -= severityOf(id).Weight()
				}
			}
			if p.Score == nil || *p.Score != max(0, wantScore) {
				t.Errorf("Score = %v, want %d (analyzer %d)", p.Score, max(0, wantScore), base)
			}
		})
	}

	// Evidence says what the target answered.
	for _, f := range rep.LinkFindings {
		if f.ID == "links.broken_internal" && f.Evidence.Value == site.URL+"/gone" && f.Evidence.Detail != "status 404" {
			t.Errorf("evidence detail %q, want status 404", f.Evidence.Detail)
		}
		if f.ID == "links.redirect_internal" && f.Evidence.Value == site.URL+"/old/0" &&
			(len(f.Evidence.URLs) != 2 || f.Evidence.URLs[1] != site.URL+"/a/0") {
			t.Errorf("redirect evidence URLs %v, want the target and its Location", f.Evidence.URLs)
		}
		if want := severityOf(f.ID); f.Severity != want {
			t.Errorf("%s severity %v, want %v", f.ID, f.Severity, want)
		}
	}
	// Groups count every finding, with the source pages as examples.
	g := group(rep, "links.broken_internal")
	if g == nil || g.Count != 4 || g.Pages != 1 || !slices.Contains(g.Examples, site.URL+"/") || g.Severity != seo.Error {
		t.Errorf("links.broken_internal group = %+v, want 4 findings on 1 page (home)", g)
	}
	if g := group(rep, "hreflang.target_noindex"); g == nil || g.Count != 2 || g.Pages != 1 {
		t.Errorf("hreflang.target_noindex group = %+v, want 2 findings on 1 page", g)
	}
	if rep.ExternalChecked != 0 {
		t.Errorf("ExternalChecked = %d on a site without external links", rep.ExternalChecked)
	}
}

func TestLinkScopeCleanSite(t *testing.T) {
	site := crawlertest.NewSite(crawlertest.SiteOptions{Articles: 30, Categories: 3})
	defer site.Close()
	rep, err := crawler.New(testOptions(crawler.Options{})).Run(context.Background(), site.URL)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.LinkFindings) != 0 {
		t.Errorf("LinkFindings on a clean site: %v", rep.LinkFindings)
	}
	for _, p := range rep.Pages {
		for _, id := range linkScopeIDs {
			if slices.Contains(p.Findings, id) {
				t.Errorf("%s has %s on a clean site", p.URL, id)
			}
		}
	}
}

func TestLinkScopeDisabled(t *testing.T) {
	site := crawlertest.NewSite(crawlertest.SiteOptions{Articles: 10, Categories: 2, Broken: 1, Redirects: 1})
	defer site.Close()
	opts := testOptions(crawler.Options{Analyzer: &analyzer.Options{
		Disable:  []string{"links.redirect_internal"},
		Severity: map[string]seo.Severity{"links.broken_internal": seo.Notice},
	}})
	rep, err := crawler.New(opts).Run(context.Background(), site.URL)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, f := range rep.LinkFindings {
		got[f.ID]++
		if f.ID == "links.broken_internal" && f.Severity != seo.Notice {
			t.Errorf("severity override ignored: %v", f.Severity)
		}
	}
	if got["links.broken_internal"] != 1 || got["links.redirect_internal"] != 0 {
		t.Errorf("link findings %v, want one broken_internal and no disabled redirect_internal", got)
	}
}

func severityOf(id string) seo.Severity {
	for _, in := range analyzer.Catalog() {
		if in.ID == id {
			return in.Severity
		}
	}
	return 0
}

func group(rep *crawler.SiteReport, id string) *crawler.FindingGroup {
	for i := range rep.Findings {
		if rep.Findings[i].ID == id {
			return &rep.Findings[i]
		}
	}
	return nil
}

// extHost is the "external" server: counts requests by method and path and
// the most requests in flight at once.
type extHost struct {
	*httptest.Server
	base string // on another host name than the crawled site

	mu        sync.Mutex
	hits      map[string]int
	inflight  atomic.Int64
	maxFlight atomic.Int64
}

func newExtHost(t *testing.T) *extHost {
	e := &extHost{hits: map[string]int{}}
	e.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := e.inflight.Add(1)
		defer e.inflight.Add(-1)
		for m := e.maxFlight.Load(); n > m && !e.maxFlight.CompareAndSwap(m, n); m = e.maxFlight.Load() {
		}
		e.mu.Lock()
		e.hits[r.Method+" "+r.URL.Path]++
		e.mu.Unlock()
		p := r.URL.Path
		switch {
		case p == "/ok":
		case p == "/gone":
			http.NotFound(w, r)
		case p == "/moved":
			http.Redirect(w, r, "/ok", http.StatusMovedPermanently)
		case p == "/nohead":
			if r.Method == http.MethodHead {
				w.WriteHeader(http.StatusMethodNotAllowed)
				return
			}
		case strings.HasPrefix(p, "/slow/"):
			time.Sleep(40 * time.Millisecond)
		default:
			http.NotFound(w, r)
		}
	}))
	u, _ := url.Parse(e.URL)
	e.base = "http://localhost:" + u.Port()
	t.Cleanup(e.Close)
	return e
}

func (e *extHost) Hits(key string) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.hits[key]
}

func (e *extHost) Total() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	n := 0
	for _, v := range e.hits {
		n += v
	}
	return n
}

// externalSite is a crawlertest site whose pages /e/0 ... /e/{n-1} each link
// to every path of the external host.
func externalSite(ext *extHost, n int, paths []string) *crawlertest.Site {
	var links strings.Builder
	for _, p := range paths {
		fmt.Fprintf(&links, `<a href="%s%s">x</a> <a href="%s%s#frag" rel="nofollow">again</a> `, ext.base, p, ext.base, p)
	}
	body := links.String()
	extra := map[string]http.HandlerFunc{}
	var extraLinks []string
	for i := range n {
		path := fmt.Sprintf("/e/%d", i)
		extraLinks = append(extraLinks, path)
		extra[path] = func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprintf(w, `<html><head><title>External links %s</title></head><body><h1>Links</h1>%s</body></html>`, path, body)
		}
	}
	return crawlertest.NewSite(crawlertest.SiteOptions{Articles: 5, Categories: 1, NoSitemap: true, Extra: extra, ExtraLinks: extraLinks})
}

func TestLinkScopeExternal(t *testing.T) {
	ext := newExtHost(t)
	var slow []string
	for i := range 8 {
		slow = append(slow, fmt.Sprintf("/slow/%d", i))
	}
	paths := append([]string{"/ok", "/gone", "/moved", "/nohead"}, slow...)
	site := externalSite(ext, 5, paths)
	defer site.Close()
	su, _ := url.Parse(site.URL)
	eu, _ := url.Parse(ext.base)
	if seo.HostInScope(eu.Hostname(), su.Hostname(), false) || seo.HostInScope(eu.Hostname(), su.Hostname(), true) {
		t.Fatalf("%s and %s must be different hosts", eu.Host, su.Host)
	}

	rep, err := crawler.New(testOptions(crawler.Options{Concurrency: 8, PerHostConcurrency: 2})).Run(context.Background(), site.URL)
	if err != nil {
		t.Fatal(err)
	}
	// Each distinct URL is requested once, though five pages link to it
	// twice each (with and without a fragment).
	for _, p := range paths {
		if h := ext.Hits("HEAD " + p); h != 1 {
			t.Errorf("HEAD %s requested %d times, want 1", p, h)
		}
		wantGet := 0
		if p == "/nohead" {
			wantGet = 1 // HEAD refused with 405: GET fallback
		}
		if h := ext.Hits("GET " + p); h != wantGet {
			t.Errorf("GET %s requested %d times, want %d", p, h, wantGet)
		}
	}
	if h := ext.Hits("GET /robots.txt"); h != 0 {
		t.Errorf("external robots.txt fetched %d times; checks do not crawl", h)
	}
	if m := ext.maxFlight.Load(); m > 2 || m < 1 {
		t.Errorf("external host saw %d requests at once, want 1..2 (PerHostConcurrency)", m)
	}
	if rep.ExternalChecked != len(paths) || rep.ExternalUnchecked != 0 {
		t.Errorf("ExternalChecked = %d, unchecked %d; want %d, 0", rep.ExternalChecked, rep.ExternalUnchecked, len(paths))
	}
	pages := pagesByPath(t, site.URL, rep)
	for i := range 5 {
		p := pages[fmt.Sprintf("/e/%d", i)]
		got := linkFindings(rep, p.URL)
		if fmt.Sprint(got["links.broken_external"]) != fmt.Sprint([]string{ext.base + "/gone"}) {
			t.Errorf("%s broken_external = %v, want /gone only", p.URL, got["links.broken_external"])
		}
		if fmt.Sprint(got["links.redirect_external"]) != fmt.Sprint([]string{ext.base + "/moved"}) {
			t.Errorf("%s redirect_external = %v, want /moved only", p.URL, got["links.redirect_external"])
		}
		if !slices.Contains(p.Findings, "links.broken_external") || !slices.Contains(p.Findings, "links.redirect_external") {
			t.Errorf("%s findings %v lack the external link IDs", p.URL, p.Findings)
		}
	}
	for _, f := range rep.LinkFindings {
		if f.ID == "links.redirect_external" && (len(f.Evidence.URLs) != 2 || f.Evidence.URLs[1] != ext.base+"/ok") {
			t.Errorf("redirect evidence %v, want the target and %s/ok", f.Evidence.URLs, ext.base)
		}
		if f.ID == "links.broken_external" && f.Evidence.Detail != "status 404" {
			t.Errorf("broken evidence detail %q, want status 404", f.Evidence.Detail)
		}
	}
	if g := group(rep, "links.broken_external"); g == nil || g.Count != 5 || g.Pages != 5 {
		t.Errorf("links.broken_external group = %+v, want 5 findings on 5 pages", g)
	}
	if home := pages["/"]; slices.Contains(home.Findings, "links.broken_external") {
		t.Errorf("home page has links.broken_external though it links to no external URL")
	}
}

func TestLinkScopeExternalLimits(t *testing.T) {
	paths := []string{"/gone", "/moved", "/ok", "/slow/1", "/slow/2"}
	tests := []struct {
		name      string
		opts      crawler.Options
		requests  int
		checked   int
		unchecked int
	}{
		{"skipped", crawler.Options{SkipExternalLinks: true}, 0, 0, 0},
		{"capped", crawler.Options{MaxExternalChecks: 2}, 2, 2, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ext := newExtHost(t)
			site := externalSite(ext, 2, paths)
			defer site.Close()
			rep, err := crawler.New(testOptions(tc.opts)).Run(context.Background(), site.URL)
			if err != nil {
				t.Fatal(err)
			}
			if n := ext.Total(); n != tc.requests {
				t.Errorf("external host got %d requests, want %d", n, tc.requests)
			}
			if rep.ExternalChecked != tc.checked || rep.ExternalUnchecked != tc.unchecked {
				t.Errorf("checked %d, unchecked %d; want %d, %d", rep.ExternalChecked, rep.ExternalUnchecked, tc.checked, tc.unchecked)
			}
			if tc.requests == 0 {
				for _, f := range rep.LinkFindings {
					if strings.HasSuffix(f.ID, "_external") {
						t.Errorf("external finding without checks: %+v", f)
					}
				}
			}
		})
	}
}

func TestLinkScopeExternalTimeout(t *testing.T) {
	hang := make(chan struct{})
	defer close(hang)
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-hang:
		case <-r.Context().Done():
		}
	}))
	defer slow.Close()
	u, _ := url.Parse(slow.URL)
	target := "http://localhost:" + u.Port() + "/hang"
	site := crawlertest.NewSite(crawlertest.SiteOptions{Articles: 3, Categories: 1, NoSitemap: true, ExtraLinks: []string{target}})
	defer site.Close()
	start := time.Now()
	rep, err := crawler.New(testOptions(crawler.Options{ExternalTimeout: 200 * time.Millisecond})).Run(context.Background(), site.URL)
	if err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("crawl took %v; the external timeout did not bound the check", el)
	}
	got := linkFindings(rep, site.URL+"/")
	if fmt.Sprint(got["links.broken_external"]) != fmt.Sprint([]string{target}) {
		t.Errorf("broken_external on home = %v, want the hanging URL", got["links.broken_external"])
	}
}
