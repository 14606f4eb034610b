package crawler_test

import (
	"context"
	"crypto/tls"
	"html"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seokit/seokit/analyzer"
	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/internal/wiretest"
	"github.com/seokit/seokit/internal/wpttest"
)

// wptCrawlKnown lists the cases whose crawl differs from what a browser
// does, with the reason.
var wptCrawlKnown = func() map[string]string {
	m := wpttest.Known()
	m["?"] = dedupEmptyQuery
	m["/a%2fc"] = dedupHex
	m["/a/%2f/c"] = dedupHex
	return m
}()

const (
	dedupEmptyQuery = "the crawler requests the URL's normal form (seo.NormalizeURL), which drops an empty query: /foo/bar? is requested as /foo/bar"
	dedupHex        = "the crawler requests the URL's normal form (seo.NormalizeURL), which uppercases the hex digits of escapes: %2f is requested as %2F"
)

// wptSite serves the pages of the cases on loopback, over http and https,
// and records every request line as sent.
type wptSite struct {
	mu         sync.Mutex
	pages      map[string]string // request target to document
	plain, tls *httptest.Server
	wPlain     *wiretest.Listener
	wTLS       *wiretest.Listener
}

func newWPTSite(t *testing.T) *wptSite {
	s := &wptSite{pages: map[string]string{}}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		doc, ok := s.pages[r.Host+" "+r.RequestURI]
		s.mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(doc))
	})
	s.plain = httptest.NewUnstartedServer(h)
	s.wPlain = wiretest.Listen(s.plain.Listener)
	s.plain.Listener = s.wPlain
	s.plain.Start()
	t.Cleanup(s.plain.Close)

	// The recorder sits behind TLS, where the request lines are plain.
	certSrv := httptest.NewTLSServer(h)
	cfg := certSrv.TLS.Clone()
	certSrv.Close()
	s.tls = httptest.NewUnstartedServer(h)
	s.wTLS = wiretest.Listen(tls.NewListener(s.tls.Listener, cfg))
	s.tls.Listener = s.wTLS
	s.tls.Start()
	t.Cleanup(s.tls.Close)
	return s
}

// authority returns the host:port of the server for scheme.
func (s *wptSite) authority(scheme string) string {
	if scheme == "https" {
		return s.tls.Listener.Addr().String()
	}
	return s.plain.Listener.Addr().String()
}

func (s *wptSite) wire(scheme string) []wiretest.Request {
	if scheme == "https" {
		return s.wTLS.Requests()
	}
	return s.wPlain.Requests()
}

// withAuthority replaces the authority (user information, host, port) of an
// absolute http(s) URL string.
func withAuthority(raw, authority string) string {
	scheme, rest, _ := strings.Cut(raw, ":")
	rest = strings.TrimLeft(rest, "/\\")
	end := strings.IndexAny(rest, "/\\?#")
	if end < 0 {
		end = len(rest)
	}
	return scheme + "://" + authority + rest[end:]
}

// target is the request target of a serialised http(s) URL: everything
// after its authority, without the fragment.
func target(href string) string {
	href, _, _ = strings.Cut(href, "#")
	_, rest, _ := strings.Cut(href, "://")
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		return rest[i:]
	}
	return "/"
}

// wptCrawlCase is one case placed on a page of the crawl.
type wptCrawlCase struct {
	wpttest.Case
	scheme, base, page string
}

// TestWPTCrawl crawls every http(s) link case of urltestdata.json from
// loopback servers that record each request line as sent, before the
// server parses it. Each case is a page of its own, linked from the
// crawl's start page, holding the case's href and, for a case with a base,
// <base href> set to the base moved to the loopback server (scheme, path
// and query kept). For each case: the link in the page's report must be
// the URL a browser makes of the href (the loopback authority read as the
// base's), or reported by links.uncrawlable as not parsing for an href a
// browser cannot parse; and when the link is on the page's host, the
// crawler must have sent a request whose target is exactly the browser's
// path and query, with the page's Host.
func TestWPTCrawl(t *testing.T) {
	site := newWPTSite(t)
	var cases []wptCrawlCase
	roots := map[string]string{}
	for _, c := range wpttest.Load(t) {
		scheme, base, ok := wpttest.Link(c)
		if !ok {
			continue
		}
		auth := site.authority(scheme)
		cc := wptCrawlCase{Case: c, scheme: scheme, base: base}
		cc.page = "/wpt/case/" + strconv.Itoa(len(cases))
		doc := "<!doctype html><html><head><title>wpt</title>"
		if base != "" {
			doc += `<base href="` + html.EscapeString(withAuthority(base, auth)) + `">`
		}
		doc += `</head><body><a href="` + html.EscapeString(c.Input) + `">link</a></body></html>`
		site.pages[auth+" "+cc.page] = doc
		roots[scheme] += `<a href="` + cc.page + `">case</a>`
		cases = append(cases, cc)
	}
	reports := map[string]*analyzer.Report{}
	for scheme, links := range roots {
		auth := site.authority(scheme)
		site.pages[auth+" /wpt"] = "<!doctype html><html><head><title>wpt</title></head><body>" + links + "</body></html>"
		var mu sync.Mutex
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		rep, err := crawler.New(&crawler.Options{
			MaxPages:          4 * len(cases),
			AllowPrivate:      true,
			IgnoreRobots:      true,
			SkipExternalLinks: true,
			PerHostRate:       100000,
			Sink: crawler.SinkFunc(func(_ context.Context, rep *analyzer.Report) error {
				if strings.Contains(rep.URL, "/wpt/case/") {
					mu.Lock()
					reports[scheme+" "+target(rep.URL)] = rep
					mu.Unlock()
				}
				return nil
			}),
		}).Run(ctx, scheme+"://"+auth+"/wpt")
		cancel()
		if err != nil {
			t.Fatalf("crawl %s: %v", scheme, err)
		}
		if rep.Crawl.StopReason != "done" {
			t.Fatalf("crawl %s stopped: %s", scheme, rep.Crawl.StopReason)
		}
	}
	wire := map[string]bool{}
	for _, scheme := range []string{"http", "https"} {
		for _, r := range site.wire(scheme) {
			wire[scheme+" "+r.Host+" "+r.Target] = true
		}
	}

	applicable, agree, listed, onWire := len(cases), 0, 0, 0
	for _, c := range cases {
		auth := site.authority(c.scheme)
		got, onPage := wptOutcome(reports[c.scheme+" "+c.page], auth, c.base)
		want := "failure"
		var wantTarget string
		if !c.Failure {
			want, _, _ = strings.Cut(c.Href, "#")
			if onPage {
				wantTarget = target(want)
			}
		}
		problem := ""
		switch {
		case got != want:
			problem = "link " + got + ", want " + want
		case wantTarget != "":
			onWire++
			if !wire[c.scheme+" "+auth+" "+wantTarget] {
				problem = "no request for " + wantTarget + " on the wire"
			}
		}
		switch {
		case problem == "":
			agree++
		case wptCrawlKnown[c.Input] != "":
			listed++
		default:
			t.Errorf("href %q (base %q): %s", c.Input, c.base, problem)
		}
	}
	t.Logf("urltestdata: %d applicable, %d agree, %d listed differences; %d requested on the page's host, request line checked", applicable, agree, listed, onWire)
}

// wptOutcome reads the link of a case's page from its report: the link's
// URL with the loopback authority read as the base's (onPage), or
// "failure" when links.uncrawlable says it does not parse, or "no link".
func wptOutcome(rep *analyzer.Report, auth, base string) (link string, onPage bool) {
	if rep == nil {
		return "page not crawled", false
	}
	if len(rep.Links.List) > 0 {
		link = rep.Links.List[0].URL
		if base != "" {
			if _, rest, ok := strings.Cut(link, "://"+auth); ok && (rest == "" || strings.HasPrefix(rest, "/")) {
				link, onPage = baseOrigin(base)+rest, true
			}
		}
		return link, onPage
	}
	for _, f := range rep.Findings {
		if f.ID == "links.uncrawlable" && strings.Contains(f.Evidence.Detail, "does not parse") {
			return "failure", false
		}
	}
	return "no link", false
}

// baseOrigin is the scheme and authority of base as a browser serialises
// them; the base strings of urltestdata are already serialised.
func baseOrigin(base string) string {
	scheme, rest, _ := strings.Cut(base, "://")
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	return strings.ToLower(scheme) + "://" + rest[:end]
}
