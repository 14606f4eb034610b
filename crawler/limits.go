package crawler

import (
	"slices"

	"github.com/seokit/seokit/seo"
)

// Per-page caps of a PageSummary, so that a page's summary stays small
// whatever the page holds.
const (
	// maxSummaryAlternates caps PageSummary.Hreflang.
	maxSummaryAlternates = 50
	// maxSummaryResources caps PageSummary.BlockedResources.
	maxSummaryResources = 20
)

// capPerID keeps at most max findings of each ID of fs (sorted by
// SortFindings, so those of one ID mostly form one run), in order, and
// notes every ID cut in t under prefix+ID. max <= 0 keeps everything. It
// never returns nil.
func capPerID(fs []seo.Finding, max int, prefix string, t *seo.Truncated) []seo.Finding {
	if fs == nil {
		return []seo.Finding{}
	}
	if max <= 0 {
		return fs
	}
	count := map[string]int{}
	for _, f := range fs {
		count[f.ID]++
	}
	cut := false
	for _, n := range count {
		if n > max {
			cut = true
			break
		}
	}
	if !cut {
		return fs
	}
	kept := map[string]int{}
	out := fs[:0]
	for _, f := range fs {
		if kept[f.ID] < max {
			kept[f.ID]++
			out = append(out, f)
		}
	}
	for id, n := range count {
		t.Note(prefix+id, n, kept[id])
	}
	clear(fs[len(out):])
	return out
}

// fitReport cuts the longest of the report's page list, site findings and
// link findings by half, in turn, until its approximate JSON size is at most
// max bytes (no limit when max <= 0). The cuts are noted in rep.Truncated.
func fitReport(rep *SiteReport, max int64) {
	if max <= 0 {
		return
	}
	pages := make([]int64, len(rep.Pages))
	var pageBytes int64
	for i := range rep.Pages {
		pages[i] = pageSize(&rep.Pages[i])
		pageBytes += pages[i]
	}
	siteBytes := findingsSize(rep.SiteFindings)
	linkBytes := findingsSize(rep.LinkFindings)
	rest := restSize(rep)
	totalPages, totalSite, totalLink := len(rep.Pages), len(rep.SiteFindings), len(rep.LinkFindings)
	if t, ok := rep.Truncated["pages"]; ok {
		totalPages = t.Total
	}
	for pageBytes+siteBytes+linkBytes+rest > max {
		switch {
		case pageBytes >= siteBytes && pageBytes >= linkBytes && len(rep.Pages) > 0:
			n := len(rep.Pages) / 2
			for _, s := range pages[n:] {
				pageBytes -= s
			}
			rep.Pages, pages = rep.Pages[:n:n], pages[:n]
			rep.Truncated.Note("pages", totalPages, n)
		case siteBytes >= linkBytes && len(rep.SiteFindings) > 0:
			rep.SiteFindings = rep.SiteFindings[: len(rep.SiteFindings)/2 : len(rep.SiteFindings)/2]
			siteBytes = findingsSize(rep.SiteFindings)
			rep.Truncated.Note("siteFindings", totalSite, len(rep.SiteFindings))
		case len(rep.LinkFindings) > 0:
			rep.LinkFindings = rep.LinkFindings[: len(rep.LinkFindings)/2 : len(rep.LinkFindings)/2]
			linkBytes = findingsSize(rep.LinkFindings)
			rep.Truncated.Note("linkFindings", totalLink+rep.LinkFindingsOmitted, len(rep.LinkFindings))
		default:
			return
		}
	}
}

// jsonLen returns the length of s as a JSON string by encoding/json, quotes
// and a separator included: control characters, quotes and backslashes
// are escaped, and so are <, > and & (as \u003c ...).
func jsonLen(s string) int {
	n := len(s) + 3
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '<' || c == '>' || c == '&' || c < 0x20:
			n += 5
		case c == '"' || c == '\\':
			n++
		}
	}
	return n
}

// pageSize approximates the JSON size of a page summary: its texts plus
// the field names and numbers.
func pageSize(p *PageSummary) int64 {
	n := 400
	for _, s := range []string{p.URL, p.FinalURL, p.Canonical, p.ContentType, p.Error, p.Title, p.Description, p.H1, p.Template} {
		n += jsonLen(s)
	}
	for _, r := range p.Redirects {
		n += 60 + jsonLen(r.URL) + jsonLen(r.Location)
	}
	for _, a := range p.Hreflang {
		n += 30 + jsonLen(a.Code) + jsonLen(a.URL)
	}
	for _, r := range p.BlockedResources {
		n += jsonLen(r)
	}
	for _, f := range p.Findings {
		n += jsonLen(f)
	}
	for id := range p.FindingCounts {
		n += 12 + jsonLen(id)
	}
	return int64(n)
}

// findingsSize approximates the JSON size of findings.
func findingsSize(fs []seo.Finding) int64 {
	var n int64
	for i := range fs {
		f := &fs[i]
		n += int64(250 + jsonLen(f.ID) + jsonLen(f.URL) + jsonLen(f.Message) +
			jsonLen(f.Evidence.Element) + jsonLen(f.Evidence.Value) + jsonLen(f.Evidence.Detail))
		for _, u := range f.Evidence.URLs {
			n += int64(jsonLen(u))
		}
	}
	return n
}

// restSize approximates the JSON size of the report's parts that fitReport
// does not cut: statistics, finding groups, traps, sitemaps, robots.txt.
func restSize(rep *SiteReport) int64 {
	n := 16 << 10
	for _, g := range rep.Findings {
		n += 150 + jsonLen(g.ID) + jsonLen(g.Message)
		for _, e := range g.Examples {
			n += jsonLen(e)
		}
	}
	for _, t := range rep.Crawl.Traps {
		n += 80 + jsonLen(t.Pattern)
		for _, e := range t.Example {
			n += jsonLen(e)
		}
	}
	for _, s := range rep.Sitemaps {
		n += 80 + jsonLen(s.URL) + jsonLen(s.Error)
	}
	for _, s := range rep.Robots.Sitemaps {
		n += jsonLen(s)
	}
	return int64(n)
}

// clipSummary applies the per-page caps to s.
func clipSummary(s *PageSummary) {
	s.Title, s.Description, s.H1 = seo.Clip(s.Title), seo.Clip(s.Description), seo.Clip(s.H1)
	if len(s.Hreflang) > maxSummaryAlternates {
		s.Hreflang = slices.Clone(s.Hreflang[:maxSummaryAlternates])
	}
	if len(s.BlockedResources) > maxSummaryResources {
		s.BlockedResources = s.BlockedResources[:maxSummaryResources:maxSummaryResources]
	}
}
