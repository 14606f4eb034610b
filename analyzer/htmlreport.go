package analyzer

import (
	"cmp"
	_ "embed"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/seokit/seokit/internal/htmltable"
	"github.com/seokit/seokit/seo"
)

//go:embed report.html.tmpl
var reportHTML string

var reportTemplate = template.Must(template.New("report").Funcs(template.FuncMap{
	"when":  htmltable.When,
	"ms":    func(d time.Duration) int64 { return d.Milliseconds() },
	"bytes": htmltable.ByteSize,
	"yesno": func(b bool) string {
		if b {
			return "yes"
		}
		return "no"
	},
	"indent": func(level int) int { return max(level-1, 0) },
	// png is a PNG as a data: URI, which the report's policy allows.
	"png": func(b []byte) template.URL {
		return template.URL("data:image/png;base64," + base64.StdEncoding.EncodeToString(b))
	},
	// metric formats a lab measurement; nil was not measured.
	"metric": func(v *float64, unit string) string {
		if v == nil {
			return "not measured"
		}
		return strconv.FormatFloat(*v, 'f', -1, 64) + unit
	},
	// band reports whether a web.dev band is worse than good.
	"band": func(b string) bool { return b == BandNeedsImprovement || b == BandPoor },
	// wcag names an accessibility issue's success criteria and level.
	"wcag": func(v A11yIssue) string { return a11yCriteria(v.WCAG, v.Level) },
}).Parse(reportHTML))

// HTMLReportPolicy is the Content-Security-Policy of the HTML page report,
// which the report also declares in a <meta> element: its own inline
// script and styles only, no other resource. It is the policy of the
// crawler's site report; a server that serves the report adds the
// directives a <meta> policy cannot carry (sandbox allow-scripts,
// frame-ancestors).
var HTMLReportPolicy = htmltable.ReportPolicy

// Tables of the HTML page report; a column is one line.
var (
	findingColumns = []htmltable.Column{
		{Key: "severity", Label: "Severity", Kind: htmltable.Severity},
		{Key: "id", Label: "Check", Kind: htmltable.Code},
		{Key: "count", Label: "Count", Kind: htmltable.Num},
		{Key: "message", Label: "What was found", Kind: htmltable.Text},
		{Key: "evidence", Label: "Evidence", Kind: htmltable.Text},
		{Key: "examples", Label: "More examples", Kind: htmltable.URLs},
		{Key: "priority", Label: "Priority", Kind: htmltable.Num},
	}
	linkColumns = []htmltable.Column{
		{Key: "url", Label: "URL", Kind: htmltable.URL},
		{Key: "text", Label: "Anchor text", Kind: htmltable.Text},
		{Key: "kind", Label: "Kind", Kind: htmltable.Code},
		{Key: "rel", Label: "Rel", Kind: htmltable.Code},
		{Key: "status", Label: "Status", Kind: htmltable.Num, Hint: "error", Null: "not checked"},
	}
	imageColumns = []htmltable.Column{
		{Key: "src", Label: "Source", Kind: htmltable.URL},
		{Key: "alt", Label: "Alt text", Kind: htmltable.Text, Null: "missing"},
		{Key: "size", Label: "Width × height", Kind: htmltable.Text},
		{Key: "status", Label: "Status", Kind: htmltable.Num, Null: "not checked"},
		{Key: "bytes", Label: "Bytes", Kind: htmltable.Num, Null: "-"},
	}
)

// PageTables are the tables of a page report: findings (highest priority
// first), links and images. They render with [htmltable.Table.HTML] and
// [htmltable.Data].
type PageTables struct {
	Findings, Links, Images *htmltable.Table
}

// Tables returns the report's tables.
func (r *Report) Tables() *PageTables {
	t := &PageTables{
		Findings: &htmltable.Table{Name: "findings", Label: "Findings", Columns: findingColumns,
			PageSize: 50, Search: true, SevKey: "severity", IDKey: "id", Empty: "No findings."},
		Links: &htmltable.Table{Name: "links", Label: "Links", Columns: linkColumns,
			PageSize: 50, Search: true, Empty: "No links."},
		Images: &htmltable.Table{Name: "images", Label: "Images", Columns: imageColumns,
			PageSize: 50, Search: true, Empty: "No images."},
	}
	findings := slices.Clone(r.Findings)
	slices.SortStableFunc(findings, func(a, b seo.Finding) int { return cmp.Compare(b.Priority, a.Priority) })
	for _, f := range findings {
		var examples []string
		for _, e := range f.Examples {
			examples = append(examples, evidenceText(e))
		}
		t.Findings.Rows = append(t.Findings.Rows, htmltable.Row{
			"severity": f.Severity.String(), "id": f.ID, "count": f.Occurrences(), "message": f.Message,
			"evidence": evidenceText(f.Evidence), "examples": examples, "priority": f.Priority,
		})
	}
	for _, l := range r.Links.List {
		kind := "external"
		if l.Internal {
			kind = "internal"
		}
		row := htmltable.Row{"url": l.URL, "text": l.Text, "kind": kind, "rel": l.Rel, "status": nil, "error": l.Error}
		if l.Status != 0 {
			row["status"] = l.Status
		} else if l.Error != "" {
			row["status"] = "failed"
		}
		t.Links.Rows = append(t.Links.Rows, row)
	}
	for _, img := range r.Images.List {
		row := htmltable.Row{"src": img.Src, "alt": nil, "size": "", "status": nil, "bytes": nil}
		if img.Alt != nil {
			row["alt"] = *img.Alt
			if *img.Alt == "" {
				row["alt"] = `"" (decorative)`
			}
		}
		if img.Width != "" || img.Height != "" {
			row["size"] = cmp.Or(img.Width, "?") + " × " + cmp.Or(img.Height, "?")
		}
		if img.Status != 0 {
			row["status"] = img.Status
		}
		if img.Bytes != 0 {
			row["bytes"] = int(img.Bytes)
		}
		t.Images.Rows = append(t.Images.Rows, row)
	}
	return t
}

// evidenceText is the evidence of a finding on one line: element, value,
// measurement, line, detail and at most five of its URLs.
func evidenceText(e seo.Evidence) string {
	var parts []string
	for _, s := range []string{e.Element, e.Value} {
		if s != "" {
			parts = append(parts, s)
		}
	}
	if e.Measured != nil {
		m := strconv.FormatFloat(*e.Measured, 'g', -1, 64)
		if e.Threshold != nil {
			m += " (limit " + strconv.FormatFloat(*e.Threshold, 'g', -1, 64) + ")"
		}
		parts = append(parts, m)
	}
	if e.Line > 0 {
		parts = append(parts, "line "+strconv.Itoa(e.Line))
	}
	if e.Detail != "" {
		parts = append(parts, e.Detail)
	}
	urls := e.URLs
	if len(urls) > 5 {
		urls = append(slices.Clone(urls[:5]), fmt.Sprintf("… %d more", len(e.URLs)-5))
	}
	if len(urls) > 0 {
		parts = append(parts, strings.Join(urls, " "))
	}
	return strings.Join(parts, " · ")
}

// pageView is what the page report template renders.
type pageView struct {
	R      *Report
	Policy string
	// Score is the page score; nil when the report has none, ScoreReason
	// then says why.
	Score       *int
	ScoreReason string
	Errors      int
	Warnings    int
	Notices     int
	// Findings, Links and Images are the tables' markup.
	Findings, Links, Images template.HTML
	// Data holds the rows of the tables; Script sorts, filters and pages
	// them.
	Data   template.JS
	Script template.JS
	CSS    template.CSS
	// Types are the structured data types; Social the Open Graph and
	// Twitter properties, sorted.
	Types  []string
	Social []keyValue
	// Cut lists the report's lists cut at their caps (Report.Truncated).
	Cut []seo.Cut
}

type keyValue struct{ Key, Value string }

// pageScore returns the report's score, or nil and why there is none.
func pageScore(r *Report) (*int, string) {
	if r.Score == nil {
		return nil, r.ScoreReason
	}
	v := r.Score.Value
	return &v, ""
}

// WriteHTML writes the report as one self-contained HTML page: inline CSS
// and one inline script, no external resources, so it opens in a browser
// offline. It shows the verdict (status, score, findings per severity),
// the findings by priority with their evidence and examples, then the
// page facts: title and description, headings, canonical, robots,
// hreflang, links, images, structured data, Open Graph and Twitter,
// viewport, the mobile comparison, the rendering (raw and rendered values of
// each changed field, the screenshot, lab Web Vitals with their bands and
// device, JavaScript errors, failed and blocked requests, page weight),
// security headers and what was cut at its cap. The findings, links and images tables are embedded once as
// JSON and shown a page of rows at a time, sortable and filterable;
// without scripts their first page is shown. Page text (titles, URLs,
// evidence) is escaped, in the markup and in the JSON.
func (r *Report) WriteHTML(w io.Writer) error {
	v := pageView{R: r, Policy: HTMLReportPolicy, Script: template.JS(htmltable.JS), CSS: template.CSS(htmltable.CSS)}
	v.Score, v.ScoreReason = pageScore(r)
	for _, f := range r.Findings {
		switch f.Severity {
		case seo.Error:
			v.Errors += f.Occurrences()
		case seo.Warning:
			v.Warnings += f.Occurrences()
		case seo.Notice:
			v.Notices += f.Occurrences()
		}
	}
	v.Cut = r.Truncated.Cuts()
	for _, it := range r.StructuredData {
		v.Types = append(v.Types, it.Types...)
	}
	slices.Sort(v.Types)
	v.Types = slices.Compact(v.Types)
	for _, m := range []map[string]string{r.OpenGraph, r.Twitter} {
		for _, k := range slices.Sorted(maps.Keys(m)) {
			v.Social = append(v.Social, keyValue{k, m[k]})
		}
	}
	tables := r.Tables()
	var err error
	for _, t := range []struct {
		dst *template.HTML
		t   *htmltable.Table
	}{{&v.Findings, tables.Findings}, {&v.Links, tables.Links}, {&v.Images, tables.Images}} {
		if *t.dst, err = t.t.HTML(); err != nil {
			return fmt.Errorf("analyzer: write html report: %w", err)
		}
	}
	if v.Data, err = htmltable.Data(tables.Findings, tables.Links, tables.Images); err != nil {
		return fmt.Errorf("analyzer: write html report: %w", err)
	}
	if err := reportTemplate.Execute(w, v); err != nil {
		return fmt.Errorf("analyzer: write html report: %w", err)
	}
	return nil
}
