package analyzer

import (
	"cmp"
	"slices"
	"time"

	"github.com/seokit/seokit/seo"
)

// Report is the result of analysing one page: its findings and score, and the
// page data every check read, so callers can apply rules of their own.
type Report struct {
	URL       string         `json:"url"`
	FinalURL  string         `json:"finalUrl"`
	Status    int            `json:"status"`
	Redirects []seo.Redirect `json:"redirects,omitempty"`
	Timings   seo.Timings    `json:"timings"`
	Sizes     Sizes          `json:"sizes"`
	// IsHTML is false for images, PDFs and other non-HTML responses, which get
	// only the http, indexability header, url and security header checks.
	IsHTML bool `json:"isHtml"`

	Title       *Text     `json:"title,omitempty"`
	Description *Text     `json:"description,omitempty"`
	Headings    []Heading `json:"headings,omitempty"`
	// WordCount counts the words of the main text.
	WordCount int `json:"wordCount"`
	// Language is the language detected in the main text ("" when unsure);
	// DeclaredLang is <html lang>.
	Language     string `json:"language,omitempty"`
	DeclaredLang string `json:"declaredLang,omitempty"`

	Canonical      []Canonical       `json:"canonical,omitempty"`
	Robots         Robots            `json:"robots"`
	Hreflang       []Alternate       `json:"hreflang,omitempty"`
	Links          LinkSummary       `json:"links"`
	Images         ImageSummary      `json:"images"`
	StructuredData []StructuredItem  `json:"structuredData,omitempty"`
	OpenGraph      map[string]string `json:"openGraph,omitempty"`
	Twitter        map[string]string `json:"twitter,omitempty"`
	Viewport       *Viewport         `json:"viewport,omitempty"`
	Security       SecurityHeaders   `json:"securityHeaders"`
	// Fingerprint identifies the main text for duplicate detection.
	Fingerprint Fingerprint `json:"fingerprint"`
	// Template is the page's template fingerprint (TemplateFingerprint):
	// 12 hex digits shared by pages built from one page template; absent
	// for a response that is not an HTML document.
	Template string `json:"template,omitempty"`
	// Mobile holds the smartphone fetch's data when AnalyzeMobile ran.
	Mobile *MobileSummary `json:"mobile,omitempty"`
	// Render is the rendering with JavaScript and its comparison with the
	// raw HTML; nil (absent) when Options.Render is none. When the page was
	// rendered, the page data above and the findings are the rendered
	// DOM's, except Robots, which keeps the raw HTML's verdict when the raw
	// HTML says noindex (Google does not render such a page).
	Render *RenderReport `json:"render,omitempty"`
	// A11y is the accessibility audit of the rendered page (Options.A11y):
	// axe-core's violations and results needing review, with the page's
	// accessibility score; absent when not asked for, and Checked false
	// with the reason when the page could not be audited.
	A11y *A11yReport `json:"a11y,omitempty"`

	// Extracted holds the values of Options.Extract, Search the outcomes
	// of Options.Search, in their order; absent when none are configured
	// or the page is not an HTML document answered with a 2xx status.
	Extracted []Extraction  `json:"extracted,omitempty"`
	Search    []SearchMatch `json:"search,omitempty"`

	// Findings holds one finding per check ID, whose Count counts every
	// occurrence and whose Examples keep at most Options.MaxExamples
	// further evidence, sorted by Priority (highest first), then by ID.
	Findings []seo.Finding `json:"findings"`
	// Muted counts the findings of Options.Mute, left out of Findings and
	// of Score, by ID; absent when nothing was muted.
	Muted []MutedFinding `json:"muted,omitempty"`
	// Score is the page score (seo.PageScore of Findings), computed only for
	// a page whose content was analysed: an HTML document answered with a
	// 2xx status. It is nil otherwise, with ScoreReason saying why
	// (ScoreNotFetched, ScoreErrorStatus, ScoreRedirect, ScoreNotHTML); the
	// findings are reported either way.
	Score       *seo.Score `json:"score"`
	ScoreReason string     `json:"scoreReason,omitempty"`
	// Truncated names the lists cut at their caps (Options.MaxListItems,
	// MaxExamples, MaxEvidenceURLs), keyed by JSON name: "links"
	// (Links.List), "images" (Images.List), "headings", "canonical",
	// "robots.directives", "hreflang", "structuredData",
	// "structuredData.types" (summed over items), "openGraph", "twitter",
	// "viewport.fields", "mobile.hreflang", "mobile.structuredDataTypes",
	// "findings" (the occurrences of all IDs, and those whose evidence
	// is not kept), "findings.evidence.urls" (summed over the evidence
	// kept), "document" (the elements of a document over
	// Options.MaxElements: the total in the body and those not parsed)
	// and "linkChecks" (the distinct targets of a link check and those
	// Options.LinkCheckBudget left not checked).
	// Each entry has the total found and the number omitted; absent means
	// complete.
	Truncated seo.Truncated `json:"truncated,omitempty"`

	Depth      Depth     `json:"depth"`
	AnalyzedAt time.Time `json:"analyzedAt"`
	// Error says why the page could not be fetched, when it could not.
	Error string `json:"error,omitempty"`
	// Unreachable says how the fetch failed when it got no response at
	// all: the kind ("dns", "connection", "tls", "timeout" or "other") and
	// the error; nil (absent) when the page answered, even with an error
	// status. Unreachable.Err wraps seo.ErrUnreachable.
	Unreachable *seo.Unreachable `json:"unreachable,omitempty"`
}

// MutedFinding counts the findings of one muted check ID.
type MutedFinding struct {
	ID       string       `json:"id"`
	Severity seo.Severity `json:"severity"`
	// Count is the number of findings the ID reported.
	Count int `json:"count"`
}

// SortMuted sorts muted findings most severe first, then by ID.
func SortMuted(m []MutedFinding) {
	slices.SortFunc(m, func(a, b MutedFinding) int {
		if a.Severity != b.Severity {
			return cmp.Compare(b.Severity, a.Severity)
		}
		return cmp.Compare(a.ID, b.ID)
	})
}

// Values of Report.ScoreReason: why a page has no score.
const (
	// ScoreNotFetched: no response was received (DNS, connection, timeout,
	// redirect loop), or, in a crawl, robots.txt disallowed the URL.
	ScoreNotFetched = "not_fetched"
	// ScoreErrorStatus: the response has status 400 or more.
	ScoreErrorStatus = "error_status"
	// ScoreRedirect: the response is a redirect that was not followed (the
	// crawler fetches each hop itself); the target is scored.
	ScoreRedirect = "redirect"
	// ScoreNotHTML: the response is not an HTML document (image, PDF ...).
	ScoreNotHTML = "not_html"
)

// scoring returns the page score of findings for a response of the given
// status and type, or nil and the reason it is not computed. A status of 0
// means no response.
func scoring(status int, isHTML bool, findings []seo.Finding) (*seo.Score, string) {
	switch {
	case status == 0:
		return nil, ScoreNotFetched
	case status >= 400:
		return nil, ScoreErrorStatus
	case status >= 300:
		return nil, ScoreRedirect
	case !isHTML || status/100 != 2:
		return nil, ScoreNotHTML
	}
	s := seo.PageScore(findings)
	return &s, ""
}

// Sizes are the byte counts of the response.
type Sizes struct {
	// Transferred counts body bytes on the wire; HTML the decompressed bytes.
	Transferred     int64  `json:"transferredBytes"`
	HTML            int64  `json:"htmlBytes"`
	ContentType     string `json:"contentType,omitempty"`
	ContentEncoding string `json:"contentEncoding,omitempty"`
	// Truncated says the body was cut at the size cap.
	Truncated bool `json:"truncated"`
}

// Text is a title or description with its measured length.
type Text struct {
	Text string `json:"text"`
	// Length counts Unicode characters after trimming and collapsing whitespace.
	Length int `json:"length"`
	// WidthPx is the estimated rendered width (titles only).
	WidthPx int `json:"widthPx,omitempty"`
}

// Heading is one h1-h6 of the outline, in document order.
type Heading struct {
	Level int    `json:"level"`
	Text  string `json:"text"`
}

// Canonical is one declared canonical URL and where it was declared
// ("html" or "header").
type Canonical struct {
	URL    string `json:"url"`
	Source string `json:"source"`
}

// Robots are the page's combined robots directives.
type Robots struct {
	// Directives lists each directive with its source ("meta:robots",
	// "meta:googlebot", "header", "header:googlebot").
	Directives []Directive `json:"directives,omitempty"`
	Indexable  bool        `json:"indexable"`
	Follow     bool        `json:"follow"`
	// RobotsTxtAllowed is nil when robots.txt was not consulted.
	RobotsTxtAllowed *bool `json:"robotsTxtAllowed,omitempty"`
}

// Directive is one robots directive ("noindex", "max-snippet:0") and its source.
type Directive struct {
	Value  string `json:"value"`
	Source string `json:"source"`
}

// Alternate is one hreflang alternate; Source is "html", "header" or "sitemap".
type Alternate struct {
	Code   string `json:"code"`
	URL    string `json:"url"`
	Source string `json:"source"`
}

// LinkSummary counts the page's <a href> links and lists the first
// Options.MaxListItems of them (Report.Truncated["links"] when cut).
type LinkSummary struct {
	Internal int        `json:"internal"`
	External int        `json:"external"`
	Nofollow int        `json:"nofollow"`
	List     []LinkInfo `json:"list,omitempty"`
	// Unchecked counts the distinct link targets not checked: those over
	// MaxLinkChecks, and those a link check could not check
	// (LinkInfo.NotChecked: an unresolvable host, or the time budget).
	Unchecked int `json:"unchecked,omitempty"`
}

// LinkInfo is one link. Status is set when link checking fetched it (0 means
// the fetch failed; see Error).
type LinkInfo struct {
	URL      string `json:"url"`
	Text     string `json:"text,omitempty"`
	Rel      string `json:"rel,omitempty"`
	Internal bool   `json:"internal"`
	Status   int    `json:"status,omitempty"`
	Error    string `json:"error,omitempty"`
	// NotChecked says why a link check (Options.CheckLinks) could not
	// check the target: NotCheckedHostUnresolvable or
	// NotCheckedTimeBudget. Such a link is neither broken nor fine: no
	// finding is reported for it.
	NotChecked string `json:"notChecked,omitempty"`
}

// ImageSummary counts the page's images and lists the first
// Options.MaxListItems of them (Report.Truncated["images"] when cut).
type ImageSummary struct {
	Total      int `json:"total"`
	WithoutAlt int `json:"withoutAlt"`
	// Unchecked counts the images of List a link check could not check
	// (ImageInfo.NotChecked); absent when none.
	Unchecked int         `json:"unchecked,omitempty"`
	List      []ImageInfo `json:"list,omitempty"`
}

// ImageInfo is one <img>. Alt is nil when the attribute is absent.
type ImageInfo struct {
	Src    string  `json:"src"`
	Alt    *string `json:"alt,omitempty"`
	Width  string  `json:"width,omitempty"`
	Height string  `json:"height,omitempty"`
	Status int     `json:"status,omitempty"`
	Bytes  int64   `json:"bytes,omitempty"`
	// NotChecked says why a link check (Options.CheckLinks) could not
	// check the image: NotCheckedHostUnresolvable or
	// NotCheckedTimeBudget. Such an image is neither broken nor fine: no
	// finding is reported for it.
	NotChecked string `json:"notChecked,omitempty"`
}

// NotCheckedHostUnresolvable: the target (an image, a link ...) is on
// another host whose name does not resolve (a typo, a retired domain, a
// resolver that is down), so nothing is known of the target itself.
const NotCheckedHostUnresolvable = "host_unresolvable"

// NotCheckedTimeBudget: the link check's time budget
// (Options.LinkCheckBudget) ran out before the target's check ended, so
// nothing is known of the target. A crawl counts its own external checks
// cut by its budgets under the same name.
const NotCheckedTimeBudget = "time_budget"

// StructuredItem is one structured-data item: its syntax ("json-ld",
// "microdata", "rdfa") and its types.
type StructuredItem struct {
	Syntax string   `json:"syntax"`
	Types  []string `json:"types"`
}

// Viewport is the viewport meta: its raw content and parsed fields.
type Viewport struct {
	Content string            `json:"content"`
	Fields  map[string]string `json:"fields,omitempty"`
}

// SecurityHeaders are the security headers as served and the TLS facts.
type SecurityHeaders struct {
	HSTS                string     `json:"hsts,omitempty"`
	CSP                 string     `json:"csp,omitempty"`
	ContentTypeOptions  string     `json:"xContentTypeOptions,omitempty"`
	FrameOptions        string     `json:"xFrameOptions,omitempty"`
	ReferrerPolicy      string     `json:"referrerPolicy,omitempty"`
	TLSVersion          string     `json:"tlsVersion,omitempty"`
	CertificateNotAfter *time.Time `json:"certificateNotAfter,omitempty"`
}

// MobileSummary is what the smartphone fetch saw, for comparison.
type MobileSummary struct {
	FinalURL      string   `json:"finalUrl"`
	Status        int      `json:"status"`
	Title         string   `json:"title,omitempty"`
	Description   string   `json:"description,omitempty"`
	H1            string   `json:"h1,omitempty"`
	Canonical     string   `json:"canonical,omitempty"`
	Indexable     bool     `json:"indexable"`
	InternalLinks int      `json:"internalLinks"`
	WordCount     int      `json:"wordCount"`
	Hreflang      []string `json:"hreflang,omitempty"`
	Structured    []string `json:"structuredDataTypes,omitempty"`
	Error         string   `json:"error,omitempty"`
}

// Fingerprint identifies a page's main text: TextHash hashes its sequence
// of lowercased words (exact duplicates; 0 for a page without text),
// SimHash is a 64-bit simhash of its 3-word shingles with uniform weights
// (near duplicates: at most 3 differing bits). Version is the algorithm's
// version (FingerprintVersion): fingerprints of different versions cannot
// be compared, so a fingerprint is stored with its version.
type Fingerprint struct {
	Version  int    `json:"version"`
	TextHash uint64 `json:"textHash,string"`
	SimHash  uint64 `json:"simHash,string"`
}

// FingerprintVersion is the version of the fingerprint algorithm
// (FingerprintText). Version 1 hashed the lowercased text byte by byte
// with 64-bit FNV-1a, each word the same way, and each shingle with three
// multiplications and the splitmix64 finaliser. Version 2 hashes each
// lowercased word eight bytes per multiplication (wyhash's mix), chains the
// word hashes into the text hash, and mixes a shingle of three word hashes
// with one multiplication; the shingles, weights and distances are those
// of version 1.
const FingerprintVersion = 2
