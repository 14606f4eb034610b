package analyzer

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/net/html/atom"

	"github.com/seokit/seokit/seo"
)

func init() {
	mob := func(id string, sev seo.Severity, summary, source, differs string) seo.CheckInfo {
		return seo.CheckInfo{ID: id, Severity: sev, Scope: seo.ScopeMobile, Summary: summary, Source: source, Differs: differs}
	}
	declare(
		mob("mobile.status_mismatch", seo.Error, "The smartphone fetch fails or ends in a non-200 status while the desktop fetch gets 200.",
			"seokit's own rule, after Google Search Central, Mobile-first indexing best practices (https://developers.google.com/search/docs/crawling-indexing/mobile/mobile-sites-mobile-first-indexing)", ""),
		mob("mobile.faulty_redirect", seo.Warning, "The smartphone fetch is redirected to another page than the desktop URL's equivalent.",
			"seokit's own rule, after Google Search Central, Mobile-first indexing best practices (https://developers.google.com/search/docs/crawling-indexing/mobile/mobile-sites-mobile-first-indexing)", ""),
		mob("mobile.parity_robots", seo.Error, "The mobile version is noindex while the desktop version is indexable.",
			"seokit's own rule, after Google Search Central, Mobile-first indexing best practices (https://developers.google.com/search/docs/crawling-indexing/mobile/mobile-sites-mobile-first-indexing) (same content, metadata and directives on mobile and desktop)", ""),
		mob("mobile.parity_canonical", seo.Warning, "Mobile and desktop declare different canonical URLs.",
			"seokit's own rule, after Google Search Central, Mobile-first indexing best practices (https://developers.google.com/search/docs/crawling-indexing/mobile/mobile-sites-mobile-first-indexing) (same content, metadata and directives on mobile and desktop)", ""),
		mob("mobile.parity_title", seo.Warning, "Mobile and desktop titles differ, or mobile has none.",
			"seokit's own rule, after Google Search Central, Mobile-first indexing best practices (https://developers.google.com/search/docs/crawling-indexing/mobile/mobile-sites-mobile-first-indexing) (same content, metadata and directives on mobile and desktop)", ""),
		mob("mobile.parity_description", seo.Notice, "Mobile and desktop meta descriptions differ, or mobile has none.",
			"seokit's own rule, after Google Search Central, Mobile-first indexing best practices (https://developers.google.com/search/docs/crawling-indexing/mobile/mobile-sites-mobile-first-indexing) (same content, metadata and directives on mobile and desktop)", ""),
		mob("mobile.parity_h1", seo.Warning, "Mobile and desktop first H1 headings differ, or mobile has none.",
			"seokit's own rule, after Google Search Central, Mobile-first indexing best practices (https://developers.google.com/search/docs/crawling-indexing/mobile/mobile-sites-mobile-first-indexing) (same content, metadata and directives on mobile and desktop)", ""),
		mob("mobile.parity_hreflang", seo.Warning, "Mobile and desktop declare different hreflang alternates.",
			"seokit's own rule, after Google Search Central, Mobile-first indexing best practices (https://developers.google.com/search/docs/crawling-indexing/mobile/mobile-sites-mobile-first-indexing) (same content, metadata and directives on mobile and desktop)", ""),
		mob("mobile.parity_structured_data", seo.Warning, "Mobile and desktop carry different structured-data types.",
			"seokit's own rule, after Google Search Central, Mobile-first indexing best practices (https://developers.google.com/search/docs/crawling-indexing/mobile/mobile-sites-mobile-first-indexing) (same content, metadata and directives on mobile and desktop)", ""),
		mob("mobile.parity_internal_links", seo.Warning, "Mobile and desktop internal link counts differ by more than the parity threshold (20% by default).",
			"seokit's own rule, after Google Search Central, Mobile-first indexing best practices (https://developers.google.com/search/docs/crawling-indexing/mobile/mobile-sites-mobile-first-indexing) (same content, metadata and directives on mobile and desktop)", ""),
		mob("mobile.parity_word_count", seo.Warning, "Mobile and desktop main-text word counts differ by more than the parity threshold (20% by default).",
			"seokit's own rule, after Google Search Central, Mobile-first indexing best practices (https://developers.google.com/search/docs/crawling-indexing/mobile/mobile-sites-mobile-first-indexing) (same content, metadata and directives on mobile and desktop)", ""),
		mob("mobile.vary_missing", seo.Warning, "One URL serves different HTML to smartphones and desktops without Vary: User-Agent.",
			"seokit's own rule, after Google Search Central, Mobile-first indexing best practices (https://developers.google.com/search/docs/crawling-indexing/mobile/mobile-sites-mobile-first-indexing) (dynamic serving sends Vary: User-Agent) and RFC 9110, HTTP Semantics (https://www.rfc-editor.org/rfc/rfc9110)", ""),
		mob("mobile.separate_url_unpaired", seo.Warning, "A separate mobile URL lacks the rel=\"alternate\" media link on desktop or the canonical back on mobile.",
			"Google Search Central, Mobile-first indexing best practices (https://developers.google.com/search/docs/crawling-indexing/mobile/mobile-sites-mobile-first-indexing) (separate URLs: rel=alternate media on desktop, canonical on mobile); Screaming Frog SEO Spider", ""),
	)
}

// mobileIDs lists the mobile-scope IDs, to skip the fetch when all are off.
var mobileIDs = []string{
	"mobile.status_mismatch", "mobile.faulty_redirect", "mobile.parity_robots", "mobile.parity_canonical",
	"mobile.parity_title", "mobile.parity_description", "mobile.parity_h1", "mobile.parity_hreflang",
	"mobile.parity_structured_data", "mobile.parity_internal_links", "mobile.parity_word_count",
	"mobile.vary_missing", "mobile.separate_url_unpaired",
}

// mobView is what the parity checks compare of one version of the page.
type mobView struct {
	title, desc, h1      string
	hasTitle, hasDesc    bool
	hasH1                bool
	canonical            string // absolute, "" when none
	noindex              bool
	noindexSrc           string
	hreflang             []string // sorted "code url"
	hreflangCodes        []string // sorted codes
	types                []string // sorted structured-data types
	internalLinks, words int
	media                []string // rel="alternate" media targets
}

// runMobile fetches the page again with the smartphone user agent, parses
// and extracts it like the desktop page, compares both and fills
// Report.Mobile.
func runMobile(ctx context.Context, p *Page, env *fetchEnv, r *Reporter) {
	if env == nil || env.Fetcher == nil || !slices.ContainsFunc(mobileIDs, r.Enabled) {
		return
	}
	cfg := p.cfg
	reqURL := p.URL.String()
	if p.Response != nil && p.Response.RequestedURL != "" {
		reqURL = p.Response.RequestedURL
	}
	desktopStatus := http.StatusOK
	if p.Response != nil {
		desktopStatus = p.Response.Status
	}
	ms := &MobileSummary{}
	defer func() { p.Report.Mobile = ms }()

	resp, err := env.Fetcher.Fetch(ctx, &seo.Request{URL: reqURL, UserAgent: cfg.MobileUserAgent})
	if err != nil || resp == nil {
		if ctx.Err() != nil {
			ms = nil
			return
		}
		if err == nil {
			err = fmt.Errorf("analyzer: no response to the smartphone fetch of %s", reqURL)
		}
		ms.Error = err.Error()
		if resp != nil {
			ms.Status, ms.FinalURL = resp.Status, resp.URL
		}
		if desktopStatus == http.StatusOK {
			r.Add("mobile.status_mismatch", "the smartphone fetch failed while the desktop fetch got 200",
				seo.Evidence{Value: reqURL, Detail: "desktop: status 200; smartphone: " + err.Error()})
		}
		return
	}
	ms.Status, ms.FinalURL = resp.Status, resp.URL
	if ms.FinalURL == "" {
		ms.FinalURL = reqURL
	}
	if desktopStatus == http.StatusOK && resp.Status != http.StatusOK {
		r.Add("mobile.status_mismatch", fmt.Sprintf("the smartphone fetch ends with status %d while the desktop fetch got 200", resp.Status),
			seo.Evidence{Value: ms.FinalURL, URLs: []string{p.URL.String(), ms.FinalURL},
				Detail: fmt.Sprintf("desktop: status %d; smartphone: status %d", desktopStatus, resp.Status)})
	}
	if resp.Status != http.StatusOK || desktopStatus != http.StatusOK {
		return
	}

	release, err := cfg.reserve(ctx, len(resp.Body))
	if err != nil {
		ms.Error = err.Error()
		return
	}
	defer release()
	mp := newPage(resp, cfg)
	if mp.IsHTML {
		for _, x := range builtinExtractors {
			x(mp)
		}
	}
	d, m := mobViews(p, mp)
	ms.Title, ms.Description, ms.H1, ms.Canonical = m.title, m.desc, m.h1, m.canonical
	ms.Indexable = !m.noindex
	ms.InternalLinks, ms.WordCount = m.internalLinks, m.words
	ms.Hreflang, ms.Structured = m.hreflang, m.types
	if !p.IsHTML || !mp.IsHTML {
		return
	}

	dURL, mURL := p.URL, mp.URL
	separate := !mobSameHost(dURL.Hostname(), mURL.Hostname())
	if mobPathQuery(dURL) != mobPathQuery(mURL) {
		r.Add("mobile.faulty_redirect", fmt.Sprintf("the smartphone fetch ends on %s, not on the equivalent of %s", mURL, dURL),
			seo.Evidence{Value: mURL.String(), URLs: []string{dURL.String(), mURL.String()},
				Detail: mobBoth(dURL.String(), mURL.String())})
	}
	if separate {
		mobCheckPairing(r, p, d, m, dURL, mURL)
	} else if !bytes.Equal(p.Body, mp.Body) && mobStructurallyDifferent(p, mp) {
		dv, mv := p.Header.Get("Vary"), mp.Header.Get("Vary")
		if !mobVaryUA(dv) || !mobVaryUA(mv) {
			r.Add("mobile.vary_missing", "smartphones and desktops get different HTML but the response does not say Vary: User-Agent",
				seo.Evidence{Element: "Vary", Value: mv, Detail: "desktop Vary: " + mobQuote(dv) + "; smartphone Vary: " + mobQuote(mv)})
		}
	}

	if !d.noindex && m.noindex {
		r.Add("mobile.parity_robots", "the mobile version is noindex while the desktop version is indexable",
			seo.Evidence{Element: m.noindexSrc, Value: "noindex", Detail: mobBoth("indexable", "noindex ("+m.noindexSrc+")")})
	}
	if mobURLKey(d.canonical) != mobURLKey(m.canonical) {
		r.Add("mobile.parity_canonical", "mobile and desktop declare different canonical URLs",
			seo.Evidence{Element: `<link rel="canonical">`, Value: m.canonical, Detail: mobBoth(d.canonical, m.canonical)})
	}
	mobText(r, "mobile.parity_title", "<title>", "title", d.title, m.title, d.hasTitle, m.hasTitle)
	mobText(r, "mobile.parity_description", `<meta name="description">`, "meta description", d.desc, m.desc, d.hasDesc, m.hasDesc)
	mobText(r, "mobile.parity_h1", "<h1>", "first H1", d.h1, m.h1, d.hasH1, m.hasH1)
	dh, mh := d.hreflang, m.hreflang
	if separate {
		// Separate mobile pages point their alternates at mobile URLs.
		dh, mh = d.hreflangCodes, m.hreflangCodes
	}
	if !slices.Equal(dh, mh) {
		r.Add("mobile.parity_hreflang", "mobile and desktop declare different hreflang alternates",
			seo.Evidence{Element: `<link rel="alternate" hreflang>`, Value: strings.Join(mh, ", "),
				Detail: mobBoth(mobList(dh), mobList(mh))})
	}
	if !slices.Equal(d.types, m.types) {
		r.Add("mobile.parity_structured_data", "mobile and desktop carry different structured-data types",
			seo.Evidence{Value: strings.Join(m.types, ", "), Detail: mobBoth(mobList(d.types), mobList(m.types))})
	}
	pct := cfg.th.MobileParityPercent
	mobCount(r, "mobile.parity_internal_links", "internal links", d.internalLinks, m.internalLinks, pct)
	mobCount(r, "mobile.parity_word_count", "main-text words", d.words, m.words, pct)
}

// mobViews builds both views. A field comes from the report when an
// extractor filled it on either page, else from the tree, so both sides
// are always read the same way.
func mobViews(p, mp *Page) (d, m mobView) {
	dr, mr := p.Report, mp.Report
	df, mf := lcFactsOfPage(p), lcFactsOfPage(mp)
	for _, x := range []struct {
		v *mobView
		p *Page
		f *lcFacts
	}{{&d, p, df}, {&m, mp, mf}} {
		v, pg, f := x.v, x.p, x.f
		rep := pg.Report
		v.noindex, v.noindexSrc = f.noindex, f.noindexSrc
		v.media = f.media
		v.words = pg.Words
		for _, l := range pg.Links {
			if l.URL != nil && l.Internal {
				v.internalLinks++
			}
		}
		if pg.tail != nil {
			v.internalLinks += pg.tail.internal
		}
		if dr.Title != nil || mr.Title != nil {
			if rep.Title != nil {
				v.title, v.hasTitle = Collapse(rep.Title.Text), true
			}
		} else if ts := pg.ByTag(atom.Title); len(ts) > 0 {
			v.title, v.hasTitle = Collapse(TextContent(ts[0])), true
		}
		if dr.Description != nil || mr.Description != nil {
			if rep.Description != nil {
				v.desc, v.hasDesc = Collapse(rep.Description.Text), true
			}
		} else {
			for _, n := range pg.ByTag(atom.Meta) {
				if name, _ := Attr(n, "name"); strings.EqualFold(strings.TrimSpace(name), "description") {
					c, _ := Attr(n, "content")
					v.desc, v.hasDesc = Collapse(c), true
					break
				}
			}
		}
		if len(dr.Headings) > 0 || len(mr.Headings) > 0 {
			for _, h := range rep.Headings {
				if h.Level == 1 {
					v.h1, v.hasH1 = Collapse(h.Text), true
					break
				}
			}
		} else if hs := pg.ByTag(atom.H1); len(hs) > 0 {
			v.h1, v.hasH1 = Collapse(TextContent(hs[0])), true
		}
		if len(dr.Canonical) > 0 || len(mr.Canonical) > 0 {
			if len(rep.Canonical) > 0 {
				v.canonical = mobResolve(pg, rep.Canonical[0].URL)
			}
		} else if len(f.canonicals) > 0 {
			v.canonical = f.canonicals[0]
		}
		var alts []lcAlt
		if len(dr.Hreflang) > 0 || len(mr.Hreflang) > 0 {
			for _, a := range rep.Hreflang {
				if a.Source != "sitemap" {
					alts = append(alts, lcAlt{code: strings.ToLower(a.Code), url: mobResolve(pg, a.URL)})
				}
			}
		} else {
			alts = f.alternates
		}
		for _, a := range alts {
			v.hreflang = append(v.hreflang, a.code+" "+mobURLKey(a.url))
			v.hreflangCodes = append(v.hreflangCodes, a.code)
		}
		if len(dr.StructuredData) > 0 || len(mr.StructuredData) > 0 {
			for _, s := range rep.StructuredData {
				v.types = append(v.types, s.Types...)
			}
		} else {
			v.types = mobStructuredTypes(pg)
		}
		v.hreflang = mobSet(v.hreflang)
		v.hreflangCodes = mobSet(v.hreflangCodes)
		v.types = mobSet(v.types)
	}
	return d, m
}

// mobSet sorts and de-duplicates.
func mobSet(s []string) []string {
	slices.Sort(s)
	return slices.Compact(s)
}

func mobResolve(p *Page, raw string) string {
	if u := p.Resolve(raw); u != nil {
		return u.String()
	}
	return raw
}

// mobURLKey normalises an absolute URL for comparison ("" stays "").
func mobURLKey(s string) string {
	if s == "" {
		return ""
	}
	u, err := seo.ParseHref(s)
	if err != nil || u.Host == "" {
		return s
	}
	return lcKey(u)
}

// mobText reports a text that differs between desktop and mobile.
func mobText(r *Reporter, id, element, name, d, m string, hasD, hasM bool) {
	if hasD == hasM && d == m {
		return
	}
	msg := fmt.Sprintf("the mobile %s differs from the desktop one", name)
	if hasD && !hasM {
		msg = fmt.Sprintf("the mobile version has no %s", name)
	}
	dv, mv := mobQuote(d), mobQuote(m)
	if !hasD {
		dv = "(none)"
	}
	if !hasM {
		mv = "(none)"
	}
	r.Add(id, msg, seo.Evidence{Element: element, Value: m, Detail: mobBoth(dv, mv)})
}

// mobCount reports counts differing by more than pct percent of desktop's.
func mobCount(r *Reporter, id, name string, d, m int, pct float64) {
	if d <= 0 {
		return
	}
	diff := math.Abs(float64(m-d)) / float64(d) * 100
	if diff <= pct {
		return
	}
	ev := seo.Measure(name, math.Round(diff*10)/10, pct)
	ev.Value = strconv.Itoa(m)
	ev.Detail = mobBoth(strconv.Itoa(d), strconv.Itoa(m))
	r.Add(id, fmt.Sprintf("mobile has %d %s, desktop %d (%.0f%% apart)", m, name, d, diff), ev)
}

func mobList(s []string) string {
	if len(s) == 0 {
		return "(none)"
	}
	return strings.Join(s, ", ")
}

func mobBoth(d, m string) string { return "desktop: " + d + "; mobile: " + m }

func mobQuote(s string) string {
	if s == "" {
		return "(none)"
	}
	return strconv.Quote(s)
}

// mobSameHost compares hosts ignoring a leading "www.".
func mobSameHost(a, b string) bool {
	return strings.TrimPrefix(strings.ToLower(a), "www.") == strings.TrimPrefix(strings.ToLower(b), "www.")
}

// mobPathQuery is the normalised path and query of u.
func mobPathQuery(u *url.URL) string {
	n := seo.NormalizeURL(u, nil)
	return n.EscapedPath() + "?" + n.RawQuery
}

// mobVaryUA reports whether a Vary header covers the user agent.
func mobVaryUA(v string) bool {
	for _, f := range strings.Split(v, ",") {
		f = strings.TrimSpace(f)
		if f == "*" || strings.EqualFold(f, "User-Agent") {
			return true
		}
	}
	return false
}

// mobStructurallyDifferent tells real differences from per-request noise
// (nonces, tokens): the element count or the main text must differ.
func mobStructurallyDifferent(p, mp *Page) bool {
	return len(p.Elements) != len(mp.Elements) || p.MainText != mp.MainText
}

// mobCheckPairing checks the annotations a separate mobile URL needs: a
// rel="alternate" media link to it on desktop and a canonical back on mobile.
func mobCheckPairing(r *Reporter, p *Page, d, m mobView, dURL, mURL *url.URL) {
	mKey := lcKey(mURL)
	paired := false
	for _, a := range d.media {
		if mobURLKey(a) == mKey {
			paired = true
			break
		}
	}
	back := false
	if m.canonical != "" {
		ck := mobURLKey(m.canonical)
		back = ck == lcKey(dURL) || (d.canonical != "" && ck == mobURLKey(d.canonical))
	}
	if paired && back {
		return
	}
	var missing []string
	if !paired {
		missing = append(missing, `desktop has no <link rel="alternate" media> to `+mURL.String())
	}
	if !back {
		missing = append(missing, "mobile canonical is "+lcOr(m.canonical, "(none)")+", not "+dURL.String())
	}
	r.Add("mobile.separate_url_unpaired", "the separate mobile URL "+mURL.String()+" is not annotated both ways",
		seo.Evidence{Value: mURL.String(), URLs: []string{dURL.String(), mURL.String()}, Detail: strings.Join(missing, "; ")})
}

// mobStructuredTypes reads structured-data types from the tree: JSON-LD
// @type values (with @graph) and microdata itemtype attributes.
func mobStructuredTypes(p *Page) []string {
	var types []string
	var collect func(v any)
	collect = func(v any) {
		switch x := v.(type) {
		case []any:
			for _, e := range x {
				collect(e)
			}
		case map[string]any:
			switch t := x["@type"].(type) {
			case string:
				types = append(types, t)
			case []any:
				for _, e := range t {
					if s, ok := e.(string); ok {
						types = append(types, s)
					}
				}
			}
			if g, ok := x["@graph"]; ok {
				collect(g)
			}
		}
	}
	for _, s := range p.ByTag(atom.Script) {
		if t, _ := Attr(s, "type"); strings.EqualFold(strings.TrimSpace(t), "application/ld+json") {
			var v any
			if json.Unmarshal([]byte(TextContent(s)), &v) == nil {
				collect(v)
			}
		}
	}
	for _, n := range p.Elements {
		if it, ok := Attr(n, "itemtype"); ok {
			types = append(types, strings.Fields(it)...)
		}
	}
	return types
}
