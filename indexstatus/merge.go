package indexstatus

import (
	"cmp"
	"slices"
	"strings"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/seo"
)

// Area is the catalogue area of index status findings: their IDs start
// with "index.".
const Area = "index"

// IsIndexFinding reports whether id is an index status finding.
func IsIndexFinding(id string) bool { return strings.HasPrefix(id, Area+".") }

// Merge puts r's findings into the crawl report rep, replacing the index.*
// findings of an earlier merge: each becomes a site finding
// (rep.SiteFindings) and a finding group (rep.Findings, with the pages
// that report it, highest priority first) counted in rep.FindingCounts.
// It is the one place the counts are made, so the report's JSON, its HTML
// (crawler/crawlreport) and the dashboard agree. Index findings are site
// scope: they do not change the page scores nor the site score, which
// measure the crawl alone. A nil r only removes earlier index findings.
func Merge(rep *crawler.SiteReport, r *Report) {
	if rep == nil {
		return
	}
	sev := func(c *seo.Counts, s seo.Severity, n int) {
		switch s {
		case seo.Error:
			c.Errors += n
		case seo.Warning:
			c.Warnings += n
		default:
			c.Notices += n
		}
	}
	rep.Findings = slices.DeleteFunc(rep.Findings, func(g crawler.FindingGroup) bool {
		if !IsIndexFinding(g.ID) {
			return false
		}
		sev(&rep.FindingCounts.Checks, g.Severity, -1)
		sev(&rep.FindingCounts.Findings, g.Severity, -g.Count)
		return true
	})
	rep.SiteFindings = slices.DeleteFunc(rep.SiteFindings, func(f seo.Finding) bool { return IsIndexFinding(f.ID) })
	if r == nil {
		return
	}
	pages := map[string][]string{}
	for i := range r.Pages {
		for _, id := range r.Pages[i].Findings {
			pages[id] = append(pages[id], r.Pages[i].URL)
		}
	}
	for _, f := range r.Findings {
		urls := pages[f.ID]
		n := max(f.Occurrences(), len(urls))
		g := crawler.FindingGroup{
			ID: f.ID, Severity: f.Severity, Scope: seo.ScopeSite, Count: n, Pages: len(urls), URLs: len(urls),
			Message: f.Message, Examples: slices.Clone(urls[:min(len(urls), MaxExamples)]), Priority: f.Priority,
		}
		if g.Examples == nil {
			g.Examples = []string{}
		}
		rep.Findings = append(rep.Findings, g)
		rep.SiteFindings = append(rep.SiteFindings, f)
		sev(&rep.FindingCounts.Checks, f.Severity, 1)
		sev(&rep.FindingCounts.Findings, f.Severity, n)
	}
	slices.SortStableFunc(rep.Findings, func(a, b crawler.FindingGroup) int {
		if c := cmp.Compare(b.Priority, a.Priority); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
}
