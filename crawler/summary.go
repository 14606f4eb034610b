package crawler

import (
	"context"
	"sort"
	"strings"

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
	// Depth is the click depth from the start URL: the fewest links from
	// the start URL by which the crawl reached the page, over every link
	// it recorded (a redirect counts none), whichever page the crawl read
	// first. It is nil (JSON null) for a URL no link led the crawl to
	// within MaxDepth, such as one only a sitemap lists, and for the pages
	// reached from it only.
	Depth       *int           `json:"depth"`
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
	// FingerprintVersion is the version of their algorithm
	// (analyzer.FingerprintVersion; 0 reads as the current one). The
	// duplicate-content checks compare only fingerprints of the current
	// version.
	FingerprintVersion int `json:"-"`
	// Template is the page's template fingerprint
	// (analyzer.TemplateFingerprint); "" when the response is not an HTML
	// document. SiteReport.Templates lists those of the crawl.
	Template string `json:"template,omitempty"`

	// BlockedResources lists scripts and stylesheets of the page that
	// robots.txt disallows.
	BlockedResources []string `json:"blockedResources,omitempty"`

	// Score is the page score, nil (JSON null) when the page has none, with
	// ScoreReason saying why: analyzer.ScoreNotFetched, ScoreErrorStatus,
	// ScoreRedirect or ScoreNotHTML (see analyzer.Report.Score). Unscored
	// pages do not count in the site score.
	Score       *int   `json:"score"`
	ScoreReason string `json:"scoreReason,omitempty"`
	// Errors, Warnings and Notices count the page's distinct finding IDs
	// per severity, scored or not.
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

	// Extracted and Search are the page's custom extraction and search
	// outcomes (analyzer.Report.Extracted, Search), with at most
	// MaxSummaryValues values per extractor, each clipped to
	// MaxSummaryValueChars characters, MaxSummaryValueBytes in all.
	Extracted []analyzer.Extraction  `json:"extracted,omitempty"`
	Search    []analyzer.SearchMatch `json:"search,omitempty"`

	// Set by the site checks.
	InSitemap bool    `json:"inSitemap,omitempty"`
	Inlinks   int     `json:"inlinks"`
	LinkScore float64 `json:"linkScore"`
	// Segment is the first of Options.Segments the page matches; "" for
	// none.
	Segment string `json:"segment,omitempty"`

	// Rendering (Options.Analyzer's Render): every field is absent (nil)
	// when rendering was off. Rendered says whether the page was rendered,
	// RenderReason why or why not (analyzer's RenderReport.Reason);
	// RenderTimedOut that its time budget cut the rendering short;
	// RenderFailed that the rendering failed (the raw analysis stands,
	// with the render.failed finding). The other fields are nil when the
	// page was not rendered or the value not measured, never zero:
	// RenderChanges names the fields the rendering changed ("title",
	// "canonical", ...), LinksOnlyRendered counts the links found only in
	// the rendered DOM, RawWordCount the main-text words of the raw HTML
	// (WordCount is the rendered page's), JSErrors the uncaught JavaScript
	// errors; LCPMs,
	// CLS and TBTMs are lab Web Vitals (SiteReport.Render names the
	// device). Screenshot is true when Options.Screenshots stored the
	// page's screenshot.
	Rendered          *bool    `json:"rendered,omitempty"`
	RenderReason      string   `json:"renderReason,omitempty"`
	RenderTimedOut    bool     `json:"renderTimedOut,omitempty"`
	RenderFailed      bool     `json:"renderFailed,omitempty"`
	RenderChanges     []string `json:"renderChanges,omitempty"`
	LinksOnlyRendered *int     `json:"linksOnlyRendered,omitempty"`
	RawWordCount      *int     `json:"rawWordCount,omitempty"`
	JSErrors          *int     `json:"jsErrors,omitempty"`
	LCPMs             *float64 `json:"lcpMs,omitempty"`
	CLS               *float64 `json:"cls,omitempty"`
	TBTMs             *float64 `json:"tbtMs,omitempty"`
	Screenshot        bool     `json:"screenshot,omitempty"`

	// Accessibility audit (Options.Analyzer's A11y): A11yChecked is nil
	// when not asked for, false with A11yReason when the page was not
	// audited; A11yScore is the page's accessibility score and A11yIssues
	// the rules it violates (at most 30).
	A11yChecked *bool           `json:"a11yChecked,omitempty"`
	A11yReason  string          `json:"a11yReason,omitempty"`
	A11yScore   *int            `json:"a11yScore,omitempty"`
	A11yIssues  []A11yPageIssue `json:"a11yIssues,omitempty"`

	// Error says why the page could not be fetched.
	Error string `json:"error,omitempty"`
	// ResponseMs is the total fetch time.
	ResponseMs int64 `json:"responseMs"`
	Bytes      int64 `json:"bytes"`
}

// depth returns the click depth of the page, or -1 when no link reached it.
func (p *PageSummary) depth() int {
	if p.Depth == nil {
		return -1
	}
	return *p.Depth
}

// depthPtr returns d as a PageSummary.Depth: nil for a negative depth.
func depthPtr(d int) *int {
	if d < 0 {
		return nil
	}
	return &d
}

// fetched reports whether the crawl received a response for the URL: false
// for a URL robots.txt disallows, one whose fetch failed without any
// answer, and one left out after its host was abandoned.
func (p *PageSummary) fetched() bool { return p.Status != 0 }

// fingerprintVersion returns FingerprintVersion, 0 read as
// analyzer.FingerprintVersion.
func (p *PageSummary) fingerprintVersion() int {
	if p.FingerprintVersion == 0 {
		return analyzer.FingerprintVersion
	}
	return p.FingerprintVersion
}

// Edge is one internal link of the crawl's link graph. In a shared crawl
// the targets a page refers to that the crawl checks rather than crawls
// are stored with its edges too, so that the coordinator checks each once
// (Options.Worker): external link targets marked External, and the
// canonical URLs, hreflang alternates, images, scripts and stylesheets to
// check marked with their Target (external ones marked External as well).
type Edge struct {
	From, To string
	Nofollow bool
	External bool `json:",omitempty"`
	// Target is "" for a link, else how the page refers to To: one of
	// TargetCanonical, TargetHreflang, TargetImage, TargetScript,
	// TargetStylesheet, TargetRefresh and TargetRedirect.
	Target string `json:",omitempty"`
}

// SummaryCounts counts the page summaries a SummaryStore holds, as
// CrawlStats counts pages: Fetched the pages with a response or a failed
// fetch, Errors those of them that failed, Blocked the URLs robots.txt
// disallowed.
type SummaryCounts struct {
	Fetched, Errors, Blocked int
}

// SummaryCounter is an optional capability of a SummaryStore: the counts
// of its summaries, which for a SharedFrontier are those of every worker of
// the crawl, so a crawl's progress can be told exactly across workers.
type SummaryCounter interface {
	SummaryCounts(ctx context.Context) (SummaryCounts, error)
}

// CountSummary adds one page summary to c, as the crawl's statistics count
// it.
func (c *SummaryCounts) CountSummary(sum PageSummary) {
	if sum.RobotsBlocked {
		c.Blocked++
	} else {
		c.Fetched++
	}
	if isErrorSummary(sum) {
		c.Errors++
	}
}

// summarize keeps what the site checks need of a page report.
func summarize(rep *analyzer.Report, depth int) PageSummary {
	s := PageSummary{
		URL:         rep.URL,
		Status:      rep.Status,
		Depth:       depthPtr(depth),
		Redirects:   rep.Redirects,
		ContentType: rep.Sizes.ContentType,
		IsHTML:      rep.IsHTML,
		WordCount:   rep.WordCount,
		TextHash:    rep.Fingerprint.TextHash,
		SimHash:     rep.Fingerprint.SimHash,
		Template:    rep.Template,
		ScoreReason: rep.ScoreReason,
		Error:       rep.Error,
		ResponseMs:  rep.Timings.Total.Milliseconds(),
		Bytes:       rep.Sizes.Transferred,
		Hreflang:    rep.Hreflang,
	}
	s.FingerprintVersion = rep.Fingerprint.Version
	sc := rep.Score
	if sc != nil {
		v := sc.Value
		s.Score = &v
	} else {
		c := seo.PageScore(rep.Findings)
		sc = &c
	}
	s.Errors, s.Warnings, s.Notices = sc.Counts.Errors, sc.Counts.Warnings, sc.Counts.Notices
	if s.URL == "" {
		s.URL = rep.FinalURL
	}
	if rep.FinalURL != "" && rep.FinalURL != s.URL {
		s.FinalURL = rep.FinalURL
	}
	if rep.Robots.RobotsTxtAllowed != nil && !*rep.Robots.RobotsTxtAllowed {
		s.RobotsBlocked = true
	}
	for _, d := range rep.Robots.Directives {
		for _, tok := range strings.Split(strings.ToLower(d.Value), ",") {
			switch strings.TrimSpace(tok) {
			case "noindex":
				s.Noindex = true
			case "nofollow":
				s.Nofollow = true
			case "none":
				s.Noindex, s.Nofollow = true, true
			}
		}
	}
	s.Indexable = rep.Robots.Indexable && rep.Status == 200 && rep.IsHTML && !s.RobotsBlocked && !s.Noindex
	if rep.Title != nil {
		s.Title = rep.Title.Text
	}
	if rep.Description != nil {
		s.Description = rep.Description.Text
	}
	for _, h := range rep.Headings {
		if h.Level == 1 {
			s.H1 = h.Text
			break
		}
	}
	s.Canonical = singleCanonical(rep)
	seen := map[string]int{}
	for _, f := range rep.Findings {
		if seen[f.ID] == 0 {
			s.Findings = append(s.Findings, f.ID)
		}
		seen[f.ID] += f.Occurrences()
	}
	sort.Strings(s.Findings)
	for id, n := range seen {
		if n > 1 {
			if s.FindingCounts == nil {
				s.FindingCounts = map[string]int{}
			}
			s.FindingCounts[id] = n
		}
	}
	s.Muted = rep.Muted
	return s
}

// singleCanonical returns the one canonical URL the page declares, resolved
// against the page and normalised, or "" when it declares none, several
// different ones, or one that is not an http(s) URL.
func singleCanonical(rep *analyzer.Report) string {
	base, err := seo.ParseHref(rep.FinalURL)
	if err != nil || rep.FinalURL == "" {
		base, _ = seo.ParseHref(rep.URL)
	}
	found := ""
	for _, c := range rep.Canonical {
		if strings.TrimSpace(c.URL) == "" {
			return ""
		}
		u, err := seo.ResolveReference(base, c.URL)
		if err != nil {
			return ""
		}
		if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return ""
		}
		s := seo.NormalizeURL(u, nil).String()
		if found != "" && found != s {
			return ""
		}
		found = s
	}
	return found
}
