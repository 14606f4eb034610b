package crawler

import (
	"github.com/seokit/seokit/analyzer"
	"github.com/seokit/seokit/seo"
)

// PageSummary is what a crawl keeps of each page once its full report has
// gone to the Sink: enough for the site checks, small enough to hold for
// every page of a large site.
type PageSummary struct {
	// URL is the normalised URL crawled; FinalURL where its redirects ended.
	URL      string `json:"url"`
	FinalURL string `json:"finalUrl,omitempty"`
	Status   int    `json:"status"`
	// Depth is the click depth from the start URL (sitemap-only URLs count
	// the depth at which they were first found, or -1 when never linked).
	Depth       int            `json:"depth"`
	Redirects   []seo.Redirect `json:"redirects,omitempty"`
	ContentType string         `json:"contentType,omitempty"`
	IsHTML      bool           `json:"isHtml"`
	// Indexable: 200, HTML, no noindex, allowed by robots.txt.
	Indexable     bool `json:"indexable"`
	Noindex       bool `json:"noindex,omitempty"`
	Nofollow      bool `json:"nofollow,omitempty"`
	RobotsBlocked bool `json:"robotsBlocked,omitempty"`

	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	H1          string `json:"h1,omitempty"`
	// Canonical is the absolute canonical URL ("" when none or conflicting).
	Canonical string               `json:"canonical,omitempty"`
	Hreflang  []analyzer.Alternate `json:"hreflang,omitempty"`
	WordCount int                  `json:"wordCount"`
	// TextHash and SimHash fingerprint the main text (see analyzer.Fingerprint).
	TextHash uint64 `json:"-"`
	SimHash  uint64 `json:"-"`

	// BlockedResources lists scripts and stylesheets of the page that
	// robots.txt disallows.
	BlockedResources []string `json:"blockedResources,omitempty"`

	Score    int      `json:"score"`
	Errors   int      `json:"errors"`
	Warnings int      `json:"warnings"`
	Notices  int      `json:"notices"`
	Findings []string `json:"findings,omitempty"` // distinct page finding IDs
	// FindingCounts holds the occurrences of the IDs in Findings that the
	// page reported more than once (seo.Finding.Count); an ID absent from
	// it occurred once. It is shared between pages: read-only.
	FindingCounts map[string]int `json:"findingCounts,omitempty"`
	// Muted counts the page's muted findings (analyzer.Options.Mute); the
	// site builder sums them into SiteReport.Muted and drops them here.
	Muted []analyzer.MutedFinding `json:"muted,omitempty"`

	// Set by the site checks.
	InSitemap bool    `json:"inSitemap,omitempty"`
	Inlinks   int     `json:"inlinks"`
	LinkScore float64 `json:"linkScore"`

	// Error says why the page could not be fetched.
	Error string `json:"error,omitempty"`
	// ResponseMs is the total fetch time.
	ResponseMs int64 `json:"responseMs"`
	Bytes      int64 `json:"bytes"`
}

// Edge is one internal link of the crawl's link graph.
type Edge struct {
	From, To string
	Nofollow bool
}
