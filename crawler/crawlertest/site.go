package crawlertest

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// SiteOptions shape a generated site. The zero value is a 100-article site
// of about 20 KB pages in 10 categories, with robots.txt and a sitemap.
type SiteOptions struct {
	// Articles is the number of article pages; zero means 100.
	Articles int
	// Categories is the number of categories; zero means 10.
	Categories int
	// PerPage is the number of articles listed per category page; zero means 20.
	PerPage int
	// PageBytes is the approximate size of an article page; zero means 20,000.
	PageBytes int
	// MaxPageBytes, when above PageBytes, spreads article sizes evenly
	// between PageBytes and MaxPageBytes (by a per-article generator).
	MaxPageBytes int
	// MaxRelated, when above 5, gives each article between 5 and
	// MaxRelated related-article links instead of 5.
	MaxRelated int

	// Disallow adds Disallow lines to robots.txt's "*" group.
	Disallow []string
	// NoRobots makes /robots.txt answer 404; NoSitemap leaves out the sitemap.
	NoRobots, NoSitemap bool
	// SitemapIndex serves /sitemap.xml as an index of a gzipped article
	// sitemap and a plain category sitemap.
	SitemapIndex bool
	// Orphans adds this many articles listed only in the sitemap.
	Orphans int
	// SitemapExtra lists these paths in the article sitemap too (serve
	// them with Extra, or they answer 404).
	SitemapExtra []string
	// Redirects links the home page to /old/{i} URLs that 301 to articles.
	Redirects int
	// RedirectLoop links the home page to /loop/a, which redirects to
	// /loop/b and back.
	RedirectLoop bool
	// Calendar links the home page to an endless /calendar?month=... chain.
	Calendar bool
	// Broken links the home page to this many URLs that answer 404.
	Broken int
	// Throttle answers the first request for each of these paths with 429
	// and Retry-After (whole seconds, at least 1).
	Throttle []string
	// RetryAfter is the Retry-After of throttled answers; zero means 1 s.
	RetryAfter time.Duration
	// NoRequestLog skips the per-URL hit counts and times (Hits, Times and
	// Throttle need them), so a large benchmark site measures the crawler's
	// memory, not the test server's.
	NoRequestLog bool
	// Latency delays every answer.
	Latency time.Duration
	// OnRequest, when set, is called for every request as it arrives, from
	// the server's goroutines (tests that need every request's time).
	OnRequest func(r *http.Request)
	// Extra adds handlers by path; ExtraLinks are linked from the home page.
	Extra      map[string]http.HandlerFunc
	ExtraLinks []string
}

// Site is a generated site served by an httptest server on loopback.
type Site struct {
	*httptest.Server
	opts SiteOptions

	mu        sync.Mutex
	hits      map[string]int
	times     map[string][]time.Time
	inflight  atomic.Int64
	maxFlight atomic.Int64
	requests  atomic.Int64

	paras []string
	// Pieces pages are built from: each paragraph in its tags, the menu,
	// the offsets of related articles.
	paraHTML []string
	navHTML  string
	steps    []int
}

// NewSite starts a generated site; Close it when done.
func NewSite(opts SiteOptions) *Site {
	if opts.Articles <= 0 {
		opts.Articles = 100
	}
	if opts.Categories <= 0 {
		opts.Categories = 10
	}
	if opts.PerPage <= 0 {
		opts.PerPage = 20
	}
	if opts.PageBytes <= 0 {
		opts.PageBytes = 20000
	}
	if opts.RetryAfter <= 0 {
		opts.RetryAfter = time.Second
	}
	s := &Site{opts: opts, hits: map[string]int{}, times: map[string][]time.Time{}}
	s.paras = makeParagraphs(256)
	s.paraHTML = make([]string, len(s.paras))
	for i, p := range s.paras {
		s.paraHTML[i] = "<p>" + p + "</p>\n"
	}
	s.navHTML = makeNav(opts.Categories)
	s.steps = relatedSteps(max(5, opts.MaxRelated))
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// Pages returns the number of distinct pages a full crawl reaches by
// links: home, about, category pages and articles (orphans excluded).
func (s *Site) Pages() int {
	n := 2 + s.opts.Articles
	for k := range s.opts.Categories {
		n += s.categoryPages(k)
	}
	return n
}

// Hits returns the number of requests for a path (with its query).
func (s *Site) Hits(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[path]
}

// Times returns when each request for path arrived.
func (s *Site) Times(path string) []time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Time(nil), s.times[path]...)
}

// MaxConcurrent returns the most requests that were in flight at once.
func (s *Site) MaxConcurrent() int { return int(s.maxFlight.Load()) }

// Requests returns the number of requests served.
func (s *Site) Requests() int { return int(s.requests.Load()) }

// ArticleURL returns the URL of article i.
func (s *Site) ArticleURL(i int) string { return s.URL + "/a/" + strconv.Itoa(i) }

func (s *Site) serve(w http.ResponseWriter, r *http.Request) {
	n := s.inflight.Add(1)
	defer s.inflight.Add(-1)
	for {
		m := s.maxFlight.Load()
		if n <= m || s.maxFlight.CompareAndSwap(m, n) {
			break
		}
	}
	s.requests.Add(1)
	if s.opts.OnRequest != nil {
		s.opts.OnRequest(r)
	}
	key := r.URL.RequestURI()
	first := false
	if !s.opts.NoRequestLog {
		s.mu.Lock()
		s.hits[key]++
		first = s.hits[key] == 1
		if len(s.times[key]) < 16 {
			s.times[key] = append(s.times[key], time.Now())
		}
		s.mu.Unlock()
	}
	if s.opts.Latency > 0 {
		time.Sleep(s.opts.Latency)
	}
	for _, p := range s.opts.Throttle {
		if p == key && first {
			w.Header().Set("Retry-After", strconv.Itoa(max(1, int(s.opts.RetryAfter/time.Second))))
			http.Error(w, "slow down", http.StatusTooManyRequests)
			return
		}
	}
	if h := s.opts.Extra[r.URL.Path]; h != nil {
		h(w, r)
		return
	}
	p := r.URL.Path
	switch {
	case p == "/robots.txt":
		s.robots(w)
	case p == "/sitemap.xml" && !s.opts.NoSitemap:
		s.sitemap(w)
	case p == "/sitemap-articles.xml.gz" && s.opts.SitemapIndex:
		s.articleSitemap(w, true)
	case p == "/sitemap-categories.xml" && s.opts.SitemapIndex:
		s.categorySitemap(w)
	case p == "/":
		s.home(w)
	case p == "/img/a.png":
		// The illustration of every article: a 1x1 PNG.
		w.Header().Set("Content-Type", "image/png")
		w.Write(onePixelPNG)
	case p == "/static/site.css":
		// The stylesheet of every page.
		w.Header().Set("Content-Type", "text/css")
		w.Write([]byte("body{margin:0 auto;max-width:40em}"))
	case p == "/about":
		s.page(w, "About us", "About this site", "<p>"+s.paras[0]+"</p>")
	case strings.HasPrefix(p, "/c/"):
		s.category(w, r)
	case strings.HasPrefix(p, "/a/"):
		s.article(w, r)
	case strings.HasPrefix(p, "/old/"):
		http.Redirect(w, r, "/a/"+strings.TrimPrefix(p, "/old/"), http.StatusMovedPermanently)
	case p == "/loop/a" && s.opts.RedirectLoop:
		http.Redirect(w, r, "/loop/b", http.StatusFound)
	case p == "/loop/b" && s.opts.RedirectLoop:
		http.Redirect(w, r, "/loop/a", http.StatusFound)
	case p == "/calendar" && s.opts.Calendar:
		s.calendar(w, r)
	default:
		http.NotFound(w, r)
	}
}

func (s *Site) robots(w http.ResponseWriter) {
	if s.opts.NoRobots {
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	var b strings.Builder
	b.WriteString("User-agent: *\nDisallow: /private/\n")
	for _, d := range s.opts.Disallow {
		b.WriteString("Disallow: " + d + "\n")
	}
	if !s.opts.NoSitemap {
		b.WriteString("\nSitemap: " + s.URL + "/sitemap.xml\n")
	}
	w.Header().Set("Content-Type", "text/plain")
	w.Write([]byte(b.String()))
}

func (s *Site) sitemap(w http.ResponseWriter) {
	if s.opts.SitemapIndex {
		w.Header().Set("Content-Type", "application/xml")
		fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?>
<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<sitemap><loc>%s/sitemap-articles.xml.gz</loc></sitemap>
<sitemap><loc>%s/sitemap-categories.xml</loc></sitemap>
</sitemapindex>`, s.URL, s.URL)
		return
	}
	s.articleSitemap(w, false)
}

func (s *Site) articleSitemap(w http.ResponseWriter, gz bool) {
	var buf bytes.Buffer
	buf.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` + "\n")
	buf.WriteString("<url><loc>" + s.URL + "/</loc></url>\n")
	for i := range s.opts.Articles + s.opts.Orphans {
		fmt.Fprintf(&buf, "<url><loc>%s/a/%d</loc><lastmod>2024-05-01</lastmod></url>\n", s.URL, i)
	}
	for _, p := range s.opts.SitemapExtra {
		fmt.Fprintf(&buf, "<url><loc>%s%s</loc></url>\n", s.URL, p)
	}
	if !s.opts.SitemapIndex {
		s.categoryEntries(&buf)
	}
	buf.WriteString("</urlset>\n")
	if gz {
		w.Header().Set("Content-Type", "application/gzip")
		zw := gzip.NewWriter(w)
		zw.Write(buf.Bytes())
		zw.Close()
		return
	}
	w.Header().Set("Content-Type", "application/xml")
	w.Write(buf.Bytes())
}

func (s *Site) categoryEntries(buf *bytes.Buffer) {
	for k := range s.opts.Categories {
		fmt.Fprintf(buf, "<url><loc>%s/c/%d</loc></url>\n", s.URL, k)
	}
}

func (s *Site) categorySitemap(w http.ResponseWriter) {
	var buf bytes.Buffer
	buf.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` + "\n")
	s.categoryEntries(&buf)
	buf.WriteString("</urlset>\n")
	w.Header().Set("Content-Type", "application/xml")
	w.Write(buf.Bytes())
}

// nav is the menu every page carries.
func (s *Site) nav(b *bytes.Buffer) {
	b.WriteString(s.navHTML)
}

// makeNav returns the menu of a site of n categories.
func makeNav(n int) string {
	var b strings.Builder
	b.WriteString(`<header><nav><ul><li><a href="/">Home</a></li>`)
	for k := range n {
		fmt.Fprintf(&b, `<li><a href="/c/%d">Category %d</a></li>`, k, k)
	}
	b.WriteString(`<li><a href="/about">About</a></li></ul></nav></header>`)
	return b.String()
}

// The head of every page, around its title and description.
const (
	headStart = `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>`
	headDesc  = `</title><meta name="description" content="`
	headEnd   = `"><meta name="viewport" content="width=device-width, initial-scale=1">` +
		`<link rel="stylesheet" href="/static/site.css"><link rel="icon" href="/favicon.ico"></head><body>`
)

func (s *Site) head(b *bytes.Buffer, title, desc string) {
	b.WriteString(headStart)
	b.WriteString(title)
	b.WriteString(headDesc)
	b.WriteString(desc)
	b.WriteString(headEnd)
	s.nav(b)
}

func (s *Site) page(w http.ResponseWriter, title, desc, body string) {
	var b bytes.Buffer
	s.head(&b, title, desc)
	b.WriteString("<main><h1>" + title + "</h1>" + body + "</main></body></html>")
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Write(b.Bytes())
}

func (s *Site) home(w http.ResponseWriter) {
	var b bytes.Buffer
	b.WriteString("<p>Welcome to the generated test site, with news and articles in many categories.</p><ul>")
	for i := 0; i < 20 && i < s.opts.Articles; i++ {
		fmt.Fprintf(&b, `<li><a href="/a/%d">Article %d</a></li>`, i, i)
	}
	for i := range s.opts.Redirects {
		fmt.Fprintf(&b, `<li><a href="/old/%d">Old article %d</a></li>`, i, i)
	}
	for i := range s.opts.Broken {
		fmt.Fprintf(&b, `<li><a href="/missing/%d">Missing %d</a></li>`, i, i)
	}
	if s.opts.RedirectLoop {
		b.WriteString(`<li><a href="/loop/a">Loop</a></li>`)
	}
	if s.opts.Calendar {
		b.WriteString(`<li><a href="/calendar?month=2024-01">Calendar</a></li>`)
	}
	for _, l := range s.opts.ExtraLinks {
		fmt.Fprintf(&b, `<li><a href="%s">Extra</a></li>`, l)
	}
	b.WriteString("</ul>")
	s.page(w, "Generated test site home page", "The home page of a generated site used to test and benchmark the crawler.", b.String())
}

func (s *Site) categoryPages(k int) int {
	n := 0
	for i := k; i < s.opts.Articles; i += s.opts.Categories {
		n++
	}
	return max(1, (n+s.opts.PerPage-1)/s.opts.PerPage)
}

// category serves /c/{k} and /c/{k}/p/{n}.
func (s *Site) category(w http.ResponseWriter, r *http.Request) {
	parts := strings.Split(strings.TrimPrefix(r.URL.Path, "/c/"), "/")
	k, err := strconv.Atoi(parts[0])
	if err != nil || k < 0 || k >= s.opts.Categories {
		http.NotFound(w, r)
		return
	}
	page := 1
	if len(parts) == 3 && parts[1] == "p" {
		if page, err = strconv.Atoi(parts[2]); err != nil || page < 2 {
			http.NotFound(w, r)
			return
		}
	} else if len(parts) != 1 {
		http.NotFound(w, r)
		return
	}
	pages := s.categoryPages(k)
	if page > pages {
		http.NotFound(w, r)
		return
	}
	pageURL := func(n int) string {
		if n == 1 {
			return "/c/" + strconv.Itoa(k)
		}
		return fmt.Sprintf("/c/%d/p/%d", k, n)
	}
	var b bytes.Buffer
	b.WriteString("<ul>")
	start := (page - 1) * s.opts.PerPage
	for j := start; j < start+s.opts.PerPage; j++ {
		i := k + j*s.opts.Categories
		if i >= s.opts.Articles {
			break
		}
		fmt.Fprintf(&b, `<li><a href="/a/%d">Article %d</a> %s</li>`, i, i, s.paras[i%len(s.paras)][:80])
	}
	b.WriteString(`</ul><nav class="pagination">`)
	// First, last and a window of pages around this one, plus every tenth
	// page: a realistic pager that keeps deep pages a few clicks away.
	for n := 1; n <= pages; n++ {
		if n == 1 || n == pages || (n >= page-3 && n <= page+3) || n%10 == 0 {
			fmt.Fprintf(&b, `<a href="%s">%d</a> `, pageURL(n), n)
		}
	}
	b.WriteString("</nav>")
	s.page(w, fmt.Sprintf("Category %d, page %d of the generated site", k, page),
		fmt.Sprintf("Articles of category %d, page %d: news, reviews and guides from the generated test site.", k, page), b.String())
}

// article serves /a/{i}: nav, breadcrumb, about PageBytes of text, related links.
// The page is appended in one pass from pieces made when the site starts
// (head, menu, paragraphs with their tags, related steps), into a pooled
// buffer: a crawl benchmark measures the crawler, not the generator.
func (s *Site) article(w http.ResponseWriter, r *http.Request) {
	num := strings.TrimPrefix(r.URL.Path, "/a/")
	i, err := strconv.Atoi(num)
	if err != nil || i < 0 || i >= s.opts.Articles+s.opts.Orphans || strconv.Itoa(i) != num {
		http.NotFound(w, r)
		return
	}
	k := i % s.opts.Categories
	// Pick paragraphs by a per-article generator, so pages differ.
	x := uint64(i)*2654435761 + 1
	size, related := s.opts.PageBytes, 5
	if s.opts.MaxPageBytes > size {
		size += int(mix(x) % uint64(s.opts.MaxPageBytes-size+1))
	}
	if s.opts.MaxRelated > related {
		related += int(mix(x+1) % uint64(s.opts.MaxRelated-related+1))
	}
	bp := pagePool.Get().(*[]byte)
	defer pagePool.Put(bp)
	// Room for the head and menu, the text and the related links, so the
	// page is not copied as it grows.
	if room := len(s.navHTML) + size + related*160 + 2048; cap(*bp) < room {
		*bp = make([]byte, 0, room)
	}
	b := append((*bp)[:0], headStart...)
	title := len(b)
	b = append(b, "Article "...)
	b = strconv.AppendInt(b, int64(i), 10)
	b = append(b, ": notes on topic "...)
	b = strconv.AppendInt(b, int64(i%97), 10)
	b = append(b, " of the generated site"...)
	titleEnd := len(b)
	b = append(b, headDesc...)
	b = append(b, "Article "...)
	b = strconv.AppendInt(b, int64(i), 10)
	b = append(b, " of category "...)
	b = strconv.AppendInt(b, int64(k), 10)
	b = append(b, ", a generated page about topic "...)
	b = strconv.AppendInt(b, int64(i%97), 10)
	b = append(b, " with enough text to be analysed."...)
	b = append(b, headEnd...)
	b = append(b, s.navHTML...)
	b = append(b, "<main><h1>"...)
	b = append(b, b[title:titleEnd]...)
	b = append(b, "</h1>"...)
	body := len(b) // sizes count the main content only
	b = append(b, `<p class="crumbs"><a href="/">Home</a> › <a href="/c/`...)
	b = strconv.AppendInt(b, int64(k), 10)
	b = append(b, `">Category `...)
	b = strconv.AppendInt(b, int64(k), 10)
	b = append(b, `</a></p>`...)
	for len(b)-body < size-1500 {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		b = append(b, s.paraHTML[x%uint64(len(s.paraHTML))]...)
	}
	b = append(b, `<aside><h2>Related articles</h2><ul>`...)
	if i < s.opts.Articles {
		for r, d := range s.steps[:related] {
			j := (i + d) % s.opts.Articles
			b = append(b, `<li><a href="/a/`...)
			b = strconv.AppendInt(b, int64(j), 10)
			if r >= 5 {
				b = append(b, `" title="Related `...)
				b = strconv.AppendInt(b, int64(r), 10)
				b = append(b, `">Article `...)
				b = strconv.AppendInt(b, int64(j), 10)
				b = append(b, ", "...)
				b = append(b, s.paras[j%len(s.paras)][:40]...)
			} else {
				b = append(b, `">Article `...)
				b = strconv.AppendInt(b, int64(j), 10)
			}
			b = append(b, `</a></li>`...)
		}
	}
	b = append(b, `</ul></aside><img src="/img/a.png" alt="An illustration" width="640" height="360">`...)
	b = append(b, "</main></body></html>"...)
	*bp = b
	w.Header()["Content-Type"] = htmlType
	w.Write(b)
}

// htmlType is the Content-Type of generated pages.
var htmlType = []string{"text/html; charset=utf-8"}

// pagePool holds the buffers articles are written into.
var pagePool = sync.Pool{New: func() any { return new([]byte) }}

// relatedSteps returns the offsets of an article's n related articles:
// the five fixed ones, then steps that reach across the site.
func relatedSteps(n int) []int {
	steps := []int{1, 7, 31, 127, 997}
	for k := 5; k < n; k++ {
		steps = append(steps, 1009+k*7919)
	}
	return steps[:n]
}

// mix is the splitmix64 finaliser: a per-article pseudo-random number.
func mix(x uint64) uint64 {
	x += 0x9E3779B97F4A7C15
	x = (x ^ x>>30) * 0xBF58476D1CE4E5B9
	x = (x ^ x>>27) * 0x94D049BB133111EB
	return x ^ x>>31
}

// calendar serves an endless month-by-month calendar.
func (s *Site) calendar(w http.ResponseWriter, r *http.Request) {
	m := r.URL.Query().Get("month")
	t, err := time.Parse("2006-01", m)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	body := fmt.Sprintf(`<p>Events of %s.</p><a href="/calendar?month=%s">Previous</a> <a href="/calendar?month=%s">Next</a>`,
		t.Format("January 2006"), t.AddDate(0, -1, 0).Format("2006-01"), t.AddDate(0, 1, 0).Format("2006-01"))
	s.page(w, "Calendar "+m, "Events calendar for "+m, body)
}

var words = strings.Fields(`the a of and to in is was for on that with as by at from this be are or it an
which have not has had were but their more been one all also its new when after there can would who so
page site crawl search engine index link title content article category review guide news report data
market price product service customer support design system network server browser mobile desktop video
image photo music travel food health sport science history city country world people time year day week
team game player match season club league result score record story idea plan project work study school
learn teach book author reader writer paper letter word language voice light water fire earth air stone`)

// makeParagraphs returns n distinct paragraphs of 60 to 120 words.
func makeParagraphs(n int) []string {
	out := make([]string, n)
	x := uint64(88172645463325252)
	next := func() uint64 {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		return x
	}
	for i := range out {
		var b strings.Builder
		nw := 60 + int(next()%60)
		for j := range nw {
			w := words[next()%uint64(len(words))]
			if j == 0 {
				w = strings.ToUpper(w[:1]) + w[1:]
			}
			b.WriteString(w)
			if j == nw-1 {
				b.WriteByte('.')
			} else if next()%12 == 0 {
				b.WriteString(". ")
			} else {
				b.WriteByte(' ')
			}
		}
		out[i] = b.String()
	}
	return out
}

// onePixelPNG is a transparent 1x1 PNG.
var onePixelPNG = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\x0f\x00\x00\x01\x01\x00\x05\x18\xd8N\x00\x00\x00\x00IEND\xaeB`\x82")
