// Package crawler crawls a whole site and reports on it.
//
// [New] takes [Options]; [Crawler.Run] starts from the domain's home page
// (https first, then http, when no scheme is given) and the URLs of its
// sitemaps, and crawls breadth-first by click depth. Each page is fetched
// with the safe fetcher without following redirects (every hop is recorded
// and its in-scope target queued once; the in-scope target of a 2xx page's
// meta refresh or Refresh header, which search engines follow as a
// redirect, is queued at the page's depth too, without a link edge, and
// judged as a link on the refreshing page, as a page analysis judges it;
// an external redirect or refresh target is checked with the external
// links, unless Options.SkipExternalLinks),
// analysed once by package analyzer,
// streamed to a [Sink], and kept only as a small [PageSummary] for the site
// checks, which run over the link graph when the crawl ends. A page's
// click depth is then the fewest links to it over that graph: pages are
// read concurrently, so the depth at which the crawl first met a URL can
// be deeper, and would vary from one crawl of a site to the next.
//
// The [SiteReport] is data. Package crawler/crawlreport writes it as a
// self-contained HTML page and as CSV; package crawler/compare compares two
// crawls of a site, streamed from memory or from stored JSON.
//
// # Site checks
//
// Site checks are registered by area, one check_<area>.go file each
// (duplicates, sitemap, inlinks, redirects, canonical, hreflang, and the
// link-scope checks of linkscope.go), with fixtures in testdata/<area>.
// [Catalog] lists their IDs. Options.Analyzer's Disable and Mute apply to
// them as to page checks, and [Options].SiteChecks ([SiteCheckOptions])
// holds their thresholds. The link-scope verdicts (links.*,
// canonical.target_*, hreflang.target_*) are [analyzer.TargetFindings],
// which the crawl answers from the pages it crawled.
//
// # Findings, priority and template issues
//
// [SiteReport].Findings holds one [FindingGroup] per check ID: Count sums
// the occurrences (a page reports repeated occurrences of an ID as one
// finding with a count, kept in [PageSummary].FindingCounts), Pages counts
// the distinct URLs. A group that every analysed page of the crawl has
// (HTML answering 2xx, at least two such pages) is a template issue
// (Template): one fix in the shared template clears it on every page, so
// reports list it once, as a site-wide issue, instead of on each page.
// Priority (0-100, seo.Priority) ranks the groups by severity first and by
// reach within a severity, the share of analysed pages affected; the
// low-value notices the catalogue marks Minor (missing hardening headers,
// missing social tags) rank below everything else. The groups are sorted
// by priority, highest first, then ID; site and link findings carry their
// group's priority.
//
// # Pages, URLs not fetched and scores
//
// [SiteReport.Pages] holds the crawled URLs that answered, whatever their
// status. A URL that got no response (robots.txt disallows it, the fetch
// failed without an answer, its host was abandoned after repeated 429/503
// before it was requested) is not a page: it is listed in
// [SiteReport.NotFetched] with its reason, error, depth and the page linking
// to it, and counts nowhere as a page (status codes, graph stats, depth
// histogram, site score). A URL answered 429 or 503 whose retry the
// abandonment cut is a page with that status and the abandonment's error. Only an HTML
// page answered 2xx has a page score; the others have "score": null and a
// "scoreReason" ("error_status", "redirect", "not_html", see
// analyzer.Report.Score), and the site score is the mean of the scores that
// exist. A crawl that scored no page has no site score: [SiteReport.Score]
// is nil and [SiteReport.ScoreReason] says why ("unreachable",
// "robots_txt_unavailable", "robots_blocked", "no_scored_pages"). A site
// that answered nothing stops with [CrawlStats.StopReason] "unreachable"
// and [CrawlStats.Unreachable] saying how (dns, connection, tls, timeout);
// an unavailable robots.txt keeps URLs from being fetched, as search
// engines do, but they are "robots_txt_unavailable", not blocked.
//
// A site check that reports each group of pages as one finding (duplicate
// titles, near-duplicate text ...) counts them apart in its
// [FindingGroup]: URLs (every member of every group), Groups and the
// Members of the first groups. compare.Sites (crawler/compare) tells a
// finding fixed on pages that still answer from one gone with its pages
// (now 4xx/5xx, no response, or not crawled). A URL no link led to (one only a sitemap lists) has "depth": null,
// not a number. [Progress.Done] counts the fetched URLs the way
// CrawlStats.Fetched does, so the last snapshot never says less than an
// earlier one or the report.
//
// [SiteReport.FindingCounts] counts the crawl's findings per severity once,
// both as distinct checks and as occurrences; the site score's counts are
// its distinct checks, and the CLI, HTML report and dashboard show these
// numbers.
//
// # Scope and normalisation
//
// Links, redirects and sitemap URLs are resolved as browsers resolve them
// (the WHATWG URL Standard, seo.ResolveReference), then normalised by
// seo.NormalizeURL (case, default ports, fragments, dot segments, escapes
// of characters that need none, an empty query; query sorted with
// Options.SortQuery; tracking parameters and session identifiers
// removed). The crawler requests the normal form, which is still a URL a
// browser could request: apart from those folds, the request line is the
// browser's. The scope is the start host with or
// without "www.", or with Options.IncludeSubdomains every host of its
// registrable domain by the public suffix list.
//
// [Scope] narrows it before anything is fetched: Include and Exclude
// regular expressions on the normalised URL, KeepParams (keep only these
// query parameters) and MaxFolderDepth; the URLs left out are counted by
// reason in CrawlStats.ScopeSkipped. With Scope.URLs or Scope.ListSitemap
// the crawl is a list crawl: it fetches exactly those URLs, follows no
// link and runs no site probes. Scope.Header, BasicAuth and Cookies give
// access to a site behind a login; they are sent to the crawl's own hosts
// only and never appear in reports. Options.UserAgent may name a preset
// (seo.UserAgentPresets) whose robots.txt token the crawl then obeys.
// # AI crawlers and segments
//
// Options.AICrawlers adds SiteReport.AICrawlers: for each crawler of
// AICrawlers() (its robots.txt token, operator, purpose and the
// operator's documentation), the robots.txt verdict on the home page and
// the line that decides it (robotstxt.Robots.Decide), counts over every
// crawled URL, a firewall probe (the home page and up to MaxAIProbeURLs
// crawled pages of different templates fetched as the crawler, compared
// with a normal fetch) and /llms.txt checked against
// https://llmstxt.org; the ai.* site checks report on it. Options.Segments
// (by URL, status, depth, an extractor's value or the page template,
// PageSummary.Template) put each page in the first segment it matches
// (PageSummary.Segment) and SiteReport.Segments counts the pages and
// findings of each; SiteReport.Templates lists the templates found.
//
// # Saved configurations
//
// [Config] is the JSON document of a crawl's settings that do not depend
// on where it runs (scope, list URLs, access, extractors, search rules,
// segments, mutes): the CLI's crawl -config FILE, the options of the API's
// site analyses and the dashboard's configuration field; projects will
// store one each once seokit has them. [DecodeConfig] reads one, refusing
// unknown members; [Config.Validate] names the member at fault by its JSON
// path ("extract[2].expr"); [Config.Apply] sets it on Options.
// [ConfigSchema] is its JSON Schema, published as
// docs/crawl-config.schema.json.
//
// # Politeness and limits
//
// robots.txt is read per host (RFC 9309 with Google's matching, cached for
// 24 hours) for the configurable product token; Crawl-delay is honoured on
// request. Requests are bounded per host (concurrency and rate) and
// globally, and back off on 429 and 503 as Retry-After says. A crawl stops
// at MaxPages, TimeBudget or ByteBudget, skips URLs past MaxDepth or
// MaxURLLength, and its trap guards cut off endless parameter values,
// facet combinations, calendars, repeating path segments and link floods,
// reporting each as a [Trap] and the URLs they left out in
// [SiteReport.NotFetched] (reason "trap"). A calendar is a numeric pattern
// first seen with a year or a date (2024, 2024-05, 20240501) whose URLs
// spread over more than 25 click depths; other numeric sequences, such as
// numbered pagination (/p{n}.html, /page/{n}, ?page={n}), are crawled like
// Screaming Frog and Sitebulb do, up to 5,000 clicks or 5,000 values of one
// parameter ("page_sequence", "parameter_values"), within MaxPages,
// MaxDepth and MaxQueuedURLs.
//
// # Memory
//
// A crawl keeps only what its limits allow, whatever the site publishes:
// the crawled pages (MaxPages; about 950 bytes each measured, 2 KiB in the
// model), the URLs known but not crawled (MaxQueuedURLs for the frontier,
// MaxLinkTargets for the link graph, both 2*MaxPages+1000 by default; 257
// bytes each measured, 512 in the model), the sitemap URLs (MaxSitemapURLs
// hashes of 8 bytes, 10*MaxPages+50000 by default) and fixed-size state
// (12 MiB). [EstimateMemory] adds these up; Options.Memory reserves that
// much of a shared seo.MemoryBudget for the run. What a cap leaves out is
// counted and said: CrawlStats.LimitReached, GraphStats.OrphanCheck
// ("not_done" for a partial crawl, which reports no orphans), and
// SiteReport.Truncated for every list of the report cut at its cap
// (MaxReportPages, MaxSiteFindingsPerID, MaxReportBytes). MEMORY.md in
// this directory has the model, its measurements and the bound.
//
// # Frontiers and resuming
//
// The queue and seen-set live behind [Frontier]: [MemoryFrontier] by
// default, or package sqlitefrontier, which also implements [SummaryStore]
// so that a stopped crawl resumes without fetching finished pages again.
// Package crawlertest holds the Frontier conformance suite and a generated
// site for tests and benchmarks.
//
// # Several workers
//
// A large site can be crawled by several processes at once. They share a
// [SharedFrontier] (package redisfrontier): one seen-set and queue, items
// leased to the worker that popped them until Done, and every page's
// summary. Each process runs [Crawler.Run] on the same crawl; all but one
// set Options.Worker and only fetch, analyse and store summaries. A worker
// with nothing to pop waits while others have pages in flight, and stops
// when nothing is queued or in flight anywhere. The coordinator (Worker
// false) also reads the sitemaps and runs the site probes, and builds the
// site report from all workers' summaries. The per-host rate, burst and
// Crawl-delay go through Options.HostGate: [LocalHostGate] in one process
// by default, redisfrontier.HostGate across processes. MaxPages is global:
// the frontier counts the pages of every worker (SharedFrontier.PopPages),
// so the workers together fetch at most MaxPages, and the coordinator
// reports max_pages when the cap stopped the crawl; pages counted for a
// worker that died with them in flight are lost, so the cap is an upper
// bound. PerHostConcurrency applies per worker. Workers store their pages'
// external targets (links, refresh and redirect targets, images ...) with
// the edges; the coordinator checks them once the crawl is over, within
// Options.ExternalBudget.
//
// # Rendering
//
// With Options.Analyzer's Render set to render.Auto or render.Always and a
// Renderer (render/chromium's Pool), each page is analysed as the browser
// renders it, and the links of the rendered DOM are the ones crawled, so a
// client-rendered site is crawled past its home page. The rendering asks
// the crawl's robots.txt policy before fetching a subresource and keeps its
// device's user agent; the Renderer bounds its own concurrency, and a
// crawl worker waits for it within the crawl's context and budgets. A
// failed rendering leaves the page's raw analysis with the render.failed
// finding. PageSummary gains the page's rendering (Rendered,
// RenderChanges, LinksOnlyRendered, JSErrors and lab LCPMs, CLS, TBTMs,
// all nil when not rendered or not measured) and SiteReport.Render
// summarises the crawl's (a [RenderSummary]; nil when rendering was off,
// so reports of raw crawls are unchanged). Options.Screenshots receives
// each rendered page's screenshot: [DirScreenshots] writes them to a
// directory as [ScreenshotName] files, at most DefaultMaxScreenshots.
// crawlertest.NewSPA generates a client-rendered site for tests and the
// rendering benchmark (TestRenderBenchmark, SEOKIT_BENCH_RENDER=1).
//
// With Options.Analyzer's A11y as well, each rendered page is audited for
// accessibility with axe-core (the analyzer's a11y area); PageSummary keeps
// the page's audit (A11yChecked, A11yReason, A11yScore, the violated rules
// as A11yIssues) and SiteReport.A11y (an [A11ySummary]) groups the
// violations by rule and page template, marking those shared by every
// page of a template on the same element: chrome, fixed once. The audit
// costs no rendering of its own, so it stays within the pages the
// Renderer agrees to render (a plan's cap).
package crawler
