package crawler

import (
	"fmt"

	"github.com/seokit/seokit/seo"
)

func init() {
	registerSite(
		siteCheck{
			Area: "inlinks",
			IDs: []seo.CheckInfo{
				{ID: "site.deep_page", Severity: seo.Notice, Scope: seo.ScopeSite, Summary: "The page is more than 4 clicks away from the start URL.",
					Source: "SEOnaut (more than 4 clicks); Screaming Frog SEO Spider (crawl depth)"},
				{ID: "site.noindex_inlinks_only", Severity: seo.Warning, Scope: seo.ScopeSite, Summary: "An indexable page is linked to only from noindex pages.",
					Source: "Google Search Central, Robots meta tag and X-Robots-Tag (https://developers.google.com/search/docs/crawling-indexing/robots-meta-tag); Screaming Frog SEO Spider"},
				{ID: "site.nofollow_inlinks_only", Severity: seo.Warning, Scope: seo.ScopeSite, Summary: "Every internal link to an indexable page is nofollow.",
					Source: "Google Search Central, Qualify your outbound links (https://developers.google.com/search/docs/crawling-indexing/qualify-outbound-links); Screaming Frog SEO Spider"},
				{ID: "site.nofollow_to_indexable", Severity: seo.Notice, Scope: seo.ScopeSite, Summary: "Internal links marked rel=\"nofollow\" point to an indexable page.",
					Source:  "Google Search Central, Qualify your outbound links (https://developers.google.com/search/docs/crawling-indexing/qualify-outbound-links); Screaming Frog SEO Spider, SEOnaut",
					Differs: "Only links with rel=\"nofollow\" count: a page that is nofollow as a whole (<meta name=robots content=nofollow>, X-Robots-Tag) is reported once, on itself, as indexability.nofollow_page, not on each page it links to with an anchor it does not have."},
			},
			Sources: (*siteRun).wantsInlinkSources,
			Run:     (*siteRun).linkChecks,
		},
	)
}

// wantsInlinkSources reports whether page i gets an inlink finding, whose
// evidence lists the pages linking to it.
func (r *siteRun) wantsInlinkSources(i int) bool {
	p, n := r.page(i, &r.srcBuf), r.nodeOf[i]
	return p.Indexable && r.inlinks[n] > 0 && (r.fromIndex[n] == 0 || r.followedIn[n] == 0 || r.nofollowIn[n] > 0)
}

// linkChecks runs the depth and inlink checks.
func (r *siteRun) linkChecks() {
	type hit struct {
		i  int
		id string
	}
	var hits []hit
	// Deep pages share one message and one evidence per depth: a large
	// site has many of them.
	type deep struct {
		msg string
		ev  seo.Evidence
	}
	deeps := map[int]deep{}
	maxDepth := r.b.checks.DeepPageDepth
	for i, p := range r.pages() {
		n := r.nodeOf[i]
		if depth := p.depth(); p.IsHTML && p.Status == 200 && depth > maxDepth {
			d, ok := deeps[depth]
			if !ok {
				d = deep{fmt.Sprintf("the page is %d clicks from the start URL", depth),
					seo.Measure("click depth", float64(depth), float64(maxDepth))}
				deeps[depth] = d
			}
			r.add("site.deep_page", effURL(p), d.msg, d.ev, nil, 0)
		}
		if !p.Indexable || r.inlinks[n] == 0 {
			continue
		}
		if r.fromIndex[n] == 0 {
			hits = append(hits, hit{i, "site.noindex_inlinks_only"})
		}
		if r.followedIn[n] == 0 {
			hits = append(hits, hit{i, "site.nofollow_inlinks_only"})
		}
		if r.nofollowIn[n] > 0 {
			hits = append(hits, hit{i, "site.nofollow_to_indexable"})
		}
	}
	for _, h := range hits {
		url := r.b.urls[r.nodeOf[h.i]]
		n := r.nodeOf[h.i]
		src := r.sourcesOf(n)
		if src == nil {
			src = &sourceList{}
		}
		switch h.id {
		case "site.noindex_inlinks_only":
			r.add(h.id, url, "the page is linked to only from noindex pages",
				seo.Evidence{Element: "inlinks"}, src.all, int(r.inlinks[n]))
		case "site.nofollow_inlinks_only":
			r.add(h.id, url, "every internal link to the page is nofollow",
				seo.Evidence{Element: "inlinks"}, src.all, int(r.inlinks[n]))
		case "site.nofollow_to_indexable":
			r.add(h.id, url, fmt.Sprintf("%d internal nofollow links point to this indexable page", r.nofollowIn[n]),
				seo.Evidence{Element: `<a rel="nofollow">`}, src.nofollow, int(r.nofollowIn[n]))
		}
	}
}
