// Package chromium renders pages with a pool of headless Chromium processes,
// driven through the DevTools protocol by chromedp. [Pool] implements
// render.Renderer.
//
// Each tab has a browser context of its own (cookies, storage, cache) and is
// kept warm between renderings, which costs far less CPU than a new browser
// context, window and renderer process per page. After each rendering the
// tab is reset so that no state passes from one page to the next: the page
// is replaced by about:blank, history reset, cookies cleared, and every kind
// of storage of the page's origin cleared (local and session storage,
// IndexedDB, Cache Storage, service worker registrations), window.name
// emptied and the HTTP cache, which pages never read, cleared. A tab that
// cannot be reset for sure (a failed, timed-out or cancelled rendering,
// documents of more than one origin, an HSTS header) is closed and a fresh
// one opened. Service workers are bypassed, JavaScript dialogs dismissed,
// downloads refused and new windows suppressed; each rendering has the
// device profile of its Request (render.Mobile by default: 412×915 at
// 2.625, touch, seo.MobileUserAgent).
//
// The browser is the first of ExecNames found: Debian's
// chromium-headless-shell when installed (the same engine without the
// window UI, at about half the CPU per page), else chromium.
//
// The browser obeys seokit's address policy: its only way out is a proxy on
// 127.0.0.1 that dials every connection (navigations, redirect hops,
// subresources, fetch/XHR, WebSockets) with the dialer of the pool's
// seo.Fetcher, which resolves the host and checks the address at dial time,
// so loopback, private, link-local and metadata addresses are refused,
// directly, by redirect or by DNS rebinding. Loopback is not bypassed
// (--proxy-bypass-list=<-loopback>), the browser resolves no names itself,
// and DNS over HTTPS, QUIC and non-proxied WebRTC UDP are off. Site
// isolation is turned off so that the requests of cross-site frames are
// intercepted too: budgets and robots.txt apply to them as well.
//
// Requests are intercepted before they are sent: those beyond the request
// or byte budget, subresources robots.txt disallows (Request.Allowed) and
// schemes other than http, https, data: and blob: are refused, and every
// request is reported as a render.Resource with its outcome.
//
// A rendering waits for the load event and network idle (no request in
// flight for Request.Idle), then Request.Settle; when Request.Timeout ends
// it first, the page is stopped and its DOM taken as it is (TimedOut). A
// page proven quiet ends the wait before those windows: nothing it
// scheduled (timers, frame and idle callbacks, requests, body reads, script
// and style loads, the browser's asynchronous APIs) can run before they
// end, its network and DOM have been still for 100 ms and its first
// contentful paint is in (quiet.go); a page using what is not followed
// (workers, sockets, frames, IndexedDB, running animations) waits them out.
// The DOM is read within the budget and a grace of 5 s, whatever the page
// does (a busy main thread is interrupted; a document of more than 100,000
// elements, those of its shadow trees included, is serialised by a walk
// capped at seo.DefaultMaxBodyBytes). Open shadow roots are serialised as
// declarative shadow DOM (<template shadowrootmode="open"> first in the
// host, its light children after it), since Google flattens shadow and
// light DOM when it renders; closed ones are out of the page's reach and
// are not read.
//
// Before the DOM of a settled page is serialised, the event listeners of
// its <a> elements without href are read (the browser's own record, as
// DevTools' getEventListeners and DOMDebugger.getEventListeners give it,
// listeners added by script included), at most MaxListenerAnchors of them
// within ListenerTime, in the same evaluation as the serialisation: those
// with a click-type listener are serialised with render.ClickAttr, and the
// live page keeps its attributes as they were. render.Result.Listeners
// counts what was read and names the cap that ended it early.
// Browsers are restarted after Options.RecycleAfter renderings, when their
// process tree grows beyond Options.MaxBrowserMemory, or when they crash.
//
// Each rendering runs under a memory and CPU envelope, enforced while the
// page runs: a watchdog samples the memory of the browser's process tree
// and kills a renderer process past Options.MaxRenderMemory (the V8 heap
// is capped at the same size), the largest renderers when the tree nears
// Options.MaxBrowserMemory, or the browser when its own processes exceed
// it; the pages stopped so end as render.ErrMemoryLimit. The browsers run
// in a process group of their own at nice Options.Nice. The renderers run
// in Chromium's sandbox; a server running as root runs its browsers as
// user nobody, since Chromium keeps its sandbox only for an unprivileged
// user, unless Options.NoSandbox (see Pool.Sandbox).
package chromium
