package crawler_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seokit/seokit/analyzer"
	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/crawler/crawlertest"
	"github.com/seokit/seokit/crawler/crawlreport"
	"github.com/seokit/seokit/internal/golden"
)

// The golden test crawls a fixed set of small sites with known defects and
// compares the site report JSON, its CSV and one page report with the files
// in testdata/golden, after normalising what varies from run to run (times,
// durations, response times, the loopback address and random probe paths).
// Run with SEOKIT_UPDATE_GOLDEN=1 to rewrite the files after an intended
// change of behaviour.

// goldenPage is an HTML page of the golden sites: head extras and body.
func goldenPage(title, head, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>%s</title>`+
			`<meta name="viewport" content="width=device-width, initial-scale=1">%s</head><body><main><h1>%s</h1>`+
			`<p>Some text about %s, long enough to read as a page of the golden test site.</p>%s<a href="/">Home</a></main></body></html>`,
			title, head, title, title, body)
	}
}

// goldenText serves body with a content type.
func goldenText(ctype, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", ctype)
		fmt.Fprint(w, body)
	}
}

// goldenSite is one crawl of the golden test.
type goldenSite struct {
	name string
	// start starts the site and returns its URL; the site is closed at the
	// end of the test.
	start func(t *testing.T) string
	opts  crawler.Options
	// page is the path of the page whose analyzer report is compared too
	// ("" none).
	page string
	// csv compares the report's CSV too.
	csv bool
}

func startSite(t *testing.T, o crawlertest.SiteOptions) *crawlertest.Site {
	if o.PageBytes == 0 {
		o.PageBytes = 3000
	}
	s := crawlertest.NewSite(o)
	t.Cleanup(s.Close)
	return s
}

func goldenSites() []goldenSite {
	return []goldenSite{
		{
			// Broken links, redirects, a redirect loop, a robots-blocked
			// URL, sitemap-only orphans and a gzipped sitemap index.
			name: "generated", csv: true, page: "/a/3",
			start: func(t *testing.T) string {
				return startSite(t, crawlertest.SiteOptions{
					Articles: 12, Categories: 2, PerPage: 4, Redirects: 2, RedirectLoop: true, Broken: 2,
					Disallow: []string{"/a/5$"}, Orphans: 2, SitemapIndex: true,
				}).URL
			},
		},
		{
			// Duplicate titles, descriptions, headings and content, a
			// trailing-slash duplicate, noindex and nofollow pages, a
			// canonicalised variant and a non-HTML resource.
			name: "duplicates", page: "/dup-a",
			start: func(t *testing.T) string {
				same := `<meta name="description" content="The very same description on two pages of the golden site.">`
				return startSite(t, crawlertest.SiteOptions{
					Articles: 3, Categories: 1, NoSitemap: true,
					Extra: map[string]http.HandlerFunc{
						"/dup-a":    goldenPage("Red shoes", same, "<p>Exactly the same words on both pages.</p>"),
						"/dup-b":    goldenPage("red  Shoes", same, "<p>Exactly the same words on both pages.</p>"),
						"/shop":     goldenPage("Shop", "", ""),
						"/shop/":    goldenPage("Shop", "", ""),
						"/variant":  goldenPage("Red shoes", `<link rel="canonical" href="/dup-a">`, ""),
						"/hidden":   goldenPage("Hidden", `<meta name="robots" content="noindex">`, `<a href="/dup-a">Shoes</a>`),
						"/nofollow": goldenPage("No follow", `<meta name="robots" content="nofollow">`, `<a href="/never">Never</a>`),
						"/file.pdf": goldenText("application/pdf", "%PDF-1.4 golden"),
					},
					ExtraLinks: []string{"/dup-a", "/dup-b", "/shop", "/shop/", "/variant", "/hidden", "/nofollow", "/file.pdf"},
				}).URL
			},
		},
		{
			// Canonical and hreflang targets that fail, redirect, are
			// noindex, blocked or not canonical.
			name: "linkscope", page: "/h-src",
			start: func(t *testing.T) string {
				var site *crawlertest.Site
				canon := func(path string) http.HandlerFunc {
					return func(w http.ResponseWriter, r *http.Request) {
						goldenPage("Canonical "+r.URL.Path, `<link rel="canonical" href="`+site.URL+path+`">`, "")(w, r)
					}
				}
				site = startSite(t, crawlertest.SiteOptions{
					Articles: 6, Categories: 2, Broken: 1, Redirects: 2, NoSitemap: true,
					Extra: map[string]http.HandlerFunc{
						"/noidx":     goldenPage("No index", `<meta name="robots" content="noindex">`, ""),
						"/c-err":     canon("/gone"),
						"/c-redir":   canon("/old/0"),
						"/c-noindex": canon("/noidx"),
						"/c-blocked": canon("/private/x"),
						"/c-ok":      canon("/about"),
						"/h-nc":      canon("/about"),
						"/down":      func(w http.ResponseWriter, r *http.Request) { http.Error(w, "down", http.StatusInternalServerError) },
						"/h-src": goldenPage("Hreflang source", `<link rel="alternate" hreflang="en" href="/h-src">`+
							`<link rel="alternate" hreflang="de" href="/gone">`+
							`<link rel="alternate" hreflang="fr" href="/old/1">`+
							`<link rel="alternate" hreflang="es" href="/noidx">`+
							`<link rel="alternate" hreflang="it" href="/h-nc">`+
							`<link rel="alternate" hreflang="nl" href="/private/y">`+
							`<link rel="alternate" hreflang="x-default" href="/about">`, ""),
					},
					ExtraLinks: []string{"/gone", "/noidx", "/c-err", "/c-redir", "/c-noindex", "/c-blocked", "/c-ok",
						"/h-nc", "/h-src", "/private/x", "/private/y", "/down"},
				})
				return site.URL
			},
		},
		{
			// An endless calendar: a crawl trap and the URLs it left out.
			name: "calendar",
			start: func(t *testing.T) string {
				return startSite(t, crawlertest.SiteOptions{Articles: 3, Categories: 1, Calendar: true}).URL
			},
		},
		{
			// robots.txt with invalid lines, AI crawlers shut out, blocked
			// resources and a dead sitemap; the sitemap with an invalid and
			// a future lastmod and a foreign URL.
			name: "robots-sitemap",
			start: func(t *testing.T) string {
				var site *crawlertest.Site
				site = startSite(t, crawlertest.SiteOptions{
					Articles: 3, Categories: 1, NoSitemap: true,
					Extra: map[string]http.HandlerFunc{
						"/robots.txt": func(w http.ResponseWriter, r *http.Request) {
							goldenText("text/plain", "Disallow: /early/\nUser-agent: GPTBot\nDisallow: /\n\nUser-agent: *\n"+
								"Disallow: /static/\nDisallow: private\nCrawl-speed: fast\n\nSitemap: "+site.URL+"/sitemap.xml\n"+
								"Sitemap: "+site.URL+"/sitemap-gone.xml\n")(w, r)
						},
						"/sitemap.xml": func(w http.ResponseWriter, r *http.Request) {
							goldenText("application/xml", `<?xml version="1.0" encoding="UTF-8"?>`+"\n"+
								`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`+"\n"+
								"<url><loc>"+site.URL+"/</loc><lastmod>May 1st, 2024</lastmod></url>\n"+
								"<url><loc>"+site.URL+"/a/1</loc><lastmod>2099-01-01</lastmod></url>\n"+
								"<url><loc>http://other.example/page</loc></url>\n"+
								"</urlset>\n")(w, r)
						},
						"/res": goldenPage("Resources", `<link rel="stylesheet" href="/static/site.css"><script src="/static/app.js" defer></script>`, ""),
					},
					ExtraLinks: []string{"/res"},
				})
				return site.URL
			},
		},
		{
			// No robots.txt, no sitemap, no favicon; every path answers 200
			// (soft 404); server errors, a dropped connection and a page
			// that is not HTML.
			name: "soft404-errors", csv: true,
			start: func(t *testing.T) string {
				srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					switch r.URL.Path {
					case "/":
						goldenPage("Home", "", `<a href="/e500">500</a> <a href="/e503">503</a> <a href="/drop">Drop</a> `+
							`<a href="/img.png">Image</a> <a href="/deep/1">Deep</a>`)(w, r)
					case "/robots.txt", "/favicon.ico", "/sitemap.xml":
						http.NotFound(w, r)
					case "/e500":
						http.Error(w, "broken", http.StatusInternalServerError)
					case "/e503":
						http.Error(w, "busy", http.StatusServiceUnavailable)
					case "/drop":
						conn, _, err := http.NewResponseController(w).Hijack()
						if err == nil {
							conn.Close()
						}
					case "/img.png":
						goldenText("image/png", "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")(w, r)
					default:
						// /deep/1 ... /deep/7 are a chain of pages, each
						// one click deeper; any other path answers 200.
						if d, err := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/deep/")); err == nil && d >= 1 && d < 8 {
							goldenPage(fmt.Sprintf("Deep %d", d), "", fmt.Sprintf(`<a href="/deep/%d">Deeper</a>`, d+1))(w, r)
							return
						}
						goldenPage("Anything", "", "")(w, r)
					}
				}))
				t.Cleanup(srv.Close)
				return srv.URL
			},
			opts: crawler.Options{RequestTimeout: 5 * time.Second},
		},
		{
			// maxPages stops the crawl: the limit finding, URLs left queued
			// and no orphan check.
			name: "max-pages",
			start: func(t *testing.T) string {
				return startSite(t, crawlertest.SiteOptions{Articles: 20, Categories: 2, Orphans: 1}).URL
			},
			opts: crawler.Options{MaxPages: 6},
		},
		{
			// Muted checks: a page area, a link-scope ID and a site-scope ID.
			name: "muted",
			start: func(t *testing.T) string {
				return startSite(t, crawlertest.SiteOptions{Articles: 4, Categories: 1, Broken: 1, NoRobots: true}).URL
			},
			opts: crawler.Options{Analyzer: &analyzer.Options{Mute: []string{"social", "links.broken_internal", "site.robots_txt_missing"}}},
		},
	}
}

// pageCapture keeps the analyzer report of one URL.
type pageCapture struct {
	url string
	mu  sync.Mutex
	rep []byte
	err error
}

func (c *pageCapture) Put(_ context.Context, rep *analyzer.Report) error {
	if rep.URL != c.url {
		return nil
	}
	b, err := json.Marshal(rep)
	c.mu.Lock()
	c.rep, c.err = b, err
	c.mu.Unlock()
	return nil
}

func TestGoldenReports(t *testing.T) {
	for _, gs := range goldenSites() {
		t.Run(gs.name, func(t *testing.T) {
			t.Parallel()
			base := gs.start(t)
			o := gs.opts
			o.AllowPrivate = true
			o.PerHostRate = -1
			o.Concurrency = 1 // breadth-first in one order
			o.SkipExternalLinks = true
			if o.RequestTimeout == 0 {
				o.RequestTimeout = 10 * time.Second
			}
			var capture *pageCapture
			if gs.page != "" {
				capture = &pageCapture{url: base + gs.page}
				o.Sink = capture
			}
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			rep, err := crawler.New(&o).Run(ctx, base)
			if err != nil {
				t.Fatal(err)
			}
			b, err := json.Marshal(rep)
			if err != nil {
				t.Fatal(err)
			}
			n := goldenNormalizer{base: base}
			compareGolden(t, gs.name+".json", n.json(t, b))
			if gs.csv {
				var buf bytes.Buffer
				if err := crawlreport.WriteCSV(&buf, rep); err != nil {
					t.Fatal(err)
				}
				compareGolden(t, gs.name+".csv", n.csv(t, buf.String()))
			}
			if capture != nil {
				capture.mu.Lock()
				pb, perr := capture.rep, capture.err
				capture.mu.Unlock()
				if perr != nil || pb == nil {
					t.Fatalf("no page report of %s: %v", capture.url, perr)
				}
				compareGolden(t, gs.name+".page.json", n.json(t, pb))
			}
		})
	}
}

// volatileKeys are the JSON members whose values change from run to run
// (sha256: robots.txt bodies name the test server's port); a non-null
// value is replaced by a placeholder.
var volatileKeys = map[string]bool{
	"startedAt": true, "finishedAt": true, "analyzedAt": true, "fetchedAt": true, "sha256": true,
	"durationNs": true, "elapsedNs": true, "pagesPerSecond": true, "responseMs": true, "timings": true,
}

// random404 matches the random path of the custom 404 probe.
var random404 = regexp.MustCompile(`seokit-404-check-[0-9a-f]+`)

// goldenNormalizer rewrites what varies between runs.
type goldenNormalizer struct{ base string }

// text replaces the site's loopback origin and random probe paths.
func (n goldenNormalizer) text(s string) string {
	host := strings.TrimPrefix(n.base, "http://")
	s = strings.ReplaceAll(s, n.base, "http://golden.test")
	s = strings.ReplaceAll(s, host, "golden.test")
	return random404.ReplaceAllString(s, "seokit-404-check-RANDOM")
}

// json returns b normalised and indented with sorted keys.
func (n goldenNormalizer) json(t *testing.T, b []byte) string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(n.text(string(b))))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("report is not JSON: %v", err)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(golden.Mask(v, volatileKeys)); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// csv normalises the CSV text and replaces its response times.
func (n goldenNormalizer) csv(t *testing.T, s string) string {
	t.Helper()
	rd := csv.NewReader(strings.NewReader(n.text(s)))
	rd.FieldsPerRecord = -1
	rows, err := rd.ReadAll()
	if err != nil || len(rows) == 0 {
		t.Fatalf("report CSV: %v", err)
	}
	col := slices.Index(rows[0], "response_ms")
	for _, r := range rows[1:] {
		if col >= 0 && col < len(r) && r[col] != "" {
			r[col] = "<ms>"
		}
	}
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	if err := w.WriteAll(rows); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// compareGolden compares got with testdata/golden/name, or records it
// when SEOKIT_UPDATE_GOLDEN=1.
func compareGolden(t *testing.T, name, got string) {
	t.Helper()
	golden.Compare(t, filepath.Join("testdata", "golden", name), got, nil)
}
