package compare_test

import (
	"slices"
	"testing"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/crawler/compare"
	"github.com/seokit/seokit/seo"
)

// TestCompareGoneWithPage: a finding whose pages now fail or were not
// crawled is "gone", not "fixed"; one that left a page still answering is
// fixed there, and gone on the others.
func TestCompareGoneWithPage(t *testing.T) {
	pg := func(path string, status int, findings ...string) crawler.PageSummary {
		return crawler.PageSummary{URL: "https://example.com" + path, Status: status, IsHTML: true, Findings: findings}
	}
	group := func(id string, pages int) crawler.FindingGroup {
		return crawler.FindingGroup{ID: id, Severity: seo.Warning, Scope: seo.ScopePage, Count: pages, Pages: pages, URLs: pages}
	}
	old := &crawler.SiteReport{Domain: "example.com", StartURL: "https://example.com/",
		Pages: []crawler.PageSummary{pg("/", 200), pg("/a", 200, "title.missing"), pg("/b", 200, "title.missing"),
			pg("/c", 200, "images.alt_missing"), pg("/d", 200, "description.missing"), pg("/e", 200, "headings.h1_missing")},
		Findings: []crawler.FindingGroup{group("title.missing", 2), group("images.alt_missing", 1), group("description.missing", 1), group("headings.h1_missing", 1)}}
	new := &crawler.SiteReport{Domain: "example.com", StartURL: "https://example.com/",
		Pages:    []crawler.PageSummary{pg("/", 200), pg("/a", 404), pg("/b", 200), pg("/d", 200), pg("/e", 0)},
		Findings: []crawler.FindingGroup{}}
	d := compare.Reports(old, new, nil)
	cases := []struct {
		id, status  string
		fixed, gone []string
	}{
		{"title.missing", compare.FindingFixed, []string{"/b"}, []string{"/a"}}, // /a now 404, /b fixed
		{"images.alt_missing", compare.FindingGone, nil, []string{"/c"}},        // /c not crawled
		{"description.missing", compare.FindingFixed, []string{"/d"}, nil},      // fixed
		{"headings.h1_missing", compare.FindingGone, nil, []string{"/e"}},       // /e gives no response
	}
	byID := map[string]compare.FindingChange{}
	for _, f := range d.Findings {
		byID[f.ID] = f
	}
	abs := func(paths []string) []string {
		out := []string{}
		for _, p := range paths {
			out = append(out, "https://example.com"+p)
		}
		return out
	}
	for _, c := range cases {
		f := byID[c.id]
		if f.Status != c.status || !slices.Equal(f.FixedOn.URLs, abs(c.fixed)) || !slices.Equal(f.GoneOn.URLs, abs(c.gone)) {
			t.Errorf("%s: %s, fixed on %v, gone on %v; want %s, %v, %v", c.id, f.Status, f.FixedOn.URLs, f.GoneOn.URLs, c.status, c.fixed, c.gone)
		}
	}
}
