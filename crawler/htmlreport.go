package crawler

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/seokit/seokit/seo"
)

//go:embed report.html.tmpl
var reportHTML string

var reportTemplate = template.Must(template.New("report").Funcs(template.FuncMap{
	"sevClass": func(s seo.Severity) string { return s.String() },
	"statusClass": func(code int) string {
		switch {
		case code >= 200 && code < 300:
			return "ok"
		case code >= 300 && code < 400:
			return "redirect"
		case code >= 400 && code < 500:
			return "client"
		case code >= 500:
			return "server"
		}
		return "none"
	},
	"score": func(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) },
	"when": func(t time.Time) string {
		if t.IsZero() {
			return "-"
		}
		return t.UTC().Format("2006-01-02 15:04 MST")
	},
}).Parse(reportHTML))

// MaxHTMLReportPages caps the rows of the page table in the HTML report, so
// the file stays small enough for a browser on large crawls; WriteCSV lists
// every page.
const MaxHTMLReportPages = 5000

// Colours of the report charts.
const (
	colorOK       = "#2e7d32"
	colorRedirect = "#1565c0"
	colorClient   = "#ef6c00"
	colorServer   = "#c62828"
	colorNone     = "#757575"
	colorBar      = "#3949ab"
	colorError    = "#c62828"
	colorWarning  = "#ef6c00"
	colorNotice   = "#1565c0"
)

// htmlView is what the report template renders.
type htmlView struct {
	R          *SiteReport
	Errors     int
	Warnings   int
	Notices    int
	Charts     []chart
	Sections   []findingSection
	Pages      []PageSummary
	PagesShown int
	PagesTotal int
	// NotFetchedTotal counts the URLs not fetched before the list's cap.
	NotFetchedTotal int
	Duration        string
	// Details are site and link findings with their evidence, at most
	// MaxHTMLReportDetails; DetailsTotal counts them all.
	Details      []seo.Finding
	DetailsTotal int
	// Cut lists the report's lists cut at their caps (SiteReport.Truncated).
	Cut []cutList
}

// cutList is one list of the report cut at its cap.
type cutList struct {
	Name         string
	Shown, Total int
}

// MaxHTMLReportDetails caps the findings listed one by one in the HTML
// report.
const MaxHTMLReportDetails = 1000

type findingSection struct {
	Severity seo.Severity
	Groups   []FindingGroup
}

// chart is a bar chart laid out in Go and drawn as inline SVG.
type chart struct {
	Title         string
	Width, Height int
	BaseY         int
	Bars          []chartBar
}

type chartBar struct {
	X, Y, W, H     int
	Color          string
	Label, Value   string
	LabelX, ValueY int
}

// barChart lays out one bar per value, scaled to the largest.
func barChart(title string, labels []string, values []int, colors []string) chart {
	const height, top, bottom, gap = 220, 24, 28, 8
	n := len(values)
	barW := 48
	if n > 12 {
		barW = max(14, 576/n-gap)
	}
	c := chart{Title: title, Width: max(320, n*(barW+gap)+gap), Height: height, BaseY: height - bottom}
	maxV := 0
	for _, v := range values {
		maxV = max(maxV, v)
	}
	plot := height - top - bottom
	for i, v := range values {
		h := 0
		if maxV > 0 {
			h = v * plot / maxV
		}
		if v > 0 && h < 2 {
			h = 2
		}
		x := gap + i*(barW+gap)
		c.Bars = append(c.Bars, chartBar{
			X: x, Y: c.BaseY - h, W: barW, H: h, Color: colors[i%len(colors)],
			Label: labels[i], Value: strconv.Itoa(v),
			LabelX: x + barW/2, ValueY: c.BaseY - h - 6,
		})
	}
	return c
}

// WriteHTML writes the report as one self-contained HTML page: inline CSS
// and SVG charts, no scripts and no external resources, so it opens in a
// browser offline. Crawled text (titles, URLs) is escaped. The page table
// lists at most MaxHTMLReportPages pages, the least-scoring first.
func (r *SiteReport) WriteHTML(w io.Writer) error {
	v := htmlView{R: r, PagesTotal: r.listTotal("pages", len(r.Pages)), NotFetchedTotal: r.listTotal("notFetched", len(r.NotFetched))}
	v.Errors, v.Warnings, v.Notices = r.FindingCounts.Findings.Errors, r.FindingCounts.Findings.Warnings, r.FindingCounts.Findings.Notices
	for _, name := range slices.Sorted(maps.Keys(r.Truncated)) {
		t := r.Truncated[name]
		v.Cut = append(v.Cut, cutList{Name: name, Shown: t.Total - t.Omitted, Total: t.Total})
	}
	bySev := map[seo.Severity][]FindingGroup{}
	for _, g := range r.Findings {
		bySev[g.Severity] = append(bySev[g.Severity], g)
	}
	for _, s := range []seo.Severity{seo.Error, seo.Warning, seo.Notice} {
		if len(bySev[s]) > 0 {
			v.Sections = append(v.Sections, findingSection{Severity: s, Groups: bySev[s]})
		}
	}
	details := append(append([]seo.Finding(nil), r.SiteFindings...), r.LinkFindings...)
	sortFindings(details)
	v.DetailsTotal = r.listTotal("linkFindings", len(r.LinkFindings)) + len(r.SiteFindings)
	for name, t := range r.Truncated {
		if name == "siteFindings" || strings.HasPrefix(name, "siteFindings.") {
			v.DetailsTotal += t.Omitted
		}
	}
	v.Details = details[:min(len(details), MaxHTMLReportDetails)]

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
			colors = append(colors, colorOK)
		case c >= 300 && c < 400:
			colors = append(colors, colorRedirect)
		case c >= 400 && c < 500:
			colors = append(colors, colorClient)
		case c >= 500:
			colors = append(colors, colorServer)
		default:
			colors = append(colors, colorNone)
		}
	}
	v.Charts = append(v.Charts, barChart("Pages by status code", labels, values, colors))

	labels, values = nil, nil
	for d, n := range r.Crawl.DepthHistogram {
		labels, values = append(labels, strconv.Itoa(d)), append(values, n)
	}
	v.Charts = append(v.Charts, barChart("Pages by click depth", labels, values, []string{colorBar}))
	v.Charts = append(v.Charts, barChart("Findings by severity",
		[]string{"errors", "warnings", "notices"}, []int{v.Errors, v.Warnings, v.Notices},
		[]string{colorError, colorWarning, colorNotice}))

	pages := r.Pages
	if len(pages) > MaxHTMLReportPages {
		pages = append([]PageSummary(nil), pages...)
		sort.SliceStable(pages, func(i, j int) bool { return pages[i].score() < pages[j].score() })
		pages = pages[:MaxHTMLReportPages]
	}
	v.Pages, v.PagesShown = pages, len(pages)
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
func (r *SiteReport) listTotal(name string, n int) int {
	if t, ok := r.Truncated[name]; ok {
		return t.Total
	}
	return n
}
