package httpapi

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
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

// helperSep separates a job ID from the number of one of its helper runs
// in the job ID handed to the queue ("job_…~w1"): job IDs never hold it.
const helperSep = "~w"

// helperID returns the queue's job ID of helper run k of job id.
func helperID(id string, k int) string { return id + helperSep + strconv.Itoa(k) }

// parseHelperID splits a helper run's job ID into the job's ID; ok is false
// for the ID of a job itself.
func parseHelperID(id string) (jobID string, ok bool) {
	i := strings.LastIndex(id, helperSep)
	if i < 0 {
		return id, false
	}
	if _, err := strconv.Atoi(id[i+len(helperSep):]); err != nil {
		return id, false
	}
	return id[:i], true
}

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

// runHelper is a helper run of a job's shared crawl (openFrontier queued
// it): a crawler worker (crawler.Options.Worker) on the job's shared
// frontier and host gate, whose pages the job's own run reports. It ends
// when the crawl has nothing left, or the job has ended; a helper of a job
// not running, or whose crawl is over, does nothing.
func (s *Server) runHelper(wctx context.Context, accountID, jobID string) error {
	ctx, cancelStore := s.storeCtx(wctx)
	defer cancelStore()
	id := helperID(jobID, 0)
	running := func() (bool, error) {
		var j *store.Job
		err := s.retry(ctx, "load job", func(ctx context.Context) (err error) {
			j, err = s.st.Job(ctx, accountID, jobID)
			return err
		})
		if errors.Is(err, store.ErrNotFound) {
			return false, nil
		}
		return err == nil && j.Status == store.JobRunning, err
	}
	hg, ok := s.opts.Frontiers.(HostGates)
	if !ok {
		return nil
	}
	var j *store.Job
	if err := s.retry(ctx, "load job", func(ctx context.Context) (err error) {
		j, err = s.st.Job(ctx, accountID, jobID)
		return err
	}); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return nil
		}
		return interrupted(id, err)
	}
	if j.Status != store.JobRunning {
		return nil
	}
	req, err := s.openRequest(j.Request)
	if err != nil {
		return nil
	}
	jctx, cancel := context.WithCancel(wctx)
	defer cancel()
	stopServer := context.AfterFunc(s.ctx, cancel)
	defer stopServer()
	co, err := s.crawlerOptions(jobID, req)
	if err != nil {
		return nil // the job fails when run
	}
	co.Screenshots = s.screenshotSink(jobID, req)
	release, err := s.adm.acquireSlot(jctx, KindSite, accountID, crawler.EstimateMemory(&co), true)
	if err != nil {
		if jctx.Err() != nil {
			return interrupted(id, err)
		}
		return nil // this instance cannot take the crawl: the others do
	}
	defer release()
	f, err := s.opts.Frontiers.Open(jctx, jobID)
	if err != nil {
		s.log.Warn("shared crawl helper: frontier not opened", "job", jobID, "err", err)
		return nil
	}
	defer f.Close()
	sf, ok := f.(crawler.SharedFrontier)
	if !ok {
		return nil
	}
	if co.HostGate, err = hg.HostGate(jctx, jobID); err != nil {
		s.log.Warn("shared crawl helper: host gate not opened", "job", jobID, "err", err)
		return nil
	}
	// Wait for the job's run to queue the start; a crawl with nothing
	// pending and pages stored is over.
	counter, _ := f.(crawler.SummaryCounter)
	for deadline := time.Now().Add(helperStartWait); ; {
		q, fl, err := sf.Pending(jctx)
		if err != nil {
			return nil
		}
		if q+fl > 0 {
			break
		}
		if counter != nil {
			if c, err := counter.SummaryCounts(jctx); err != nil || c.Fetched+c.Blocked > 0 {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return nil
		}
		select {
		case <-time.After(200 * time.Millisecond):
		case <-jctx.Done():
			return interrupted(id, jctx.Err())
		}
	}
	co.Frontier, co.Worker = f, true

	// The watcher ends the helper when the job ends.
	watchDone := make(chan struct{})
	go func() {
		defer close(watchDone)
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-jctx.Done():
				return
			case <-t.C:
			}
			if run, err := running(); err == nil && !run {
				cancel()
				return
			}
		}
	}()
	start := req.Domain
	if req.URL != "" {
		start = req.URL
	}
	rep, err := crawler.New(&co).Run(jctx, start)
	stopping := s.ctx.Err() != nil || wctx.Err() != nil
	cancel()
	<-watchDone
	if err != nil && !stopping && jctx.Err() == nil {
		s.log.Warn("shared crawl helper failed", "job", jobID, "err", err)
	}
	if rep != nil {
		s.log.Info("shared crawl helper done", "job", jobID, "pages", rep.Crawl.Fetched)
	}
	if stopping {
		return interrupted(id, context.Canceled)
	}
	// A helper that outlived its job removes what it may have queued
	// since the job's run removed the crawl.
	if run, err := running(); err == nil && !run {
		s.removeFrontier(ctx, jobID)
	}
	return nil
}
