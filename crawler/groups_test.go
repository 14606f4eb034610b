package crawler

import (
	"net/url"
	"testing"

	"github.com/seokit/seokit/analyzer"
	"github.com/seokit/seokit/seo"
)

// TestFindingGroupsTemplateAndPriority checks that the groups sum the
// occurrences of each page, mark the findings every analysed page shares
// as template issues, and are sorted by priority with the minor notices
// last.
func TestFindingGroupsTemplateAndPriority(t *testing.T) {
	start, _ := url.Parse(siteOrigin + "/")
	b := newSiteBuilder(start, nil)
	template := []string{"images.alt_missing", "security.csp_missing"}
	for _, p := range []PageSummary{
		pg("/", func(p *PageSummary) { p.Depth = ptr(0); p.Findings = template }),
		pg("/a", func(p *PageSummary) {
			p.Findings = template
			p.FindingCounts = map[string]int{"images.alt_missing": 3}
		}),
		pg("/b", func(p *PageSummary) {
			p.Findings = []string{"images.alt_missing", "security.csp_missing", "title.missing"}
		}),
		pg("/c", func(p *PageSummary) {
			p.Findings = []string{"images.alt_missing", "security.csp_missing", "social.og_title_missing"}
			p.FindingCounts = map[string]int{"images.alt_missing": 2}
		}),
		// Not an analysed page: the template rule does not need it.
		pg("/gone", func(p *PageSummary) { p.Status, p.Indexable = 404, false }),
	} {
		var es []Edge
		if p.URL == siteOrigin+"/" {
			es = []Edge{link("/", "/a"), link("/", "/b"), link("/", "/c"), link("/", "/gone")}
		}
		b.addPage(p, es)
	}
	rep := b.build(&crawlFacts{Domain: "example.com", StartURL: siteOrigin + "/"})
	groups := map[string]FindingGroup{}
	for k, g := range rep.Findings {
		groups[g.ID] = g
		if k > 0 && rep.Findings[k-1].Priority < g.Priority {
			t.Errorf("%s (priority %d) after %s (%d)", g.ID, g.Priority, rep.Findings[k-1].ID, rep.Findings[k-1].Priority)
		}
	}
	for _, tt := range []struct {
		id           string
		count, pages int
		template     bool
		priority     int
		severity     seo.Severity
	}{
		{id: "images.alt_missing", count: 3 + 1 + 1 + 2, pages: 4, template: true, priority: seo.Priority(seo.Warning, 1, false), severity: seo.Warning},
		{id: "security.csp_missing", count: 4, pages: 4, template: true, priority: seo.Priority(seo.Notice, 1, true), severity: seo.Notice},
		{id: "title.missing", count: 1, pages: 1, priority: seo.Priority(seo.Error, 0.25, false), severity: seo.Error},
		{id: "social.og_title_missing", count: 1, pages: 1, priority: seo.Priority(seo.Notice, 0.25, true), severity: seo.Notice},
	} {
		g, ok := groups[tt.id]
		if !ok {
			t.Errorf("no group %s in %+v", tt.id, rep.Findings)
			continue
		}
		if len(analyzer.Catalog()) > 0 && g.Severity != tt.severity {
			t.Errorf("%s severity %v, want %v", tt.id, g.Severity, tt.severity)
		}
		if g.Count != tt.count || g.Pages != tt.pages || g.Template != tt.template || g.Priority != tt.priority {
			t.Errorf("%s = count %d, pages %d, template %v, priority %d; want %d, %d, %v, %d",
				tt.id, g.Count, g.Pages, g.Template, g.Priority, tt.count, tt.pages, tt.template, tt.priority)
		}
	}
	last := rep.Findings[len(rep.Findings)-1].ID
	if last != "security.csp_missing" && last != "social.og_title_missing" {
		t.Errorf("last group %s, want a minor notice; order %+v", last, rep.Findings)
	}
	if groups["title.missing"].Priority <= groups["images.alt_missing"].Priority {
		t.Error("an error on one page must outrank a warning on every page")
	}
	for _, p := range rep.Pages {
		if p.URL == siteOrigin+"/a" && p.FindingCounts["images.alt_missing"] != 3 {
			t.Errorf("/a lost its finding counts: %+v", p.FindingCounts)
		}
	}
}

// TestFindingGroupsSinglePageNoTemplate checks that one analysed page makes
// no template issue.
func TestFindingGroupsSinglePageNoTemplate(t *testing.T) {
	start, _ := url.Parse(siteOrigin + "/")
	b := newSiteBuilder(start, nil)
	b.addPage(pg("/", func(p *PageSummary) { p.Depth = ptr(0); p.Findings = []string{"title.missing"} }), nil)
	rep := b.build(nil)
	if len(rep.Findings) != 1 || rep.Findings[0].Template || rep.Findings[0].Priority != 100 {
		t.Errorf("groups %+v, want title.missing, not a template, priority 100", rep.Findings)
	}
}

// TestSummarizeFindingCounts checks that a page summary keeps the
// occurrences of the IDs reported more than once.
func TestSummarizeFindingCounts(t *testing.T) {
	rep := &analyzer.Report{URL: siteOrigin + "/", Status: 200, IsHTML: true,
		Findings: []seo.Finding{{ID: "b.x", Count: 3}, {ID: "a.y", Count: 1}, {ID: "c.z"}}}
	s := summarize(rep, 0)
	if len(s.FindingCounts) != 1 || s.FindingCounts["b.x"] != 3 {
		t.Errorf("FindingCounts = %v, want b.x: 3 only", s.FindingCounts)
	}
}

// TestFindingGroupsCountURLsAndGroups: a check that reports each group of
// duplicate pages as one finding counts the URLs affected and the groups
// separately, and lists each group's members; a check that reports pages
// one by one has as many URLs as pages and no groups.
func TestFindingGroupsCountURLsAndGroups(t *testing.T) {
	cases := []struct {
		name   string
		titles map[string]string // path -> title; others keep their own
		urls   int
		groups int
	}{
		{"two groups of two", map[string]string{"/a": "Shoes", "/b": "Shoes", "/c": "Boots", "/d": "Boots"}, 4, 2},
		{"one group of four", map[string]string{"/a": "Shoes", "/b": "Shoes", "/c": "Shoes", "/d": "Shoes"}, 4, 1},
		{"groups of three and two", map[string]string{"/a": "Shoes", "/b": "Shoes", "/c": "Shoes", "/d": "Boots", "/e": "Boots"}, 5, 2},
		{"no duplicates", nil, 0, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			start, _ := url.Parse(siteOrigin + "/")
			b := newSiteBuilder(start, nil)
			paths := []string{"/a", "/b", "/c", "/d", "/e"}
			var es []Edge
			for _, p := range paths {
				es = append(es, link("/", p))
			}
			b.addPage(pg("/", func(p *PageSummary) { p.Depth = ptr(0) }), es)
			for _, path := range paths {
				b.addPage(pg(path, func(p *PageSummary) {
					if t, ok := c.titles[path]; ok {
						p.Title = t
					}
					p.Findings = []string{"images.alt_missing"}
				}), []Edge{link(path, "/")})
			}
			rep := b.build(&crawlFacts{Domain: "example.com", StartURL: siteOrigin + "/"})
			var dup, alt *FindingGroup
			for k := range rep.Findings {
				switch rep.Findings[k].ID {
				case "site.duplicate_title":
					dup = &rep.Findings[k]
				case "images.alt_missing":
					alt = &rep.Findings[k]
				}
			}
			if alt == nil || alt.URLs != 5 || alt.Pages != 5 || alt.Groups != 0 || alt.Members != nil {
				t.Errorf("page finding group %+v, want 5 URLs, no groups", alt)
			}
			if c.groups == 0 {
				if dup != nil {
					t.Fatalf("duplicate titles %+v", dup)
				}
				return
			}
			if dup == nil {
				t.Fatal("no site.duplicate_title")
			}
			members := 0
			for _, m := range dup.Members {
				members += len(m)
			}
			if dup.URLs != c.urls || dup.Groups != c.groups || dup.Count != c.groups || len(dup.Members) != c.groups || members != c.urls {
				t.Errorf("site.duplicate_title: count %d, %d URLs in %d groups, members %v; want %d URLs in %d groups",
					dup.Count, dup.URLs, dup.Groups, dup.Members, c.urls, c.groups)
			}
			t.Logf("%s: site.duplicate_title %d URLs in %d groups %v", c.name, dup.URLs, dup.Groups, dup.Members)
		})
	}
}
