package crawlreport_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/crawler/crawlreport"
	"github.com/seokit/seokit/internal/htmltable"
)

const siteOrigin = "https://example.com"

func ptr[T any](v T) *T { return &v }

// reportData returns the rows embedded in an HTML report.
func reportData(t *testing.T, page string) map[string][]map[string]any {
	t.Helper()
	const open = `<script type="application/json" id="rt-data">`
	i := strings.Index(page, open)
	j := strings.Index(page[i+1:], "</script>")
	if i < 0 || j < 0 {
		t.Fatal("no data block")
	}
	var data map[string][]map[string]any
	if err := json.Unmarshal([]byte(page[i+len(open):i+1+j]), &data); err != nil {
		t.Fatalf("data block: %v", err)
	}
	return data
}

// TestWriteHTMLListsEveryPage checks that a large report lists every page in
// its data, shows the first page of rows, lowest scores first, and stays a
// reasonable size.
func TestWriteHTMLListsEveryPage(t *testing.T) {
	const n = 10_010
	rep := &crawler.SiteReport{Domain: "example.com", StatusCodes: map[int]int{200: n}}
	for i := range n {
		rep.Pages = append(rep.Pages, crawler.PageSummary{URL: fmt.Sprintf("%s/p%d", siteOrigin, i), Status: 200, Score: ptr(100 - i%50), Title: fmt.Sprint("Page ", i)})
	}
	rep.Pages[n-5].Score = ptr(1) // lowest score: first row
	var buf bytes.Buffer
	if err := crawlreport.WriteHTML(&buf, rep); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if rows := strings.Count(out, `<td class="k-url" data-label="URL"`); rows != htmltable.DefaultPageSize {
		t.Errorf("first page has %d rows, want %d", rows, htmltable.DefaultPageSize)
	}
	if i := strings.Index(out, `<td class="k-url" data-label="URL"`); i < 0 || !strings.HasPrefix(out[i:], fmt.Sprintf(`<td class="k-url" data-label="URL" title="%s/p%d"`, siteOrigin, n-5)) {
		t.Error("lowest-scoring page is not the first row")
	}
	if got := len(reportData(t, out)["pages"]); got != n {
		t.Errorf("data lists %d pages, want %d", got, n)
	}
	if !strings.Contains(out, fmt.Sprintf("1–100 of %d", n)) {
		t.Error("no count of the rows")
	}
	t.Logf("HTML report of %d pages: %d bytes", n, buf.Len())
}

// TestReportsShowTruncation checks that the HTML and CSV reports say which
// lists of a report were cut, with their totals.
func TestReportsShowTruncation(t *testing.T) {
	rep := &crawler.SiteReport{Domain: "example.com", StatusCodes: map[int]int{200: 2}, Graph: crawler.GraphStats{OrphanCheck: crawler.OrphanCheckNotDone}}
	rep.Pages = []crawler.PageSummary{{URL: siteOrigin + "/a", Status: 200}, {URL: siteOrigin + "/b", Status: 200}}
	rep.Truncated.Note("pages", 25000, 2)
	rep.Truncated.Note("siteFindings.site.deep_page", 3000, 1000)
	var buf bytes.Buffer
	if err := crawlreport.WriteHTML(&buf, rep); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"2 of 25000 pages listed", "<code>pages</code> 2 of 25000 shown", "<code>siteFindings.site.deep_page</code> 1000 of 3000 shown", "not checked: partial crawl"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("HTML report lacks %q", want)
		}
	}
	buf.Reset()
	if err := crawlreport.WriteCSV(&buf, rep); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "# 2 of 25000 pages shown,") || len(lines) != 4 {
		t.Errorf("CSV has %d lines ending %q, want 4 ending with the cut note", len(lines), last)
	}
}
