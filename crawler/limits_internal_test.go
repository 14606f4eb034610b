package crawler

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/seokit/seokit/seo"
)

// TestBuilderCaps checks that the builder keeps no more than its caps of
// uncrawled link targets and sitemap URLs, and that the report says what
// it left out.
func TestBuilderCaps(t *testing.T) {
	start, _ := url.Parse(siteOrigin + "/")
	b := newSiteBuilder(start, &Options{MaxLinkTargets: 100, MaxSitemapURLs: 50, MaxReportPages: 3, MaxSiteFindingsPerID: 2})
	for i := range 10 {
		p := pg(fmt.Sprintf("/p/%d", i), func(p *PageSummary) { p.Depth = ptr(9) }) // site.deep_page each
		var es []Edge
		for k := range 1000 {
			es = append(es, link(fmt.Sprintf("/p/%d", i), fmt.Sprintf("/new/%d/%d", i, k)))
		}
		es = append(es, link(fmt.Sprintf("/p/%d", i), fmt.Sprintf("/p/%d", (i+1)%10)))
		b.addPage(p, es)
	}
	for i := range 200 {
		b.addSitemapURL(fmt.Sprintf("%s/s/%d", siteOrigin, i), siteOrigin+"/sitemap.xml")
	}
	if n := len(b.urls) - b.ncrawled; n > 100+1 { // + the sitemap itself
		t.Errorf("%d uncrawled nodes kept, cap 100", n)
	}
	if len(b.smHashes) > 50 {
		t.Errorf("%d sitemap hashes kept, cap 50", len(b.smHashes))
	}
	rep := b.build(&crawlFacts{SitemapExists: true})
	want := map[string]seo.Truncation{
		"pages":                       {Total: 10, Omitted: 7},
		"siteFindings.site.deep_page": {Total: 10, Omitted: 8},
		"sitemapUrls":                 {Total: 200, Omitted: 150},
	}
	for name, w := range want {
		if got := rep.Truncated[name]; got != w {
			t.Errorf("Truncated[%q] = %+v, want %+v", name, got, w)
		}
	}
	if tr := rep.Truncated["graph.edges"]; tr.Omitted == 0 || tr.Total != 10*1001 || rep.Graph.Edges != tr.Total {
		t.Errorf("graph.edges truncation %+v, graph edges %d; want 10010 edges, some omitted", tr, rep.Graph.Edges)
	}
	if len(rep.Pages) != 3 {
		t.Errorf("%d pages listed, want 3", len(rep.Pages))
	}
	for _, g := range rep.Findings {
		if g.ID == "site.deep_page" && g.Count != 10 {
			t.Errorf("site.deep_page group counts %d, want all 10", g.Count)
		}
	}
	// Sitemap URLs were left out by name: orphans cannot be told.
	if rep.Graph.OrphanCheck != OrphanCheckNotDone || rep.Graph.Orphans != 0 {
		t.Errorf("orphan check %q with %d orphans, want not_done and 0", rep.Graph.OrphanCheck, rep.Graph.Orphans)
	}
	for _, f := range rep.SiteFindings {
		if f.ID == "site.not_in_sitemap" || f.ID == "site.orphan" {
			t.Errorf("%s reported from an incomplete sitemap set: %s", f.ID, f.URL)
		}
	}
}

// TestOrphanCheckPartial checks that a partial crawl reports no orphans and
// says so, and that a complete one still does.
func TestOrphanCheckPartial(t *testing.T) {
	for _, tc := range []struct {
		name    string
		partial bool
		want    string
		orphans int
	}{
		{"complete", false, OrphanCheckDone, 1},
		{"partial", true, OrphanCheckNotDone, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start, _ := url.Parse(siteOrigin + "/")
			b := newSiteBuilder(start, nil)
			b.addPage(pg("/", func(p *PageSummary) { p.Depth = ptr(0) }), []Edge{link("/", "/a")})
			b.addPage(pg("/a"), nil)
			b.addPage(pg("/lonely"), nil)
			b.addSitemapURL(siteOrigin+"/a", siteOrigin+"/sitemap.xml")
			b.addSitemapURL(siteOrigin+"/lonely", siteOrigin+"/sitemap.xml")
			rep := b.build(&crawlFacts{SitemapExists: true, Partial: tc.partial})
			n := 0
			for _, f := range rep.SiteFindings {
				if f.ID == "site.orphan" {
					n++
				}
			}
			if rep.Graph.OrphanCheck != tc.want || rep.Graph.Orphans != tc.orphans || n != tc.orphans {
				t.Errorf("orphan check %q, %d orphans, %d findings; want %q and %d", rep.Graph.OrphanCheck, rep.Graph.Orphans, n, tc.want, tc.orphans)
			}
		})
	}
}

// TestFitReport checks that a report whose texts are huge is cut to its
// byte cap, with the cuts noted.
func TestFitReport(t *testing.T) {
	long := siteOrigin + "/?" + strings.Repeat("a&b<", 500) // escaped 6 times over in JSON
	rep := &SiteReport{}
	for i := range 5000 {
		rep.Pages = append(rep.Pages, PageSummary{URL: fmt.Sprintf("%s/%d", long, i), Canonical: long, FinalURL: long})
		rep.SiteFindings = append(rep.SiteFindings, seo.Finding{ID: "site.deep_page", Severity: seo.Notice, URL: long, Evidence: seo.Evidence{URLs: []string{long, long, long}}})
	}
	const max = 2 << 20
	fitReport(rep, max)
	js, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	if len(js) > max {
		t.Errorf("report JSON %d bytes, want at most %d", len(js), max)
	}
	if rep.Truncated["pages"].Total != 5000 || rep.Truncated["siteFindings"].Total != 5000 {
		t.Errorf("truncated %+v, want pages and siteFindings of 5000", rep.Truncated)
	}
}

type fakeBudget struct {
	reserved, released int64
	err                error
}

func (f *fakeBudget) Reserve(_ context.Context, n int64) (func(), error) {
	if f.err != nil {
		return nil, f.err
	}
	f.reserved += n
	return func() { f.released += n }, nil
}

// TestMemoryBudget checks that Run reserves EstimateMemory and gives it
// back, and fails without crawling when the budget refuses.
func TestMemoryBudget(t *testing.T) {
	o := &Options{MaxPages: 1000, SkipExternalLinks: true}
	small, large := EstimateMemory(&Options{MaxPages: 10}), EstimateMemory(o)
	if small <= 0 || large <= small {
		t.Fatalf("EstimateMemory: %d for 10 pages, %d for 1000", small, large)
	}
	refuse := &fakeBudget{err: fmt.Errorf("budget full: %w", seo.ErrUnavailable)}
	_, err := New(&Options{Memory: refuse}).Run(context.Background(), "127.0.0.1:1")
	if !errors.Is(err, seo.ErrUnavailable) {
		t.Errorf("refused budget: err %v, want ErrUnavailable", err)
	}
	ok := &fakeBudget{}
	o.Memory, o.AllowPrivate = ok, true
	o.RequestTimeout = 1e9
	New(o).Run(context.Background(), "http://127.0.0.1:1/")
	if ok.reserved != large || ok.released != large {
		t.Errorf("reserved %d, released %d; want %d both", ok.reserved, ok.released, large)
	}
}

// TestTrapGuardBounded feeds the trap guard more distinct patterns than it
// tracks: it stays at its caps.
func TestTrapGuardBounded(t *testing.T) {
	g := newTrapGuard()
	for i := range maxTrapKeys + 5000 {
		u, _ := url.Parse(fmt.Sprintf("https://example.com/p%c%d/x?a=%d&b=v%d", 'a'+rune(i%26), i, i, i))
		g.allows(u, u.String(), 1, "")
		g.note(fmt.Sprintf("page-%d", i), TrapLinkFlood, u.String(), 3)
	}
	if n := len(g.values) + len(g.combos) + len(g.spans); n > maxTrapKeys+maxParamsChecked {
		t.Errorf("trap guard tracks %d patterns, cap %d", n, maxTrapKeys)
	}
	if n := len(g.list()); n > maxTraps+1 {
		t.Errorf("%d traps listed, cap %d", n, maxTraps+1)
	}
}
