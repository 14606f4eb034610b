package indexstatus_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/crawler/crawlreport"
	"github.com/seokit/seokit/indexstatus"
	"github.com/seokit/seokit/indexstatus/indexstatustest"
	"github.com/seokit/seokit/seo"
)

// TestMerge: merged index findings count once in the report's groups,
// site findings and severity counts; merging again replaces them, and a
// nil report takes them out, leaving the crawl's own findings as they
// were.
func TestMerge(t *testing.T) {
	crawlGroup := crawler.FindingGroup{ID: "title.missing", Severity: seo.Error, Scope: seo.ScopePage, Count: 3, Pages: 3, URLs: 3, Priority: 50, Examples: []string{"https://example.com/a"}}
	rep := &crawler.SiteReport{
		Findings:      []crawler.FindingGroup{crawlGroup},
		FindingCounts: crawler.FindingCounts{Checks: seo.Counts{Errors: 1}, Findings: seo.Counts{Errors: 3}},
	}
	before, _ := json.Marshal(rep)
	ir := &indexstatus.Report{
		Pages: []indexstatus.Page{
			{URL: "https://example.com/a", Findings: []string{"index.crawled_not_indexed", "index.canonical_mismatch"}},
			{URL: "https://example.com/b", Findings: []string{"index.crawled_not_indexed"}},
			{URL: "https://example.com/c"},
		},
		Findings: []seo.Finding{
			{ID: "index.crawled_not_indexed", Severity: seo.Warning, Count: 2, Priority: 70, URL: "https://example.com/a"},
			{ID: "index.canonical_mismatch", Severity: seo.Warning, Count: 1, Priority: 30, URL: "https://example.com/a"},
		},
	}
	for range 2 {
		indexstatus.Merge(rep, ir)
		if got := rep.FindingCounts; got.Checks != (seo.Counts{Errors: 1, Warnings: 2}) || got.Findings != (seo.Counts{Errors: 3, Warnings: 3}) {
			t.Fatalf("FindingCounts after Merge = %+v", got)
		}
		if len(rep.Findings) != 3 || rep.Findings[0].ID != "index.crawled_not_indexed" || rep.Findings[1].ID != "title.missing" ||
			rep.Findings[0].Pages != 2 || rep.Findings[0].Count != 2 || len(rep.Findings[0].Examples) != 2 || rep.Findings[2].Scope != seo.ScopeSite {
			t.Fatalf("Findings after Merge = %+v", rep.Findings)
		}
		if len(rep.SiteFindings) != 2 {
			t.Fatalf("SiteFindings after Merge = %d, want 2", len(rep.SiteFindings))
		}
	}
	indexstatus.Merge(rep, nil)
	rep.SiteFindings = nil // Merge leaves an empty list where there was none
	if after, _ := json.Marshal(rep); string(after) != string(before) {
		t.Errorf("Merge(nil) left\n%s\nwant\n%s", after, before)
	}
}

// TestMergeHTML: the HTML crawl report of a merged report lists the index
// findings among its finding groups, with the merged severity counts.
func TestMergeHTML(t *testing.T) {
	rep := indexstatustest.Site(20)
	ir := &indexstatus.Report{
		Pages: []indexstatus.Page{{URL: rep.Pages[0].URL, Findings: []string{"index.crawled_not_indexed"}}},
		Findings: []seo.Finding{{ID: "index.crawled_not_indexed", Severity: seo.Warning, Count: 1, Priority: 90, URL: rep.Pages[0].URL,
			Message: "Google crawled the URL and chose not to index it"}},
	}
	render := func() string {
		var b strings.Builder
		if err := crawlreport.WriteHTML(&b, rep); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	if strings.Contains(render(), "index.crawled_not_indexed") {
		t.Fatal("the report names the finding before the merge")
	}
	indexstatus.Merge(rep, ir)
	html := render()
	if n := strings.Count(html, "index.crawled_not_indexed"); n < 2 {
		t.Errorf("the HTML report names index.crawled_not_indexed %d times, want it in the groups and the site findings", n)
	}
}
