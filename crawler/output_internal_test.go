package crawler

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"html"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/seokit/seokit/internal/htmltable"
)

func sampleReport(t *testing.T) *SiteReport {
	t.Helper()
	chained, chainLinks := chain("/deep", 6)
	s := testSite{
		pages: append(chained,
			pg("/xss", func(p *PageSummary) {
				p.Title = "<script>alert(1)</script>"
				p.Findings = []string{"title.too_short"}
			}),
			pg("/gone", func(p *PageSummary) { p.Status, p.Indexable = 404, false }),
			pg("/deep", func(p *PageSummary) { p.Depth = ptr(6); p.Title = "=HYPERLINK(\"http://evil.test\")" }),
			pg("/dup1", func(p *PageSummary) { p.TextHash = 99 }),
			pg("/dup2", func(p *PageSummary) { p.TextHash = 99 }),
		),
		edges:   chainLinks,
		linked:  []string{"/xss", "/gone", "/chain1", "/dup1", "/dup2"},
		sitemap: []string{"/", "/xss"},
	}
	rep := s.build(t)
	rep.StartedAt = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	rep.Crawl.Duration = 3 * time.Second
	rep.Sitemaps = []SitemapSummary{{URL: siteOrigin + "/sitemap.xml", Kind: "urlset", Status: 200, URLs: 2}}
	rep.Robots = RobotsSummary{URL: siteOrigin + "/robots.txt", Status: 200}
	return rep
}

// hostileTitle would end a <script> element, open a comment or break a
// JavaScript string if the report embedded it unescaped.
const hostileTitle = "</script><script>alert(1)</script><!-- \u2028'\""

func TestWriteHTML(t *testing.T) {
	rep := sampleReport(t)
	rep.Pages = append(rep.Pages, pg("/hostile", func(p *PageSummary) { p.Title = hostileTitle; p.Depth = nil }))
	var buf bytes.Buffer
	if err := writeHTML(&buf, rep); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if i := strings.Index(out, `">0x`); i >= 0 || strings.Contains(out, "&lt;nil&gt;") {
		t.Errorf("the report shows a pointer instead of a value: %q", out[max(i, 0):min(max(i, 0)+80, len(out))])
	}

	t.Run("crawled text is escaped", func(t *testing.T) {
		for _, raw := range []string{"<script>alert(1)</script>", "</script><script>", "<!-- "} {
			if strings.Contains(out, raw) {
				t.Errorf("crawled text %q written unescaped", raw)
			}
		}
		if !strings.Contains(out, "&lt;script&gt;alert(1)&lt;/script&gt;") {
			t.Error("escaped page title not found in the first page of rows")
		}
	})
	t.Run("one inline script allowed by the policy", func(t *testing.T) {
		if n := strings.Count(out, "<script"); n != 2 {
			t.Fatalf("%d script elements, want the data block and the table script", n)
		}
		if !strings.Contains(out, "<script>"+htmltable.JS+"</script>") {
			t.Error("table script not inlined verbatim")
		}
		sum := sha256.Sum256([]byte(htmltable.JS))
		hash := "sha256-" + base64.StdEncoding.EncodeToString(sum[:])
		if !strings.Contains(out, `<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;; script-src &#39;`+hash+`&#39;`) {
			t.Error("the report's policy does not allow exactly its script")
		}
	})
	t.Run("self-contained", func(t *testing.T) {
		remote := regexp.MustCompile(`(?i)(src|href|action|xlink:href)\s*=|<script[^>]+src|<link|<iframe|@import|url\(`)
		// Links to the report's own sections ("#pages") load nothing.
		local := regexp.MustCompile(`<a href="#[a-z-]+">`)
		if m := remote.FindString(local.ReplaceAllString(out, "")); m != "" {
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
		for _, f := range append(rep.SiteFindings, rep.LinkFindings...) {
			data = append(data, f.URL)
			data = append(data, f.Evidence.URLs...)
		}
		data = append(data, rep.StartURL, rep.Robots.URL)
		for _, s := range rep.Sitemaps {
			data = append(data, s.URL)
		}
		slices.SortFunc(data, func(a, b string) int { return len(b) - len(a) })
		for _, d := range data {
			if d != "" {
				j, _ := json.Marshal(d)
				rest = strings.ReplaceAll(rest, string(j[1:len(j)-1]), "")
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
	data := reportData(t, out)
	t.Run("data block", func(t *testing.T) {
		if len(data["pages"]) != len(rep.Pages) || len(data["findings"]) != len(rep.Findings) ||
			len(data["details"]) != len(rep.SiteFindings)+len(rep.LinkFindings) {
			t.Fatalf("data has %d pages, %d groups, %d details; want %d, %d, %d", len(data["pages"]), len(data["findings"]),
				len(data["details"]), len(rep.Pages), len(rep.Findings), len(rep.SiteFindings)+len(rep.LinkFindings))
		}
		var hostile map[string]any
		for _, p := range data["pages"] {
			if p["title"] == hostileTitle {
				hostile = p
			}
		}
		if hostile == nil {
			t.Fatal("hostile title does not survive the round trip through the data block")
		}
		if d, ok := hostile["depth"]; !ok || d != nil {
			t.Errorf("depth of a page never linked is %v, want null (shown as not linked)", d)
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
			`<ol class="top" aria-label="Top findings">`,
			`data-null="not linked"`,
		} {
			if !strings.Contains(out, want) {
				t.Errorf("report lacks %q", want)
			}
		}
	})
	t.Run("tables", func(t *testing.T) {
		for _, id := range []string{`id="rt-findings"`, `id="rt-details"`, `id="rt-pages"`} {
			if !strings.Contains(out, id) {
				t.Errorf("report lacks table %s", id)
			}
		}
		for _, id := range []string{"site.duplicate_content", "site.deep_page", "title.too_short"} {
			if !strings.Contains(out, `<option value="`+id+`">`) {
				t.Errorf("finding ID filter lacks %s", id)
			}
		}
		if rows := strings.Count(out, `<td class="k-url" data-label="URL"`); rows != len(rep.Pages)+len(rep.SiteFindings)+len(rep.LinkFindings) {
			t.Errorf("%d URL cells in the first pages of rows, want %d", rows, len(rep.Pages)+len(rep.SiteFindings)+len(rep.LinkFindings))
		}
	})
}

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

func TestWriteCSV(t *testing.T) {
	rep := sampleReport(t)
	var buf bytes.Buffer
	if err := writeCSV(&buf, rep); err != nil {
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
