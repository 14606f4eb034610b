package analyzer

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/seokit/seokit/render"
	"github.com/seokit/seokit/seo"
)

// RenderReport is the rendering of a page with JavaScript (Options.Render)
// and what it changed. Every measurement is a lab measurement made with
// Device; none of it is field data.
type RenderReport struct {
	// Mode is the rendering mode of the analysis.
	Mode render.Mode `json:"mode"`
	// Rendered reports whether the page checks ran on the rendered DOM;
	// Reason says why the page was rendered ("always", "empty #root mount
	// and 3 words of text") or why not ("not an application shell", "not
	// HTML", "status 404", "failed: …", or "not rendered: …" when the
	// renderer declined it, render.ErrDeclined, e.g. at a plan's cap, or
	// stopped it at its memory limit: "not rendered: memory limit",
	// render.ErrMemoryLimit).
	Rendered bool   `json:"rendered"`
	Reason   string `json:"reason"`
	// Device, Viewport and UserAgent are the profile the page was rendered
	// with; FinalURL the document's URL in the browser.
	Device    render.Device `json:"device,omitempty"`
	Viewport  *render.Size  `json:"viewport,omitempty"`
	UserAgent string        `json:"userAgent,omitempty"`
	FinalURL  string        `json:"finalUrl,omitempty"`
	// ElapsedMs is the rendering's wall time; TimedOut says the time
	// budget ended it before the page settled; Truncated names the budgets
	// that refused requests ("bytes", "requests").
	ElapsedMs int64    `json:"elapsedMs,omitempty"`
	TimedOut  bool     `json:"timedOut"`
	Truncated []string `json:"truncated,omitempty"`
	// Changes lists every field whose raw and rendered values differ, in a
	// fixed order: title, description, h1, canonical, robots, hreflang,
	// structuredData, wordCount, links. Null when not rendered.
	Changes []RenderChange `json:"changes"`
	// LinksOnlyRendered are the links found only in the rendered DOM;
	// Words the main-text word counts of both views. Null when not
	// rendered.
	LinksOnlyRendered *RenderLinks `json:"linksOnlyRendered"`
	Words             *RenderWords `json:"words"`
	// Errors are the uncaught JavaScript errors, Console the console
	// errors; the *Omitted counts say how many the renderer left out.
	Errors         []render.Message `json:"errors,omitempty"`
	ErrorsOmitted  int              `json:"errorsOmitted,omitempty"`
	Console        []render.Message `json:"console,omitempty"`
	ConsoleOmitted int              `json:"consoleOmitted,omitempty"`
	// Resources are the requests that did not succeed (failed, refused by
	// robots.txt, the address policy or a budget, or answered with status
	// 400 or more), at most Options.MaxListItems; ResourcesOmitted counts
	// the rest.
	Resources        []render.Resource `json:"resources,omitempty"`
	ResourcesOmitted int               `json:"resourcesOmitted,omitempty"`
	// Weight totals requests and transfer bytes by resource type.
	Weight []render.Weight `json:"weight,omitempty"`
	// Vitals are the lab Web Vitals; null when none were measured, with
	// VitalsReason saying why.
	Vitals       *LabVitals `json:"vitals"`
	VitalsReason string     `json:"vitalsReason,omitempty"`
	// Screenshot is a PNG of the first viewport, FullScreenshot of the
	// whole page (base64 in JSON); absent when not taken.
	Screenshot     []byte `json:"screenshot,omitempty"`
	FullScreenshot []byte `json:"fullScreenshot,omitempty"`
	// Listeners is what the renderer read of the event listeners of the
	// <a> elements without href, whose click-type listeners make them
	// links that crawlers cannot follow (links.uncrawlable); absent when
	// not rendered, and when not read, with ListenersReason saying why.
	// Anchors past its caps (Capped) are judged without their listeners.
	Listeners       *render.Listeners `json:"listeners,omitempty"`
	ListenersReason string            `json:"listenersReason,omitempty"`
}

// RenderChange is one field whose value differs between the raw HTML and
// the rendered DOM; an empty value means the field is absent in that view.
type RenderChange struct {
	// Field is "title", "description", "h1", "canonical", "robots" (the
	// meta robots directives), "hreflang", "structuredData" (the types),
	// "wordCount" or "links" (the count of <a href> links).
	Field    string `json:"field"`
	Raw      string `json:"raw"`
	Rendered string `json:"rendered"`
}

// RenderLinks counts the distinct link targets found only in the rendered
// DOM, with the first of them as examples.
type RenderLinks struct {
	Count    int      `json:"count"`
	Examples []string `json:"examples,omitempty"`
	Omitted  int      `json:"omitted,omitempty"`
}

// RenderWords are the main-text word counts of the raw and rendered views.
type RenderWords struct {
	Raw      int `json:"raw"`
	Rendered int `json:"rendered"`
}

// LabVitals are the Web Vitals measured in the lab rendering, with the
// device profile used and web.dev's band of each measured metric ("good",
// "needs_improvement", "poor"); a metric not measured is null with no band.
type LabVitals struct {
	// Lab is always true: these are lab measurements, not field data.
	Lab      bool          `json:"lab"`
	Device   render.Device `json:"device"`
	Viewport render.Size   `json:"viewport"`
	render.Vitals
	LCPBand string `json:"lcpBand,omitempty"`
	CLSBand string `json:"clsBand,omitempty"`
	TBTBand string `json:"tbtBand,omitempty"`
}

// Bands of a lab metric against web.dev's thresholds.
const (
	BandGood             = "good"
	BandNeedsImprovement = "needs_improvement"
	BandPoor             = "poor"
)

// band places v against the good and poor thresholds: good up to good,
// poor above poor.
func band(v, good, poor float64) string {
	switch {
	case v <= good:
		return BandGood
	case v <= poor:
		return BandNeedsImprovement
	}
	return BandPoor
}

// renderState is what the render and vitals checks read: the raw page, the
// rendering and its report; err is set when the rendering failed.
type renderState struct {
	raw *Page
	res *render.Result
	err error
	rep *RenderReport
	// changes are the fields of renderFields that differ, unclipped;
	// rawNoindex and renderedNoindex the meta noindex of each view.
	changes                     []fieldChange
	rawNoindex, renderedNoindex bool
}

// fieldChange is a field of renderFields whose views differ.
type fieldChange struct {
	*renderField
	raw, rendered string
}

// renderMountIDs are the ids of the mount points of common JavaScript
// frameworks.
var renderMountIDs = map[string]bool{"root": true, "app": true, "__next": true, "__nuxt": true, "___gatsby": true, "svelte": true, "q-app": true}

// emptyMount returns the empty mount element of a JavaScript framework
// and its description ("#root", "app-root", "[ng-version]"): a known mount
// id first, else any empty <div id>, app-root or element with
// ng-version. It returns nil when there is none.
func emptyMount(p *Page) (*html.Node, string) {
	var root *html.Node
	for _, n := range p.ByTag(atom.Div) {
		if id, ok := Attr(n, "id"); ok && strings.TrimSpace(id) != "" && blankElement(n) {
			if renderMountIDs[strings.ToLower(id)] {
				return n, "#" + id
			}
			if root == nil {
				root = n
			}
		}
	}
	for _, n := range p.Elements {
		if !blankElement(n) {
			continue
		}
		if n.Data == "app-root" {
			return n, "app-root"
		}
		if _, ok := Attr(n, "ng-version"); ok {
			return n, "[ng-version]"
		}
	}
	if root != nil {
		id, _ := Attr(root, "id")
		return root, "#" + id
	}
	return nil, ""
}

// noscriptNeedsJS reports whether a <noscript> says JavaScript is needed.
func noscriptNeedsJS(p *Page) bool {
	for _, n := range p.ByTag(atom.Noscript) {
		t := strings.ToLower(TextContent(n))
		if strings.Contains(t, "javascript") && (strings.Contains(t, "enable") || strings.Contains(t, "requir") || strings.Contains(t, "need")) {
			return true
		}
	}
	return false
}

// scriptHeavyRatio is how many times more inline script bytes than main-text
// bytes make a body script-heavy for LooksLikeAppShell.
const scriptHeavyRatio = 20

// LooksLikeAppShell reports whether a raw page looks like the shell of a
// client-rendered application, the rule of render.Auto, and why. A page is
// a shell when it is an HTML document with at least one <script>, its main
// text has fewer than Thresholds.JSShellMaxWords words (50), and either
//   - an element is an empty mount point: a <div> with an id (#root,
//     #app, #__next, #__nuxt, ... first), <app-root> or an element with
//     ng-version, with no child element and no text; or
//   - a <noscript> says JavaScript is required ("enable JavaScript",
//     "requires JavaScript", "need JavaScript"); or
//   - its inline scripts hold at least 20 times the bytes of its main text.
//
// The reason names what matched ("empty #root mount and 3 words of text")
// or, when false, "not HTML" or "not an application shell".
func LooksLikeAppShell(p *Page) (bool, string) {
	if p == nil || !p.IsHTML || p.BodyEl == nil {
		return false, "not HTML"
	}
	scripts := p.ByTag(atom.Script)
	if p.Words >= p.Thresholds().JSShellMaxWords || len(scripts) == 0 {
		return false, "not an application shell"
	}
	words := plural(p.Words, "word")
	if _, mount := emptyMount(p); mount != "" {
		return true, "empty " + mount + " mount and " + words + " of text"
	}
	if noscriptNeedsJS(p) {
		return true, "<noscript> asks for JavaScript and " + words + " of text"
	}
	inline := 0
	for _, s := range scripts {
		inline += len(TextContent(s))
	}
	if inline > 0 && inline >= scriptHeavyRatio*len(p.MainText) {
		return true, strconv.Itoa(inline) + " bytes of inline script and " + words + " of text"
	}
	return false, "not an application shell"
}

// plural formats n with its noun, plural when n is not 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// renderMode is the resolved Options.Render.
func (c *config) renderMode() render.Mode {
	if c.Render == "" {
		return render.None
	}
	return c.Render
}

// checkRenderOptions validates Options.Render and Options.Renderer.
func checkRenderOptions(o *Options) error {
	m, err := render.ParseMode(string(o.Render))
	if err != nil {
		return err
	}
	if o.A11y && m == render.None {
		return &seo.InputError{Field: "a11y", Value: "true", Reason: `the accessibility audit runs on the rendered page: it needs Options.Render "auto" or "always"`, Err: seo.ErrInvalidInput}
	}
	if m != render.None && o.Renderer == nil {
		return fmt.Errorf("analyzer: Options.Render is %q but Options.Renderer is nil; set Options.Renderer (render/chromium): %w", m, render.ErrUnavailable)
	}
	return nil
}

// shouldRender decides whether the raw page is rendered, and why.
func (c *config) shouldRender(p *Page) (bool, string) {
	switch {
	case !p.IsHTML:
		return false, "not HTML"
	case p.Response.Status != http.StatusOK:
		return false, "status " + strconv.Itoa(p.Response.Status)
	case c.renderMode() == render.Always:
		return true, "always"
	}
	return LooksLikeAppShell(p)
}

// renderUserAgent is the user agent the renderer announces, whose
// robots.txt group governs its subresources.
func (c *config) renderUserAgent(req *render.Request) string {
	switch {
	case req.UserAgent != "":
		return req.UserAgent
	case req.Device == render.Desktop:
		return c.UserAgent
	}
	return c.MobileUserAgent
}

// renderPage renders the raw page when the mode asks for it and returns the
// page the checks run on: the rendered one, or raw when it was not
// rendered or the rendering failed. Either carries the RenderReport in its
// Report. release frees the memory reserved for the rendered DOM. Its
// errors are ctx's and a refused memory reservation.
func renderPage(ctx context.Context, raw *Page, cfg *config, env *fetchEnv) (p *Page, release func(), err error) {
	rr := &RenderReport{Mode: cfg.renderMode(), VitalsReason: "not rendered"}
	raw.Report.Render = rr
	ok, reason := cfg.shouldRender(raw)
	rr.Reason = reason
	if cfg.A11y {
		raw.Report.A11y = notChecked("the page was not rendered (" + reason + ")")
	}
	if !ok {
		return raw, func() {}, nil
	}
	req := cfg.RenderRequest
	req.URL = raw.URL.String()
	req.A11y = req.A11y || cfg.A11y
	if env.Robots != nil && req.Allowed == nil { // a crawl sets its own robots rule
		ua := cfg.renderUserAgent(&req)
		req.Allowed = func(u *url.URL) bool {
			allowed, known := env.Robots.Allowed(ctx, u.String(), ua)
			return allowed || !known
		}
	}
	res, err := cfg.Renderer.Render(ctx, &req)
	if err == nil && (res == nil || len(res.HTML) == 0) {
		err = fmt.Errorf("the renderer returned no DOM")
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		if errors.Is(err, render.ErrDeclined) {
			rr.Reason = "not rendered: " + unwrapMessage(err)
			if raw.Report.A11y != nil {
				raw.Report.A11y = notChecked("the page was " + rr.Reason)
			}
			return raw, func() {}, nil
		}
		rr.Reason = "failed: " + err.Error()
		if raw.Report.A11y != nil {
			raw.Report.A11y = notChecked("the rendering failed")
		}
		raw.render = &renderState{raw: raw, err: err, rep: rr}
		return raw, func() {}, nil
	}
	reserve := len(res.HTML)
	if l := res.Listeners; l != nil && l.Clickable > 0 {
		reserve *= 2 // the body without the marks is a copy (takeClickMarks)
	}
	release, err = cfg.reserve(ctx, reserve)
	if err != nil {
		return nil, nil, err
	}
	rp := newPage(renderedResponse(raw.Response, res), cfg)
	takeClickMarks(rp, res.Listeners)
	// The DOM was decoded as UTF-8; the checks of headers and encoding
	// declarations judge the response as served.
	rp.Header, rp.Response.Header, rp.Response.ContentType = raw.Header, raw.Header, raw.Response.ContentType
	rp.Charset = raw.Charset
	fillResponseData(rp.Report, raw.Response, rp.IsHTML)
	rp.Report.Depth, rp.Report.AnalyzedAt = raw.Report.Depth, raw.Report.AnalyzedAt
	rp.RobotsTxt = raw.RobotsTxt
	for _, x := range builtinExtractors {
		x(rp)
	}
	if !rp.IsHTML {
		// Unreachable for a serialised DOM; kept so that a broken renderer
		// cannot turn a page into a non-document.
		release()
		rr.Reason = "failed: the rendered DOM is not HTML"
		if raw.Report.A11y != nil {
			raw.Report.A11y = notChecked("the rendering failed")
		}
		raw.render = &renderState{raw: raw, err: fmt.Errorf("the rendered DOM is not HTML"), rep: rr}
		return raw, func() {}, nil
	}
	rr.Rendered = true
	fillRenderReport(rr, res, cfg)
	st := &renderState{raw: raw, res: res, rep: rr, rawNoindex: metaNoindex(raw), renderedNoindex: metaNoindex(rp)}
	compareViews(raw, rp, st, cfg)
	if !raw.Report.Robots.Indexable {
		// Google does not render a page whose raw HTML says noindex: the
		// raw verdict stands.
		rp.Report.Robots = raw.Report.Robots
	}
	rp.Report.Render = rr
	if req.A11y {
		rp.Report.A11y = newA11yReport(res)
	}
	rp.render = st
	return rp, release, nil
}

// takeClickMarks moves the renderer's marks of click-type listeners
// (render.ClickAttr with the rendering's own value, l.Mark) from the
// rendered page's elements to its links' ClickListener, and takes them out
// of the page's body, so that evidence, search rules and extraction see the
// DOM as the page built it. An attribute of that name with another value is
// the page's own and stays.
func takeClickMarks(p *Page, l *render.Listeners) {
	if l == nil || l.Clickable == 0 || l.Mark == "" {
		return
	}
	marked := map[*html.Node]bool{}
	for _, n := range p.Elements {
		if i := slices.IndexFunc(n.Attr, func(a html.Attribute) bool {
			return a.Key == render.ClickAttr && a.Namespace == "" && a.Val == l.Mark
		}); i >= 0 {
			n.Attr = slices.Delete(n.Attr, i, i+1)
			marked[n] = true
		}
	}
	for i := range p.Links {
		if marked[p.Links[i].Node] {
			p.Links[i].ClickListener = true
		}
	}
	// The mark is random hex, so its attribute serialises as these bytes
	// and nothing the page wrote can match them.
	b := stripBytes(p.Body, []byte(" "+render.ClickAttr+`="`+l.Mark+`"`))
	p.Body, p.Response.Body, p.Response.BodyBytes = b, b, int64(len(b))
}

// stripBytes returns b without the occurrences of sub: b itself when it
// has none, else a copy (b is the renderer's, which may keep it).
func stripBytes(b, sub []byte) []byte {
	i := bytes.Index(b, sub)
	if i < 0 {
		return b
	}
	out := append(make([]byte, 0, len(b)-len(sub)), b[:i]...)
	for rest := b[i+len(sub):]; ; {
		j := bytes.Index(rest, sub)
		if j < 0 {
			return append(out, rest...)
		}
		out = append(out, rest[:j]...)
		rest = rest[j+len(sub):]
	}
}

// renderedResponse is the raw response with the rendered DOM as its body,
// declared as UTF-8 HTML (the serialised DOM's encoding) for parsing.
func renderedResponse(raw *seo.Response, res *render.Result) *seo.Response {
	resp := *raw
	resp.Header = raw.Header.Clone()
	if resp.Header == nil {
		resp.Header = http.Header{}
	}
	resp.Header.Set("Content-Type", "text/html; charset=utf-8")
	resp.ContentType = "text/html; charset=utf-8"
	resp.ContentEncoding = ""
	resp.Body = res.HTML
	resp.BodyBytes = int64(len(res.HTML))
	resp.Truncated = false
	return &resp
}

// fillRenderReport copies the rendering's facts into rr.
func fillRenderReport(rr *RenderReport, res *render.Result, cfg *config) {
	rr.Device = cmp.Or(res.Device, cfg.RenderRequest.Device, render.Mobile)
	if res.Viewport != (render.Size{}) {
		v := res.Viewport
		rr.Viewport = &v
	}
	rr.UserAgent = res.UserAgent
	rr.FinalURL = res.FinalURL
	rr.ElapsedMs = res.ElapsedMs
	rr.TimedOut = res.TimedOut
	rr.Truncated = res.Truncated
	rr.Errors, rr.ErrorsOmitted = res.Errors, res.ErrorsOmitted
	rr.Console, rr.ConsoleOmitted = res.Console, res.ConsoleOmitted
	bad := 0
	for _, r := range res.Resources {
		if !resourceOK(r) {
			bad++
			if len(rr.Resources) < cfg.MaxListItems {
				rr.Resources = append(rr.Resources, r)
			}
		}
	}
	rr.ResourcesOmitted = bad - len(rr.Resources)
	rr.Weight = res.Weight
	rr.Screenshot, rr.FullScreenshot = res.Screenshot, res.FullScreenshot
	rr.Listeners, rr.ListenersReason = res.Listeners, res.ListenersReason
	if res.Listeners == nil && rr.ListenersReason == "" {
		rr.ListenersReason = "not read by the renderer"
	}
	rr.VitalsReason = ""
	if res.Vitals == nil {
		rr.VitalsReason = cmp.Or(res.VitalsReason, "not measured")
		return
	}
	th := cfg.th
	lv := &LabVitals{Lab: true, Device: rr.Device, Vitals: *res.Vitals}
	if rr.Viewport != nil {
		lv.Viewport = *rr.Viewport
	}
	if v := res.Vitals.LCP; v != nil {
		lv.LCPBand = band(*v, float64(th.LCPGood.Milliseconds()), float64(th.LCPPoor.Milliseconds()))
	}
	if v := res.Vitals.CLS; v != nil {
		lv.CLSBand = band(*v, th.CLSGood, th.CLSPoor)
	}
	if v := res.Vitals.TBT; v != nil {
		lv.TBTBand = band(*v, float64(th.TBTGood.Milliseconds()), float64(th.TBTPoor.Milliseconds()))
	}
	rr.Vitals = lv
}

// resourceOK reports whether a request of the rendering succeeded: fetched
// with a status under 400.
func resourceOK(r render.Resource) bool {
	return r.Outcome == render.OutcomeOK && r.Status < 400
}

// renderField is one page fact compared between the raw and rendered views,
// with the check IDs of its "only in the rendered HTML" and "changed by
// JavaScript" findings.
type renderField struct {
	field, only, changed string
	value                func(p *Page) string
}

// renderFields are the facts of RenderReport.Changes that have findings of
// their own; robots is handled apart for its noindex findings.
var renderFields = []renderField{
	{"title", "render.title_only_rendered", "render.title_changed", func(p *Page) string {
		if t := p.Report.Title; t != nil {
			return Collapse(t.Text)
		}
		return ""
	}},
	{"description", "render.description_only_rendered", "render.description_changed", func(p *Page) string {
		if d := p.Report.Description; d != nil {
			return Collapse(d.Text)
		}
		return ""
	}},
	{"h1", "render.h1_only_rendered", "render.h1_changed", func(p *Page) string {
		for _, h := range p.Report.Headings {
			if h.Level == 1 {
				return Collapse(h.Text)
			}
		}
		return ""
	}},
	{"canonical", "render.canonical_only_rendered", "render.canonical_mismatch", func(p *Page) string {
		var urls []string
		for _, c := range p.Report.Canonical {
			if c.Source == "html" {
				urls = append(urls, c.URL)
			}
		}
		return strings.Join(urls, " ")
	}},
	{"robots", "render.robots_only_rendered", "render.robots_changed", metaRobots},
	{"hreflang", "render.hreflang_only_rendered", "render.hreflang_changed", func(p *Page) string {
		var alts []string
		for _, a := range p.Report.Hreflang {
			if a.Source == "html" {
				alts = append(alts, a.Code+"="+a.URL)
			}
		}
		slices.Sort(alts)
		return strings.Join(alts, " ")
	}},
	{"structuredData", "render.structured_data_only_rendered", "render.structured_data_changed", func(p *Page) string {
		var types []string
		for _, it := range p.Report.StructuredData {
			types = append(types, it.Types...)
		}
		slices.Sort(types)
		return strings.Join(slices.Compact(types), " ")
	}},
}

// metaRobots is the page's meta robots directives ("meta:robots=noindex").
func metaRobots(p *Page) string {
	var ds []string
	for _, d := range p.Report.Robots.Directives {
		if strings.HasPrefix(d.Source, "meta:") {
			ds = append(ds, d.Source+"="+d.Value)
		}
	}
	return strings.Join(ds, " ")
}

// metaNoindex reports whether the meta robots directives keep Google from
// indexing the page.
func metaNoindex(p *Page) bool {
	for _, d := range p.Report.Robots.Directives {
		if strings.HasPrefix(d.Source, "meta:") && robotsForGoogle(d.Source) && (d.Value == "noindex" || d.Value == "none") {
			return true
		}
	}
	return false
}

// compareViews fills the comparison: st.changes and the report's Changes,
// LinksOnlyRendered and Words.
func compareViews(raw, rp *Page, st *renderState, cfg *config) {
	rr := st.rep
	rr.Changes = []RenderChange{}
	for i := range renderFields {
		f := &renderFields[i]
		if a, b := f.value(raw), f.value(rp); a != b {
			st.changes = append(st.changes, fieldChange{f, a, b})
			rr.Changes = append(rr.Changes, RenderChange{Field: f.field, Raw: seo.Clip(a), Rendered: seo.Clip(b)})
		}
	}
	rr.Words = &RenderWords{Raw: raw.Words, Rendered: rp.Words}
	if raw.Words != rp.Words {
		rr.Changes = append(rr.Changes, RenderChange{Field: "wordCount", Raw: strconv.Itoa(raw.Words), Rendered: strconv.Itoa(rp.Words)})
	}
	if a, b := len(raw.Links), len(rp.Links); a != b {
		rr.Changes = append(rr.Changes, RenderChange{Field: "links", Raw: strconv.Itoa(a), Rendered: strconv.Itoa(b)})
	}
	seen := make(map[string]bool, len(raw.Links))
	for _, l := range raw.Links {
		if l.URL != nil {
			seen[linkKey(l.URL)] = true
		}
	}
	only := &RenderLinks{}
	for _, l := range rp.Links {
		if l.URL == nil {
			continue
		}
		k := linkKey(l.URL)
		if seen[k] {
			continue
		}
		seen[k] = true
		only.Count++
		if len(only.Examples) < cfg.MaxEvidenceURLs {
			only.Examples = append(only.Examples, k)
		}
	}
	only.Omitted = only.Count - len(only.Examples)
	rr.LinksOnlyRendered = only
}

// linkKey is a link target without its fragment.
func linkKey(u *url.URL) string {
	if u.Fragment == "" && u.RawFragment == "" {
		return u.String()
	}
	v := *u
	v.Fragment, v.RawFragment = "", ""
	return v.String()
}
