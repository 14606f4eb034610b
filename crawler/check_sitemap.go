package crawler

import (
	"slices"

	"github.com/seokit/seokit/seo"
)

func init() {
	registerSite(
		siteCheck{
			Area: "sitemap",
			IDs: []seo.CheckInfo{
				{ID: "site.orphan", Severity: seo.Warning, Scope: seo.ScopeSite, Summary: "A sitemap URL that is a real page (2xx, HTML, no redirect) and that no crawled page links to.",
					Source:  "Google Search Central, Make your links crawlable (https://developers.google.com/search/docs/crawling-indexing/links-crawlable) (pages need links to be found); Screaming Frog SEO Spider, SEOnaut",
					Differs: "Like Screaming Frog, seokit needs the sitemap to find orphans; when the crawl stops at its page limit it does not call unreached sitemap URLs orphans. A sitemap URL that fails, redirects or is not HTML is not an orphan: site.sitemap_broken_url or site.sitemap_redirect reports it."},
				{ID: "site.sitemap_noindex", Severity: seo.Error, Scope: seo.ScopeSite, Summary: "A sitemap lists a noindex URL: conflicting signals.",
					Source:  "Google Search Central, Build and submit a sitemap (https://developers.google.com/search/docs/crawling-indexing/sitemaps/build-sitemap); sitemaps.org protocol (https://www.sitemaps.org/protocol.html); Screaming Frog SEO Spider, SEOnaut",
					Differs: "An error, not a warning: the sitemap asks for the URL to be indexed and the page refuses, while a noindex page alone is a deliberate choice (indexability.noindex_meta and noindex_header are warnings)."},
				{ID: "site.sitemap_non_canonical", Severity: seo.Warning, Scope: seo.ScopeSite, Summary: "A sitemap lists a URL that names another URL as canonical.",
					Source: "Google Search Central, Build and submit a sitemap (https://developers.google.com/search/docs/crawling-indexing/sitemaps/build-sitemap); sitemaps.org protocol (https://www.sitemaps.org/protocol.html) (list canonical URLs); Screaming Frog SEO Spider, SEOnaut"},
				{ID: "site.sitemap_redirect", Severity: seo.Warning, Scope: seo.ScopeSite, Summary: "A sitemap lists a URL that redirects.",
					Source: "Google Search Central, Build and submit a sitemap (https://developers.google.com/search/docs/crawling-indexing/sitemaps/build-sitemap); sitemaps.org protocol (https://www.sitemaps.org/protocol.html); Screaming Frog SEO Spider"},
				{ID: "site.sitemap_broken_url", Severity: seo.Warning, Scope: seo.ScopeSite, Summary: "A sitemap lists a URL that fails (4xx, 5xx or no response).",
					Source: "Google Search Central, Build and submit a sitemap (https://developers.google.com/search/docs/crawling-indexing/sitemaps/build-sitemap); sitemaps.org protocol (https://www.sitemaps.org/protocol.html) (list only URLs that work); Screaming Frog SEO Spider"},
				{ID: "site.sitemap_blocked", Severity: seo.Warning, Scope: seo.ScopeSite, Summary: "A sitemap lists a URL that robots.txt disallows.",
					Source: "Google Search Central, Build and submit a sitemap (https://developers.google.com/search/docs/crawling-indexing/sitemaps/build-sitemap); sitemaps.org protocol (https://www.sitemaps.org/protocol.html); SEOnaut"},
				{ID: "site.not_in_sitemap", Severity: seo.Notice, Scope: seo.ScopeSite, Summary: "An indexable page found through links is missing from every sitemap.",
					Source: "Google Search Central, Build and submit a sitemap (https://developers.google.com/search/docs/crawling-indexing/sitemaps/build-sitemap); sitemaps.org protocol (https://www.sitemaps.org/protocol.html); Screaming Frog SEO Spider"},
			},
			Run: (*siteRun).sitemapChecks,
		},
	)
}

// sitemapChecks runs the checks on sitemap URLs and records the number of
// orphans and the GraphStats.OrphanCheck state in r. A partial crawl reports no
// orphans: a sitemap URL it did not reach may be linked from a page it did
// not crawl.
func (r *siteRun) sitemapChecks() {
	b := r.b
	sitemapExists, partial := r.facts.SitemapExists, r.facts.Partial
	check := OrphanCheckDone
	switch {
	case len(b.sitemap) == 0 && b.smLocsDropped == 0:
		check = OrphanCheckNoSitemap
	case partial || b.smLocsDropped > 0:
		check = OrphanCheckNotDone
	}
	locs := make([]int32, 0, len(b.sitemap))
	for n := range b.sitemap {
		locs = append(locs, n)
	}
	slices.Sort(locs)
	orphans := 0
	var buf pageBuf
	for _, n := range locs {
		loc, sm := b.urls[n], b.urls[b.sitemap[n]]
		ev := func(element string) seo.Evidence {
			return seo.Evidence{Element: element, Value: loc, Detail: "listed in " + sm}
		}
		i := int(r.pageOf[n])
		if i < 0 {
			continue
		}
		p := r.page(i, &buf)
		// Only a real page is an orphan: a sitemap URL that fails,
		// redirects or is not HTML is reported by its own check.
		if check == OrphanCheckDone && loc != b.start && r.inlinks[n] == 0 && b.inScope(loc) && realPage(p) {
			orphans++
			r.add("site.orphan", loc, "the sitemap lists this URL but no crawled page links to it", ev("sitemap"), []string{sm}, 1)
		}
		switch {
		case robotsUnavailable(p):
			// robots.txt said nothing: nothing to report about the URL.
		case p.RobotsBlocked:
			r.add("site.sitemap_blocked", loc, "the sitemap lists a URL that robots.txt disallows", ev("robots.txt"), []string{sm}, 1)
		case p.Status >= 400 || (p.Status == 0 && p.Error != ""):
			e := ev("status")
			if p.Status == 0 {
				e.Value = p.Error
			} else {
				st := float64(p.Status)
				e.Measured = &st
			}
			r.add("site.sitemap_broken_url", loc, "the sitemap lists a URL that fails", e, []string{sm}, 1)
		}
		if len(p.Redirects) > 0 || (p.Status >= 300 && p.Status < 400) {
			e := ev("status")
			e.Value = effURL(p)
			r.add("site.sitemap_redirect", loc, "the sitemap lists a URL that redirects", e, []string{sm}, 1)
		}
		if p.Noindex {
			r.add("site.sitemap_noindex", loc, "the sitemap lists a noindex URL", ev("robots"), []string{sm}, 1)
		}
		if canonicalisedElsewhere(p) {
			e := ev("canonical")
			e.Value = p.Canonical
			r.add("site.sitemap_non_canonical", loc, "the sitemap lists a URL whose canonical is another URL", e, []string{sm}, 1)
		}
	}
	// Pages are checked against every sitemap URL, so not when some were
	// not remembered (MaxSitemapURLs).
	if sitemapExists && b.smDropped == 0 {
		for _, p := range r.pages() {
			if !r.notInSitemap(p) {
				continue
			}
			r.add("site.not_in_sitemap", effURL(p), "the page is indexable but no sitemap lists it",
				seo.Evidence{Element: "sitemap", Value: effURL(p)}, nil, 0)
		}
	}
	r.orphans, r.orphanCheck = orphans, check
}

// realPage reports whether p answered 2xx with HTML, without redirecting.
func realPage(p *PageSummary) bool {
	return p.Status/100 == 2 && len(p.Redirects) == 0 && p.IsHTML
}

// notInSitemap reports whether p is an indexable page, found through
// links, that no sitemap lists (site.not_in_sitemap).
func (r *siteRun) notInSitemap(p *PageSummary) bool {
	return p.Indexable && p.Status == 200 && p.depth() >= 0 && !canonicalisedElsewhere(p) && !r.inSitemap(p)
}
