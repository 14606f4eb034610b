package analyzer

import (
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/seokit/seokit/seo"
)

// urlSessionParams are parameter names that carry session IDs.
var urlSessionParams = map[string]bool{
	"sid": true, "sessionid": true, "session_id": true, "sessid": true,
	"phpsessid": true, "jsessionid": true, "aspsessionid": true, "cfid": true, "cftoken": true,
}

// urlSearchParams are query parameters of internal search result pages.
var urlSearchParams = map[string]bool{"q": true, "s": true, "query": true, "search": true}

// urlMaxSegments bounds the path segments compared by url.repetitive_path.
const urlMaxSegments = 64

func init() {
	register(
		Check{
			Area:         "url",
			Depth:        Standard,
			AllDocuments: true,
			IDs: []seo.CheckInfo{
				{ID: "url.uppercase", Severity: seo.Notice, Scope: seo.ScopePage, Summary: "The URL path has uppercase letters.",
					Source: "Google Search Central, URL structure (https://developers.google.com/search/docs/crawling-indexing/url-structure) (URLs are case-sensitive); Screaming Frog SEO Spider"},
				{ID: "url.underscore", Severity: seo.Notice, Scope: seo.ScopePage, Summary: "The URL path has underscores.",
					Source: "Google Search Central, URL structure (https://developers.google.com/search/docs/crawling-indexing/url-structure) (hyphens, not underscores); Screaming Frog SEO Spider, SEOnaut"},
				{ID: "url.space", Severity: seo.Warning, Scope: seo.ScopePage, Summary: "The URL path or query has a space, literal or as %20.",
					Source: "RFC 3986 (https://www.rfc-editor.org/rfc/rfc3986); Screaming Frog SEO Spider, SEOnaut"},
				{ID: "url.non_ascii", Severity: seo.Notice, Scope: seo.ScopePage, Summary: "The URL has non-ASCII characters outside the host.",
					Source: "RFC 3986 (https://www.rfc-editor.org/rfc/rfc3986); Google Search Central, URL structure (https://developers.google.com/search/docs/crawling-indexing/url-structure); Screaming Frog SEO Spider"},
				{ID: "url.multiple_slashes", Severity: seo.Notice, Scope: seo.ScopePage, Summary: "The URL path has consecutive slashes.",
					Source: "Google Search Central, URL structure (https://developers.google.com/search/docs/crawling-indexing/url-structure); Screaming Frog SEO Spider, SEOnaut"},
				{ID: "url.too_long", Severity: seo.Notice, Scope: seo.ScopePage, Summary: "The full URL is longer than the threshold.",
					Source: "Screaming Frog SEO Spider (over 115 characters); Google Search Central, URL structure (https://developers.google.com/search/docs/crawling-indexing/url-structure)"},
				{ID: "url.too_many_params", Severity: seo.Notice, Scope: seo.ScopePage, Summary: "The query has more parameters than the threshold.",
					Source:  "Google Search Central, URL structure (https://developers.google.com/search/docs/crawling-indexing/url-structure) (keep parameters few); Screaming Frog SEO Spider",
					Differs: "Screaming Frog flags any query parameter; seokit only more than 3."},
				{ID: "url.session_id", Severity: seo.Warning, Scope: seo.ScopePage, Summary: "A URL parameter looks like a session ID.",
					Source: "seokit's own rule, after Google Search Central, URL structure (https://developers.google.com/search/docs/crawling-indexing/url-structure) (avoid session IDs in URLs)"},
				{ID: "url.repetitive_path", Severity: seo.Notice, Scope: seo.ScopePage, Summary: "Path segments repeat, as in /shop/shop/.",
					Source: "Google Search Central, URL structure (https://developers.google.com/search/docs/crawling-indexing/url-structure) (crawl traps); Screaming Frog SEO Spider"},
				{ID: "url.internal_search", Severity: seo.Notice, Scope: seo.ScopePage, Summary: "An indexable URL looks like an internal search result.",
					Source: "Google Search Central, faceted navigation (https://developers.google.com/search/docs/crawling-indexing/crawling-managing-faceted-navigation); Google Search Central, spam policies on search result pages (https://developers.google.com/search/docs/essentials/spam-policies); Screaming Frog SEO Spider"},
			},
			Run: checkURL,
		},
		Check{
			Area:  "url",
			Depth: Standard,
			IDs: []seo.CheckInfo{
				{ID: "url.tracking_params_internal", Severity: seo.Notice, Scope: seo.ScopePage, Summary: "An internal link carries campaign tracking parameters, creating duplicate URLs.",
					Source: "Screaming Frog SEO Spider (internal links with tracking parameters); Google Search Central, Consolidate duplicate URLs (https://developers.google.com/search/docs/crawling-indexing/consolidate-duplicate-urls)"},
			},
			Run: checkURLTrackingLinks,
		},
	)
}

// checkURL applies the URL checks to the requested URL and, when it
// differs, the final URL.
func checkURL(p *Page, r *Reporter) {
	urls := []string{p.Report.URL}
	if f := p.Report.FinalURL; f != "" && f != p.Report.URL {
		urls = append(urls, f)
	}
	for _, raw := range urls {
		if raw == "" {
			continue
		}
		if u, err := seo.ParseHref(raw); err == nil {
			urlChecks(p, r, raw, u)
		}
	}
}

func urlChecks(p *Page, r *Reporter, raw string, u *url.URL) {
	th := p.Thresholds()
	ev := func(detail string) seo.Evidence { return seo.Evidence{Element: "URL", Value: raw, Detail: detail} }
	escPath := u.EscapedPath()

	if strings.IndexFunc(u.Path, func(c rune) bool { return c >= 'A' && c <= 'Z' }) >= 0 {
		r.Add("url.uppercase", "the URL path has uppercase letters; URLs are case-sensitive", ev("path "+u.Path))
	}
	if strings.IndexByte(u.Path, '_') >= 0 {
		r.Add("url.underscore", "the URL path has underscores; hyphens separate words better", ev("path "+u.Path))
	}
	if strings.IndexByte(u.Path, ' ') >= 0 || strings.Contains(raw, " ") || strings.Contains(u.RawQuery, "%20") {
		r.Add("url.space", "the URL has a space", ev(""))
	}
	if urlHasNonASCII(escPath) || urlHasNonASCII(u.RawQuery) || urlHasNonASCII(u.EscapedFragment()) {
		r.Add("url.non_ascii", "the URL has non-ASCII characters", ev(""))
	}
	if strings.Contains(escPath, "//") {
		r.Add("url.multiple_slashes", "the URL path has consecutive slashes", ev("path "+escPath))
	}
	if n := utf8.RuneCountInString(raw); n > th.URLMaxChars {
		e := seo.Measure("URL", float64(n), float64(th.URLMaxChars))
		e.Value = raw
		r.Add("url.too_long", "the URL has "+strconv.Itoa(n)+" characters", e)
	}
	params := urlParamNames(u.RawQuery)
	if len(params) > th.URLMaxParams {
		e := seo.Measure("query", float64(len(params)), float64(th.URLMaxParams))
		e.Value = raw
		r.Add("url.too_many_params", "the URL has "+strconv.Itoa(len(params))+" query parameters", e)
	}
	if name := urlSessionParam(params, u.Path); name != "" {
		r.Add("url.session_id", "the URL carries a session ID parameter ("+name+"), creating a new URL per visit", ev("parameter "+name))
	}
	if seg := urlRepeatedSegments(u.Path); seg != "" {
		r.Add("url.repetitive_path", "the URL path repeats "+seg, ev("path "+u.Path))
	}
	if p.Report.Robots.Indexable {
		if why := urlSearchLike(u.Path, params); why != "" {
			r.Add("url.internal_search", "the indexable URL looks like an internal search result", ev(why))
		}
	}
}

// urlHasNonASCII reports raw non-ASCII bytes or percent-encoded bytes of
// 0x80 and above.
func urlHasNonASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 {
			return true
		}
		if c == '%' && i+2 < len(s) && urlIsHex(s[i+2]) {
			if h := s[i+1]; h >= '8' && h <= '9' || h >= 'a' && h <= 'f' || h >= 'A' && h <= 'F' {
				return true
			}
		}
	}
	return false
}

func urlIsHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// urlParamNames returns the lowercased names of the query's parameters.
func urlParamNames(q string) []string {
	var names []string
	for part := range strings.SplitSeq(q, "&") {
		if part == "" {
			continue
		}
		name, _, _ := strings.Cut(part, "=")
		if n, err := url.QueryUnescape(name); err == nil {
			name = n
		}
		names = append(names, strings.ToLower(name))
	}
	return names
}

// urlSessionParam returns the session parameter found in the query or as a
// path parameter (";jsessionid=..."), or "".
func urlSessionParam(params []string, p string) string {
	for _, n := range params {
		if urlSessionParams[n] {
			return n
		}
	}
	low := strings.ToLower(p)
	for {
		i := strings.IndexByte(low, ';')
		if i < 0 {
			return ""
		}
		low = low[i+1:]
		name, _, ok := strings.Cut(low, "=")
		if ok && urlSessionParams[name] {
			return name
		}
	}
}

// urlRepeatedSegments finds a run of path segments directly repeated
// ("shop/shop", "a/b/a/b") and returns it, or "".
func urlRepeatedSegments(p string) string {
	var segs []string
	for s := range strings.SplitSeq(p, "/") {
		if s != "" {
			segs = append(segs, strings.ToLower(s))
		}
		if len(segs) == urlMaxSegments {
			break
		}
	}
	for k := 1; 2*k <= len(segs); k++ {
		for i := 0; i+2*k <= len(segs); i++ {
			if slices.Equal(segs[i:i+k], segs[i+k:i+2*k]) {
				return strings.Join(segs[i:i+2*k], "/")
			}
		}
	}
	return ""
}

// urlSearchLike says why a URL looks like an internal search page, or "".
func urlSearchLike(p string, params []string) string {
	for s := range strings.SplitSeq(strings.ToLower(p), "/") {
		if s == "search" {
			return "path segment /search"
		}
	}
	for _, n := range params {
		if urlSearchParams[n] {
			return "query parameter " + n
		}
	}
	return ""
}

// urlTracking returns the first tracking parameter of a query, or "". It
// allocates nothing for queries without escapes, since it runs per link.
func urlTracking(q string) string {
	for q != "" {
		var part string
		part, q, _ = strings.Cut(q, "&")
		name, _, _ := strings.Cut(part, "=")
		if strings.IndexByte(name, '%') >= 0 {
			if n, err := url.QueryUnescape(name); err == nil {
				name = n
			}
		}
		for _, pat := range seo.TrackingParams {
			if prefix, ok := strings.CutSuffix(pat, "*"); ok {
				if len(name) >= len(prefix) && strings.EqualFold(name[:len(prefix)], prefix) {
					return strings.ToLower(name)
				}
			} else if strings.EqualFold(name, pat) {
				return strings.ToLower(name)
			}
		}
	}
	return ""
}

// checkURLTrackingLinks reports internal links with tracking parameters,
// once per target URL.
func checkURLTrackingLinks(p *Page, r *Reporter) {
	var seen map[string]bool
	for _, l := range p.Links {
		if !l.Internal || l.URL == nil || l.URL.RawQuery == "" {
			continue
		}
		name := urlTracking(l.URL.RawQuery)
		if name == "" {
			continue
		}
		target := l.URL.String()
		if seen[target] {
			continue
		}
		if seen == nil {
			seen = map[string]bool{}
		}
		seen[target] = true
		r.Add("url.tracking_params_internal", "an internal link carries the tracking parameter "+name,
			seo.Evidence{Element: Outer(l.Node), Value: l.Href, URLs: []string{target}, Detail: "parameter " + name})
	}
}
