package analyzer

import (
	"net/url"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"golang.org/x/text/language"

	"github.com/seokit/seokit/seo"
)

func init() {
	registerExtractor(extractHreflang)
	register(Check{
		Area:  "hreflang",
		Depth: Standard,
		IDs: []seo.CheckInfo{
			{ID: "hreflang.invalid_code", Severity: seo.Warning, Scope: seo.ScopePage, Summary: "An hreflang value is neither x-default nor an ISO 639-1 language with optional ISO 15924 script and ISO 3166-1 region.",
				Source: "Lighthouse hreflang (https://developer.chrome.com/docs/lighthouse/seo/hreflang); Google Search Central, Localized versions of your page (https://developers.google.com/search/docs/specialty/international/localized-versions) (ISO 639-1 language, optional ISO 3166-1 region); Screaming Frog SEO Spider"},
			{ID: "hreflang.relative_url", Severity: seo.Warning, Scope: seo.ScopePage, Summary: "An alternate href is not an absolute http(s) URL.",
				Source: "Lighthouse hreflang (https://developer.chrome.com/docs/lighthouse/seo/hreflang); Google Search Central, Localized versions of your page (https://developers.google.com/search/docs/specialty/international/localized-versions) (fully qualified URLs); SEOnaut"},
			{ID: "hreflang.self_missing", Severity: seo.Warning, Scope: seo.ScopePage, Summary: "The alternates do not include the page itself or its canonical.",
				Source: "Google Search Central, Localized versions of your page (https://developers.google.com/search/docs/specialty/international/localized-versions) (each page lists itself); Screaming Frog SEO Spider, SEOnaut"},
			{ID: "hreflang.x_default_missing", Severity: seo.Notice, Scope: seo.ScopePage, Summary: "The alternates have no x-default entry.",
				Source: "Google Search Central, Localized versions of your page (https://developers.google.com/search/docs/specialty/international/localized-versions) (x-default); Screaming Frog SEO Spider, SEOnaut"},
			{ID: "hreflang.duplicate_code", Severity: seo.Warning, Scope: seo.ScopePage, Summary: "One hreflang value names two or more different URLs.",
				Source: "Google Search Central, Localized versions of your page (https://developers.google.com/search/docs/specialty/international/localized-versions); Screaming Frog SEO Spider"},
			{ID: "hreflang.url_multiple_languages", Severity: seo.Warning, Scope: seo.ScopePage, Summary: "One URL is listed under two or more primary languages.",
				Source: "Google Search Central, Localized versions of your page (https://developers.google.com/search/docs/specialty/international/localized-versions); Screaming Frog SEO Spider, SEOnaut"},
			{ID: "hreflang.lang_mismatch", Severity: seo.Notice, Scope: seo.ScopePage, Summary: "The self-referencing hreflang language differs from <html lang>.",
				Source: "Google Search Central, Localized versions of your page (https://developers.google.com/search/docs/specialty/international/localized-versions); Screaming Frog SEO Spider, SEOnaut"},
			{ID: "hreflang.outside_head", Severity: seo.Warning, Scope: seo.ScopePage, Summary: "An hreflang alternate link sits outside <head>, where it is ignored.",
				Source: "Google Search Central, Localized versions of your page (https://developers.google.com/search/docs/specialty/international/localized-versions) (link elements in <head>); Screaming Frog SEO Spider"},
		},
		Run: checkHreflang,
	})
}

// hreflangDecl is one declared alternate.
type hreflangDecl struct {
	node   *html.Node // nil for a Link header
	code   string
	raw    string
	source string
	// u is the resolved URL (nil when unparseable or not http(s)).
	u *url.URL
}

func (d hreflangDecl) element() string {
	if d.node != nil {
		return Outer(d.node)
	}
	return "Link: <" + d.raw + `>; rel="alternate"; hreflang="` + d.code + `"`
}

// hreflangDecls lists alternates from <link rel=alternate hreflang> (with
// inHead) and from Link headers.
func hreflangDecls(p *Page) (decls []hreflangDecl, inHead []bool) {
	if p.IsHTML {
		for _, n := range p.ByTag(atom.Link) {
			code, ok := Attr(n, "hreflang")
			if !ok {
				continue
			}
			rel, _ := Attr(n, "rel")
			if !cnRelHas(rel, "alternate") {
				continue
			}
			d := hreflangDecl{node: n, code: strings.TrimSpace(code), source: "html"}
			d.raw, _ = Attr(n, "href")
			d.raw = strings.TrimSpace(d.raw)
			d.u = resolveWeb(p.baseResolver(), seo.EncodeQuery(d.raw, p.queryEnc))
			decls = append(decls, d)
			inHead = append(inHead, InHead(n))
		}
	}
	for _, l := range cnParseLinkHeaders(p.Header.Values("Link")) {
		code, ok := l.Params["hreflang"]
		if !ok {
			continue
		}
		alt := false
		for _, r := range l.rels() {
			alt = alt || r == "alternate"
		}
		if !alt {
			continue
		}
		d := hreflangDecl{code: strings.TrimSpace(code), raw: l.Target, source: "header"}
		d.u = resolveWeb(p.urlResolver(), l.Target)
		decls = append(decls, d)
		inHead = append(inHead, true)
	}
	return decls, inHead
}

// extractHreflang fills Report.Hreflang with the alternates that count.
func extractHreflang(p *Page) {
	decls, inHead := hreflangDecls(p)
	for i, d := range decls {
		if !inHead[i] {
			continue
		}
		v := d.raw
		if d.u != nil {
			v = d.u.String()
		}
		p.Report.Hreflang = append(p.Report.Hreflang, Alternate{Code: d.code, URL: v, Source: d.source})
	}
}

// hlValidCode reports whether code is x-default or an ISO 639-1 language
// with an optional ISO 15924 script and an optional ISO 3166-1 alpha-2
// region, separated by hyphens, and explains why not.
func hlValidCode(code string) (bool, string) {
	if strings.EqualFold(code, "x-default") {
		return true, ""
	}
	if code == "" {
		return false, "empty value"
	}
	if strings.ContainsRune(code, '_') {
		return false, "subtags must be separated by '-', not '_'"
	}
	parts := strings.Split(code, "-")
	if len(parts[0]) != 2 {
		return false, "the language must be a two-letter ISO 639-1 code"
	}
	if _, err := language.ParseBase(parts[0]); err != nil {
		return false, "unknown language " + parts[0]
	}
	rest := parts[1:]
	if len(rest) > 0 && len(rest[0]) == 4 {
		if _, err := language.ParseScript(rest[0]); err != nil {
			return false, "unknown script " + rest[0]
		}
		rest = rest[1:]
	}
	if len(rest) > 0 {
		reg := rest[0]
		if len(reg) != 2 {
			return false, "the region must be a two-letter ISO 3166-1 code"
		}
		r, err := language.ParseRegion(reg)
		if err != nil || !r.IsCountry() {
			return false, "unknown region " + reg
		}
		if c := r.Canonicalize(); c.String() != r.String() || strings.EqualFold(reg, "UK") {
			return false, "region " + reg + " is not ISO 3166-1 (use GB)"
		}
		rest = rest[1:]
	}
	if len(rest) > 0 {
		return false, "unexpected subtag " + rest[0]
	}
	return true, ""
}

// hlPrimaryLang returns the lowercase primary language subtag of a code.
func hlPrimaryLang(code string) string {
	code = strings.ToLower(strings.TrimSpace(code))
	if i := strings.IndexAny(code, "-_"); i >= 0 {
		code = code[:i]
	}
	return code
}

func checkHreflang(p *Page, r *Reporter) {
	decls, inHead := hreflangDecls(p)
	if len(decls) == 0 {
		return
	}
	var counted []hreflangDecl
	for i, d := range decls {
		if !inHead[i] {
			r.Add("hreflang.outside_head", "the hreflang link is outside <head> and is ignored", seo.Evidence{Element: d.element(), Value: d.code})
			continue
		}
		counted = append(counted, d)
	}
	if len(counted) == 0 {
		return
	}

	self := map[string]bool{cnURLKey(p.URL): true}
	for _, c := range cnEffective(p) {
		self[cnURLKey(c)] = true
	}
	hasXDefault, hasSelf := false, false
	var selfLangs []string
	byCode := map[string][]string{} // code -> distinct URL keys
	byURL := map[string][]string{}  // URL key -> distinct primary languages
	var codeOrder, urlOrder []string
	for _, d := range counted {
		if ok, why := hlValidCode(d.code); !ok {
			r.Add("hreflang.invalid_code", "invalid hreflang value "+`"`+d.code+`": `+why, seo.Evidence{Element: d.element(), Value: d.code, Detail: why})
		}
		if cnAbsHTTP(d.raw) == nil {
			r.Add("hreflang.relative_url", "the alternate URL is not an absolute http(s) URL", seo.Evidence{Element: d.element(), Value: d.raw})
		}
		if d.u == nil {
			continue
		}
		k := cnURLKey(d.u)
		isX := strings.EqualFold(d.code, "x-default")
		hasXDefault = hasXDefault || isX
		if self[k] {
			hasSelf = true
			if !isX {
				selfLangs = append(selfLangs, hlPrimaryLang(d.code))
			}
		}
		code := strings.ToLower(d.code)
		if _, ok := byCode[code]; !ok {
			codeOrder = append(codeOrder, code)
		}
		if !hlContains(byCode[code], k) {
			byCode[code] = append(byCode[code], k)
		}
		if !isX {
			if _, ok := byURL[k]; !ok {
				urlOrder = append(urlOrder, k)
			}
			if l := hlPrimaryLang(d.code); !hlContains(byURL[k], l) {
				byURL[k] = append(byURL[k], l)
			}
		}
	}
	if !hasSelf {
		r.Add("hreflang.self_missing", "the hreflang alternates do not include this page", seo.Evidence{Element: `<link rel="alternate" hreflang>`, Value: p.URL.String(), Detail: "no alternate names the page URL or its canonical"})
	}
	if !hasXDefault {
		r.Add("hreflang.x_default_missing", "the hreflang alternates have no x-default entry", seo.Measure(`<link rel="alternate" hreflang>`, float64(len(counted)), 0))
	}
	for _, code := range codeOrder {
		if urls := byCode[code]; len(urls) > 1 {
			ev := seo.Measure(`hreflang="`+code+`"`, float64(len(urls)), 1)
			ev.Value, ev.URLs = code, urls
			r.Add("hreflang.duplicate_code", "hreflang "+code+" is listed for several URLs", ev)
		}
	}
	for _, k := range urlOrder {
		if langs := byURL[k]; len(langs) > 1 {
			ev := seo.Measure(`<link rel="alternate" hreflang>`, float64(len(langs)), 1)
			ev.Value, ev.URLs, ev.Detail = strings.Join(langs, ", "), []string{k}, "languages: "+strings.Join(langs, ", ")
			r.Add("hreflang.url_multiple_languages", "one URL is listed under several languages", ev)
		}
	}
	if lang, _ := Attr(hlNode(p.HTML), "lang"); lang != "" && len(selfLangs) > 0 {
		want := hlPrimaryLang(lang)
		if !hlContains(selfLangs, want) {
			r.Add("hreflang.lang_mismatch", "the self-referencing hreflang language differs from <html lang>", seo.Evidence{Element: "<html lang>", Value: lang, Detail: "self hreflang language " + strings.Join(selfLangs, ", ") + ", html lang " + want})
		}
	}
}

func hlContains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func hlNode(n *html.Node) *html.Node {
	if n == nil {
		return &html.Node{Type: html.ElementNode}
	}
	return n
}
