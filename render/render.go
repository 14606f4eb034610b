package render

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/seokit/seokit/seo"
)

// Mode says which pages are rendered.
type Mode string

// The rendering modes.
const (
	// None renders nothing: pages are analysed as the server sent them.
	None Mode = "none"
	// Auto renders a page only when its raw HTML looks like an application
	// shell (see the analyzer's rule, analyzer.LooksLikeAppShell).
	Auto Mode = "auto"
	// Always renders every HTML page.
	Always Mode = "always"
)

// ParseMode parses "none", "auto" or "always"; "" means None. Anything else
// is a *seo.InputError with Field "render".
func ParseMode(s string) (Mode, error) {
	switch Mode(s) {
	case "", None:
		return None, nil
	case Auto, Always:
		return Mode(s), nil
	}
	return "", &seo.InputError{Field: "render", Value: s, Reason: `must be "none", "auto" or "always"`, Err: seo.ErrInvalidInput}
}

// ErrUnavailable means no browser can render: none is installed, or it
// could not be started. Raw analysis keeps working. It wraps
// seo.ErrUnavailable.
var ErrUnavailable = fmt.Errorf("%w: rendering unavailable", seo.ErrUnavailable)

// ErrBudget means a rendering was cut short by its time, byte or request
// budget; Render still returns the Result obtained so far, with TimedOut or
// Truncated set, and a nil error. It is exported for drivers and callers
// that report the cause.
var ErrBudget = errors.New("render: budget exhausted")

// ErrDeclined is wrapped by the error of a Renderer that declines to
// render a page for a rule of its caller rather than a failure: a plan's
// cap on rendered pages, a quota, a memory limit (ErrMemoryLimit). The
// analyzer then analyses the raw page
// and reports it as not rendered, with the reason, and no render.failed
// finding. The rest of the error's message is the reason.
var ErrDeclined = errors.New("render: declined")

// ErrMemoryLimit means the renderer stopped a page that went beyond its
// memory limit (render/chromium: the V8 heap limit, or the memory of the
// page's renderer process or of the browser's process tree, watched while
// the page runs). It wraps ErrDeclined: the analyzer reports the page as
// "not rendered: memory limit" and analyses it raw.
var ErrMemoryLimit = fmt.Errorf("%w: memory limit", ErrDeclined)

// Device is the device profile a page is rendered with.
type Device string

// The device profiles.
const (
	// Mobile is a smartphone viewport (412×915 CSS pixels at 2.625 device
	// pixel ratio, touch), as Google's mobile-first indexing renders.
	Mobile Device = "mobile"
	// Desktop is a 1350×940 desktop viewport.
	Desktop Device = "desktop"
)

// Shot selects the screenshots taken.
type Shot string

// The screenshot choices.
const (
	// NoShot takes no screenshot.
	NoShot Shot = "none"
	// Viewport takes a PNG of the first viewport.
	Viewport Shot = "viewport"
	// FullPage takes a PNG of the viewport and one of the whole page (its
	// height capped by the driver).
	FullPage Shot = "full"
)

// Defaults of a Request's zero fields. DefaultIdle and DefaultSettle wait
// 500 ms in all after the last network activity: data fetched in a chain
// (gaps under 250 ms) and timers that fire within 250 ms of the quiet network
// are caught, and a rendering of a quick page takes well under a second, so
// that 8 renderings at once render 8 pages/s. Googlebot does not wait for
// a quiet network either; a page whose content comes later can be given a
// longer Idle or Settle.
const (
	DefaultSettle      = 250 * time.Millisecond
	DefaultIdle        = 250 * time.Millisecond
	DefaultTimeout     = 20 * time.Second
	DefaultMaxBytes    = 25 << 20
	DefaultMaxRequests = 300
)

// Request is one page to render. Zero fields mean the documented defaults.
type Request struct {
	// URL is the absolute http(s) URL of the page.
	URL string
	// Device is the profile; zero means Mobile.
	Device Device
	// UserAgent overrides the device's user agent, which carries seokit's
	// own token (seo.MobileUserAgent or seo.DefaultUserAgent).
	UserAgent string
	// Idle is how long the network must be quiet (no request in flight)
	// before the page counts as loaded; zero means DefaultIdle.
	Idle time.Duration
	// Settle is waited after network idle, for timers and late scripts;
	// zero means DefaultSettle, a negative value means none. A renderer
	// may end the wait before Idle and Settle for a page it proves quiet,
	// whose scripts have nothing pending that could run within them
	// (render/chromium does).
	Settle time.Duration
	// Timeout bounds the rendering from the navigation on (waiting for a
	// free tab and opening it are not counted); zero means DefaultTimeout.
	// When it ends the page before it settles, the Result has TimedOut set
	// and holds the DOM as it was.
	Timeout time.Duration
	// MaxBytes caps the bytes the page may transfer (document and
	// subresources); zero means DefaultMaxBytes. Requests beyond it are
	// refused and reported.
	MaxBytes int64
	// MaxRequests caps the requests the page may make; zero means
	// DefaultMaxRequests. Requests beyond it are refused and reported.
	MaxRequests int
	// Screenshot selects the screenshots; zero means NoShot.
	Screenshot Shot
	// Allowed reports whether robots.txt lets the renderer fetch a
	// subresource; nil allows everything. Refused subresources are not
	// fetched (as Googlebot does) and are reported with OutcomeRobots.
	Allowed func(u *url.URL) bool
	// A11y runs the accessibility audit (axe-core, A11yTags) on the page
	// once it settled; the Result's A11y holds it, or A11yReason says why
	// not (render/chromium needs axe-core's script, Options.AxePath).
	A11y bool
}

// Result is what a rendering returns. Lists are capped by the driver; the
// *Omitted counts say how many entries were left out.
type Result struct {
	// URL is the requested URL; FinalURL the document's URL after
	// redirects and client-side navigation.
	URL      string `json:"url"`
	FinalURL string `json:"finalUrl"`
	// Status is the HTTP status of the document as the browser got it; 0
	// when it failed.
	Status int `json:"status"`
	// Device and UserAgent are the profile used; Viewport its size in CSS
	// pixels.
	Device    Device `json:"device"`
	UserAgent string `json:"userAgent"`
	Viewport  Size   `json:"viewport"`
	// HTML is the serialised DOM once the page settled (or when the budget
	// ended it). Open shadow roots are in it as declarative shadow DOM (a
	// <template shadowrootmode="open"> first in the host, the host's light
	// children after it), since Google flattens shadow and light DOM when
	// it renders; closed ones are out of the page's reach and are not.
	HTML []byte `json:"-"`
	// ElapsedMs is the rendering's wall time in milliseconds.
	ElapsedMs int64 `json:"elapsedMs"`
	// TimedOut reports that the time budget ended the rendering before the
	// network went idle and the settle delay passed.
	TimedOut bool `json:"timedOut"`
	// Truncated names the budgets that refused requests: "bytes",
	// "requests"; and "html" when the serialised DOM was cut at
	// seo.DefaultMaxBodyBytes.
	Truncated []string `json:"truncated,omitempty"`
	// Errors are uncaught JavaScript exceptions and unhandled rejections;
	// Console the console.error (and console.assert) messages.
	Errors         []Message `json:"errors"`
	ErrorsOmitted  int       `json:"errorsOmitted,omitempty"`
	Console        []Message `json:"console"`
	ConsoleOmitted int       `json:"consoleOmitted,omitempty"`
	// Resources are the requests the page made (the document first).
	Resources        []Resource `json:"resources"`
	ResourcesOmitted int        `json:"resourcesOmitted,omitempty"`
	// Weight totals requests and transfer bytes by resource type, over
	// every request (omitted ones included).
	Weight []Weight `json:"weight"`
	// Vitals are the lab Web Vitals; nil when none could be measured (see
	// VitalsReason).
	Vitals       *Vitals `json:"vitals"`
	VitalsReason string  `json:"vitalsReason,omitempty"`
	// Screenshot is a PNG of the first viewport, FullScreenshot of the
	// whole page; nil when not requested or not taken.
	Screenshot     []byte `json:"-"`
	FullScreenshot []byte `json:"-"`
	// ScreenshotReason says why a requested screenshot is missing (too
	// large, the page could not be captured); empty when all were taken.
	ScreenshotReason string `json:"screenshotReason,omitempty"`
	// Listeners is what the driver read of the event listeners of the
	// document's <a> elements without href, whose click handlers the
	// serialised DOM cannot show; nil when they were not read, with
	// ListenersReason saying why.
	Listeners       *Listeners `json:"listeners"`
	ListenersReason string     `json:"listenersReason,omitempty"`
	// A11y is the accessibility audit when Request.A11y asked for it; nil
	// when not run, with A11yReason saying why ("not checked: axe-core not
	// found", a timeout, the budget ended the page). A nil A11y is never a
	// pass.
	A11y       *A11y  `json:"a11y,omitempty"`
	A11yReason string `json:"a11yReason,omitempty"`
}

// ClickAttr is the attribute a driver adds in Result.HTML to the <a>
// elements without href that have a listener of their own of one of
// ClickEvents, listeners a script added (addEventListener, an on*
// property) included. Its value is Listeners.Mark, unguessable by the
// page: an attribute of that name with another value is the page's own.
// The live page is left as it was.
const ClickAttr = "data-seokit-click"

// ClickEvents returns the event types whose listeners make an element
// something meant to be activated as a link is: the click and the presses
// and releases of mouse, pen and touch that scripts handle in its place.
// Hover and focus listeners (a tooltip, a prefetch) are not among them.
func ClickEvents() []string {
	return []string{"click", "auxclick", "mousedown", "mouseup", "pointerdown", "pointerup", "touchstart", "touchend"}
}

// Listeners is the reading of the event listeners of a rendered document's
// HTML <a> elements without href.
type Listeners struct {
	// Anchors counts the HTML <a> elements without href in the document;
	// Checked those whose listeners were read, the first in document order
	// up to the driver's caps (a count and a time); Clickable those of
	// them with a click-type listener, each marked with ClickAttr.
	Anchors   int `json:"anchors"`
	Checked   int `json:"checked"`
	Clickable int `json:"clickable"`
	// Mark is the value of the ClickAttr attributes the driver added.
	Mark string `json:"-"`
	// Capped names the cap that ended the reading early: "count" or
	// "time"; empty when every anchor was checked.
	Capped string `json:"capped,omitempty"`
	// ElapsedMs is the time the reading took in the page.
	ElapsedMs float64 `json:"elapsedMs"`
}

// Size is a width and height in CSS pixels.
type Size struct {
	Width  int `json:"width"`
	Height int `json:"height"`
}

// Message is a JavaScript error or console message.
type Message struct {
	Text   string `json:"text"`
	Source string `json:"source,omitempty"` // script URL
	Line   int    `json:"line,omitempty"`
	Column int    `json:"column,omitempty"`
}

// Outcomes of a Resource.
const (
	OutcomeOK      = "ok"      // fetched, any HTTP status
	OutcomeFailed  = "failed"  // network error, refused connection, DNS failure
	OutcomeRobots  = "robots"  // not fetched: robots.txt disallows it
	OutcomeAddress = "address" // refused: the address policy forbids the host
	OutcomeBudget  = "budget"  // refused: the byte or request budget was spent
)

// Resource is one request the page made.
type Resource struct {
	URL string `json:"url"`
	// Type is the browser's resource type, lower case: "document",
	// "script", "stylesheet", "image", "font", "fetch", "xhr", "media",
	// "websocket", "other".
	Type    string `json:"type"`
	Status  int    `json:"status,omitempty"`
	Bytes   int64  `json:"bytes"` // transferred (encoded) bytes
	Outcome string `json:"outcome"`
	Error   string `json:"error,omitempty"`
}

// Weight is the page weight of one resource type.
type Weight struct {
	Type     string `json:"type"`
	Requests int    `json:"requests"`
	Bytes    int64  `json:"bytes"`
}

// Vitals are lab measurements of one rendering, in milliseconds where
// timed. A nil field was not observed (no contentful paint, say); it is
// never reported as zero.
type Vitals struct {
	// LCP is Largest Contentful Paint, LCPElement a selector-like
	// description of its element ("img#hero", "h1.title").
	LCP        *float64 `json:"lcpMs"`
	LCPElement string   `json:"lcpElement,omitempty"`
	// CLS is Cumulative Layout Shift (session windows, as web.dev
	// defines it); Shifts the largest shifts with the elements that moved.
	CLS    *float64 `json:"cls"`
	Shifts []Shift  `json:"shifts,omitempty"`
	// TBT is Total Blocking Time: the sum over long tasks after first
	// contentful paint of their time beyond 50 ms; the lab proxy of INP.
	TBT *float64 `json:"tbtMs"`
	// FCP is First Contentful Paint; TTFB the time to the document's
	// first byte.
	FCP  *float64 `json:"fcpMs"`
	TTFB *float64 `json:"ttfbMs"`
	// DOMElements counts the elements of the rendered document.
	DOMElements int `json:"domElements"`
}

// Shift is one layout shift and the elements it moved.
type Shift struct {
	Value    float64  `json:"value"`
	Elements []string `json:"elements"`
}

// Renderer renders pages. Implementations are safe for concurrent use and
// bound their own concurrency; Render waits for a free slot or ctx.
//
// Render returns an error when nothing could be rendered: ErrUnavailable
// (no browser), a navigation that failed (the error says why), ctx ended.
// A rendering cut short by its budget returns its Result and a nil error.
type Renderer interface {
	Render(ctx context.Context, req *Request) (*Result, error)
}
