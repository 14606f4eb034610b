package httpapi

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/seokit/seokit/analyzer"
	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/fieldvitals"
	"github.com/seokit/seokit/httpapi/auth"
	"github.com/seokit/seokit/httpapi/mcpserver"
	"github.com/seokit/seokit/httpapi/plans"
	"github.com/seokit/seokit/httpapi/ratelimit"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/indexstatus"
	"github.com/seokit/seokit/keywords"
	"github.com/seokit/seokit/logs"
	"github.com/seokit/seokit/monitor"
	"github.com/seokit/seokit/optimizer"
	"github.com/seokit/seokit/rankings"
	"github.com/seokit/seokit/render"
	"github.com/seokit/seokit/reports"
	"github.com/seokit/seokit/seo"
)

// Defaults of Options.
const (
	DefaultMaxBodyBytes = 1 << 20
	DefaultMaxSitePages = 10_000
	DefaultJobWorkers   = 2
	// DefaultJobTimeout bounds one run of a queued job (Options.JobTimeout,
	// riverjobs.Options.JobTimeout).
	DefaultJobTimeout = 2 * time.Hour
	// DefaultPageTimeout bounds one page analysis answered synchronously
	// (Options.PageTimeout): less than the example server's 90 s write
	// timeout, past which no answer can be written.
	DefaultPageTimeout = 80 * time.Second
	DefaultBurstRate   = 50
	DefaultBurst       = 200
	// MaxRankingKeywords is the most keywords one GET /v1/rankings takes.
	MaxRankingKeywords = 1000
)

// DefaultOptimizeMaxBodyBytes bounds POST /v1/optimize/content: the
// optimizer's content limit plus room for JSON escaping and the other fields.
const DefaultOptimizeMaxBodyBytes = optimizer.MaxContentBytes + optimizer.MaxContentBytes/4 + 1<<20

// DefaultCallbackRetryDelays are the waits between callback attempts: five
// attempts over about a minute.
var DefaultCallbackRetryDelays = []time.Duration{4 * time.Second, 8 * time.Second, 16 * time.Second, 32 * time.Second}

// Options configures a Server. A nil *Options, and every zero field, means
// the documented default.
type Options struct {
	// Store keeps accounts, keys, usage counters and jobs; it is
	// required (sqlstore.Open(ctx, ":memory:", nil) is a private
	// in-memory one). The caller closes it after Close.
	Store store.Store
	// Auth authenticates requests and serves the token endpoints. Nil means
	// auth.New over Store with default options, MCPPath as its protected
	// resource and the server's fetcher for client ID metadata documents.
	// A given one lists MCPPath in auth.Options.Resources (and has a
	// BaseURL) for OAuth clients to reach the MCP endpoint.
	Auth *auth.Server
	// Suggester, Tracker and Reports serve the keyword, ranking and report
	// endpoints; a nil one makes its endpoint answer 503 "unavailable".
	Suggester *keywords.Suggester
	Tracker   *rankings.Tracker
	Reports   *reports.Builder
	// Inspector inspects URLs with the Search Console URL Inspection API
	// (indexstatus/searchconsole) for POST
	// /v1/analyze/site/{id}/index-status; IndexLedger paces its
	// inspections within each property's quotas (nil: the documented
	// quotas). When Store implements store.IndexStatus the inspections
	// are counted there, shared by every instance, with the quota and
	// clock of IndexLedger unless it already counts in a shared Counter;
	// otherwise this process counts them. Nil Inspector answers 503.
	Inspector   indexstatus.Inspector
	IndexLedger *indexstatus.Ledger
	// IndexAccess decides whether an account may inspect a Search
	// Console property (normalised by indexstatus.ParseProperty) with
	// Inspector, before anything is charged or inspected. Inspector
	// inspects with one identity (a service account), which reaches every
	// property it was added to, whoever's: without this check any account
	// could crawl a public site and read the index data, and spend the
	// quota, of another customer's property. Nil grants no account any
	// property: every run is refused with 403 forbidden. An error is
	// answered as the API answers the error (a store outage: 503).
	IndexAccess func(ctx context.Context, accountID, property string) (bool, error)
	// FieldVitals reads field Web Vitals (fieldvitals/crux) for GET
	// /v1/field-vitals and the projects' trends; nil answers 503.
	FieldVitals fieldvitals.Source
	// OnRankings, when set, is called by POST /v1/rankings/track with the
	// caller's account and the keywords it asks to track, before they are
	// tracked (examples/server adds them to the account's dashboard
	// watchlist). An error refuses the request: an *seo.InputError (such
	// as the account's cap of tracked keywords) is a 400 naming its field.
	// GET /v1/rankings never calls it: a GET tracks nothing.
	OnRankings func(ctx context.Context, accountID string, tracked []rankings.Tracked) error

	// Plans are the limits of each plan: daily requests, pages of a site
	// analysis, concurrent site analyses. Missing plans and zero fields
	// take plans.Defaults (Free: 100 requests a day, 500 pages, 1 site
	// analysis at once; Pro: 1000, 10,000, 3); a plan not listed there
	// takes Free's. An account's DailyLimit, when > 0, overrides its
	// plan's daily requests (Enterprise plans are set that way).
	Plans map[store.Plan]plans.Limits
	// Limits, when set, are the daily requests of plans, overriding
	// Plans[p].DailyRequests (a shorthand for the daily limits alone).
	Limits map[store.Plan]int
	// Admission bounds the page analyses, site analyses and content
	// optimisations run at once, globally and per account, and the
	// memory they hold together. Nil means the defaults of
	// AdmissionOptions, sized for a server with 1 GB of memory.
	Admission *AdmissionOptions
	// Limiter counts requests against the daily limits and the burst
	// limit. Nil means ratelimit.NewLocal over Store: daily counts in the
	// store, token buckets in this process. Several instances share limits
	// through the redislimit driver.
	Limiter ratelimit.Limiter
	// BurstRate and Burst bound each account's short-term request rate
	// (token bucket); zero means 50/s with a burst of 200. A plan's
	// plans.Limits.RequestRate and RequestBurst, when set, win for its
	// accounts.
	BurstRate float64
	Burst     int
	// TrustedProxies are the TLS-terminating proxies whose
	// X-Forwarded-For and X-Forwarded-Proto headers are believed. Requests
	// from elsewhere must use TLS unless they come from loopback.
	TrustedProxies []netip.Prefix

	// AllowPrivate lets page and site analyses, and callbacks, reach
	// loopback and private addresses (intranet audits, tests).
	AllowPrivate bool
	// MaxBodyBytes bounds JSON request bodies; zero means 1 MiB.
	// POST /v1/optimize/content takes OptimizeMaxBodyBytes instead.
	MaxBodyBytes int64
	// OptimizeMaxBodyBytes bounds content optimisation bodies; zero means
	// DefaultOptimizeMaxBodyBytes.
	OptimizeMaxBodyBytes int64
	// MaxSitePages caps options.maxPages of a site analysis for every
	// plan (plans.Limits.MaxSitePages caps each plan); zero means 10,000.
	MaxSitePages int
	// JobWorkers is the number of site analyses run at once by the
	// in-process queue; zero means 2. A Queue sets its own.
	JobWorkers int
	// JobTimeout bounds one run of a job on the in-process queue: a site
	// analysis (or a shared crawl's helper run), a log parse or a rank
	// check. A site analysis still running then fails, saying it took
	// longer than the job timeout, and frees its slot for the next; zero
	// means DefaultJobTimeout (2 hours). A Queue bounds its own runs
	// (riverjobs.Options.JobTimeout, the same default).
	JobTimeout time.Duration
	// PageTimeout bounds one page analysis answered synchronously (POST
	// /v1/analyze/page, GET /v1/analyze, MCP's analyze_page), rendering
	// and link checks included: past it the analysis stops, freeing its
	// slots, and answers 503 unavailable. Its link checks get at most
	// half of it (analyzer.Options.LinkCheckBudget, lowered to
	// PageTimeout/2 when AnalyzerOptions sets none or more): a page whose
	// links all hang, which would hold the analysis for 20 s per 4 links
	// (a HEAD and a GET of LinkTimeout each, 4 at once per host), hours
	// for 2,000 links, is answered with the targets checked by then and
	// the others not checked ("time_budget"). Zero means
	// DefaultPageTimeout; it should be shorter than the HTTP server's
	// write timeout.
	PageTimeout time.Duration
	// Queue runs the site analyses. Nil means the in-process queue:
	// JobWorkers goroutines, the store's unfinished jobs resumed by
	// Start. The riverjobs driver shares jobs between instances over
	// PostgreSQL; the Store must then be shared too (PostgreSQL), since
	// workers on other instances read and write the jobs there. Start
	// starts the queue's workers and its periodic jobs (PeriodicQueue),
	// and Close stops them.
	Queue Queue
	// CallbackSecret is the master secret from which each job's callback
	// signing secret is derived. Nil means a random secret per process, so
	// set it when callbacks of jobs resumed after a restart must verify.
	// The key that encrypts a site job's stored credentials (headers,
	// basicAuth, cookies) is derived from it too (HKDF-SHA256): a job
	// resumed under another secret fails, saying so.
	CallbackSecret []byte
	// CallbackRetryDelays are the waits between callback attempts; nil
	// means DefaultCallbackRetryDelays. Callbacks are sent by the outbox
	// worker with alert deliveries (see AlertPollInterval).
	CallbackRetryDelays []time.Duration

	// SMTP is the mail server of e-mail alerts; nil refuses rules with the
	// "email" channel (400 naming channel).
	SMTP *monitor.SMTPOptions
	// AlertRetryDelays are the waits between the attempts of an alert
	// delivery, which is "failed" after the last; nil means
	// DefaultAlertRetryDelays.
	AlertRetryDelays []time.Duration
	// AlertPollInterval is how often pending deliveries (alerts and job
	// callbacks) are looked for, the periodic job PeriodicOutboxPoll (on
	// one instance per period with riverjobs); zero means
	// DefaultAlertPollInterval.
	AlertPollInterval time.Duration
	// AlertCoolDown is how long the same change of a rule (a page flapping
	// back and forth) is not sent again; zero means DefaultAlertCoolDown, a
	// negative value no cool-down.
	AlertCoolDown time.Duration
	// PublicURL is the server's public origin (https://seo.example.com),
	// for the links in alerts; empty means links that are paths under
	// BasePath.
	PublicURL string

	// AnalyzerOptions and CrawlerOptions are templates for page and site
	// analyses; the request's options and AllowPrivate are applied on top.
	// Each job gets a deep copy of CrawlerOptions; its Frontier and
	// HostGate must be nil (per-job ones come from Frontiers). Page and
	// site analyses without a Fetcher in their template share the
	// server's one fetcher and its connection pool; each request carries
	// its analysis's user agent.
	AnalyzerOptions *analyzer.Options
	CrawlerOptions  *crawler.Options
	// Renderer renders pages for analyses with options.render "auto" or
	// "always" (render/chromium's pool in examples/server); nil means
	// rendering is unavailable: such requests get 503
	// rendering_unavailable while raw analyses keep working. The server
	// does not close it.
	Renderer render.Renderer
	// Frontiers opens each site analysis's frontier, from which an
	// interrupted job resumes; nil means an in-memory frontier per run, so
	// an interrupted job starts again from the beginning. The frontiers of
	// a shared Queue must be shared too (redisfrontier.Crawls), or a job
	// resumes only on the instance that ran it before.
	Frontiers Frontiers
	// SharedCrawlPages is the page cap (options.maxPages, or the default)
	// from which a site analysis is crawled by SharedCrawlHelpers worker
	// runs besides its own, on any instance, when Frontiers shares its
	// frontiers (HostGates) and the Queue is shared; zero means 5,000.
	SharedCrawlPages int
	// SharedCrawlHelpers is the number of helper runs a shared crawl asks
	// the queue for; zero means 2, a negative value none.
	SharedCrawlHelpers int

	// ScheduleInterval is how often the scheduler runs the projects'
	// due schedules (RunDueSchedules), the periodic job
	// PeriodicScheduleTick; zero means 30 seconds, a negative value turns
	// the scheduler off (tests call RunDueSchedules).
	ScheduleInterval time.Duration
	// RankRecheckInterval, when positive, is how often the keywords the
	// Tracker tracks are re-checked (Tracker.RecheckDue, which checks
	// those not checked that UTC day, so a failed check is retried next
	// period): the periodic job PeriodicRankRecheck, run once per period
	// over the instances sharing a riverjobs queue. Zero or negative
	// means no re-checks (the ranking source's searches cost money).
	RankRecheckInterval time.Duration

	// BasePath is the path prefix the handler is mounted under with
	// http.StripPrefix ("/seo"), used in the Location and links of jobs;
	// empty means the root.
	BasePath string

	// Logger receives access and error logs; nil means slog.Default().
	Logger *slog.Logger
	// Now returns the current time (tests); nil means time.Now.
	Now func() time.Time
	// DisableAuth turns authentication, permissions and rate limits off,
	// for load-test baselines only. Every request then acts as the account
	// "anonymous".
	DisableAuth bool

	// LogDir is the spool of uploaded log files (POST
	// /v1/projects/{id}/logs) until their parse ends; empty means
	// seokit-logs under os.TempDir(). Instances sharing a queue must share
	// the directory (a log job runs on any of them).
	LogDir string
	// LogVerifier verifies the bots of uploaded logs (published IP ranges
	// and forward-confirmed reverse DNS); nil leaves every bot hit
	// unverifiable, and the report says verification was off.
	LogVerifier *logs.Verifier

	// routes registers extra routes (tests).
	routes func(mux *http.ServeMux)
}

// Server is the /v1 API as an http.Handler. Create it with New, start its
// background work (jobs and deliveries) with Start and stop it with Close.
type Server struct {
	opts    Options
	st      store.Store
	auth    *auth.Server
	log     *slog.Logger
	now     func() time.Time
	mux     *http.ServeMux
	handler http.Handler
	plans   plans.Table
	fetcher *seo.Fetcher
	adm     *admission

	limiter  ratelimit.Limiter
	accounts *plans.Cache

	// jobs
	ctx        context.Context
	cancel     context.CancelFunc
	wg         sync.WaitGroup
	queue      Queue
	localQueue bool // queue is the in-process one
	mu         sync.Mutex
	running    map[string]context.CancelCauseFunc
	spooling   map[string]int // log uploads being received, per account (startSpool)
	cbSecret   []byte
	started    bool
	closed     bool
	mcpOnce    sync.Once
	mcp        *mcpserver.Server
	mcpBuilt   atomic.Pointer[mcpserver.Server] // mcp once built, for Close
	alertWake  chan struct{}                    // wakes the outbox worker (outboxWakeup)
	alertOnce  sync.Once

	idx indexRuns // index status runs (indexfield.go)
}

var _ http.Handler = (*Server)(nil)

// New returns a Server, ready to serve requests. It starts nothing: no
// goroutine, queue worker, resume or poll runs until Start, so a handler
// embedded without Start only accepts and answers (a site analysis it
// accepts stays queued until a started server runs it).
func New(ctx context.Context, opts *Options) (*Server, error) {
	s := &Server{}
	if opts != nil {
		s.opts = *opts
	}
	o := &s.opts
	s.log = o.Logger
	if s.log == nil {
		s.log = slog.Default()
	}
	s.now = o.Now
	if s.now == nil {
		s.now = time.Now
	}
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if o.OptimizeMaxBodyBytes <= 0 {
		o.OptimizeMaxBodyBytes = DefaultOptimizeMaxBodyBytes
	}
	if o.MaxSitePages <= 0 {
		o.MaxSitePages = DefaultMaxSitePages
	}
	if o.JobWorkers <= 0 {
		o.JobWorkers = DefaultJobWorkers
	}
	switch {
	case o.JobTimeout < 0:
		return nil, &seo.InputError{Field: "JobTimeout", Value: o.JobTimeout.String(), Reason: "must not be negative", Err: seo.ErrInvalidInput}
	case o.JobTimeout == 0:
		o.JobTimeout = DefaultJobTimeout
	}
	switch {
	case o.PageTimeout < 0:
		return nil, &seo.InputError{Field: "PageTimeout", Value: o.PageTimeout.String(), Reason: "must not be negative", Err: seo.ErrInvalidInput}
	case o.PageTimeout == 0:
		o.PageTimeout = DefaultPageTimeout
	}
	if o.BurstRate <= 0 {
		o.BurstRate = DefaultBurstRate
	}
	if o.Burst <= 0 {
		o.Burst = DefaultBurst
	}
	if o.CallbackRetryDelays == nil {
		o.CallbackRetryDelays = DefaultCallbackRetryDelays
	}
	if o.SharedCrawlPages <= 0 {
		o.SharedCrawlPages = DefaultSharedCrawlPages
	}
	if o.SharedCrawlHelpers == 0 {
		o.SharedCrawlHelpers = DefaultSharedCrawlHelpers
	}
	if co := o.CrawlerOptions; co != nil && (co.Frontier != nil || co.HostGate != nil) {
		return nil, &seo.InputError{Field: "CrawlerOptions.Frontier", Reason: "a frontier or host gate in the template would be shared by every job; set Options.Frontiers", Err: seo.ErrInvalidInput}
	}
	table, err := plans.New(o.Plans, o.Limits, o.MaxSitePages)
	if err != nil {
		return nil, fmt.Errorf("httpapi: %w", err)
	}
	s.plans = table
	adm := AdmissionOptions{}
	if o.Admission != nil {
		adm = *o.Admission
	}
	if rc, ok := o.Renderer.(renderCapacity); ok && adm.MaxRenders <= 0 {
		adm.MaxRenders = rc.Capacity()
	}
	if rm, ok := o.Renderer.(renderMemoryLimit); ok && adm.BrowserMemory == 0 {
		adm.BrowserMemory = rm.MemoryLimit()
	}
	s.adm = newAdmission(&adm, s.log)
	largest := 0
	for _, p := range table {
		largest = max(largest, p.MaxSitePages)
	}
	tmpl, _ := s.crawlerOptions("", SiteRequest{Options: SiteOptions{Config: crawler.Config{MaxPages: largest}}})
	if err := checkBudget(s.adm.cfg.MemoryBudget, s.adm.cfg.MaxSiteJobs, &tmpl); err != nil {
		return nil, err
	}
	o.BasePath = strings.TrimSuffix(o.BasePath, "/")
	if o.BasePath != "" && !strings.HasPrefix(o.BasePath, "/") {
		return nil, errors.New("httpapi: BasePath must start with /")
	}
	for _, p := range o.TrustedProxies {
		if !p.IsValid() {
			return nil, errors.New("httpapi: invalid trusted proxy prefix")
		}
	}
	s.cbSecret = o.CallbackSecret
	if len(s.cbSecret) == 0 {
		s.cbSecret = []byte(randomID(32))
	}
	s.st = o.Store
	if s.st == nil {
		return nil, fmt.Errorf("httpapi: %w", &seo.InputError{Field: "Options.Store", Reason: "is required (sqlstore.Open opens one)"})
	}
	// One fetcher, so one connection pool, for every page and site
	// analysis, link check, callback and callback URL check, and client
	// ID metadata document; requests carry their own user agent. Its
	// default user agent is the page analyses' (their robots.txt fetches
	// send it).
	fo := seo.FetcherOptions{AllowPrivate: o.AllowPrivate, Timeout: 10 * time.Second}
	if o.AnalyzerOptions != nil {
		fo.UserAgent = o.AnalyzerOptions.UserAgent
	}
	s.fetcher = seo.NewFetcher(&fo)
	s.auth = o.Auth
	if s.auth == nil && !o.DisableAuth {
		// /mcp is a protected resource; without a public URL its tokens
		// cannot be bound to it and it takes API keys only.
		a, err := auth.New(ctx, s.st, &auth.Options{Logger: s.log, Now: o.Now, Resources: []string{MCPPath}, ClientFetcher: s.fetcher})
		if err != nil {
			return nil, fmt.Errorf("httpapi: auth: %w", err)
		}
		s.auth = a
	}
	s.limiter = o.Limiter
	if s.limiter == nil {
		s.limiter = ratelimit.NewLocal(s.st)
	}
	s.accounts = plans.NewCache(10_000, time.Minute)

	s.mux = http.NewServeMux()
	s.routesInit()
	s.handler = chain(s.mux, s.requestIDMiddleware, s.logMiddleware, s.recoverMiddleware, s.securityMiddleware, s.httpsMiddleware)

	// Nothing runs yet: Start starts the queue's workers, the resume of
	// unfinished jobs, the periodic work and the outbox.
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.running = map[string]context.CancelCauseFunc{}
	s.queue = o.Queue
	if s.queue == nil {
		s.queue, s.localQueue = newLocalQueue(o.JobWorkers, o.JobTimeout), true
	}
	return s, nil
}

// ServeHTTP serves the API.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.handler.ServeHTTP(w, r)
}

// Store returns the server's store.
func (s *Server) Store() store.Store { return s.st }

// Auth returns the server's authenticator, to create accounts, keys and
// clients. It is nil when DisableAuth is set and no Auth was given.
func (s *Server) Auth() *auth.Server { return s.auth }

// route is one endpoint and the permission it needs.
type route struct {
	pattern string
	scope   string // auth.ScopeRead or auth.ScopeWrite
	op      string // operation name
	h       http.HandlerFunc
}

// Operation names of the permission table.
const (
	OpAnalyze  = "analyze"
	OpOptimize = "optimize"
	OpKeywords = "keywords"
	OpRankings = "rankings"
	OpReports  = "reports"
)

func (s *Server) routeTable() []route {
	return append([]route{
		{"POST /v1/analyze/page", auth.ScopeWrite, OpAnalyze, s.analyzePagePost},
		{"POST /v1/analyze", auth.ScopeWrite, OpAnalyze, s.analyzePagePost},
		{"GET /v1/analyze", auth.ScopeWrite, OpAnalyze, s.analyzePageGet},
		{"POST /v1/analyze/site", auth.ScopeWrite, OpAnalyze, s.createJob},
		{"GET /v1/analyze/site", auth.ScopeRead, OpAnalyze, s.listJobs},
		{"GET /v1/analyze/site/{id}", auth.ScopeRead, OpAnalyze, s.getJob},
		{"GET /v1/analyze/site/{id}/diff", auth.ScopeRead, OpAnalyze, s.siteDiff},
		{"GET /v1/analyze/site/{id}/screenshot", auth.ScopeRead, OpAnalyze, s.siteScreenshot},
		{"POST /v1/analyze/site/{id}/index-status", auth.ScopeWrite, OpAnalyze, s.startIndexStatus},
		{"GET /v1/analyze/site/{id}/index-status", auth.ScopeRead, OpAnalyze, s.getIndexStatus},
		{"GET /v1/field-vitals", auth.ScopeRead, OpAnalyze, s.fieldVitals},
		{"GET /v1/projects/{id}/field-vitals", auth.ScopeRead, OpAnalyze, s.projectFieldVitals},
		{"DELETE /v1/analyze/site/{id}", auth.ScopeWrite, OpAnalyze, s.cancelJob},
		{"POST /v1/optimize/content", auth.ScopeWrite, OpOptimize, s.optimize},
		{"GET /v1/keywords/suggest", auth.ScopeRead, OpKeywords, s.suggest},
		{"GET /v1/rankings", auth.ScopeRead, OpRankings, s.rankings},
		{"POST /v1/rankings/track", auth.ScopeWrite, OpRankings, s.trackRankings},
		{"GET /v1/reports", auth.ScopeRead, OpReports, s.reports},
		{"GET /v1/mutes/{domain}", auth.ScopeRead, OpAnalyze, s.getMutes},
		{"PUT /v1/mutes/{domain}", auth.ScopeWrite, OpAnalyze, s.putMutes},
		{"POST /v1/projects", auth.ScopeWrite, OpAnalyze, s.createProject},
		{"GET /v1/projects", auth.ScopeRead, OpAnalyze, s.listProjects},
		{"GET /v1/projects/{id}", auth.ScopeRead, OpAnalyze, s.readProject},
		{"PATCH /v1/projects/{id}", auth.ScopeWrite, OpAnalyze, s.updateProject},
		{"DELETE /v1/projects/{id}", auth.ScopeWrite, OpAnalyze, s.deleteProject},
		{"GET /v1/projects/{id}/analyses", auth.ScopeRead, OpAnalyze, s.projectAnalyses},
		{"POST /v1/projects/{id}/schedules", auth.ScopeWrite, OpAnalyze, s.createSchedule},
		{"GET /v1/projects/{id}/schedules", auth.ScopeRead, OpAnalyze, s.listSchedules},
		{"PATCH /v1/projects/{id}/schedules/{sid}", auth.ScopeWrite, OpAnalyze, s.updateSchedule},
		{"DELETE /v1/projects/{id}/schedules/{sid}", auth.ScopeWrite, OpAnalyze, s.deleteSchedule},
		{"POST /v1/projects/{id}/logs", auth.ScopeWrite, OpAnalyze, s.uploadLog},
		{"GET /v1/projects/{id}/logs", auth.ScopeRead, OpAnalyze, s.listLogs},
		{"GET /v1/projects/{id}/logs/{lid}", auth.ScopeRead, OpAnalyze, s.getLog},
		{"GET /v1/projects/{id}/logs/{lid}/lists/{list}", auth.ScopeRead, OpAnalyze, s.logList},
	}, s.alertRoutes()...)
}

func (s *Server) routesInit() {
	for _, rt := range s.routeTable() {
		s.mux.Handle(rt.pattern, s.protect(rt.scope, rt.op, rt.h))
	}
	if s.auth != nil {
		s.auth.Register(s.mux)
	}
	s.mux.Handle("/mcp", s.mcpHandler())
	s.mux.HandleFunc("GET /v1/openapi.json", s.serveOpenAPI)
	s.mux.HandleFunc("GET /v1/schemas/crawl-config.json", serveConfigSchema)
	if s.opts.routes != nil {
		s.opts.routes(s.mux)
	}
	s.mux.HandleFunc("/", s.notFound)
}

// probeMethods are tried to tell a 405 from a 404.
var probeMethods = []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete}

// notFound answers every request no route matched: 405 with Allow when
// the path exists under another method, else 404.
func (s *Server) notFound(w http.ResponseWriter, r *http.Request) {
	var allow []string
	for _, m := range probeMethods {
		if m == r.Method {
			continue
		}
		r2 := r.Clone(r.Context())
		r2.Method = m
		if _, p := s.mux.Handler(r2); p != "" && p != "/" {
			allow = append(allow, m)
		}
	}
	if len(allow) > 0 {
		allowed := ""
		for i, m := range allow {
			if i > 0 {
				allowed += ", "
			}
			allowed += m
		}
		w.Header().Set("Allow", allowed)
		writeError(w, r, apiError(http.StatusMethodNotAllowed, CodeMethodNotAllowed, "method "+r.Method+" is not allowed here; allowed: "+allowed))
		return
	}
	writeError(w, r, apiError(http.StatusNotFound, CodeNotFound, "no such endpoint; the API lives under /v1"))
}
