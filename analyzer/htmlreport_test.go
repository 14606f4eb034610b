package analyzer

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/seokit/seokit/internal/htmltable"
	"github.com/seokit/seokit/seo"
	"golang.org/x/net/html"
)

// hostile would end a <script> element, open a comment, break an
// attribute or a JavaScript string if the report embedded it unescaped.
const hostile = "</script><script>alert(1)</script><!-- \u2028\"'"

func analyzedReport(t *testing.T) *Report {
	t.Helper()
	page := `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">
<title>Green tea guide</title><meta name="viewport" content="width=device-width, initial-scale=1">
<meta property="og:title" content="Green tea"><link rel="canonical" href="https://example.com/tea">
<script type="application/ld+json">{"@context":"https://schema.org","@type":"Article","headline":"Tea"}</script>
</head><body><h1>Green tea</h1><h2>Brewing</h2><p>Some words about tea.</p>
<a href="/about">About us</a><a href="https://other.example/x">click here</a><img src="/a.png"><img src="/b.png" alt=""></body></html>`
	rep, err := AnalyzeHTML(context.Background(), "https://example.com/tea", http.Header{"Content-Type": {"text/html"}}, []byte(page), &Options{Depth: Complete})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func TestReportWriteHTML(t *testing.T) {
	t.Parallel()
	hostileReport := func(t *testing.T) *Report {
		r := analyzedReport(t)
		r.URL, r.FinalURL = "https://example.com/?q="+hostile, "https://example.com/final?q="+hostile
		r.Title = &Text{Text: hostile, Length: len(hostile)}
		r.Headings = append(r.Headings, Heading{Level: 3, Text: hostile})
		r.Links.List = append(r.Links.List, LinkInfo{URL: "https://evil.example/" + hostile, Text: hostile})
		r.OpenGraph = map[string]string{"og:title": hostile}
		r.Findings = append(r.Findings, seo.Finding{ID: "title.too_long", Severity: seo.Warning, Message: hostile, Count: 3, Priority: 50,
			Evidence: seo.Evidence{Element: "<title>", Value: hostile}, Examples: []seo.Evidence{{Value: hostile}}})
		return r
	}
	tests := []struct {
		name string
		rep  func(t *testing.T) *Report
		// want are strings the page must contain, dont strings it must not.
		want, dont []string
	}{
		{
			name: "analysed page",
			rep:  analyzedReport,
			want: []string{
				"<title>SEO page report: https://example.com/tea</title>",
				`<div class="num">200</div><div class="lbl">HTTP status</div>`,
				"Page score / 100",
				"Green tea guide <span class=\"muted\">(15 characters",
				`<span class="lvl">h2</span> Brewing`,
				"https://example.com/tea <span class=\"muted\">(html)</span>",
				"<code>Article</code>",
				"<code>og:title</code> Green tea",
				"<code>width=device-width, initial-scale=1</code>",
				`id="rt-findings"`, `id="rt-links"`, `id="rt-images"`,
				`title="https://example.com/about">https://example.com/about</td>`,
				"Strict-Transport-Security</dt><dd><span class=\"muted\">not sent",
			},
			dont: []string{"Mobile comparison", "Lists cut at their caps", "could not be fetched"},
		},
		{
			name: "findings by priority with count and examples",
			rep: func(t *testing.T) *Report {
				r := analyzedReport(t)
				r.Findings = []seo.Finding{
					{ID: "images.alt_missing", Severity: seo.Warning, Message: "images lack alt", Count: 7, Priority: 61,
						Evidence: seo.Evidence{Element: "<img>", Value: "/a.png"}, Examples: []seo.Evidence{{Value: "/c.png", Line: 12}}},
					{ID: "links.broken_internal", Severity: seo.Error, Message: "broken link", Count: 1, Priority: 70},
				}
				return r
			},
			want: []string{
				`<div class="num">1</div><div class="lbl">Errors</div>`,
				`<div class="num">7</div><div class="lbl">Warnings</div>`,
				`<code>links.broken_internal</code></td><td class="k-num" data-label="Count">1</td>`,
				`<code>images.alt_missing</code></td><td class="k-num" data-label="Count">7</td><td class="k-text" data-label="What was found">images lack alt</td><td class="k-text" data-label="Evidence">&lt;img&gt; · /a.png</td>`,
				`<span class="rt-u" title="/c.png · line 12">/c.png · line 12</span>`,
			},
		},
		{
			name: "fetch failed",
			rep: func(*testing.T) *Report {
				return &Report{URL: "https://down.example/", Error: "dial tcp: connection refused"}
			},
			want: []string{`<div class="lbl">No response</div>`, "The page could not be fetched: dial tcp: connection refused", "No findings.", "No links."},
		},
		{
			name: "mobile comparison and truncation",
			rep: func(t *testing.T) *Report {
				r := analyzedReport(t)
				r.Mobile = &MobileSummary{FinalURL: "https://m.example.com/tea", Status: 200, Title: "Tea (mobile)", Indexable: false}
				r.Truncated = seo.Truncated{"links": {Total: 5000, Omitted: 4000}}
				return r
			},
			want: []string{"Mobile comparison", `<td class="diff">https://m.example.com/tea</td>`, "<td>Tea (mobile)</td>",
				"Lists cut at their caps: <code>links</code> 1000 of 5000 shown."},
		},
		{
			name: "hostile page text stays text",
			rep:  hostileReport,
			want: []string{"&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;!-- \u2028&#34;&#39;"},
			dont: []string{"</script><script>alert", "<!-- "},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := tt.rep(t).WriteHTML(&buf); err != nil {
				t.Fatal(err)
			}
			out := buf.String()
			for _, s := range tt.want {
				if !strings.Contains(out, s) {
					t.Errorf("missing %q", s)
				}
			}
			for _, s := range tt.dont {
				if strings.Contains(out, s) {
					t.Errorf("unexpected %q", s)
				}
			}
			checkSelfContained(t, out)
		})
	}
}

// checkSelfContained checks that out loads nothing, runs only the table
// script its policy allows, and that its data block is JSON with no raw
// line separator (which would end a JavaScript string in old engines).
func checkSelfContained(t *testing.T, out string) {
	t.Helper()
	if n := strings.Count(out, "<script"); n != 2 {
		t.Errorf("%d <script elements, want the data block and the table script", n)
	}
	if n := strings.Count(out, "</script>"); n != 2 {
		t.Errorf("%d </script> tags, want 2", n)
	}
	if !strings.Contains(out, "<script>"+htmltable.JS+"</script>") {
		t.Error("table script not inlined verbatim")
	}
	if !strings.Contains(out, strings.ReplaceAll(htmltable.ScriptHash, "'", "&#39;")) {
		t.Error("policy does not name the script's hash")
	}
	z := html.NewTokenizer(strings.NewReader(out))
	for tt := z.Next(); tt != html.ErrorToken; tt = z.Next() {
		tok := z.Token()
		for _, a := range tok.Attr {
			// A link to a section of the page ("#links") loads nothing.
			if (a.Key == "src" || a.Key == "href") && !(tok.Data == "a" && strings.HasPrefix(a.Val, "#")) {
				t.Errorf("<%s %s=%q> refers to a resource", tok.Data, a.Key, a.Val)
			}
		}
	}
	if m := regexp.MustCompile(`url\(|@import`).FindString(out); m != "" {
		t.Errorf("the report refers to a resource: %q", m)
	}
	start := strings.Index(out, `<script type="application/json" id="rt-data">`)
	end := strings.Index(out[start:], "</script>")
	data := out[start+len(`<script type="application/json" id="rt-data">`) : start+end]
	if strings.ContainsAny(data, "\u2028\u2029<>") {
		t.Error("data block holds a raw line separator or angle bracket")
	}
	var rows map[string][]map[string]any
	if err := json.Unmarshal([]byte(data), &rows); err != nil {
		t.Fatalf("data block is not JSON: %v", err)
	}
	for _, name := range []string{"findings", "links", "images"} {
		if _, ok := rows[name]; !ok {
			t.Errorf("data block has no %q rows", name)
		}
	}
}

func TestReportWriteHTMLHostileRoundTrip(t *testing.T) {
	t.Parallel()
	r := analyzedReport(t)
	r.Links.List = []LinkInfo{{URL: "https://evil.example/" + hostile, Text: hostile}}
	var buf bytes.Buffer
	if err := r.WriteHTML(&buf); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	start := strings.Index(out, `id="rt-data">`) + len(`id="rt-data">`)
	var rows map[string][]map[string]any
	if err := json.Unmarshal([]byte(out[start:start+strings.Index(out[start:], "</script>")]), &rows); err != nil {
		t.Fatal(err)
	}
	if got := rows["links"][0]["text"]; got != hostile {
		t.Errorf("link text in the data block = %q, want %q", got, hostile)
	}
}
