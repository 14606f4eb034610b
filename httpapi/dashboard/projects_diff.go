package dashboard

import (
	"bytes"
	"net/http"
	"net/url"
	"strconv"

	"github.com/seokit/seokit/crawler/compare"
	"github.com/seokit/seokit/httpapi/store"
)

// Page sizes of the diff view: the comparison is capped by
// compare.Sites (1,000 changed pages, 20 examples per list) with exact
// counts; the view pages through the changed pages and lists the
// findings that changed first.
const (
	diffPageSize    = 50
	maxDiffFindings = 100
)

type diffView struct {
	Old, New    string // analysis IDs
	Diff        *compare.Diff
	Changed     []compare.PageChange
	Pager       pager
	Findings    []compare.FindingChange
	FindingsOut int // findings not listed
	Persisting  int // persisting findings with no change in pages
	Cut         []string
	HTMLLink    string
	Score       string // the score change, signed
}

// siteDiff shows the comparison of an analysis with an earlier one of the
// same site (?against=, by default the previous successful analysis of
// its project), as GET /v1/analyze/site/{id}/diff computes it.
func (d *Dashboard) siteDiff(w http.ResponseWriter, r *http.Request, s *session, a *store.Account) {
	id := r.PathValue("id")
	against := r.URL.Query().Get("against")
	if d.opts.Analyses == nil {
		d.errorPage(w, r, a, http.StatusServiceUnavailable, "Comparisons are not available on this server.")
		return
	}
	out, err := d.opts.Analyses.Diff(r.Context(), a.ID, id, against)
	if err = serviceFailure(err); err != nil {
		d.failed(w, r, a, err, "analysis")
		return
	}
	if out.Diff == nil {
		d.errorPage(w, r, a, http.StatusServiceUnavailable, "The comparison cannot be shown.")
		return
	}
	df := out.Diff
	dv := &diffView{Old: out.Old, New: out.New, Diff: df, Score: df.ScoreChange()}
	q := url.Values{"against": {out.Old}}
	dv.HTMLLink = Prefix + "/analyses/" + url.PathEscape(out.New) + "/diff.html?" + q.Encode()
	var from, to int
	dv.Pager, from, to = newPager(r, len(df.Changed), diffPageSize, func(n int) string {
		return Prefix + "/analyses/" + url.PathEscape(out.New) + "/diff?" + q.Encode() + "&page=" + strconv.Itoa(n) + "#changed-h"
	})
	dv.Changed = df.Changed[from:to]
	// New and fixed findings and those whose pages changed come first;
	// Compare sorts by severity already.
	for _, f := range df.Findings {
		if f.Status == compare.FindingPersisting && f.NewOn.Count == 0 && f.FixedOn.Count == 0 {
			dv.Persisting++
			continue
		}
		if len(dv.Findings) == maxDiffFindings {
			dv.FindingsOut++
			continue
		}
		dv.Findings = append(dv.Findings, f)
	}
	for _, c := range df.Truncated.Cuts() {
		dv.Cut = append(dv.Cut, c.Name+": "+strconv.Itoa(c.Shown)+" of "+strconv.Itoa(c.Total))
	}
	v := d.base("Changes of "+df.New.Domain, "projects", s, a)
	v.P = dv
	d.render(w, r, http.StatusOK, "diff", v)
}

// siteDiffHTML serves the comparison's self-contained HTML page
// (compare.Diff.WriteHTML), sandboxed like the crawler report.
func (d *Dashboard) siteDiffHTML(w http.ResponseWriter, r *http.Request, s *session, a *store.Account) {
	if d.opts.Analyses == nil {
		d.errorPage(w, r, a, http.StatusServiceUnavailable, "Comparisons are not available on this server.")
		return
	}
	out, err := d.opts.Analyses.Diff(r.Context(), a.ID, r.PathValue("id"), r.URL.Query().Get("against"))
	if err = serviceFailure(err); err != nil {
		d.failed(w, r, a, err, "analysis")
		return
	}
	var buf bytes.Buffer
	if err := out.Diff.WriteHTML(&buf); err != nil {
		d.errorPage(w, r, a, http.StatusInternalServerError, "The comparison cannot be written.")
		return
	}
	w.Header().Set("Content-Security-Policy", reportPolicy)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Write(buf.Bytes())
}
