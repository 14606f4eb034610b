package crawlreport

import (
	"strconv"
	"strings"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/internal/htmltable"
)

// extractionColumns returns the CSV columns of the report's extractors and
// search rules: "extract:NAME" (the page's values joined with " | ") and
// "search:NAME" ("true" when the rule is met, "false" when not).
func extractionColumns(r *crawler.SiteReport) []string {
	var cols []string
	for _, x := range r.Extraction {
		cols = append(cols, "extract:"+x.Name)
	}
	for _, s := range r.SearchRules {
		cols = append(cols, "search:"+s.Name)
	}
	return cols
}

// appendExtractionCells appends p's cells of extractionColumns to row.
func appendExtractionCells(r *crawler.SiteReport, row []string, p *crawler.PageSummary) []string {
	for _, x := range r.Extraction {
		row = append(row, extractCell(p, x.Name, csvSafe))
	}
	for _, s := range r.SearchRules {
		row = append(row, searchCell(p, s.Name, "true", "false"))
	}
	return row
}

// extractCell returns p's values of the named extractor, each through
// quote, joined with " | ".
func extractCell(p *crawler.PageSummary, name string, quote func(string) string) string {
	for _, e := range p.Extracted {
		if e.Name == name {
			vs := make([]string, len(e.Values))
			for i, v := range e.Values {
				vs[i] = quote(v)
			}
			return strings.Join(vs, " | ")
		}
	}
	return ""
}

// searchCell returns yes or no for p's outcome of the named search rule,
// "" when the rule did not run on p.
func searchCell(p *crawler.PageSummary, name, yes, no string) string {
	for _, m := range p.Search {
		if m.Name == name {
			if m.Matched {
				return yes
			}
			return no
		}
	}
	return ""
}

// extractionTableColumns are the columns of the pages table for the
// report's extractors and search rules.
func extractionTableColumns(r *crawler.SiteReport) []htmltable.Column {
	var cols []htmltable.Column
	for i, x := range r.Extraction {
		cols = append(cols, htmltable.Column{Key: "extract" + strconv.Itoa(i), Label: x.Name, Kind: htmltable.Text})
	}
	for i, s := range r.SearchRules {
		cols = append(cols, htmltable.Column{Key: "search" + strconv.Itoa(i), Label: "search: " + s.Name, Kind: htmltable.Text})
	}
	return cols
}

// addExtractionCells adds p's cells of extractionTableColumns to row: the
// values kept joined with " | ", "yes" or "no" for a search rule.
func addExtractionCells(r *crawler.SiteReport, row htmltable.Row, p *crawler.PageSummary) {
	for i, x := range r.Extraction {
		row["extract"+strconv.Itoa(i)] = extractCell(p, x.Name, func(s string) string { return s })
	}
	for i, s := range r.SearchRules {
		row["search"+strconv.Itoa(i)] = searchCell(p, s.Name, "yes", "no")
	}
}
