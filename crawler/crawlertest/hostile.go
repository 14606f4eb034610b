package crawlertest

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
)

// HostileOptions shape a generated hostile site, made to grow a crawler's
// memory: pages that each link to thousands of URLs never seen before,
// and sitemaps that list a million URLs.
type HostileOptions struct {
	// NewLinksPerPage is how many URLs never linked before each page links
	// to, on top of one link to the next page of a chain (/p/1, /p/2 ...);
	// zero means none. Every URL of the site answers such a page.
	NewLinksPerPage int
	// SitemapURLs is how many URLs the sitemaps list, in a sitemap index
	// named by robots.txt; zero means no sitemap. The URLs are pages of
	// the site that no page links to.
	SitemapURLs int
	// PerSitemap is the number of URLs of each sitemap; zero means 50,000.
	PerSitemap int
	// Gzip serves the sitemaps gzipped.
	Gzip bool
}

// HostileSite is a generated hostile site served by an httptest server on
// loopback. Its pages and sitemaps are generated on the fly: it holds no
// per-URL state.
type HostileSite struct {
	*httptest.Server
	opts HostileOptions
}

// NewHostileSite starts a hostile site; Close it when done.
func NewHostileSite(opts HostileOptions) *HostileSite {
	if opts.PerSitemap <= 0 {
		opts.PerSitemap = 50_000
	}
	s := &HostileSite{opts: opts}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// Sitemaps returns the number of URL sitemaps the index lists.
func (s *HostileSite) Sitemaps() int {
	return (s.opts.SitemapURLs + s.opts.PerSitemap - 1) / s.opts.PerSitemap
}

func (s *HostileSite) serve(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	switch {
	case p == "/robots.txt":
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, "User-agent: *\nAllow: /\n")
		if s.opts.SitemapURLs > 0 {
			fmt.Fprintf(w, "\nSitemap: %s/sitemap-index.xml\n", s.URL)
		}
	case p == "/sitemap-index.xml" && s.opts.SitemapURLs > 0:
		w.Header().Set("Content-Type", "application/xml")
		bw := bufio.NewWriter(w)
		bw.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` + "\n")
		for k := range s.Sitemaps() {
			fmt.Fprintf(bw, "<sitemap><loc>%s/sitemap-%d.xml%s</loc></sitemap>\n", s.URL, k, s.gzExt())
		}
		bw.WriteString("</sitemapindex>\n")
		bw.Flush()
	case strings.HasPrefix(p, "/sitemap-") && s.opts.SitemapURLs > 0:
		num := strings.TrimSuffix(strings.TrimSuffix(strings.TrimPrefix(p, "/sitemap-"), ".gz"), ".xml")
		k, err := strconv.Atoi(num)
		if err != nil || k < 0 || k >= s.Sitemaps() {
			http.NotFound(w, r)
			return
		}
		s.sitemap(w, k)
	case p == "/favicon.ico", p == "/sitemap.xml":
		http.NotFound(w, r)
	default:
		s.page(w, p)
	}
}

func (s *HostileSite) gzExt() string {
	if s.opts.Gzip {
		return ".gz"
	}
	return ""
}

// sitemap writes sitemap k: URLs /s/{k}/{i}.
func (s *HostileSite) sitemap(w http.ResponseWriter, k int) {
	var out io.Writer = w
	if s.opts.Gzip {
		w.Header().Set("Content-Type", "application/gzip")
		zw := gzip.NewWriter(w)
		defer zw.Close()
		out = zw
	} else {
		w.Header().Set("Content-Type", "application/xml")
	}
	bw := bufio.NewWriter(out)
	defer bw.Flush()
	bw.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` + "\n")
	lo := k * s.opts.PerSitemap
	hi := min(lo+s.opts.PerSitemap, s.opts.SitemapURLs)
	for i := lo; i < hi; i++ {
		fmt.Fprintf(bw, "<url><loc>%s/s/%d/%d</loc></url>\n", s.URL, k, i)
	}
	bw.WriteString("</urlset>\n")
}

// page writes the page at path: a link to the next page of the /p/ chain
// and NewLinksPerPage links to URLs below path itself, which no other page
// links to.
func (s *HostileSite) page(w http.ResponseWriter, path string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	bw := bufio.NewWriter(w)
	defer bw.Flush()
	next := 1
	if n, ok := strings.CutPrefix(path, "/p/"); ok {
		if i, err := strconv.Atoi(n); err == nil {
			next = i + 1
		}
	}
	fmt.Fprintf(bw, `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Page %s</title>`+
		`<meta name="description" content="A generated page of a hostile test site."></head><body><main><h1>Page %s</h1>`+
		`<p>This page links to a great many URLs that no other page links to.</p><p><a href="/p/%d">Next page</a></p><ul>`,
		path, path, next)
	base := strings.TrimSuffix(path, "/")
	if base == "" || strings.HasPrefix(base, "/p/") {
		base = "/n" + base
	}
	for k := range s.opts.NewLinksPerPage {
		fmt.Fprintf(bw, `<li><a href="%s/%d">Link %d</a></li>`, base, k, k)
	}
	bw.WriteString("</ul></main></body></html>")
}
