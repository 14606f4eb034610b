package crawlreport_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/crawler/crawlreport"
)

// TestWriteHTMLAccessibility: the site report's accessibility section
// lists the violations by rule and template, marks the shared ones, and
// says how many pages were not audited and why.
func TestWriteHTMLAccessibility(t *testing.T) {
	rep := &crawler.SiteReport{Domain: "example.com", A11y: &crawler.A11ySummary{Standard: "automated subset of WCAG", Checked: 4, NotChecked: 1,
		NotCheckedReasons: map[string]int{"not checked: axe-core not found": 1}, PagesWithViolations: 4, Score: ptr(83),
		Groups: []crawler.A11yGroup{{Rule: "color-contrast", CheckID: "a11y.color-contrast", Impact: "serious", WCAG: []string{"1.4.3"}, Level: "AA",
			Template: "aaaaaaaaaaaa", Pages: 4, TemplatePages: 4, Shared: true, Nodes: 8, Target: "footer > p", Examples: []string{siteOrigin + "/a"}}},
		GroupsOmitted: 2}}
	var b bytes.Buffer
	if err := crawlreport.WriteHTML(&b, rep); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{`<h2 id="accessibility">Accessibility</h2>`, "automated subset of WCAG", "4 pages audited, 1 not (1 not checked: axe-core not found; )",
		"83/100", "<code>color-contrast</code>", "1.4.3 AA", "4 of 4 <strong>shared</strong>", "footer &gt; p", "… 2 more rule and template groups"} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q", want)
		}
	}
	b.Reset()
	if err := crawlreport.WriteHTML(&b, &crawler.SiteReport{Domain: "example.com"}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), `id="accessibility"`) {
		t.Error("an accessibility section for a crawl without the audit")
	}
}
