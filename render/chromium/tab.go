package chromium

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/css"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/domstorage"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/storage"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/seokit/seokit/render"
)

// A tab is a page in a browser context of its own (its cookies, storage,
// cache and proxy), kept warm between renderings: opening a browser context
// and a window, starting a renderer process and attaching to the page cost
// more CPU than rendering a small page. After each rendering the tab is
// reset, or closed when it cannot be reset for sure:
//
//   - the page is replaced by about:blank (its scripts, timers, workers,
//     connections and pending requests end; the back/forward cache is off)
//     and the tab's history is reset;
//   - the cookies of the browser context are cleared, and every kind of
//     storage of each origin that had a document in the page: local and
//     session storage, IndexedDB, Cache Storage, file systems, service
//     worker registrations (which are refused anyway);
//   - window.name is emptied; the HTTP cache is never read (it is disabled
//     for the page) and cleared.
//
// history.length is the one trace left: it counts the blank page that
// replaced the last page (2 on the next page, whatever the last one did).
//
// A tab is closed instead of reused after a rendering that failed, timed out
// or was cancelled, that loaded documents of more than one origin (a frame
// of another origin has session storage out of reach, and a cross-site
// frame's storage is partitioned), that received a Strict-Transport-Security
// header (HSTS state outlives the page), or after maxTabUses renderings.
type tab struct {
	ctx    context.Context // the tab's chromedp context
	cancel context.CancelFunc
	c      *chromedp.Context
	prx    *proxy
	uses   int
	dev    render.Device // the emulation in place; "" before the first rendering
	ua     string
	// axeScript identifies the script that defines axe-core in the tab's
	// documents (prepareA11y); "" when there is none.
	axeScript page.ScriptIdentifier

	mu    sync.Mutex
	cur   *session              // the rendering under way; nil between renderings
	loads map[cdp.LoaderID]bool // main-frame loads seen between renderings
	load  chan struct{}         // signalled on such a load
}

// maxTabUses is the number of renderings after which a tab is closed and
// a fresh one opened; the browser's own recycling (Options.RecycleAfter)
// usually comes first.
const maxTabUses = 200

// resetWait bounds the reset of a tab between renderings.
const resetWait = 10 * time.Second

// listen is the tab's event handler: the events go to the rendering under
// way; between renderings only the loads of the main frame are noted.
func (tb *tab) listen(ev any) {
	tb.mu.Lock()
	s := tb.cur
	if s == nil {
		if ev, ok := ev.(*page.EventLifecycleEvent); ok && ev.Name == "load" && tb.loads != nil && len(tb.loads) < 16 {
			tb.loads[ev.LoaderID] = true
			select {
			case tb.load <- struct{}{}:
			default:
			}
		}
	}
	tb.mu.Unlock()
	if s != nil {
		s.listen(ev)
	}
}

// begin routes the tab's events to s; end stops it.
func (tb *tab) begin(s *session) {
	tb.mu.Lock()
	tb.cur = s
	tb.mu.Unlock()
}

func (tb *tab) end() {
	tb.mu.Lock()
	tb.cur = nil
	tb.mu.Unlock()
}

// openTab opens a tab in a new browser context of b and prepares it: request
// interception, no service workers, no cache, no downloads, the setup,
// quiet (quietScript) and vitals scripts in every document but the blank
// page of a reset (blankGuard). It also turns off the DOM and CSS
// tracking that chromedp enables on every tab (the rendering reads the
// document with one script): without it the renderer reports no DOM
// mutations or style sheets, which costs CPU on every page. Likewise the
// network events keep no copy of the response bodies (nothing reads them:
// the rendering reads the DOM), and the tab's session is not told of every
// target of the browser (chromedp's target discovery: each navigation of
// any tab was sent to every tab; new windows of the page are caught on the
// browser's session). The commands are independent, so they are sent at
// once rather than one round trip after the other.
func (p *Pool) openTab(ctx context.Context, b *browser) (*tab, error) {
	prx, err := startProxy(p.dial, 0)
	if err != nil {
		return nil, fmt.Errorf("starting the proxy: %w", err)
	}
	tb := &tab{prx: prx, load: make(chan struct{}, 1)}
	tctx, cancel := chromedp.NewContext(b.ctx,
		chromedp.WithNewBrowserContext(func(cp *target.CreateBrowserContextParams) {
			cp.ProxyServer = prx.URL()
			cp.ProxyBypassList = "<-loopback>"
		}),
		chromedp.WithListener(tb.listen))
	tb.ctx = tctx
	tb.cancel = func() {
		cancel()
		prx.close()
	}
	// The tab lives on tctx (chromedp ties the tab's event loop to the
	// context of its first command): the caller's ctx and the time allowed
	// to open it end the tab itself.
	timer := time.AfterFunc(prepare, cancel)
	stop := context.AfterFunc(ctx, cancel)
	err = chromedp.Do(tctx)
	if err == nil {
		if !timer.Stop() || !stop() {
			err = context.Canceled
		}
	}
	timer.Stop()
	stop()
	if err != nil {
		tb.cancel()
		return nil, err
	}
	octx, ocancel := context.WithTimeout(tctx, prepare)
	defer ocancel()
	stop = context.AfterFunc(ctx, ocancel)
	defer stop()
	p.mu.Lock()
	p.stats.Tabs++
	p.mu.Unlock()
	tb.c = chromedp.FromContext(tctx)
	c, t := tb.c, tb.c.Target
	steps := []func() error{
		func() error {
			_, err := cdp.Call(octx, c.Browser, cdpbrowser.SetDownloadBehavior, cdpbrowser.SetDownloadBehaviorParams{
				Behavior: cdpbrowser.SetDownloadBehaviorBehaviorDeny, BrowserContextID: c.BrowserContextID})
			return err
		},
		func() error {
			_, err := cdp.Call(octx, t, dom.Disable, cdp.Empty{})
			return err
		},
		func() error {
			_, err := cdp.Call(octx, t, css.Disable, cdp.Empty{})
			return err
		},
		func() error {
			none := int64(0)
			_, err := cdp.Call(octx, t, network.Enable, network.EnableParams{MaxTotalBufferSize: &none, MaxResourceBufferSize: &none})
			return err
		},
		func() error {
			_, err := cdp.Call(octx, t, target.SetDiscoverTargets, target.SetDiscoverTargetsParams{Discover: false})
			return err
		},
		func() error {
			_, err := cdp.Call(octx, t, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*", RequestStage: fetch.RequestStageRequest}}})
			return err
		},
		func() error {
			_, err := cdp.Call(octx, t, network.SetBypassServiceWorker, network.SetBypassServiceWorkerParams{Bypass: true})
			return err
		},
		func() error {
			_, err := cdp.Call(octx, t, network.SetCacheDisabled, network.SetCacheDisabledParams{CacheDisabled: true})
			return err
		},
		func() error {
			_, err := cdp.Call(octx, t, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: blankGuard(setupScript)})
			return err
		},
		func() error {
			_, err := cdp.Call(octx, t, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: blankGuard(quietSource())})
			return err
		},
		func() error {
			_, err := chromedp.Run(octx, installVitals())
			return err
		},
	}
	if err := parallel(steps); err != nil {
		tb.cancel()
		return nil, err
	}
	return tb, nil
}

// blankGuard wraps a script given to every new document so that it does
// not run in a top-level about:blank document: the blank page that resets
// a tab between two renderings (see tab) has no script of its own and is
// never read, and a rendering's own page is an http(s) document. The
// documents of frames, about:blank ones included, still run it.
func blankGuard(src string) string {
	return "if (window !== window.top || location.href !== \"about:blank\") {\n" + src + "\n}"
}

// emulate sets the device and user agent of the next rendering, unless they
// are in place already.
func (tb *tab) emulate(ctx context.Context, d render.Device, dev device, ua string) error {
	if tb.dev == d && tb.ua == ua {
		return nil
	}
	t := tb.c.Target
	err := parallel([]func() error{
		func() error {
			_, err := cdp.Call(ctx, t, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{
				Width: dev.width, Height: dev.height, DeviceScaleFactor: dev.scale, Mobile: dev.mobile})
			return err
		},
		func() error {
			_, err := cdp.Call(ctx, t, emulation.SetTouchEmulationEnabled, emulation.SetTouchEmulationEnabledParams{Enabled: dev.mobile})
			return err
		},
		func() error {
			_, err := cdp.Call(ctx, t, emulation.SetUserAgentOverride, emulation.SetUserAgentOverrideParams{UserAgent: ua})
			return err
		},
	})
	if err == nil {
		tb.dev, tb.ua = d, ua
	}
	return err
}

// parallel runs the steps at once and joins their errors.
func parallel(steps []func() error) error {
	errs := make([]error, len(steps))
	var wg sync.WaitGroup
	for i, step := range steps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = step()
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

var errNoReuse = errors.New("render: the tab cannot be reset for sure")

// reset clears what the rendering s left in the tab (see tab), so that the
// next rendering starts from a fresh state; an error means the tab must be
// closed instead.
func (tb *tab) reset(ctx context.Context, s *session) error {
	origin, cleared, ok := s.reuse()
	if !ok || tb.uses >= maxTabUses {
		return errNoReuse
	}
	ctx, cancel := context.WithTimeout(ctx, resetWait)
	defer cancel()
	t := tb.c.Target
	if origin != "" {
		// Session storage belongs to the tab: it is cleared while a frame
		// of its origin is still there, from the browser's side (the
		// page's scripts cannot stop it).
		_, err := cdp.Call(ctx, t, domstorage.Clear, domstorage.ClearParams{StorageID: &domstorage.StorageID{SecurityOrigin: origin}})
		if err != nil {
			return err
		}
	}
	tb.mu.Lock()
	tb.loads = map[cdp.LoaderID]bool{}
	tb.mu.Unlock()
	nav, err := cdp.Call(ctx, t, page.Navigate, page.NavigateParams{URL: "about:blank"})
	if err != nil {
		return err
	}
	if nav.ErrorText != "" {
		return fmt.Errorf("render: leaving the page: %s", nav.ErrorText)
	}
	if err := tb.waitLoad(ctx, nav.LoaderID); err != nil {
		return err
	}
	steps := []func() error{
		func() error {
			_, err := cdp.Call(ctx, t, page.ResetNavigationHistory, cdp.Empty{})
			return err
		},
		func() error {
			_, err := cdp.Call(ctx, t, storage.ClearCookies, storage.ClearCookiesParams{})
			return err
		},
		func() error {
			_, err := cdp.Call(ctx, t, network.ClearBrowserCache, cdp.Empty{})
			return err
		},
		func() error {
			// window.name belongs to the tab too.
			_, err := cdp.Call(ctx, t, runtime.Evaluate, runtime.EvaluateParams{Expression: `window.name = ""`})
			return err
		},
	}
	for _, o := range cleared {
		steps = append(steps, func() error {
			_, err := cdp.Call(ctx, t, storage.ClearDataForOrigin, storage.ClearDataForOriginParams{Origin: o, StorageTypes: "all"})
			return err
		})
	}
	return parallel(steps)
}

// waitLoad waits for the load of the main frame's document of loader id (any
// load when id is empty).
func (tb *tab) waitLoad(ctx context.Context, id cdp.LoaderID) error {
	for {
		tb.mu.Lock()
		done := tb.loads[id] || (id == "" && len(tb.loads) > 0)
		tb.mu.Unlock()
		if done {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tb.load:
		}
	}
}

// originOf is the origin (scheme://host:port) of u.
func originOf(u *url.URL) string {
	return strings.ToLower(u.Scheme + "://" + u.Host)
}
