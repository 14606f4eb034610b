package crawler

import (
	"github.com/seokit/seokit/seo"
)

func init() {
	registerSite(
		siteCheck{
			Area: "canonical",
			IDs: []seo.CheckInfo{
				{ID: "canonical.chain", Severity: seo.Warning, Scope: seo.ScopeSite, Summary: "The canonical target names yet another URL as its canonical.",
					Source: "Google Search Central, Consolidate duplicate URLs (https://developers.google.com/search/docs/crawling-indexing/consolidate-duplicate-urls); Screaming Frog SEO Spider, SEOnaut"},
			},
			Run: (*siteRun).canonicalChains,
		},
	)
}

func (r *siteRun) canonicalChains() {
	var qbuf pageBuf
	for i, p := range r.pages() {
		if !p.IsHTML || p.Status != 200 || !canonicalisedElsewhere(p) {
			continue
		}
		j := r.pageFor(p.Canonical)
		if j < 0 || j == i {
			continue
		}
		q := r.page(j, &qbuf)
		if !canonicalisedElsewhere(q) || q.Canonical == p.Canonical {
			continue
		}
		r.add("canonical.chain", effURL(p), "the canonical target names yet another URL as its canonical",
			seo.Evidence{Element: `<link rel="canonical">`, Value: p.Canonical, Detail: p.Canonical + " -> " + q.Canonical},
			[]string{p.Canonical, q.Canonical}, 2)
	}
}
