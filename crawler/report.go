package crawler

import (
	"time"

	"github.com/seokit/seokit/analyzer"
	"github.com/seokit/seokit/seo"
)

// SiteReport is the result of a site analysis.
type SiteReport struct {
	Domain     string    `json:"domain"`
	StartURL   string    `json:"startUrl"`
	StartedAt  time.Time `json:"startedAt"`
	FinishedAt time.Time `json:"finishedAt"`

	// Crawl, Robots and Sitemaps are filled by the crawl.
	Crawl    CrawlStats       `json:"crawl"`
	Robots   RobotsSummary    `json:"robots"`
	Sitemaps []SitemapSummary `json:"sitemaps,omitempty"`
	// Render summarises the rendering of the pages; nil (absent) when the
	// crawl did not render (Options.Analyzer's Render).
	Render *RenderSummary `json:"render,omitempty"`
	// A11y summarises the accessibility audit of the rendered pages by
	// rule and template; nil (absent) when the crawl did not audit
	// (Options.Analyzer's A11y).
	A11y *A11ySummary `json:"a11y,omitempty"`
	// AICrawlers is the AI crawler readiness of the site
	// (Options.AICrawlers); nil (absent in JSON) when not computed.
	AICrawlers *AICrawlerReport `json:"aiCrawlers,omitempty"`
	// Segments counts the pages and findings of each of Options.Segments,
	// in their order, then of the pages in none (Name NoSegment); absent
	// when the crawl had no segments.
	Segments []SegmentSummary `json:"segments,omitempty"`
	// Templates lists the page templates of the crawled HTML pages
	// (PageSummary.Template), the most pages first, with an example URL
	// each, at most MaxTemplates (Truncated "templates" counts the rest);
	// a Segment's Template names one. Absent when no page has one.
	Templates []TemplateSummary `json:"templates,omitempty"`

	// StatusCodes counts the pages of Pages by status; URLs without a
	// response are in NotFetched, not here.
	StatusCodes map[int]int `json:"statusCodes"`
	// Findings groups every finding of the crawl (page and site scope) by ID,
	// sorted by priority (highest first), then ID, with counts, example
	// URLs and the template flag.
	Findings []FindingGroup `json:"findings"`
	// SiteFindings are the site-scope findings in full.
	SiteFindings []seo.Finding `json:"siteFindings"`
	// LinkFindings are the link-scope findings of the crawl in full, with
	// the target URL and its answer in Evidence (links.broken_internal,
	// canonical.target_error ...). Their IDs are also in the source pages'
	// PageSummary.Findings and count in the page scores. At most
	// MaxLinkFindingsPerID are kept per ID; LinkFindingsOmitted counts the
	// rest, and FindingGroup.Count counts them all.
	LinkFindings        []seo.Finding `json:"linkFindings"`
	LinkFindingsOmitted int           `json:"linkFindingsOmitted,omitempty"`
	// ExternalChecked counts the distinct external link targets checked;
	// ExternalUnchecked those left unchecked, and ExternalUncheckedReasons
	// splits them by why: "max_checks" (Options.MaxExternalChecks),
	// "host_failing" (their host failed HostFailLimit checks in a row),
	// "host_unresolvable" (the name of their host does not resolve),
	// "time_budget" (Options.ExternalBudget or TimeBudget ran out) or
	// "canceled" (the crawl was stopped). An unchecked target is neither
	// broken nor fine: no finding is reported for it.
	ExternalChecked          int            `json:"externalChecked"`
	ExternalUnchecked        int            `json:"externalUnchecked,omitempty"`
	ExternalUncheckedReasons map[string]int `json:"externalUncheckedReasons,omitempty"`
	// ExternalFailingHosts lists the hosts given up ("host_failing"), at
	// most 100.
	ExternalFailingHosts []string `json:"externalFailingHosts,omitempty"`
	// ResourceChecked counts the distinct in-scope images, scripts and
	// stylesheets checked (see Options.SkipResourceChecks);
	// ResourceUnchecked those left unchecked and ResourceUncheckedReasons
	// why, with the reasons of
	// ExternalUncheckedReasons ("host_failing": the crawl gave their host
	// up). All are absent when the checks are off.
	ResourceChecked          int            `json:"resourceChecked,omitempty"`
	ResourceUnchecked        int            `json:"resourceUnchecked,omitempty"`
	ResourceUncheckedReasons map[string]int `json:"resourceUncheckedReasons,omitempty"`
	// DuplicatesUnchecked counts the indexable pages with main text left
	// out of the duplicate and near-duplicate content checks
	// (site.duplicate_content, site.near_duplicate), and
	// DuplicatesUncheckedReasons says why: "fingerprint_version"
	// (DuplicatesFingerprintVersion), their text fingerprint was computed
	// by another version of the algorithm than analyzer.FingerprintVersion,
	// as in a crawl resumed across an upgrade, and fingerprints of
	// different versions cannot be compared. Such a page is neither a
	// duplicate nor unique: no finding is reported for it. Both are absent
	// when every page was compared.
	DuplicatesUnchecked        int            `json:"duplicatesUnchecked,omitempty"`
	DuplicatesUncheckedReasons map[string]int `json:"duplicatesUncheckedReasons,omitempty"`
	// Pages summarises every crawled URL that answered (any status); the
	// site checks count only these as pages.
	Pages []PageSummary `json:"pages"`
	// NotFetched lists the crawled URLs that got no response: robots.txt
	// disallows them, their fetch failed, or their host was abandoned.
	// They are not pages: they have no status, score or content, and do
	// not count in the site score, the status codes or the graph stats.
	// Empty (absent in JSON) when every crawled URL answered.
	NotFetched []NotFetchedURL `json:"notFetched,omitempty"`
	Graph      GraphStats      `json:"graph"`
	// Extraction counts the pages per extractor and SearchRules per
	// search rule of analyzer.Options (Extract, Search), over every page
	// crawled, in their configured order; absent when none are configured.
	Extraction  []ExtractorStats `json:"extraction,omitempty"`
	SearchRules []SearchStats    `json:"searchRules,omitempty"`
	// Score is the site score: the rounded mean of the page scores that
	// exist (pages that are unscored, see PageSummary.ScoreReason, are left
	// out) minus the weights of the distinct site finding IDs. Its Counts
	// are FindingCounts.Checks: the distinct finding IDs per severity over
	// every finding of the crawl. It is nil (null) when no page was scored,
	// with ScoreReason saying why: a site that answered nothing has no
	// score, not a good one.
	Score *seo.Score `json:"score"`
	// ScoreReason says why Score is nil: SiteUnreachable (no URL
	// answered), SiteRobotsUnavailable (robots.txt was unavailable, so no
	// page was fetched), SiteRobotsBlocked (robots.txt disallows the start
	// URL and nothing else was reached) or SiteNoScoredPages (pages
	// answered, but none is an HTML document with a 2xx status). Empty when
	// Score is set.
	ScoreReason string `json:"scoreReason,omitempty"`
	// Muted counts the findings of the muted check IDs
	// (analyzer.Options.Mute) over the crawl, page and site scope, by ID;
	// they are left out of Findings, SiteFindings, LinkFindings and the
	// scores. Absent when nothing was muted.
	Muted []analyzer.MutedFinding `json:"muted,omitempty"`
	// FindingCounts counts the crawl's findings per severity; every view
	// of the report (CLI, HTML, CSV, dashboard) shows these numbers.
	FindingCounts FindingCounts `json:"findingCounts"`
	// Truncated names the lists cut at their caps (Options.MaxReportPages,
	// MaxSiteFindingsPerID, MaxReportBytes, MaxLinkTargets,
	// MaxSitemapURLs), with the total found: "pages", "notFetched" (also
	// capped at MaxReportPages), "linkFindings",
	// "siteFindings.<finding ID>", "graph.edges" (links to new URLs not
	// kept in the graph), "templates" (MaxTemplates), "sitemapUrls"
	// (sitemap URLs not remembered). An empty map means the report is
	// complete.
	Truncated seo.Truncated `json:"truncated,omitempty"`
}

// FindingCounts counts the findings of a crawl per severity, in the two
// ways a report shows them. A finding ID's severity is its group's
// (FindingGroup.Severity).
type FindingCounts struct {
	// Checks counts the distinct finding IDs (the checks that failed
	// somewhere in the crawl).
	Checks seo.Counts `json:"checks"`
	// Findings counts the occurrences: each page finding ID once per page
	// reporting it, each site and link finding once (the sum of
	// FindingGroup.Count).
	Findings seo.Counts `json:"findings"`
}

// NotFetchedURL is a crawled URL that got no response.
type NotFetchedURL struct {
	URL string `json:"url"`
	// Reason is NotFetchedRobots (robots.txt disallows the URL),
	// NotFetchedRobotsUnavailable (robots.txt was unavailable, so the URL
	// was not fetched), NotFetchedFailed, NotFetchedAbandoned or
	// NotFetchedTrap (a trap guard left the URL out; Error names the trap's
	// reason and pattern, as in CrawlStats.Traps).
	Reason string `json:"reason"`
	// Error says why the fetch failed.
	Error string `json:"error,omitempty"`
	// Depth is the click depth at which a link reached the URL (as
	// PageSummary.Depth), nil when no link did (a sitemap-only URL).
	Depth *int `json:"depth"`
	// FoundOn is the first crawled page linking to the URL, else the
	// sitemap listing it ("" when neither is known).
	FoundOn string `json:"foundOn,omitempty"`
}

// Values of NotFetchedURL.Reason.
const (
	NotFetchedRobots = "robots_blocked"
	// NotFetchedRobotsUnavailable: the host's robots.txt answered 5xx or
	// 429, or gave no response; Error says which.
	NotFetchedRobotsUnavailable = "robots_txt_unavailable"
	NotFetchedFailed            = "fetch_failed"
	NotFetchedAbandoned         = "host_abandoned"
	NotFetchedTrap              = "trap"
)

// Values of SiteReport.ScoreReason: why a site has no score.
const (
	// SiteUnreachable: no URL of the site answered (CrawlStats.Unreachable).
	SiteUnreachable = "unreachable"
	// SiteRobotsUnavailable: robots.txt answered 5xx or 429, so no page
	// was fetched.
	SiteRobotsUnavailable = "robots_txt_unavailable"
	// SiteRobotsBlocked: robots.txt disallows the start URL and no page
	// was fetched.
	SiteRobotsBlocked = "robots_blocked"
	// SiteNoScoredPages: URLs answered, but none is an HTML document with
	// a 2xx status (every page failed, redirected or is not HTML).
	SiteNoScoredPages = "no_scored_pages"
)

// CrawlStats summarises the crawl itself.
type CrawlStats struct {
	Fetched int `json:"fetched"`
	// Queued counts URLs still in the frontier when the crawl stopped.
	Queued int `json:"queued"`
	// Skipped counts URLs left out by scope, limits or trap guards; Blocked
	// those robots.txt disallows.
	Skipped int `json:"skipped"`
	Blocked int `json:"blocked"`
	Errors  int `json:"errors"`
	// DepthHistogram[d] counts pages at click depth d.
	DepthHistogram []int `json:"depthHistogram"`
	// LimitReached is true when maxPages stopped the crawl with URLs queued.
	LimitReached bool `json:"limitReached"`
	// StopReason says why the crawl ended: "done", "max_pages", "time_budget",
	// "byte_budget", "canceled", or "unreachable" when no URL of the site
	// answered (Unreachable says how it failed).
	StopReason string `json:"stopReason"`
	// Unreachable says how the site failed when StopReason is
	// "unreachable": the start URL, which got no response (when its
	// robots.txt got none either, the start URL is tried once to tell a
	// site that is down from a robots.txt that alone fails), the kind of
	// failure ("dns", "connection", "tls", "timeout" or "other") and the
	// error text.
	Unreachable *seo.Unreachable `json:"unreachable,omitempty"`
	// RobotsUnavailable counts the URLs not fetched because their host's
	// robots.txt was unavailable (5xx, 429, no response): search engines
	// then crawl nothing, but robots.txt did not disallow them, so they
	// are not in Blocked.
	RobotsUnavailable int   `json:"robotsUnavailable,omitempty"`
	Bytes             int64 `json:"bytes"`
	// Resumed counts the pages among Fetched that an earlier, interrupted
	// run of the crawl fetched (a resumable frontier kept them). Duration
	// and PagesPerSecond are this run's: its time and the pages it fetched.
	Resumed        int           `json:"resumed,omitempty"`
	Duration       time.Duration `json:"durationNs"`
	PagesPerSecond float64       `json:"pagesPerSecond"`
	// Traps lists the URL patterns the trap guards stopped.
	Traps []Trap `json:"traps,omitempty"`
	// ScopeSkipped counts, by reason, the distinct URLs Options.Scope or a
	// limit (MaxURLLength, MaxDepth, MaxQueuedURLs) left out, with the
	// first few as examples (they are counted in Skipped too); omitted
	// when none.
	ScopeSkipped []ScopeSkip `json:"scopeSkipped,omitempty"`
}

// Trap is a URL pattern that kept yielding new URLs and was stopped.
// Reason is one of the Trap* constants; Dropped counts the distinct URLs
// left out (for TrapLinkFlood and TrapSessionID, the links cut or
// identifiers removed); the URLs left out are in SiteReport.NotFetched
// with reason NotFetchedTrap.
type Trap struct {
	Pattern string   `json:"pattern"`
	Reason  string   `json:"reason"`
	Dropped int      `json:"dropped"`
	Example []string `json:"examples,omitempty"`
}

// RobotsSummary describes the start host's robots.txt.
type RobotsSummary struct {
	URL    string `json:"url"`
	Status int    `json:"status"`
	Bytes  int    `json:"bytes"`
	// SHA256 is the hex SHA-256 of the body, to tell a changed file from
	// one of the same size (compare.Sites); absent without a body.
	SHA256       string   `json:"sha256,omitempty"`
	Truncated    bool     `json:"truncated,omitempty"`
	Sitemaps     []string `json:"sitemaps,omitempty"`
	InvalidLines int      `json:"invalidLines,omitempty"`
	Error        string   `json:"error,omitempty"`
}

// SitemapSummary describes one sitemap read.
type SitemapSummary struct {
	URL string `json:"url"`
	// Kind is "urlset", "sitemapindex", "rss", "atom" or "text".
	Kind   string `json:"kind,omitempty"`
	Status int    `json:"status"`
	URLs   int    `json:"urls"`
	Error  string `json:"error,omitempty"`
}

// FindingGroup is every finding of one ID across the crawl.
type FindingGroup struct {
	ID       string       `json:"id"`
	Severity seo.Severity `json:"severity"`
	Scope    seo.Scope    `json:"scope"`
	// Count is the number of occurrences (the sum of the page findings'
	// seo.Finding.Count and of the site and link findings); Pages the
	// number of distinct URLs.
	Count int `json:"count"`
	Pages int `json:"pages"`
	// URLs counts the distinct URLs affected: Pages plus, for a check
	// that reports groups of pages as one finding each (duplicate titles,
	// descriptions, H1s, content, near-duplicate text), every member of
	// every group, so "4 URLs in 2 groups" reads URLs 4, Groups 2.
	URLs int `json:"urls"`
	// Groups counts those groups (0 for a check that reports pages one by
	// one); Members lists the member URLs of the first groups, at most 5
	// groups of at most 20 URLs (the whole lists are in SiteFindings'
	// evidence).
	Groups   int        `json:"groups,omitempty"`
	Members  [][]string `json:"members,omitempty"`
	Message  string     `json:"message"`
	Examples []string   `json:"examples"`
	// Priority ranks the group for fixing, 0-100, higher first:
	// seo.Priority of its severity and its reach, the share of the
	// analysed pages (HTML, 2xx) it affects (seo.SiteReach); a finding of
	// the site as a whole, on no page, has reach 1.
	Priority int `json:"priority"`
	// Template is true when every analysed page of the crawl (HTML, 2xx;
	// at least two) has the finding: an issue of the site's template, to
	// fix once, which reports show once rather than in each page's list.
	Template bool `json:"template"`
}

// GraphStats describes the internal link graph.
type GraphStats struct {
	Nodes       int     `json:"nodes"`
	Edges       int     `json:"edges"`
	MaxDepth    int     `json:"maxDepth"`
	MeanInlinks float64 `json:"meanInlinks"`
	// Orphans counts sitemap URLs that answered 2xx HTML without a
	// redirect and that no crawled page links to, reported as site.orphan;
	// only when OrphanCheck is "done". A sitemap URL that fails, redirects
	// or is not HTML is reported by its own sitemap check only.
	Orphans int `json:"orphans"`
	// OrphanCheck says whether orphans were looked for: "done";
	// "not_done" when the crawl stopped before it ran out of URLs
	// (maxPages, a budget, a cap of the crawl's memory), since an
	// unreached sitemap URL may be linked from a page not crawled;
	// "no_sitemap" when no sitemap listed a URL.
	OrphanCheck string `json:"orphanCheck"`
}

// Values of GraphStats.OrphanCheck.
const (
	OrphanCheckDone      = "done"
	OrphanCheckNotDone   = "not_done"
	OrphanCheckNoSitemap = "no_sitemap"
)
