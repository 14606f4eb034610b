package crawler

import (
	"fmt"
	"strings"

	"github.com/seokit/seokit/seo"
)

func init() {
	registerSite(
		siteCheck{
			Area: "redirects",
			IDs: []seo.CheckInfo{
				{ID: "site.redirect_chain", Severity: seo.Warning, Scope: seo.ScopeSite, Summary: "Internal links lead into a chain of more than one redirect.",
					Source: "Google Search Central, Redirects and Google Search (https://developers.google.com/search/docs/crawling-indexing/301-redirects); Screaming Frog SEO Spider, SEOnaut"},
				{ID: "site.redirect_loop", Severity: seo.Error, Scope: seo.ScopeSite, Summary: "Internal links lead into a redirect loop.",
					Source:  "Google Search Central, Redirects and Google Search (https://developers.google.com/search/docs/crawling-indexing/301-redirects); Screaming Frog SEO Spider, SEOnaut",
					Differs: "SEOnaut detects loops of two URLs only; seokit detects loops of any length."},
			},
			Sources: (*siteRun).wantsRedirectSources,
			Run:     (*siteRun).redirects,
		},
	)
}

// wantsRedirectSources reports whether page i is a linked redirect, whose
// findings list the pages linking to it.
func (r *siteRun) wantsRedirectSources(i int) bool {
	p := r.page(i, &r.srcBuf)
	return (len(p.Redirects) > 0 || p.Status/100 == 3) && r.inlinks[r.nodeOf[i]] > 0
}

// redirects reports linked redirect chains and loops. A chain is followed
// through the redirect edges of the crawl, so it may span several crawled
// URLs (one hop each, when the crawl does not follow redirects itself) or
// sit in one summary's Redirects.
func (r *siteRun) redirects() {
	maxHops := r.b.checks.MaxRedirectHops
	next := map[int32]int32{}
	for i := range r.npages {
		for e := range r.edgesOf(i) {
			if e.redirect() {
				if _, ok := next[int32(e.from)]; !ok {
					next[int32(e.from)] = e.target()
				}
			}
		}
	}
	for i, p := range r.pages() {
		n := r.nodeOf[i]
		if _, redirects := next[n]; !redirects && p.Status/100 != 3 {
			continue
		}
		if r.inlinks[n] == 0 && p.depth() != 0 && p.URL != r.b.start {
			continue
		}
		chain, hops, loop := r.chainOf(p, n, next)
		var srcs []string
		if s := r.sourcesOf(n); s != nil {
			srcs = s.all
		}
		ev := seo.Measure("redirects", float64(hops), float64(maxHops))
		ev.Value = strings.Join(chain, " -> ")
		switch {
		case loop:
			r.add("site.redirect_loop", p.URL, "internal links lead into a redirect loop", ev, srcs, int(r.inlinks[n]))
		case hops > maxHops:
			r.add("site.redirect_chain", p.URL, fmt.Sprintf("internal links lead into a chain of %d redirects", hops),
				ev, srcs, int(r.inlinks[n]))
		}
	}
}

// chainOf follows the redirect edges from node n and returns the URLs of the
// chain, its number of hops, and whether it loops: it comes back to a URL
// already in the chain, exceeds the redirect cap, or the fetch failed with
// seo.ErrRedirectLoop or seo.ErrTooManyRedirects.
func (r *siteRun) chainOf(p *PageSummary, n int32, next map[int32]int32) ([]string, int, bool) {
	chain := []string{r.b.urls[n]}
	visited := map[int32]bool{n: true}
	hops, loop := 0, false
	for cur := n; ; {
		t, ok := next[cur]
		if !ok {
			break
		}
		hops++
		chain = append(chain, r.b.urls[t])
		if visited[t] || hops > seo.DefaultMaxRedirects {
			loop = true
			break
		}
		visited[t] = true
		cur = t
	}
	if strings.Contains(p.Error, seo.ErrRedirectLoop.Error()) || strings.Contains(p.Error, seo.ErrTooManyRedirects.Error()) {
		loop = true
	}
	return chain, hops, loop
}
