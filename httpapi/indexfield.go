// The index status and field vitals services: Search Console URL
// Inspection of an analysis's sample, and CrUX field data beside the lab.

package httpapi

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"sync"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/fieldvitals"
	"github.com/seokit/seokit/httpapi/service"
	"github.com/seokit/seokit/indexstatus"
)

// maxIndexRuns bounds the index status runs kept in memory; the oldest
// finished ones are dropped first.
const maxIndexRuns = 1000

// indexRuns keeps the server's index status runs, by account and
// analysis.
type indexRuns struct {
	mu     sync.Mutex
	ledger *indexstatus.Ledger
	runs   map[string]*service.IndexStatusRun
	order  []string
}

// IndexStatus returns the index status service over the server's
// Inspector.
func (s *Server) IndexStatus() service.IndexStatus { return indexField{s} }

// FieldVitals returns the field Web Vitals service over the server's CrUX
// source.
func (s *Server) FieldVitals() service.FieldVitals { return indexField{s} }

// indexField implements service.IndexStatus and service.FieldVitals.
type indexField struct{ s *Server }

var (
	_ service.IndexStatus = indexField{}
	_ service.FieldVitals = indexField{}
)

// analysisPages reads the pages of the account's analysis id.
func (x indexField) analysisPages(ctx context.Context, account, id string) (*crawler.SiteReport, error) {
	job, res, err := x.s.Analyses().Get(ctx, account, id)
	if err != nil {
		return nil, err
	}
	if !service.HasResult(job) || res == nil {
		return nil, conflict("the analysis has no report yet (status " + job.Status + ")")
	}
	rc, err := res.Open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	var rep crawler.SiteReport
	if err := json.NewDecoder(io.LimitReader(rc, int64(res.Size())+1)).Decode(&rep); err != nil {
		return nil, err
	}
	return &rep, nil
}

func key(account, id string) string { return account + "\x00" + id }

func (x indexField) Start(ctx context.Context, account, id string, req service.IndexStatusRequest) (*service.IndexStatusRun, error) {
	s := x.s
	if req.SampleSize < 0 || req.SampleSize > service.MaxIndexSample {
		return nil, invalid("sampleSize", "sampleSize must be an integer from 1 to "+strconv.Itoa(service.MaxIndexSample)+" (0: all the property has left today)")
	}
	if req.Property != "" {
		if _, err := indexstatus.ParseProperty(req.Property); err != nil {
			return nil, err
		}
	}
	if s.opts.Inspector == nil {
		return nil, &service.NotConfiguredError{What: "index status (Search Console URL Inspection)"}
	}
	rep, err := x.analysisPages(ctx, account, id)
	if err != nil {
		return nil, err
	}
	prop := req.Property
	if prop == "" {
		prop = "sc-domain:" + rep.Domain
	}
	if prop, err = indexstatus.ParseProperty(prop); err != nil {
		return nil, err
	}
	if err := s.charge(ctx, account, researchCost); err != nil {
		return nil, err
	}
	r := &s.idx
	r.mu.Lock()
	if r.runs == nil {
		r.runs = map[string]*service.IndexStatusRun{}
		r.ledger = s.opts.IndexLedger
		if r.ledger == nil {
			r.ledger = indexstatus.NewLedger(indexstatus.Quota{}, nil)
		}
	}
	k := key(account, id)
	if cur := r.runs[k]; cur != nil && cur.Status == service.IndexRunning {
		v := *cur
		r.mu.Unlock()
		return &v, nil
	}
	run := &service.IndexStatusRun{AnalysisID: id, Property: prop, Status: service.IndexRunning, StartedAt: s.now().UTC()}
	r.put(k, run)
	ledger := r.ledger
	v := *run
	r.mu.Unlock()
	made := 0
	opts := &indexstatus.Options{
		SampleSize: req.SampleSize, Ledger: ledger,
		Charge: func(ctx context.Context) error {
			made++
			if made == 1 || (made-1)%service.IndexInspectionsPerUnit != 0 {
				return nil // the request's unit pays for the first hundred
			}
			return s.charge(ctx, account, 1)
		},
		Progress: func(p indexstatus.Progress) {
			r.mu.Lock()
			run.Progress = p
			r.mu.Unlock()
		},
	}
	started := s.goBackground(func(bg context.Context) {
		out, err := indexstatus.Run(bg, rep, s.opts.Inspector, prop, opts)
		r.mu.Lock()
		defer r.mu.Unlock()
		if err != nil {
			run.Status, run.Error = service.IndexFailed, err.Error()
			return
		}
		run.Status, run.Report, run.Property = service.IndexSucceeded, out, out.Property
	})
	if !started {
		r.mu.Lock()
		run.Status, run.Error = service.IndexFailed, "the server is shutting down"
		v = *run
		r.mu.Unlock()
	}
	return &v, nil
}

// put stores run under k, dropping the oldest finished runs past
// maxIndexRuns; r.mu is held.
func (r *indexRuns) put(k string, run *service.IndexStatusRun) {
	if _, ok := r.runs[k]; !ok {
		r.order = append(r.order, k)
	}
	r.runs[k] = run
	for i := 0; len(r.runs) > maxIndexRuns && i < len(r.order); {
		if old := r.order[i]; r.runs[old].Status != service.IndexRunning {
			delete(r.runs, old)
			r.order = append(r.order[:i], r.order[i+1:]...)
			continue
		}
		i++
	}
}

func (x indexField) Get(ctx context.Context, account, id string) (*service.IndexStatusRun, error) {
	if _, _, err := x.s.Analyses().Get(ctx, account, id); err != nil {
		return nil, err
	}
	r := &x.s.idx
	r.mu.Lock()
	defer r.mu.Unlock()
	run := r.runs[key(account, id)]
	if run == nil {
		return nil, notFound("no index status run of analysis " + id + "; start one with POST")
	}
	v := *run
	return &v, nil
}

func (x indexField) Lookup(ctx context.Context, account string, req service.FieldVitalsRequest) (*service.FieldVitalsResponse, error) {
	s := x.s
	q, err := req.Query.Check()
	if err != nil {
		return nil, err
	}
	var rep *crawler.SiteReport
	if req.AnalysisID != "" {
		if rep, err = x.analysisPages(ctx, account, req.AnalysisID); err != nil {
			if ae, _ := toAPIError(err); ae.Status == http.StatusNotFound {
				return nil, invalid("analysisId", "no analysis "+req.AnalysisID+" of this account")
			}
			return nil, err
		}
	}
	src := s.opts.FieldVitals
	if src == nil {
		return nil, &service.NotConfiguredError{What: "field Web Vitals (Chrome UX Report)"}
	}
	cost := 1
	if req.History {
		cost = 2
	}
	if err := s.charge(ctx, account, cost); err != nil {
		return nil, err
	}
	out := &service.FieldVitalsResponse{}
	if out.Record, err = src.Record(ctx, q); err != nil {
		return nil, err
	}
	if req.History {
		if out.History, err = src.History(ctx, q); err != nil {
			return nil, err
		}
	}
	if rep != nil {
		lab := fieldvitals.Lab{}
		for i := range rep.Pages {
			p := &rep.Pages[i]
			if p.URL == q.URL || (q.Origin != "" && p.URL == q.Origin+"/") {
				lab = fieldvitals.Lab{LCPMs: p.LCPMs, CLS: p.CLS, TBTMs: p.TBTMs}
				break
			}
		}
		out.Lab = &lab
		out.Compare, out.Explanation = fieldvitals.Compare(lab, out.Record), fieldvitals.Explanation
	}
	return out, nil
}

func (x indexField) Project(ctx context.Context, account, id string, ff fieldvitals.FormFactor) (*service.FieldVitalsResponse, error) {
	p, err := x.s.Projects().Get(ctx, account, id)
	if err != nil {
		return nil, err
	}
	return x.Lookup(ctx, account, service.FieldVitalsRequest{Query: fieldvitals.Query{Origin: "https://" + p.Domain, FormFactor: ff}, History: true})
}

// startIndexStatus serves POST /v1/analyze/site/{id}/index-status: 202
// with the run, polled with GET.
func (s *Server) startIndexStatus(w http.ResponseWriter, r *http.Request) {
	var req service.IndexStatusRequest
	if r.ContentLength != 0 {
		if err := decodeJSON(w, r, s.opts.MaxBodyBytes, &req); err != nil {
			s.fail(w, r, err)
			return
		}
	}
	run, err := s.IndexStatus().Start(r.Context(), principal(r.Context()).AccountID, r.PathValue("id"), req)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	w.Header().Set("Location", "/v1/analyze/site/"+r.PathValue("id")+"/index-status")
	writeJSON(w, http.StatusAccepted, run)
}

// getIndexStatus serves GET /v1/analyze/site/{id}/index-status.
func (s *Server) getIndexStatus(w http.ResponseWriter, r *http.Request) {
	run, err := s.IndexStatus().Get(r.Context(), principal(r.Context()).AccountID, r.PathValue("id"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, run)
}

// fieldVitals serves GET /v1/field-vitals?url=|origin=&formFactor=&history=&analysisId=.
func (s *Server) fieldVitals(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	hist, err := queryBool(r, "history")
	if err != nil {
		s.fail(w, r, err)
		return
	}
	out, err := s.FieldVitals().Lookup(r.Context(), principal(r.Context()).AccountID, service.FieldVitalsRequest{
		Query:   fieldvitals.Query{URL: q.Get("url"), Origin: q.Get("origin"), FormFactor: fieldvitals.FormFactor(q.Get("formFactor"))},
		History: hist, AnalysisID: q.Get("analysisId"),
	})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// projectFieldVitals serves GET /v1/projects/{id}/field-vitals?formFactor=.
func (s *Server) projectFieldVitals(w http.ResponseWriter, r *http.Request) {
	out, err := s.FieldVitals().Project(r.Context(), principal(r.Context()).AccountID, r.PathValue("id"),
		fieldvitals.FormFactor(r.URL.Query().Get("formFactor")))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}
