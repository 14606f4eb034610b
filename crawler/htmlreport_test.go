package crawler

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"html"
	"regexp"
	"strings"
	"testing"
	"time"
)

func sampleReport(t *testing.T) *SiteReport {
	t.Helper()
	s := testSite{
		pages: []PageSummary{
			pg("/xss", func(p *PageSummary) {
				p.Title = "<script>alert(1)</script>"
				p.Findings = []string{"title.too_short"}
			}),
			pg("/gone", func(p *PageSummary) { p.Status, p.Indexable = 404, false }),
			pg("/deep", func(p *PageSummary) { p.Depth = ptr(6); p.Title = "=HYPERLINK(\"http://evil.test\")" }),
			pg("/dup1", func(p *PageSummary) { p.TextHash = 99 }),
			pg("/dup2", func(p *PageSummary) { p.TextHash = 99 }),
		},
		linked:  []string{"/xss", "/gone", "/deep", "/dup1", "/dup2"},
		sitemap: []string{"/", "/xss"},
	}
	rep := s.build(t)
	rep.StartedAt = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	rep.Crawl.Duration = 3 * time.Second
	rep.Sitemaps = []SitemapSummary{{URL: siteOrigin + "/sitemap.xml", Kind: "urlset", Status: 200, URLs: 2}}
	rep.Robots = RobotsSummary{URL: siteOrigin + "/robots.txt", Status: 200}
	return rep
}

func TestWriteHTML(t *testing.T) {
	rep := sampleReport(t)
	var buf bytes.Buffer
	if err := rep.WriteHTML(&buf); err != nil {
		t.Fatal(err)
	}
	out := buf.String()

	t.Run("crawled text is escaped", func(t *testing.T) {
		if strings.Contains(out, "<script>alert(1)</script>") {
			t.Error("page title written unescaped")
		}
		if !strings.Contains(out, "&lt;script&gt;alert(1)&lt;/script&gt;") {
			t.Error("escaped page title not found")
		}
	})
	t.Run("self-contained", func(t *testing.T) {
		remote := regexp.MustCompile(`(?i)(src|href|action|xlink:href)\s*=|<script|<link|<iframe|@import|url\(`)
		if m := remote.FindString(out); m != "" {
			t.Errorf("report references external content: %q", m)
		}
		// Remove every URL that is page data; no other absolute URL may remain.
		rest := out
		var data []string
		for _, p := range rep.Pages {
			data = append(data, p.URL, p.FinalURL, p.Title)
		}
		for _, g := range rep.Findings {
			data = append(data, g.Examples...)
		}
		data = append(data, rep.StartURL, rep.Robots.URL)
		for _, s := range rep.Sitemaps {
			data = append(data, s.URL)
		}
		for _, d := range data {
			if d != "" {
				rest = strings.ReplaceAll(rest, html.EscapeString(d), "")
				rest = strings.ReplaceAll(rest, d, "")
			}
		}
		for _, scheme := range []string{"http://", "https://", "http:&#47;&#47;", "https:&#47;&#47;"} {
			if i := strings.Index(rest, scheme); i >= 0 {
				t.Errorf("absolute URL outside page data: %q", rest[max(0, i-40):min(len(rest), i+40)])
			}
		}
	})
	t.Run("charts and tiles", func(t *testing.T) {
		if n := strings.Count(out, "<svg"); n != 3 {
			t.Errorf("got %d charts, want 3", n)
		}
		for _, want := range []string{
			"Pages by status code", "Pages by click depth", "Findings by severity",
			">404</text>", ">6</text>", // status code and depth bars
			fmt.Sprintf(`<div class="num">%d</div><div class="lbl">Pages</div>`, len(rep.Pages)),
			fmt.Sprintf(`<div class="num">%d</div><div class="lbl">Site score`, rep.Score.Value),
		} {
			if !strings.Contains(out, want) {
				t.Errorf("report lacks %q", want)
			}
		}
	})
	t.Run("findings grouped by severity", func(t *testing.T) {
		w := strings.Index(out, `<span class="badge warning">`)
		n := strings.Index(out, `<span class="badge notice">`)
		if w < 0 || n < 0 || w > n {
			t.Fatalf("severity sections missing or out of order (warning at %d, notice at %d)", w, n)
		}
		for _, id := range []string{"site.duplicate_content", "site.deep_page", "title.too_short"} {
			if !strings.Contains(out, "<code>"+id+"</code>") {
				t.Errorf("findings table lacks %s", id)
			}
		}
		dc := strings.Index(out, "<code>site.duplicate_content</code>")
		if dc < w || dc > n {
			t.Error("site.duplicate_content (warning) is not in the warning section")
		}
	})
	t.Run("details", func(t *testing.T) {
		if len(rep.SiteFindings) > 0 && strings.Count(out, `<td class="url finding-url">`) != len(rep.SiteFindings)+len(rep.LinkFindings) {
			t.Errorf("details table has %d rows, want %d", strings.Count(out, `<td class="url finding-url">`), len(rep.SiteFindings)+len(rep.LinkFindings))
		}
	})
	t.Run("page table", func(t *testing.T) {
		rows := strings.Count(out, `<td class="url">`)
		if rows != len(rep.Pages) {
			t.Errorf("page table has %d rows, want %d", rows, len(rep.Pages))
		}
	})
}

func TestWriteHTMLCapsPageTable(t *testing.T) {
	rep := &SiteReport{Domain: "example.com", StatusCodes: map[int]int{200: MaxHTMLReportPages + 10}}
	for i := range MaxHTMLReportPages + 10 {
		rep.Pages = append(rep.Pages, PageSummary{URL: fmt.Sprintf("%s/p%d", siteOrigin, i), Status: 200, Score: ptr(100 - i%50)})
	}
	rep.Pages[MaxHTMLReportPages+5].Score = ptr(1) // must be kept: lowest score
	var buf bytes.Buffer
	if err := rep.WriteHTML(&buf); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if rows := strings.Count(out, `<td class="url">`); rows != MaxHTMLReportPages {
		t.Errorf("page table has %d rows, want %d", rows, MaxHTMLReportPages)
	}
	if !strings.Contains(out, fmt.Sprintf("%s/p%d<", siteOrigin, MaxHTMLReportPages+5)) {
		t.Error("lowest-scoring page dropped from the capped table")
	}
	if want := fmt.Sprintf("%d of %d pages shown, the lowest-scoring", MaxHTMLReportPages, MaxHTMLReportPages+10); !strings.Contains(out, want) {
		t.Errorf("no note %q that the table is capped", want)
	}
}

// TestReportsShowTruncation checks that the HTML and CSV reports say which
// lists of a report were cut, with their totals.
func TestReportsShowTruncation(t *testing.T) {
	rep := &SiteReport{Domain: "example.com", StatusCodes: map[int]int{200: 2}, Graph: GraphStats{OrphanCheck: OrphanCheckNotDone}}
	rep.Pages = []PageSummary{{URL: siteOrigin + "/a", Status: 200}, {URL: siteOrigin + "/b", Status: 200}}
	rep.Truncated.Note("pages", 25000, 2)
	rep.Truncated.Note("siteFindings.site.deep_page", 3000, 1000)
	var buf bytes.Buffer
	if err := rep.WriteHTML(&buf); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"2 of 25000 pages shown", "<code>pages</code> 2 of 25000 shown", "<code>siteFindings.site.deep_page</code> 1000 of 3000 shown", "not checked: partial crawl"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("HTML report lacks %q", want)
		}
	}
	buf.Reset()
	if err := rep.WriteCSV(&buf); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "# 2 of 25000 pages shown,") || len(lines) != 4 {
		t.Errorf("CSV has %d lines ending %q, want 4 ending with the cut note", len(lines), last)
	}
}

func TestWriteCSV(t *testing.T) {
	rep := sampleReport(t)
	var buf bytes.Buffer
	if err := rep.WriteCSV(&buf); err != nil {
		t.Fatal(err)
	}
	records, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatalf("output is not valid CSV: %v", err)
	}
	if len(records) != len(rep.Pages)+1 {
		t.Fatalf("got %d records, want header + %d pages", len(records), len(rep.Pages))
	}
	col := map[string]int{}
	for i, h := range records[0] {
		col[h] = i
	}
	for _, h := range []string{"url", "status", "depth", "inlinks", "link_score", "title", "score"} {
		if _, ok := col[h]; !ok {
			t.Errorf("header lacks %q: %v", h, records[0])
		}
	}
	byURL := map[string][]string{}
	for _, r := range records[1:] {
		byURL[r[col["url"]]] = r
	}
	tests := []struct {
		name, path, column, want string
	}{
		{"status", "/gone", "status", "404"},
		{"depth", "/deep", "depth", "6"},
		{"title kept verbatim", "/xss", "title", "<script>alert(1)</script>"},
		{"formula defused", "/deep", "title", `'=HYPERLINK("http://evil.test")`},
		{"findings", "/xss", "findings", "title.too_short"},
		{"inlinks", "/gone", "inlinks", "1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			row, ok := byURL[siteOrigin+tc.path]
			if !ok {
				t.Fatalf("no row for %s", tc.path)
			}
			if got := row[col[tc.column]]; got != tc.want {
				t.Errorf("%s = %q, want %q", tc.column, got, tc.want)
			}
		})
	}
}
