package crawler

import (
	"fmt"
	"net/url"
	"testing"

	"github.com/seokit/seokit/seo"
)

// TestShortestDepths: pages recorded at a depth deeper than their fewest
// links from the home page (a concurrent crawl read a deeper page first)
// get the fewest; a redirect's target is at its source's depth; a URL only
// a sitemap listed gets a depth when a page links to it, within MaxDepth;
// the depth histogram counts the depths as corrected.
func TestShortestDepths(t *testing.T) {
	for _, tc := range []struct {
		maxDepth int
		want     map[string]int // -1 for none
		hist     []int
	}{
		{0, map[string]int{"/": 0, "/a": 1, "/b": 1, "/c": 2, "/r": 1, "/t": 1, "/s": 3}, []int{1, 4, 1, 1}},
		{2, map[string]int{"/": 0, "/a": 1, "/b": 1, "/c": 2, "/r": 1, "/t": 1, "/s": -1}, []int{1, 4, 1}},
	} {
		t.Run(fmt.Sprint("maxDepth ", tc.maxDepth), func(t *testing.T) {
			start, _ := url.Parse(siteOrigin + "/")
			b := newSiteBuilder(start, &Options{MaxDepth: tc.maxDepth})
			b.addPage(pg("/", func(p *PageSummary) { p.Depth = ptr(0) }), []Edge{link("/", "/a"), link("/", "/b"), link("/", "/r")})
			b.addPage(pg("/a"), []Edge{link("/a", "/c"), link("/a", "/b")})
			// Read after /c, which first led the crawl to it.
			b.addPage(pg("/c", func(p *PageSummary) { p.Depth = ptr(3) }), []Edge{link("/c", "/s")})
			b.addPage(pg("/b", func(p *PageSummary) { p.Depth = ptr(4) }), []Edge{link("/b", "/c")})
			b.addPage(pg("/r", func(p *PageSummary) {
				p.Status, p.IsHTML, p.Indexable, p.FinalURL = 301, false, false, siteOrigin+"/t"
				p.Redirects = []seo.Redirect{{URL: siteOrigin + "/r", Status: 301, Location: siteOrigin + "/t"}}
			}), nil)
			b.addPage(pg("/t", func(p *PageSummary) { p.Depth = ptr(5) }), nil)
			b.addPage(pg("/s", func(p *PageSummary) { p.Depth = nil }), nil)
			rep := b.build(&crawlFacts{Domain: "example.com", StartURL: siteOrigin + "/"})
			for _, p := range rep.Pages {
				path := p.URL[len(siteOrigin):]
				if got := p.depth(); got != tc.want[path] {
					t.Errorf("%s at depth %d, want %d", path, got, tc.want[path])
				}
			}
			if fmt.Sprint(rep.Crawl.DepthHistogram) != fmt.Sprint(tc.hist) || rep.Graph.MaxDepth != len(tc.hist)-1 {
				t.Errorf("depth histogram %v, max depth %d; want %v", rep.Crawl.DepthHistogram, rep.Graph.MaxDepth, tc.hist)
			}
		})
	}
}
