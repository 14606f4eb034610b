package crawler_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/seo"
)

// factIDs are the crawl-level site findings computed in facts.go, with their
// catalogue severities.
var factIDs = map[string]seo.Severity{
	"site.robots_txt_missing":             seo.Notice,
	"site.robots_txt_server_error":        seo.Error,
	"site.robots_txt_too_large":           seo.Warning,
	"site.robots_txt_invalid_line":        seo.Notice,
	"site.robots_txt_sitemap_dead":        seo.Warning,
	"site.robots_txt_blocks_resources":    seo.Warning,
	"site.ai_crawlers_blocked":            seo.Notice,
	"site.sitemap_missing":                seo.Notice,
	"site.sitemap_invalid_xml":            seo.Error,
	"site.sitemap_too_large":              seo.Error,
	"site.sitemap_unreachable":            seo.Warning,
	"site.sitemap_lastmod_invalid":        seo.Notice,
	"site.sitemap_lastmod_future":         seo.Notice,
	"site.sitemap_foreign_url":            seo.Warning,
	"site.host_variants_not_consolidated": seo.Warning,
	"site.custom_404_missing":             seo.Warning,
	"site.favicon_missing":                seo.Notice,
	"site.crawl_trap":                     seo.Warning,
	"site.crawl_limit_reached":            seo.Notice,
}

// routes maps a path to its handler. A key ending in "*" matches every path
// with that prefix; a nil handler removes a route (the path answers 404).
type routes map[string]http.HandlerFunc

// reqOrigin returns the scheme and host a request was made to.
func reqOrigin(r *http.Request) string { return "http://" + r.Host }

func factsPage(title, head, body string) string {
	return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>` + title + `</title>` +
		`<meta name="description" content="A small page of the site-facts test site, about ` + title + `.">` +
		`<meta name="viewport" content="width=device-width, initial-scale=1">` + head +
		`</head><body><main><h1>` + title + `</h1><p>Some text about ` + title +
		` that is long enough to read as a page, with a few words more.</p>` + body + `</main></body></html>`
}

func serveHTML(s string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, s)
	}
}

func serveType(ct, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", ct)
		fmt.Fprint(w, body)
	}
}

// serveRobots serves a robots.txt; "{base}" is replaced by the site's origin.
func serveRobots(tmpl string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, strings.ReplaceAll(tmpl, "{base}", reqOrigin(r)))
	}
}

// serveURLSet serves a urlset listing paths (or absolute URLs) with lastmod.
func serveURLSet(lastmod string, locs ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/xml")
		var b strings.Builder
		b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` + "\n")
		for _, l := range locs {
			if strings.HasPrefix(l, "/") {
				l = reqOrigin(r) + l
			}
			b.WriteString("<url><loc>" + l + "</loc>")
			if lastmod != "" {
				b.WriteString("<lastmod>" + lastmod + "</lastmod>")
			}
			b.WriteString("</url>\n")
		}
		b.WriteString("</urlset>\n")
		fmt.Fprint(w, b.String())
	}
}

// serveIndex serves a sitemap index of paths on the site.
func serveIndex(paths ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/xml")
		var b strings.Builder
		b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` + "\n")
		for _, p := range paths {
			b.WriteString("<sitemap><loc>" + reqOrigin(r) + p + "</loc></sitemap>\n")
		}
		b.WriteString("</sitemapindex>\n")
		fmt.Fprint(w, b.String())
	}
}

// dropConnection closes the connection without an answer.
func dropConnection(w http.ResponseWriter, r *http.Request) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(err)
	}
	conn.Close()
}

// truncatedGzip serves a gzip sitemap cut off in the middle.
func truncatedGzip(w http.ResponseWriter, r *http.Request) {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` + "\n"))
	for i := range 200 {
		fmt.Fprintf(zw, "<url><loc>%s/%s</loc><lastmod>2024-05-%02d</lastmod></url>\n", reqOrigin(r), []string{"", "a", "b"}[i%3], 1+i%28)
	}
	zw.Write([]byte("</urlset>\n"))
	zw.Close()
	w.Header().Set("Content-Type", "application/gzip")
	w.Write(b.Bytes()[:b.Len()/2])
}

const (
	cleanHead = `<link rel="icon" href="/icon.png"><link rel="stylesheet" href="/static/site.css">` +
		`<script src="/static/app.js" defer></script>`
	cleanRobots = "User-agent: *\nDisallow: /private/\n\nSitemap: {base}/sitemap.xml\n"
	pngBytes    = "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"
)

// cleanRoutes is a small site without any of the factIDs defects: a home
// page and two pages, robots.txt naming a valid sitemap, a favicon, 404s
// for unknown paths and resources robots.txt allows.
func cleanRoutes() routes {
	return routes{
		"/":                serveHTML(factsPage("Home", cleanHead, `<a href="/a">Page A</a> <a href="/b">Page B</a>`)),
		"/a":               serveHTML(factsPage("Page A", cleanHead, `<a href="/">Home</a> <a href="/b">Page B</a>`)),
		"/b":               serveHTML(factsPage("Page B", cleanHead, `<a href="/">Home</a> <a href="/a">Page A</a>`)),
		"/static/site.css": serveType("text/css", "body{margin:0}"),
		"/static/app.js":   serveType("text/javascript", "void 0;"),
		"/icon.png":        serveType("image/png", pngBytes),
		"/favicon.ico":     serveType("image/x-icon", pngBytes),
		"/robots.txt":      serveRobots(cleanRobots),
		"/sitemap.xml":     serveURLSet("2024-05-01", "/", "/a", "/b"),
	}
}

// with returns a copy of rs changed by mod.
func (rs routes) with(mod routes) routes {
	out := routes{}
	for k, v := range rs {
		out[k] = v
	}
	for k, v := range mod {
		if v == nil {
			delete(out, k)
		} else {
			out[k] = v
		}
	}
	return out
}

func (rs routes) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h := rs[r.URL.Path]; h != nil {
		h(w, r)
		return
	}
	best := ""
	for k := range rs {
		if p, ok := strings.CutSuffix(k, "*"); ok && strings.HasPrefix(r.URL.Path, p) && len(k) > len(best) {
			best = k
		}
	}
	if best != "" {
		rs[best](w, r)
		return
	}
	http.NotFound(w, r)
}

// crawlFacts crawls start (an httptest server's URL, or a URL on a name
// resolve maps to loopback) and returns the report.
func crawlFacts(t *testing.T, start string, opts crawler.Options) *crawler.SiteReport {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	opts.AllowPrivate = true
	opts.PerHostRate = -1
	opts.SkipExternalLinks = true
	if opts.MaxPages == 0 {
		opts.MaxPages = 50
	}
	if opts.RequestTimeout == 0 {
		opts.RequestTimeout = 5 * time.Second
	}
	rep, err := crawler.New(&opts).Run(ctx, start)
	if err != nil {
		t.Fatalf("Run(%s): %v", start, err)
	}
	return rep
}

// factFindings returns the factIDs findings of rep by ID.
func factFindings(rep *crawler.SiteReport) map[string]seo.Finding {
	m := map[string]seo.Finding{}
	for _, f := range rep.SiteFindings {
		if _, ok := factIDs[f.ID]; ok {
			m[f.ID] = f
		}
	}
	return m
}

// evidenceText joins every string of f that names what it is about.
func evidenceText(f seo.Finding) string {
	parts := append([]string{f.URL, f.Evidence.Element, f.Evidence.Value, f.Evidence.Detail}, f.Evidence.URLs...)
	return strings.Join(parts, "\n")
}

func foundIDs(m map[string]seo.Finding) []string {
	var ids []string
	for id := range m {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

func TestFactsSiteFindings(t *testing.T) {
	future := time.Now().AddDate(0, 0, 5).Format("2006-01-02")
	bigRobots := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		var b strings.Builder
		b.WriteString("User-agent: *\n")
		for i := 0; b.Len() < 600<<10; i++ {
			fmt.Fprintf(&b, "Disallow: /archive/%07d/\n", i)
		}
		b.WriteString("Sitemap: " + reqOrigin(r) + "/sitemap.xml\n")
		fmt.Fprint(w, b.String())
	}
	// A plain-text sitemap keeps the 50,001 entries quick to read under -race.
	hugeSitemap := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, strings.Repeat(reqOrigin(r)+"/\n", 50001))
	}
	loopPage := serveHTML(factsPage("Loop", cleanHead, `<a href="more/">More</a>`))

	tests := []struct {
		name string
		id   string
		mod  routes
		opts crawler.Options
		// evidence must appear in the finding's URL or evidence; "{base}"
		// is the site's origin.
		evidence []string
		// also are other factIDs the defect brings with it.
		also []string
	}{
		{
			name: "robots.txt answers 404", id: "site.robots_txt_missing",
			mod:      routes{"/robots.txt": nil},
			evidence: []string{"{base}/robots.txt", "status 404"},
		},
		{
			name: "robots.txt answers 410", id: "site.robots_txt_missing",
			mod:      routes{"/robots.txt": func(w http.ResponseWriter, r *http.Request) { http.Error(w, "gone", http.StatusGone) }},
			evidence: []string{"{base}/robots.txt", "status 410"},
		},
		{
			name: "robots.txt answers 500", id: "site.robots_txt_server_error",
			mod:      routes{"/robots.txt": func(w http.ResponseWriter, r *http.Request) { http.Error(w, "down", http.StatusInternalServerError) }},
			evidence: []string{"{base}/robots.txt", "500"},
		},
		{
			name: "robots.txt answers 503", id: "site.robots_txt_server_error",
			mod:      routes{"/robots.txt": func(w http.ResponseWriter, r *http.Request) { http.Error(w, "busy", http.StatusServiceUnavailable) }},
			evidence: []string{"{base}/robots.txt", "503"},
		},
		{
			name: "robots.txt over 500 KiB", id: "site.robots_txt_too_large",
			mod:      routes{"/robots.txt": bigRobots},
			evidence: []string{"{base}/robots.txt"},
		},
		{
			name: "robots.txt with invalid lines", id: "site.robots_txt_invalid_line",
			mod:      routes{"/robots.txt": serveRobots("Disallow: /early/\nUser-agent: *\nDisallow: private\nCrawl-speed: fast\n\nSitemap: {base}/sitemap.xml\n")},
			evidence: []string{"{base}/robots.txt", "line 1", "line 3", "line 4", "Crawl-speed"},
		},
		{
			name: "robots.txt names a sitemap that answers 404", id: "site.robots_txt_sitemap_dead",
			mod:      routes{"/robots.txt": serveRobots("User-agent: *\nDisallow: /private/\n\nSitemap: {base}/sitemap.xml\nSitemap: {base}/sitemap-gone.xml\n")},
			evidence: []string{"{base}/robots.txt", "{base}/sitemap-gone.xml"},
		},
		{
			name: "robots.txt names a relative sitemap", id: "site.robots_txt_sitemap_dead",
			mod:      routes{"/robots.txt": serveRobots("User-agent: *\nDisallow: /private/\n\nSitemap: /sitemap.xml\n")},
			evidence: []string{"{base}/robots.txt", "/sitemap.xml"},
		},
		{
			name: "robots.txt blocks a script and a stylesheet", id: "site.robots_txt_blocks_resources",
			mod:      routes{"/robots.txt": serveRobots("User-agent: *\nDisallow: /static/\n\nSitemap: {base}/sitemap.xml\n")},
			evidence: []string{"{base}/static/app.js", "{base}/static/site.css"},
		},
		{
			name: "robots.txt shuts out AI crawlers", id: "site.ai_crawlers_blocked",
			mod:      routes{"/robots.txt": serveRobots("User-agent: GPTBot\nUser-agent: PerplexityBot\nDisallow: /\n\n" + cleanRobots)},
			evidence: []string{"{base}/robots.txt", "GPTBot", "PerplexityBot"},
		},
		{
			name: "no sitemap anywhere", id: "site.sitemap_missing",
			mod:      routes{"/robots.txt": serveRobots("User-agent: *\nDisallow: /private/\n"), "/sitemap.xml": nil},
			evidence: []string{"{base}/sitemap.xml"},
		},
		{
			name: "sitemap is malformed XML", id: "site.sitemap_invalid_xml",
			mod: routes{"/sitemap.xml": serveType("application/xml",
				`<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>x</url></urlset>`)},
			evidence: []string{"{base}/sitemap.xml"},
		},
		{
			name: "sitemap has a relative loc", id: "site.sitemap_invalid_xml",
			mod:      routes{"/sitemap.xml": serveURLSet("2024-05-01", "/", "a-relative-page")},
			evidence: []string{"{base}/sitemap.xml", "a-relative-page"},
		},
		{
			name: "sitemap has the wrong namespace", id: "site.sitemap_invalid_xml",
			mod: routes{"/sitemap.xml": func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/xml")
				fmt.Fprintf(w, `<?xml version="1.0"?><urlset xmlns="http://www.google.com/schemas/sitemap/0.84"><url><loc>%s/</loc></url></urlset>`, reqOrigin(r))
			}},
			evidence: []string{"{base}/sitemap.xml"},
		},
		{
			name: "text sitemap lists 50,001 URLs", id: "site.sitemap_too_large",
			mod:      routes{"/sitemap.xml": hugeSitemap},
			evidence: []string{"{base}/sitemap.xml", "more than 50000 URLs"},
		},
		{
			name: "sitemap index lists a sitemap that answers 404", id: "site.sitemap_unreachable",
			mod: routes{
				"/sitemap.xml":       serveIndex("/sitemap-pages.xml", "/sitemap-gone.xml"),
				"/sitemap-pages.xml": serveURLSet("2024-05-01", "/", "/a", "/b"),
			},
			evidence: []string{"{base}/sitemap-gone.xml", "{base}/sitemap.xml", "status 404"},
		},
		{
			name: "sitemap index lists a sitemap whose connection drops", id: "site.sitemap_unreachable",
			mod: routes{
				"/sitemap.xml":       serveIndex("/sitemap-pages.xml", "/sitemap-reset.xml"),
				"/sitemap-pages.xml": serveURLSet("2024-05-01", "/", "/a", "/b"),
				"/sitemap-reset.xml": dropConnection,
			},
			evidence: []string{"{base}/sitemap-reset.xml", "{base}/sitemap.xml"},
		},
		{
			name: "sitemap index lists a truncated gzip sitemap", id: "site.sitemap_unreachable",
			mod: routes{
				"/sitemap.xml":          serveIndex("/sitemap-pages.xml.gz"),
				"/sitemap-pages.xml.gz": truncatedGzip,
			},
			evidence: []string{"{base}/sitemap-pages.xml.gz", "{base}/sitemap.xml"},
		},
		{
			name: "robots.txt names a sitemap that is not gzip", id: "site.robots_txt_sitemap_dead",
			mod: routes{
				"/robots.txt":     serveRobots("User-agent: *\nDisallow: /private/\n\nSitemap: {base}/sitemap.xml.gz\n"),
				"/sitemap.xml.gz": serveType("application/gzip", "\x1f\x8bnot gzip at all"),
			},
			evidence: []string{"{base}/robots.txt", "{base}/sitemap.xml.gz"},
		},
		{
			name: "robots.txt connection drops", id: "site.robots_txt_server_error",
			mod:      routes{"/robots.txt": dropConnection},
			evidence: []string{"{base}/robots.txt"},
		},
		{
			name: "sitemap lastmod is not a W3C Datetime", id: "site.sitemap_lastmod_invalid",
			mod:      routes{"/sitemap.xml": serveURLSet("May 1st, 2024", "/", "/a")},
			evidence: []string{"{base}/sitemap.xml", "{base}/a"},
		},
		{
			name: "sitemap lastmod days in the future", id: "site.sitemap_lastmod_future",
			mod:      routes{"/sitemap.xml": serveURLSet(future, "/", "/a")},
			evidence: []string{"{base}/sitemap.xml", "{base}/a"},
		},
		{
			name: "sitemap lists a URL on another host", id: "site.sitemap_foreign_url",
			mod:      routes{"/sitemap.xml": serveURLSet("2024-05-01", "/", "/a", "http://other.example/page")},
			evidence: []string{"{base}/sitemap.xml", "http://other.example/page"},
		},
		{
			name: "indexed sitemap in a subdirectory lists URLs above it", id: "site.sitemap_foreign_url",
			mod: routes{
				"/sitemap.xml":    serveIndex("/maps/pages.xml"),
				"/maps/pages.xml": serveURLSet("2024-05-01", "/maps/", "/a"),
				"/maps/":          serveHTML(factsPage("Maps", cleanHead, `<a href="/">Home</a>`)),
			},
			evidence: []string{"{base}/maps/pages.xml", "{base}/a"},
		},
		{
			name: "nonexistent paths answer 200", id: "site.custom_404_missing",
			mod:      routes{"/*": serveHTML(factsPage("Anything", cleanHead, ""))},
			evidence: []string{"{base}/seokit-404-check-", "status 200"},
		},
		{
			name: "no icon link and /favicon.ico answers 404", id: "site.favicon_missing",
			mod: routes{
				"/":            serveHTML(factsPage("Home", "", `<a href="/a">Page A</a> <a href="/b">Page B</a>`)),
				"/favicon.ico": nil,
			},
			evidence: []string{"{base}/favicon.ico"},
		},
		{
			name: "icon link and /favicon.ico serve HTML", id: "site.favicon_missing",
			mod: routes{
				"/icon.png":    serveHTML(factsPage("Not an icon", "", "")),
				"/favicon.ico": serveHTML(factsPage("Not an icon", "", "")),
			},
			evidence: []string{"{base}/favicon.ico", "{base}/icon.png"},
		},
		{
			name: "relative link repeats a path segment", id: "site.crawl_trap",
			mod: routes{
				"/":       serveHTML(factsPage("Home", cleanHead, `<a href="/loop/">Loop</a> <a href="/a">Page A</a> <a href="/b">Page B</a>`)),
				"/loop/*": loopPage,
			},
			evidence: []string{"/loop/more/more/more/more"},
		},
		{
			name: "maxPages stops the crawl", id: "site.crawl_limit_reached",
			opts:     crawler.Options{MaxPages: 2},
			evidence: []string{"{base}/", "maxPages"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(cleanRoutes().with(tc.mod))
			defer srv.Close()
			rep := crawlFacts(t, srv.URL, tc.opts)
			got := factFindings(rep)
			f, ok := got[tc.id]
			if !ok {
				t.Fatalf("%s not reported; site findings %v", tc.id, foundIDs(got))
			}
			if f.Severity != factIDs[tc.id] {
				t.Errorf("severity %v, want %v", f.Severity, factIDs[tc.id])
			}
			text := evidenceText(f)
			for _, e := range tc.evidence {
				e = strings.ReplaceAll(e, "{base}", srv.URL)
				if !strings.Contains(text, e) {
					t.Errorf("evidence lacks %q:\n%s", e, text)
				}
			}
			for id := range got {
				if id != tc.id && !slices.Contains(tc.also, id) {
					t.Errorf("unexpected %s: %s %+v", id, got[id].Message, got[id].Evidence)
				}
			}
		})
	}
}

func TestFactsCleanSites(t *testing.T) {
	tests := []struct {
		name string
		mod  routes
	}{
		{name: "clean site"},
		{
			name: "sitemap index with a gzip-free child and lastmod with time",
			mod: routes{
				"/sitemap.xml":       serveIndex("/sitemap-pages.xml"),
				"/sitemap-pages.xml": serveURLSet("2024-05-01T10:20:30+02:00", "/", "/a", "/b"),
			},
		},
		{
			// robots.txt naming the sitemap vouches for every URL of its host,
			// whatever the sitemap's directory.
			name: "robots.txt names a sitemap in a subdirectory",
			mod: routes{
				"/robots.txt":     serveRobots("User-agent: *\nDisallow: /private/\n\nSitemap: {base}/maps/pages.xml\n"),
				"/sitemap.xml":    nil,
				"/maps/pages.xml": serveURLSet("2024-05-01", "/", "/a", "/b"),
			},
		},
		{
			name: "robots.txt allows the resources it could block",
			mod:  routes{"/robots.txt": serveRobots("User-agent: *\nDisallow: /static/\nAllow: /static/*.js$\nAllow: /static/*.css$\n\nSitemap: {base}/sitemap.xml\n")},
		},
		{
			name: "robots.txt blocks AI crawlers from part of the site only",
			mod:  routes{"/robots.txt": serveRobots("User-agent: GPTBot\nDisallow: /private/\n\n" + cleanRobots)},
		},
		{
			name: "missing pages redirect to the home page",
			mod: routes{"/*": func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, "/", http.StatusFound)
			}},
		},
		{
			name: "favicon only by rel=icon",
			mod:  routes{"/favicon.ico": nil},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(cleanRoutes().with(tc.mod))
			defer srv.Close()
			rep := crawlFacts(t, srv.URL, crawler.Options{})
			if rep.Crawl.Fetched != 3 {
				t.Errorf("fetched %d pages, want 3", rep.Crawl.Fetched)
			}
			for id, f := range factFindings(rep) {
				t.Errorf("unexpected %s: %s %+v", id, f.Message, f.Evidence)
			}
		})
	}
}

// loopbackResolver resolves every name to 127.0.0.1, so that a test server
// can answer for www and non-www host names.
type loopbackResolver struct{}

func (loopbackResolver) LookupIPAddr(ctx context.Context, host string) ([]net.IPAddr, error) {
	return []net.IPAddr{{IP: net.IPv4(127, 0, 0, 1)}}, nil
}

// TestFactsHostVariants crawls a site under a host name with an explicit
// port. The prober then checks www and non-www on the start scheme only: the
// other scheme cannot share the port (see TestFactsVariantProblems).
func TestFactsHostVariants(t *testing.T) {
	const www, bare = "www.example.test", "example.test"
	tests := []struct {
		name  string
		start string // host of the start URL
		// other answers the requests to the host that does not serve pages;
		// nil serves the site there too.
		other    func(w http.ResponseWriter, r *http.Request, port string)
		want     bool
		evidence []string
	}{
		{
			name: "bare host 301s to www", start: www, want: false,
			other: func(w http.ResponseWriter, r *http.Request, port string) {
				http.Redirect(w, r, "http://"+www+":"+port+r.URL.RequestURI(), http.StatusMovedPermanently)
			},
		},
		{
			name: "www 308s to the bare start host", start: bare, want: false,
			other: func(w http.ResponseWriter, r *http.Request, port string) {
				http.Redirect(w, r, "http://"+bare+":"+port+r.URL.RequestURI(), http.StatusPermanentRedirect)
			},
		},
		{
			name: "both hosts answer 200", start: www, want: true,
			evidence: []string{"several variants answer 200", "http://" + bare + ":{port}/", "http://" + www + ":{port}/"},
		},
		{
			name: "bare host redirects with 302", start: www, want: true,
			other: func(w http.ResponseWriter, r *http.Request, port string) {
				http.Redirect(w, r, "http://"+www+":"+port+r.URL.RequestURI(), http.StatusFound)
			},
			evidence: []string{"http://" + bare + ":{port}/ answers 302"},
		},
		{
			name: "bare host redirects to itself", start: www, want: true,
			other: func(w http.ResponseWriter, r *http.Request, port string) {
				if r.URL.Path == "/" {
					http.Redirect(w, r, "/home", http.StatusMovedPermanently)
					return
				}
				http.NotFound(w, r)
			},
			evidence: []string{"redirects to /home"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			site := cleanRoutes()
			var port string
			srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if h, _, _ := net.SplitHostPort(r.Host); h != tc.start && tc.other != nil {
					tc.other(w, r, port)
					return
				}
				site.ServeHTTP(w, r)
			}))
			_, port, _ = net.SplitHostPort(srv.Listener.Addr().String())
			srv.Start()
			defer srv.Close()
			fetcher := seo.NewFetcher(&seo.FetcherOptions{AllowPrivate: true, Resolver: loopbackResolver{}})
			rep := crawlFacts(t, "http://"+tc.start+":"+port+"/", crawler.Options{Fetcher: fetcher})
			if rep.Crawl.Fetched != 3 {
				t.Errorf("fetched %d pages, want 3", rep.Crawl.Fetched)
			}
			got := factFindings(rep)
			f, ok := got["site.host_variants_not_consolidated"]
			if ok != tc.want {
				t.Fatalf("host_variants_not_consolidated reported = %v, want %v (%+v)", ok, tc.want, f.Evidence)
			}
			text := evidenceText(f)
			for _, e := range tc.evidence {
				e = strings.ReplaceAll(e, "{port}", port)
				if !strings.Contains(text, e) {
					t.Errorf("evidence lacks %q:\n%s", e, text)
				}
			}
			for id := range got {
				if id != "site.host_variants_not_consolidated" {
					t.Errorf("unexpected %s: %s %+v", id, got[id].Message, got[id].Evidence)
				}
			}
		})
	}
}
