package chromium

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/inspector"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/seokit/seokit/render"
	"github.com/seokit/seokit/seo"
)

// Caps of a Result's lists and texts.
const (
	MaxResources = 500
	MaxMessages  = 100
	MaxText      = 1000
)

// grace is the time allowed after the budget to stop the page and read its
// DOM; prepare the time allowed to open and prepare a tab before the
// budget starts.
const (
	grace   = 5 * time.Second
	prepare = 30 * time.Second
)

// device is a device profile's emulation.
type device struct {
	width, height int64
	scale         float64
	mobile        bool
	ua            string
}

var devices = map[render.Device]device{
	render.Mobile:  {412, 915, 2.625, true, seo.MobileUserAgent},
	render.Desktop: {1350, 940, 1, false, seo.DefaultUserAgent},
}

// Render renders req.URL in a fresh browser context of a free tab, waiting
// for one or for ctx. See render.Renderer.
func (p *Pool) Render(ctx context.Context, req *render.Request) (*render.Result, error) {
	if req == nil {
		return nil, &seo.InputError{Field: "url", Reason: "is required", Err: seo.ErrInvalidInput}
	}
	u, err := seo.ParseHref(req.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, &seo.InputError{Field: "url", Value: req.URL, Reason: "must be an absolute http(s) URL", Err: seo.ErrInvalidInput}
	}
	b, slot, err := p.acquire(ctx)
	if err != nil {
		return nil, err
	}
	res, closing, err := p.render(ctx, b, req)
	crashed := false
	if err != nil && b.dead() && !p.isClosed() {
		crashed = true
		if b.memKilled.Load() && ctx.Err() == nil {
			err = fmt.Errorf("render: %s: the browser was stopped: %w", seo.Clip(req.URL), render.ErrMemoryLimit)
		} else {
			err = fmt.Errorf("%w: %w", errCrashed, err)
		}
	}
	if closing == nil {
		p.release(b, slot, crashed)
		return res, err
	}
	// A tab that is not reused is closed after the answer (a page of busy
	// workers takes seconds to close); its slot is freed once it is.
	go func() {
		closing()
		p.release(b, slot, crashed)
	}()
	return res, err
}

func (p *Pool) isClosed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.closed
}

// session is the state of one rendering, filled by the tab's events.
type session struct {
	req   *render.Request
	prx   *proxy
	start time.Time

	mu        sync.Mutex
	res       render.Result
	reqs      map[network.RequestID]*entry
	weights   map[string]*render.Weight
	order     []string
	requests  int
	bytes     int64
	inflight  int
	lastBusy  time.Time
	loaded    bool
	mainFrame cdp.FrameID
	docID     network.RequestID
	docURL    string
	truncated map[string]bool
	refused   map[network.RequestID][2]string // refusals decided before the request's entry
	done      bool                            // the Result was handed out: later events are ignored

	// What decides whether the tab can be reset for the next rendering:
	// the origins of the documents loaded and of the documents requested
	// (redirect hops included; more than maxOrigins rule it out), and
	// whether a response set HSTS state.
	docs, hops map[string]bool
	noReuse    bool

	queue  []any
	signal chan struct{}

	// crashed is closed when the page's renderer process ends (killed for
	// memory, out of memory, crashed), which also ends the rendering's
	// commands (abort); crash is the browser's termination status of it
	// ("" when the page's own session reported it first).
	crashed chan struct{}
	crash   string
	abort   context.CancelFunc
}

// entry is a request the page made; idx is its place in res.Resources, -1
// when omitted by the cap.
type entry struct {
	idx      int
	typ      string
	url      string
	done     bool
	ws       bool
	refus    string // outcome already decided by the interception
	received int64  // bytes counted from dataReceived
	err      string
}

func newSession(req *render.Request, prx *proxy) *session {
	now := time.Now()
	return &session{
		req:       req,
		prx:       prx,
		start:     now,
		reqs:      map[network.RequestID]*entry{},
		weights:   map[string]*render.Weight{},
		lastBusy:  now,
		truncated: map[string]bool{},
		refused:   map[network.RequestID][2]string{},
		docs:      map[string]bool{},
		hops:      map[string]bool{},
		signal:    make(chan struct{}, 1),
		crashed:   make(chan struct{}),
		abort:     func() {},
		res: render.Result{
			Errors:    []render.Message{},
			Console:   []render.Message{},
			Resources: []render.Resource{},
			Weight:    []render.Weight{},
		},
	}
}

// enqueue hands an event that needs a command to the session's worker.
func (s *session) enqueue(ev any) {
	s.queue = append(s.queue, ev)
	select {
	case s.signal <- struct{}{}:
	default:
	}
}

func (s *session) dequeue() []any {
	s.mu.Lock()
	defer s.mu.Unlock()
	q := s.queue
	s.queue = nil
	return q
}

// clip cuts s to at most MaxText bytes on a rune boundary, ending it with
// an ellipsis when cut.
func clip(s string) string { return clipTo(s, MaxText) }

func (s *session) addMessage(list *[]render.Message, omitted *int, m render.Message) {
	m.Text = clip(m.Text)
	m.Source = clip(m.Source)
	if len(*list) >= MaxMessages {
		*omitted++
		return
	}
	*list = append(*list, m)
}

// weight counts one request (n=1) or bytes of type typ.
func (s *session) weight(typ string, n int, b int64) {
	w := s.weights[typ]
	if w == nil {
		w = &render.Weight{Type: typ}
		s.weights[typ] = w
		s.order = append(s.order, typ)
	}
	w.Requests += n
	w.Bytes += b
}

// newEntry records a request; s.mu is held.
func (s *session) newEntry(id network.RequestID, rawURL, typ string, ws bool) *entry {
	e := &entry{idx: -1, typ: typ, url: rawURL, ws: ws}
	if r, ok := s.refused[id]; ok {
		// The interception refused the request before the browser
		// reported it.
		e.refus, e.err = r[0], r[1]
		delete(s.refused, id)
	}
	if len(s.res.Resources) < MaxResources {
		e.idx = len(s.res.Resources)
		s.res.Resources = append(s.res.Resources, render.Resource{URL: clip(rawURL), Type: typ, Outcome: render.OutcomeOK})
	} else {
		s.res.ResourcesOmitted++
	}
	s.reqs[id] = e
	s.weight(typ, 1, 0)
	if !ws {
		s.inflight++
	}
	s.lastBusy = time.Now()
	return e
}

// finish ends a request; s.mu is held.
func (s *session) finish(id network.RequestID, e *entry, outcome, errText string, bytes int64) {
	if e.done {
		return
	}
	e.done = true
	if !e.ws {
		s.inflight--
	}
	s.lastBusy = time.Now()
	if bytes > 0 {
		s.weight(e.typ, 0, bytes)
	}
	if bytes > e.received {
		s.bytes += bytes - e.received
	}
	if e.refus != "" {
		outcome = e.refus
		errText = e.err
	} else if outcome == render.OutcomeFailed {
		if f, ok := s.prx.failed(hostPort(e.url)); ok && f.forbidden {
			outcome, errText = render.OutcomeAddress, f.reason
		} else if ok {
			errText = f.reason
		} else if s.prx.over() {
			outcome, errText = render.OutcomeBudget, "byte budget spent"
			s.truncated["bytes"] = true
		}
	}
	if e.idx < 0 {
		delete(s.reqs, id)
		return
	}
	r := &s.res.Resources[e.idx]
	r.Outcome = outcome
	r.Error = clip(errText)
	r.Bytes = bytes
}

// hostPort is the "host:port" the proxy dialled for rawURL.
func hostPort(rawURL string) string {
	u, err := seo.ParseHref(rawURL)
	if err != nil {
		return ""
	}
	port := u.Port()
	if port == "" {
		switch u.Scheme {
		case "https", "wss":
			port = "443"
		default:
			port = "80"
		}
	}
	return strings.ToLower(net.JoinHostPort(u.Hostname(), port))
}

func resourceType(t network.ResourceType) string {
	if t == "" {
		return "other"
	}
	return strings.ToLower(string(t))
}

// listen is the tab's event handler. It runs on the tab's reading
// goroutine: it only records, and hands what needs a command to the worker.
func (s *session) listen(ev any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done {
		return
	}
	switch ev := ev.(type) {
	case *fetch.EventRequestPaused, *page.EventJavascriptDialogOpening:
		s.enqueue(ev)
	case *network.EventRequestWillBeSent:
		if ev.Request == nil {
			return
		}
		if ev.RedirectResponse != nil {
			s.noteHSTS(ev.RedirectResponse)
		}
		if ev.Type == network.ResourceTypeDocument {
			s.noteDoc(s.hops, ev.Request.URL)
		}
		if e := s.reqs[ev.RequestID]; e != nil && ev.RedirectResponse != nil {
			if e.idx >= 0 {
				s.res.Resources[e.idx].Status = int(ev.RedirectResponse.Status)
			}
			s.finish(ev.RequestID, e, render.OutcomeOK, "", int64(ev.RedirectResponse.EncodedDataLength))
		}
		typ := resourceType(ev.Type)
		s.newEntry(ev.RequestID, ev.Request.URL, typ, false)
		// The document of the main frame: the first one, its redirects,
		// and the documents of later navigations of the page.
		if ev.Type == network.ResourceTypeDocument && (s.mainFrame == "" || ev.FrameID == s.mainFrame) {
			if s.docID != ev.RequestID {
				s.res.Status = 0
			}
			s.docID = ev.RequestID
			s.docURL = ev.Request.URL
			s.mainFrame = ev.FrameID
		}
	case *network.EventResponseReceived:
		if ev.Response != nil {
			s.noteHSTS(ev.Response)
			if ev.Type == network.ResourceTypeDocument {
				s.noteDoc(s.docs, ev.Response.URL)
			}
		}
		if e := s.reqs[ev.RequestID]; e != nil && ev.Response != nil {
			if e.idx >= 0 {
				s.res.Resources[e.idx].Status = int(ev.Response.Status)
			}
			if ev.RequestID == s.docID {
				s.res.Status = int(ev.Response.Status)
			}
		}
	case *network.EventDataReceived:
		s.bytes += ev.EncodedDataLength
		if e := s.reqs[ev.RequestID]; e != nil {
			e.received += ev.EncodedDataLength
		}
		s.lastBusy = time.Now()
	case *network.EventLoadingFinished:
		if e := s.reqs[ev.RequestID]; e != nil {
			s.finish(ev.RequestID, e, render.OutcomeOK, "", int64(ev.EncodedDataLength))
		}
	case *network.EventLoadingFailed:
		if e := s.reqs[ev.RequestID]; e != nil {
			s.finish(ev.RequestID, e, render.OutcomeFailed, ev.ErrorText, 0)
		}
	case *network.EventWebSocketCreated:
		s.newEntry(ev.RequestID, ev.URL, "websocket", true)
	case *network.EventWebSocketHandshakeResponseReceived:
		if e := s.reqs[ev.RequestID]; e != nil && e.idx >= 0 && ev.Response != nil {
			s.res.Resources[e.idx].Status = int(ev.Response.Status)
		}
	case *network.EventWebSocketFrameError:
		if e := s.reqs[ev.RequestID]; e != nil {
			s.finish(ev.RequestID, e, render.OutcomeFailed, ev.ErrorMessage, 0)
		}
	case *network.EventWebSocketClosed:
		if e := s.reqs[ev.RequestID]; e != nil {
			outcome := render.OutcomeOK
			if e.idx >= 0 && s.res.Resources[e.idx].Status == 0 {
				outcome = render.OutcomeFailed
			}
			s.finish(ev.RequestID, e, outcome, "", 0)
		}
	case *inspector.EventTargetCrashed:
		s.noteCrash("")
	case *page.EventLoadEventFired:
		s.loaded = true
		s.lastBusy = time.Now()
	case *runtime.EventExceptionThrown:
		d := ev.ExceptionDetails
		if d == nil {
			return
		}
		text := d.Text
		if d.Exception != nil && d.Exception.Description != "" {
			text = strings.TrimSuffix(text, " ") + " " + d.Exception.Description
		}
		m := render.Message{Text: text, Source: d.URL, Line: int(d.LineNumber) + 1, Column: int(d.ColumnNumber) + 1}
		if m.Source == "" && d.StackTrace != nil && len(d.StackTrace.CallFrames) > 0 {
			m.Source = d.StackTrace.CallFrames[0].URL
		}
		s.addMessage(&s.res.Errors, &s.res.ErrorsOmitted, m)
	case *runtime.EventConsoleAPICalled:
		if ev.Type != runtime.ConsoleAPICalledTypeError && ev.Type != runtime.ConsoleAPICalledTypeAssert {
			return
		}
		parts := make([]string, 0, len(ev.Args))
		for _, a := range ev.Args {
			parts = append(parts, remoteText(a))
		}
		m := render.Message{Text: strings.Join(parts, " ")}
		if ev.Type == runtime.ConsoleAPICalledTypeAssert && m.Text == "" {
			m.Text = "Assertion failed"
		}
		if ev.StackTrace != nil && len(ev.StackTrace.CallFrames) > 0 {
			f := ev.StackTrace.CallFrames[0]
			m.Source, m.Line, m.Column = f.URL, int(f.LineNumber)+1, int(f.ColumnNumber)+1
		}
		s.addMessage(&s.res.Console, &s.res.ConsoleOmitted, m)
	case *log.EventEntryAdded:
		if ev.Entry == nil || ev.Entry.Level != log.EntryLevelError {
			return
		}
		m := render.Message{Text: ev.Entry.Text, Source: ev.Entry.URL}
		if ev.Entry.LineNumber > 0 {
			m.Line = int(ev.Entry.LineNumber) + 1
		}
		s.addMessage(&s.res.Console, &s.res.ConsoleOmitted, m)
	}
}

// noteCrash records the end of the page's renderer process with the
// browser's termination status; s.mu is held.
func (s *session) noteCrash(status string) {
	select {
	case <-s.crashed:
		if s.crash == "" {
			s.crash = status
		}
		return
	default:
	}
	s.crash = status
	close(s.crashed)
	s.abort()
}

// crashErr is the error of a rendering whose renderer process ended, nil
// when it runs: render.ErrMemoryLimit when V8 ran out of memory ("oom") or
// the pool killed the process for its memory limit.
func (s *session) crashErr(b *browser) error {
	select {
	case <-s.crashed:
	default:
		return nil
	}
	s.mu.Lock()
	status := s.crash
	s.mu.Unlock()
	if status == "" {
		// The browser-wide event with the status comes on another
		// connection; it is waited for briefly.
		timer := time.NewTimer(crashStatusWait)
		defer timer.Stop()
		for status == "" {
			select {
			case <-timer.C:
				status = "crashed"
			case <-time.After(10 * time.Millisecond):
				s.mu.Lock()
				status = s.crash
				s.mu.Unlock()
			}
		}
	}
	if status == "oom" || b.claimKill() {
		return fmt.Errorf("render: %s: the page was stopped: %w", seo.Clip(s.req.URL), render.ErrMemoryLimit)
	}
	return fmt.Errorf("render: %s: the page's renderer process ended (%s)", seo.Clip(s.req.URL), clip(status))
}

// crashStatusWait bounds the wait for the termination status of a crashed
// page.
const crashStatusWait = 500 * time.Millisecond

// maxOrigins caps the document origins a session remembers; a page with
// more is not reset for reuse.
const maxOrigins = 16

// noteDoc adds the origin of a document's URL to set; s.mu is held.
func (s *session) noteDoc(set map[string]bool, rawURL string) {
	u, err := seo.ParseHref(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return
	}
	if o := originOf(u); !set[o] {
		if len(set) >= maxOrigins {
			s.noReuse = true
			return
		}
		set[o] = true
	}
}

// noteHSTS notes a Strict-Transport-Security header; s.mu is held.
func (s *session) noteHSTS(r *network.Response) {
	for k := range r.Headers {
		if strings.EqualFold(k, "Strict-Transport-Security") {
			s.noReuse = true
		}
	}
}

// reuse tells whether the tab of s can be reset for another rendering:
// its documents were all of one origin (returned, "" for none) and no
// response set HSTS state. cleared lists the origins whose storage must be
// cleared.
func (s *session) reuse() (origin string, cleared []string, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.noReuse || len(s.docs) > 1 {
		return "", nil, false
	}
	for o := range s.docs {
		origin = o
	}
	for o := range s.hops {
		cleared = append(cleared, o)
	}
	if origin != "" && !s.hops[origin] {
		cleared = append(cleared, origin)
	}
	return origin, cleared, true
}

// remoteText is the text of a console argument.
func remoteText(a *runtime.RemoteObject) string {
	if a == nil {
		return ""
	}
	if len(a.Value) > 0 {
		v := string(a.Value)
		if a.Type == runtime.RemoteObjectTypeString {
			if s, err := unquote(v); err == nil {
				return s
			}
		}
		return v
	}
	if a.Description != "" {
		return a.Description
	}
	if a.UnserializableValue != "" {
		return string(a.UnserializableValue)
	}
	return string(a.Type)
}

// work answers the paused requests and dialogs, and closes new windows,
// until ctx ends.
func (s *session) work(ctx context.Context, b *chromedp.Browser, t *chromedp.Target) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.signal:
		}
		for _, ev := range s.dequeue() {
			switch ev := ev.(type) {
			case *fetch.EventRequestPaused:
				s.decide(ctx, t, ev)
			case *target.EventTargetCreated:
				// A new window or popup of the page: closed at once.
				if ev.TargetInfo.Type == "page" {
					_, _ = cdp.Call(ctx, b, target.CloseTarget, target.CloseTargetParams{TargetID: ev.TargetInfo.TargetID})
				}
			case *page.EventJavascriptDialogOpening:
				_, _ = cdp.Call(ctx, t, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: false})
			}
		}
	}
}

// decide lets a paused request go on or refuses it: schemes other than
// http(s), data: and blob:, requests beyond the budgets, and subresources
// that robots.txt disallows.
func (s *session) decide(ctx context.Context, t *chromedp.Target, ev *fetch.EventRequestPaused) {
	outcome, why := "", ""
	var u *url.URL
	if ev.Request != nil {
		u, _ = seo.ParseHref(ev.Request.URL)
	}
	s.mu.Lock()
	// The main frame's document (its first request, redirects and later
	// navigations) is never robots-checked here; iframes' documents are.
	isDoc := ev.ResourceType == network.ResourceTypeDocument && (s.mainFrame == "" || ev.FrameID == s.mainFrame)
	switch {
	case u == nil:
		outcome, why = render.OutcomeFailed, "unparsable URL"
	case u.Scheme == "data" || u.Scheme == "blob":
	case u.Scheme != "http" && u.Scheme != "https":
		outcome, why = render.OutcomeFailed, "scheme "+u.Scheme+" is not fetched"
	case s.requests >= s.req.MaxRequests:
		outcome, why = render.OutcomeBudget, fmt.Sprintf("request budget of %d spent", s.req.MaxRequests)
		s.truncated["requests"] = true
	case s.bytes >= s.req.MaxBytes || s.prx.over():
		outcome, why = render.OutcomeBudget, fmt.Sprintf("byte budget of %d spent", s.req.MaxBytes)
		s.truncated["bytes"] = true
	case !isDoc && s.req.Allowed != nil && !s.req.Allowed(u):
		outcome, why = render.OutcomeRobots, "disallowed by robots.txt"
	}
	if outcome == "" && u != nil && u.Scheme != "data" && u.Scheme != "blob" {
		s.requests++
	}
	if outcome != "" {
		if e := s.reqs[ev.NetworkID]; e != nil {
			e.refus, e.err = outcome, why
		} else if ev.NetworkID != "" && len(s.refused) < MaxResources {
			s.refused[ev.NetworkID] = [2]string{outcome, why}
		}
	}
	s.mu.Unlock()
	if outcome == "" {
		_, _ = cdp.Call(ctx, t, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: ev.RequestID})
		return
	}
	_, _ = cdp.Call(ctx, t, fetch.FailRequest, fetch.FailRequestParams{RequestID: ev.RequestID, ErrorReason: network.ErrorReasonBlockedByClient})
}

// withDefaults fills a copy of req's zero fields.
func withDefaults(req *render.Request) *render.Request {
	r := *req
	if r.Device == "" {
		r.Device = render.Mobile
	}
	if _, ok := devices[r.Device]; !ok {
		r.Device = render.Mobile
	}
	if r.Idle <= 0 {
		r.Idle = render.DefaultIdle
	}
	if r.Settle == 0 {
		r.Settle = render.DefaultSettle
	}
	if r.Timeout <= 0 {
		r.Timeout = render.DefaultTimeout
	}
	if r.MaxBytes <= 0 {
		r.MaxBytes = render.DefaultMaxBytes
	}
	if r.MaxRequests <= 0 {
		r.MaxRequests = render.DefaultMaxRequests
	}
	if r.Screenshot == "" {
		r.Screenshot = render.NoShot
	}
	return &r
}

// setupScript runs in every document before its scripts: no new windows,
// no service workers.
const setupScript = `(() => {
  try { window.open = function () { return null; }; } catch (e) {}
  document.addEventListener('click', (e) => {
    const a = e.target && e.target.closest ? e.target.closest('a[target], area[target]') : null;
    if (a && !/^(_self|_top|_parent|)$/i.test(a.target)) e.preventDefault();
  }, true);
  try {
    if (navigator.serviceWorker) {
      Object.defineProperty(navigator.serviceWorker, 'register', { value: function () { return Promise.reject(new DOMException('service workers are disabled', 'SecurityError')); } });
    }
  } catch (e) {}
})();`

// domScript serialises the document with its doctype, cut after max
// characters, and returns it with the frame's URL. A document of up to
// domExact elements, those of its open shadow trees included, is
// serialised by the browser (outerHTML, or getHTML when it has shadow
// roots); a larger one by a walk that stops once max characters are
// written, so that the time and memory of the reading are bounded by the
// cap rather than by the document (a page can build millions of nodes).
// The walk keeps its own stack (documents can nest deeper than the
// JavaScript stack) and follows the HTML serialisation algorithm.
//
// Open shadow roots are serialised as declarative shadow DOM, a
// <template shadowrootmode="open"> first in their host, light children
// after it, as getHTML writes them: Google flattens shadow and light DOM
// when it renders a page, so the content and links web components put in
// shadow trees are the page's. Closed shadow roots are out of the reach of
// the page's JavaScript (host.shadowRoot is null) and are not read; so are
// the shadow roots of elements inside a <template>'s inert content, which
// are not the page's. The shadow roots are found by visiting every element
// of the trees (the document's and each open shadow root's, in turn),
// which also counts them against domExact: the browser's serialisation is
// never asked for more than domExact elements, wherever they are.
//
// When listen is not null, the script first reads the event listeners of
// the HTML <a> elements without href (see listenScript) and serialises
// those with a click-type listener with the listen.attr attribute; the
// attributes are set and put back as they were within the one evaluation,
// so no script of the page runs in between.
const domScript = `((max, exact, listen) => {
  const d = document;
  const lis = listen ? (` + listenScript + `)(listen) : null;
  try {
    return Object.assign(serialise(), { listeners: lis && lis.counts, listenersReason: lis ? lis.reason : "" });
  } finally {
    if (lis) lis.restore();
  }
  function serialise() {
  let s = d.doctype ? new XMLSerializer().serializeToString(d.doctype) + "\n" : "";
  const root = d.documentElement;
  if (!root) return { url: location.href, html: s };
  const attr = (t) => t.replace(/&/g, "&amp;").replace(/\u00a0/g, "&nbsp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  const qname = (x) => x.prefix ? x.prefix + ":" + x.localName : x.localName;
  const start = (x) => {
    let t = "<" + qname(x);
    for (const a of x.attributes) t += " " + a.name + '="' + attr(a.value) + '"';
    return t + ">";
  };
  const all = d.getElementsByTagName("*");
  let count = all.length;
  if (count <= exact) {
    // The open shadow roots, tree by tree, while the count allows.
    const roots = [];
    for (let trees = [all], i = 0; i < trees.length && count <= exact; i++) {
      const els = trees[i];
      for (let j = 0; j < els.length; j++) {
        const r = els[j].shadowRoot;
        if (r) {
          const inner = r.querySelectorAll("*");
          count += inner.length;
          if (count > exact) break;
          roots.push(r);
          trees.push(inner);
        }
      }
    }
    if (count <= exact) {
      if (!roots.length) s += root.outerHTML;
      else s += start(root) + root.getHTML({ shadowRoots: roots }) + "</" + qname(root) + ">";
      return { url: location.href, html: s.length > max ? s.slice(0, max + 1) : s };
    }
  }
  const out = [s];
  let n = s.length;
  const push = (t) => { out.push(t); n += t.length; };
  const voids = new Set(["area","base","basefont","bgsound","br","col","embed","frame","hr","img","input","keygen","link","meta","param","source","track","wbr"]);
  const raw = new Set(["style","script","xmp","iframe","noembed","noframes","plaintext","noscript"]);
  const text = (t) => t.replace(/&/g, "&amp;").replace(/\u00a0/g, "&nbsp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  // The start tag of a shadow root's template, with the attributes
  // Chromium's getHTML writes, in its order.
  const reg = window.customElements;
  const shadow = (r) => '<template shadowrootmode="' + r.mode + '"' +
    (r.delegatesFocus ? ' shadowrootdelegatesfocus=""' : "") +
    (r.serializable ? ' shadowrootserializable=""' : "") +
    (r.slotAssignment === "manual" ? ' shadowrootslotassignment="manual"' : "") +
    (r.clonable ? ' shadowrootclonable=""' : "") +
    ("customElementRegistry" in r && r.customElementRegistry !== reg ? ' shadowrootcustomelementregistry=""' : "") + ">";
  const stack = [root];
  while (stack.length && n <= max) {
    const x = stack.pop();
    if (typeof x === "string") { push(x); continue; }
    switch (x.nodeType) {
    case 1: {
      const name = qname(x);
      push(start(x));
      if (voids.has(name) && x.namespaceURI === "http://www.w3.org/1999/xhtml") break;
      stack.push("</" + name + ">");
      const kids = (x.localName === "template" && x.content) ? x.content.childNodes : x.childNodes;
      for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]);
      // Elements of a template's content belong to its inert document.
      const r = x.shadowRoot;
      if (r && x.ownerDocument === d) {
        stack.push("</template>");
        for (let i = r.childNodes.length - 1; i >= 0; i--) stack.push(r.childNodes[i]);
        stack.push(shadow(r));
      }
      break;
    }
    case 3: {
      const p = x.parentNode;
      push(p && p.nodeType === 1 && raw.has(p.localName) ? x.data : text(x.data));
      break;
    }
    case 4: push("<![CDATA[" + x.data + "]]>"); break;
    case 7: push("<?" + x.target + " " + x.data + ">"); break;
    case 8: push("<!--" + x.data + "-->"); break;
    }
  }
  s = out.join("");
  return { url: location.href, html: s.length > max ? s.slice(0, max + 1) : s };
  }
})`

// domExact is the number of elements, those of open shadow trees
// included, up to which the browser's own serialisation reads the document
// (a variable for the tests, which compare both readings).
var domExact = 100000

type domResult struct {
	URL             string            `json:"url"`
	HTML            string            `json:"html"`
	Listeners       *render.Listeners `json:"listeners"`
	ListenersReason string            `json:"listenersReason"`
}

// render runs one rendering in a tab of b: a warm one, reset after its
// last rendering, or a new one. The tab is reset for the next rendering
// before render returns; when it cannot be, closing closes it, and the
// caller runs it once it has handed out the Result.
func (p *Pool) render(ctx context.Context, b *browser, in *render.Request) (*render.Result, func(), error) {
	req := withDefaults(in)
	dev := devices[req.Device]
	ua := req.UserAgent
	if ua == "" {
		ua = dev.ua
	}
	tb, err := p.takeTab(ctx, b)
	if err != nil {
		return nil, nil, p.ctxErr(ctx, fmt.Errorf("render: opening a tab: %w", err))
	}
	tb.uses++
	s, res, err := p.renderIn(ctx, b, tb, req, dev, ua)
	if err == nil && !res.TimedOut && ctx.Err() == nil && tb.reset(tb.ctx, s) == nil {
		p.putTab(b, tb, true)
		return res, nil, nil
	}
	return res, func() { p.putTab(b, tb, false) }, err
}

// renderIn renders req in tb, a tab of b.
func (p *Pool) renderIn(ctx context.Context, b *browser, tb *tab, req *render.Request, dev device, ua string) (*session, *render.Result, error) {
	prx := tb.prx
	prx.reset(req.MaxBytes + req.MaxBytes/4 + (1 << 20))
	s := newSession(req, prx)
	s.res.URL = req.URL
	s.res.Device = req.Device
	s.res.UserAgent = ua
	s.res.Viewport = render.Size{Width: int(dev.width), Height: int(dev.height)}

	// runCtx bounds every command: preparing the tab, then the page's
	// budget (req.Timeout, from the navigation on) and the grace to stop
	// the page and read it.
	// The accessibility audit has a time of its own after the page's.
	total := prepare + req.Timeout + grace
	if req.A11y {
		total += A11yWait
	}
	runCtx, cancelRun := context.WithTimeout(tb.ctx, total)
	defer cancelRun()
	stopCaller := context.AfterFunc(ctx, cancelRun)
	defer stopCaller()
	// The end of the page's renderer process ends every command.
	runCtx, s.abort = context.WithCancel(runCtx)
	defer s.abort()
	// fail prefers the crash of the page's renderer, which explains the
	// other errors.
	fail := func(err error) error {
		if cerr := s.crashErr(b); cerr != nil && ctx.Err() == nil {
			return cerr
		}
		return err
	}

	c := tb.c
	t := c.Target
	tb.begin(s)
	defer tb.end()

	var wg sync.WaitGroup
	workCtx, stopWork := context.WithCancel(runCtx)
	wg.Add(1)
	go func() {
		defer wg.Done()
		s.work(workCtx, c.Browser, t)
	}()
	defer func() {
		stopWork()
		wg.Wait()
	}()

	if err := chromedp.ListenBrowser(workCtx, func(ev any) {
		switch ev := ev.(type) {
		case *target.EventTargetCreated:
			if ev.TargetInfo != nil && ev.TargetInfo.BrowserContextID == c.BrowserContextID && ev.TargetInfo.TargetID != t.TargetID {
				s.mu.Lock()
				s.enqueue(ev)
				s.mu.Unlock()
			}
		case *target.EventTargetCrashed:
			if ev.TargetID == t.TargetID {
				s.mu.Lock()
				s.noteCrash(ev.Status)
				s.mu.Unlock()
			}
		}
	}); err != nil {
		return nil, nil, p.ctxErr(ctx, fmt.Errorf("render: preparing the tab: %w", err))
	}
	s.mu.Lock()
	s.mainFrame = cdp.FrameID(t.TargetID) // Chrome names a page's main frame after its target
	s.mu.Unlock()
	if err := tb.emulate(runCtx, req.Device, dev, ua); err != nil {
		return nil, nil, p.ctxErr(ctx, fmt.Errorf("render: preparing the tab: %w", err))
	}
	p.prepareA11y(runCtx, tb, req.A11y)
	budget, cancelBudget := context.WithTimeout(runCtx, req.Timeout)
	defer cancelBudget()
	// end bounds the rendering once the budget is spent: stopping the
	// page, its vitals and its DOM get the grace, whatever the page does.
	end, cancelEnd := context.WithTimeout(runCtx, req.Timeout+grace)
	defer cancelEnd()
	nav, err := cdp.Call(budget, t, page.Navigate, page.NavigateParams{URL: req.URL})
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		if cerr := s.crashErr(b); cerr != nil {
			return nil, nil, cerr
		}
		if budget.Err() != nil {
			return nil, nil, fmt.Errorf("render: %s: no response to the document within %s", seo.Clip(req.URL), req.Timeout)
		}
		return nil, nil, p.ctxErr(ctx, fmt.Errorf("render: navigating to %s: %w", seo.Clip(req.URL), err))
	}
	if nav.ErrorText != "" {
		return nil, nil, fail(s.navError(nav.ErrorText))
	}
	s.mu.Lock()
	if s.mainFrame == "" {
		s.mainFrame = nav.FrameID
	}
	s.mu.Unlock()

	if !s.wait(budget, t) && ctx.Err() == nil {
		if err := s.crashErr(b); err != nil {
			return nil, nil, err
		}
		s.res.TimedOut = true
		_, _ = cdp.Call(end, t, page.StopLoading, cdp.Empty{})
	}
	if ctx.Err() != nil {
		return nil, nil, ctx.Err()
	}
	var listen *listenParams
	if s.res.TimedOut {
		s.res.VitalsReason = "not read: the rendering budget ended before the page settled"
		s.res.ListenersReason = "not read: the rendering budget ended before the page settled"
	} else {
		p.afterSettle(end, s)
		if listen, err = newListenParams(); err != nil {
			s.res.ListenersReason = "not read: " + err.Error()
		}
	}
	dom, err := s.readDOM(end, t, listen)
	if err != nil {
		if end.Err() != nil && runCtx.Err() == nil && ctx.Err() == nil {
			err = fmt.Errorf("not read within %s after the budget of %s", grace, req.Timeout)
		}
		return nil, nil, fail(p.ctxErr(ctx, fmt.Errorf("render: reading the DOM of %s: %w", seo.Clip(req.URL), err)))
	}
	if err := s.crashErr(b); err != nil {
		return nil, nil, err
	}
	if strings.HasPrefix(dom.URL, "chrome-error:") {
		// The page navigated itself somewhere that could not be loaded (a
		// refused address, say): what is left is the browser's error page,
		// not the site's.
		return nil, nil, s.navError("the page navigated to a document that could not be loaded")
	}
	html := dom.HTML
	if len(html) > seo.DefaultMaxBodyBytes {
		i := seo.DefaultMaxBodyBytes
		for i > 0 && !utf8.RuneStart(html[i]) {
			i--
		}
		html = html[:i]
		s.mu.Lock()
		s.truncated["html"] = true
		s.mu.Unlock()
	}
	s.res.HTML = []byte(html)
	s.res.FinalURL = dom.URL
	if listen != nil {
		// readDOM may have dropped the reading, with its reason.
		if dom.Listeners != nil || dom.ListenersReason != "" {
			s.res.Listeners, s.res.ListenersReason = dom.Listeners, clip(dom.ListenersReason)
		}
		if s.res.Listeners != nil {
			s.res.Listeners.Mark = listen.Mark
		} else if s.res.ListenersReason == "" {
			s.res.ListenersReason = "not read"
		}
	}
	if req.Screenshot != render.NoShot {
		// The screenshots share the grace: the answer comes within the
		// budget and the grace whatever the page does.
		if err := takeScreenshots(end, req.Screenshot, &s.res); err != nil {
			if ctx.Err() != nil {
				return nil, nil, ctx.Err()
			}
			if end.Err() != nil && runCtx.Err() == nil {
				err = fmt.Errorf("not taken within %s after the budget of %s", grace, req.Timeout)
			}
			s.res.ScreenshotReason = seo.Clip(err.Error())
		}
	}
	if req.A11y {
		// After the DOM and the screenshots, so that neither sees what the
		// audit may touch (axe scrolls and restores the scroll position).
		if s.res.TimedOut {
			s.res.A11yReason = "not checked: the rendering budget ended before the page settled"
		} else {
			p.audit(runCtx, t, s)
			if ctx.Err() != nil {
				return nil, nil, ctx.Err()
			}
			if err := s.crashErr(b); err != nil {
				if b.dead() {
					return nil, nil, err // the browser went with it
				}
				// The page's renderer ended during the audit (axe-core's
				// memory took it over the limit), after the DOM and the
				// screenshots were read: the rendering stands, without
				// its audit, and the tab is not reused.
				s.res.A11y = nil
				s.res.A11yReason = "not checked: the page's renderer process ended during the audit"
				if errors.Is(err, render.ErrMemoryLimit) {
					s.res.A11yReason = "not checked: the audit took the page over the renderer's memory limit"
				}
				s.mu.Lock()
				s.noReuse = true
				s.mu.Unlock()
			}
		}
	}
	return s, s.result(), nil
}

// afterSettle reads the vitals once the page settled.
func (p *Pool) afterSettle(ctx context.Context, s *session) {
	v, reason, err := readVitals(ctx)
	if err != nil && reason == "" {
		reason = "vitals could not be read: " + err.Error()
	}
	s.res.Vitals, s.res.VitalsReason = v, reason
	if v == nil && s.res.VitalsReason == "" {
		s.res.VitalsReason = "not measured"
	}
}

// domWait is how long reading the DOM waits for the page's main thread to
// answer before the running script is terminated.
const domWait = time.Second

// readDOM serialises the document. A script that keeps the main thread busy
// (an endless loop) is terminated first: a tiny evaluation tells whether
// the thread answers, so that a long serialisation is never mistaken for
// the page's script.
//
// With listen, the listeners of the anchors are read in the same
// evaluation (it needs the DevTools command line API); a page whose thread
// had to be stopped is serialised without them.
func (s *session) readDOM(ctx context.Context, t *chromedp.Target, listen *listenParams) (domResult, error) {
	short, cancel := context.WithTimeout(ctx, domWait)
	_, err := chromedp.Run(short, chromedp.Evaluate[int]("1"))
	cancel()
	if err != nil && ctx.Err() == nil {
		_, _ = cdp.Call(ctx, t, runtime.TerminateExecution, cdp.Empty{})
		if listen != nil {
			listen = nil
			s.res.ListenersReason = "not read: the page's script did not yield its thread"
		}
	}
	args := strconv.Itoa(seo.DefaultMaxBodyBytes) + `,` + strconv.Itoa(domExact)
	if listen == nil {
		return chromedp.Run(ctx, chromedp.Evaluate[domResult](`(`+domScript+`)(`+args+`,null)`))
	}
	js, err := json.Marshal(listen)
	if err != nil {
		return domResult{}, err
	}
	return chromedp.Run(ctx, chromedp.Evaluate[domResult](`(`+domScript+`)(`+args+`,`+string(js)+`)`, chromedp.EvalWithCommandLineAPI))
}

// ctxErr prefers the caller's context error, then a closed pool.
func (p *Pool) ctxErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if p.isClosed() {
		return fmt.Errorf("%w: the pool is closed", render.ErrUnavailable)
	}
	return err
}

// navError explains a failed navigation, naming the refusal of an address
// when the proxy refused the document or one of its redirects.
func (s *session) navError(text string) error {
	s.mu.Lock()
	docURL := s.docURL
	s.mu.Unlock()
	if docURL == "" {
		docURL = s.req.URL
	}
	if f, ok := s.prx.failed(hostPort(docURL)); ok {
		if f.forbidden {
			return fmt.Errorf("render: %s: %w: %s", seo.Clip(docURL), seo.ErrForbiddenAddress, f.reason)
		}
		return fmt.Errorf("render: %s: cannot connect: %s", seo.Clip(docURL), f.reason)
	}
	return fmt.Errorf("render: %s: navigation failed: %s", seo.Clip(docURL), text)
}

// wait waits for the load event and network idle, then the settle delay;
// false when the budget ended first. A page proven quiet (quietScript)
// ends the wait early: once the load event fired and no request has been
// in flight for quietMin, the page is asked at most every quietEvery, each
// question bounded by the time the fixed windows have left, so the wait
// never ends later than they would.
func (s *session) wait(budget context.Context, t *chromedp.Target) bool {
	tick := time.NewTicker(25 * time.Millisecond)
	defer tick.Stop()
	var settleEnd, asked time.Time // settleEnd: zero until the network is idle
	for {
		now := time.Now()
		s.mu.Lock()
		still := s.loaded && s.inflight <= 0
		busy := s.lastBusy
		s.mu.Unlock()
		if settleEnd.IsZero() && still && now.Sub(busy) >= s.req.Idle {
			if s.req.Settle <= 0 {
				return true
			}
			settleEnd = now.Add(s.req.Settle)
		}
		if !settleEnd.IsZero() && !now.Before(settleEnd) {
			return true
		}
		end := settleEnd
		if end.IsZero() {
			end = busy.Add(s.req.Idle + max(s.req.Settle, 0))
		}
		if (still || !settleEnd.IsZero()) && now.Sub(busy) >= quietMin && now.Sub(asked) >= quietEvery && end.Sub(now) > quietEvery {
			asked = now
			ctx, cancel := context.WithDeadline(budget, end)
			ok := quiet(ctx, t, end.Sub(now))
			cancel()
			if ok {
				// A request the page started before it answered is
				// known by now: the answer came after its event.
				s.mu.Lock()
				ok = s.inflight <= 0 && s.lastBusy.Equal(busy)
				s.mu.Unlock()
			}
			if ok {
				return true
			}
			if budget.Err() != nil {
				return false
			}
		}
		select {
		case <-budget.Done():
			return false
		case <-tick.C:
		}
	}
}

// result finishes the Result: requests still open, weights, budgets.
func (s *session) result() *render.Result {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range s.reqs {
		if !e.done && e.idx >= 0 {
			r := &s.res.Resources[e.idx]
			if e.ws && r.Status != 0 {
				continue
			}
			if reason, ok := s.prx.refusal(hostPort(e.url)); ok {
				r.Outcome, r.Error = render.OutcomeAddress, reason
			} else if e.refus != "" {
				r.Outcome, r.Error = e.refus, e.err
			} else if e.ws {
				r.Outcome, r.Error = render.OutcomeFailed, "no handshake"
			} else {
				r.Error = "unfinished"
			}
		}
	}
	for _, typ := range s.order {
		s.res.Weight = append(s.res.Weight, *s.weights[typ])
	}
	for _, k := range []string{"bytes", "requests", "html"} {
		if s.truncated[k] {
			s.res.Truncated = append(s.res.Truncated, k)
		}
	}
	s.done = true
	s.res.ElapsedMs = time.Since(s.start).Milliseconds()
	if s.res.FinalURL == "" {
		s.res.FinalURL = s.res.URL
	}
	res := s.res
	return &res
}

var _ render.Renderer = (*Pool)(nil)

// unquote decodes a JSON string.
func unquote(v string) (string, error) {
	var s string
	err := json.Unmarshal([]byte(v), &s)
	return s, err
}
