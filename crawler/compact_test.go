package crawler

import (
	"slices"
	"strings"
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
			got := slices.Collect(edgesIn(data, int32(tc.node), nil))
			if !slices.Equal(got, tc.edges) {
				t.Errorf("decoded %v, want %v", got, tc.edges)
			}
			if got := decodeEdges([]edge{{1, 1}}, data, int32(tc.node), nil)[1:]; !slices.Equal(got, tc.edges) {
				t.Errorf("decodeEdges: %v, want %v", got, tc.edges)
			}
		})
	}
}

func TestPageRecordRoundTrip(t *testing.T) {
	b := newSiteBuilder(nil, nil)
	ids := b.shareIDs([]string{"a.x", "b.y"})
	long := strings.Repeat("x", 1<<15)
	tests := []struct {
		name  string
		sum   PageSummary
		whole bool // kept whole in pageRec.more
	}{
		{name: "plain page", sum: PageSummary{
			URL: "https://example.com/a", Status: 200, Depth: ptr(3), ContentType: "text/html", IsHTML: true,
			Indexable: true, Title: "T", Description: "D", H1: "H", Canonical: "https://example.com/a",
			WordCount: 512, TextHash: 1 << 63, SimHash: 42, Score: ptr(87), Errors: 1, Warnings: 2, Notices: 3,
			Findings: ids, ResponseMs: 12, Bytes: 1 << 30,
		}},
		{name: "texts equal to the title", sum: PageSummary{URL: "u", Title: "T", Description: "T", H1: "T"}},
		{name: "H1 equal to the title", sum: PageSummary{URL: "u", Title: "T", Description: "D", H1: "T"}},
		{name: "description equal to the title", sum: PageSummary{URL: "u", Title: "T", Description: "T", H1: "H"}},
		{name: "empty texts", sum: PageSummary{URL: "u", Description: "D"}},
		{name: "flags", sum: PageSummary{URL: "u", Noindex: true, Nofollow: true, RobotsBlocked: true, ScoreReason: analyzer.ScoreNotFetched}},
		{name: "redirect kept whole", whole: true, sum: PageSummary{URL: "u", Status: 301, FinalURL: "v",
			Redirects: []seo.Redirect{{URL: "u", Status: 301, Location: "v"}}}},
		{name: "error kept whole", whole: true, sum: PageSummary{URL: "u", Error: "boom"}},
		{name: "hreflang and blocked kept whole", whole: true, sum: PageSummary{URL: "u",
			Hreflang: []analyzer.Alternate{{Code: "en", URL: "u"}}, BlockedResources: []string{"x.js"}}},
		{name: "site fields kept whole", whole: true, sum: PageSummary{URL: "u", InSitemap: true, Inlinks: 2, LinkScore: 3.5}},
		{name: "large numbers kept whole", whole: true, sum: PageSummary{URL: "u", WordCount: 1 << 40}},
		{name: "large bytes kept whole", whole: true, sum: PageSummary{URL: "u", Bytes: 1 << 31}},
		{name: "status past uint16 kept whole", whole: true, sum: PageSummary{URL: "u", Status: 1 << 16}},
		{name: "counts past uint16 kept whole", whole: true, sum: PageSummary{URL: "u", Notices: 1 << 16}},
		{name: "score past int16 kept whole", whole: true, sum: PageSummary{URL: "u", Score: ptr(1 << 15)}},
		{name: "texts past 64 KiB kept whole", whole: true, sum: PageSummary{URL: "u", Title: long, Description: long + "y"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := b.record(&tc.sum)
			if whole := rec.more != nil; whole != tc.whole {
				t.Errorf("kept whole: %v, want %v", whole, tc.whole)
			}
			got := b.summary(&rec)
			if diff := cmp.Diff(tc.sum, got); diff != "" {
				t.Errorf("round trip (-want +got):\n%s", diff)
			}
		})
	}
}

// TestEdgeRuns encodes pages that share a menu of 40 links: the second
// page stores the menu's run once and every later page refers to it, a
// page whose menu differs (one link nofollow) keeps its own, and every page
// decodes to its edges.
func TestEdgeRuns(t *testing.T) {
	var rs edgeRuns
	page := func(node uint32, nofollowAt int) []edge {
		var es []edge
		for k := range uint32(40) {
			e := edge{node, 1 + k}
			if int(k) == nofollowAt {
				e.to |= edgeNofollow
			}
			es = append(es, e)
		}
		es = append(es, edge{node, node + 5000}, edge{node, node + 9000 | edgeRedirect})
		// A redirect hop recorded with the page, from another node.
		return append(es, edge{node + 1, node + 7000 | edgeRedirect})
	}
	var sizes []int
	for k, nofollowAt := range []int{-1, -1, -1, 7, -1} {
		node := uint32(10_000 + 100*k)
		es := page(node, nofollowAt)
		data := rs.appendPage(nil, node, es)
		if got := slices.Collect(edgesIn(data, int32(node), rs.runs)); !slices.Equal(got, es) {
			t.Errorf("page %d: decoded %v, want %v", k, got, es)
		}
		if got := decodeEdges(nil, data, int32(node), rs.runs); !slices.Equal(got, es) {
			t.Errorf("page %d: decodeEdges gave %v, want %v", k, got, es)
		}
		sizes = append(sizes, len(data))
	}
	if len(rs.runs) != 1 {
		t.Errorf("%d shared runs, want 1 (the menu)", len(rs.runs))
	}
	for _, k := range []int{1, 2, 4} {
		if sizes[k] > sizes[0]-30 {
			t.Errorf("page %d takes %d bytes, want 30 fewer than the first page's %d: the menu shared", k, sizes[k], sizes[0])
		}
	}
	if sizes[3] < sizes[0] {
		t.Errorf("the page with its own menu takes %d bytes, fewer than the first page's %d", sizes[3], sizes[0])
	}
}
