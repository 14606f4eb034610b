package analyzer

import (
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/seokit/seokit/seo"
)

func init() {
	register(Check{
		Area:  "description",
		Depth: Basic,
		IDs: []seo.CheckInfo{
			{ID: "description.missing", Severity: seo.Warning, Scope: seo.ScopePage, Summary: "The page has no meta description.",
				Source: "Lighthouse meta-description (https://developer.chrome.com/docs/lighthouse/seo/meta-description); Google Search Central, Meta descriptions and snippets (https://developers.google.com/search/docs/appearance/snippet)"},
			{ID: "description.empty", Severity: seo.Warning, Scope: seo.ScopePage, Summary: "The meta description's content is blank.",
				Source: "Lighthouse meta-description (https://developer.chrome.com/docs/lighthouse/seo/meta-description); Google Search Central, Meta descriptions and snippets (https://developers.google.com/search/docs/appearance/snippet)"},
			{ID: "description.multiple", Severity: seo.Warning, Scope: seo.ScopePage, Summary: "The page has more than one meta description.",
				Source: "Google Search Central, Meta descriptions and snippets (https://developers.google.com/search/docs/appearance/snippet); Screaming Frog SEO Spider, SEOnaut"},
			{ID: "description.too_short", Severity: seo.Notice, Scope: seo.ScopePage, Summary: "The meta description is shorter than 70 characters.",
				Source:  "Google Search Central, Meta descriptions and snippets (https://developers.google.com/search/docs/appearance/snippet); Screaming Frog SEO Spider (70 characters)",
				Differs: "Google sets no minimum; seokit uses Screaming Frog's 70 characters, where SEOnaut uses 80 and Yoast 120."},
			{ID: "description.too_long", Severity: seo.Notice, Scope: seo.ScopePage, Summary: "The meta description is longer than 160 characters.",
				Source:  "Google Search Central, Meta descriptions and snippets (https://developers.google.com/search/docs/appearance/snippet); SEOnaut (160 characters)",
				Differs: "Google sets no length limit; seokit uses SEOnaut's 160 characters, where Screaming Frog uses 155 and Yoast 156."},
			{ID: "description.outside_head", Severity: seo.Warning, Scope: seo.ScopePage, Summary: "A meta description is in the body, where search engines ignore it.",
				Source: "HTML Standard, the head element (https://html.spec.whatwg.org/multipage/semantics.html#the-head-element); Screaming Frog SEO Spider"},
			{ID: "description.meta_keywords_present", Severity: seo.Notice, Scope: seo.ScopePage, Summary: "The page has a meta keywords tag, which search engines ignore and competitors can read.",
				Source: "Google Search Central, meta tags Google supports (https://developers.google.com/search/docs/crawling-indexing/special-tags), which does not use meta keywords; Screaming Frog SEO Spider, PSA"},
		},
		Run: checkDescription,
	})
	registerExtractor(extractDescription)
}

// namedMetasDesc returns the <meta name=...> elements whose name matches
// (case-insensitively), in document order.
func namedMetasDesc(p *Page, name string) []*html.Node {
	var out []*html.Node
	for _, m := range p.ByTag(atom.Meta) {
		if v, ok := Attr(m, "name"); ok && strings.EqualFold(strings.TrimSpace(v), name) {
			out = append(out, m)
		}
	}
	return out
}

// extractDescription fills Report.Description from the first description meta.
func extractDescription(p *Page) {
	ds := namedMetasDesc(p, "description")
	if len(ds) == 0 {
		return
	}
	c, _ := Attr(ds[0], "content")
	text := Collapse(c)
	p.Report.Description = &Text{Text: text, Length: utf8.RuneCountInString(text)}
}

func checkDescription(p *Page, r *Reporter) {
	th := p.Thresholds()
	if kw := namedMetasDesc(p, "keywords"); len(kw) > 0 {
		c, _ := Attr(kw[0], "content")
		r.Add("description.meta_keywords_present", "a meta keywords tag is present; search engines ignore it and it shows competitors the target terms",
			seo.Evidence{Element: Outer(kw[0]), Value: Collapse(c)})
	}
	ds := namedMetasDesc(p, "description")
	if len(ds) == 0 {
		r.Add("description.missing", "the page has no meta description, so search engines pick a snippet themselves",
			seo.Evidence{Element: `<meta name="description">`})
		return
	}
	if len(ds) > 1 {
		ev := seo.Measure(`<meta name="description">`, float64(len(ds)), 1)
		vals := make([]string, 0, len(ds))
		for _, d := range ds {
			c, _ := Attr(d, "content")
			vals = append(vals, Collapse(c))
		}
		ev.Value = strings.Join(vals, " | ")
		r.Add("description.multiple", "the page has more than one meta description", ev)
	}
	for _, d := range ds {
		if !InHead(d) {
			c, _ := Attr(d, "content")
			r.Add("description.outside_head", "a meta description sits in the body (or after the head was closed early) and is ignored",
				seo.Evidence{Element: Outer(d), Value: Collapse(c)})
		}
	}
	c, _ := Attr(ds[0], "content")
	text := Collapse(c)
	n := utf8.RuneCountInString(text)
	switch {
	case n == 0:
		r.Add("description.empty", "the meta description is empty", seo.Evidence{Element: Outer(ds[0])})
	case n < th.DescriptionMinChars:
		ev := seo.Measure(`<meta name="description">`, float64(n), float64(th.DescriptionMinChars))
		ev.Value = text
		r.Add("description.too_short", "the meta description is too short to make a useful snippet", ev)
	case n > th.DescriptionMaxChars:
		ev := seo.Measure(`<meta name="description">`, float64(n), float64(th.DescriptionMaxChars))
		ev.Value = text
		r.Add("description.too_long", "the meta description is longer than search results show and will be cut", ev)
	}
}
