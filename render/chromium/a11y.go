package chromium

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/seokit/seokit/render"
	"github.com/seokit/seokit/seo"
)

// AxeDefaultPath is where FindAxe looks for axe-core's script last, relative
// to the working directory: where `npm install axe-core` puts it.
const AxeDefaultPath = "node_modules/axe-core/axe.min.js"

// A11yWait bounds an accessibility audit in the page: axe-core on a page of
// a few thousand elements takes well under a second; a page that keeps it
// longer is reported as not checked, and the audit is stopped.
const A11yWait = 10 * time.Second

// a11yWait is A11yWait, shortened by the tests.
var a11yWait = A11yWait

// maxAxeBytes caps the script read as axe-core (axe.min.js is about 650 KB).
const maxAxeBytes = 8 << 20

// ErrAxeNotFound means no axe-core script was found: the accessibility
// audit is not run (render.Result.A11yReason says so). It wraps
// seo.ErrUnavailable.
var ErrAxeNotFound = fmt.Errorf("%w: axe-core not found", seo.ErrUnavailable)

// FindAxe returns the path of axe-core's script: path when set, else
// $SEOKIT_AXE, else AxeDefaultPath. The error wraps ErrAxeNotFound and
// names where it looked; install it with `npm install axe-core@4.14.1`
// (the file is node_modules/axe-core/axe.min.js).
func FindAxe(path string) (string, error) {
	var tried []string
	for _, p := range []string{path, os.Getenv("SEOKIT_AXE"), AxeDefaultPath} {
		if p == "" {
			continue
		}
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p, nil
		}
		tried = append(tried, p)
		if p == path {
			break // a path given explicitly is the only one looked at
		}
	}
	return "", fmt.Errorf("%w (looked for %s; install it with `npm install axe-core@4.14.1` and set $SEOKIT_AXE to node_modules/axe-core/axe.min.js)",
		ErrAxeNotFound, strings.Join(tried, ", "))
}

// loadAxe reads axe-core's script once per pool.
func (p *Pool) loadAxe() (string, error) {
	p.axeOnce.Do(func() {
		path, err := FindAxe(p.opts.AxePath)
		if err != nil {
			p.axeErr = err
			return
		}
		f, err := os.Open(path)
		if err != nil {
			p.axeErr = fmt.Errorf("%w: %v", ErrAxeNotFound, err)
			return
		}
		defer f.Close()
		b, err := io.ReadAll(io.LimitReader(f, maxAxeBytes+1))
		switch {
		case err != nil:
			p.axeErr = fmt.Errorf("%w: %s: %v", ErrAxeNotFound, path, err)
		case len(b) > maxAxeBytes:
			p.axeErr = fmt.Errorf("%w: %s is over %d bytes", ErrAxeNotFound, path, maxAxeBytes)
		case !strings.Contains(string(b), "axe"):
			p.axeErr = fmt.Errorf("%w: %s is not axe-core", ErrAxeNotFound, path)
		default:
			p.axeSrc = string(b)
		}
	})
	return p.axeSrc, p.axeErr
}

// A11yAvailable returns nil when the pool can run accessibility audits,
// else the error (ErrAxeNotFound) saying why not.
func (p *Pool) A11yAvailable() error {
	_, err := p.loadAxe()
	return err
}

// a11yScript runs axe-core on the document and returns its results, capped
// in the page so that the answer is bounded: rules, nodes per rule,
// snippets and texts. Frames are not audited (axe would wait for a copy of
// itself in each), and only violations and incomplete results carry their
// nodes (see a11yOptions).
const a11yScript = `(async (o) => {
  const t0 = performance.now();
  const r = await axe.run(document, ` + a11yOptions + `);
  const cut = (s, n) => { s = typeof s === "string" ? s : ""; return s.length > n ? s.slice(0, n) : s; };
  const target = (t) => Array.isArray(t) ? t.map((x) => Array.isArray(x) ? x.join(" >>> ") : String(x)).join(" >>> ") : String(t || "");
  const rule = (x) => ({
    id: cut(x.id, 100), impact: cut(x.impact || "", 20), help: cut(x.help, o.text), helpUrl: cut(x.helpUrl, o.text),
    tags: (x.tags || []).slice(0, 30).map((t) => cut(t, 50)),
    nodeCount: (x.nodes || []).length,
    nodes: (x.nodes || []).slice(0, o.nodes).map((n) => ({
      target: cut(target(n.target), o.text), html: cut(n.html, o.snippet),
      summary: cut(n.failureSummary || "", o.text), impact: cut(n.impact || "", 20),
    })),
  });
  const list = (xs) => (xs || []).slice(0, o.rules).map(rule);
  return {
    version: cut(String(axe.version || ""), 40),
    violations: list(r.violations), violationsOmitted: Math.max(0, (r.violations || []).length - o.rules),
    incomplete: list(r.incomplete), incompleteOmitted: Math.max(0, (r.incomplete || []).length - o.rules),
    passes: (r.passes || []).slice(0, o.rules).map((x) => cut(x.id, 100)), passesOmitted: Math.max(0, (r.passes || []).length - o.rules),
    inapplicable: (r.inapplicable || []).length,
    elapsedMs: performance.now() - t0,
  };
})`

// a11yOptions is the options object a11yScript passes to axe.run, a
// JavaScript expression of the script's argument o. Two options spare work
// that changes no verdict:
//
//   - restoreScroll is off: axe would record the scroll position of every
//     element of the document before the rules and restore them after, but
//     the audit is the last thing the rendering reads of the page (its DOM
//     and screenshots come before), and the tab then leaves it;
//   - only media are preloaded (no-autoplay-audio waits for their
//     metadata): the rules of A11yTags read no style sheet (the one rule that
//     does, css-orientation-lock, is experimental, which a run by tags
//     leaves out), so axe does not copy each sheet's rules, nor fetch the
//     text of the cross-origin ones again, for nothing.
const a11yOptions = `{
    runOnly: { type: "tag", values: o.tags },
    resultTypes: ["violations", "incomplete"],
    iframes: false, elementRef: false, ancestry: false, xpath: false, absolutePaths: false,
    restoreScroll: false, preload: { assets: ["media"] },
  }`

// a11yAnswer is what a11yScript returns.
type a11yAnswer struct {
	Version           string            `json:"version"`
	Violations        []render.A11yRule `json:"violations"`
	ViolationsOmitted int               `json:"violationsOmitted"`
	Incomplete        []render.A11yRule `json:"incomplete"`
	IncompleteOmitted int               `json:"incompleteOmitted"`
	Passes            []string          `json:"passes"`
	PassesOmitted     int               `json:"passesOmitted"`
	Inapplicable      int               `json:"inapplicable"`
	ElapsedMs         float64           `json:"elapsedMs"`
}

// maxA11yJSON caps the answer read back: the caps of a11yScript bound it
// well under this, unless the script was tampered with.
const maxA11yJSON = 4 << 20

// a11yWorld names the isolated world the audit runs in.
const a11yWorld = "seokit-a11y"

// axeLoader wraps axe-core's script in a function that each document of
// a tab defines in the audit's isolated world as it is created (see
// prepareA11y). Defining it runs nothing of axe: the audit calls it. Only
// a top-level document other than about:blank defines it, as only the
// main frame of a rendering's page is audited: the blank page that resets
// the tab after each rendering (see tab) and the documents of frames skip
// the 650 KB (the renderer hashes the source to find its compiled code,
// and keeps the function in the document's world).
func axeLoader(src string) string {
	return "if (window === window.top && location.href !== \"about:blank\") {\nglobalThis.__seokitAxe = function () {\n" + src + "\n};\n}"
}

// prepareA11y gives the documents of tb axe-core's script when a11y, once
// per tab: a script to evaluate on each new document defines it, unrun, in
// the audit's isolated world. Chrome keeps the script, so its 650 KB cross
// the DevTools connection once per tab rather than once per page, and the
// renderer compiles the same source for each document, which V8's
// compilation cache can answer, instead of a new evaluation each time. The
// page's own scripts run in another world and never see it. A rendering without the audit removes the script, so that its
// documents carry none of it. An error leaves the audit to send the script
// itself.
func (p *Pool) prepareA11y(ctx context.Context, tb *tab, a11y bool) {
	a11y = a11y && a11yPrepare
	if !a11y {
		if tb.axeScript != "" {
			if _, err := cdp.Call(ctx, tb.c.Target, page.RemoveScriptToEvaluateOnNewDocument,
				page.RemoveScriptToEvaluateOnNewDocumentParams{Identifier: tb.axeScript}); err == nil {
				tb.axeScript = ""
			}
		}
		return
	}
	if tb.axeScript != "" {
		return
	}
	src, err := p.loadAxe()
	if err != nil {
		return // the audit says why it is not run
	}
	r, err := cdp.Call(ctx, tb.c.Target, page.AddScriptToEvaluateOnNewDocument,
		page.AddScriptToEvaluateOnNewDocumentParams{Source: axeLoader(src), WorldName: a11yWorld})
	if err == nil {
		tb.axeScript = r.Identifier
	}
}

// a11yRun returns the expression that runs the audit with opts in the
// isolated world: axe-core from the function the document defined
// (prepareA11y), or a11yMissing when there is none (a document created
// before the tab was prepared), for the audit to send the script itself.
func a11yRun(opts []byte) string {
	return `(typeof globalThis.axe === "object" || (typeof globalThis.__seokitAxe === "function" && (globalThis.__seokitAxe(), typeof globalThis.axe === "object")))` +
		` ? (` + a11yScript + `)(` + string(opts) + `) : "` + a11yMissing + `"`
}

// a11yMissing is what a11yRun answers without axe-core in the world.
const a11yMissing = "seokit: axe-core not loaded"

// a11yPrepare is false in the test that measures audits sending the
// script themselves, as each one did before prepareA11y.
var a11yPrepare = true

// a11ySent counts the audits that had to send axe-core's script
// themselves (the tests check that prepared tabs never do).
var a11ySent atomic.Int64

// audit runs axe-core in an isolated world of the page's main frame (the
// page's own scripts cannot see or change it, nor fake its answer) and
// records the result or the reason there is none in s.res. ctx bounds it
// (A11yWait at most); a script still running then is terminated.
func (p *Pool) audit(ctx context.Context, t *chromedp.Target, s *session) {
	src, err := p.loadAxe()
	if err != nil {
		s.res.A11yReason = "not checked: " + strings.TrimPrefix(err.Error(), seo.ErrUnavailable.Error()+": ")
		return
	}
	actx, cancel := context.WithTimeout(ctx, a11yWait)
	defer cancel()
	s.mu.Lock()
	frame := s.mainFrame
	s.mu.Unlock()
	world, err := cdp.Call(actx, t, page.CreateIsolatedWorld, page.CreateIsolatedWorldParams{FrameID: frame, WorldName: a11yWorld})
	if err != nil {
		s.res.A11yReason = "not checked: " + clip(auditError(ctx, actx, err).Error())
		return
	}
	opts := a11yArgs()
	r, err := p.evalA11y(ctx, actx, t, world.ExecutionContextID, a11yRun(opts))
	if err == nil && r.ExceptionDetails == nil && r.Result != nil && string(r.Result.Value) == strconv.Quote(a11yMissing) {
		a11ySent.Add(1)
		r, err = p.evalA11y(ctx, actx, t, world.ExecutionContextID, src+"\n;("+a11yScript+")("+string(opts)+")")
	}
	if err != nil {
		s.res.A11yReason = "not checked: " + clip(auditError(ctx, actx, err).Error())
		return
	}
	if r.ExceptionDetails != nil {
		text := r.ExceptionDetails.Text
		if e := r.ExceptionDetails.Exception; e != nil && e.Description != "" {
			text = e.Description
		}
		s.res.A11yReason = "not checked: axe-core failed: " + clip(text)
		return
	}
	if r.Result == nil || len(r.Result.Value) > maxA11yJSON {
		s.res.A11yReason = "not checked: axe-core returned no result"
		return
	}
	var a a11yAnswer
	if err := json.Unmarshal(r.Result.Value, &a); err != nil {
		s.res.A11yReason = "not checked: axe-core's result could not be read: " + clip(err.Error())
		return
	}
	s.res.A11y = a.result()
}

// a11yArgs is a11yScript's argument: the tags run and the caps, in JSON.
func a11yArgs() []byte {
	opts, _ := json.Marshal(map[string]any{"tags": render.A11yTags, "rules": render.MaxA11yRules, "nodes": render.MaxA11yNodes,
		"snippet": render.MaxA11ySnippet, "text": render.MaxA11yText})
	return opts
}

// evalA11y evaluates expr in the audit's world, awaiting its promise;
// when actx ends first (and ctx has not), the script still running on the
// page's main thread is terminated.
func (p *Pool) evalA11y(ctx, actx context.Context, t *chromedp.Target, world runtime.ExecutionContextID, expr string) (runtime.EvaluateResult, error) {
	yes := true
	r, err := cdp.Call(actx, t, runtime.Evaluate, runtime.EvaluateParams{Expression: expr, ContextID: world,
		ReturnByValue: &yes, AwaitPromise: &yes})
	if err != nil && actx.Err() != nil && ctx.Err() == nil {
		stop, cancel := context.WithTimeout(ctx, domWait)
		_, _ = cdp.Call(stop, t, runtime.TerminateExecution, cdp.Empty{})
		cancel()
	}
	return r, err
}

// auditError explains an audit command that failed.
func auditError(ctx, actx context.Context, err error) error {
	if ctx.Err() == nil && errors.Is(actx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("the audit did not finish within %s", a11yWait)
	}
	return err
}

// result checks and caps the answer again (the page is not trusted to
// have kept the caps) into a render.A11y.
func (a *a11yAnswer) result() *render.A11y {
	out := &render.A11y{Engine: "axe-core", Tags: render.A11yTags, Passes: []string{}, PassesOmitted: max(a.PassesOmitted, 0),
		Inapplicable: max(a.Inapplicable, 0), ElapsedMs: a.ElapsedMs}
	for _, id := range a.Passes {
		if len(out.Passes) >= render.MaxA11yRules {
			out.PassesOmitted++
			continue
		}
		if id = clipTo(id, 100); id != "" {
			out.Passes = append(out.Passes, id)
		}
	}
	if v := clipTo(a.Version, 40); v != "" {
		out.Engine += " " + v
	}
	out.Violations, out.ViolationsOmitted = capRules(a.Violations, a.ViolationsOmitted)
	out.Incomplete, out.IncompleteOmitted = capRules(a.Incomplete, a.IncompleteOmitted)
	return out
}

// capRules applies the caps of render.A11y to rules, adding the rules cut
// to omitted.
func capRules(rules []render.A11yRule, omitted int) ([]render.A11yRule, int) {
	omitted = max(omitted, 0)
	if len(rules) > render.MaxA11yRules {
		omitted += len(rules) - render.MaxA11yRules
		rules = rules[:render.MaxA11yRules]
	}
	out := make([]render.A11yRule, 0, len(rules))
	for _, r := range rules {
		r.ID = clipTo(r.ID, 100)
		if r.ID == "" {
			continue
		}
		r.Impact = clipTo(r.Impact, 20)
		r.Help = clipTo(r.Help, render.MaxA11yText)
		r.HelpURL = clipTo(r.HelpURL, render.MaxA11yText)
		if len(r.Tags) > 30 {
			r.Tags = r.Tags[:30]
		}
		for i := range r.Tags {
			r.Tags[i] = clipTo(r.Tags[i], 50)
		}
		if len(r.Nodes) > render.MaxA11yNodes {
			r.Nodes = r.Nodes[:render.MaxA11yNodes]
		}
		r.NodeCount = max(r.NodeCount, len(r.Nodes))
		for i := range r.Nodes {
			n := &r.Nodes[i]
			n.Target = clipTo(n.Target, render.MaxA11yText)
			n.HTML = clipTo(n.HTML, render.MaxA11ySnippet)
			n.Summary = clipTo(n.Summary, render.MaxA11yText)
			n.Impact = clipTo(n.Impact, 20)
		}
		if r.Nodes == nil {
			r.Nodes = []render.A11yNode{}
		}
		if r.Tags == nil {
			r.Tags = []string{}
		}
		out = append(out, r)
	}
	return out, omitted
}

// clipTo cuts s to at most n bytes on a rune boundary, ending it with an
// ellipsis when cut.
func clipTo(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n - len("…")
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}
