// Package crawlreport writes a crawl's site report for people: one
// self-contained HTML page ([WriteHTML]: charts, sortable tables, inline
// script allowed by [HTMLPolicy] alone) and the page table as CSV
// ([WriteCSV]). [NewTables] gives the HTML report's tables to other views
// (the dashboard's analysis page).
package crawlreport

import (
	"cmp"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/crawler/internal/barchart"
	"github.com/seokit/seokit/internal/htmltable"
	"github.com/seokit/seokit/seo"
)

//go:embed report.html.tmpl
var reportHTML string

var reportTemplate = template.Must(template.New("report").Funcs(template.FuncMap{
	"sevClass": func(s seo.Severity) string { return s.String() },
	"when":     htmltable.When,
	"deref":    func(v *float64) float64 { return *v },
}).Parse(reportHTML))

// HTMLPolicy is the Content-Security-Policy of the HTML report, which
// the report also declares in a <meta> element: its own inline script and
// styles only, no other resource. A server that serves the report adds
// the directives a <meta> policy cannot carry (sandbox allow-scripts,
// frame-ancestors).
var HTMLPolicy = htmltable.ReportPolicy

// topFindings is the number of finding groups the report's summary names.
const topFindings = 5

// htmlView is what the report template renders.
type htmlView struct {
	R          *crawler.SiteReport
	Policy     string
	Errors     int
	Warnings   int
	Notices    int
	Charts     []barchart.Chart
	PagesTotal int
	Duration   string
	// Top are the first finding groups, most severe and widespread first.
	Top []crawler.FindingGroup
	// Findings, Details and Pages are the tables of finding groups, of site
	// and link findings with their evidence, and of pages.
	Findings, Details, Pages, NotFetched template.HTML
	// Data holds the rows of the tables; Script sorts, filters and pages
	// them.
	Data   template.JS
	Script template.JS
	CSS    template.CSS
	// Cut lists the report's lists cut at their caps (SiteReport.Truncated).
	Cut []seo.Cut
	// TemplateWide are the findings of every analysed page, named once
	// above the pages table instead of on every row.
	TemplateWide []crawler.FindingGroup
}

// Tables of the HTML report. They are shared with the dashboard's analysis
// view (Tables); a column is one line.
var (
	groupColumns = []htmltable.Column{
		{Key: "priority", Label: "Priority", Kind: htmltable.Num},
		{Key: "severity", Label: "Severity", Kind: htmltable.Severity},
		{Key: "id", Label: "Check", Kind: htmltable.Code},
		{Key: "message", Label: "What it means", Kind: htmltable.Text},
		{Key: "count", Label: "Findings", Kind: htmltable.Num},
		{Key: "urls", Label: "URLs", Kind: htmltable.Num, Hint: "reach"},
		{Key: "groups", Label: "Groups", Kind: htmltable.Num, Null: "–"},
		{Key: "examples", Label: "Examples", Kind: htmltable.URLs},
		{Key: "members", Label: "Group members", Kind: htmltable.List, Null: "–"},
	}
	detailColumns = []htmltable.Column{
		{Key: "severity", Label: "Severity", Kind: htmltable.Severity},
		{Key: "id", Label: "Check", Kind: htmltable.Code},
		{Key: "url", Label: "URL", Kind: htmltable.URL},
		{Key: "message", Label: "What was found", Kind: htmltable.Text},
		{Key: "evidence", Label: "Evidence", Kind: htmltable.Text},
	}
	pageColumns = []htmltable.Column{
		{Key: "url", Label: "URL", Kind: htmltable.URL},
		{Key: "status", Label: "Status", Kind: htmltable.Num, Hint: "error"},
		{Key: "depth", Label: "Depth", Kind: htmltable.Num, Null: "not linked"},
		{Key: "inlinks", Label: "Inlinks", Kind: htmltable.Num},
		{Key: "linkScore", Label: "Link score", Kind: htmltable.Num, Digits: 1},
		{Key: "title", Label: "Title", Kind: htmltable.Line, Class: "page-title"},
		{Key: "wordCount", Label: "Words", Kind: htmltable.Num},
		{Key: "score", Label: "Score", Kind: htmltable.Num, Hint: "scoreReason"},
		{Key: "findings", Label: "Findings", Kind: htmltable.List},
		{Key: "template", Label: "Template", Kind: htmltable.Code, Class: "page-template"},
	}
	// renderColumns are added to the pages table of a crawl that rendered
	// (SiteReport.Render); a null cell was not rendered or not measured.
	renderColumns = []htmltable.Column{
		{Key: "rendered", Label: "Rendered", Kind: htmltable.Code, Hint: "renderReason", Null: "off"},
		{Key: "renderChanges", Label: "Changed by JS", Kind: htmltable.List},
		{Key: "linksOnlyRendered", Label: "JS-only links", Kind: htmltable.Num},
		{Key: "jsErrors", Label: "JS errors", Kind: htmltable.Num},
		{Key: "lcpMs", Label: "LCP ms (lab)", Kind: htmltable.Num},
		{Key: "cls", Label: "CLS (lab)", Kind: htmltable.Num, Digits: 3},
		{Key: "tbtMs", Label: "TBT ms (lab)", Kind: htmltable.Num},
		{Key: "screenshot", Label: "Screenshot", Kind: htmltable.Code},
	}
	notFetchedColumns = []htmltable.Column{
		{Key: "url", Label: "URL", Kind: htmltable.URL},
		{Key: "reason", Label: "Reason", Kind: htmltable.Code, Hint: "error"},
		{Key: "depth", Label: "Depth", Kind: htmltable.Num, Null: "not linked"},
		{Key: "foundOn", Label: "Found on", Kind: htmltable.URL},
	}
)

// Tables are the tables of a site report: finding groups, site and
// link findings with their evidence, and pages (least-scoring first). They
// render with [htmltable.Table.HTML] and [htmltable.Data].
type Tables struct {
	Findings, Details, Pages, NotFetched *htmltable.Table
	// TemplateWide are the finding groups every analysed page has
	// (FindingGroup.Template): the pages table leaves them out of each
	// row's findings, and a view names them once above it.
	TemplateWide []crawler.FindingGroup
}

// NewTables returns the tables of r.
func NewTables(r *crawler.SiteReport) (*Tables, error) {
	t := &Tables{
		Findings: &htmltable.Table{Name: "findings", Label: "Findings by check", Columns: groupColumns,
			PageSize: 25, Search: true, SevKey: "severity", IDKey: "id", Empty: "No findings."},
		Details: &htmltable.Table{Name: "details", Label: "Site and link findings", Columns: detailColumns,
			PageSize: 50, Search: true, SevKey: "severity", IDKey: "id", Empty: "No site or link findings."},
		Pages: &htmltable.Table{Name: "pages", Label: "Pages", Columns: pageColumns,
			Search: true, SevKey: "severities", IDKey: "findings", Empty: "No pages."},
		NotFetched: &htmltable.Table{Name: "notfetched", Label: "URLs not fetched", Columns: notFetchedColumns,
			PageSize: 25, Search: true, Empty: "Every URL found was fetched."},
	}
	t.Pages.Columns = append(slices.Clip(pageColumns), extractionTableColumns(r)...)
	templateWide := map[string]bool{}
	for _, g := range r.Findings {
		if g.Template {
			t.TemplateWide = append(t.TemplateWide, g)
			templateWide[g.ID] = true
		}
	}
	for _, g := range r.Findings {
		reach := ""
		if g.Template {
			reach = "template issue: every analysed page has it"
		}
		t.Findings.Rows = append(t.Findings.Rows, htmltable.Row{
			"priority": g.Priority, "severity": g.Severity.String(), "id": g.ID, "message": g.Message,
			"count": g.Count, "urls": max(g.URLs, g.Pages), "reach": reach, "examples": g.Examples,
			"groups": nil, "members": nil,
		})
		if g.Groups > 0 {
			row := t.Findings.Rows[len(t.Findings.Rows)-1]
			members := make([]string, len(g.Members))
			for k, m := range g.Members {
				members[k] = fmt.Sprintf("group %d (%d): %s", k+1, len(m), strings.Join(m, " · "))
			}
			row["groups"], row["members"] = g.Groups, members
		}
	}
	for _, u := range r.NotFetched {
		t.NotFetched.Rows = append(t.NotFetched.Rows, htmltable.Row{
			"url": u.URL, "reason": u.Reason, "error": u.Error, "depth": u.Depth, "foundOn": u.FoundOn,
		})
	}
	details := append(append([]seo.Finding(nil), r.SiteFindings...), r.LinkFindings...)
	crawler.SortFindings(details)
	for _, f := range details {
		t.Details.Rows = append(t.Details.Rows, htmltable.Row{
			"severity": f.Severity.String(), "id": f.ID, "url": f.URL, "message": f.Message, "evidence": evidenceText(f.Evidence),
		})
	}
	if r.Render != nil {
		t.Pages.Columns = append(slices.Clip(t.Pages.Columns), renderColumns...)
	}
	if r.Segments != nil {
		// The search box filters the pages by segment name.
		t.Pages.Columns = append(slices.Clip(t.Pages.Columns), htmltable.Column{Key: "segment", Label: "Segment", Kind: htmltable.Code})
	}
	pages := slices.Clone(r.Pages)
	// Unscored pages (error statuses, redirects, non-HTML) first, then the
	// lowest scores.
	slices.SortStableFunc(pages, func(a, b crawler.PageSummary) int {
		if a.Score == nil || b.Score == nil {
			return cmp.Compare(boolInt(a.Score != nil), boolInt(b.Score != nil))
		}
		return cmp.Compare(*a.Score, *b.Score)
	})
	for _, p := range pages {
		row := htmltable.Row{
			"url": p.URL, "status": p.Status, "error": p.Error, "depth": p.Depth, "inlinks": p.Inlinks,
			"linkScore": p.LinkScore, "title": p.Title, "wordCount": p.WordCount, "score": p.Score,
			"scoreReason": p.ScoreReason, "findings": withoutIDs(p.Findings, templateWide), "template": p.Template,
		}
		if r.Segments != nil {
			row["segment"] = p.Segment
		}
		var sevs []string
		for _, s := range []struct {
			n    int
			name string
		}{{p.Errors, "error"}, {p.Warnings, "warning"}, {p.Notices, "notice"}} {
			if s.n > 0 {
				sevs = append(sevs, s.name)
			}
		}
		row["severities"] = sevs
		if r.Render != nil {
			addRenderCells(row, &p, r.Render.ScreenshotDir)
		}
		addExtractionCells(r, row, &p)
		t.Pages.Rows = append(t.Pages.Rows, row)
	}
	return t, nil
}

// withoutIDs returns ids without those in drop (a new list when some are
// dropped, ids itself otherwise).
func withoutIDs(ids []string, drop map[string]bool) []string {
	if len(drop) == 0 {
		return ids
	}
	var out []string
	for _, id := range ids {
		if !drop[id] {
			out = append(out, id)
		}
	}
	return out
}

// addRenderCells sets the cells of renderColumns: "yes", "no" (reason in
// the hint), "timed out" or "failed"; the screenshot's path under dir.
func addRenderCells(row htmltable.Row, p *crawler.PageSummary, dir string) {
	if p.Rendered != nil {
		state := "no"
		switch {
		case p.RenderFailed:
			state = "failed"
		case *p.Rendered && p.RenderTimedOut:
			state = "timed out"
		case *p.Rendered:
			state = "yes"
		}
		row["rendered"] = state
	}
	row["renderReason"] = p.RenderReason
	row["renderChanges"] = p.RenderChanges
	row["linksOnlyRendered"] = p.LinksOnlyRendered
	row["jsErrors"] = p.JSErrors
	row["lcpMs"] = roundPtr(p.LCPMs)
	row["cls"] = p.CLS
	row["tbtMs"] = roundPtr(p.TBTMs)
	if p.Screenshot {
		name := crawler.ScreenshotName(p.URL)
		if dir != "" {
			name = filepath.ToSlash(filepath.Join(dir, name))
		}
		row["screenshot"] = name
	}
}

// roundPtr rounds an optional number to an integer, nil for nil.
func roundPtr(v *float64) *int {
	if v == nil {
		return nil
	}
	n := int(math.Round(*v))
	return &n
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// evidenceText is the evidence of a finding on one line: element, value,
// detail and at most five of its URLs.
func evidenceText(e seo.Evidence) string {
	var parts []string
	for _, s := range []string{e.Element, e.Value, e.Detail} {
		if s != "" {
			parts = append(parts, s)
		}
	}
	urls := slices.DeleteFunc(slices.Clone(e.URLs), func(u string) bool { return u == e.Value })
	if len(urls) > 5 {
		urls = append(urls[:5], fmt.Sprintf("… %d more", len(urls)-5))
	}
	if len(urls) > 0 {
		parts = append(parts, strings.Join(urls, " "))
	}
	return strings.Join(parts, " · ")
}

// WriteHTML writes r as one self-contained HTML page: inline CSS,
// SVG charts and one inline script, no external resources, so it opens in
// a browser offline. Its tables (finding groups, site and link findings,
// every page of the report) are embedded once as JSON and shown a page of
// rows at a time, sortable and filterable by severity, finding ID and
// text; without scripts the first page of each is shown. Crawled text
// (titles, URLs) is escaped, in the markup and in the JSON.
func WriteHTML(w io.Writer, r *crawler.SiteReport) error {
	v := htmlView{R: r, Policy: HTMLPolicy, PagesTotal: listTotal(r, "pages", len(r.Pages)),
		Script: template.JS(htmltable.JS), CSS: template.CSS(htmltable.CSS)}
	v.Cut = r.Truncated.Cuts()
	v.Errors, v.Warnings, v.Notices = r.FindingCounts.Findings.Errors, r.FindingCounts.Findings.Warnings, r.FindingCounts.Findings.Notices
	v.Top = r.Findings[:min(len(r.Findings), topFindings)]
	tables, err := NewTables(r)
	if err != nil {
		return fmt.Errorf("crawler: write html report: %w", err)
	}
	v.TemplateWide = tables.TemplateWide
	for _, t := range []struct {
		dst *template.HTML
		t   *htmltable.Table
	}{{&v.Findings, tables.Findings}, {&v.Details, tables.Details}, {&v.Pages, tables.Pages}, {&v.NotFetched, tables.NotFetched}} {
		if *t.dst, err = t.t.HTML(); err != nil {
			return fmt.Errorf("crawler: write html report: %w", err)
		}
	}
	if v.Data, err = htmltable.Data(tables.Findings, tables.Details, tables.Pages, tables.NotFetched); err != nil {
		return fmt.Errorf("crawler: write html report: %w", err)
	}

	codes := make([]int, 0, len(r.StatusCodes))
	for c := range r.StatusCodes {
		codes = append(codes, c)
	}
	sort.Ints(codes)
	var labels, colors []string
	var values []int
	for _, c := range codes {
		label := strconv.Itoa(c)
		if c == 0 {
			label = "none"
		}
		labels, values = append(labels, label), append(values, r.StatusCodes[c])
		switch {
		case c >= 200 && c < 300:
			colors = append(colors, barchart.ColorOK)
		case c >= 300 && c < 400:
			colors = append(colors, barchart.ColorRedirect)
		case c >= 400 && c < 500:
			colors = append(colors, barchart.ColorClient)
		case c >= 500:
			colors = append(colors, barchart.ColorServer)
		default:
			colors = append(colors, barchart.ColorNone)
		}
	}
	v.Charts = append(v.Charts, barchart.New("Pages by status code", labels, values, colors).Axes("HTTP status", "pages"))

	labels, values = nil, nil
	for d, n := range r.Crawl.DepthHistogram {
		labels, values = append(labels, strconv.Itoa(d)), append(values, n)
	}
	v.Charts = append(v.Charts, barchart.New("Pages by click depth", labels, values, []string{barchart.ColorBar}).Axes("clicks from the start URL", "pages"))
	v.Charts = append(v.Charts, barchart.New("Findings by severity",
		[]string{"errors", "warnings", "notices"}, []int{v.Errors, v.Warnings, v.Notices},
		[]string{barchart.ColorError, barchart.ColorWarning, barchart.ColorNotice}).Axes("severity", "findings"))

	if r.Crawl.Duration > 0 {
		v.Duration = r.Crawl.Duration.Round(time.Second).String()
	} else if !r.StartedAt.IsZero() && r.FinishedAt.After(r.StartedAt) {
		v.Duration = r.FinishedAt.Sub(r.StartedAt).Round(time.Second).String()
	}
	if err := reportTemplate.Execute(w, v); err != nil {
		return fmt.Errorf("crawler: write html report: %w", err)
	}
	return nil
}

// listTotal returns how many items the list name of the report had before
// it was cut (SiteReport.Truncated), or n when it was not cut.
func listTotal(r *crawler.SiteReport, name string, n int) int {
	if t, ok := r.Truncated[name]; ok {
		return t.Total
	}
	return n
}
