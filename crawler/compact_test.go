package crawler

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/seokit/seokit/analyzer"
	"github.com/seokit/seokit/seo"
)

func TestEdgeEncoding(t *testing.T) {
	tests := []struct {
		name  string
		node  uint32
		edges []edge
	}{
		{name: "none", node: 3},
		{name: "own edges with flags", node: 7, edges: []edge{
			{7, 0}, {7, 1 | edgeNofollow}, {7, 2}, {7, 900 | edgeRedirect}, {7, 1 << 29},
		}},
		{name: "edges of other nodes (redirect hops)", node: 5, edges: []edge{
			{2, 9 | edgeRedirect}, {5, 1}, {5, 4 | edgeNofollow}, {8, 3 | edgeRedirect | edgeNofollow},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data := appendEdges([]byte("prefix"), tc.node, tc.edges)[len("prefix"):]
			got := slices.Collect(edgesIn(data, int32(tc.node)))
			if !slices.Equal(got, tc.edges) {
				t.Errorf("decoded %v, want %v", got, tc.edges)
			}
		})
	}
}

func TestPageRecordRoundTrip(t *testing.T) {
	b := newSiteBuilder(nil, nil)
	ids := b.shareIDs([]string{"a.x", "b.y"})
	tests := []struct {
		name string
		sum  PageSummary
	}{
		{name: "plain page", sum: PageSummary{
			URL: "https://example.com/a", Status: 200, Depth: ptr(3), ContentType: "text/html", IsHTML: true,
			Indexable: true, Title: "T", Description: "D", H1: "H", Canonical: "https://example.com/a",
			WordCount: 512, TextHash: 1 << 63, SimHash: 42, Score: ptr(87), Errors: 1, Warnings: 2, Notices: 3,
			Findings: ids, ResponseMs: 12, Bytes: 1 << 40,
		}},
		{name: "flags", sum: PageSummary{URL: "u", Noindex: true, Nofollow: true, RobotsBlocked: true, ScoreReason: analyzer.ScoreNotFetched}},
		{name: "redirect kept whole", sum: PageSummary{URL: "u", Status: 301, FinalURL: "v",
			Redirects: []seo.Redirect{{URL: "u", Status: 301, Location: "v"}}}},
		{name: "error kept whole", sum: PageSummary{URL: "u", Error: "boom"}},
		{name: "hreflang and blocked kept whole", sum: PageSummary{URL: "u",
			Hreflang: []analyzer.Alternate{{Code: "en", URL: "u"}}, BlockedResources: []string{"x.js"}}},
		{name: "site fields kept whole", sum: PageSummary{URL: "u", InSitemap: true, Inlinks: 2, LinkScore: 3.5}},
		{name: "large numbers kept whole", sum: PageSummary{URL: "u", WordCount: 1 << 40}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := b.record(&tc.sum)
			got := b.summary(&rec)
			if diff := cmp.Diff(tc.sum, got); diff != "" {
				t.Errorf("round trip (-want +got):\n%s", diff)
			}
		})
	}
}
