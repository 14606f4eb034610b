package crawlreport

import (
	"encoding/csv"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/seokit/seokit/analyzer"
	"github.com/seokit/seokit/crawler"
)

// csvHeader names the columns written by WriteCSV.
var csvHeader = []string{
	"url", "final_url", "status", "depth", "indexable", "in_sitemap", "inlinks", "link_score",
	"title", "description", "h1", "canonical", "word_count", "score", "score_reason", "errors", "warnings",
	"notices", "findings", "response_ms", "bytes", "error", "template",
}

// Columns of csvHeader that a row of a URL not fetched fills.
var (
	csvScoreReason = slices.Index(csvHeader, "score_reason")
	csvError       = slices.Index(csvHeader, "error")
)

// renderCSVHeader names the columns WriteCSV adds when the crawl rendered
// (SiteReport.Render): empty cells where a value is null (not rendered,
// not measured).
var renderCSVHeader = []string{
	"rendered", "render_reason", "render_changes", "links_only_rendered", "js_errors",
	"lcp_ms", "cls", "tbt_ms", "screenshot",
}

// WriteCSV writes the page table of r as CSV (RFC 4180): a header row, then one
// row per page in the report's order, then one per URL not fetched
// (SiteReport.NotFetched: no status, score or depth when unknown,
// score_reason "not_fetched" and the reason and error in the error column).
// The template column is the page's template fingerprint
// (PageSummary.Template), empty for a response that is not HTML.
// Findings are the page's distinct finding IDs separated by spaces; an
// empty score has its reason in score_reason. When a list was cut at its
// cap (SiteReport.Truncated), a last row says so in its first column:
// "# N of TOTAL pages shown" ("URLs not fetched shown" for NotFetched).
// A crawl that rendered adds the columns of renderCSVHeader: rendered,
// render_reason, render_changes (fields separated by spaces),
// links_only_rendered, js_errors, lcp_ms, cls, tbt_ms (lab) and
// screenshot (the file name, ScreenshotName, when one was stored). A crawl
// with extractors or search rules has one more column per extractor,
// "extract:NAME" (the values kept, joined with " | "), and per search rule,
// "search:NAME" ("true" when the rule is met).
func WriteCSV(w io.Writer, r *crawler.SiteReport) error {
	cw := csv.NewWriter(w)
	header := csvHeader
	if r.Render != nil {
		header = append(slices.Clip(header), renderCSVHeader...)
	}
	if r.Segments != nil {
		header = append(slices.Clip(header), "segment")
	}
	header = append(slices.Clip(header), extractionColumns(r)...)
	if err := cw.Write(header); err != nil {
		return fmt.Errorf("crawler: write csv: %w", err)
	}
	row := make([]string, len(header))
	for i := range r.Pages {
		p := &r.Pages[i]
		row = append(row[:0],
			p.URL, p.FinalURL, strconv.Itoa(p.Status), optInt(p.Depth),
			strconv.FormatBool(p.Indexable), strconv.FormatBool(p.InSitemap),
			strconv.Itoa(p.Inlinks), strconv.FormatFloat(p.LinkScore, 'f', 1, 64),
			csvSafe(p.Title), csvSafe(p.Description), csvSafe(p.H1), p.Canonical,
			strconv.Itoa(p.WordCount), optInt(p.Score), p.ScoreReason, strconv.Itoa(p.Errors),
			strconv.Itoa(p.Warnings), strconv.Itoa(p.Notices), strings.Join(p.Findings, " "),
			strconv.FormatInt(p.ResponseMs, 10), strconv.FormatInt(p.Bytes, 10), p.Error, p.Template,
		)
		if r.Render != nil {
			row = appendRenderCSV(row, p)
		}
		if r.Segments != nil {
			row = append(row, p.Segment)
		}
		row = appendExtractionCells(r, row, p)
		if err := cw.Write(row); err != nil {
			return fmt.Errorf("crawler: write csv: %w", err)
		}
	}
	for _, u := range r.NotFetched {
		msg := u.Reason
		if u.Error != "" {
			msg += ": " + u.Error
		}
		row = append(row[:0], u.URL, "", "", optInt(u.Depth))
		for len(row) < len(header) {
			row = append(row, "")
		}
		row[4], row[csvScoreReason], row[csvError] = "false", analyzer.ScoreNotFetched, msg
		if err := cw.Write(row); err != nil {
			return fmt.Errorf("crawler: write csv: %w", err)
		}
	}
	var notes []string
	if total := listTotal(r, "pages", len(r.Pages)); total > len(r.Pages) {
		notes = append(notes, fmt.Sprintf("# %d of %d pages shown", len(r.Pages), total))
	}
	if total := listTotal(r, "notFetched", len(r.NotFetched)); total > len(r.NotFetched) {
		notes = append(notes, fmt.Sprintf("# %d of %d URLs not fetched shown", len(r.NotFetched), total))
	}
	for _, n := range notes {
		row = append(row[:0], n)
		for len(row) < len(header) {
			row = append(row, "")
		}
		if err := cw.Write(row); err != nil {
			return fmt.Errorf("crawler: write csv: %w", err)
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("crawler: write csv: %w", err)
	}
	return nil
}

// appendRenderCSV appends the rendering cells of p (renderCSVHeader).
func appendRenderCSV(row []string, p *crawler.PageSummary) []string {
	rendered, shot := "", ""
	if p.Rendered != nil {
		rendered = strconv.FormatBool(*p.Rendered)
	}
	if p.Screenshot {
		shot = crawler.ScreenshotName(p.URL)
	}
	return append(row, rendered, csvSafe(p.RenderReason), strings.Join(p.RenderChanges, " "),
		optInt(p.LinksOnlyRendered), optInt(p.JSErrors),
		optFloat(p.LCPMs, 0), optFloat(p.CLS, 3), optFloat(p.TBTMs, 0), shot)
}

// optFloat formats an optional number with digits decimals, "" for nil.
func optFloat(v *float64, digits int) string {
	if v == nil {
		return ""
	}
	return strconv.FormatFloat(*v, 'f', digits, 64)
}

// optInt formats an optional number, "" for nil.
func optInt(v *int) string {
	if v == nil {
		return ""
	}
	return strconv.Itoa(*v)
}

// csvSafe defuses crawled text that a spreadsheet would run as a formula
// (a leading =, +, -, @, tab or carriage return) by prefixing a quote.
func csvSafe(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}
