package crawler

import (
	"strings"
	"time"

	"github.com/seokit/seokit/analyzer"
	"github.com/seokit/seokit/seo"
)

// Options configure a crawl. A nil *Options, and every zero field, means the
// documented default.
type Options struct {
	// MaxPages caps the pages fetched (redirecting URLs count, URLs blocked
	// by robots.txt do not); zero means 500.
	MaxPages int
	// MaxDepth caps the click depth from the start URL; zero means 100.
	MaxDepth int
	// IncludeSubdomains widens the scope from the start host (with or
	// without "www.") to every host of its registrable domain, by the public
	// suffix list.
	IncludeSubdomains bool

	// Concurrency is the number of pages fetched and analysed at once; zero
	// means 8.
	Concurrency int
	// PerHostConcurrency bounds the requests in flight to one host; zero
	// means 4.
	PerHostConcurrency int
	// PerHostRate is the request rate per host, per second; zero means 20,
	// a negative value means unlimited (benchmarks on loopback).
	PerHostRate float64
	// PerHostBurst is how many requests to one host may start back to back
	// before PerHostRate spaces them; zero means 1.
	PerHostBurst int
	// HostGate enforces PerHostRate, PerHostBurst and Crawl-delay. Nil means
	// a LocalHostGate of this Run alone; a gate shared by several crawl
	// processes (redisfrontier.HostGate) makes the rate hold for all of
	// them together. PerHostConcurrency stays per process.
	HostGate HostGate
	// HonorCrawlDelay applies robots.txt Crawl-delay to a host, capped at
	// MaxCrawlDelay (zero: 10 s): one request in flight, each starting no
	// sooner than the delay after the previous one was answered (Yandex's
	// reading, the most polite), so the site sees at least the delay
	// between requests however long they take. With a shared HostGate,
	// the other processes' requests are spaced by their starts only.
	HonorCrawlDelay bool
	MaxCrawlDelay   time.Duration

	// UserAgent is sent with every request; zero means seo.DefaultUserAgent.
	// The name of one of seo.UserAgentPresets ("googlebot-smartphone",
	// "googlebot-desktop", "bingbot", "seokit") sends the preset's string
	// and, unless RobotsToken is set, obeys its robots.txt group.
	UserAgent string
	// RobotsToken is the product token matched against robots.txt groups;
	// zero means seo.RobotsToken.
	RobotsToken string
	// IgnoreRobots crawls URLs robots.txt disallows. robots.txt is still
	// read and reported.
	IgnoreRobots bool

	// MaxURLLength skips longer URLs, in bytes; zero means 2048.
	MaxURLLength int
	// RequestTimeout bounds each fetch, body included; zero means 30 s.
	RequestTimeout time.Duration
	// TimeBudget stops the crawl after this long; zero means no limit.
	TimeBudget time.Duration
	// ByteBudget stops the crawl once this many body bytes were read; zero
	// means no limit.
	ByteBudget int64

	// SortQuery sorts query parameters when normalising URLs, so that
	// ?b=1&a=2 and ?a=2&b=1 are crawled once. Off keeps their order.
	SortQuery bool
	// StripParams lists query parameters removed when normalising URLs (a
	// trailing "*" matches a prefix). Nil means seo.TrackingParams; an empty
	// non-nil slice strips nothing. Session identifiers (see SessionParams)
	// are always removed and reported as a trap.
	StripParams []string

	// Analyzer holds the per-page analysis options (depth, thresholds,
	// disabled checks). The crawler sets their Robots, Fetcher and
	// UserAgent; link checking and mobile fetches are turned off.
	// Rendering (Analyzer.Render, Renderer, RenderRequest) applies to every
	// crawled page: the rendering's robots policy for subresources is the
	// crawl's (RobotsToken, IgnoreRobots), its user agent the device's
	// (UserAgent stays on raw fetches), its concurrency the Renderer's
	// own: a crawl worker waits for it within the crawl's context and
	// budgets. Links found only in the rendered DOM are crawled. A failed
	// rendering does not fail the page: its raw analysis stands, with the
	// render.failed finding. SiteReport.Render summarises the rendering. Its
	// Disable and Mute apply to the crawl's own IDs ([Catalog]) too, and
	// Run refuses entries of neither catalogue (seo.ErrInvalidInput);
	// SiteReport.Muted counts the muted findings.
	Analyzer *analyzer.Options
	// SiteChecks holds the thresholds of the site checks (site.deep_page,
	// site.near_duplicate, site.redirect_chain); zero fields keep the
	// defaults. Analyzer's Disable, Mute and Severity apply to the site
	// checks' IDs.
	SiteChecks SiteCheckOptions

	// SkipExternalLinks turns off the checks of external targets: links,
	// refresh and redirect targets, images, scripts, stylesheets,
	// canonical URLs and hreflang alternates. By default every distinct
	// external <a> target of the crawled pages, the external target of a
	// page's meta refresh or Refresh header, the external Location of a
	// crawled redirect, and every external image source, script,
	// stylesheet, canonical URL and hreflang alternate, is requested once
	// (HEAD, then GET when HEAD is refused; redirects are not followed),
	// concurrently with the crawl, within Concurrency and
	// PerHostConcurrency, and reported as links.broken_external or
	// links.redirect_external (for links and refresh targets, as a page
	// analysis with CheckLinks reports them), site.redirect_broken_external
	// on the redirecting URL, and images.broken, resources.broken_script,
	// resources.broken_stylesheet, canonical.target_* and
	// hreflang.target_* for the others, on the referring pages. External
	// URLs are checked, never crawled: robots.txt does not apply to such
	// a check.
	// Progress.External counts them; see ExternalBudget for the bounds.
	SkipExternalLinks bool
	// MaxExternalChecks caps the distinct external URLs checked; zero means
	// 5,000. Later ones are counted in SiteReport.ExternalUnchecked
	// ("max_checks").
	MaxExternalChecks int
	// NoCrawlCanonicals and NoCrawlHreflang stop the crawl from following
	// the pages' in-scope canonical URLs and hreflang alternates. By
	// default they are crawled like links (scope, robots.txt, depth and
	// page budgets apply), so canonical.target_* and hreflang.target_*
	// are reported for targets no link reaches.
	NoCrawlCanonicals bool
	NoCrawlHreflang   bool
	// SkipResourceChecks turns off the checks of in-scope images, scripts
	// and stylesheets. By default each distinct in-scope image source
	// (<img src>, the first srcset candidate of an <img> or
	// <picture><source>), <script src> and <link rel=stylesheet href>
	// that robots.txt allows is requested once per crawl, however many
	// workers share it (HEAD, then GET when HEAD is refused, the body
	// discarded), within PerHostConcurrency and PerHostRate like a page,
	// and images.broken, resources.broken_script or
	// resources.broken_stylesheet is reported on the pages using it.
	// ExternalBudget bounds the wait for them after the pages.
	SkipResourceChecks bool
	// MaxResourceChecks caps the distinct in-scope resources checked; zero
	// means 5,000. Later ones are counted in SiteReport.ResourceUnchecked
	// ("max_checks").
	MaxResourceChecks int
	// ExternalTimeout bounds each external check; zero means 10 s.
	ExternalTimeout time.Duration
	// ExternalBudget bounds how long the crawl waits, once its pages are
	// done, for the external checks still queued or running; zero means
	// 60 s, a negative value means no limit (TimeBudget still applies).
	// The checks it cuts are counted in SiteReport.ExternalUnchecked
	// under "time_budget". Independently, a host whose checks fail
	// HostFailLimit times in a row with no answer (timeout, refused
	// connection, DNS timeout) is not tried again: its other targets are
	// counted under "host_failing", not reported as broken links; a host
	// whose name does not resolve is given up at its first target, and
	// its targets counted under "host_unresolvable".
	ExternalBudget time.Duration

	// AICrawlers adds the AI crawler readiness report
	// (SiteReport.AICrawlers and the ai.* site checks): what robots.txt
	// lets each crawler of AICrawlers() fetch, /llms.txt, and a firewall
	// probe. It is off by default because it sends requests with other
	// crawlers' user agents: /llms.txt once, then the home page and up
	// to MaxAIProbeURLs crawled pages (AICrawlerReport.ProbeURLs) once
	// with UserAgent and once as each of the 11 crawlers that fetch pages,
	// each through the host's politeness gate, outside MaxPages (at most
	// 49 requests).
	AICrawlers bool
	// SkipAICrawlerProbe keeps the AI readiness report but skips its
	// firewall probe (all its requests but /llms.txt).
	SkipAICrawlerProbe bool

	// Segments group the crawled pages by URL pattern, status, click
	// depth or extracted value: each page is in the first segment it matches
	// (PageSummary.Segment), and SiteReport.Segments counts the pages and
	// findings of each. At most MaxSegments; Run refuses bad ones with a
	// *seo.InputError naming "segments[i].field" (see ValidateSegmentsFor).
	Segments []Segment

	// Fetcher fetches every URL of the crawl. Nil means a safe fetcher
	// (seo.NewFetcher) with AllowPrivate and UserAgent. Every request of
	// the crawl carries UserAgent, so one fetcher (and its connection
	// pool) can serve crawls with different user agents.
	Fetcher *seo.Fetcher
	// AllowPrivate lets the default fetcher reach loopback and private
	// networks. Ignored when Fetcher is set.
	AllowPrivate bool

	// Frontier holds the queue and seen-set; nil means an in-memory one.
	// A frontier that also implements SummaryStore makes a crawl resumable.
	Frontier Frontier
	// Worker makes this Run one of several workers of a crawl shared through
	// a SharedFrontier that another Run (the coordinator, Worker false)
	// reports on: it fetches and analyses pages and stores their summaries
	// with the targets they refer to, but skips the sitemaps, the site
	// probes, the external target checks and the site checks (the
	// coordinator runs them for every worker), and returns a report of its
	// own crawl statistics with no pages. It checks the in-scope images,
	// scripts and stylesheets it claims when the frontier has
	// SharedTargets. Ignored unless Frontier is a SharedFrontier.
	Worker bool
	// SharedPoll is how often a worker of a shared crawl with nothing to do
	// asks the frontier again while other workers have pages in flight;
	// zero means 50 ms.
	SharedPoll time.Duration
	// Sink receives every page's full report; nil drops them once
	// summarised.
	Sink Sink
	// Screenshots receives the viewport screenshot of every rendered page
	// that has one (Analyzer.Render on, Analyzer.RenderRequest.Screenshot
	// set); nil keeps none beyond the reports given to Sink.
	// DirScreenshots writes them to a directory. A refused screenshot is
	// counted (RenderSummary.ScreenshotsOmitted), not an error of the
	// crawl.
	Screenshots ScreenshotSink
	// Progress is called at most every ProgressInterval (zero: 500 ms) and
	// once at the end. It runs on its own goroutine and must not block long.
	Progress         func(Progress)
	ProgressInterval time.Duration

	// Memory caps: what a crawl keeps is bounded by these and MaxPages
	// (see the memory model in MEMORY.md and EstimateMemory). A URL, edge
	// or list item past a cap is dropped and counted; the report says so
	// (CrawlStats.LimitReached, GraphStats.OrphanCheck, SiteReport.Truncated).

	// MaxQueuedURLs caps the URLs admitted to the frontier over the whole
	// crawl (its seen-set: queued, sitemap URLs waiting and crawled ones);
	// zero means 2*MaxPages + 1,000. URLs past it are counted as skipped
	// and the crawl is partial (CrawlStats.LimitReached).
	MaxQueuedURLs int
	// MaxLinkTargets caps the distinct URLs not crawled (yet) that the link
	// graph keeps by name: link and redirect targets and sitemap URLs.
	// Links to further new URLs are counted, not kept. Zero means
	// 2*MaxPages + 1,000.
	MaxLinkTargets int
	// MaxSitemapURLs caps the distinct sitemap URLs whose listing is
	// remembered (8 bytes each) for PageSummary.InSitemap and
	// site.not_in_sitemap; zero means 10*MaxPages + 50,000.
	MaxSitemapURLs int
	// MaxReportPages caps SiteReport.Pages; zero means 10,000. The site
	// checks still see every page.
	MaxReportPages int
	// MaxSiteFindingsPerID caps the findings of one ID in
	// SiteReport.SiteFindings; zero means 1,000. FindingGroup.Count still
	// counts them all.
	MaxSiteFindingsPerID int
	// MaxReportBytes bounds the approximate JSON size of the SiteReport:
	// the page list and the findings lists are cut further until the
	// report fits; zero means 16 MiB.
	MaxReportBytes int64
	// Memory, when set, admits the crawl by its estimate (EstimateMemory):
	// Run reserves it before crawling and releases it when it returns,
	// and fails with an error wrapping seo.ErrUnavailable when the budget
	// cannot admit it.
	Memory seo.MemoryBudget
	// MemoryLimit, when positive, is the crawl's memory budget in bytes,
	// applied to the Go runtime's soft memory limit (debug.SetMemoryLimit)
	// while Run runs: the collector runs more often as the heap nears it
	// and returns freed memory to the system, so the process's RSS follows
	// the crawl's live heap instead of growing to about twice it (GOGC's
	// default). It is soft: it never fails the crawl nor holds back a page.
	// When the live heap comes within a fifth of it, the crawl's limit is
	// raised to 1.25 times the live heap, so a crawl that needs more than
	// its budget runs with an ordinary collector, not a continuous one.
	// Crawls running at once in a process add their budgets; a lower limit
	// already in place (GOMEMLIMIT, a server's) is kept, and restored when
	// the last crawl ends. Zero leaves the runtime's limit alone; otherwise
	// at least MinMemoryLimit. MEMORY.md gives the budget of a crawl by
	// its size.
	MemoryLimit int64

	// Now returns the current time (tests); nil means time.Now.
	Now func() time.Time

	// Scope, list mode and access: see scope.go.
	Scope
}

// Defaults of Options.
const (
	DefaultMaxPages           = 500
	DefaultMaxDepth           = 100
	DefaultConcurrency        = 8
	DefaultPerHostConcurrency = 4
	DefaultPerHostRate        = 20
	DefaultMaxCrawlDelay      = 10 * time.Second
	DefaultMaxURLLength       = 2048
	DefaultProgressInterval   = 500 * time.Millisecond
	DefaultRequestTimeout     = 30 * time.Second
	DefaultMaxExternalChecks  = 5000
	DefaultMaxResourceChecks  = 5000
	DefaultExternalTimeout    = 10 * time.Second
	DefaultExternalBudget     = 60 * time.Second
	DefaultSharedPoll         = 50 * time.Millisecond
	DefaultMaxReportPages     = 10_000
	DefaultMaxSiteFindings    = 1000
	DefaultMaxReportBytes     = 16 << 20
)

// Limits of the crawl that are not options.
const (
	// MaxLinksPerPage caps the distinct links taken from one page; the rest
	// are counted as skipped and reported as a "link_flood" trap.
	MaxLinksPerPage = 5000
	// MaxSitemaps caps the sitemaps read, indexes included.
	MaxSitemaps = 100
	// MaxSitemapDepth is how deep sitemap indexes are followed.
	MaxSitemapDepth = 3
	// maxRetries is how often a 429/503 answer is retried.
	maxRetries = 2
	// abandonStrikes is the number of 429/503 answers in a row after which
	// a host is given up: its remaining URLs are recorded as errors.
	abandonStrikes = 10
	// maxBackoff caps a Retry-After wait.
	maxBackoff = 60 * time.Second
)

// SessionParams are query parameter names that carry session identifiers;
// the crawler always removes them from URLs (compared case-insensitively).
var SessionParams = []string{"sid", "sessionid", "session_id", "jsessionid", "phpsessid", "aspsessionid", "sess", "s_id", "cfid", "cftoken"}

// resolved returns a copy of o with defaults applied.
func (o *Options) resolved() Options {
	var r Options
	if o != nil {
		r = *o
	}
	if r.MaxPages <= 0 {
		r.MaxPages = DefaultMaxPages
	}
	if r.MaxDepth <= 0 {
		r.MaxDepth = DefaultMaxDepth
	}
	if r.Concurrency <= 0 {
		r.Concurrency = DefaultConcurrency
	}
	if r.PerHostConcurrency <= 0 {
		r.PerHostConcurrency = DefaultPerHostConcurrency
	}
	if r.PerHostRate == 0 {
		r.PerHostRate = DefaultPerHostRate
	}
	if r.MaxCrawlDelay <= 0 {
		r.MaxCrawlDelay = DefaultMaxCrawlDelay
	}
	for _, p := range seo.UserAgentPresets {
		if strings.EqualFold(strings.TrimSpace(r.UserAgent), p.Name) {
			r.UserAgent = p.UserAgent
			if r.RobotsToken == "" {
				r.RobotsToken = p.RobotsToken
			}
		}
	}
	if r.UserAgent == "" {
		r.UserAgent = seo.DefaultUserAgent
	}
	if r.RobotsToken == "" {
		r.RobotsToken = seo.RobotsToken
	}
	if r.MaxURLLength <= 0 {
		r.MaxURLLength = DefaultMaxURLLength
	}
	if r.StripParams == nil && len(r.KeepParams) == 0 {
		r.StripParams = seo.TrackingParams
	}
	if r.RequestTimeout <= 0 {
		r.RequestTimeout = DefaultRequestTimeout
	}
	if r.MaxExternalChecks <= 0 {
		r.MaxExternalChecks = DefaultMaxExternalChecks
	}
	if r.MaxResourceChecks <= 0 {
		r.MaxResourceChecks = DefaultMaxResourceChecks
	}
	if r.ExternalTimeout <= 0 {
		r.ExternalTimeout = DefaultExternalTimeout
	}
	if r.ExternalBudget == 0 {
		r.ExternalBudget = DefaultExternalBudget
	}
	if r.PerHostBurst <= 0 {
		r.PerHostBurst = 1
	}
	if r.SharedPoll <= 0 {
		r.SharedPoll = DefaultSharedPoll
	}
	if r.ProgressInterval <= 0 {
		r.ProgressInterval = DefaultProgressInterval
	}
	if r.MaxQueuedURLs <= 0 {
		r.MaxQueuedURLs = 2*r.MaxPages + 1000
	}
	if r.MaxLinkTargets <= 0 {
		r.MaxLinkTargets = 2*r.MaxPages + 1000
	}
	if r.MaxSitemapURLs <= 0 {
		r.MaxSitemapURLs = 10*r.MaxPages + 50_000
	}
	if r.MaxReportPages <= 0 {
		r.MaxReportPages = DefaultMaxReportPages
	}
	if r.MaxSiteFindingsPerID <= 0 {
		r.MaxSiteFindingsPerID = DefaultMaxSiteFindings
	}
	if r.MaxReportBytes <= 0 {
		r.MaxReportBytes = DefaultMaxReportBytes
	}
	if r.Now == nil {
		r.Now = time.Now
	}
	return r
}
