package crawler

import (
	"slices"
	"sort"

	"github.com/seokit/seokit/seo"
)

// clusterKey names a group finding: its ID and its first member URL.
type clusterKey struct{ id, url string }

// cluster is one group of pages reported as one finding.
type cluster struct {
	total   int      // members, all counted
	members []string // the members listed (at most maxEvidenceURLs)
}

// CountFindings counts the findings of groups per severity (see
// FindingCounts).
func CountFindings(groups []FindingGroup) FindingCounts {
	var c FindingCounts
	for _, g := range groups {
		switch g.Severity {
		case seo.Error:
			c.Checks.Errors++
			c.Findings.Errors += g.Count
		case seo.Warning:
			c.Checks.Warnings++
			c.Findings.Warnings += g.Count
		case seo.Notice:
			c.Checks.Notices++
			c.Findings.Notices += g.Count
		}
	}
	return c
}

// analysed reports whether p is a page whose content was analysed: an
// HTML document that answered 2xx. The template rule and the site reach of
// the finding groups count these pages.
func analysed(p *PageSummary) bool {
	return p.IsHTML && p.Error == "" && p.Status >= 200 && p.Status < 300
}

// groups gathers page findings (by the IDs of each summary, counting their
// FindingCounts) and site findings by ID, marks the template groups, sets
// their priority and sorts them by it (see sortGroups).
func (r *siteRun) groups(site []seo.Finding) []FindingGroup {
	type acc struct {
		g        FindingGroup
		minor    bool
		analysed int // analysed pages in g.Pages
		siteURLs map[string]bool
		// extra counts the members of the ID's groups beyond the first
		// URL of each, which g.Pages counts (FindingGroup.URLs).
		extra int
	}
	byID := map[string]*acc{}
	get := func(id string) *acc {
		a := byID[id]
		if a == nil {
			in, ok := r.sev[id]
			if !ok {
				in = seo.CheckInfo{ID: id, Severity: seo.Warning, Scope: seo.ScopePage}
			}
			a = &acc{g: FindingGroup{ID: id, Severity: in.Severity, Scope: in.Scope, Message: in.Summary, Examples: []string{}}, minor: in.Minor}
			byID[id] = a
		}
		return a
	}
	analysedPages := 0
	for _, p := range r.pages() {
		isAnalysed := analysed(p)
		if isAnalysed {
			analysedPages++
		}
		for _, id := range p.Findings {
			a := get(id)
			a.g.Count += max(p.FindingCounts[id], 1)
			a.g.Pages++
			if isAnalysed {
				a.analysed++
			}
			if len(a.g.Examples) < maxGroupExamples {
				a.g.Examples = append(a.g.Examples, p.URL)
			}
		}
	}
	// The findings of an ID usually form one run sorted by URL (see
	// SortFindings), where a repeated URL follows itself; only an ID whose
	// findings are split or unsorted needs a set of its URLs.
	split := map[string]bool{}
	runs := map[string]bool{}
	for k, f := range site {
		switch {
		case k == 0 || site[k-1].ID != f.ID:
			if runs[f.ID] {
				split[f.ID] = true
			}
			runs[f.ID] = true
		case f.URL < site[k-1].URL:
			split[f.ID] = true
		}
	}
	var buf pageBuf
	for k, f := range site {
		a := get(f.ID)
		a.g.Count += f.Occurrences()
		if c, ok := r.clusters[clusterKey{f.ID, f.URL}]; ok && f.URL != "" {
			a.g.Groups++
			a.extra += c.total - 1
			if len(a.g.Members) < maxGroupExamples {
				a.g.Members = append(a.g.Members, c.members)
			}
		}
		if f.Severity > a.g.Severity {
			a.g.Severity = f.Severity
		}
		if f.URL == "" {
			continue
		}
		if split[f.ID] {
			if a.siteURLs == nil {
				a.siteURLs = map[string]bool{}
			}
			if a.siteURLs[f.URL] {
				continue
			}
			a.siteURLs[f.URL] = true
		} else if k > 0 && site[k-1].ID == f.ID && site[k-1].URL == f.URL {
			continue
		}
		var p *PageSummary
		if j := r.pageFor(f.URL); j >= 0 {
			p = r.page(j, &buf)
		}
		if p != nil && slices.Contains(p.Findings, f.ID) {
			continue // already counted as a page
		}
		a.g.Pages++
		if p != nil && analysed(p) {
			a.analysed++
		}
		if len(a.g.Examples) < maxGroupExamples {
			a.g.Examples = append(a.g.Examples, f.URL)
		}
	}
	out := make([]FindingGroup, 0, len(byID))
	for _, a := range byID {
		g := a.g
		g.Template = analysedPages >= 2 && a.analysed >= analysedPages
		reach := seo.SiteReach(a.analysed, analysedPages)
		if g.Pages == 0 {
			reach = 1 // a finding of the site as a whole (robots.txt, a host variant)
		}
		g.Priority = seo.Priority(g.Severity, reach, a.minor)
		g.URLs = g.Pages + a.extra
		out = append(out, g)
	}
	sortGroups(out)
	return out
}

// groupPriority sets the Count of the site or link findings fs that have
// none to 1 and their Priority to their group's.
func groupPriority(groups []FindingGroup, fs []seo.Finding) {
	at := make(map[string]int, len(groups))
	for _, g := range groups {
		at[g.ID] = g.Priority
	}
	for i := range fs {
		fs[i].Count = fs[i].Occurrences()
		fs[i].Priority = at[fs[i].ID]
	}
}

// sortGroups sorts finding groups by priority, highest first, then by ID.
func sortGroups(gs []FindingGroup) {
	sort.SliceStable(gs, func(i, j int) bool {
		if gs[i].Priority != gs[j].Priority {
			return gs[i].Priority > gs[j].Priority
		}
		return gs[i].ID < gs[j].ID
	})
}
