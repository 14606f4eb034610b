package httpapi

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/httpapi/store"
)

// Frontiers opens the frontier of each site analysis (Options.Frontiers):
// the crawl's queue, seen-set and, when it also implements
// crawler.SummaryStore, its page summaries. A job interrupted by a restart,
// a deploy or a killed worker runs again on the frontier its earlier run
// left: pages already fetched are replayed from their summaries, not
// fetched again. The sqlitefrontier package's Dir keeps one SQLite file per
// job on this instance; redisfrontier's Crawls keeps every job in Redis,
// shared by the instances.
//
// Open returns a new handle on the job's frontier, creating it when it
// does not exist; the caller closes it. Remove deletes the job's frontier
// once the job has ended; removing one that does not exist is not an
// error. Implementations must be safe for concurrent use.
type Frontiers interface {
	Open(ctx context.Context, jobID string) (crawler.Frontier, error)
	Remove(ctx context.Context, jobID string) error
}

// HostGates is an optional capability of Frontiers whose frontiers are
// shared by several instances (crawler.SharedFrontier): the host gate of a
// job, which holds the per-host rate and Crawl-delay across every worker
// of the job's crawl. With it, and a Queue shared by the instances, a large
// site analysis is crawled by several workers (Options.SharedCrawlPages).
type HostGates interface {
	HostGate(ctx context.Context, jobID string) (crawler.HostGate, error)
}

// Defaults of the shared crawl options.
const (
	DefaultSharedCrawlPages   = 5000
	DefaultSharedCrawlHelpers = 2
)

// crawlTemplate returns a deep copy of the server's crawl options
// template: every job gets its own slices and analyzer options, and no
// frontier or host gate of the template is shared between jobs (New
// refuses a template with one): they come from Options.Frontiers, per job.
func (s *Server) crawlTemplate() crawler.Options {
	var co crawler.Options
	if s.opts.CrawlerOptions != nil {
		co = *s.opts.CrawlerOptions
	}
	co.Frontier, co.HostGate, co.Progress, co.Worker = nil, nil, nil, false
	co.StripParams = slices.Clone(co.StripParams)
	if co.Analyzer != nil {
		ao := *co.Analyzer
		ao.Disable, ao.Mute, ao.Checks = slices.Clone(ao.Disable), slices.Clone(ao.Mute), slices.Clone(ao.Checks)
		co.Analyzer = &ao
	}
	return co
}

// openFrontier opens the job's frontier from Options.Frontiers and sets it
// in co, with the job's host gate when the frontier is shared. A large job
// on a shared frontier and a shared queue also asks the queue for helper
// runs (runHelper). Without Frontiers it returns nil: the crawl keeps an
// in-memory frontier of its own.
func (s *Server) openFrontier(ctx context.Context, j *store.Job, co *crawler.Options) (crawler.Frontier, error) {
	fs := s.opts.Frontiers
	if fs == nil {
		return nil, nil
	}
	f, err := fs.Open(ctx, j.ID)
	if err != nil {
		return nil, fmt.Errorf("httpapi: open the frontier of %s: %w", j.ID, err)
	}
	co.Frontier = f
	hg, ok := fs.(HostGates)
	if _, shared := f.(crawler.SharedFrontier); !shared || !ok {
		return f, nil
	}
	if co.HostGate, err = hg.HostGate(ctx, j.ID); err != nil {
		f.Close()
		return nil, fmt.Errorf("httpapi: open the host gate of %s: %w", j.ID, err)
	}
	pages := co.MaxPages
	if pages <= 0 {
		pages = crawler.DefaultMaxPages
	}
	if s.localQueue || pages < s.opts.SharedCrawlPages {
		return f, nil
	}
	for k := 1; k <= s.opts.SharedCrawlHelpers; k++ {
		h := &store.Job{ID: helperID(j.ID, k), AccountID: j.AccountID}
		if err := s.queue.Enqueue(ctx, h); err != nil {
			s.log.Warn("shared crawl helper not queued; the job's other workers crawl without it", "job", j.ID, "err", err)
		}
	}
	return f, nil
}

// removeFrontier deletes an ended job's frontier.
func (s *Server) removeFrontier(ctx context.Context, jobID string) {
	if s.opts.Frontiers == nil {
		return
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	if err := s.opts.Frontiers.Remove(rctx, jobID); err != nil {
		s.log.Warn("site analysis frontier not removed", "job", jobID, "err", err)
	}
}

// sharedProgress returns p with the pages counted by the shared frontier,
// those of every worker of the crawl, when counter is set.
func (s *Server) sharedProgress(ctx context.Context, counter crawler.SummaryCounter, p *crawler.Progress) *crawler.Progress {
	if counter == nil {
		return p
	}
	c, err := counter.SummaryCounts(ctx)
	if err != nil {
		return p
	}
	q := *p
	q.Done, q.Errors = max(q.Done, c.Fetched), max(q.Errors, c.Errors)
	if q.Elapsed > 0 {
		q.PagesPerSecond = float64(q.Done) / q.Elapsed.Seconds()
	}
	return &q
}

// helperStartWait bounds how long a helper run waits for its job's shared
// crawl to have pages queued.
const helperStartWait = 30 * time.Second

// runHelper is the Work of a helper run of a job's shared crawl
// (openFrontier queued it): a crawler worker (crawler.Options.Worker) on
// the job's shared frontier and host gate, whose pages the job's own run
// reports. It ends when the crawl has nothing left, or the job has ended;
// a helper of a job not running, or whose crawl is over, does nothing.
// Its phases: load, register, admit, open, await the start, crawl.
func (s *Server) runHelper(wctx context.Context, accountID, jobID string) error {
	hg, ok := s.opts.Frontiers.(HostGates)
	if !ok {
		return nil
	}
	ctx, cancelStore := s.storeCtx(wctx)
	defer cancelStore()
	h := &helperRun{s: s, wctx: wctx, ctx: ctx, accountID: accountID, jobID: jobID, id: helperID(jobID, 0)}
	if end, err := h.load(); end {
		return err
	}
	defer h.register()()
	release, end, err := h.admit()
	if end {
		return err
	}
	defer release()
	if end, err := h.open(hg); end {
		return err
	}
	defer h.front.Close()
	if end, err := h.awaitStart(); end {
		return err
	}
	return h.crawl()
}

// helperRun is one helper run of a shared crawl and what its phases
// share. A phase that ends the run returns end true and the RunFunc's
// error.
type helperRun struct {
	s         *Server
	wctx      context.Context // the worker's
	ctx       context.Context // store reads (storeCtx)
	jctx      context.Context // the crawl: canceled by the job's end, a stop or Close
	cancel    context.CancelFunc
	accountID string
	jobID     string
	id        string // the helper's ID in interruptions

	req    SiteRequest
	co     crawler.Options
	front  crawler.Frontier
	shared crawler.SharedFrontier
}

// running reports whether the job still runs; a job gone does not.
func (h *helperRun) running() (bool, error) {
	var j *store.Job
	err := h.s.retry(h.ctx, "load job", func(ctx context.Context) (err error) {
		j, err = h.s.st.Job(ctx, h.accountID, h.jobID)
		return err
	})
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	return err == nil && j.Status == store.JobRunning, err
}

// load reads the job and its crawl options; a job gone, not running or
// whose request no longer reads ends the run with nothing done (the job's
// own run reports the failure).
func (h *helperRun) load() (end bool, err error) {
	s := h.s
	var j *store.Job
	if err := s.retry(h.ctx, "load job", func(ctx context.Context) (err error) {
		j, err = s.st.Job(ctx, h.accountID, h.jobID)
		return err
	}); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return true, nil
		}
		return true, interrupted(h.id, err)
	}
	if j.Status != store.JobRunning {
		return true, nil
	}
	if h.req, err = s.openRequest(j.Request); err != nil {
		return true, nil
	}
	if h.co, err = s.crawlerOptions(h.jobID, h.req); err != nil {
		return true, nil // the job fails when run
	}
	h.co.Screenshots = s.screenshotSink(h.jobID, h.req)
	return false, nil
}

// register makes the helper's crawl context, which Close cancels, and
// returns its release.
func (h *helperRun) register() (release func()) {
	h.jctx, h.cancel = context.WithCancel(h.wctx)
	stopServer := context.AfterFunc(h.s.ctx, h.cancel)
	return func() {
		stopServer()
		h.cancel()
	}
}

// admit waits for a slot and the memory of the crawl's state, as the
// job's own run does; an instance that cannot take the crawl leaves it
// to the others.
func (h *helperRun) admit() (release func(), end bool, err error) {
	release, err = h.s.adm.acquireSlot(h.jctx, KindSite, h.accountID, crawler.EstimateMemory(&h.co), true)
	switch {
	case err == nil:
		return release, false, nil
	case h.jctx.Err() != nil:
		return nil, true, interrupted(h.id, err)
	}
	return nil, true, nil
}

// open opens the job's shared frontier and host gate; a frontier that is
// not shared, or that cannot be opened, ends the run (the job's own run
// crawls without the helper).
func (h *helperRun) open(hg HostGates) (end bool, err error) {
	s := h.s
	f, err := s.opts.Frontiers.Open(h.jctx, h.jobID)
	if err != nil {
		s.log.Warn("shared crawl helper: frontier not opened", "job", h.jobID, "err", err)
		return true, nil
	}
	sf, ok := f.(crawler.SharedFrontier)
	if !ok {
		f.Close()
		return true, nil
	}
	if h.co.HostGate, err = hg.HostGate(h.jctx, h.jobID); err != nil {
		s.log.Warn("shared crawl helper: host gate not opened", "job", h.jobID, "err", err)
		f.Close()
		return true, nil
	}
	h.front, h.shared = f, sf
	h.co.Frontier, h.co.Worker = f, true
	return false, nil
}

// awaitStart waits, for up to helperStartWait, for the job's run to queue
// the start; a crawl with nothing pending and pages stored is over.
func (h *helperRun) awaitStart() (end bool, err error) {
	counter, _ := h.front.(crawler.SummaryCounter)
	for deadline := time.Now().Add(helperStartWait); ; {
		q, fl, err := h.shared.Pending(h.jctx)
		if err != nil {
			return true, nil
		}
		if q+fl > 0 {
			return false, nil
		}
		if counter != nil {
			if c, err := counter.SummaryCounts(h.jctx); err != nil || c.Fetched+c.Blocked > 0 {
				return true, nil
			}
		}
		if time.Now().After(deadline) {
			return true, nil
		}
		select {
		case <-time.After(200 * time.Millisecond):
		case <-h.jctx.Done():
			return true, interrupted(h.id, h.jctx.Err())
		}
	}
}

// crawl runs the helper's crawl with a watcher that ends it when the job
// ends, then reads why it ended: a stop leaves the job's crawl to run
// again; a helper that outlived its job removes what it may have queued
// since the job's run removed the crawl.
func (h *helperRun) crawl() error {
	s := h.s
	watchDone := make(chan struct{})
	go func() {
		defer close(watchDone)
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-h.jctx.Done():
				return
			case <-t.C:
			}
			if run, err := h.running(); err == nil && !run {
				h.cancel()
				return
			}
		}
	}()
	start := h.req.Domain
	if h.req.URL != "" {
		start = h.req.URL
	}
	rep, err := crawler.New(&h.co).Run(h.jctx, start)
	stopping := s.ctx.Err() != nil || h.wctx.Err() != nil
	ended := h.jctx.Err() != nil // by the watcher: the job ended
	h.cancel()
	<-watchDone
	if err != nil && !stopping && !ended {
		s.log.Warn("shared crawl helper failed", "job", h.jobID, "err", err)
	}
	if rep != nil {
		s.log.Info("shared crawl helper done", "job", h.jobID, "pages", rep.Crawl.Fetched)
	}
	if stopping {
		return interrupted(h.id, context.Canceled)
	}
	if run, err := h.running(); err == nil && !run {
		s.removeFrontier(h.ctx, h.jobID)
	}
	return nil
}
