package crawler

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/net/html/atom"

	"github.com/seokit/seokit/analyzer"
	"github.com/seokit/seokit/seo"
	"github.com/seokit/seokit/seo/robotstxt"
)

// Crawler crawls one site at a time; it is safe to run several crawls of
// one Crawler concurrently.
type Crawler struct {
	opts Options
}

// New returns a crawler with the given options; nil means defaults.
func New(opts *Options) *Crawler {
	return &Crawler{opts: opts.resolved()}
}

// Stop reasons of CrawlStats.StopReason.
const (
	StopDone       = "done"
	StopMaxPages   = "max_pages"
	StopTimeBudget = "time_budget"
	StopByteBudget = "byte_budget"
	StopCanceled   = "canceled"
	// StopUnreachable: no URL of the site answered; CrawlStats.Unreachable
	// says how the start URL, or the robots.txt fetched before it, failed.
	StopUnreachable = "unreachable"
)

// crawl is the state of one Run.
type crawl struct {
	o       Options
	fetcher *seo.Fetcher
	robots  *robotstxt.Cache
	front   Frontier
	store   SummaryStore // nil unless the frontier keeps summaries
	// shared is set when the frontier is shared by several workers; worker
	// when this Run is not the one that reports (Options.Worker).
	shared SharedFrontier
	worker bool
	// targets is the shared frontier's SharedTargets, if it has it; asked
	// the target keys this worker claimed or saw taken (cr.mu).
	targets SharedTargets
	asked   map[string]bool
	// resumed counts the pages an earlier, interrupted run fetched, replayed
	// from the frontier's summaries when this run started.
	resumed int64
	sink    Sink
	pol     *politeness
	traps   *trapGuard
	norm    seo.NormalizeOptions
	ana     analyzer.Options
	ext     *extChecker // external link checks; nil with SkipExternalLinks
	// res checks in-scope images, scripts and stylesheets; nil with
	// SkipResourceChecks, and in the workers of a shared crawl without
	// SharedTargets.
	res *extChecker
	// sharedExt: the external links of this shared crawl's pages are
	// stored with their edges, for the coordinator to check.
	sharedExt bool

	// linkCache: what inScope made of the link targets seen so far.
	linkCache linkCache

	root     *url.URL
	rootHost string // host name without port
	rootPort string // explicit port of the start URL, "" for the default

	startedAt time.Time
	start     time.Time // monotonic

	// counters
	fetched atomic.Int64
	errs    atomic.Int64
	blocked atomic.Int64
	// robotsDown counts the URLs not fetched because their host's
	// robots.txt was unavailable (5xx, 429, no response): robots.txt said
	// nothing about them, so they are not counted as blocked.
	robotsDown atomic.Int64
	// answered counts the fetches that got a response (any status);
	// startErr is the start URL's fetch error when it got none.
	answered atomic.Int64
	startErr atomic.Pointer[seo.Unreachable]
	bytes    atomic.Int64
	admitted atomic.Int64
	admitCap int64
	overflow atomic.Bool // URLs were left out by the admission cap
	skipped  distinctCounter
	current  atomic.Pointer[string]
	phase    atomic.Value // string: PhaseCrawling ...

	mu      sync.Mutex // guards the fields below
	builder *siteBuilder
	// aside holds the sitemap URLs to queue once links run out, as builder
	// node ids (URL, listing sitemap); asideSeen is a bitset of the URL ids.
	aside     []asideItem
	asideSeen []uint64
	icons     []string // rel=icon targets of the start page

	shotsOmitted atomic.Int64 // screenshots the Screenshots sink refused

	resCache sync.Map // resource URL -> blocked bool (bounded by resCount)
	resCount atomic.Int64

	scope  *scopeFilter
	access http.Header // Scope's headers, credentials included; nil without

	// ownFrontier: the frontier is the crawl's own (none in Options),
	// closed with it. cleanups run when Run returns, the last first.
	ownFrontier bool
	cleanups    []func()
}

// Run crawls the site of domain (a host name with an optional port, or a
// start URL; see seo.ParseDomain) and returns its report. Without a scheme
// the home page is tried over https first, then http.
//
// With Options.Memory set, Run first reserves EstimateMemory of it, waiting
// as the budget decides, and releases it when it returns; an error from the
// budget (wrapping seo.ErrUnavailable, or ctx's error) is returned with no
// report.
//
// The report is returned even when the crawl stops early: StopReason says
// why. When ctx is cancelled Run returns the partial report together with
// an error wrapping ctx.Err(). A bad domain is an error wrapping
// seo.ErrInvalidInput.
func (c *Crawler) Run(ctx context.Context, domain string) (*SiteReport, error) {
	root, err := seo.ParseDomain(domain)
	if err != nil {
		return nil, err
	}
	scope, err := c.validate()
	if err != nil {
		return nil, err
	}
	if c.opts.Memory != nil {
		release, err := c.opts.Memory.Reserve(ctx, EstimateMemory(&c.opts))
		if err != nil {
			return nil, fmt.Errorf("crawler: memory: %w", err)
		}
		defer release()
	}
	if c.opts.MemoryLimit > 0 {
		defer memLimits.acquire(c.opts.MemoryLimit, heapLive).release()
	}
	cr := &crawl{o: c.opts, scope: scope, access: accessHeader(&c.opts.Scope)}
	defer cr.close()
	if err := cr.open(ctx, domain, root); err != nil {
		return nil, err
	}
	cr.openFrontier()
	cr.startTargetChecks(ctx)
	if err := cr.resume(ctx); err != nil {
		return nil, err
	}
	// robots.txt of the start host comes first, alone (it is fetched
	// outside the host's politeness slots); then site probes run alongside
	// the crawl, within them. A list crawl fetches its list alone.
	startRobots := cr.robots.Get(ctx, cr.root)
	probes := make(chan probeResult, 1)
	if cr.worker || cr.scope.list {
		probes <- probeResult{}
	} else {
		go func() { probes <- cr.runProbes(ctx) }()
	}
	sitemaps, err := cr.seed(ctx, startRobots)
	if err != nil {
		return nil, err
	}

	cr.phase.Store(PhaseCrawling)
	stopProgress := cr.startProgress(ctx)
	reason, queued, runErr := cr.loop(ctx)
	if err := cr.finishTargetChecks(ctx); err != nil && runErr == nil {
		runErr = err
	}
	cr.phase.Store(PhaseFinishing)
	stopProgress()
	pr := <-probes

	rep := cr.report(cr.facts(ctx, reason, queued, startRobots, sitemaps, pr))
	if runErr != nil {
		return rep, runErr
	}
	return rep, nil
}

// validate checks the options Run cannot crawl with: unknown check IDs, a
// bad scope, extractors or segments. It returns the compiled scope.
func (c *Crawler) validate() (*scopeFilter, error) {
	if err := validateCheckIDs(c.opts.Analyzer); err != nil {
		return nil, err
	}
	scope, err := validateScope(&c.opts.Scope, c.opts.StripParams)
	if err != nil {
		return nil, err
	}
	if err := validateExtraction(c.opts.Analyzer); err != nil {
		return nil, err
	}
	var extract []analyzer.Extractor
	if c.opts.Analyzer != nil {
		extract = c.opts.Analyzer.Extract
	}
	if err := ValidateSegmentsFor(c.opts.Segments, extract); err != nil {
		return nil, err
	}
	if m := c.opts.MemoryLimit; m != 0 && m < MinMemoryLimit {
		return nil, &seo.InputError{Field: "memoryLimit", Value: fmt.Sprint(m), Reason: fmt.Sprintf("must be 0 (none) or at least %d bytes", MinMemoryLimit)}
	}
	return scope, nil
}

// open sets up the crawl of domain from root: the fetcher, the start URL
// (its scheme picked when domain has none) and the URL rules, robots.txt,
// politeness, trap guards and the analyzer's options. A start the fetcher
// refuses is an input error on "domain".
func (cr *crawl) open(ctx context.Context, domain string, root *url.URL) error {
	cr.startedAt = cr.o.Now().UTC()
	cr.start = time.Now()
	cr.fetcher = cr.o.Fetcher
	if cr.fetcher == nil {
		cr.fetcher = seo.NewFetcher(&seo.FetcherOptions{AllowPrivate: cr.o.AllowPrivate, UserAgent: cr.o.UserAgent})
	}
	if !strings.Contains(domain, "://") {
		root = cr.pickScheme(ctx, root)
	}
	cr.root = seo.NormalizeURL(root, nil)
	// A start the fetcher would refuse (a private address without
	// AllowPrivate) is the caller's error, not a site whose robots.txt and
	// pages all fail. A host that does not resolve is the crawl's to report.
	if _, err := cr.fetcher.CheckURL(ctx, cr.root.String()); errors.Is(err, seo.ErrForbiddenAddress) {
		if ie, ok := seo.AsInputError(err); ok {
			return ie.WithField("domain")
		}
		return err
	}
	cr.rootHost = cr.root.Hostname()
	cr.rootPort = cr.root.Port()
	cr.norm = seo.NormalizeOptions{SortQuery: cr.o.SortQuery, StripParams: append(append([]string(nil), cr.o.StripParams...), SessionParams...), KeepParams: cr.o.KeepParams}
	if !cr.scope.list {
		if err := cr.startScope(); err != nil {
			return err
		}
	}
	cr.robots = robotstxt.NewCache(robotstxt.FetcherFunc(agentFetcher{cr.fetcher, cr.o.UserAgent, cr.header, cr.o.RequestTimeout}), &robotstxt.CacheOptions{UserAgent: cr.o.RobotsToken})
	cr.pol = newPoliteness(&cr.o, cr.crawlDelay)
	cr.traps = newTrapGuard()
	cr.traps.year = cr.startedAt.Year() // date-named parameters are judged against the crawl's clock
	cr.skipped.limit = 1 << 17
	cr.admitCap = int64(cr.o.MaxQueuedURLs)
	cr.sink = cr.o.Sink
	cr.ana = cr.analyzerOptions()
	return nil
}

// close runs the crawl's cleanups, the last registered first.
func (cr *crawl) close() {
	for i := len(cr.cleanups) - 1; i >= 0; i-- {
		cr.cleanups[i]()
	}
}

// openFrontier takes the frontier of Options (a memory frontier when none,
// closed with the crawl), notes what it offers (stored summaries, sharing
// between workers) and starts the site builder.
func (cr *crawl) openFrontier() {
	cr.front = cr.o.Frontier
	cr.ownFrontier = cr.front == nil
	if cr.ownFrontier {
		cr.front = NewMemoryFrontier()
		cr.cleanups = append(cr.cleanups, func() { cr.front.Close() })
	}
	if s, ok := cr.front.(SummaryStore); ok {
		cr.store = s
	}
	if s, ok := cr.front.(SharedFrontier); ok {
		cr.shared = s
		cr.worker = cr.o.Worker
		if t, ok := s.(SharedTargets); ok {
			cr.targets = t
		}
	}
	cr.builder = newSiteBuilder(cr.root, &cr.o)
}

// startTargetChecks starts the checkers of external links and in-scope
// images, each within the crawl's time budget.
func (cr *crawl) startTargetChecks(ctx context.Context) {
	// The external links of a shared crawl are stored with each page's
	// edges; the coordinator checks them once every worker is done.
	cr.sharedExt = cr.shared != nil && !cr.o.SkipExternalLinks
	if !cr.o.SkipExternalLinks && !cr.worker {
		// External checks run within the crawl's time budget.
		ectx, ecancel := context.WithCancel(ctx)
		if cr.o.TimeBudget > 0 {
			ecancel()
			ectx, ecancel = context.WithTimeout(ctx, cr.o.TimeBudget)
		}
		cr.cleanups = append(cr.cleanups, ecancel)
		cr.ext = newExtChecker(ectx, cr.fetcher, &cr.o)
		cr.builder.link.ext = cr.ext
	}
	if !cr.o.SkipResourceChecks && (!cr.worker || cr.targets != nil) {
		// In-scope images, scripts and stylesheets are checked within the
		// crawl's time budget and per-host politeness; in a shared crawl
		// by the workers that claim them (SharedTargets), or else by the
		// coordinator from the targets every worker stored.
		rctx, rcancel := context.WithCancel(ctx)
		if cr.o.TimeBudget > 0 {
			rcancel()
			rctx, rcancel = context.WithTimeout(ctx, cr.o.TimeBudget)
		}
		cr.cleanups = append(cr.cleanups, rcancel)
		cr.res = newResourceChecker(rctx, cr.fetcher, &cr.o, cr.pol.acquire)
		cr.builder.link.res = cr.res
	}
}

// resume replays the pages an interrupted run of this crawl recorded in
// the frontier and counts the URLs it left queued as admitted.
func (cr *crawl) resume(ctx context.Context) error {
	// A shared crawl's summaries are read once, at the end, by the
	// coordinator (sharedReport).
	if cr.shared == nil {
		if err := cr.replay(ctx); err != nil {
			return err
		}
		cr.resumed = cr.fetched.Load()
	}
	n, err := cr.front.Len(ctx)
	if err != nil {
		return fmt.Errorf("crawler: frontier: %w", err)
	}
	cr.admitted.Add(int64(n))
	return nil
}

// seed queues the start URL (or the URL list of a list crawl) and reads
// the sitemaps named by startRobots, the start host's robots.txt, so the
// sitemap URLs are known before the crawl starts.
func (cr *crawl) seed(ctx context.Context, startRobots *robotstxt.Robots) (sitemapFacts, error) {
	start := []Item{{URL: cr.root.String(), Depth: 0, Source: SourceStart}}
	if cr.scope.list {
		var err error
		if start, err = cr.listItems(ctx); err != nil {
			return sitemapFacts{}, err
		}
	}
	if _, err := cr.push(ctx, start); err != nil {
		return sitemapFacts{}, err
	}
	var sitemaps sitemapFacts
	if !cr.worker {
		sitemaps = cr.readSitemaps(ctx, startRobots)
	}
	return sitemaps, nil
}

// startProgress starts reporting progress to Options.Progress, if set; the
// returned function stops it and waits for the last report.
func (cr *crawl) startProgress(ctx context.Context) (stop func()) {
	var progDone chan struct{}
	stopProg := make(chan struct{})
	if cr.o.Progress != nil {
		progDone = make(chan struct{})
		go progressLoop(cr.o.Progress, cr.o.ProgressInterval, func() Progress { return cr.progress(ctx) }, stopProg, progDone)
	}
	return func() {
		close(stopProg)
		if progDone != nil {
			<-progDone
		}
	}
}

// finishTargetChecks, once the pages are crawled, has the coordinator of a
// shared crawl read every worker's pages, then lets the image and external
// checks finish within Options.ExternalBudget.
func (cr *crawl) finishTargetChecks(ctx context.Context) error {
	var err error
	if cr.shared != nil && !cr.worker {
		err = cr.sharedReport(ctx)
	}
	if cr.ext != nil || cr.res != nil {
		cr.phase.Store(PhaseCheckingExternal)
	}
	if cr.res != nil {
		cr.res.finish(cr.o.ExternalBudget)
	}
	if cr.ext != nil {
		cr.ext.finish(cr.o.ExternalBudget)
	}
	return err
}

// report builds the site report from facts. The crawl's own sets are not
// needed by the site checks: they are released before the build, the
// memory peak of a large crawl.
func (cr *crawl) report(facts *crawlFacts) *SiteReport {
	if cr.ownFrontier {
		cr.front.Close()
	}
	cr.mu.Lock()
	defer cr.mu.Unlock()
	cr.asideSeen, cr.aside = nil, nil
	cr.resCache.Clear()
	cr.skipped.release()
	return cr.builder.build(facts)
}

// pickScheme tries the home page over https and falls back to http when
// https cannot be reached at all.
func (cr *crawl) pickScheme(ctx context.Context, root *url.URL) *url.URL {
	if root.Scheme != "https" {
		return root
	}
	pctx, cancel := context.WithTimeout(ctx, min(cr.o.RequestTimeout, 10*time.Second))
	defer cancel()
	resp, err := cr.fetcher.Fetch(pctx, &seo.Request{URL: root.String(), NoFollow: true, DiscardBody: true, UserAgent: cr.o.UserAgent, Header: accessHeader(&cr.o.Scope)})
	if err == nil || resp != nil {
		return root
	}
	u := *root
	u.Scheme = "http"
	return &u
}

func (cr *crawl) crawlDelay(host string) time.Duration {
	u := &url.URL{Scheme: cr.root.Scheme, Host: host, Path: "/"}
	ctx, cancel := context.WithTimeout(context.Background(), cr.o.RequestTimeout)
	defer cancel()
	d, ok := cr.robots.Get(ctx, u).CrawlDelay(cr.o.RobotsToken)
	if !ok {
		return 0
	}
	return d
}

// analyzerOptions returns the per-page analysis options of the crawl.
func (cr *crawl) analyzerOptions() analyzer.Options {
	var a analyzer.Options
	if cr.o.Analyzer != nil {
		a = *cr.o.Analyzer
	}
	a.CheckLinks, a.AnalyzeMobile = false, false
	a.Fetcher = cr.fetcher
	a.Robots = cr.robots
	a.UserAgent = cr.o.UserAgent
	a.Now = cr.o.Now
	a.Checks = append([]analyzer.Check(nil), a.Checks...)
	compileExtraction(&a)
	// The site-scope IDs and areas of Disable and Mute are the site
	// builder's; each page gets the rest.
	a.Disable, a.Mute = pageIDs(a.Disable), pageIDs(a.Mute)
	if rendering(&a) {
		// Subresources follow the crawl's robots.txt policy; the rendering
		// keeps its device's user agent (raw fetches carry UserAgent).
		a.RenderRequest.Allowed = cr.robotsAllowed()
	}
	if cr.o.Memory != nil {
		// Each page analysis reserves its own working set; the crawl's
		// reservation covers only the crawl's state (EstimateMemory).
		a.Memory = cr.o.Memory
	}
	return a
}

// replay feeds the summaries a resumable frontier kept from an earlier run.
func (cr *crawl) replay(ctx context.Context) error {
	if cr.store == nil {
		return nil
	}
	err := cr.store.Summaries(ctx, func(sum PageSummary, edges []Edge) error {
		edges = cr.replayTargets(sum.URL, edges)
		cr.record(sum, edges, nil)
		switch {
		case robotsUnavailable(&sum):
			cr.robotsDown.Add(1)
		case sum.RobotsBlocked:
			cr.blocked.Add(1)
		default:
			cr.fetched.Add(1)
			if sum.Status != 0 {
				cr.answered.Add(1)
			}
		}
		if isErrorSummary(sum) {
			cr.errs.Add(1)
		}
		cr.bytes.Add(sum.Bytes)
		cr.admitted.Add(1)
		return nil
	})
	if err != nil {
		return fmt.Errorf("crawler: replay summaries: %w", err)
	}
	return nil
}

// othersBusy reports whether the shared frontier still has items queued or
// in flight with any worker, and whether the global page cap stopped the
// crawl: items are queued, none is in flight anywhere, and the pages
// counted reached MaxPages, so no worker can pop again.
func (cr *crawl) othersBusy(ctx context.Context) (busy, capped bool, err error) {
	q, f, err := cr.shared.Pending(ctx)
	if err != nil {
		return false, false, err
	}
	if q == 0 || f > 0 {
		return q+f > 0, false, nil
	}
	pages, f, err := cr.shared.PagesCounted(ctx)
	if err != nil {
		return false, false, err
	}
	if f == 0 && pages >= cr.o.MaxPages {
		return true, true, nil
	}
	return true, false, nil
}

// returnPages gives back to a shared frontier's page count n popped items
// that this worker did not fetch as pages; it is called before their Done,
// so that a worker seeing nothing in flight also sees the count final. A
// failure only lowers the cap, which is an upper bound.
func (cr *crawl) returnPages(ctx context.Context, n int) {
	if cr.shared != nil && n > 0 {
		cr.shared.ReturnPages(ctx, n)
	}
}

// sharedReport feeds every worker's summaries of a shared crawl, and the
// answers of the targets they claimed, to the site builder; the crawl's
// counters then count the pages of all workers.
func (cr *crawl) sharedReport(ctx context.Context) error {
	cr.fetched.Store(0)
	cr.errs.Store(0)
	cr.blocked.Store(0)
	cr.robotsDown.Store(0)
	cr.answered.Store(0)
	cr.bytes.Store(0)
	if cr.targets != nil && cr.res != nil {
		if err := cr.loadClaimed(ctx); err != nil {
			return err
		}
	}
	return cr.replay(ctx)
}

func isErrorSummary(s PageSummary) bool {
	return !s.RobotsBlocked && (s.Error != "" || s.Status == 0 || s.Status >= 500)
}

// robotsUnavailablePrefix starts the Error of a URL not fetched because
// its host's robots.txt was unavailable.
const robotsUnavailablePrefix = "robots.txt unavailable"

// robotsUnavailableError says why a URL was not fetched when its host's
// robots.txt was unavailable.
func robotsUnavailableError(rb *robotstxt.Robots) string {
	if err := rb.Err(); err != nil {
		return robotsUnavailablePrefix + ": " + seo.Clip(err.Error())
	}
	return fmt.Sprintf("%s: status %d", robotsUnavailablePrefix, rb.Status())
}

// robotsUnavailable reports whether the URL of p was not fetched because
// its host's robots.txt was unavailable (5xx, 429 or no response), rather
// than disallowed by it.
func robotsUnavailable(p *PageSummary) bool {
	return p.RobotsBlocked && strings.HasPrefix(p.Error, robotsUnavailablePrefix)
}

// record adds a finished page to the site builder.
func (cr *crawl) record(sum PageSummary, edges []Edge, ids []int32) {
	cr.mu.Lock()
	defer cr.mu.Unlock()
	cr.builder.addPageIDs(sum, edges, ids)
}

// retryItem is an item answered 429/503, waiting for its host's back-off.
type retryItem struct {
	it      Item
	attempt int
	at      time.Time
	status  int // the 429 or 503 answer retried, 0 for a first try
}

// result is what a worker reports back to the loop.
type result struct {
	retry *retryItem
	err   error // fatal: frontier or sink failure
}

// loop dispatches items to a fixed pool of workers until the frontier is
// exhausted or a limit stops the crawl. It returns the stop reason, the
// number of URLs left queued, and a fatal error.
func (cr *crawl) loop(ctx context.Context) (reason string, queued int, fatal error) {
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	if cr.o.TimeBudget > 0 {
		var c2 context.CancelFunc
		runCtx, c2 = context.WithTimeout(runCtx, cr.o.TimeBudget)
		defer c2()
	}
	d := &dispatcher{cr: cr, ctx: runCtx, cancel: cancel, conc: cr.o.Concurrency, maxPages: int64(cr.o.MaxPages)}
	d.startWorkers()
	for d.fill() {
		if d.inflight == 0 {
			next := d.whenIdle()
			if next == idleStop {
				break
			}
			if next == idleAgain {
				continue
			}
		}
		if !d.await() {
			break
		}
	}
	aborted := d.drain()
	d.stopReason(ctx)
	return d.reason, cr.requeue(len(d.buf) + len(d.retries) + aborted), d.fatal
}

// dispatcher is the state of one crawl loop: the workers' channels, the
// items popped and not yet started, the items waiting to be retried, and
// the outcome so far (a stop reason, a fatal error).
type dispatcher struct {
	cr       *crawl
	ctx      context.Context // the crawl's, within its time budget
	cancel   context.CancelFunc
	conc     int
	maxPages int64

	work    chan retryItem
	results chan result
	wg      sync.WaitGroup

	buf      []Item
	retries  []retryItem
	inflight int
	timer    *time.Timer
	poll     *time.Timer
	idle     int // polls in a row that found a shared crawl empty

	reason string
	fatal  error
}

// startWorkers starts the pool of workers that process the items sent on
// d.work and report on d.results.
func (d *dispatcher) startWorkers() {
	d.work = make(chan retryItem, d.conc)
	d.results = make(chan result, d.conc)
	for range d.conc {
		d.wg.Add(1)
		go func() {
			defer d.wg.Done()
			for w := range d.work {
				d.results <- d.cr.process(d.ctx, w)
			}
		}()
	}
}

// next returns the next item to start: a retry whose back-off is over,
// else one popped from the frontier; false when there is none now.
func (d *dispatcher) next() (retryItem, bool, error) {
	cr := d.cr
	now := time.Now()
	for i, r := range d.retries {
		if !r.at.After(now) {
			d.retries = append(d.retries[:i], d.retries[i+1:]...)
			return r, true, nil
		}
	}
	if len(d.buf) == 0 {
		var items []Item
		var err error
		if cr.shared != nil {
			// Take no more than can start now: popped items are
			// leased to this worker and idle for the others. The
			// frontier counts them against the global page cap.
			items, err = cr.shared.PopPages(d.ctx, d.conc-d.inflight, cr.o.MaxPages)
		} else {
			items, err = cr.front.Pop(d.ctx, d.conc)
		}
		if err != nil {
			return retryItem{}, false, err
		}
		d.buf = items
	}
	if len(d.buf) == 0 {
		return retryItem{}, false, nil
	}
	it := d.buf[0]
	d.buf = d.buf[1:]
	return retryItem{it: it}, true, nil
}

// fill starts items while workers are free and no limit is reached. It
// returns false when the loop must end: the frontier failed (d.fatal,
// unless the crawl's context ended).
func (d *dispatcher) fill() bool {
	cr := d.cr
	for d.reason == "" && d.inflight < d.conc {
		if cr.o.ByteBudget > 0 && cr.bytes.Load() >= cr.o.ByteBudget {
			d.reason = StopByteBudget
			break
		}
		if cr.fetched.Load()+int64(d.inflight) >= d.maxPages {
			break
		}
		w, ok, err := d.next()
		if err != nil {
			if d.ctx.Err() == nil {
				d.fatal = fmt.Errorf("crawler: frontier: %w", err)
			}
			return false
		}
		if !ok {
			break
		}
		d.inflight++
		d.idle = 0
		d.work <- w
	}
	return true
}

// idleAction is what the loop does once no item is in flight (whenIdle).
type idleAction int

const (
	idleStop  idleAction = iota // the crawl is over
	idleAgain                   // something may have been queued: fill again
	idleWait                    // items wait for a retry: await the first
)

// whenIdle decides what happens when no item is in flight: the crawl
// stops (a reason or a fatal error is set, the page cap is reached, or
// nothing is left anywhere), goes on (a shared crawl still busy elsewhere,
// sitemap URLs queued), or waits for its retries.
func (d *dispatcher) whenIdle() idleAction {
	cr := d.cr
	if d.reason != "" || d.fatal != nil {
		return idleStop
	}
	if cr.fetched.Load() >= d.maxPages {
		d.reason = StopMaxPages
		return idleStop
	}
	if len(d.retries) > 0 {
		return idleWait
	}
	if cr.shared != nil {
		// A shared crawl is over when no worker has anything
		// queued or in flight. Only then does the coordinator
		// queue the sitemap URLs no link reached, as a crawl
		// of one process does, so pages keep their link depth.
		busy, capped, err := cr.othersBusy(d.ctx)
		if err != nil {
			if d.ctx.Err() == nil {
				d.fatal = fmt.Errorf("crawler: frontier: %w", err)
			}
			return idleStop
		}
		if capped {
			d.reason = StopMaxPages
			return idleStop
		}
		if busy {
			d.idle = 0
		} else if cr.worker {
			d.idle++
		}
		// A worker waits a few polls more, giving the
		// coordinator time to queue those sitemap URLs.
		if busy || (cr.worker && d.idle < workerIdlePolls) {
			if d.poll == nil {
				d.poll = time.NewTimer(cr.o.SharedPoll)
			} else {
				d.poll.Reset(cr.o.SharedPoll)
			}
			select {
			case <-d.poll.C:
				return idleAgain
			case <-d.ctx.Done():
				return idleStop
			}
		}
	}
	if cr.flushAside(d.ctx) > 0 {
		return idleAgain
	}
	d.reason = StopDone
	return idleStop
}

// await waits for a worker's result or for the first retry's back-off to
// end. It returns false when the crawl's context ended.
func (d *dispatcher) await() bool {
	var tc <-chan time.Time
	if len(d.retries) > 0 {
		wait := time.Until(d.retries[0].at)
		for _, r := range d.retries[1:] {
			wait = min(wait, time.Until(r.at))
		}
		if d.timer == nil {
			d.timer = time.NewTimer(max(wait, 0))
		} else {
			d.timer.Reset(max(wait, 0))
		}
		tc = d.timer.C
	}
	select {
	case r := <-d.results:
		d.inflight--
		if r.err != nil && d.fatal == nil {
			d.fatal = r.err
			d.cancel()
		}
		if r.retry != nil {
			d.retries = append(d.retries, *r.retry)
		}
	case <-tc:
	case <-d.ctx.Done():
		return false
	}
	return true
}

// drain stops the workers and collects their last results; it returns how
// many items they gave up unfinished.
func (d *dispatcher) drain() (aborted int) {
	close(d.work)
	go func() { d.wg.Wait(); close(d.results) }()
	for r := range d.results {
		if r.err != nil && d.fatal == nil && !errors.Is(r.err, context.Canceled) && !errors.Is(r.err, context.DeadlineExceeded) {
			d.fatal = r.err
		}
		if r.retry != nil {
			aborted++
		}
	}
	if d.timer != nil {
		d.timer.Stop()
	}
	if d.poll != nil {
		d.poll.Stop()
	}
	return aborted
}

// stopReason sets the stop reason of a loop that ended without one: ctx
// (the caller's) cancelled, or the time budget spent.
func (d *dispatcher) stopReason(ctx context.Context) {
	switch {
	case d.reason != "":
	case ctx.Err() != nil:
		d.reason = StopCanceled
		if d.fatal == nil {
			d.fatal = fmt.Errorf("crawler: crawl stopped: %w", ctx.Err())
		}
	case d.ctx.Err() != nil && d.fatal == nil:
		d.reason = StopTimeBudget
	default:
		d.reason = StopCanceled
	}
}

// requeue gives back the pages of the left items popped and not finished
// (they are queued again when the frontier is closed or their lease runs
// out: their pages are not counted) and returns how many URLs are left
// queued: in the frontier, set aside, and left.
func (cr *crawl) requeue(left int) int {
	lctx, lcancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer lcancel()
	cr.returnPages(lctx, left)
	n, _ := cr.front.Len(lctx)
	cr.mu.Lock()
	n += len(cr.aside)
	cr.mu.Unlock()
	return n + left
}

// workerIdlePolls is how many polls in a row a worker of a shared crawl
// must find it empty before it stops.
const workerIdlePolls = 4

// asideItem is a sitemap URL waiting for the links to run out.
type asideItem struct{ loc, sitemap int32 }

// asideChunk is how many sitemap URLs flushAside turns into items at once.
const asideChunk = 1024

// flushAside queues the sitemap URLs no link led to, a chunk at a time
// until one adds something; it returns how many it added.
func (cr *crawl) flushAside(ctx context.Context) int {
	for {
		cr.mu.Lock()
		n := min(len(cr.aside), asideChunk)
		chunk := cr.aside[:n]
		cr.aside = cr.aside[n:]
		if len(cr.aside) == 0 {
			cr.aside = nil
		}
		items := make([]Item, len(chunk))
		for k, a := range chunk {
			items[k] = Item{URL: cr.builder.url(a.loc), Depth: -1, Source: SourceSitemap, Referrer: cr.builder.url(a.sitemap)}
		}
		cr.mu.Unlock()
		if len(items) == 0 {
			return 0
		}
		added, err := cr.front.Push(ctx, items)
		if err != nil {
			return 0
		}
		if added > 0 {
			return added
		}
	}
}

// process fetches, analyses and records one item.
func (cr *crawl) process(ctx context.Context, w retryItem) result {
	it, attempt := w.it, w.attempt
	u, err := seo.ParseHref(it.URL)
	if err != nil {
		cr.returnPages(ctx, 1)
		cr.front.Done(ctx, it.URL)
		return result{}
	}
	sum := PageSummary{URL: it.URL, Depth: depthPtr(it.Depth), ScoreReason: analyzer.ScoreNotFetched}
	if !cr.o.IgnoreRobots {
		if rb := cr.robots.Get(ctx, u); !rb.Allowed(cr.o.RobotsToken, seo.RequestTarget(u)) {
			if ctx.Err() != nil {
				return result{retry: &retryItem{it: it}}
			}
			sum.RobotsBlocked = true
			if rb.Unavailable() {
				// Not fetched, as search engines do, but robots.txt said
				// nothing: the summary says it was unavailable.
				sum.Error = robotsUnavailableError(rb)
				cr.robotsDown.Add(1)
			} else {
				cr.blocked.Add(1)
			}
			cr.returnPages(ctx, 1)
			return cr.finish(ctx, it, sum, nil, nil)
		}
	}
	host := u.Host
	release, err := cr.pol.acquire(ctx, host)
	if err != nil {
		if errors.Is(err, errHostAbandoned) {
			// A retry keeps the 429 or 503 it was answered: the page's
			// last word from the server, not "no answer".
			sum.Error = err.Error()
			sum.Status = w.status
			if w.status != 0 {
				sum.ScoreReason = analyzer.ScoreErrorStatus
				cr.answered.Add(1)
			}
			cr.fetched.Add(1)
			cr.errs.Add(1)
			return cr.finish(ctx, it, sum, nil, nil)
		}
		if ctx.Err() == nil && !errors.Is(err, context.DeadlineExceeded) {
			// The shared gate cannot be reached: stop rather than crawl
			// without the host's limit.
			return result{err: err}
		}
		return result{retry: &retryItem{it: it, attempt: attempt, status: w.status}}
	}
	fctx, cancel := ctx, context.CancelFunc(func() {})
	if cr.o.Fetcher != nil || cr.o.RequestTimeout < seo.DefaultFetchTimeout {
		// The crawl's own fetcher bounds each fetch by
		// seo.DefaultFetchTimeout already: a timer of the crawl's is
		// needed only for a shorter RequestTimeout, or with the caller's
		// fetcher, whose timeout is unknown.
		fctx, cancel = context.WithTimeout(ctx, cr.o.RequestTimeout)
	}
	bp := cr.pageBuffer()
	resp, ferr := cr.fetcher.Fetch(fctx, &seo.Request{URL: it.URL, NoFollow: true, UserAgent: cr.o.UserAgent, Header: cr.header(it.URL), Buffer: bytesOf(bp)})
	// The page is analysed and recorded before process returns: its body
	// is then free for the next page.
	defer recycleBody(bp, resp)
	cancel()
	release()
	if ctx.Err() != nil {
		// Stopped: the item stays popped but not done, so a durable
		// frontier queues it again on resume.
		return result{retry: &retryItem{it: it, attempt: attempt, status: w.status}}
	}
	cr.current.Store(&it.URL)
	if resp != nil {
		cr.bytes.Add(max(resp.BodyBytes, resp.TransferredBytes))
		if resp.Status == http.StatusTooManyRequests || resp.Status == http.StatusServiceUnavailable {
			wait := cr.pol.backoff(host, resp.Header.Get("Retry-After"))
			if attempt < maxRetries {
				return result{retry: &retryItem{it: it, attempt: attempt + 1, at: time.Now().Add(wait), status: resp.Status}}
			}
		} else if ferr == nil && resp.Status < 500 {
			cr.pol.success(host)
		}
	}
	cr.fetched.Add(1)
	if resp != nil && resp.Status != 0 {
		cr.answered.Add(1)
	}
	if ferr != nil && (resp == nil || resp.Status == 0) {
		if it.Source == SourceStart {
			if un := seo.NewUnreachable(it.URL, ferr); un != nil {
				cr.startErr.CompareAndSwap(nil, un)
			}
		}
		sum.Error = ferr.Error()
		sum.Status = 0
		cr.errs.Add(1)
		rep := &analyzer.Report{URL: it.URL, FinalURL: it.URL, Error: ferr.Error(), AnalyzedAt: cr.o.Now().UTC()}
		if cr.sink != nil {
			if err := cr.sink.Put(ctx, rep); err != nil {
				return result{err: fmt.Errorf("crawler: sink: %w", err)}
			}
		}
		return cr.finish(ctx, it, sum, nil, nil)
	}
	return cr.analyze(ctx, it, resp, ferr)
}

// pageGrab collects what the crawl needs from the parsed page, through a
// check run by the analyzer, so the document is parsed once.
type pageGrab struct {
	links   []analyzer.Link
	blocked []string
	icons   []string
	res     []pageResource
	refresh *url.URL // the page's refresh target (analyzer.Page.RefreshTarget)
}

// analyze parses and analyses a fetched page, summarises it, queues the
// URLs it leads to and records it.
func (cr *crawl) analyze(ctx context.Context, it Item, resp *seo.Response, ferr error) result {
	rep, g, err := cr.parse(ctx, it, resp)
	if err != nil {
		if ctx.Err() != nil {
			// Stopped while the page was analysed (a rendering waits for
			// the renderer): the item stays popped but not done.
			return result{retry: &retryItem{it: it}}
		}
		return result{err: fmt.Errorf("crawler: analyze %s: %w", it.URL, err)}
	}
	shot := cr.putScreenshot(ctx, it.URL, rep)
	if cr.sink != nil {
		if err := cr.sink.Put(ctx, rep); err != nil {
			return result{err: fmt.Errorf("crawler: sink: %w", err)}
		}
	}
	sum := cr.summarizePage(it, resp, ferr, rep, g, shot)
	edges, items, ids := cr.follow(ctx, it, resp, &sum, g)
	if len(items) > 0 {
		if _, err := cr.push(ctx, items); err != nil {
			if ctx.Err() != nil {
				return result{}
			}
			return result{err: err}
		}
	}
	if resp.Status == http.StatusOK && sum.IsHTML {
		// After the push: in a shared crawl the claimed targets are
		// checked now, and other workers need not wait for the links.
		es, err := cr.checkResources(ctx, it.URL, g.res)
		edges = append(edges, es...)
		if err != nil {
			if ctx.Err() != nil {
				return result{}
			}
			return result{err: err}
		}
	}
	return cr.finish(ctx, it, sum, edges, ids)
}

// parse analyses the fetched page, parsed once: the analyzer's checks run
// with one more that grabs what the crawl needs (links, robots-blocked
// scripts and styles, images, the start page's icons).
func (cr *crawl) parse(ctx context.Context, it Item, resp *seo.Response) (*analyzer.Report, *pageGrab, error) {
	var g pageGrab
	isStart := it.Depth == 0
	opts := cr.ana
	opts.Checks = append(cr.ana.Checks[:len(cr.ana.Checks):len(cr.ana.Checks)], analyzer.Check{
		Area: "crawler",
		Run: func(p *analyzer.Page, _ *analyzer.Reporter) {
			g.links = p.Links
			g.refresh = p.RefreshTarget()
			g.blocked = cr.blockedResources(ctx, p.Resources)
			if want := cr.resourceKinds(); want != ([numTargetKinds]bool{}) {
				g.res = pageResources(p, want)
			}
			if isStart {
				for _, n := range p.ByTag(atom.Link) {
					rel, _ := analyzer.Attr(n, "rel")
					href, _ := analyzer.Attr(n, "href")
					if href == "" {
						continue
					}
					for _, f := range strings.Fields(strings.ToLower(rel)) {
						if f == "icon" {
							if u := p.Resolve(href); u != nil {
								g.icons = append(g.icons, u.String())
							}
						}
					}
				}
			}
		},
	})
	rep, err := analyzer.AnalyzeResponse(ctx, resp, &opts)
	return rep, &g, err
}

// summarizePage returns the summary of the page of it analysed in rep,
// counts it as an error when it is one, and keeps the start page's icons.
func (cr *crawl) summarizePage(it Item, resp *seo.Response, ferr error, rep *analyzer.Report, g *pageGrab, shot bool) PageSummary {
	sum := summarize(rep, it.Depth)
	sum.URL = it.URL
	sum.Depth = depthPtr(it.Depth)
	sum.Status = resp.Status
	sum.BlockedResources = g.blocked
	summarizeRender(rep, &sum)
	summarizeA11y(rep, &sum)
	sum.Screenshot = shot
	summarizeExtraction(&sum, rep)
	clipSummary(&sum)
	sum.ResponseMs = resp.Timings.Total.Milliseconds()
	sum.Bytes = resp.BodyBytes
	if ferr != nil {
		// The body could not be read whole (timeout, reset): the page is
		// analysed as far as it came and reported as an error.
		sum.Error = ferr.Error()
	}
	if ferr != nil || resp.Status >= 500 {
		cr.errs.Add(1)
	}
	if it.Depth == 0 && len(g.icons) > 0 {
		cr.mu.Lock()
		cr.icons = g.icons
		cr.mu.Unlock()
	}
	return sum
}

// follow returns the page's internal edges (its redirect and its links)
// and the items allowed into the frontier from them, from its head
// (canonical, hreflang, with the edges to those targets) and from its
// refresh (Refresh header or meta refresh, without link edge: its
// in-scope target's edge is marked TargetRefresh); it hands its external
// links to their checker. Its images, scripts and stylesheets
// are checked by analyze once the items are pushed (checkResources). ids
// holds the node ids of the first edges' targets where known (see
// addEdges).
func (cr *crawl) follow(ctx context.Context, it Item, resp *seo.Response, sum *PageSummary, g *pageGrab) (edges []Edge, items []Item, ids []int32) {
	if resp.Status >= 300 && resp.Status < 400 {
		if loc := resp.Header.Get("Location"); loc != "" {
			base, _ := seo.ParseHref(it.URL)
			if t, err := seo.ResolveReference(base, loc); err == nil {
				target := t.String()
				if n, s, ok := cr.inScope(t); ok {
					target = s
					edges = append(edges, Edge{From: it.URL, To: s})
					if item, ok := cr.allowItem(n, s, it.Depth, SourceRedirect, it.URL); ok {
						items = append(items, item)
					}
				} else {
					// Not crawled: checked, so a redirect to a dead page
					// of another site does not read as a fine redirect.
					edges = cr.externalTarget(edges, it.URL, t, targetRedirect)
				}
				sum.FinalURL = target
				if len(sum.Redirects) == 0 {
					sum.Redirects = []seo.Redirect{{URL: it.URL, Status: resp.Status, Location: target}}
				}
			}
		}
	}
	if len(g.links) > 0 {
		e, its, eids, ext := cr.links(it, g.links)
		if len(edges) > 0 {
			// The redirect's edge comes first, its target's id unknown.
			ids = append(make([]int32, 0, len(edges)+len(eids)), -1)
		}
		// Without a redirect (almost always) the lists are the links'
		// own, not copies.
		edges, items, ids = concat(edges, e), concat(items, its), concat(ids, eids)
		if len(ext) > 0 && resp.Status/100 != 3 {
			if cr.sharedExt {
				for _, u := range ext {
					edges = append(edges, Edge{From: it.URL, To: u.String(), External: true})
				}
			} else if ids := cr.ext.add(ext); len(ids) > 0 {
				cr.builder.addExternal(it.URL, ids, targetLink)
			}
		}
	}
	if resp.Status == http.StatusOK && sum.IsHTML {
		its, es := cr.headTargets(it, sum)
		items = append(items, its...)
		edges = append(edges, es...)
	}
	if g.refresh != nil && resp.Status/100 != 3 {
		// Search engines follow a refresh as a redirect: its target is
		// crawled at the page's depth, as a redirect's is, but adds no
		// link edge (it is no link, and the page is no redirect
		// response). A page analysis with CheckLinks judges the target
		// as a link: an in-scope one is judged from its crawled page
		// (the edge marked TargetRefresh, kept out of the link graph),
		// an external one checked as the page's links are.
		if n, s, ok := cr.inScope(g.refresh); !ok {
			edges = cr.externalTarget(edges, it.URL, g.refresh, targetRefresh)
		} else if s != it.URL {
			if resp.Status/100 == 2 {
				if item, ok := cr.allowItem(n, s, it.Depth, SourceRefresh, it.URL); ok {
					items = append(items, item)
				}
			}
			if cr.wants("links.broken_internal", "links.redirect_internal") {
				edges = append(edges, Edge{From: it.URL, To: s, Target: TargetRefresh})
			}
		}
	}
	return edges, items, ids
}

// externalTarget hands the external target u of the page at from,
// referred to as kind, to the external checker (addTargets), unless
// external targets or all of kind's findings are off or u is no web URL.
func (cr *crawl) externalTarget(edges []Edge, from string, u *url.URL, kind targetKind) []Edge {
	if (cr.ext == nil && !cr.sharedExt) || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || !cr.wants(targetIDs[kind]...) {
		return edges
	}
	return cr.addTargets(edges, from, []*url.URL{u}, kind, true)
}

// concat returns a followed by b, b itself when a is empty.
func concat[T any](a, b []T) []T {
	if len(a) == 0 {
		return b
	}
	return append(a, b...)
}

// links turns a page's links into graph edges and new frontier items, and
// lists its external http(s) links when they are checked. A target the
// frontier already has (linkTarget.pushed) is checked by admit as any
// other, so its counts and trap spans are the same, but makes no item:
// the frontier would ignore it. ids holds the node id of each edge's
// target, -1 for a target not admitted.
func (cr *crawl) links(it Item, links []analyzer.Link) (edges []Edge, items []Item, ids []int32, ext []*url.URL) {
	sc := linkScratchPool.Get().(*linkScratch)
	defer sc.release()
	seen := sc.seen
	// Most links of a page lead inside the site: sized once, the lists
	// do not grow link by link.
	edges = make([]Edge, 0, min(len(links), MaxLinksPerPage))
	ids = make([]int32, 0, cap(edges))
	cut := 0
	depth := it.Depth + 1
	if it.Depth < 0 {
		depth = -1
	}
	for i := range links {
		l := &links[i]
		if l.URL == nil {
			continue
		}
		var t *linkTarget
		t, sc.key = cr.linkTarget(sc.key, l)
		if !t.in {
			if (cr.ext != nil || cr.sharedExt) && len(ext) < MaxLinksPerPage && (l.URL.Scheme == "http" || l.URL.Scheme == "https") && l.URL.Host != "" {
				ext = append(ext, l.URL)
			}
			continue
		}
		if j, dup := seen[t.s]; dup {
			if !l.Nofollow {
				edges[j].Nofollow = false
			}
			continue
		}
		if len(seen) >= MaxLinksPerPage {
			cut++
			continue
		}
		seen[t.s] = len(edges)
		edges = append(edges, Edge{From: it.URL, To: t.s, Nofollow: l.Nofollow})
		if t.pushed.Load() {
			cr.admit(t.n, t.s, depth, SourceLink, it.URL, &t.shape)
			ids = append(ids, t.id.Load())
			continue
		}
		if cr.admit(t.n, t.s, depth, SourceLink, it.URL, &t.shape) {
			id := cr.builder.id(t.s)
			items = append(items, Item{URL: t.s, Depth: depth, Source: SourceLink, Referrer: it.URL})
			t.id.Store(id)
			t.pushed.Store(true)
			ids = append(ids, id)
		} else {
			ids = append(ids, -1)
		}
	}
	if cut > 0 {
		cr.traps.note(it.URL, TrapLinkFlood, it.URL, cut)
		cr.skipped.addN(cut)
	}
	return edges, items, ids, ext
}

// linkScratch is the per-page scratch space of links, pooled.
type linkScratch struct {
	seen map[string]int // target -> index of its edge
	key  []byte
}

var linkScratchPool = sync.Pool{New: func() any {
	return &linkScratch{seen: make(map[string]int, 256)}
}}

// release empties sc and returns it to the pool, unless a page of many
// links grew its map past what most pages need.
func (sc *linkScratch) release() {
	if len(sc.seen) > 1024 {
		return
	}
	clear(sc.seen)
	linkScratchPool.Put(sc)
}

// skip counts s as skipped for a limit's reason, once per distinct URL,
// with the first URLs of each reason as examples (CrawlStats.ScopeSkipped).
func (cr *crawl) skip(reason, s string) {
	if cr.skipped.add(s) && cr.scope != nil {
		cr.scope.note(reason, s)
	}
}

// inScope normalises u and reports whether the crawl covers it.
func (cr *crawl) inScope(u *url.URL) (*url.URL, string, bool) {
	n, s, ok, _ := cr.inScopeNoted(u)
	return n, s, ok
}

// inScopeNoted is inScope that also reports whether normalising u noted a
// session-ID trap.
func (cr *crawl) inScopeNoted(u *url.URL) (n *url.URL, s string, ok, noted bool) {
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, "", false, false
	}
	if !seo.HostInScope(u.Hostname(), cr.rootHost, cr.o.IncludeSubdomains) {
		return nil, "", false, false
	}
	n, s, noted = cr.normalize(u)
	if cr.rootPort != "" && n.Port() != cr.rootPort {
		return nil, "", false, noted
	}
	return n, s, true, noted
}

// normalize returns u's normal form, removing session identifiers (counted
// as a trap; noted says one was).
func (cr *crawl) normalize(u *url.URL) (n *url.URL, s string, noted bool) {
	if strings.IndexByte(u.Path, ';') >= 0 {
		if i := strings.Index(strings.ToLower(u.Path), ";jsessionid="); i >= 0 {
			c := *u
			c.Path, c.RawPath, c.Opaque = c.Path[:i], "", ""
			cr.traps.note("jsessionid", TrapSessionID, u.String(), 1)
			u, noted = &c, true
		}
	}
	if u.RawQuery != "" && hasSessionParam(u.RawQuery) {
		cr.traps.note(u.Host+u.EscapedPath()+"?session", TrapSessionID, u.String(), 1)
		noted = true
	}
	n = seo.NormalizeURL(u, &cr.norm)
	return n, n.String(), noted
}

func hasSessionParam(q string) bool {
	for q != "" {
		var p string
		p, q, _ = strings.Cut(q, "&")
		name, _, _ := strings.Cut(p, "=")
		for _, s := range SessionParams {
			if strings.EqualFold(name, s) {
				return true
			}
		}
	}
	return false
}

// allowItem returns the frontier item of a normalised in-scope URL when the
// crawl's limits (URL length, depth, queued URLs), trap guards and scope
// allow it; a URL refused by a limit or a trap is counted as skipped.
func (cr *crawl) allowItem(n *url.URL, s string, depth int, source, ref string) (Item, bool) {
	if !cr.admit(n, s, depth, source, ref, nil) {
		return Item{}, false
	}
	if source != SourceSitemap {
		// An admitted URL keeps its node (and the links to it) in the
		// graph whatever MaxLinkTargets says: MaxQueuedURLs bounds them.
		cr.builder.id(s)
	}
	return Item{URL: s, Depth: depth, Source: source, Referrer: ref}, true
}

// admit runs allowItem's checks: whether the crawl's limits, trap guards
// and scope allow the normalised URL n (s) found at depth, counting it as
// skipped when a limit or a trap refuses it (ref: the page found on; sh:
// n's trap shape, nil when not worked out yet).
func (cr *crawl) admit(n *url.URL, s string, depth int, source, ref string, sh *trapShape) bool {
	switch {
	case len(s) > cr.o.MaxURLLength:
		cr.skip(SkipURLTooLong, s)
		return false
	case depth > cr.o.MaxDepth:
		cr.skip(SkipTooDeep, s)
		return false
	case !cr.traps.allowsShaped(n, s, depth, ref, sh):
		cr.skipped.add(s) // listed in NotFetched with its trap
		return false
	case !cr.scopeAdmit(n, s, source):
		return false
	case cr.admitted.Load() >= cr.admitCap:
		cr.skip(SkipQueueFull, s)
		cr.overflow.Store(true)
		return false
	}
	return true
}

// push adds items to the frontier and counts them.
func (cr *crawl) push(ctx context.Context, items []Item) (int, error) {
	added, err := cr.front.Push(ctx, items)
	if err != nil {
		return 0, fmt.Errorf("crawler: frontier: %w", err)
	}
	cr.admitted.Add(int64(added))
	return added, nil
}

// finish records a page and marks it done in the frontier; ids are the
// node ids of the first edges' targets where known (see addEdges).
func (cr *crawl) finish(ctx context.Context, it Item, sum PageSummary, edges []Edge, ids []int32) result {
	if cr.store != nil {
		if err := cr.store.PutSummary(ctx, sum, edges); err != nil {
			if ctx.Err() != nil {
				return result{}
			}
			return result{err: fmt.Errorf("crawler: store summary: %w", err)}
		}
	}
	if cr.shared == nil {
		cr.record(sum, edges, ids)
	}
	if err := cr.front.Done(ctx, it.URL); err != nil && ctx.Err() == nil {
		return result{err: fmt.Errorf("crawler: frontier: %w", err)}
	}
	return result{}
}

// maxResourceCache bounds the robots verdicts remembered for subresources.
const maxResourceCache = 10000

// blockedResources returns the in-scope scripts and stylesheets robots.txt
// disallows.
func (cr *crawl) blockedResources(ctx context.Context, res []analyzer.Resource) []string {
	var out []string
	for _, r := range res {
		if (r.Kind != "script" && r.Kind != "stylesheet") || r.URL == nil {
			continue
		}
		if r.URL.Scheme != "http" && r.URL.Scheme != "https" || !seo.HostInScope(r.URL.Hostname(), cr.rootHost, cr.o.IncludeSubdomains) {
			continue
		}
		key := r.URL.String()
		if v, ok := cr.resCache.Load(key); ok {
			if v.(bool) {
				out = append(out, key)
			}
			continue
		}
		blocked := !cr.robots.Get(ctx, r.URL).Allowed(cr.o.RobotsToken, seo.RequestTarget(r.URL))
		if ctx.Err() != nil {
			return out
		}
		if cr.resCount.Add(1) <= maxResourceCache {
			cr.resCache.Store(key, blocked)
		}
		if blocked {
			out = append(out, key)
		}
	}
	return out
}

// progress returns a snapshot of the crawl.
func (cr *crawl) progress(ctx context.Context) Progress {
	el := time.Since(cr.start)
	p := Progress{
		Done: int(cr.fetched.Load()), Errors: int(cr.errs.Load()),
		Skipped: cr.skipped.count() + int(cr.blocked.Load()),
		Bytes:   cr.bytes.Load(), Elapsed: el,
	}
	if q, err := cr.front.Len(context.WithoutCancel(ctx)); err == nil {
		p.Queued = q
	}
	if el > 0 {
		p.PagesPerSecond = float64(cr.fetched.Load()-cr.resumed) / el.Seconds()
	}
	if s := cr.current.Load(); s != nil {
		p.Current = *s
	}
	p.Phase, _ = cr.phase.Load().(string)
	if cr.ext != nil {
		p.External = cr.ext.progress()
	}
	return p
}

// distinctCounter counts distinct strings by 64-bit hash, up to limit
// remembered hashes; past it every add counts.
type distinctCounter struct {
	mu    sync.Mutex
	seen  map[uint64]struct{}
	n     int
	limit int
}

// add counts s unless it was counted; it reports whether it counted it.
func (d *distinctCounter) add(s string) bool {
	h := hash64(s)
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.seen == nil {
		d.seen = map[uint64]struct{}{}
	}
	if _, ok := d.seen[h]; ok {
		return false
	}
	if len(d.seen) < d.limit {
		d.seen[h] = struct{}{}
	}
	d.n++
	return true
}

func (d *distinctCounter) addN(n int) {
	d.mu.Lock()
	d.n += n
	d.mu.Unlock()
}

// release drops the remembered hashes; the count stays.
func (d *distinctCounter) release() {
	d.mu.Lock()
	d.seen = nil
	d.limit = 0
	d.mu.Unlock()
}

func (d *distinctCounter) count() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.n
}

// validateCheckIDs checks the Disable and Mute lists of a crawl's analysis
// options against the page and crawl catalogues and the custom checks.
func validateCheckIDs(o *analyzer.Options) error {
	if o == nil {
		return nil
	}
	known := [][]seo.CheckInfo{Catalog()}
	for _, c := range o.Checks {
		known = append(known, c.IDs, []seo.CheckInfo{{ID: c.Area}})
	}
	if err := analyzer.ValidateIDs("analyzer.disable", o.Disable, known...); err != nil {
		return err
	}
	return analyzer.ValidateIDs("analyzer.mute", o.Mute, known...)
}

// pageIDs returns ids without those only the crawl reports (site-scope
// IDs and areas such as "site"), which the page analysis would refuse.
func pageIDs(ids []string) []string {
	var out []string
	for _, id := range ids {
		if analyzer.ValidateIDs("", []string{id}) != nil && analyzer.ValidateIDs("", []string{id}, Catalog()) == nil {
			continue
		}
		out = append(out, id)
	}
	return out
}
