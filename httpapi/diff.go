package httpapi

import (
	"bytes"
	"encoding/json"
	"net/http"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/httpapi/store"
)

// diffJobsScanned is how many of the account's newest analyses the diff
// looks through for the previous analysis of the same site.
const diffJobsScanned = 100

// siteDiff serves GET /v1/analyze/site/{id}/diff?against={otherId}&format=:
// the comparison (crawler.Compare) of the analysis with an earlier one of
// the same site, by default the previous successful analysis of that
// domain in the analysis's project, or in the account when it has none.
// format is json (default), text, markdown or html.
func (s *Server) siteDiff(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	account := principal(ctx).AccountID
	q := r.URL.Query()
	format := q.Get("format")
	switch format {
	case "", "json", "text", "markdown", "html":
	default:
		s.fail(w, r, invalid("format", `format must be "json", "text", "markdown" or "html"`))
		return
	}
	cur, err := s.st.Job(ctx, account, r.PathValue("id"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if cur.Status != store.JobSucceeded {
		s.fail(w, r, apiError(http.StatusConflict, CodeConflict, "the analysis has no report to compare (status "+string(cur.Status)+")"))
		return
	}
	domain := jobDomain(cur)
	var old *store.Job
	if id := q.Get("against"); id != "" {
		if old, err = s.st.Job(ctx, account, id); err != nil {
			if ae, _ := toAPIError(err); ae.Status == http.StatusNotFound {
				err = apiError(http.StatusNotFound, CodeNotFound, "no analysis "+id+" (against)")
			}
			s.fail(w, r, err)
			return
		}
		switch {
		case old.Status != store.JobSucceeded:
			s.fail(w, r, apiError(http.StatusConflict, CodeConflict, "the analysis named by against has no report (status "+string(old.Status)+")"))
			return
		case jobDomain(old) != domain:
			s.fail(w, r, invalid("against", "against must name an analysis of the same site ("+domain+"), not of "+jobDomain(old)))
			return
		}
	} else {
		js, err := s.diffCandidates(ctx, cur)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		for i := range js {
			j := &js[i]
			if j.ID != cur.ID && j.Status == store.JobSucceeded && j.CreatedAt.Before(cur.CreatedAt) && jobDomain(j) == domain {
				if old == nil || j.CreatedAt.After(old.CreatedAt) {
					old = j
				}
			}
		}
		if old == nil {
			s.fail(w, r, apiError(http.StatusNotFound, CodeNotFound, "no earlier successful analysis of "+domain+" to compare with; name one with against"))
			return
		}
		if old, err = s.st.Job(ctx, account, old.ID); err != nil { // with its result
			s.fail(w, r, err)
			return
		}
	}
	release, err := s.adm.admit(ctx, KindCompare, account, crawler.EstimateCompareMemory(len(old.Result)), false)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	defer release()
	d, err := crawler.Compare(ctx, crawler.ReportJSON(old.Result), crawler.ReportJSON(cur.Result), nil)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	var buf bytes.Buffer
	h := w.Header()
	switch format {
	case "", "json":
		writeJSON(w, http.StatusOK, struct {
			Old  string        `json:"old"`
			New  string        `json:"new"`
			Diff *crawler.Diff `json:"diff"`
		}{old.ID, cur.ID, d})
		return
	case "text":
		err = d.WriteText(&buf)
		h.Set("Content-Type", "text/plain; charset=utf-8")
	case "markdown":
		err = d.WriteMarkdown(&buf)
		h.Set("Content-Type", "text/markdown; charset=utf-8")
	case "html":
		err = d.WriteHTML(&buf)
		h.Set("Content-Type", "text/html; charset=utf-8")
		h.Set("Content-Security-Policy", "sandbox allow-scripts; "+crawler.HTMLReportPolicy+"; frame-ancestors 'none'")
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	w.Write(buf.Bytes())
}

// jobDomain returns the domain of a site analysis job, as its request
// stored it.
func jobDomain(j *store.Job) string {
	var req SiteRequest
	if json.Unmarshal(j.Request, &req) != nil {
		return ""
	}
	return req.Domain
}
