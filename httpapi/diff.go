package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/seokit/seokit/crawler/compare"
	"github.com/seokit/seokit/httpapi/service"
	"github.com/seokit/seokit/httpapi/store"
)

// diffJobsScanned is how many of the account's newest analyses the diff
// looks through for the previous analysis of the same site.
const diffJobsScanned = 100

// siteDiff serves GET /v1/analyze/site/{id}/diff?against={otherId}&format=:
// the comparison (Analyses().Diff) written as json (default), text,
// markdown or html.
func (s *Server) siteDiff(w http.ResponseWriter, r *http.Request) {
	format := r.URL.Query().Get("format")
	switch format {
	case "", "json", "text", "markdown", "html":
	default:
		s.fail(w, r, invalid("format", `format must be "json", "text", "markdown" or "html"`))
		return
	}
	sd, err := s.Analyses().Diff(r.Context(), principal(r.Context()).AccountID, r.PathValue("id"), r.URL.Query().Get("against"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	d := sd.Diff
	var buf bytes.Buffer
	h := w.Header()
	switch format {
	case "", "json":
		writeJSON(w, http.StatusOK, sd)
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
		h.Set("Content-Security-Policy", "sandbox allow-scripts; "+compare.HTMLPolicy+"; frame-ancestors 'none'")
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	w.Write(buf.Bytes())
}

// Diff compares the account's analysis id with an earlier one of the same
// site (compare.Sites): against, or by default the previous successful
// analysis of that domain in the analysis's project, or in the account
// when it has none. It counts one unit of the daily quota, unless the
// request carrying ctx paid it (service.WithPaid).
func (a siteAnalyses) Diff(ctx context.Context, account, id, against string) (*service.SiteDiff, error) {
	s := a.s
	cur, curRep, err := s.storedReport(ctx, account, id)
	if err != nil {
		return nil, err
	}
	if cur.Status != store.JobSucceeded {
		return nil, conflict("the analysis has no report to compare (status " + string(cur.Status) + ")")
	}
	domain := jobDomain(cur)
	var (
		old    *store.Job
		oldRep *report
	)
	if against != "" {
		if old, oldRep, err = s.storedReport(ctx, account, against); err != nil {
			if ae, _ := toAPIError(err); ae.Status == http.StatusNotFound {
				err = notFound("no analysis " + against + " (against)")
			}
			return nil, err
		}
		switch {
		case old.Status != store.JobSucceeded:
			return nil, conflict("the analysis named by against has no report (status " + string(old.Status) + ")")
		case jobDomain(old) != domain:
			return nil, invalid("against", "against must name an analysis of the same site ("+domain+"), not of "+jobDomain(old))
		}
	} else {
		js, err := s.diffCandidates(ctx, cur)
		if err != nil {
			return nil, err
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
			return nil, notFound("no earlier successful analysis of " + domain + " to compare with; name one with against")
		}
		if old, oldRep, err = s.storedReport(ctx, account, old.ID); err != nil { // with its result
			return nil, err
		}
	}
	if oldRep == nil || curRep == nil {
		return nil, conflict("an analysis compared has no stored report")
	}
	// A comparison costs one unit of the daily quota wherever it is asked
	// for: the API request's own, or the service's when no request paid
	// (the dashboard's comparison pages).
	if err := s.charge(ctx, account, 1); err != nil {
		return nil, err
	}
	release, err := s.adm.acquireSlot(ctx, KindCompare, account, oldRep.memory+curRep.memory, false)
	if err != nil {
		return nil, err
	}
	defer release()
	d, err := compare.Sites(ctx, oldRep.src, curRep.src, nil)
	if err != nil {
		return nil, err
	}
	return &service.SiteDiff{Old: old.ID, New: cur.ID, Diff: d}, nil
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

// report is the stored report of an analysis as a comparison reads it.
type report struct {
	src compare.Source
	// memory estimates what comparing it holds: the report as read, and
	// the compared fields of its pages.
	memory int64
}

// storedReport reads the account's job with its report (nil when it has
// none). A store that implements store.JobResults hands out the report as
// stored (compressed), decompressed as the comparison streams it; the
// snapshot is read in one statement, so pruning the job meanwhile does
// not change it.
func (s *Server) storedReport(ctx context.Context, account, id string) (*store.Job, *report, error) {
	if strings.HasPrefix(id, logJobPrefix) {
		return nil, nil, store.ErrNotFound // a log upload: its report is no site report
	}
	if jr, ok := s.st.(store.JobResults); ok {
		j, res, err := jr.JobResult(ctx, account, id)
		if err != nil || res == nil {
			return j, nil, err
		}
		return j, &report{src: compare.Reader("analysis "+id, res.Open),
			memory: int64(res.StoredSize()) + compare.EstimateMemory(res.Size())}, nil
	}
	j, err := s.st.Job(ctx, account, id)
	if err != nil || len(j.Result) == 0 {
		return j, nil, err
	}
	return j, &report{src: compare.JSON(j.Result),
		memory: int64(len(j.Result)) + compare.EstimateMemory(len(j.Result))}, nil
}
