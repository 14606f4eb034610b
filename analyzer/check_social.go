package analyzer

import (
	"strings"

	"golang.org/x/net/html/atom"

	"github.com/seokit/seokit/seo"
)

func init() {
	registerExtractor(extractSocial)
	register(Check{
		Area:  "social",
		Depth: Standard,
		IDs: []seo.CheckInfo{
			{ID: "social.og_title_missing", Severity: seo.Notice, Scope: seo.ScopePage, Summary: "The page has no non-blank og:title.", Minor: true,
				Source: "The Open Graph protocol (https://ogp.me/); PSA"},
			{ID: "social.og_description_missing", Severity: seo.Notice, Scope: seo.ScopePage, Summary: "The page has no non-blank og:description.", Minor: true,
				Source: "The Open Graph protocol (https://ogp.me/); PSA"},
			{ID: "social.og_image_missing", Severity: seo.Notice, Scope: seo.ScopePage, Summary: "The page has no non-blank og:image.", Minor: true,
				Source: "The Open Graph protocol (https://ogp.me/); PSA"},
			{ID: "social.og_image_relative", Severity: seo.Warning, Scope: seo.ScopePage, Summary: "og:image is not an absolute http(s) URL.",
				Source: "seokit's own rule, after The Open Graph protocol (https://ogp.me/) (og:image is an absolute URL)"},
			{ID: "social.og_url_relative", Severity: seo.Warning, Scope: seo.ScopePage, Summary: "og:url is not an absolute http(s) URL.",
				Source: "seokit's own rule, after The Open Graph protocol (https://ogp.me/) (og:url is of its URL type, \"all valid URLs that utilize the http:// or https:// protocols\")"},
			{ID: "social.og_url_mismatch", Severity: seo.Warning, Scope: seo.ScopePage, Summary: "og:url differs from the page's canonical URL after normalisation.",
				Source: "seokit's own rule, after The Open Graph protocol (https://ogp.me/) (og:url is the canonical URL)"},
			{ID: "social.twitter_card_missing", Severity: seo.Notice, Scope: seo.ScopePage, Summary: "The page has no twitter:card meta.", Minor: true,
				Source: "seokit's own rule, after X Cards markup (https://developer.x.com/en/docs/twitter-for-websites/cards/overview/markup)"},
		},
		Run: checkSocial,
	})
}

// extractSocial fills Report.OpenGraph and Report.Twitter with the og:* and
// twitter:* metas, keyed by their full property name ("og:title"); the
// first occurrence of a property wins. Open Graph is read from property=
// (and name= as sites often use it), Twitter from name= (and property=).
func extractSocial(p *Page) {
	for _, n := range p.ByTag(atom.Meta) {
		content, ok := Attr(n, "content")
		if !ok {
			continue
		}
		for _, key := range [2]string{"property", "name"} {
			v, _ := Attr(n, key)
			prop := strings.ToLower(strings.TrimSpace(v))
			var m *map[string]string
			switch {
			case strings.HasPrefix(prop, "og:"):
				m = &p.Report.OpenGraph
			case strings.HasPrefix(prop, "twitter:"):
				m = &p.Report.Twitter
			default:
				continue
			}
			if *m == nil {
				*m = map[string]string{}
			}
			if _, seen := (*m)[prop]; !seen {
				(*m)[prop] = strings.TrimSpace(content)
			}
			break
		}
	}
}

func checkSocial(p *Page, r *Reporter) {
	og := p.Report.OpenGraph
	// og:image:url is identical to og:image (https://ogp.me/#structured):
	// a page with only the former has an image.
	imgProp := "og:image"
	if og[imgProp] == "" && og["og:image:url"] != "" {
		imgProp = "og:image:url"
	}
	for _, c := range [...]struct{ prop, id string }{
		{"og:title", "social.og_title_missing"},
		{"og:description", "social.og_description_missing"},
		{imgProp, "social.og_image_missing"},
	} {
		if strings.TrimSpace(og[c.prop]) == "" {
			r.Add(c.id, "the page has no "+c.prop, seo.Evidence{Element: `<meta property="` + c.prop + `">`, Value: og[c.prop]})
		}
	}
	if img := og[imgProp]; img != "" && cnAbsHTTP(img) == nil {
		r.Add("social.og_image_relative", imgProp+" is not an absolute http(s) URL", seo.Evidence{Element: `<meta property="` + imgProp + `">`, Value: img})
	}
	if raw := og["og:url"]; raw != "" {
		// The Open Graph protocol gives og:url its URL type, an http(s) URL;
		// a page's scraper takes the value as the object's permanent ID, so
		// a relative one names nothing, even when it resolves to the page.
		if cnAbsHTTP(raw) == nil {
			r.Add("social.og_url_relative", "og:url is not an absolute http(s) URL", seo.Evidence{Element: `<meta property="og:url">`, Value: raw})
		}
		ogURL, err := p.urlResolver().Resolve(raw)
		if err == nil {
			canon := p.URL
			if cs := cnEffective(p); len(cs) == 1 {
				canon = cs[0]
			}
			if cnURLKey(ogURL) != cnURLKey(canon) {
				r.Add("social.og_url_mismatch", "og:url differs from the canonical URL", seo.Evidence{Element: `<meta property="og:url">`, Value: raw, URLs: []string{canon.String()}})
			}
		}
	}
	if _, ok := p.Report.Twitter["twitter:card"]; !ok {
		r.Add("social.twitter_card_missing", "the page has no twitter:card meta", seo.Evidence{Element: `<meta name="twitter:card">`})
	}
}
