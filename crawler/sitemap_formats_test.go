package crawler_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/seokit/seokit/crawler"
)

// TestSitemapFormats crawls a site whose pages are listed only by an RSS 2.0
// feed, an Atom 1.0 feed, a text sitemap and a namespace-prefixed sitemap
// index (with a prefixed urlset child), as Google accepts them: every page
// is found, the index's child is read as a sitemap and never crawled as a
// page, and no sitemap is reported invalid.
func TestSitemapFormats(t *testing.T) {
	page := func(title string) http.HandlerFunc { return serveHTML(factsPage(title, cleanHead, "")) }
	xmlAt := func(ct, tmpl string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", ct)
			fmt.Fprint(w, strings.ReplaceAll(tmpl, "{base}", reqOrigin(r)))
		}
	}
	mod := routes{
		"/":           page("Home"),
		"/robots.txt": serveRobots("User-agent: *\nDisallow: /private/\n\nSitemap: {base}/feed.rss\nSitemap: {base}/atom.xml\nSitemap: {base}/urls.txt\nSitemap: {base}/sitemap.xml\n"),
		"/feed.rss": xmlAt("application/rss+xml", `<?xml version="1.0"?><rss version="2.0"><channel><title>News</title><link>{base}/</link>`+
			`<item><title>R</title><link>{base}/from-rss</link><pubDate>Mon, 02 Jun 2025 08:30:00 +0000</pubDate></item></channel></rss>`),
		"/atom.xml": xmlAt("application/atom+xml", `<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><title>News</title>`+
			`<entry><title>A</title><link rel="self" href="{base}/atom.xml"/><link href="{base}/from-atom"/><updated>2025-06-02T08:30:00Z</updated></entry></feed>`),
		"/urls.txt": xmlAt("text/plain", "{base}/from-text\n"),
		"/sitemap.xml": xmlAt("application/xml", `<?xml version="1.0"?><sm:sitemapindex xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9">`+
			`<sm:sitemap><sm:loc>{base}/sm-pages.xml</sm:loc></sm:sitemap></sm:sitemapindex>`),
		"/sm-pages.xml": xmlAt("application/xml", `<?xml version="1.0"?><s:urlset xmlns:s="http://www.sitemaps.org/schemas/sitemap/0.9">`+
			`<s:url><s:loc>{base}/from-index</s:loc><s:lastmod>2025-06-01</s:lastmod></s:url></s:urlset>`),
		"/from-rss":   page("From RSS"),
		"/from-atom":  page("From Atom"),
		"/from-text":  page("From text"),
		"/from-index": page("From the index"),
	}
	srv := httptest.NewServer(cleanRoutes().with(mod))
	defer srv.Close()
	rep := crawlFacts(t, srv.URL, crawler.Options{})

	var pages []string
	for _, p := range rep.Pages {
		pages = append(pages, strings.TrimPrefix(p.URL, srv.URL))
	}
	for _, want := range []string{"/", "/from-rss", "/from-atom", "/from-text", "/from-index"} {
		if !slices.Contains(pages, want) {
			t.Errorf("%s not crawled; pages %q", want, pages)
		}
	}
	for _, p := range pages {
		if strings.HasSuffix(p, ".xml") || strings.HasSuffix(p, ".rss") || strings.HasSuffix(p, ".txt") {
			t.Errorf("sitemap %s crawled as a page", p)
		}
	}
	kinds := map[string]string{}
	for _, s := range rep.Sitemaps {
		kinds[strings.TrimPrefix(s.URL, srv.URL)] = fmt.Sprintf("%s %d %d", s.Kind, s.Status, s.URLs)
	}
	want := map[string]string{
		"/feed.rss":     "rss 200 1",
		"/atom.xml":     "atom 200 1",
		"/urls.txt":     "text 200 1",
		"/sitemap.xml":  "sitemapindex 200 1",
		"/sm-pages.xml": "urlset 200 1",
	}
	for u, k := range want {
		if kinds[u] != k {
			t.Errorf("sitemap %s: %q, want %q (all %v)", u, kinds[u], k, kinds)
		}
	}
	for id, f := range factFindings(rep) {
		t.Errorf("unexpected %s: %s %+v", id, f.Message, f.Evidence)
	}
}

// TestRobotsSitemapNoBreakSpace: a Sitemap line whose value starts with a
// U+00A0 is no URL for Google's parser (it trims ASCII whitespace only), so
// the sitemap it means is not read and the line is reported dead.
func TestRobotsSitemapNoBreakSpace(t *testing.T) {
	srv := httptest.NewServer(cleanRoutes().with(routes{
		"/robots.txt":  serveRobots("User-agent: *\nDisallow: /private/\n\nSitemap:\u00a0{base}/maps/pages.xml\n"),
		"/sitemap.xml": nil,
		"/maps/pages.xml": func(w http.ResponseWriter, r *http.Request) {
			t.Errorf("sitemap %s read from a Sitemap line starting with U+00A0", r.URL.Path)
			serveURLSet("", "/")(w, r)
		},
	}))
	defer srv.Close()
	rep := crawlFacts(t, srv.URL, crawler.Options{})
	f, ok := factFindings(rep)["site.robots_txt_sitemap_dead"]
	if !ok || !strings.Contains(evidenceText(f), "\u00a0"+srv.URL+"/maps/pages.xml") {
		t.Errorf("site.robots_txt_sitemap_dead = %+v, %v", f, ok)
	}
}
