package analyzer

import (
	"context"
	"fmt"
	"time"

	"github.com/seokit/seokit/render"
	"github.com/seokit/seokit/seo"
)

// Depth selects how much of the catalogue runs. The zero value is Standard.
type Depth string

// Depths, each a superset of the one before. Which areas each runs is
// documented in doc.go.
const (
	Basic    Depth = "basic"
	Standard Depth = "standard"
	Complete Depth = "complete"
)

// ParseDepth parses "basic", "standard" or "complete"; "" gives Standard.
func ParseDepth(s string) (Depth, error) {
	switch Depth(s) {
	case "":
		return Standard, nil
	case Basic, Standard, Complete:
		return Depth(s), nil
	}
	return "", &seo.InputError{Field: "options.depth", Value: s, Reason: `must be "basic", "standard" or "complete"`}
}

func (d Depth) rank() int {
	switch d {
	case Basic:
		return 1
	case Complete:
		return 3
	}
	return 2
}

// Includes reports whether a check of depth c runs at depth d.
func (d Depth) Includes(c Depth) bool { return c.rank() <= d.rank() }

// Fetcher fetches URLs. *seo.Fetcher, the safe fetcher, is the default.
type Fetcher interface {
	Fetch(ctx context.Context, req *seo.Request) (*seo.Response, error)
}

// Options configure an analysis. A nil *Options, and every zero field, means
// the documented default.
type Options struct {
	// Depth selects the checks that run; zero means Standard.
	Depth Depth
	// CheckLinks fetches every link, image, canonical, hreflang and og:image
	// target of the page, and its refresh's target (checked as a link's),
	// and runs the link-scope checks.
	CheckLinks bool
	// AnalyzeMobile fetches the page again with a smartphone user agent and
	// runs the mobile parity checks.
	AnalyzeMobile bool

	// Render selects the pages rendered with JavaScript before their page
	// checks run; zero means render.None. render.Always renders every HTML
	// page answered with status 200; render.Auto renders those whose raw
	// HTML looks like an application shell (LooksLikeAppShell: fewer than
	// Thresholds.JSShellMaxWords words of main text, some script, and an
	// empty framework mount element such as div#root, a <noscript> asking
	// for JavaScript, or inline scripts 20 times the size of the text).
	// A rendered page's checks run on the rendered DOM; the raw HTML is
	// kept and compared (the render area; Report.Render). A rendering that
	// fails leaves the raw analysis standing, with render.failed.
	Render render.Mode
	// Renderer renders pages (render/chromium's Pool). Render other than
	// none with a nil Renderer makes Analyze and AnalyzeResponse fail with
	// an error wrapping render.ErrUnavailable.
	Renderer render.Renderer
	// RenderRequest is the template of every rendering: device, user agent,
	// budgets, screenshots. The analyzer sets its URL, and, unless the
	// template sets Allowed (the crawler sets its own robots rule), its
	// Allowed from the robots policy (Robots, or robots.txt fetched by
	// Analyze) for the renderer's user agent; a robots.txt it cannot get
	// allows everything.
	RenderRequest render.Request
	// A11y runs the accessibility audit (axe-core, the automated subset of
	// WCAG 2.0-2.2 A and AA and best practices) on every rendered page:
	// Report.A11y and the a11y area's findings. It needs Render other than
	// none (a page not rendered is reported as not checked, with the
	// reason) and a renderer that runs axe-core (render/chromium with
	// axe-core installed; without it the report says "not checked").
	A11y bool

	// Thresholds overrides check thresholds; zero fields keep the defaults.
	Thresholds Thresholds
	// Disable lists check IDs ("title.too_long") or whole areas ("social")
	// that must not run or report. An entry that names no check ID or area
	// of Catalog or Checks is an error (*seo.InputError, Field "disable[i]").
	Disable []string
	// Mute lists check IDs or whole areas, like Disable, whose checks still
	// run but whose findings are left out of Report.Findings and of the
	// score; Report.Muted counts them, so nothing disappears silently.
	// Unknown entries are an error (Field "mute[i]").
	Mute []string
	// Severity overrides the severity of check IDs; the score weight follows.
	Severity map[string]seo.Severity
	// Checks adds custom checks; they run after the built-in ones.
	Checks []Check

	// Fetcher fetches the page and its targets. Nil means a safe fetcher
	// (seo.NewFetcher) that refuses non-public addresses unless AllowPrivate.
	Fetcher Fetcher
	// AllowPrivate lets the default fetcher reach loopback and private
	// networks (intranet audits, tests). Ignored when Fetcher is set.
	AllowPrivate bool
	// UserAgent is the desktop user agent; zero means seo.DefaultUserAgent.
	UserAgent string
	// MobileUserAgent is the smartphone user agent for AnalyzeMobile; zero
	// means seo.MobileUserAgent.
	MobileUserAgent string
	// Robots tells whether robots.txt allows a URL. Nil means Analyze fetches
	// and caches robots.txt itself (AnalyzeHTML then skips the robots checks).
	Robots RobotsPolicy

	// LinkConcurrency bounds link-check fetches in flight; zero means 16.
	LinkConcurrency int
	// LinkConcurrencyPerHost bounds them per host; zero means 4.
	LinkConcurrencyPerHost int
	// MaxLinkChecks caps the distinct URLs checked; zero means 2000. The
	// report says how many were left unchecked.
	MaxLinkChecks int
	// LinkTimeout bounds each link-check fetch; zero means 10 s.
	LinkTimeout time.Duration
	// LinkCheckBudget bounds the whole link check (CheckLinks), so that a
	// page of targets that never answer, each costing a HEAD and a GET of
	// LinkTimeout, cannot hold the analysis for hours; zero means
	// DefaultLinkCheckBudget, a negative value means no limit. The checks
	// still queued or running when it runs out are cancelled: their
	// targets are reported not checked (LinkInfo.NotChecked and
	// ImageInfo.NotChecked NotCheckedTimeBudget, counted in
	// Links.Unchecked and Images.Unchecked, with no finding), and
	// Report.Truncated["linkChecks"] counts them. The findings of the
	// targets checked in time stand.
	LinkCheckBudget time.Duration

	// MaxListItems caps each list of page data in the report: Links.List,
	// Images.List, Headings, Canonical, Robots.Directives, Hreflang,
	// StructuredData (and the types of one item), the OpenGraph, Twitter
	// and Viewport.Fields maps, and Mobile's Hreflang and Structured. Zero
	// means 1000. Counts (Links.Internal, Images.Total, ...) stay exact; a
	// cut list is recorded in Report.Truncated under its JSON name.
	MaxListItems int
	// MaxExamples caps the Examples of a finding: a report holds one
	// finding per check ID, whose Count counts every occurrence, whose
	// Evidence is the first occurrence's and whose Examples are the next
	// MaxExamples'. Zero means 5; a negative value keeps no examples. The
	// score is unchanged (it counts distinct IDs);
	// Report.Truncated["findings"] counts the occurrences reported and
	// those whose evidence was not kept.
	MaxExamples int
	// MaxEvidenceURLs caps Evidence.URLs of one finding; zero means 20.
	// Report.Truncated["findings.evidence.urls"] sums the cut URLs.
	MaxEvidenceURLs int
	// MaxElements caps the elements parsed into the tree; zero means
	// 100,000. A document with more is parsed only up to the start of its
	// first element over the cap; a streaming scan of the rest keeps the
	// counts exact (Links.Internal, External, Nofollow, Images.Total,
	// WithoutAlt, the headings total, the DOM size), Report.Truncated
	// ["document"] records the elements in the body and those not parsed,
	// and the page gets content.document_too_large. Checks and lists see
	// the parsed part only.
	MaxElements int
	// Memory, when set, admits the analysis by its memory estimate: after
	// the body is fetched (or given) and before it is parsed, the analysis
	// reserves EstimateMemory(len(body)) and releases it when the report is
	// built; the smartphone fetch of AnalyzeMobile reserves for its own
	// body the same way. A refused reservation is an error wrapping
	// seo.ErrUnavailable (or ctx's error).
	Memory seo.MemoryBudget

	// Now returns the current time (tests); nil means time.Now.
	Now func() time.Time

	// Extract lists named extractors run on every HTML page answered with
	// a 2xx status (Report.Extracted); at most MaxExtractors. Search
	// lists contains / does-not-contain rules run on the same pages
	// (Report.Search); at most MaxSearchRules. CompileExtractors and
	// CompileSearchRules validate and compile them once for many analyses.
	Extract []Extractor
	Search  []SearchRule
}

// Defaults of the report caps in Options.
const (
	DefaultMaxListItems    = 1000
	DefaultMaxExamples     = 5
	DefaultMaxEvidenceURLs = 20
	// DefaultMaxElements is far above real pages: the largest of the 130
	// saved pages of seokit's test corpus holds 9,887 elements.
	DefaultMaxElements = 100_000
)

// DefaultLinkCheckBudget is Options.LinkCheckBudget's default. It leaves
// room for two rounds of targets that hang through a HEAD and a GET of
// the default 10 s LinkTimeout each (40 s), and with the page's own fetch
// (seo.DefaultFetchTimeout, 10 s) and rendering (render.DefaultTimeout,
// 20 s) before it, 75 s, an analysis still ends within the 80 s the
// server gives a page analysis (httpapi.DefaultPageTimeout).
const DefaultLinkCheckBudget = 45 * time.Second

// RobotsPolicy answers robots.txt questions for the robots checks. The
// crawler shares its cache through this interface.
type RobotsPolicy interface {
	// Allowed reports whether rawURL may be crawled by userAgent. known is
	// false when no robots.txt verdict could be had.
	Allowed(ctx context.Context, rawURL, userAgent string) (allowed, known bool)
}

// Thresholds are the numeric limits of the checks. Zero means the default
// given with each field (the catalogue's).
type Thresholds struct {
	TitleMinChars       int           // 30: title.too_short below
	TitleMaxChars       int           // 60: title.too_long above
	TitleMaxPixels      int           // 580: title.too_long above this estimated width
	DescriptionMinChars int           // 70
	DescriptionMaxChars int           // 160
	H1MaxChars          int           // 70
	H2MinWords          int           // 600: headings.h2_missing from this many words
	ThinContentWords    int           // 200
	Soft404MaxWords     int           // 150
	LangDetectMinWords  int           // 50
	JSShellMaxWords     int           // 50
	MaxLinks            int           // 100: links.too_many above
	AltMaxChars         int           // 100
	AltEmptyMinPixels   int           // 100: images.alt_empty for images at least this wide and high
	ImageMaxBytes       int64         // 500000
	SlowTTFB            time.Duration // 800 ms
	HTMLLargeBytes      int64         // 2 MB (2,000,000)
	HTMLTooLargeBytes   int64         // 15 MB (15,728,640)
	CompressionMinBytes int64         // 1024
	MaxDOMElements      int           // 1500
	MaxBlockingScripts  int           // 2
	MaxInlineBytes      int64         // 100000
	MaxSubresources     int           // 100
	HSTSMinMaxAge       int64         // 31536000 s
	TLSExpiryWarning    time.Duration // 14 days
	URLMaxChars         int           // 115
	URLMaxParams        int           // 3
	MobileParityPercent float64       // 20
	OGImageMinPixels    int           // 200
	ZoomMinMaximumScale float64       // 2
	MaxRedirectHops     int           // 1: http.redirect_chain above
	RedirectLoopMaxHops int           // 10
	// RenderWordsChangePercent: render.word_count_changed when the main
	// text's word count differs between the raw and rendered views by more
	// than this percentage of the larger count (and by at least 20 words).
	RenderWordsChangePercent float64 // 20
	// Lab Web Vitals bands (web.dev): good up to the first value, poor
	// above the second.
	LCPGood time.Duration // 2.5 s
	LCPPoor time.Duration // 4 s
	CLSGood float64       // 0.1
	CLSPoor float64       // 0.25
	TBTGood time.Duration // 200 ms
	TBTPoor time.Duration // 600 ms
	// PageWeightBytes: vitals.page_weight when a rendering transfers more.
	PageWeightBytes int64 // 5,120,000 (5,000 KiB, Lighthouse's)
}

// withDefaults returns t with zero fields set to their defaults.
func (t Thresholds) withDefaults() Thresholds {
	setI := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	set64 := func(v *int64, d int64) {
		if *v == 0 {
			*v = d
		}
	}
	setI(&t.TitleMinChars, 30)
	setI(&t.TitleMaxChars, 60)
	setI(&t.TitleMaxPixels, 580)
	setI(&t.DescriptionMinChars, 70)
	setI(&t.DescriptionMaxChars, 160)
	setI(&t.H1MaxChars, 70)
	setI(&t.H2MinWords, 600)
	setI(&t.ThinContentWords, 200)
	setI(&t.Soft404MaxWords, 150)
	setI(&t.LangDetectMinWords, 50)
	setI(&t.JSShellMaxWords, 50)
	setI(&t.MaxLinks, 100)
	setI(&t.AltMaxChars, 100)
	setI(&t.AltEmptyMinPixels, 100)
	set64(&t.ImageMaxBytes, 500000)
	if t.SlowTTFB == 0 {
		t.SlowTTFB = 800 * time.Millisecond
	}
	set64(&t.HTMLLargeBytes, 2_000_000)
	set64(&t.HTMLTooLargeBytes, seo.DefaultMaxBodyBytes)
	set64(&t.CompressionMinBytes, 1024)
	setI(&t.MaxDOMElements, 1500)
	setI(&t.MaxBlockingScripts, 2)
	set64(&t.MaxInlineBytes, 100_000)
	setI(&t.MaxSubresources, 100)
	set64(&t.HSTSMinMaxAge, 31536000)
	if t.TLSExpiryWarning == 0 {
		t.TLSExpiryWarning = 14 * 24 * time.Hour
	}
	setI(&t.URLMaxChars, 115)
	setI(&t.URLMaxParams, 3)
	if t.MobileParityPercent == 0 {
		t.MobileParityPercent = 20
	}
	setI(&t.OGImageMinPixels, 200)
	if t.ZoomMinMaximumScale == 0 {
		t.ZoomMinMaximumScale = 2
	}
	setI(&t.MaxRedirectHops, 1)
	setI(&t.RedirectLoopMaxHops, 10)
	setF := func(v *float64, d float64) {
		if *v == 0 {
			*v = d
		}
	}
	setD := func(v *time.Duration, d time.Duration) {
		if *v == 0 {
			*v = d
		}
	}
	setF(&t.RenderWordsChangePercent, 20)
	setD(&t.LCPGood, 2500*time.Millisecond)
	setD(&t.LCPPoor, 4*time.Second)
	setF(&t.CLSGood, 0.1)
	setF(&t.CLSPoor, 0.25)
	setD(&t.TBTGood, 200*time.Millisecond)
	setD(&t.TBTPoor, 600*time.Millisecond)
	set64(&t.PageWeightBytes, 5000<<10)
	return t
}

// config is Options resolved: defaults applied, lookups built.
type config struct {
	Options
	th       Thresholds
	disabled map[string]bool
	muted    map[string]bool
	now      func() time.Time
}

func newConfig(o *Options) (*config, error) {
	if o == nil {
		o = &Options{}
	}
	c := &config{Options: *o}
	d, err := ParseDepth(string(o.Depth))
	if err != nil {
		return nil, err
	}
	c.Depth = d
	if err := checkRenderOptions(o); err != nil {
		return nil, err
	}
	c.Render = c.renderMode()
	c.th = o.Thresholds.withDefaults()
	var custom []seo.CheckInfo
	for _, ch := range o.Checks {
		custom = append(custom, ch.IDs...)
		if ch.Area != "" {
			custom = append(custom, seo.CheckInfo{ID: ch.Area})
		}
	}
	if err := ValidateIDs("disable", o.Disable, custom); err != nil {
		return nil, err
	}
	if err := ValidateIDs("mute", o.Mute, custom); err != nil {
		return nil, err
	}
	c.disabled = make(map[string]bool, len(o.Disable))
	for _, id := range o.Disable {
		c.disabled[id] = true
	}
	if len(o.Mute) > 0 {
		c.muted = make(map[string]bool, len(o.Mute))
		for _, id := range o.Mute {
			c.muted[id] = true
		}
	}
	for id, s := range o.Severity {
		if s < seo.Notice || s > seo.Error {
			return nil, &seo.InputError{Field: "options.severity", Value: fmt.Sprint(id), Reason: "severity must be error, warning or notice"}
		}
	}
	if c.Extract, err = CompileExtractors(o.Extract); err != nil {
		return nil, err
	}
	if c.Search, err = CompileSearchRules(o.Search); err != nil {
		return nil, err
	}
	if c.now = o.Now; c.now == nil {
		c.now = time.Now
	}
	if c.UserAgent == "" {
		c.UserAgent = seo.DefaultUserAgent
	}
	if c.MobileUserAgent == "" {
		c.MobileUserAgent = seo.MobileUserAgent
	}
	if c.LinkConcurrency <= 0 {
		c.LinkConcurrency = 16
	}
	if c.LinkConcurrencyPerHost <= 0 {
		c.LinkConcurrencyPerHost = 4
	}
	if c.MaxLinkChecks <= 0 {
		c.MaxLinkChecks = 2000
	}
	if c.LinkTimeout <= 0 {
		c.LinkTimeout = 10 * time.Second
	}
	if c.LinkCheckBudget == 0 {
		c.LinkCheckBudget = DefaultLinkCheckBudget
	}
	if c.MaxListItems <= 0 {
		c.MaxListItems = DefaultMaxListItems
	}
	switch {
	case c.MaxExamples == 0:
		c.MaxExamples = DefaultMaxExamples
	case c.MaxExamples < 0:
		c.MaxExamples = 0
	}
	if c.MaxEvidenceURLs <= 0 {
		c.MaxEvidenceURLs = DefaultMaxEvidenceURLs
	}
	if c.MaxElements <= 0 {
		c.MaxElements = DefaultMaxElements
	}
	return c, nil
}

// isDisabled reports whether a check ID is disabled by ID or area.
func (c *config) isDisabled(id string) bool {
	if len(c.disabled) == 0 {
		return false
	}
	return c.disabled[id] || c.disabled[seo.AreaOf(id)]
}

// isMuted reports whether a check ID is muted by ID or area.
func (c *config) isMuted(id string) bool {
	if len(c.muted) == 0 {
		return false
	}
	return c.muted[id] || c.muted[seo.AreaOf(id)]
}

// ValidateIDs checks a list of check IDs or areas, such as Options.Disable
// or Options.Mute: each entry must be an ID of Catalog or of one of the
// extra catalogues (a crawl adds crawler.Catalog), or the area of one
// (seo.AreaOf). The first unknown entry is an error wrapping
// seo.ErrInvalidInput: a *seo.InputError whose Field is field[i] and whose
// Value is the entry.
func ValidateIDs(field string, ids []string, extra ...[]seo.CheckInfo) error {
	for i, id := range ids {
		if !knownID(id, extra) {
			return &seo.InputError{Field: fmt.Sprintf("%s[%d]", field, i), Value: id,
				Reason: "is not a check ID or area (see the check catalogue)"}
		}
	}
	return nil
}

// knownID reports whether id is a check ID or area of the catalogue or of
// extra.
func knownID(id string, extra [][]seo.CheckInfo) bool {
	if id == "" {
		return false
	}
	if _, ok := catalog[id]; ok {
		return true
	}
	if catalogAreas[id] {
		return true
	}
	for _, list := range extra {
		for _, in := range list {
			if in.ID == id || seo.AreaOf(in.ID) == id {
				return true
			}
		}
	}
	return false
}
