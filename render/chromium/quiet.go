package chromium

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// A rendering waits for a quiet network (Request.Idle) and then
// Request.Settle, 500 ms by default after the last network activity: the
// fixed windows catch data fetched in a chain and timers that fire soon.
// Most pages are done long before: their scripts ran, nothing is pending,
// and nothing can change the document any more. quietScript lets the
// rendering end early for such a page, proven quiet rather than guessed:
// it follows, in the top document, every way a script schedules work that
// the fixed windows would have waited for, and the rendering ends once none
// is pending that could run before the windows end, the network (followed
// by the tab's events) and the DOM have been still for quietMin, the
// browser drew two frames after the last change to the DOM, and the first
// contentful paint is reported (or the page has nothing to paint), so that
// the paint, layout shift and LCP figures are in. A page that uses what
// the script does not follow (workers, sockets, frames, IndexedDB, string
// timers, running animations, a streamed body, more than 200,000 added
// elements) is never proven quiet: it waits the fixed windows, as before.
// The early end never comes later than the fixed windows would have ended.
//
// What is followed: timers (setTimeout and setInterval, with their due
// time), animation frame and idle callbacks, fetch and the reading of its
// responses' bodies, XMLHttpRequest and FileReader, the promises of the
// browser's asynchronous APIs (Cache Storage, Web Crypto, fonts,
// WebAssembly compilation, image decoding, blobs, storage, permissions,
// clipboard, cookie store), the load of scripts and style sheets added to
// the document, postMessage (its delivery takes a task: a message posted
// within quietMin counts as activity), and mutations of the DOM. Whatever
// else a page awaits and then writes to the DOM (IndexedDB is not
// followed at all) is caught when it comes within quietMin of the last
// activity, as the fixed windows catch it within 500 ms.
const quietScript = `(() => {
  if (window !== window.top) return;
  if (Object.prototype.hasOwnProperty.call(window, '__seokitQuiet')) return;
  const W = window, perf = W.performance, now = perf.now.bind(perf);
  const raf = W.requestAnimationFrame;
  let untracked = "";          // what the page used that is not followed
  let pending = 0;             // fetches, body reads, XHRs, script and style loads
  const timers = new Map();    // timeout id -> due time; interval id -> [start, delay]
  const frames = new Set();    // the page's animation frame callbacks
  const idles = new Set();     // the page's idle callbacks
  let changed = 0;             // time of the last DOM mutation or message
  let drawn = 2;               // frames drawn since the last mutation
  const untrack = (what) => { if (!untracked) untracked = what; };
  const wrap = (obj, name, make) => {
    try {
      const f = obj && obj[name];
      if (typeof f === 'function') obj[name] = make(f);
    } catch (e) { untrack('wrap ' + name); }
  };
  const done = () => { pending--; };
  const ms = (d) => Math.max(0, Number(d) || 0);
  // note records a timer; past maxTimers pending ones the page is not
  // followed (the check walks them).
  const note = (id, due) => { if (timers.size < 10000) timers.set(id, due); else untrack('too many timers'); };

  wrap(W, 'setTimeout', (f) => function setTimeout(fn, delay, ...args) {
    if (typeof fn !== 'function') { untrack('a string timer'); return f.apply(W, arguments); }
    let id = 0;
    id = f.call(W, function () { timers.delete(id); return fn.apply(this, arguments); }, delay, ...args);
    note(id, now() + ms(delay));
    return id;
  });
  wrap(W, 'setInterval', (f) => function setInterval(fn, delay, ...args) {
    if (typeof fn !== 'function') { untrack('a string timer'); return f.apply(W, arguments); }
    const id = f.call(W, fn, delay, ...args);
    note(id, [now(), Math.max(ms(delay), 1)]);
    return id;
  });
  const clear = (f) => function (id) { timers.delete(id); return f.apply(W, arguments); };
  wrap(W, 'clearTimeout', clear);
  wrap(W, 'clearInterval', clear);
  wrap(W, 'requestAnimationFrame', (f) => function requestAnimationFrame(fn) {
    let id = 0;
    id = f.call(W, function () { frames.delete(id); return fn.apply(this, arguments); });
    frames.add(id);
    return id;
  });
  wrap(W, 'cancelAnimationFrame', (f) => function cancelAnimationFrame(id) { frames.delete(id); return f.apply(W, arguments); });
  wrap(W, 'requestIdleCallback', (f) => function requestIdleCallback(fn, opts) {
    let id = 0;
    id = f.call(W, function () { idles.delete(id); return fn.apply(this, arguments); }, opts);
    idles.add(id);
    return id;
  });
  wrap(W, 'cancelIdleCallback', (f) => function cancelIdleCallback(id) { idles.delete(id); return f.apply(W, arguments); });
  const promised = (f) => function () {
    pending++;
    let p;
    try { p = f.apply(this, arguments); } catch (e) { pending--; throw e; }
    if (p && typeof p.then === 'function') p.then(done, done); else pending--;
    return p;
  };
  wrap(W, 'fetch', promised);
  if (W.Response) {
    for (const m of ['arrayBuffer', 'blob', 'bytes', 'formData', 'json', 'text']) wrap(W.Response.prototype, m, promised);
    try {
      const d = Object.getOwnPropertyDescriptor(W.Response.prototype, 'body');
      if (d && d.get) Object.defineProperty(W.Response.prototype, 'body', { configurable: true, enumerable: d.enumerable,
        get() { untrack('a streamed body'); return d.get.call(this); } });
    } catch (e) { untrack('wrap body'); }
  }
  // Other promises the browser settles later (storage, crypto, fonts,
  // WebAssembly compilation, image decoding, blobs) are pending until they
  // settle; IndexedDB, whose requests end in events, is not followed.
  const protos = [['CacheStorage', ['delete', 'has', 'keys', 'match', 'open']],
    ['Cache', ['add', 'addAll', 'delete', 'keys', 'match', 'matchAll', 'put']],
    ['SubtleCrypto', ['decrypt', 'deriveBits', 'deriveKey', 'digest', 'encrypt', 'exportKey', 'generateKey', 'importKey', 'sign', 'unwrapKey', 'verify', 'wrapKey']],
    ['FontFace', ['load']], ['FontFaceSet', ['load']], ['Blob', ['arrayBuffer', 'bytes', 'text']],
    ['HTMLImageElement', ['decode']], ['StorageManager', ['estimate', 'persist', 'persisted', 'getDirectory']],
    ['Permissions', ['query']], ['Clipboard', ['read', 'readText', 'write', 'writeText']], ['CookieStore', ['delete', 'get', 'getAll', 'set']]];
  for (const [c, ms] of protos) {
    if (W[c] && W[c].prototype) for (const m of ms) wrap(W[c].prototype, m, promised);
  }
  if (W.WebAssembly) for (const m of ['compile', 'compileStreaming', 'instantiate', 'instantiateStreaming']) wrap(W.WebAssembly, m, promised);
  wrap(W, 'createImageBitmap', promised);
  if (W.IDBFactory) for (const m of ['open', 'deleteDatabase', 'databases']) {
    wrap(W.IDBFactory.prototype, m, (f) => function () { untrack('IndexedDB'); return f.apply(this, arguments); });
  }
  if (W.FileReader) for (const m of ['readAsArrayBuffer', 'readAsBinaryString', 'readAsDataURL', 'readAsText']) {
    wrap(W.FileReader.prototype, m, (f) => function () {
      pending++;
      this.addEventListener('loadend', done, { once: true });
      try { return f.apply(this, arguments); } catch (e) { pending--; throw e; }
    });
  }
  if (W.XMLHttpRequest) wrap(W.XMLHttpRequest.prototype, 'send', (f) => function send() {
    pending++;
    this.addEventListener('loadend', done, { once: true });
    try { return f.apply(this, arguments); } catch (e) { pending--; throw e; }
  });
  const posted = (f) => function postMessage() { changed = now(); return f.apply(this, arguments); };
  wrap(W, 'postMessage', posted);
  if (W.MessagePort) wrap(W.MessagePort.prototype, 'postMessage', posted);
  for (const name of ['Worker', 'SharedWorker', 'WebSocket', 'EventSource', 'RTCPeerConnection', 'BroadcastChannel', 'WebTransport']) {
    wrap(W, name, (C) => new Proxy(C, { construct(t, args, nt) { untrack('a ' + name); return Reflect.construct(t, args, nt); } }));
  }
  const watched = new WeakSet();
  const js = /^(|module|(text|application)\/(x-)?(java|ecma)script)$/i;
  const watch = (el) => {
    const tag = el.localName;
    let load = false;
    if (tag === 'script') load = el.hasAttribute('src') && !el.noModule && js.test((el.getAttribute('type') || '').trim());
    else if (tag === 'link') load = /(^|\s)stylesheet(\s|$)/i.test(el.rel || '') && el.hasAttribute('href') && !el.sheet;
    else if (tag === 'iframe' || tag === 'frame' || tag === 'object' || tag === 'embed' || tag === 'video' || tag === 'audio') untrack('a ' + tag);
    if (!load || watched.has(el)) return;
    watched.add(el);
    pending++;
    let once = false;
    const end = () => { if (!once) { once = true; pending--; } };
    el.addEventListener('load', end, { once: true });
    el.addEventListener('error', end, { once: true });
  };
  // The elements added are walked within a budget: a page that adds (or
  // moves) more is not followed, so that following costs no more than the
  // budget whatever the page does.
  let budget = BUDGET;
  const walker = document.createTreeWalker.bind(document);
  const scan = (root) => {
    if (--budget < 0) return false;
    watch(root);
    if (!root.firstElementChild) return true;
    const w = walker(root, 1);
    while (w.nextNode()) {
      if (--budget < 0) return false;
      watch(w.currentNode);
    }
    return true;
  };
  const mo = new MutationObserver((records) => {
    changed = now();
    drawn = 0;
    for (const r of records) {
      for (const n of r.addedNodes) {
        if (n.nodeType === 1 && !scan(n)) {
          untrack('too many elements added');
          mo.disconnect();
          return;
        }
      }
    }
    raf.call(W, () => { drawn++; raf.call(W, () => { drawn++; }); });
  });
  mo.observe(document, { childList: true, subtree: true, attributes: true, characterData: true });
  // painted tells whether the first contentful paint is in, or cannot
  // come: the body holds no text and no image, SVG, canvas or video (the
  // text of its scripts counts, so such a page waits for a paint or its
  // windows).
  const painted = () => {
    if (perf.getEntriesByType('paint').some((e) => e.name === 'first-contentful-paint')) return true;
    const b = document.body;
    return !b || !(/\S/.test(b.textContent) || b.querySelector('img,svg,canvas,video,input[type=image]'));
  };
  // __seokitQuiet(within, still) is true when nothing the page scheduled
  // can run within the next 'within' ms and the DOM has been still for
  // 'still' ms with two frames drawn since; else the reason, a string.
  Object.defineProperty(W, '__seokitQuiet', { enumerable: false, configurable: false, writable: false, value: (within, still) => {
    if (untracked) return 'the page uses ' + untracked;
    if (document.readyState !== 'complete') return 'loading';
    if (pending > 0) return 'requests or loads pending';
    if (frames.size > 0 || idles.size > 0) return 'frame or idle callbacks pending';
    const t = now();
    if (t - changed < still || drawn < 2) return 'the DOM changed';
    if (!painted()) return 'not painted yet';
    for (const v of timers.values()) {
      const due = Array.isArray(v) ? v[0] + v[1] * Math.max(1, Math.ceil((t - v[0]) / v[1])) : v;
      if (due <= t + within) return 'a timer is due';
    }
    try {
      if (W.frames.length > 0) return 'the page has frames';
      if (document.getAnimations && document.getAnimations().some((a) => a.playState === 'running' || a.pending)) return 'animations run';
    } catch (e) { return 'not readable'; }
    return true;
  } });
})();`

// quietBudget is the number of added elements the quiet script follows in
// a document (a variable for the tests, which add more than it cheaply).
var quietBudget = 200000

// quietSource is quietScript with its budget.
func quietSource() string {
	return strings.Replace(quietScript, "BUDGET", strconv.Itoa(quietBudget), 1)
}

// quietMin is how long the network and the DOM must have been still before
// a page can be proven quiet, and quietEvery how often at most the page is
// asked.
const (
	quietMin   = 100 * time.Millisecond
	quietEvery = 50 * time.Millisecond
)

// quiet asks the page whether it is quiet (see quietScript): nothing it
// scheduled runs within the next within. The question is bounded by ctx;
// any error or answer other than true is false. The answer comes on the
// tab's connection after every event the page sent before it, so a request
// the page started before it answered is known to the session by then.
func quiet(ctx context.Context, t *chromedp.Target, within time.Duration) bool {
	expr := `typeof window.__seokitQuiet === "function" ? window.__seokitQuiet(` +
		strconv.FormatInt(within.Milliseconds(), 10) + `,` + strconv.FormatInt(quietMin.Milliseconds(), 10) + `) : "no script"`
	byValue := true
	r, err := cdp.Call(ctx, t, runtime.Evaluate, runtime.EvaluateParams{Expression: expr, ReturnByValue: &byValue})
	if err != nil || r.ExceptionDetails != nil || r.Result == nil {
		return false
	}
	var ok bool
	return json.Unmarshal(r.Result.Value, &ok) == nil && ok
}
