package crawlertest

import (
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
)

// SPAOptions shape a generated client-rendered site.
type SPAOptions struct {
	// Pages is the number of pages: the home page / and /p/1 to
	// /p/{Pages-1}; zero means 20.
	Pages int
	// Fanout is the number of child pages each page links to (page i links
	// to Fanout*i+1 ... Fanout*i+Fanout), besides the home page; zero
	// means 4.
	Fanout int
	// Words is the length of each page's text; zero means 120.
	Words int
	// Sitemap lists every page in /sitemap.xml (named in robots.txt), so
	// that a raw crawl reaches them too; without it the pages are linked
	// only from JavaScript.
	Sitemap bool
}

// SPASite is a client-rendered site on loopback: every page's raw HTML is
// an application shell (an empty <div id="root"> and no links), and a
// small inline script builds its title, canonical, H1, text, JSON-LD and
// links from the JSON blob in the page. Only a crawl that renders finds
// more than the home page. robots.txt disallows /private/, which each page
// requests as a script.
type SPASite struct {
	*httptest.Server
	opts     SPAOptions
	requests atomic.Int64
}

// NewSPA starts a client-rendered site.
func NewSPA(opts SPAOptions) *SPASite {
	if opts.Pages <= 0 {
		opts.Pages = 20
	}
	if opts.Fanout <= 0 {
		opts.Fanout = 4
	}
	if opts.Words <= 0 {
		opts.Words = 120
	}
	s := &SPASite{opts: opts}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// Requests counts the requests served.
func (s *SPASite) Requests() int { return int(s.requests.Load()) }

// Pages returns the number of pages.
func (s *SPASite) Pages() int { return s.opts.Pages }

// PageURL returns the URL of page i (the home page for 0).
func (s *SPASite) PageURL(i int) string { return s.URL + pagePath(i) }

// pagePath returns the path of page i.
func pagePath(i int) string {
	if i == 0 {
		return "/"
	}
	return "/p/" + strconv.Itoa(i)
}

// spaPage is the JSON blob a page is built from.
type spaPage struct {
	Title string   `json:"title"`
	Text  string   `json:"text"`
	Links []string `json:"links"`
}

// page returns the data of path, false for a path that is not a page.
func (s *SPASite) page(path string) (spaPage, bool) {
	i := 0
	if path != "/" {
		n, ok := strings.CutPrefix(path, "/p/")
		var err error
		i, err = strconv.Atoi(n)
		if !ok || err != nil || i < 1 || i >= s.opts.Pages || strconv.Itoa(i) != n {
			return spaPage{}, false
		}
	}
	p := spaPage{Title: fmt.Sprintf("Client-rendered page %d", i)}
	var text strings.Builder
	for w := range s.opts.Words {
		fmt.Fprintf(&text, "word%d ", (i*7+w)%97)
	}
	p.Text = strings.TrimSpace(text.String())
	p.Links = append(p.Links, "/")
	for c := s.opts.Fanout*i + 1; c <= s.opts.Fanout*i+s.opts.Fanout && c < s.opts.Pages; c++ {
		p.Links = append(p.Links, pagePath(c))
	}
	return p, true
}

func (s *SPASite) serve(w http.ResponseWriter, r *http.Request) {
	s.requests.Add(1)
	switch r.URL.Path {
	case "/robots.txt":
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "User-agent: *\nDisallow: /private/\n")
		if s.opts.Sitemap {
			fmt.Fprintf(w, "Sitemap: %s/sitemap.xml\n", s.URL)
		}
		return
	case "/sitemap.xml":
		if !s.opts.Sitemap {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/xml")
		fmt.Fprint(w, `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
		for i := range s.opts.Pages {
			fmt.Fprintf(w, "<url><loc>%s</loc></url>", s.PageURL(i))
		}
		fmt.Fprint(w, "</urlset>")
		return
	case "/favicon.ico":
		w.Header().Set("Content-Type", "image/x-icon")
		return
	}
	p, ok := s.page(r.URL.Path)
	if !ok {
		http.NotFound(w, r)
		return
	}
	// encoding/json escapes <, > and &, so the blob cannot end its script.
	blob, _ := json.Marshal(p)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprintf(w, spaShell, blob)
}

// RenderedHTML returns the DOM the page at path has once its script ran,
// as a browser would serialise it (for fake renderers in tests); false
// for a path that is not a page.
func (s *SPASite) RenderedHTML(path string) (string, bool) {
	p, ok := s.page(path)
	if !ok {
		return "", false
	}
	var b strings.Builder
	canonical := s.URL + path
	fmt.Fprintf(&b, `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>%s</title>`, html.EscapeString(p.Title))
	fmt.Fprintf(&b, `<link rel="canonical" href="%s">`, html.EscapeString(canonical))
	fmt.Fprintf(&b, `<script type="application/ld+json">{"@context":"https://schema.org","@type":"WebPage","name":%q}</script>`, p.Title)
	fmt.Fprintf(&b, `</head><body><div id="root"><h1>%s</h1><p>%s</p><nav>`, html.EscapeString(p.Title), html.EscapeString(p.Text))
	for _, l := range p.Links {
		fmt.Fprintf(&b, `<a href="%s">%s</a>`, l, l)
	}
	b.WriteString(`</nav></div></body></html>`)
	return b.String(), true
}

// spaShell is a page's raw HTML; %s is its JSON blob.
const spaShell = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title></title>
<script src="/private/track.js" async></script></head>
<body><div id="root"></div>
<script type="application/json" id="data">%s</script>
<script>
(function () {
  var d = JSON.parse(document.getElementById("data").textContent);
  document.title = d.title;
  var canon = document.createElement("link");
  canon.rel = "canonical";
  canon.href = location.href;
  document.head.appendChild(canon);
  var ld = document.createElement("script");
  ld.type = "application/ld+json";
  ld.textContent = JSON.stringify({"@context": "https://schema.org", "@type": "WebPage", "name": d.title});
  document.head.appendChild(ld);
  var root = document.getElementById("root");
  var h1 = document.createElement("h1");
  h1.textContent = d.title;
  root.appendChild(h1);
  var p = document.createElement("p");
  p.textContent = d.text;
  root.appendChild(p);
  var nav = document.createElement("nav");
  d.links.forEach(function (href) {
    var a = document.createElement("a");
    a.href = href;
    a.textContent = href;
    nav.appendChild(a);
  });
  root.appendChild(nav);
})();
</script>
</body></html>
`
