package crawler

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/seokit/seokit/seo"
)

func init() {
	registerSite(
		siteCheck{
			Area: "hreflang",
			IDs: []seo.CheckInfo{
				{ID: "hreflang.cluster_inconsistent", Severity: seo.Notice, Scope: seo.ScopeSite, Summary: "Pages of one hreflang cluster list different alternates.",
					Source: "Google Search Central, Localized versions of your page (https://developers.google.com/search/docs/specialty/international/localized-versions); Screaming Frog SEO Spider"},
			},
			Reports: []string{"hreflang.return_missing"},
			Run:     (*siteRun).hreflang,
		},
	)
}

// hreflang checks return links and cluster consistency across crawled pages.
func (r *siteRun) hreflang() {
	selfURLs := func(p *PageSummary) []string {
		out := []string{p.URL}
		if p.FinalURL != "" {
			out = append(out, p.FinalURL)
		}
		if p.Canonical != "" {
			out = append(out, p.Canonical)
		}
		return out
	}
	lists := func(q *PageSummary, urls []string) bool {
		for _, a := range q.Hreflang {
			if slices.Contains(urls, a.URL) {
				return true
			}
		}
		return false
	}
	var ubuf, qbuf pageBuf
	usable := func(j int) bool {
		if j < 0 {
			return false
		}
		q := r.page(j, &ubuf)
		return q.Status == 200 && q.IsHTML && len(q.Redirects) == 0
	}
	parent := map[int]int{}
	var find func(x int) int
	find = func(x int) int {
		p, ok := parent[x]
		if !ok || p == x {
			parent[x] = x
			return x
		}
		root := find(p)
		parent[x] = root
		return root
	}
	for i, p := range r.pages() {
		if len(p.Hreflang) == 0 || !usable(i) {
			continue
		}
		find(i)
		self := selfURLs(p)
		var missing []string
		for _, a := range p.Hreflang {
			if slices.Contains(self, a.URL) {
				continue
			}
			j := r.pageFor(a.URL)
			if !usable(j) || j == i {
				continue
			}
			if ri, rj := find(i), find(j); ri != rj {
				parent[ri] = rj
			}
			if !lists(r.page(j, &qbuf), self) && !slices.Contains(missing, a.URL) {
				missing = append(missing, a.URL)
			}
		}
		if len(missing) > 0 {
			r.add("hreflang.return_missing", effURL(p),
				fmt.Sprintf("%d alternates do not list this page back", len(missing)),
				seo.Evidence{Element: `<link rel="alternate" hreflang>`, Value: missing[0]}, missing, len(missing))
		}
	}
	clusters := map[int][]int{}
	var roots []int
	for i := range r.npages {
		if _, ok := parent[i]; !ok {
			continue
		}
		root := find(i)
		if _, ok := clusters[root]; !ok {
			roots = append(roots, root)
		}
		clusters[root] = append(clusters[root], i)
	}
	sort.Ints(roots)
	for _, root := range roots {
		members := clusters[root]
		if len(members) < 2 {
			continue
		}
		sigs := map[string]bool{}
		var urls []string
		for _, m := range members {
			p := r.page(m, &qbuf)
			urls = append(urls, effURL(p))
			pairs := make([]string, 0, len(p.Hreflang))
			for _, a := range p.Hreflang {
				pairs = append(pairs, strings.ToLower(a.Code)+" "+a.URL)
			}
			sort.Strings(pairs)
			pairs = slices.Compact(pairs)
			sigs[strings.Join(pairs, "\n")] = true
		}
		if len(sigs) < 2 {
			continue
		}
		sort.Strings(urls)
		r.add("hreflang.cluster_inconsistent", urls[0],
			fmt.Sprintf("%d pages of one hreflang cluster list %d different sets of alternates", len(members), len(sigs)),
			seo.Evidence{Element: `<link rel="alternate" hreflang>`}, urls, len(urls))
	}
}
