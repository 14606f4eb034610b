package analyzer

import (
	"net/url"
	"path"
	"strconv"
	"strings"

	"golang.org/x/net/html/atom"

	"github.com/seokit/seokit/seo"
)

func init() {
	register(Check{
		Area:         "http",
		Depth:        Basic,
		AllDocuments: true,
		IDs: []seo.CheckInfo{
			{ID: "http.status_4xx", Severity: seo.Error, Scope: seo.ScopePage, Summary: "The final response has a 4xx client error status.",
				Source: "Lighthouse http-status-code (https://developer.chrome.com/docs/lighthouse/seo/http-status-code); Google Search Central, HTTP status codes and network errors (https://developers.google.com/search/docs/crawling-indexing/http-network-errors)"},
			{ID: "http.status_5xx", Severity: seo.Error, Scope: seo.ScopePage, Summary: "The final response has a 5xx server error status.",
				Source: "Lighthouse http-status-code (https://developer.chrome.com/docs/lighthouse/seo/http-status-code); Google Search Central, HTTP status codes and network errors (https://developers.google.com/search/docs/crawling-indexing/http-network-errors)"},
			{ID: "http.unreachable", Severity: seo.Error, Scope: seo.ScopePage, Summary: "No usable response arrived: DNS, connection or TLS failure, or a timeout.",
				Source: "Google Search Central, HTTP status codes and network errors (https://developers.google.com/search/docs/crawling-indexing/http-network-errors); SEOnaut, Screaming Frog SEO Spider, PSA"},
			{ID: "http.redirect", Severity: seo.Notice, Scope: seo.ScopePage, Summary: "The requested URL redirects; the final URL was analysed.",
				Source: "Google Search Central, Redirects and Google Search (https://developers.google.com/search/docs/crawling-indexing/301-redirects); Screaming Frog SEO Spider, SEOnaut"},
			{ID: "http.redirect_temporary", Severity: seo.Warning, Scope: seo.ScopePage, Summary: "A redirect hop uses a temporary status (302, 303 or 307) instead of 301 or 308.",
				Source: "seokit's own rule, after Google Search Central, Redirects and Google Search (https://developers.google.com/search/docs/crawling-indexing/301-redirects) (permanent moves use 301 or 308)"},
			{ID: "http.redirect_chain", Severity: seo.Warning, Scope: seo.ScopePage, Summary: "The redirect chain has more hops than allowed before the final response.",
				Source: "Google Search Central, Redirects and Google Search (https://developers.google.com/search/docs/crawling-indexing/301-redirects) (avoid chains); Screaming Frog SEO Spider, SEOnaut"},
			{ID: "http.redirect_loop", Severity: seo.Error, Scope: seo.ScopePage, Summary: "The redirect chain comes back to a URL it already visited or is too long.",
				Source:  "Google Search Central, Redirects and Google Search (https://developers.google.com/search/docs/crawling-indexing/301-redirects); Screaming Frog SEO Spider, SEOnaut",
				Differs: "SEOnaut detects loops of two URLs only; seokit detects any loop and stops after 10 hops."},
			{ID: "http.redirect_to_home", Severity: seo.Warning, Scope: seo.ScopePage, Summary: "A URL that is not the site root redirects to a root, which looks like a soft 404.",
				Source: "seokit's own rule, after Google Search Central, soft 404 errors (https://developers.google.com/search/docs/crawling-indexing/http-network-errors#soft-404-errors)"},
			{ID: "http.meta_refresh", Severity: seo.Warning, Scope: seo.ScopePage, Summary: "A meta refresh or Refresh header sends visitors to another URL.",
				Source: "Google Search Central, Redirects and Google Search (https://developers.google.com/search/docs/crawling-indexing/301-redirects) (prefer server-side redirects); Screaming Frog SEO Spider"},
			{ID: "http.content_type_wrong", Severity: seo.Warning, Scope: seo.ScopePage, Summary: "The Content-Type is missing, does not match an HTML body, or contradicts the URL's extension.",
				Source: "RFC 9110, HTTP Semantics (https://www.rfc-editor.org/rfc/rfc9110); Screaming Frog SEO Spider, SEOnaut, PSA"},
			{ID: "http.no_compression", Severity: seo.Notice, Scope: seo.ScopePage, Summary: "An HTML body is sent uncompressed although the request offered gzip, br or zstd.",
				Source:  "seokit's own rule; Lighthouse uses-text-compression (https://developer.chrome.com/docs/lighthouse/performance/uses-text-compression) and Google's crawlers accept gzip, deflate and br",
				Differs: "Lighthouse judges compression by the bytes it would save; seokit flags any uncompressed HTML body over 1 KiB."},
			{ID: "http.no_validators", Severity: seo.Notice, Scope: seo.ScopePage, Summary: "A 200 HTML response has neither Last-Modified nor ETag for conditional requests.",
				Source: "seokit's own rule, after RFC 9110, HTTP Semantics (https://www.rfc-editor.org/rfc/rfc9110) (conditional requests with ETag and Last-Modified), which Google's crawlers use to recrawl efficiently"},
			{ID: "http.html_too_large", Severity: seo.Error, Scope: seo.ScopePage, Summary: "The decompressed HTML is larger than what Google indexes.",
				Source: "Google Search Central, Googlebot indexes the first 15 MB of an HTML file (https://developers.google.com/search/docs/crawling-indexing/googlebot)"},
			{ID: "http.html_large", Severity: seo.Notice, Scope: seo.ScopePage, Summary: "The decompressed HTML is large.",
				Source: "seokit's own 2 MB threshold, below Googlebot's 15 MB limit (https://developers.google.com/search/docs/crawling-indexing/googlebot); Screaming Frog SEO Spider has a size check"},
			{ID: "http.slow_ttfb", Severity: seo.Warning, Scope: seo.ScopePage, Summary: "The time to first byte of the final response is slow.",
				Source:  "SEOnaut (800 ms); Screaming Frog SEO Spider; Lighthouse server-response-time",
				Differs: "Lighthouse measures server response time in a lab run; seokit times the first byte of its own fetch, so the network between them counts."},
		},
		Run: checkHTTP,
	})
}

func checkHTTP(p *Page, r *Reporter) {
	resp := p.Response
	th := p.Thresholds()
	final := p.Report.FinalURL
	switch {
	case resp.Status >= 400 && resp.Status <= 499:
		r.Add("http.status_4xx", "the page answers with client error "+strconv.Itoa(resp.Status),
			seo.Evidence{Element: "status", Value: strconv.Itoa(resp.Status)})
	case resp.Status >= 500 && resp.Status <= 599:
		r.Add("http.status_5xx", "the page answers with server error "+strconv.Itoa(resp.Status),
			seo.Evidence{Element: "status", Value: strconv.Itoa(resp.Status)})
	}
	httpRedirects(p, r, th)
	httpRefresh(p, r)
	httpContentType(p, r)

	if p.IsHTML {
		if resp.AcceptedEncoding != "" && resp.BodyBytes > th.CompressionMinBytes && httpOffersCompression(resp.AcceptedEncoding) {
			enc := resp.ContentEncoding
			if enc == "" {
				enc = p.Header.Get("Content-Encoding")
			}
			if !httpCompressed(enc) {
				ev := seo.Measure("Content-Encoding", float64(resp.BodyBytes), float64(th.CompressionMinBytes))
				ev.Value = enc
				ev.Detail = "Accept-Encoding: " + resp.AcceptedEncoding
				r.Add("http.no_compression", "the HTML is served without compression although the request accepted it", ev)
			}
		}
		if resp.Status == 200 && p.Header.Get("Last-Modified") == "" && p.Header.Get("ETag") == "" {
			r.Add("http.no_validators", "the response has neither Last-Modified nor ETag, so crawlers cannot revalidate it cheaply",
				seo.Evidence{Element: "Last-Modified, ETag"})
		}
		switch {
		case resp.BodyBytes > th.HTMLTooLargeBytes || (resp.Truncated && resp.BodyBytes >= th.HTMLTooLargeBytes):
			ev := seo.Measure("body", float64(resp.BodyBytes), float64(th.HTMLTooLargeBytes))
			if resp.Truncated {
				ev.Detail = "body truncated at the size cap"
			}
			r.Add("http.html_too_large", "the HTML is larger than search engines index; content past the limit is ignored", ev)
		case resp.BodyBytes > th.HTMLLargeBytes:
			r.Add("http.html_large", "the HTML document is large", seo.Measure("body", float64(resp.BodyBytes), float64(th.HTMLLargeBytes)))
		}
	}
	if ttfb := resp.Timings.TTFB; ttfb > 0 && ttfb > th.SlowTTFB {
		ev := seo.Measure("TTFB (ms)", float64(ttfb.Milliseconds()), float64(th.SlowTTFB.Milliseconds()))
		ev.URLs = []string{final}
		r.Add("http.slow_ttfb", "the server takes "+strconv.FormatInt(ttfb.Milliseconds(), 10)+" ms to send the first byte", ev)
	}
}

// httpRedirects reports the redirect findings from the followed chain.
func httpRedirects(p *Page, r *Reporter, th Thresholds) {
	hops := p.Response.Redirects
	if len(hops) == 0 {
		return
	}
	final := p.Report.FinalURL
	chain := make([]string, 0, len(hops)+1)
	for _, h := range hops {
		chain = append(chain, h.URL)
	}
	chain = append(chain, final)
	r.Add("http.redirect", "the URL redirects to "+final,
		seo.Evidence{Element: "Location", Value: hops[0].Location, URLs: chain, Detail: "status " + strconv.Itoa(hops[0].Status)})
	for _, h := range hops {
		if h.Status == 302 || h.Status == 303 || h.Status == 307 {
			r.Add("http.redirect_temporary", "a hop redirects with temporary status "+strconv.Itoa(h.Status)+"; permanent moves should use 301 or 308",
				seo.Evidence{Element: "status", Value: strconv.Itoa(h.Status), URLs: []string{h.URL, h.Location}})
		}
	}
	if len(hops) > th.MaxRedirectHops {
		ev := seo.Measure("redirects", float64(len(hops)), float64(th.MaxRedirectHops))
		ev.URLs = chain
		r.Add("http.redirect_chain", "the URL reaches its final address through "+strconv.Itoa(len(hops))+" redirects", ev)
	}
	seen := make(map[string]bool, len(chain))
	repeated := ""
	for _, u := range chain {
		k := httpURLKey(u)
		if seen[k] {
			repeated = u
			break
		}
		seen[k] = true
	}
	switch {
	case repeated != "":
		r.Add("http.redirect_loop", "the redirect chain returns to "+repeated,
			seo.Evidence{Element: "Location", Value: repeated, URLs: chain})
	case len(hops) > th.RedirectLoopMaxHops:
		ev := seo.Measure("redirects", float64(len(hops)), float64(th.RedirectLoopMaxHops))
		ev.URLs = chain
		r.Add("http.redirect_loop", "the redirect chain is longer than crawlers follow", ev)
	}
	if req, err := seo.ParseHref(p.Report.URL); err == nil && !httpIsRoot(req) && !httpIsIndexFile(req) {
		if fu, err := seo.ParseHref(final); err == nil && httpIsRoot(fu) {
			r.Add("http.redirect_to_home", "the URL redirects to the home page, which search engines may treat as a soft 404",
				seo.Evidence{Element: "Location", Value: final, URLs: chain})
		}
	}
}

// httpURLKey is a URL without its fragment, for loop detection.
func httpURLKey(s string) string {
	if i := strings.IndexByte(s, '#'); i >= 0 {
		return s[:i]
	}
	return s
}

// httpIsRoot reports whether u is the root of its host, without a query.
func httpIsRoot(u *url.URL) bool {
	return (u.Path == "" || u.Path == "/") && u.RawQuery == ""
}

// httpIsIndexFile reports whether u names the directory index of the root
// ("/index.html"), whose redirect to "/" is a plain normalisation.
func httpIsIndexFile(u *url.URL) bool {
	dir, file := path.Split(u.Path)
	if dir != "/" || u.RawQuery != "" {
		return false
	}
	base := strings.ToLower(strings.TrimSuffix(file, path.Ext(file)))
	return base == "index" || base == "default" || base == "home"
}

// httpRefresh reports meta refresh and Refresh headers pointing elsewhere.
func httpRefresh(p *Page, r *Reporter) {
	u, element, content := p.refresh()
	if u == nil {
		return
	}
	r.Add("http.meta_refresh", "a refresh sends visitors to "+u.String(),
		seo.Evidence{Element: element, Value: content, URLs: []string{u.String()}})
}

// RefreshTarget returns the URL the page's refresh sends visitors to
// (without fragment), or nil: that of the Refresh header or <meta
// http-equiv="refresh"> browsers act on, when it leads elsewhere than the
// page. Google Search follows such a refresh as a redirect (Google Search
// Central, Redirects and Google Search, "meta refresh redirects":
// https://developers.google.com/search/docs/crawling-indexing/301-redirects).
func (p *Page) RefreshTarget() *url.URL {
	u, _, _ := p.refresh()
	return u
}

// refresh returns RefreshTarget with the header or element that declares
// it and its value. Browsers act on the first valid refresh only, the
// Refresh header before any <meta>, and ignore the later ones even when
// the first only reloads the page (the HTML Standard's "will
// declaratively refresh"); a refresh whose URL does not parse is ignored
// as if absent.
func (p *Page) refresh() (target *url.URL, element, content string) {
	// decide reports whether content is a refresh browsers act on, and its
	// target when it leads elsewhere.
	decide := func(content string, base *seo.BaseURL) (u *url.URL, acted bool) {
		t, ok := httpRefreshTarget(content)
		if !ok {
			return nil, false
		}
		if t == "" {
			return nil, true // reloads the page
		}
		u, err := base.Resolve(seo.EncodeQuery(t, p.queryEnc))
		if err != nil {
			return nil, false
		}
		u.Fragment, u.RawFragment = "", ""
		self := *p.URL
		self.Fragment, self.RawFragment = "", ""
		if u.String() == self.String() {
			return nil, true
		}
		return u, true
	}
	// The header is acted on as the document is created, before any
	// <base> is parsed: it resolves against the page's URL
	// (https://html.spec.whatwg.org/multipage/document-lifecycle.html#initialise-the-document-object).
	for _, v := range p.Header.Values("Refresh") {
		if u, acted := decide(v, p.urlResolver()); acted {
			return u, "Refresh", v
		}
	}
	if !p.IsHTML {
		return nil, "", ""
	}
	for _, m := range p.ByTag(atom.Meta) {
		if eq, _ := Attr(m, "http-equiv"); strings.EqualFold(strings.TrimSpace(eq), "refresh") {
			c, _ := Attr(m, "content")
			if u, acted := decide(c, p.baseResolver()); acted {
				return u, Outer(m), c
			}
		}
	}
	return nil, "", ""
}

// httpRefreshTarget parses a refresh value ("5; url=/next", "0;URL='x'",
// "3, /next", "0 url=/next") by the HTML Standard's shared declarative
// refresh steps
// (https://html.spec.whatwg.org/multipage/semantics.html#shared-declarative-refresh-steps)
// and returns its URL, "" when the refresh reloads the page; ok is false
// for a value the Standard refuses, which browsers ignore.
func httpRefreshTarget(content string) (string, bool) {
	s := strings.TrimLeft(content, asciiWhitespace)
	// The time: digits, then digits and dots, which are ignored; a value
	// must start with a digit or a dot.
	if s == "" || !(s[0] >= '0' && s[0] <= '9' || s[0] == '.') {
		return "", false
	}
	s = strings.TrimLeft(s, "0123456789.")
	if s != "" {
		// The time ends at white space, ';' or ','; anything else is an
		// invalid value, which browsers ignore.
		if !strings.ContainsRune(asciiWhitespace+";,", rune(s[0])) {
			return "", false
		}
		s = strings.TrimLeft(s, asciiWhitespace)
		if s != "" && (s[0] == ';' || s[0] == ',') {
			s = s[1:]
		}
		s = strings.TrimLeft(s, asciiWhitespace)
	}
	// An optional "url", white space, "=", white space; without the "="
	// the whole remainder is the URL ("urlpage.html").
	if len(s) >= 3 && strings.EqualFold(s[:3], "url") {
		if rest := strings.TrimLeft(s[3:], asciiWhitespace); rest != "" && rest[0] == '=' {
			s = strings.TrimLeft(rest[1:], asciiWhitespace)
		}
	}
	if s != "" && (s[0] == '\'' || s[0] == '"') {
		q := s[0]
		s = s[1:]
		if j := strings.IndexByte(s, q); j >= 0 {
			s = s[:j]
		}
	}
	// The URL parser trims leading and trailing C0 controls and spaces.
	return strings.TrimFunc(s, func(r rune) bool { return r <= ' ' }), true
}

// asciiWhitespace is the HTML Standard's ASCII whitespace: tab, line feed,
// form feed, carriage return and space.
const asciiWhitespace = "\t\n\f\r "

// httpFamily classifies a media type or extension: "html", "image", "pdf",
// "css", "js", "json", "xml", "text", "video", "audio", "zip" or "".
func httpFamily(mediaType string) string {
	switch mediaType {
	case "text/html", "application/xhtml+xml":
		return "html"
	case "application/pdf":
		return "pdf"
	case "text/css":
		return "css"
	case "text/javascript", "application/javascript", "application/x-javascript", "application/ecmascript", "text/ecmascript":
		return "js"
	case "application/json", "application/ld+json":
		return "json"
	case "text/xml", "application/xml", "application/rss+xml", "application/atom+xml":
		return "xml"
	case "text/plain":
		return "text"
	case "application/zip", "application/x-zip-compressed":
		return "zip"
	}
	switch {
	case strings.HasPrefix(mediaType, "image/"):
		return "image"
	case strings.HasPrefix(mediaType, "video/"):
		return "video"
	case strings.HasPrefix(mediaType, "audio/"):
		return "audio"
	}
	return ""
}

// httpExtFamily maps file extensions to the family of content they name.
var httpExtFamily = map[string]string{
	".html": "html", ".htm": "html", ".xhtml": "html", ".shtml": "html",
	".pdf": "pdf", ".css": "css", ".js": "js", ".mjs": "js", ".json": "json", ".xml": "xml",
	".txt": "text", ".zip": "zip",
	".jpg": "image", ".jpeg": "image", ".png": "image", ".gif": "image", ".webp": "image",
	".avif": "image", ".svg": "image", ".ico": "image", ".bmp": "image", ".tif": "image", ".tiff": "image",
	".mp4": "video", ".webm": "video", ".mov": "video", ".m4v": "video",
	".mp3": "audio", ".wav": "audio", ".ogg": "audio", ".m4a": "audio", ".flac": "audio",
}

// httpContentType reports a Content-Type that does not fit an HTML body or
// contradicts the URL's file extension.
func httpContentType(p *Page, r *Reporter) {
	ct := p.Header.Get("Content-Type")
	if ct == "" {
		ct = p.Response.ContentType
	}
	mt := strings.ToLower(strings.TrimSpace(strings.SplitN(ct, ";", 2)[0]))
	fam := httpFamily(mt)
	sniffHTML := LooksLikeHTML(p.Body)
	if sniffHTML && fam != "html" {
		detail := "the body looks like HTML"
		if mt == "" {
			detail += " but no Content-Type is sent"
		}
		r.Add("http.content_type_wrong", "the body is HTML but the Content-Type does not say so",
			seo.Evidence{Element: "Content-Type", Value: ct, Detail: detail})
		return
	}
	// Error pages are HTML whatever the URL, so only successful responses
	// are held to their extension.
	extFam := httpExtFamily[strings.ToLower(path.Ext(p.URL.Path))]
	if extFam == "" || p.Response.Status < 200 || p.Response.Status > 299 {
		return
	}
	got := fam
	if sniffHTML {
		got = "html"
	}
	if got != "" && got != extFam && !(extFam == "xml" && got == "text") && !(extFam == "text" && got == "xml") {
		r.Add("http.content_type_wrong", "the Content-Type contradicts the URL's "+path.Ext(p.URL.Path)+" extension",
			seo.Evidence{Element: "Content-Type", Value: ct, URLs: []string{p.URL.String()},
				Detail: "extension suggests " + extFam + ", response is " + got})
	}
}

// httpOffersCompression reports whether an Accept-Encoding offers a codec
// the check expects.
func httpOffersCompression(accept string) bool {
	return httpCompressed(accept)
}

// httpCompressed reports whether an encoding list names gzip, br or zstd.
func httpCompressed(enc string) bool {
	for _, e := range strings.Split(enc, ",") {
		e = strings.ToLower(strings.TrimSpace(strings.SplitN(e, ";", 2)[0]))
		switch e {
		case "gzip", "x-gzip", "br", "zstd":
			return true
		}
	}
	return false
}
