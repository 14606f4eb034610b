// The page detail view of an analysis: one page of the stored report with
// its findings, the links the report keeps to and from it, and what
// rendering changed.

package dashboard

import (
	"cmp"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/seo"
)

// maxPageLinks caps each list of links the page view shows: the stored
// report of a large site can name a page in thousands of link findings.
const maxPageLinks = 200

// pageFinding is one finding of the page view.
type pageFinding struct {
	ID       string
	Severity string
	Message  string
	// Count is the page's occurrences of the check.
	Count int
	// Template: every analysed page has it.
	Template bool
}

// pageLink is a link the stored report keeps, with why it is listed.
type pageLink struct {
	URL    string
	Detail string
	// Page is the page detail view of URL when the report has the page.
	Page string
}

// pageView is the page detail view.
type pageView struct {
	Job  JobRow
	Page *crawler.PageSummary
	// Findings are the page's checks, most severe first, then the site and
	// link findings reported on its URL.
	Findings []pageFinding
	// Inlinks are the report's pages that link here as far as the report
	// keeps links (broken-link findings, the page that first linked a URL
	// not fetched); Outlinks the links of this page it keeps. The report
	// keeps link counts for every page, not every link: InlinksOut and
	// OutlinksOut count those over maxPageLinks.
	Inlinks, Outlinks       []pageLink
	InlinksOut, OutlinksOut int
	// Raw and Rendered compare the raw HTML with the rendered DOM; nil
	// when the analysis did not render.
	Render *pageRender
}

// pageRender is the raw versus rendered part of the page view.
type pageRender struct {
	State       string
	Reason      string
	Changes     []string
	RawWords    *int
	Words       int
	LinksOnlyJS *int
	JSErrors    *int
	// LCP, CLS and TBT are the lab vitals formatted; "" when not measured.
	LCP, CLS, TBT string
}

// formatPtr formats *v with format, "" for nil.
func formatPtr(format string, v *float64) string {
	if v == nil {
		return ""
	}
	return fmt.Sprintf(format, *v)
}

// analysisPageDetail shows one page (?url=) of the account's analysis.
func (d *Dashboard) analysisPageDetail(w http.ResponseWriter, r *http.Request, s *session, a *store.Account) {
	pageURL := r.URL.Query().Get("url")
	if pageURL == "" {
		d.errorPage(w, r, a, http.StatusBadRequest, "url is required: the page of the analysis to show.")
		return
	}
	j, rep, done, ok := d.ownReport(w, r, a)
	if !ok {
		return
	}
	defer done()
	if rep == nil || j.Status != string(store.JobSucceeded) {
		d.errorPage(w, r, a, http.StatusConflict, "This analysis has no report (status "+j.Status+").")
		return
	}
	pv := buildPageView(j.ID, rep, pageURL)
	if pv == nil {
		d.errorPage(w, r, a, http.StatusNotFound, "This analysis has no page "+clip(pageURL)+".")
		return
	}
	pv.Job = NewJobRow(j)
	v := d.base("Page "+clip(pageURL), "analyses", s, a)
	v.P = pv
	d.render(w, r, http.StatusOK, "analysis_page", v)
}

// buildPageView returns the view of the page u of rep, nil when rep has
// no such page.
func buildPageView(jobID string, rep *crawler.SiteReport, u string) *pageView {
	var p *crawler.PageSummary
	known := make(map[string]bool, len(rep.Pages))
	for i := range rep.Pages {
		known[rep.Pages[i].URL] = true
		if rep.Pages[i].URL == u {
			p = &rep.Pages[i]
		}
	}
	if p == nil {
		return nil
	}
	detail := func(target string) string {
		if !known[target] {
			return ""
		}
		return Prefix + "/analyses/" + url.PathEscape(jobID) + "/page?url=" + url.QueryEscape(target)
	}
	pv := &pageView{Page: p}
	groups := make(map[string]*crawler.FindingGroup, len(rep.Findings))
	for i := range rep.Findings {
		groups[rep.Findings[i].ID] = &rep.Findings[i]
	}
	for _, id := range p.Findings {
		f := pageFinding{ID: id, Count: 1}
		if n, ok := p.FindingCounts[id]; ok {
			f.Count = n
		}
		if g := groups[id]; g != nil {
			f.Severity, f.Message, f.Template = g.Severity.String(), g.Message, g.Template
		}
		pv.Findings = append(pv.Findings, f)
	}
	for _, list := range [][]seo.Finding{rep.SiteFindings, rep.LinkFindings} {
		for _, f := range list {
			if f.URL == u && len(pv.Findings) < maxPageLinks {
				pv.Findings = append(pv.Findings, pageFinding{ID: f.ID, Severity: f.Severity.String(), Message: f.Message, Count: max(1, f.Count)})
			}
		}
	}
	sevRank := map[string]int{"error": 0, "warning": 1, "notice": 2}
	slices.SortStableFunc(pv.Findings, func(a, b pageFinding) int { return cmp.Compare(sevRank[a.Severity], sevRank[b.Severity]) })

	addIn := func(from, why string) {
		if len(pv.Inlinks) == maxPageLinks {
			pv.InlinksOut++
			return
		}
		pv.Inlinks = append(pv.Inlinks, pageLink{URL: from, Detail: why, Page: detail(from)})
	}
	addOut := func(to, why string) {
		if len(pv.Outlinks) == maxPageLinks {
			pv.OutlinksOut++
			return
		}
		pv.Outlinks = append(pv.Outlinks, pageLink{URL: to, Detail: why, Page: detail(to)})
	}
	for _, f := range rep.LinkFindings {
		targets := f.Evidence.URLs
		if len(targets) == 0 && f.Evidence.Value != "" {
			targets = []string{f.Evidence.Value}
		}
		for _, t := range targets {
			switch {
			case f.URL == u:
				addOut(t, f.ID+": "+f.Evidence.Detail)
			case t == u:
				addIn(f.URL, f.ID+": "+f.Evidence.Detail)
			}
		}
	}
	for _, nf := range rep.NotFetched {
		if nf.FoundOn == u {
			addOut(nf.URL, "not fetched: "+nf.Reason)
		}
	}
	for _, r := range p.Redirects {
		if r.Location != "" {
			addOut(r.Location, "redirect "+strconv.Itoa(r.Status)+" from "+r.URL)
		}
	}
	if p.Rendered != nil {
		pr := &pageRender{State: "not rendered", Reason: p.RenderReason, Changes: p.RenderChanges, RawWords: p.RawWordCount,
			Words: p.WordCount, LinksOnlyJS: p.LinksOnlyRendered, JSErrors: p.JSErrors,
			LCP: formatPtr("%.0f ms", p.LCPMs), CLS: formatPtr("%.3f", p.CLS), TBT: formatPtr("%.0f ms", p.TBTMs)}
		switch {
		case p.RenderFailed:
			pr.State = "rendering failed (the raw analysis stands)"
		case *p.Rendered && p.RenderTimedOut:
			pr.State = "rendered, cut short by its time budget"
		case *p.Rendered:
			pr.State = "rendered"
		}
		pv.Render = pr
	}
	return pv
}
