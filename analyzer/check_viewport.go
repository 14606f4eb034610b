package analyzer

import (
	"strconv"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/seokit/seokit/seo"
)

func init() {
	registerExtractor(extractViewport)
	register(Check{
		Area:  "mobile",
		Depth: Standard,
		IDs: []seo.CheckInfo{
			{ID: "mobile.viewport_missing", Severity: seo.Warning, Scope: seo.ScopePage, Summary: "The page has no <meta name=\"viewport\">.",
				Source: "Lighthouse viewport (https://developer.chrome.com/docs/lighthouse/best-practices/viewport); Google Search Central, Mobile-first indexing best practices (https://developers.google.com/search/docs/crawling-indexing/mobile/mobile-sites-mobile-first-indexing); Screaming Frog SEO Spider, SEOnaut"},
			{ID: "mobile.viewport_no_device_width", Severity: seo.Warning, Scope: seo.ScopePage, Summary: "The viewport does not set width=device-width.",
				Source:  "Lighthouse viewport (https://developer.chrome.com/docs/lighthouse/best-practices/viewport)",
				Differs: "Lighthouse passes any width= value; seokit wants width=device-width, as a fixed width does not fit every screen."},
			{ID: "mobile.zoom_disabled", Severity: seo.Warning, Scope: seo.ScopePage, Summary: "The viewport disables zooming (user-scalable=no or maximum-scale below 2).",
				Source: "Lighthouse accessibility meta-viewport (axe), which fails user-scalable=no and maximum-scale below 2"},
		},
		Run: checkViewport,
	})
}

// vpMeta returns the first <meta name="viewport">, or nil.
func vpMeta(p *Page) *html.Node {
	for _, n := range p.ByTag(atom.Meta) {
		if v, _ := Attr(n, "name"); strings.EqualFold(strings.TrimSpace(v), "viewport") {
			return n
		}
	}
	return nil
}

// vpParse splits a viewport content value into lowercase keys and
// trimmed values; pairs are separated by commas or semicolons (as browsers
// accept), with any spacing around "=".
func vpParse(content string) map[string]string {
	fields := map[string]string{}
	for _, part := range strings.FieldsFunc(content, func(r rune) bool { return r == ',' || r == ';' }) {
		k, v, _ := strings.Cut(part, "=")
		k = strings.ToLower(strings.TrimSpace(k))
		if k == "" {
			continue
		}
		fields[k] = strings.TrimSpace(v)
	}
	return fields
}

// extractViewport fills Report.Viewport.
func extractViewport(p *Page) {
	n := vpMeta(p)
	if n == nil {
		return
	}
	c, _ := Attr(n, "content")
	p.Report.Viewport = &Viewport{Content: c, Fields: vpParse(c)}
}

func checkViewport(p *Page, r *Reporter) {
	vp := p.Report.Viewport
	if vp == nil {
		r.Add("mobile.viewport_missing", "the page has no viewport meta tag", seo.Evidence{Element: `<meta name="viewport">`})
		return
	}
	el := `<meta name="viewport" content="` + vp.Content + `">`
	if w := vp.Fields["width"]; !strings.EqualFold(w, "device-width") {
		r.Add("mobile.viewport_no_device_width", "the viewport does not set width=device-width", seo.Evidence{Element: el, Value: vp.Content, Detail: "width=" + w})
	}
	switch us := strings.ToLower(vp.Fields["user-scalable"]); us {
	case "no", "0", "false":
		r.Add("mobile.zoom_disabled", "the viewport disables zooming with user-scalable="+us, seo.Evidence{Element: el, Value: vp.Content})
		return
	}
	if ms, ok := vp.Fields["maximum-scale"]; ok {
		if f, err := strconv.ParseFloat(ms, 64); err == nil {
			if min := p.Thresholds().ZoomMinMaximumScale; f < min {
				ev := seo.Measure(el, f, min)
				ev.Value = vp.Content
				r.Add("mobile.zoom_disabled", "the viewport limits zoom with maximum-scale="+ms, ev)
			}
		}
	}
}
