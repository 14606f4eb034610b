package analyzer

import (
	"net/url"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/seokit/seokit/seo"
)

func init() {
	registerExtractor(extractCanonical)
	register(Check{
		Area:  "canonical",
		Depth: Basic,
		IDs: []seo.CheckInfo{
			{ID: "canonical.missing", Severity: seo.Notice, Scope: seo.ScopePage, Summary: "An indexable 200 HTML page names no canonical URL in its markup or Link header.",
				Source: "Google Search Central, Consolidate duplicate URLs (https://developers.google.com/search/docs/crawling-indexing/consolidate-duplicate-urls); Screaming Frog SEO Spider"},
			{ID: "canonical.conflicting", Severity: seo.Warning, Scope: seo.ScopePage, Summary: "The markup and Link header name more than one distinct canonical URL.",
				Source: "Lighthouse canonical (https://developer.chrome.com/docs/lighthouse/seo/canonical); Google Search Central, Consolidate duplicate URLs (https://developers.google.com/search/docs/crawling-indexing/consolidate-duplicate-urls); Screaming Frog SEO Spider, SEOnaut"},
			{ID: "canonical.relative", Severity: seo.Notice, Scope: seo.ScopePage, Summary: "A canonical is given as a relative reference.",
				Source:  "Lighthouse canonical (https://developer.chrome.com/docs/lighthouse/seo/canonical); Google Search Central, Consolidate duplicate URLs (https://developers.google.com/search/docs/crawling-indexing/consolidate-duplicate-urls); Screaming Frog SEO Spider, SEOnaut",
				Differs: "Lighthouse fails relative canonicals; seokit, like Google, resolves them and only notes the risk, so it is a notice."},
			{ID: "canonical.invalid", Severity: seo.Warning, Scope: seo.ScopePage, Summary: "A canonical is empty, unparseable or not an http(s) URL.",
				Source: "Lighthouse canonical (https://developer.chrome.com/docs/lighthouse/seo/canonical); Google Search Central, Consolidate duplicate URLs (https://developers.google.com/search/docs/crawling-indexing/consolidate-duplicate-urls); Screaming Frog SEO Spider"},
			{ID: "canonical.has_fragment", Severity: seo.Warning, Scope: seo.ScopePage, Summary: "A canonical URL carries a #fragment.",
				Source: "Google Search Central, Consolidate duplicate URLs (https://developers.google.com/search/docs/crawling-indexing/consolidate-duplicate-urls); Screaming Frog SEO Spider"},
			{ID: "canonical.outside_head", Severity: seo.Warning, Scope: seo.ScopePage, Summary: "A canonical link sits outside <head>, where search engines ignore it.",
				Source: "Google Search Central, Consolidate duplicate URLs (https://developers.google.com/search/docs/crawling-indexing/consolidate-duplicate-urls) (rel=canonical counts only in <head>); Screaming Frog SEO Spider"},
			{ID: "canonical.other_host", Severity: seo.Warning, Scope: seo.ScopePage, Summary: "The canonical names a URL on a different host.",
				Source:  "seokit's own rule, after Google Search Central, Consolidate duplicate URLs (https://developers.google.com/search/docs/crawling-indexing/consolidate-duplicate-urls)",
				Differs: "Cross-host canonicals are valid; seokit warns because they often come from a template or staging host by mistake."},
			{ID: "canonical.other_scheme", Severity: seo.Warning, Scope: seo.ScopePage, Summary: "The canonical names a URL with a different scheme than the page.",
				Source: "seokit's own rule, after Google Search Central, Consolidate duplicate URLs (https://developers.google.com/search/docs/crawling-indexing/consolidate-duplicate-urls), which prefers https URLs as canonical"},
			{ID: "canonical.to_homepage", Severity: seo.Warning, Scope: seo.ScopePage, Summary: "A page below the root names the site root as its canonical.",
				Source: "Lighthouse canonical (https://developer.chrome.com/docs/lighthouse/seo/canonical)"},
			{ID: "canonical.to_hreflang_alternate", Severity: seo.Warning, Scope: seo.ScopePage, Summary: "The canonical names a URL the page lists as a different-language alternate.",
				Source: "Lighthouse canonical (https://developer.chrome.com/docs/lighthouse/seo/canonical); Google Search Central, Localized versions of your page (https://developers.google.com/search/docs/specialty/international/localized-versions)"},
			{ID: "canonical.points_elsewhere", Severity: seo.Notice, Scope: seo.ScopePage, Summary: "The canonical names another URL, so this page is not the one to be indexed.",
				Source: "Google Search Central, Consolidate duplicate URLs (https://developers.google.com/search/docs/crawling-indexing/consolidate-duplicate-urls); Screaming Frog SEO Spider"},
		},
		Run: checkCanonical,
	})
}

// headerLink is one link of an HTTP Link header (RFC 8288).
type headerLink struct {
	Target string
	// Params holds the link parameters by lowercase name; the first
	// occurrence of a name wins, as RFC 8288 requires for rel.
	Params map[string]string
}

// rels returns the link's relation types, lowercased.
func (l headerLink) rels() []string { return strings.Fields(strings.ToLower(l.Params["rel"])) }

// cnParseLinkHeaders parses the values of Link headers: each value may hold
// several comma-separated links, and parameter values may be tokens or
// quoted strings (with backslash escapes, and commas or semicolons inside).
func cnParseLinkHeaders(values []string) []headerLink {
	var out []headerLink
	for _, v := range values {
		i := 0
		for i < len(v) {
			// Skip separators up to the next target.
			for i < len(v) && (v[i] == ' ' || v[i] == '\t' || v[i] == ',') {
				i++
			}
			if i >= len(v) {
				break
			}
			if v[i] != '<' {
				// Malformed: skip to the next comma outside quotes.
				i = cnSkipToComma(v, i)
				continue
			}
			end := strings.IndexByte(v[i:], '>')
			if end < 0 {
				break
			}
			l := headerLink{Target: strings.TrimSpace(v[i+1 : i+end]), Params: map[string]string{}}
			i += end + 1
			for {
				for i < len(v) && (v[i] == ' ' || v[i] == '\t') {
					i++
				}
				if i >= len(v) || v[i] != ';' {
					break
				}
				i++
				for i < len(v) && (v[i] == ' ' || v[i] == '\t') {
					i++
				}
				start := i
				for i < len(v) && v[i] != '=' && v[i] != ';' && v[i] != ',' {
					i++
				}
				name := strings.ToLower(strings.TrimSpace(strings.TrimSuffix(v[start:i], "*")))
				val := ""
				if i < len(v) && v[i] == '=' {
					i++
					for i < len(v) && (v[i] == ' ' || v[i] == '\t') {
						i++
					}
					if i < len(v) && v[i] == '"' {
						var sb strings.Builder
						i++
						for i < len(v) && v[i] != '"' {
							if v[i] == '\\' && i+1 < len(v) {
								i++
							}
							sb.WriteByte(v[i])
							i++
						}
						i++ // closing quote
						val = sb.String()
					} else {
						start := i
						for i < len(v) && v[i] != ';' && v[i] != ',' {
							i++
						}
						val = strings.TrimSpace(v[start:i])
					}
				}
				if _, seen := l.Params[name]; !seen && name != "" {
					l.Params[name] = val
				}
			}
			out = append(out, l)
			i = cnSkipToComma(v, i)
		}
	}
	return out
}

// cnSkipToComma returns the index of the next comma at or after i that is not
// inside a quoted string (or len(v)).
func cnSkipToComma(v string, i int) int {
	quoted := false
	for ; i < len(v); i++ {
		switch c := v[i]; {
		case c == '\\' && quoted:
			i++
		case c == '"':
			quoted = !quoted
		case c == ',' && !quoted:
			return i
		}
	}
	return i
}

// cnRelHas reports whether a rel attribute value lists token.
func cnRelHas(rel, token string) bool {
	if isASCII(rel) && isASCII(token) && strings.ToLower(token) == token {
		// strings.EqualFold of ASCII words is ASCII case folding.
		return fieldHasLower(rel, token)
	}
	for _, f := range strings.Fields(rel) {
		if strings.EqualFold(f, token) {
			return true
		}
	}
	return false
}

// cnURLKey is the comparison form of an absolute URL: seo.NormalizeURL's.
func cnURLKey(u *url.URL) string {
	if u == nil {
		return ""
	}
	return seo.NormalizeURL(u, nil).String()
}

// cnAbsHTTP parses ref and returns it when it is an absolute http(s) URL with
// a host, written as one (scheme and host), by the WHATWG URL Standard.
func cnAbsHTTP(ref string) *url.URL {
	if !seo.IsAbsoluteRef(ref) {
		return nil
	}
	u, err := seo.ParseHref(ref)
	if err != nil || !isWebURL(u) {
		return nil
	}
	return u
}

// canonicalDecl is one declared canonical with what the checks need.
type canonicalDecl struct {
	node   *html.Node // nil for a Link header
	raw    string
	hasRaw bool
	source string
	// u is the resolved URL; nil when empty, unparseable or not http(s).
	u *url.URL
}

func (d canonicalDecl) element() string {
	if d.node != nil {
		return Outer(d.node)
	}
	return "Link: <" + d.raw + `>; rel="canonical"`
}

// canonicalDecls lists the page's canonical declarations: <link
// rel=canonical> in document order (with inHead telling whether each counts),
// then Link header ones.
func canonicalDecls(p *Page) (decls []canonicalDecl, inHead []bool) {
	for _, n := range p.ByTag(atom.Link) {
		rel, _ := Attr(n, "rel")
		if !cnRelHas(rel, "canonical") {
			continue
		}
		d := canonicalDecl{node: n, source: "html"}
		d.raw, d.hasRaw = Attr(n, "href")
		d.raw = strings.TrimSpace(d.raw)
		d.u = resolveWeb(p.baseResolver(), seo.EncodeQuery(d.raw, p.queryEnc))
		decls = append(decls, d)
		inHead = append(inHead, InHead(n))
	}
	for _, l := range cnParseLinkHeaders(p.Header.Values("Link")) {
		isCanon := false
		for _, r := range l.rels() {
			isCanon = isCanon || r == "canonical"
		}
		if !isCanon {
			continue
		}
		d := canonicalDecl{raw: l.Target, hasRaw: true, source: "header"}
		d.u = resolveWeb(p.urlResolver(), l.Target)
		decls = append(decls, d)
		inHead = append(inHead, true)
	}
	return decls, inHead
}

// extractCanonical fills Report.Canonical with the declarations that count:
// those in <head> and in Link headers.
func extractCanonical(p *Page) {
	if !p.IsHTML {
		// Non-HTML documents may still declare a canonical by header.
		for _, l := range cnParseLinkHeaders(p.Header.Values("Link")) {
			for _, r := range l.rels() {
				if r == "canonical" {
					p.Report.Canonical = append(p.Report.Canonical, Canonical{URL: cnResolveHeaderTarget(p, l.Target), Source: "header"})
				}
			}
		}
		return
	}
	decls, inHead := canonicalDecls(p)
	for i, d := range decls {
		if !inHead[i] {
			continue
		}
		v := d.raw
		if d.u != nil {
			v = d.u.String()
		}
		p.Report.Canonical = append(p.Report.Canonical, Canonical{URL: v, Source: d.source})
	}
}

func cnResolveHeaderTarget(p *Page, target string) string {
	if r, err := p.urlResolver().Resolve(target); err == nil {
		return r.String()
	}
	return target
}

// cnEffective returns the distinct valid canonical URLs that count
// (in <head> or in a Link header), keyed by their normalised form.
func cnEffective(p *Page) []*url.URL {
	var out []*url.URL
	seen := map[string]bool{}
	for _, c := range p.Report.Canonical {
		u := cnAbsHTTP(c.URL)
		if u == nil {
			continue
		}
		k := cnURLKey(u)
		if !seen[k] {
			seen[k] = true
			out = append(out, u)
		}
	}
	return out
}

func checkCanonical(p *Page, r *Reporter) {
	decls, inHead := canonicalDecls(p)
	pageKey := cnURLKey(p.URL)
	if len(decls) == 0 {
		if p.Response.Status == 200 && p.Report.Robots.Indexable {
			r.Add("canonical.missing", "the page declares no canonical URL", seo.Evidence{Element: `<link rel="canonical">`, Detail: "neither a <link rel=\"canonical\"> in <head> nor a Link header with rel=\"canonical\""})
		}
		return
	}

	type target struct {
		u    *url.URL
		decl canonicalDecl
	}
	var valid []target
	seen := map[string]bool{}
	var keys []string
	for i, d := range decls {
		if !inHead[i] {
			r.Add("canonical.outside_head", "the canonical link is outside <head> and is ignored", seo.Evidence{Element: d.element(), Value: d.raw, Detail: "found in <body> or after the head was closed early"})
			continue
		}
		if d.u == nil {
			reason := "not an http(s) URL"
			if !d.hasRaw {
				reason = "no href attribute"
			} else if d.raw == "" {
				reason = "empty href"
			} else if p.Resolve(d.raw) == nil {
				reason = "does not parse as a URL"
			}
			r.Add("canonical.invalid", "the canonical URL is invalid: "+reason, seo.Evidence{Element: d.element(), Value: d.raw, Detail: reason})
			continue
		}
		if !seo.IsAbsoluteRef(d.raw) {
			r.Add("canonical.relative", "the canonical URL is relative", seo.Evidence{Element: d.element(), Value: d.raw, URLs: []string{d.u.String()}})
		}
		if strings.Contains(d.raw, "#") {
			r.Add("canonical.has_fragment", "the canonical URL contains a fragment", seo.Evidence{Element: d.element(), Value: d.raw})
		}
		k := cnURLKey(d.u)
		if !seen[k] {
			seen[k] = true
			keys = append(keys, k)
			valid = append(valid, target{d.u, d})
		}
	}
	if len(valid) > 1 {
		ev := seo.Measure("canonical", float64(len(valid)), 1)
		ev.URLs = keys
		ev.Detail = "declared by " + cnDeclSources(decls, inHead)
		r.Add("canonical.conflicting", "the page declares several different canonical URLs", ev)
	}

	// A canonical naming another alternate is a mistake when the page is
	// itself one of the alternates; a page outside the set (a parameterised
	// copy of an alternate) may canonicalise to it.
	alternates := map[string]string{}
	pageListed := false
	for _, a := range p.Report.Hreflang {
		if u := cnAbsHTTP(a.URL); u != nil {
			if k := cnURLKey(u); k != pageKey {
				alternates[k] = a.Code
			} else {
				pageListed = true
			}
		}
	}
	if !pageListed {
		clear(alternates)
	}
	pageHost := p.URL.Hostname()
	for _, t := range valid {
		u, el := t.u, t.decl.element()
		if !seo.HostInScope(u.Hostname(), pageHost, false) {
			r.Add("canonical.other_host", "the canonical points to another host", seo.Evidence{Element: el, Value: u.String(), URLs: []string{u.String()}, Detail: "page host " + pageHost})
		} else {
			if !strings.EqualFold(u.Scheme, p.URL.Scheme) {
				r.Add("canonical.other_scheme", "the canonical changes the scheme from "+p.URL.Scheme+" to "+strings.ToLower(u.Scheme), seo.Evidence{Element: el, Value: u.String(), URLs: []string{u.String()}})
			}
			pagePath := p.URL.EscapedPath()
			isRoot := (pagePath == "" || pagePath == "/") && p.URL.RawQuery == ""
			cPath := u.EscapedPath()
			if !isRoot && (cPath == "" || cPath == "/") && u.RawQuery == "" {
				r.Add("canonical.to_homepage", "the canonical of a page below the root points to the site root", seo.Evidence{Element: el, Value: u.String(), URLs: []string{u.String()}})
			}
		}
		k := cnURLKey(u)
		if code, ok := alternates[k]; ok {
			r.Add("canonical.to_hreflang_alternate", "the canonical points to a language alternate of the page ("+code+")", seo.Evidence{Element: el, Value: u.String(), URLs: []string{u.String()}, Detail: "hreflang=" + code})
		}
		if len(valid) == 1 && k != pageKey {
			r.Add("canonical.points_elsewhere", "the canonical names a different URL, so this page is not the one to be indexed", seo.Evidence{Element: el, Value: u.String(), URLs: []string{u.String()}})
		}
	}
}

func cnDeclSources(decls []canonicalDecl, inHead []bool) string {
	html, header := 0, 0
	for i, d := range decls {
		if !inHead[i] {
			continue
		}
		if d.source == "header" {
			header++
		} else {
			html++
		}
	}
	switch {
	case html > 0 && header > 0:
		return "HTML and Link header"
	case header > 0:
		return "Link header"
	}
	return "HTML"
}
