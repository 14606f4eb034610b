package crawler

import (
	"sort"

	"github.com/seokit/seokit/seo"
)

// siteCheck is a site check: it runs once the crawl is over, over the page
// summaries and the link graph of a siteRun, and reports site findings
// with siteRun.add. The built-in site checks are registered by area from
// the check_<area>.go files, each with a matching testdata/<area> folder.
//
// Like page checks, site checks are configured through the crawl's
// options: Options.Analyzer's Disable and Mute drop or count their IDs,
// its Severity overrides their severity, and Options.SiteChecks holds
// their thresholds. Every check runs (a disabled ID is dropped from the
// report, so that the graph statistics a check computes stay the same).
type siteCheck struct {
	// Area groups the check ("duplicates", "sitemap", ...); it names its
	// check_<area>.go file and testdata/<area> folder.
	Area string
	// IDs are the catalogue entries the check declares and reports.
	IDs []seo.CheckInfo
	// Reports lists IDs of [analyzer.Catalog] the check reports across the
	// crawl (link-scope checks answered from the crawled targets). Each
	// such ID is reported by one site check only.
	Reports []string
	// Sources, when set, tells which pages (by index in siteRun.pages) the
	// check lists the linking pages of as evidence (siteRun.sourcesOf).
	// The build collects them for every check in one pass over the graph
	// before the checks run.
	Sources func(r *siteRun, i int) bool
	// Run runs the check.
	Run func(r *siteRun)
}

// builtinSiteChecks are the registered site checks, in registration order.
var builtinSiteChecks []siteCheck

// siteCatalog holds the IDs the site checks declare.
var siteCatalog = map[string]seo.CheckInfo{}

// registerSite adds built-in site checks; called from init functions of
// the check_<area>.go files. Declaring an ID twice is a programming error.
func registerSite(checks ...siteCheck) {
	for _, c := range checks {
		for _, in := range c.IDs {
			if _, dup := siteCatalog[in.ID]; dup {
				panic("crawler: site check ID declared twice: " + in.ID)
			}
			siteCatalog[in.ID] = in
		}
	}
	builtinSiteChecks = append(builtinSiteChecks, checks...)
}

// Catalog returns every check ID a crawl reports beyond the page checks of
// [analyzer.Catalog]: the site checks and the crawl's own checks (robots.txt,
// sitemaps, host variants ...), sorted by ID.
func Catalog() []seo.CheckInfo {
	out := make([]seo.CheckInfo, 0, len(siteCatalog)+len(crawlChecks))
	for _, in := range siteCatalog {
		out = append(out, in)
	}
	out = append(out, crawlChecks...)
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// SiteCheckOptions holds the thresholds of the site checks. Zero fields
// mean the defaults, which follow the peer tools named in each check's
// catalogue Source.
type SiteCheckOptions struct {
	// DeepPageDepth is the greatest click depth from the start URL that
	// site.deep_page does not report; zero means 4.
	DeepPageDepth int
	// NearDuplicateBits is the greatest distance, in bits, between the
	// main-text simhashes of two pages that site.near_duplicate reports;
	// zero means 3, and values above 3 count as 3 (the check compares
	// pages that agree on one of four 16-bit blocks, which finds every
	// pair within 3 bits and keeps it near-linear on large crawls).
	NearDuplicateBits int
	// MaxRedirectHops is the longest redirect chain behind an internal
	// link that site.redirect_chain does not report; zero means 1.
	MaxRedirectHops int
}

// Defaults of SiteCheckOptions.
const (
	DefaultDeepPageDepth     = 4
	DefaultNearDuplicateBits = 3
	DefaultMaxRedirectHops   = 1
)

// resolved returns o with defaults applied.
func (o SiteCheckOptions) resolved() SiteCheckOptions {
	if o.DeepPageDepth <= 0 {
		o.DeepPageDepth = DefaultDeepPageDepth
	}
	if o.NearDuplicateBits <= 0 || o.NearDuplicateBits > DefaultNearDuplicateBits {
		o.NearDuplicateBits = DefaultNearDuplicateBits
	}
	if o.MaxRedirectHops <= 0 {
		o.MaxRedirectHops = DefaultMaxRedirectHops
	}
	return o
}

// Caps of site findings and groups.
const (
	// maxEvidenceURLs caps Evidence.URLs of a site finding; Detail gives the total.
	maxEvidenceURLs = 20
	// maxGroupExamples caps FindingGroup.Examples.
	maxGroupExamples = 5
)
