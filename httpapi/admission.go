package httpapi

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/semaphore"

	"github.com/seokit/seokit/analyzer"
	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/httpapi/service"
	"github.com/seokit/seokit/optimizer"
	"github.com/seokit/seokit/seo"
)

// Kind is a kind of heavy operation bounded by admission control.
type Kind string

// Kinds of operation. Each has a global concurrency limit and a
// per-account one; all share one memory budget.
const (
	KindPage     Kind = "page analysis"           // POST /v1/analyze/page, GET /v1/analyze
	KindSite     Kind = "site analysis"           // running site analysis jobs
	KindOptimize Kind = "content optimisation"    // POST /v1/optimize/content
	KindCompare  Kind = "crawl comparison"        // GET /v1/analyze/site/{id}/diff
	KindRender   Kind = "rendering"               // page analyses that render; each page a site analysis renders
	KindReport   Kind = "report read"             // a site report read whole as an MCP resource, or decoded (MCP tools, field vitals, index status, site keyword ideas, the dashboard's analysis views); a log report decoded
	KindField    Kind = "field Web Vitals lookup" // GET /v1/field-vitals, GET /v1/projects/{id}/field-vitals: the CrUX queries of one lookup
	KindIndexRun Kind = "index status run"        // POST /v1/analyze/site/{id}/index-status: a run, until it ends
)

// maxIndexRunsAtOnce bounds the index status runs of every account a
// server runs at once; per account they run one at a time (KindIndexRun).
// Each holds its analysis's decoded report, reserved from the memory
// budget, for as long as its inspections take: the budget bounds their
// memory, this count their goroutines.
const maxIndexRunsAtOnce = 64

// maxFieldLookups bounds the field Web Vitals lookups of every account
// at once: CrUX's documented queries a minute per key
// (crux.DefaultPerMinute), which the key's limiter paces; more would only
// wait on it. Per account they run one at a time (KindField).
const maxFieldLookups = 150

// plural names kinds in messages ("page analyses").
func (k Kind) plural() string {
	switch k {
	case KindPage:
		return "page analyses"
	case KindSite:
		return "site analyses"
	case KindOptimize:
		return "content optimisations"
	case KindCompare:
		return "crawl comparisons"
	case KindRender:
		return "renderings"
	case KindReport:
		return "report reads"
	case KindField:
		return "field Web Vitals lookups"
	case KindIndexRun:
		return "index status runs"
	}
	return string(k) + "s"
}

// Defaults of AdmissionOptions, sized for a server with 1 GB of memory.
const (
	DefaultMaxPageAnalyses    = 4
	DefaultMaxSiteJobs        = 2
	DefaultMaxOptimizations   = 2
	DefaultMaxComparisons     = 2
	DefaultMaxRenders         = 4
	DefaultMaxReportReads     = 4
	DefaultAccountConcurrency = 2
	DefaultMemoryBudget       = 512 << 20
	DefaultAdmissionWait      = 20 * time.Second
)

// AdmissionOptions bound the heavy operations the server runs at once.
// Every zero field means its default.
//
// A request of a kind whose account already runs AccountConcurrency of
// that kind is refused at once with 429 rate_limited. Otherwise it waits
// up to Wait for a global slot of its kind and then for its memory
// estimate to fit the shared MemoryBudget; when either does not come in
// time it is refused with 503 unavailable. Both answers carry Retry-After
// and the error envelope, and each refusal is logged with its kind and
// reason. Site analysis jobs wait for their slot and memory in the queue
// instead of being refused.
type AdmissionOptions struct {
	// MaxPageAnalyses bounds the page analyses run at once; zero means 4.
	MaxPageAnalyses int
	// MaxSiteJobs bounds the site analyses this process runs at once;
	// zero means 2.
	MaxSiteJobs int
	// MaxOptimizations bounds the content optimisations run at once;
	// zero means 2.
	MaxOptimizations int
	// MaxComparisons bounds the crawl comparisons run at once; zero means
	// 2.
	MaxComparisons int
	// MaxRenders bounds the renderings run at once: page analyses with
	// options.render (they take a slot of this class instead of a page
	// analysis slot, so they cannot starve raw ones) and the pages site
	// analyses render, each while it renders. Zero means the renderer's
	// capacity when it reports one (a Capacity() int method), else 4.
	MaxRenders int
	// MaxReportReads bounds the site reports read whole as MCP resources
	// (seokit://analyses/{id}/report) or decoded for MCP tools
	// (site_findings, site_pages, fix_first, ai_crawlers,
	// get_site_analysis, when the report is not in mcpserver's cache) or
	// for the API's field Web Vitals of an analysis (analysisId), index
	// status runs and keyword ideas of a site (suggest's site=), or for
	// the dashboard's views of an analysis (its page, one page of it, its
	// HTML report), and the log reports decoded for a list page or the
	// dashboard's report page, at once. A resource read reserves 14 times its stored size of the
	// memory budget until its answer is written, a decode 8 times until
	// its call or request is done with the report (what each allocates,
	// as measured by mcpserver's TestReportResourceAdmission and
	// TestReportDecodeAdmission), a dashboard view of an analysis 18
	// times (TestDashboardReportAdmission), a log report 6 times, 12 with
	// its HTML (TestLogReportAdmission); zero means 4. One account reads one at a
	// time, all kinds together: a
	// second read is refused at once with 429, so one account's reads
	// cannot take the budget from another's.
	MaxReportReads int
	// AccountConcurrency bounds the page analyses, the page analyses that
	// render, the content optimisations and the crawl comparisons one
	// account runs at once, each class separately; zero means 2.
	// Concurrent site analyses of an account are a plan cap
	// (plans.Limits.ConcurrentSiteJobs).
	AccountConcurrency int
	// MemoryBudget is the memory, in bytes, the operations may hold
	// together by their estimates on the server's side (the Go heap);
	// zero means 512 MiB. The browsers' memory comes on top of it, see
	// BrowserMemory.
	MemoryBudget int64
	// BrowserMemory is the memory, in bytes, the renderer's browsers may
	// hold together (render/chromium enforces it on the browsers' process
	// trees while they render). It is added to the budget, and each
	// rendering reserves its share, BrowserMemory / MaxRenders, besides its
	// memory on the server's side: the budget accounts for the whole host
	// memory renderings take. Zero means the renderer's limit when it
	// reports one (a MemoryLimit() int64 method, as render/chromium's pool
	// does), else none; a negative value means none.
	BrowserMemory int64
	// MCPSessionsPerAccount bounds the MCP sessions (/mcp) one account
	// holds open at once, and so their standalone GET streams, one per
	// session: the next initialize is answered 429 rate_limited until one
	// ends (a DELETE, 30 minutes idle, Close). Zero means
	// mcpserver.DefaultMaxSessionsPerAccount (10). A plan's
	// plans.Limits.MCPSessions, when set, is its accounts' cap instead.
	// With DisableAuth, whose one principal stands for every client,
	// sessions are not limited per account.
	MCPSessionsPerAccount int
	// MCPSessions bounds the MCP sessions of every account together; the
	// next initialize is answered 503 unavailable. Zero means
	// mcpserver.DefaultMaxSessions (1000).
	MCPSessions int
	// Wait is how long a request waits for a slot and for memory before it
	// is refused; zero means 20 seconds, about what a page analysis takes
	// at worst, so a burst queues rather than fails.
	Wait time.Duration
}

// kindLimit is one row of the kinds table.
type kindLimit struct {
	global     *semaphore.Weighted
	perAccount int // 0: not limited per account
	admitted   atomic.Int64
	refused    atomic.Int64
	inFlight   atomic.Int64
}

// admission is the server's admission control: the kinds table, the
// per-account counts and the memory budget.
type admission struct {
	cfg   AdmissionOptions // with defaults applied
	log   *slog.Logger
	wait  time.Duration
	kinds map[Kind]*kindLimit
	mem   *memoryBudget

	mu       sync.Mutex
	accounts map[accountKind]int
}

type accountKind struct {
	account string
	kind    Kind
}

func newAdmission(o *AdmissionOptions, log *slog.Logger) *admission {
	var c AdmissionOptions
	if o != nil {
		c = *o
	}
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&c.MaxPageAnalyses, DefaultMaxPageAnalyses)
	def(&c.MaxSiteJobs, DefaultMaxSiteJobs)
	def(&c.MaxOptimizations, DefaultMaxOptimizations)
	def(&c.MaxComparisons, DefaultMaxComparisons)
	def(&c.MaxRenders, DefaultMaxRenders)
	def(&c.MaxReportReads, DefaultMaxReportReads)
	def(&c.AccountConcurrency, DefaultAccountConcurrency)
	if c.MemoryBudget <= 0 {
		c.MemoryBudget = DefaultMemoryBudget
	}
	if c.Wait <= 0 {
		c.Wait = DefaultAdmissionWait
	}
	a := &admission{cfg: c, log: log, wait: c.Wait, accounts: map[accountKind]int{}}
	a.kinds = map[Kind]*kindLimit{
		KindPage:     {global: semaphore.NewWeighted(int64(c.MaxPageAnalyses)), perAccount: c.AccountConcurrency},
		KindSite:     {global: semaphore.NewWeighted(int64(c.MaxSiteJobs))},
		KindOptimize: {global: semaphore.NewWeighted(int64(c.MaxOptimizations)), perAccount: c.AccountConcurrency},
		KindCompare:  {global: semaphore.NewWeighted(int64(c.MaxComparisons)), perAccount: c.AccountConcurrency},
		KindRender:   {global: semaphore.NewWeighted(int64(c.MaxRenders)), perAccount: c.AccountConcurrency},
		KindReport:   {global: semaphore.NewWeighted(int64(c.MaxReportReads)), perAccount: 1},
		// The server's CrUX key is one quota that every account shares:
		// one account's lookups at once would fill the key's minute and
		// hold every other account's behind them.
		KindField: {global: semaphore.NewWeighted(maxFieldLookups), perAccount: 1},
		// An index status run goes on in the background for as long as
		// its inspections take, with its analysis's decoded report.
		KindIndexRun: {global: semaphore.NewWeighted(maxIndexRunsAtOnce), perAccount: 1},
	}
	if c.BrowserMemory < 0 {
		c.BrowserMemory = 0
	}
	total := c.MemoryBudget + c.BrowserMemory
	a.mem = &memoryBudget{sem: semaphore.NewWeighted(total), total: total, wait: c.Wait, a: a}
	return a
}

// renderBytes is what one rendering reserves from the memory budget: its
// memory on the server's side and its share of the browsers' memory.
func (a *admission) renderBytes() int64 {
	return renderMemory + a.cfg.BrowserMemory/int64(a.cfg.MaxRenders)
}

// busyRetry is the Retry-After of an admission refusal.
const busyRetry = 5 * time.Second

// busy is the refusal of a saturated server (503 with Retry-After).
func busy(msg string) *service.BusyError {
	return &service.BusyError{Message: msg, RetryAfter: busyRetry}
}

// acquireSlot takes a slot of kind for one operation of account, with a memory estimate
// of bytes, waiting at most the configured wait (queue false) or until ctx
// ends (queue true, for jobs). An empty account is not limited per account
// (the pages a site analysis renders: the job is the account's). The error
// is a *service.LimitError for the account's limit (429), a
// *service.BusyError for a saturated server (503); or ctx's error.
func (a *admission) acquireSlot(ctx context.Context, kind Kind, account string, bytes int64, queue bool) (release func(), err error) {
	k := a.kinds[kind]
	refuse := func(reason string, e error) (func(), error) {
		a.logRefusal(ctx, kind, account, reason)
		return nil, e
	}
	dropAccount := func() {}
	if k.perAccount > 0 && account != "" {
		var err error
		if dropAccount, err = a.takeAccount(ctx, kind, account); err != nil {
			return nil, err
		}
	}
	wctx, cancel := ctx, context.CancelFunc(func() {})
	if !queue {
		wctx, cancel = context.WithTimeout(ctx, a.wait)
	}
	defer cancel()
	if err := ctx.Err(); err != nil {
		dropAccount()
		return nil, err
	}
	// A free slot is taken at once: the wait's deadline may have passed
	// already on a busy machine, and a free slot is never refused for it.
	if !k.global.TryAcquire(1) {
		if err := k.global.Acquire(wctx, 1); err != nil {
			dropAccount()
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return refuse("concurrency limit", busy("the server is running as many "+kind.plural()+" as it can; retry shortly"))
		}
	}
	freeMem, err := a.mem.reserve(wctx, bytes)
	if err != nil {
		k.global.Release(1)
		dropAccount()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var tl *service.TooLargeError
		if errors.As(err, &tl) {
			return refuse("over the whole memory budget", tl)
		}
		var be *service.BusyError
		errors.As(err, &be)
		return refuse("memory budget", be)
	}
	k.admitted.Add(1)
	k.inFlight.Add(1)
	var once sync.Once
	return func() {
		once.Do(func() {
			freeMem()
			k.global.Release(1)
			k.inFlight.Add(-1)
			dropAccount()
		})
	}, nil
}

// takeAccount counts one operation of kind for account against the
// kind's per-account limit, without a global slot or memory; drop undoes
// it. acquireSlot takes it with the slot; a handler that receives a body
// before its work is admitted takes it first, so that its account's
// uploads are bounded while they hold no slot (see optimize). The error
// is a *service.LimitError.
func (a *admission) takeAccount(ctx context.Context, kind Kind, account string) (drop func(), err error) {
	k := a.kinds[kind]
	ak := accountKind{account, kind}
	a.mu.Lock()
	n := a.accounts[ak]
	if n >= k.perAccount {
		a.mu.Unlock()
		a.logRefusal(ctx, kind, account, "account limit")
		return nil, &service.LimitError{
			Message:    "this account already runs " + strconv.Itoa(n) + " " + kind.plural() + " at once, its limit; retry when one ends",
			RetryAfter: busyRetry}
	}
	a.accounts[ak] = n + 1
	a.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			a.mu.Lock()
			if a.accounts[ak] <= 1 {
				delete(a.accounts, ak)
			} else {
				a.accounts[ak]--
			}
			a.mu.Unlock()
		})
	}, nil
}

// logRefusal counts and logs a refusal of kind for account.
func (a *admission) logRefusal(ctx context.Context, kind Kind, account, reason string) {
	k := a.kinds[kind]
	k.refused.Add(1)
	a.log.WarnContext(ctx, "admission refused", "request_id", requestID(ctx), "kind", string(kind), "account", account,
		"reason", reason, "in_flight", k.inFlight.Load(), "refused_total", k.refused.Load())
}

// memoryBudget is the server's seo.MemoryBudget: a weighted semaphore of
// bytes whose waits are bounded.
type memoryBudget struct {
	sem   *semaphore.Weighted
	total int64
	wait  time.Duration
	a     *admission
}

var _ seo.MemoryBudget = (*memoryBudget)(nil)

// Reserve reserves bytes, waiting at most the admission wait. The error
// wraps seo.ErrUnavailable and a *service.BusyError (503 with Retry-After) when the
// budget cannot admit the work, or is ctx's error.
func (m *memoryBudget) Reserve(ctx context.Context, bytes int64) (func(), error) {
	if err := ctx.Err(); err != nil {
		return nil, err // the caller is gone: nothing to reserve for
	}
	wctx, cancel := context.WithTimeout(ctx, m.wait)
	defer cancel()
	release, err := m.reserve(wctx, bytes)
	if err != nil && ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return release, err
}

// reserve reserves bytes, waiting until ctx ends.
func (m *memoryBudget) reserve(ctx context.Context, bytes int64) (func(), error) {
	bytes = max(bytes, 1)
	if bytes > m.total {
		return nil, fmt.Errorf("httpapi: memory estimate of %d bytes exceeds the budget of %d: %w: %w", bytes, m.total, seo.ErrUnavailable,
			&service.TooLargeError{Need: bytes, Budget: m.total})
	}
	// Free memory is taken at once, even when ctx's deadline passed
	// already on a busy machine; only a wait for it is bounded by ctx.
	if !m.sem.TryAcquire(bytes) {
		if err := m.sem.Acquire(ctx, bytes); err != nil {
			return nil, fmt.Errorf("httpapi: memory budget: %w: %w", seo.ErrUnavailable,
				busy("the server has no memory to spare for this operation now; retry shortly"))
		}
	}
	var once sync.Once
	return func() { once.Do(func() { m.sem.Release(bytes) }) }, nil
}

// queuedBudget is the memory budget as site analysis jobs see it: a page
// of a crawl waits for its memory until the job ends, since a crawl that
// pauses is better than pages reported as failed because the server was
// busy.
type queuedBudget struct{ m *memoryBudget }

var _ seo.MemoryBudget = queuedBudget{}

// Reserve reserves bytes, waiting until ctx ends.
func (q queuedBudget) Reserve(ctx context.Context, bytes int64) (func(), error) {
	return q.m.reserve(ctx, bytes)
}

// The memory each operation reserves comes from its package's model,
// measured by that package's benchmarks: analyzer.EstimateMemory (a page
// analysis reserves by its body once fetched, through
// analyzer.Options.Memory), optimizer.EstimateMemory and
// crawler.EstimateMemory (a crawl's own state; its pages reserve as page
// analyses do).

// pageBaseMemory is what a page analysis reserves when admitted, before
// its body is fetched: the fetch buffers and the request.
const pageBaseMemory = 1 << 20

// optimizeMemory is the working set of optimising a request body of n
// bytes: the body as read, the decoded content and the optimizer's own.
func optimizeMemory(n int64) int64 { return optimizeBodyMemory(n) + optimizer.EstimateMemory(int(n)) }

// optimizeBodyMemory is the part of optimizeMemory that receiving the
// body takes: the body as read and the decoded content.
func optimizeBodyMemory(n int64) int64 { return 2 * n }

// checkBudget refuses a memory budget in which the largest site analyses
// the server runs at once, each with one page in analysis, cannot fit
// together: their reservations would wait on each other for ever.
func checkBudget(budget int64, siteJobs int, maxSite *crawler.Options) error {
	need := int64(siteJobs)*crawler.EstimateMemory(maxSite) + analyzer.EstimateMemory(seo.DefaultMaxBodyBytes)
	if budget < need {
		return fmt.Errorf("httpapi: memory budget of %d MiB is too small for %d site analyses of %d pages at once (%d MiB needed)",
			budget>>20, siteJobs, maxSite.MaxPages, need>>20)
	}
	return nil
}
