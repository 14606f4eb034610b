package indexstatus

import (
	"context"
	"time"
)

// Inspector inspects the index status of one URL of a Search Console
// property. Drivers live in subpackages (indexstatus/searchconsole) and run
// indexstatustest.RunInspector.
type Inspector interface {
	// Name names the driver ("searchconsole").
	Name() string
	// Inspect returns what Google's index holds for url, a URL under
	// property ("sc-domain:example.com" or "https://www.example.com/").
	// A quota refusal wraps seo.ErrRateLimited; other provider failures
	// wrap seo.ErrUnavailable; a bad url or property is an
	// *seo.InputError. A cancelled ctx ends the call.
	Inspect(ctx context.Context, property, url string) (*Inspection, error)
}

// Verdicts of Inspection.Verdict, as Search Console spells them.
const (
	VerdictPass    = "PASS"
	VerdictPartial = "PARTIAL"
	VerdictFail    = "FAIL"
	VerdictNeutral = "NEUTRAL"
)

// Coverage states Search Console reports (Inspection.Coverage) that the
// join reads. Others ("Alternate page with proper canonical tag", ...) are
// kept as given.
const (
	CoverageSubmittedIndexed   = "Submitted and indexed"
	CoverageIndexedNotSubmit   = "Indexed, not submitted in sitemap"
	CoverageCrawledNotIndexed  = "Crawled - currently not indexed"
	CoverageDiscoveredNotIndex = "Discovered - currently not indexed"
	CoverageUnknown            = "URL is unknown to Google"
)

// Inspection is the index status of one URL as Search Console reports it
// (urlInspection/index:inspect, indexStatusResult). A field Search Console
// left out is empty (nil for LastCrawl), never guessed.
type Inspection struct {
	// URL is the URL inspected.
	URL string `json:"url"`
	// Verdict is PASS (indexed), PARTIAL, FAIL, NEUTRAL (excluded), or ""
	// when not given.
	Verdict string `json:"verdict"`
	// Coverage is Search Console's coverage state in words ("Crawled -
	// currently not indexed").
	Coverage string `json:"coverage,omitempty"`
	// IndexingState says whether the page blocks indexing
	// (INDEXING_ALLOWED, BLOCKED_BY_META_TAG, BLOCKED_BY_HTTP_HEADER,
	// BLOCKED_BY_ROBOTS_TXT).
	IndexingState string `json:"indexingState,omitempty"`
	// RobotsTxtState is ALLOWED or DISALLOWED for Googlebot.
	RobotsTxtState string `json:"robotsTxtState,omitempty"`
	// PageFetchState is how Google's last fetch went (SUCCESSFUL,
	// SOFT_404, NOT_FOUND, SERVER_ERROR ...).
	PageFetchState string `json:"pageFetchState,omitempty"`
	// GoogleCanonical is the canonical Google chose; UserCanonical the one
	// Google read from the page. Empty when Google has none.
	GoogleCanonical string `json:"googleCanonical,omitempty"`
	UserCanonical   string `json:"userCanonical,omitempty"`
	// LastCrawl is when Googlebot last crawled the URL; nil when never or
	// not reported.
	LastCrawl *time.Time `json:"lastCrawl"`
	// CrawledAs is DESKTOP or MOBILE.
	CrawledAs string `json:"crawledAs,omitempty"`
	// Sitemaps lists the sitemaps Google knows list the URL (at most
	// MaxListed).
	Sitemaps []string `json:"sitemaps,omitempty"`
	// ReferringURLs lists pages Google knows link to it (at most MaxListed).
	ReferringURLs []string `json:"referringUrls,omitempty"`
	// Link opens the inspection in Search Console.
	Link string `json:"link,omitempty"`
}

// MaxListed caps Inspection.Sitemaps and ReferringURLs.
const MaxListed = 20

// Indexed reports whether Google reports the URL indexed: verdict PASS or
// an "indexed" coverage state.
func (in *Inspection) Indexed() bool {
	switch in.Coverage {
	case CoverageSubmittedIndexed, CoverageIndexedNotSubmit:
		return true
	}
	return in.Verdict == VerdictPass
}
