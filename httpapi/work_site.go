package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/seo"
)

// The work of a site analysis: runJob, the server's RunFunc, runs one
// stored job through named phases (load, register, prepare, admit, start,
// open frontier, crawl, outcome, finish). The queue (local or River) only
// decides where and when; the job's state lives in the store and each
// phase moves it.

// resume hands the queue the jobs a previous server left unfinished. A
// running crawl continues from its frontier (Options.Frontiers). Callbacks
// still pending are in the outbox, sent by its worker.
func (s *Server) resume(ctx context.Context) error {
	js, err := s.st.Unfinished(ctx)
	if err != nil {
		return err
	}
	for _, j := range js {
		if waiting(&j) {
			continue // a scheduled run waiting for a slot: startWaiting starts it
		}
		if err := s.queue.Enqueue(ctx, &j); err != nil {
			return fmt.Errorf("httpapi: resume job %s: %w", j.ID, err)
		}
	}
	return nil
}

// siteRun is one run of a site analysis: the job and what its phases
// share. A phase that ends the run returns end true and the RunFunc's
// error.
type siteRun struct {
	s    *Server
	wctx context.Context // the worker's: its deadline is the job timeout
	ctx  context.Context // store writes (storeCtx)
	jctx context.Context // the crawl: canceled by DELETE, a cancel seen elsewhere, or Close
	// cancel cancels jctx with its cause (errCanceledByUser).
	cancel context.CancelCauseFunc

	j   *store.Job
	req SiteRequest
	co  crawler.Options

	front        crawler.Frontier
	keepFrontier bool // an interrupted run leaves its frontier for the next
	counter      crawler.SummaryCounter

	pmu    sync.Mutex
	latest *crawler.Progress
}

// runJob is the Work of a site analysis: it runs one stored job to its
// end. wctx is the worker's context.
func (s *Server) runJob(wctx context.Context, accountID, id string) error {
	ctx, cancelStore := s.storeCtx(wctx)
	defer cancelStore()
	r := &siteRun{s: s, wctx: wctx, ctx: ctx}
	if end, err := r.load(accountID, id); end {
		return err
	}
	defer r.register()()
	if end, err := r.prepare(); end {
		return err
	}
	release, end, err := r.admit()
	if end {
		return err
	}
	defer release()
	if end, err := r.start(); end {
		return err
	}
	if end, err := r.openFrontier(); end {
		return err
	}
	defer r.closeFrontier()
	rep, runErr := r.crawl()
	if end, err := r.outcome(rep); end {
		return err
	}
	r.record(rep, runErr)
	err = s.finish(ctx, r.j)
	// A final state not stored runs again, on the same frontier.
	r.keepFrontier = errors.Is(err, ErrJobInterrupted)
	return err
}

// load reads the job; one gone or already final ends the run.
func (r *siteRun) load(accountID, id string) (end bool, err error) {
	s := r.s
	if err := s.retry(r.ctx, "load job", func(ctx context.Context) (err error) {
		r.j, err = s.st.Job(ctx, accountID, id)
		return err
	}); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return true, nil
		}
		return true, interrupted(id, err)
	}
	if r.j.Status.Done() {
		return true, nil // its callback, if any, is in the outbox
	}
	return false, nil
}

// register makes the job's crawl context, which DELETE on this server
// (cancelSite) and Close cancel, and returns its release.
func (r *siteRun) register() (release func()) {
	s := r.s
	jctx, cancel := context.WithCancelCause(r.wctx)
	stopServer := context.AfterFunc(s.ctx, func() { cancel(context.Canceled) })
	r.jctx, r.cancel = jctx, cancel
	s.mu.Lock()
	s.running[r.j.ID] = cancel
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		delete(s.running, r.j.ID)
		s.mu.Unlock()
		stopServer()
		cancel(nil)
	}
}

// prepare decodes the stored request into the crawl's options; a request
// that no longer reads or validates fails the job.
func (r *siteRun) prepare() (end bool, err error) {
	s, j := r.s, r.j
	req, err := s.openRequest(j.Request)
	if err != nil {
		j.Status, j.Error = store.JobFailed, "the stored request cannot be read"
		if errors.Is(err, errSealed) {
			j.Error = err.Error()
		}
		return true, s.finish(r.ctx, j)
	}
	co, err := s.crawlerOptions(j.ID, req)
	if err != nil {
		j.Status, j.Error = store.JobFailed, "the stored request is no longer valid: "+err.Error()
		return true, s.finish(r.ctx, j)
	}
	co.Screenshots = s.screenshotSink(j.ID, req)
	r.req, r.co = req, co
	return false, nil
}

// admit waits, queued, for a slot and the memory of the crawl's own
// state; a cancel ends the wait. The crawl's pages then reserve, as page
// analyses do, while they are analysed.
func (r *siteRun) admit() (release func(), end bool, err error) {
	s, j := r.s, r.j
	release, err = s.adm.acquireSlot(r.jctx, KindSite, j.AccountID, crawler.EstimateMemory(&r.co), true)
	if err == nil {
		return release, false, nil
	}
	var rf interface{ PublicMessage() string } // a *service.LimitError or *service.BusyError
	switch {
	case context.Cause(r.jctx) == errCanceledByUser:
		return nil, true, s.ended(r.ctx, j)
	case errors.As(err, &rf):
		j.Status, j.Error = store.JobFailed, rf.PublicMessage()
		return nil, true, s.finish(r.ctx, j)
	}
	return nil, true, interrupted(j.ID, err) // stopping: the job stays queued
}

// start stores the job as running; a job canceled before it ends the
// run.
func (r *siteRun) start() (end bool, err error) {
	s, j := r.s, r.j
	now := s.now().UTC()
	// A job resumed after an interruption keeps the time it first started.
	if j.StartedAt.IsZero() {
		j.StartedAt = now
	}
	j.Status, j.UpdatedAt, j.Progress, j.Error = store.JobRunning, now, nil, ""
	err = s.retry(r.ctx, "start job", func(ctx context.Context) error { return s.st.UpdateJob(ctx, j) })
	switch {
	case errors.Is(err, store.ErrConflict):
		return true, s.ended(r.ctx, j) // canceled before it started
	case err != nil:
		return true, interrupted(j.ID, err)
	}
	return false, nil
}

// openFrontier opens the job's frontier: what an earlier run left is
// resumed. One that cannot be opened fails the job, unless the run is
// stopping.
func (r *siteRun) openFrontier() (end bool, err error) {
	s, j := r.s, r.j
	front, err := s.openFrontier(r.jctx, j, &r.co)
	if err != nil {
		if r.jctx.Err() != nil {
			return true, interrupted(j.ID, err)
		}
		s.log.Error("site analysis frontier not opened", "job", j.ID, "err", err)
		j.Status, j.Error = store.JobFailed, "the site analysis could not start: its "+componentName(s.opts.Frontiers, "crawl frontier")+" is unavailable; try again later"
		return true, s.finish(r.ctx, j)
	}
	r.front = front
	if _, shared := front.(crawler.SharedFrontier); shared {
		r.counter, _ = front.(crawler.SummaryCounter)
	}
	return false, nil
}

// closeFrontier closes the frontier and removes it unless the run left
// it for the next.
func (r *siteRun) closeFrontier() {
	if r.front == nil {
		return
	}
	if err := r.front.Close(); err != nil {
		r.s.log.Warn("site analysis frontier not closed", "job", r.j.ID, "err", err)
	}
	if !r.keepFrontier {
		r.s.removeFrontier(r.ctx, r.j.ID)
	}
}

// crawl runs the crawl, with the progress watcher beside it.
func (r *siteRun) crawl() (*crawler.SiteReport, error) {
	r.co.Progress = func(p crawler.Progress) {
		r.pmu.Lock()
		r.latest = &p
		r.pmu.Unlock()
	}
	r.co.ProgressInterval = 500 * time.Millisecond
	stop := r.watch()
	start := r.req.Domain
	if r.req.URL != "" {
		start = r.req.URL
	}
	rep, err := crawler.New(&r.co).Run(r.jctx, start)
	stop()
	return rep, err
}

// progress returns the latest progress the crawl reported, nil before
// the first.
func (r *siteRun) progress() *crawler.Progress {
	r.pmu.Lock()
	defer r.pmu.Unlock()
	return r.latest
}

// watch starts the progress watcher and returns its stop, which waits
// for it. The watcher writes progress at most once a second, and notices
// a cancel made on another instance: the progress write is refused (the
// job is final), or, with no new progress, a read shows it.
func (r *siteRun) watch() (stop func()) {
	s, j := r.s, r.j
	stopWatch := make(chan struct{})
	watchDone := make(chan struct{})
	go func() {
		defer close(watchDone)
		t := time.NewTicker(time.Second)
		defer t.Stop()
		var saved *crawler.Progress
		for {
			select {
			case <-stopWatch:
				return
			case <-t.C:
			}
			if p := r.progress(); p != nil && p != saved {
				saved = p
				c := *j
				c.Progress = progressJSON(s.sharedProgress(r.jctx, r.counter, p), s.now())
				c.UpdatedAt = s.now().UTC()
				err := s.st.UpdateJob(r.jctx, &c)
				if err == nil || errors.Is(err, context.Canceled) {
					continue
				}
				if !errors.Is(err, store.ErrConflict) {
					s.log.Warn("job progress not saved", "job", j.ID, "err", err)
					continue
				}
			}
			if cur, err := s.st.Job(r.jctx, j.AccountID, j.ID); err == nil && cur.Status.Done() {
				r.cancel(errCanceledByUser)
				return
			}
		}
	}()
	return func() {
		close(stopWatch)
		<-watchDone
	}
}

// outcome reads why the crawl ended: a cancel ends the run, a job
// timeout fails the job, a stop leaves it (and its frontier) for another
// run.
func (r *siteRun) outcome(rep *crawler.SiteReport) (end bool, err error) {
	s, j := r.s, r.j
	switch cause := context.Cause(r.jctx); {
	case cause == errCanceledByUser:
		r.keepPartial(rep)
		return true, s.ended(r.ctx, j)
	case errors.Is(r.wctx.Err(), context.DeadlineExceeded):
		j.Status, j.Error = store.JobFailed, "the site analysis took longer than the job timeout"
		s.log.Warn("site analysis timed out", "job", j.ID)
	case r.jctx.Err() != nil:
		r.keepFrontier = true
		return true, interrupted(j.ID, cause) // stopping: the job stays unfinished and runs again
	}
	return false, nil
}

// keepPartial stores, with a job canceled while it ran, the report of
// what its crawl had fetched (stopReason "canceled"), when the store keeps
// such results and the report fits the stored cap; a cancel then loses no
// work.
func (r *siteRun) keepPartial(rep *crawler.SiteReport) {
	s, j := r.s, r.j
	cr, ok := s.st.(store.CanceledResults)
	if !ok {
		return
	}
	res := r.partialResult(rep, "canceled")
	if res == nil {
		return
	}
	if err := cr.KeepCanceledResult(r.ctx, j.AccountID, j.ID, res, jobSummary(rep), progressFromReport(rep, s.now())); err != nil {
		s.log.Warn("partial report of a canceled site analysis not kept", "job", j.ID, "err", err)
	}
}

// partialResult is the stored form of the report of a crawl that did not
// finish (a canceled or timed-out job's, named by how), nil when it
// fetched no page or does not fit the stored cap.
func (r *siteRun) partialResult(rep *crawler.SiteReport, how string) []byte {
	if rep == nil || rep.Crawl.Fetched == 0 {
		return nil
	}
	res, err := json.Marshal(rep)
	if err != nil || len(res) > r.s.resultCap() {
		r.s.log.Warn("partial report of a "+how+" site analysis not kept", "job", r.j.ID, "bytes", len(res), "err", err)
		return nil
	}
	return res
}

// keepTimedOut sets, with a job the job timeout failed, the report of
// what its crawl had fetched (stopReason "time_budget": the job's time was
// spent), when it fetched a page and the report fits the stored cap: hours
// of crawling are not lost. Job.ErrorCode is then "job_timeout"
// (service.JobErrorCode reads it from the summary).
func (r *siteRun) keepTimedOut(rep *crawler.SiteReport) {
	s, j := r.s, r.j
	if rep != nil {
		rep.Crawl.StopReason = crawler.StopTimeBudget
	}
	res := r.partialResult(rep, "timed-out")
	if res == nil {
		return
	}
	j.Result, j.Summary = res, jobSummary(rep)
	j.Error += fmt.Sprintf("; the report covers the %d pages crawled before it", rep.Crawl.Fetched)
	if p := progressFromReport(rep, s.now()); p != nil {
		j.Progress = p
	}
}

// record sets the job's final state from the crawl's report: its result
// (within the stored cap), summary and progress, or the failure.
func (r *siteRun) record(rep *crawler.SiteReport, runErr error) {
	s, j := r.s, r.j
	if p := r.progress(); p != nil {
		j.Progress = progressJSON(p, s.now())
	}
	switch {
	case j.Status == store.JobFailed: // timed out (outcome)
		r.keepTimedOut(rep)
	case runErr != nil:
		j.Status = store.JobFailed
		if ie, ok := seo.AsInputError(runErr); ok {
			j.Error = inputMessage(ie)
		} else {
			j.Error = "the site analysis failed"
			s.log.Error("site analysis failed", "job", j.ID, "err", runErr)
		}
	default:
		res, err := json.Marshal(rep)
		if err != nil {
			j.Status, j.Error = store.JobFailed, "the report could not be encoded"
			return
		}
		if len(res) > s.resultCap() {
			// Stored, it would be refused by every view of the job.
			j.Status = store.JobFailed
			j.Error = fmt.Sprintf("the report of %d bytes is larger than the %d MiB a job may store; analyse fewer pages (options.maxPages)",
				len(res), s.resultCap()>>20)
			s.log.Warn("site analysis report over the stored cap", "job", j.ID, "bytes", len(res))
			return
		}
		j.Status, j.Result = store.JobSucceeded, res
		j.Summary = jobSummary(rep)
		if msg := siteDownMessage(rep); msg != "" {
			// The site answered nothing: the job failed, with the report
			// that says how (Job.ErrorCode, monitor.KindSiteDown).
			j.Status, j.Error = store.JobFailed, msg
		}
		if p := progressFromReport(rep, s.now()); p != nil {
			j.Progress = p
		}
	}
}

// finish stores a job's final state, which queues its callback in the
// outbox (store.Jobs.UpdateJob), and wakes the outbox worker: the job's
// worker and slot never wait for a receiver.
func (s *Server) finish(ctx context.Context, j *store.Job) error {
	now := s.now().UTC()
	j.FinishedAt, j.UpdatedAt = now, now
	if j.CallbackURL != "" {
		j.CallbackState = "pending"
	}
	s.alertsOnFinish(ctx, j)
	err := s.retry(ctx, "finish job", func(ctx context.Context) error { return s.st.UpdateJob(ctx, j) })
	if errors.Is(err, store.ErrConflict) {
		return s.ended(ctx, j) // canceled meanwhile
	}
	if err != nil {
		return interrupted(j.ID, err) // stopping; runs again
	}
	s.pruneHistory(ctx, j)
	if j.CallbackURL != "" {
		s.wakeOutbox()
	}
	return nil
}

// ended ends the run of a job that ended elsewhere (canceled): the
// cancel queued its callback.
func (s *Server) ended(_ context.Context, j *store.Job) error {
	if j.CallbackURL != "" {
		s.wakeOutbox()
	}
	return nil
}

func progressJSON(p *crawler.Progress, now time.Time) []byte {
	b, _ := json.Marshal(JobProgress{
		PagesDone: p.Done, Errors: p.Errors, Queued: p.Queued, Skipped: p.Skipped,
		PagesPerSecond: p.PagesPerSecond, Current: p.Current, UpdatedAt: now.UTC(),
		Phase: p.Phase, External: p.External,
	})
	return b
}

func progressFromReport(rep *crawler.SiteReport, now time.Time) []byte {
	if rep == nil {
		return nil
	}
	b, _ := json.Marshal(JobProgress{
		PagesDone: rep.Crawl.Fetched, Errors: rep.Crawl.Errors, Queued: rep.Crawl.Queued,
		Skipped: rep.Crawl.Skipped + rep.Crawl.Blocked, PagesPerSecond: rep.Crawl.PagesPerSecond, UpdatedAt: now.UTC(),
	})
	return b
}
