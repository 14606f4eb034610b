// The index status and field vitals services: Search Console URL
// Inspection of an analysis's sample, and CrUX field data beside the lab.

package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/fieldvitals"
	"github.com/seokit/seokit/httpapi/mcpserver"
	"github.com/seokit/seokit/httpapi/service"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/indexstatus"
)

// Leases of index status runs kept in a store.IndexStatus.
const (
	// indexRunLease is how long a running run counts as alive unless the
	// instance running it renews it; indexRunSave how often that instance
	// stores its progress and renews the lease.
	indexRunLease = 2 * time.Minute
	indexRunSave  = time.Second
	// inspectionLease is how long an inspection in flight holds its place
	// in the property's minute when its instance never reports its end.
	inspectionLease = 5 * time.Minute
)

// IndexCounter counts URL inspections in st for every instance sharing
// it: the per-property quotas of indexstatus.NewSharedLedger. The server
// uses it on its own when its Store implements store.IndexStatus.
func IndexCounter(st store.IndexStatus) indexstatus.Counter { return storeCounter{st} }

type storeCounter struct{ st store.IndexStatus }

func (c storeCounter) Take(ctx context.Context, property, day string, now time.Time, q indexstatus.Quota) (func(time.Time), time.Time, error) {
	t, retry, err := c.st.TakeInspection(ctx, property, day, now, q.PerMinute, q.PerDay, inspectionLease)
	if errors.Is(err, store.ErrLimitReached) {
		return nil, time.Time{}, indexstatus.ErrDailyQuota
	}
	if err != nil || t == nil {
		return nil, retry, err
	}
	return func(at time.Time) {
		// A failed write leaves the place held until inspectionLease:
		// the quota errs on the safe side.
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = c.st.EndInspection(ctx, t, at)
	}, time.Time{}, nil
}

func (c storeCounter) Used(ctx context.Context, property, day string) (int, error) {
	return c.st.Inspections(ctx, property, day)
}

// indexStore returns the server's store as a store.IndexStatus, nil when
// it is not one (runs and counts are then kept in memory).
func (s *Server) indexStore() store.IndexStatus {
	is, _ := s.st.(store.IndexStatus)
	return is
}

// indexLedger returns the ledger of the server's inspections; r.mu is
// held. Over a store.IndexStatus it counts in the store, with the quota
// and clock of Options.IndexLedger when one is given.
func (r *indexRuns) indexLedger(s *Server) *indexstatus.Ledger {
	if r.ledger != nil {
		return r.ledger
	}
	l := s.opts.IndexLedger
	if is := s.indexStore(); is != nil && (l == nil || !l.Shared()) {
		q, clock := indexstatus.Quota{}, indexstatus.Clock(nil)
		if l != nil {
			q, clock = l.Quota(), l.Clock()
		}
		l = indexstatus.NewSharedLedger(q, clock, IndexCounter(is))
	}
	if l == nil {
		l = indexstatus.NewLedger(indexstatus.Quota{}, nil)
	}
	r.ledger = l
	return l
}

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

// analysisPages reads and decodes the report of the account's analysis
// id, and returns the func that ends its admission, called once the
// report is no longer used. The decode is admitted as a report read
// (KindReport), as an MCP tool's is: one at a time per account (a second
// is 429 at once) and mcpserver.ReportDecodeFactor times the stored size
// reserved from the memory budget until done. Without it one account's
// requests could decode any number of its largest reports at once,
// outside the budget every account's work shares.
//
// bytes is the memory the decoded report takes, as reserved.
func (x indexField) analysisPages(ctx context.Context, account, id string) (rep *crawler.SiteReport, bytes int64, done func(), err error) {
	job, res, err := x.s.Analyses().Get(ctx, account, id)
	if err != nil {
		return nil, 0, nil, err
	}
	if !service.HasResult(job) || res == nil {
		return nil, 0, nil, conflict("the analysis has no report yet (status " + job.Status + ")")
	}
	bytes = int64(res.Size()) * mcpserver.ReportDecodeFactor
	done, err = x.s.adm.acquireSlot(ctx, KindReport, account, bytes, false)
	if err != nil {
		return nil, 0, nil, err
	}
	if rep, err = mcpserver.DecodeReport(ctx, res); err != nil {
		done()
		return nil, 0, nil, err
	}
	return rep, bytes, done, nil
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
	if req.Property != "" {
		// A property not granted is refused before the report is read.
		prop, err := indexstatus.ParseProperty(req.Property)
		if err != nil {
			return nil, err
		}
		if err := x.mayInspect(ctx, account, prop); err != nil {
			return nil, err
		}
	}
	// The decode is admitted until Start returns; the run then goes on
	// with the report (one run per analysis).
	rep, bytes, done, err := x.analysisPages(ctx, account, id)
	if err != nil {
		return nil, err
	}
	defer done()
	prop := req.Property
	if prop == "" {
		prop = "sc-domain:" + rep.Domain
	}
	if prop, err = indexstatus.ParseProperty(prop); err != nil {
		return nil, err
	}
	if err := x.mayInspect(ctx, account, prop); err != nil {
		return nil, err
	}
	// The run is admitted as an index status run (KindIndexRun) for as
	// long as it goes on with the decoded report: one of the account's
	// at a time on this server, the decode's memory held in the budget.
	// Refused, a second start of the account's running run answers it.
	hold, err := s.adm.acquireSlot(ctx, KindIndexRun, account, bytes, false)
	if err != nil {
		var le *service.LimitError
		if errors.As(err, &le) {
			if cur, _ := x.Get(ctx, account, id); cur != nil && cur.Status == service.IndexRunning {
				return cur, nil
			}
		}
		return nil, err
	}
	if err := s.charge(ctx, account, researchCost); err != nil {
		hold()
		return nil, err
	}
	r := &s.idx
	r.mu.Lock()
	ledger := r.indexLedger(s)
	r.mu.Unlock()
	if is := s.indexStore(); is != nil {
		return x.startStored(ctx, is, ledger, account, id, prop, req, rep, hold)
	}
	r.mu.Lock()
	if r.runs == nil {
		r.runs = map[string]*service.IndexStatusRun{}
	}
	k := key(account, id)
	if cur := r.runs[k]; cur != nil && cur.Status == service.IndexRunning {
		v := *cur
		r.mu.Unlock()
		hold()
		return &v, nil
	}
	run := &service.IndexStatusRun{AnalysisID: id, Property: prop, Status: service.IndexRunning, StartedAt: s.now().UTC()}
	r.put(k, run)
	v := *run
	r.mu.Unlock()
	opts := x.runOptions(account, req, ledger, func(p indexstatus.Progress) {
		r.mu.Lock()
		run.Progress = p
		r.mu.Unlock()
	})
	started := s.goBackground(func(bg context.Context) {
		defer hold()
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
		hold()
		r.mu.Lock()
		run.Status, run.Error = service.IndexFailed, "the server is shutting down"
		v = *run
		r.mu.Unlock()
	}
	return &v, nil
}

// mayInspect refuses, with a *service.ForbiddenError naming the property,
// a property Options.IndexAccess does not grant the account (nil grants
// none): the server inspects with one identity for every account.
func (x indexField) mayInspect(ctx context.Context, account, prop string) error {
	if f := x.s.opts.IndexAccess; f != nil {
		ok, err := f(ctx, account, prop)
		if err != nil || ok {
			return err
		}
	}
	return &service.ForbiddenError{Message: "this account may not inspect the Search Console property " + prop +
		": the server's operator grants properties to accounts (seokit's example server: -gsc-grant ACCOUNT=" + prop + ")"}
}

// runOptions are the options of a run for account: its units charged as
// it goes, progress reported to progress.
func (x indexField) runOptions(account string, req service.IndexStatusRequest, ledger *indexstatus.Ledger, progress func(indexstatus.Progress)) *indexstatus.Options {
	made := 0
	return &indexstatus.Options{
		SampleSize: req.SampleSize, Ledger: ledger,
		Charge: func(ctx context.Context) error {
			made++
			if made == 1 || (made-1)%service.IndexInspectionsPerUnit != 0 {
				return nil // the request's unit pays for the first hundred
			}
			return x.s.charge(ctx, account, 1)
		},
		Progress: progress,
	}
}

// startStored starts a run kept in the store: one per analysis across
// instances, its progress and lease saved every indexRunSave, and, once
// done, its findings merged into the analysis's report and the project's
// alert rules evaluated on it.
func (x indexField) startStored(ctx context.Context, is store.IndexStatus, ledger *indexstatus.Ledger, account, id, prop string,
	req service.IndexStatusRequest, rep *crawler.SiteReport, hold func()) (*service.IndexStatusRun, error) {
	s := x.s
	now := s.now().UTC()
	prog, _ := json.Marshal(indexstatus.Progress{})
	row := &store.IndexRun{AccountID: account, AnalysisID: id, Property: prop, StartedAt: now, LeaseUntil: now.Add(indexRunLease), Progress: prog}
	cur, started, err := is.StartIndexRun(ctx, row)
	if err != nil {
		hold()
		return nil, err
	}
	if !started {
		hold()
		return indexRunView(cur, now), nil
	}
	var (
		mu      sync.Mutex
		changed bool
	)
	save := func(ctx context.Context) error {
		mu.Lock()
		v := *row
		changed = false
		mu.Unlock()
		return is.UpdateIndexRun(ctx, &v)
	}
	opts := x.runOptions(account, req, ledger, func(p indexstatus.Progress) {
		b, _ := json.Marshal(p)
		mu.Lock()
		row.Progress, changed = b, true
		mu.Unlock()
	})
	view := indexRunView(row, now)
	started = s.goBackground(func(bg context.Context) {
		defer hold()
		stop, saved := make(chan struct{}), make(chan struct{})
		go func() {
			defer close(saved)
			t := time.NewTicker(indexRunSave)
			defer t.Stop()
			renewed := s.now()
			for {
				select {
				case <-stop:
					return
				case <-t.C:
				}
				mu.Lock()
				due := changed || s.now().Sub(renewed) >= indexRunLease/4
				if due {
					renewed = s.now()
					row.LeaseUntil, row.UpdatedAt = renewed.Add(indexRunLease).UTC(), renewed.UTC()
				}
				mu.Unlock()
				if due {
					if err := save(bg); err != nil && bg.Err() == nil {
						s.log.Warn("index status progress not stored", "analysis", id, "err", err)
					}
				}
			}
		}()
		out, err := indexstatus.Run(bg, rep, s.opts.Inspector, prop, opts)
		close(stop)
		<-saved
		wctx, cancel := context.WithTimeout(context.WithoutCancel(bg), 30*time.Second)
		defer cancel()
		mu.Lock()
		row.LeaseUntil, row.UpdatedAt = time.Time{}, s.now().UTC()
		if err != nil {
			row.Status, row.Error = store.IndexFailed, err.Error()
		} else {
			b, merr := json.Marshal(out)
			if merr == nil && len(b) <= store.MaxIndexRunBytes {
				row.Status, row.Report, row.Property = store.IndexSucceeded, b, out.Property
			} else {
				row.Status, row.Error = store.IndexFailed, fmt.Sprintf("the report (%d bytes) could not be stored", len(b))
			}
		}
		mu.Unlock()
		if row.Status == store.IndexSucceeded {
			if err := x.mergeIndex(wctx, is, account, id, rep, out); err != nil {
				s.log.Warn("index status findings not merged into the analysis", "analysis", id, "err", err)
			}
		}
		if err := save(wctx); err != nil {
			s.log.Warn("index status run not stored", "analysis", id, "err", err)
		}
	})
	if !started {
		hold()
		row.Status, row.Error, row.LeaseUntil = store.IndexFailed, "the server is shutting down", time.Time{}
		if err := save(ctx); err != nil {
			return nil, err
		}
		view = indexRunView(row, now)
	}
	return view, nil
}

// mergeIndex merges out's findings into the analysis's stored report
// (indexstatus.Merge, with the job's summary made anew) and evaluates the
// alert rules of the analysis's project on the merged report, as on a
// finished analysis: index.* findings the project's previous analysis did
// not have fire its new_findings rules.
func (x indexField) mergeIndex(ctx context.Context, is store.IndexStatus, account, id string, rep *crawler.SiteReport, out *indexstatus.Report) error {
	indexstatus.Merge(rep, out)
	b, err := json.Marshal(rep)
	if err != nil {
		return err
	}
	if err := is.ReplaceJobResult(ctx, account, id, b, jobSummary(rep)); err != nil {
		return err
	}
	j, err := x.s.st.Job(ctx, account, id)
	if err != nil {
		return err
	}
	x.s.alertsOnFinish(ctx, j)
	return nil
}

// indexRunView is the API's view of a stored run at now: a run still
// "running" past its lease lost the instance running it, and says so.
func indexRunView(r *store.IndexRun, now time.Time) *service.IndexStatusRun {
	v := &service.IndexStatusRun{AnalysisID: r.AnalysisID, Property: r.Property, Status: r.Status, StartedAt: r.StartedAt, Error: r.Error}
	if len(r.Progress) > 0 {
		_ = json.Unmarshal(r.Progress, &v.Progress)
	}
	if len(r.Report) > 0 {
		var rep indexstatus.Report
		if err := json.Unmarshal(r.Report, &rep); err == nil {
			v.Report = &rep
		} else {
			v.Status, v.Error = service.IndexFailed, "the stored report cannot be read"
		}
	}
	if r.Status == store.IndexRunning && !r.LeaseUntil.IsZero() && !now.Before(r.LeaseUntil) {
		v.Status = service.IndexFailed
		v.Error = fmt.Sprintf("interrupted: the server running it stopped after %d of %d sampled pages (last saved %s); "+
			"the inspections it made count against the property's quota; start the run again", v.Progress.Done, v.Progress.Total, r.UpdatedAt.UTC().Format(time.RFC3339))
	}
	return v
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
	if is := x.s.indexStore(); is != nil {
		row, err := is.IndexRun(ctx, account, id)
		if errors.Is(err, store.ErrNotFound) {
			return nil, notFound("no index status run of analysis " + id + "; start one with POST")
		}
		if err != nil {
			return nil, err
		}
		return indexRunView(row, x.s.now()), nil
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
	src := s.opts.FieldVitals
	if src == nil {
		return nil, &service.NotConfiguredError{What: "field Web Vitals (Chrome UX Report)"}
	}
	var lab *fieldvitals.Lab
	if req.AnalysisID != "" {
		// The page's lab values are all the answer takes of the report:
		// it is let go before CrUX is asked.
		rep, _, done, err := x.analysisPages(ctx, account, req.AnalysisID)
		if err != nil {
			if ae, _ := toAPIError(err); ae.Status == http.StatusNotFound {
				return nil, invalid("analysisId", "no analysis "+req.AnalysisID+" of this account")
			}
			return nil, err
		}
		lab = &fieldvitals.Lab{}
		for i := range rep.Pages {
			p := &rep.Pages[i]
			if p.URL == q.URL || (q.Origin != "" && p.URL == q.Origin+"/") {
				*lab = fieldvitals.Lab{LCPMs: p.LCPMs, CLS: p.CLS, TBTMs: p.TBTMs}
				break
			}
		}
		done()
	}
	cost := 1
	if req.History {
		cost = 2
	}
	// One lookup of the account at a time (KindField): the CrUX key's
	// queries are every account's, so the account's next lookup is 429
	// until this one's queries are answered. Admitted before the charge,
	// so a refusal costs no units.
	release, err := s.adm.acquireSlot(ctx, KindField, account, 0, false)
	if err != nil {
		return nil, err
	}
	defer release()
	if err := s.chargeFor(ctx, account, cost, "a lookup with history"); err != nil {
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
	if lab != nil {
		out.Lab = lab
		out.Compare, out.Explanation = fieldvitals.Compare(*lab, out.Record), fieldvitals.Explanation
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
