package crawler_test

import (
	"context"
	"testing"

	"github.com/seokit/seokit/analyzer"
	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/crawler/crawlertest"
	"github.com/seokit/seokit/seo"
)

// TestCrawlSeverityOverrides: Options.Analyzer.Severity overrides the
// severity of every ID a crawl reports, as it does on a page: site checks,
// the crawl's own checks, link-scope and page IDs, raised or lowered. The
// findings and their group carry the override.
func TestCrawlSeverityOverrides(t *testing.T) {
	site := crawlertest.NewSite(crawlertest.SiteOptions{Articles: 10, Categories: 2, Broken: 1, Redirects: 2, Orphans: 2, NoRobots: true})
	defer site.Close()
	tests := []struct {
		id   string
		kind string // what reports the ID
		sev  seo.Severity
	}{
		{"site.orphan", "site check", seo.Notice},
		{"site.not_in_sitemap", "site check", seo.Error},
		{"site.robots_txt_missing", "crawl check", seo.Error},
		{"site.favicon_missing", "crawl check", seo.Warning},
		{"links.broken_internal", "link scope", seo.Notice},
		{"links.redirect_internal", "link scope", seo.Error},
		{"title.too_short", "page check", seo.Error},
	}
	plain, err := crawler.New(testOptions(crawler.Options{})).Run(context.Background(), site.URL)
	if err != nil {
		t.Fatal(err)
	}
	over := map[string]seo.Severity{}
	for _, tt := range tests {
		g := group(plain, tt.id)
		if g == nil || g.Severity == tt.sev {
			t.Fatalf("the plain crawl has no %s group of another severity than %v: %+v", tt.id, tt.sev, g)
		}
		over[tt.id] = tt.sev
	}
	rep, err := crawler.New(testOptions(crawler.Options{Analyzer: &analyzer.Options{Severity: over}})).Run(context.Background(), site.URL)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			g := group(rep, tt.id)
			if g == nil || g.Severity != tt.sev {
				t.Fatalf("%s group %+v, want severity %v", tt.kind, g, tt.sev)
			}
			for _, f := range append(rep.SiteFindings, rep.LinkFindings...) {
				if f.ID == tt.id && f.Severity != tt.sev {
					t.Errorf("%s finding on %s has severity %v, want %v", tt.kind, f.URL, f.Severity, tt.sev)
				}
			}
		})
	}
	if c := crawler.CountFindings(rep.Findings); c == crawler.CountFindings(plain.Findings) {
		t.Errorf("finding counts by severity %+v unchanged by the overrides", c)
	}
}
