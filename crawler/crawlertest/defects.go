package crawlertest

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Defect is one planted defect of a DefectSite: the finding a site
// analysis must report and the URL it must report it on.
type Defect struct {
	ID, URL string
}

// DefectSite is a small shop on a loopback server with planted defects
// that only a crawl following canonical, hreflang, image, script and
// stylesheet targets, the redirects, the sitemaps and the external links
// finds. Defects lists them. Every page uses the site's script and
// stylesheet and the partner's widget script, so that a test can tell
// each is requested once per crawl.
type DefectSite struct {
	*httptest.Server
	// URL is the site's root; DeadHost an http URL on a closed loopback
	// port, which the home page links to; Partner the root of a second
	// loopback server, an external host whose requests are counted too
	// (Hits("partner:/path")).
	URL, DeadHost, Partner string
	partner                *httptest.Server
	// Products is how many product pages /p/1 ... /p/N the site has.
	Products int
	requests atomic.Int64
	delay    atomic.Int64 // of each page, in ns
	mu       sync.Mutex
	hits     map[string]int
}

// NewDefectSite starts the site.
func NewDefectSite() *DefectSite {
	s := &DefectSite{Products: 23}
	s.DeadHost = closedPort()
	s.hits = map[string]int{}
	s.partner = httptest.NewServer(http.HandlerFunc(s.servePartner))
	s.Partner = s.partner.URL
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.Server.URL
	return s
}

// SetPageDelay makes each HTML page answer d late (or when its request
// ends), so that the pages of a crawl shared by several workers spread
// over them.
func (s *DefectSite) SetPageDelay(d time.Duration) { s.delay.Store(int64(d)) }

// Close shuts both servers down.
func (s *DefectSite) Close() {
	s.Server.Close()
	s.partner.Close()
}

// Resources lists the paths of the site's images, scripts and
// stylesheets that a crawl checks, each once.
func (s *DefectSite) Resources() []string {
	return []string{"/img/logo.png", "/img/missing.png", "/js/site.js", "/css/site.css", "/js/missing.js", "/css/missing.css"}
}

// closedPort returns an http URL on a loopback port nothing listens on.
func closedPort() string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr
}

// Requests counts the requests the site answered.
func (s *DefectSite) Requests() int { return int(s.requests.Load()) }

// Hits counts the requests for path.
func (s *DefectSite) Hits(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[path]
}

// Defects lists the planted defects with their finding IDs and URLs.
func (s *DefectSite) Defects() []Defect {
	u := s.URL
	return []Defect{
		{"canonical.target_redirect", u + "/p/canon"},
		{"hreflang.target_error", u + "/p/en"},
		{"hreflang.return_missing", u + "/p/en"},
		{"images.broken", u + "/p/img"},
		{"resources.broken_script", u + "/p/assets"},
		{"resources.broken_stylesheet", u + "/p/assets"},
		{"site.redirect_chain", u + "/chain/1"},
		{"site.duplicate_title", u + "/dup/a1"},
		{"site.duplicate_title", u + "/dup/a2"},
		{"site.duplicate_title", u + "/dup/b1"},
		{"site.duplicate_title", u + "/dup/b2"},
		{"site.robots_txt_sitemap_dead", u + "/sitemap.xml"},
		{"links.broken_external", u + "/"},
	}
}

// servePartner answers the partner host: a widget script every page
// uses, and nothing else (the stylesheet /p/assets uses answers 404).
func (s *DefectSite) servePartner(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.hits["partner:"+r.URL.Path]++
	s.mu.Unlock()
	if r.URL.Path == "/widget.js" {
		w.Header().Set("Content-Type", "text/javascript")
		fmt.Fprint(w, "void 0;")
		return
	}
	http.NotFound(w, r)
}

func (s *DefectSite) serve(w http.ResponseWriter, r *http.Request) {
	s.requests.Add(1)
	p := r.URL.Path
	s.mu.Lock()
	s.hits[p]++
	s.mu.Unlock()
	page := func(title, head, body string) {
		if d := time.Duration(s.delay.Load()); d > 0 {
			t := time.NewTimer(d)
			select {
			case <-t.C:
			case <-r.Context().Done():
				t.Stop()
			}
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>%s</title>`+
			`<meta name="description" content="%s, a page of the planted-defect shop.">`+
			`<link rel="stylesheet" href="/css/site.css"><script src="/js/site.js"></script>`+
			`<script src="%s/widget.js" async></script>%s</head>`+
			`<body><h1>%s</h1><p>%s is one of the pages of this shop; it has enough words to be a page of its own.</p>%s`+
			`<p><a href="/">Home</a></p></body></html>`, title, title, s.Partner, head, title, title, body)
	}
	switch {
	case p == "/robots.txt":
		fmt.Fprintf(w, "User-agent: *\nAllow: /\nSitemap: %s/sitemap.xml\n", s.URL)
	case p == "/":
		var b strings.Builder
		for i := 1; i <= s.Products; i++ {
			fmt.Fprintf(&b, `<li><a href="/p/%d">Product %d</a></li>`, i, i)
		}
		for _, l := range []string{"/p/canon", "/p/en", "/p/img", "/p/assets", "/chain/1", "/dup/a1", "/dup/a2", "/dup/b1", "/dup/b2"} {
			fmt.Fprintf(&b, `<li><a href="%s">%s</a></li>`, l, l)
		}
		fmt.Fprintf(&b, `<li><a href="%s/partner">Our partner</a></li>`, s.DeadHost)
		page("Planted shop", "", `<ul>`+b.String()+`</ul><img src="/img/logo.png" alt="Logo" width="1" height="1">`)
	case strings.HasPrefix(p, "/p/") && isDigits(p[3:]):
		page("Product "+p[3:], "", `<img src="/img/logo.png" alt="Logo" width="1" height="1">`)
	case p == "/p/canon":
		// Canonical to a URL that answers 301.
		page("Canonical to a redirect", `<link rel="canonical" href="/old-canon">`, "")
	case p == "/old-canon":
		http.Redirect(w, r, "/p/1", http.StatusMovedPermanently)
	case p == "/p/en":
		// An alternate answering 404 and one without a return link; both
		// reached only through hreflang.
		page("English product", `<link rel="alternate" hreflang="en" href="/p/en">`+
			`<link rel="alternate" hreflang="de" href="/de/missing">`+
			`<link rel="alternate" hreflang="fr" href="/fr/p">`, "")
	case p == "/fr/p":
		w.Header().Set("Content-Language", "fr")
		page("Produit en français", "", "")
	case p == "/p/img":
		page("Broken image", "", `<img src="/img/missing.png" alt="Missing" width="1" height="1">`)
	case p == "/p/assets":
		// A script and a stylesheet answering 404, and a stylesheet on
		// the partner host answering 404.
		page("Broken assets", `<link rel="stylesheet" href="/css/missing.css">`+
			`<link rel="stylesheet" href="`+s.Partner+`/gone.css">`, `<script src="/js/missing.js"></script>`)
	case p == "/js/site.js":
		w.Header().Set("Content-Type", "text/javascript")
		fmt.Fprint(w, "void 0;")
	case p == "/css/site.css":
		w.Header().Set("Content-Type", "text/css")
		fmt.Fprint(w, "body{margin:0}")
	case p == "/img/logo.png":
		w.Header().Set("Content-Type", "image/png")
		w.Write(onePixelPNG)
	case p == "/chain/1":
		http.Redirect(w, r, "/chain/2", http.StatusMovedPermanently)
	case p == "/chain/2":
		http.Redirect(w, r, "/chain/3", http.StatusMovedPermanently)
	case p == "/chain/3":
		http.Redirect(w, r, "/p/2", http.StatusMovedPermanently)
	case p == "/dup/a1", p == "/dup/a2":
		page("Alpha offer", "", "<p>"+p+"</p>")
	case p == "/dup/b1", p == "/dup/b2":
		page("Beta offer", "", "<p>"+p+"</p>")
	default:
		// /sitemap.xml, /de/missing, /img/missing.png, /js/missing.js ...
		http.NotFound(w, r)
	}
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
