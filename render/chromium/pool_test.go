package chromium

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/seokit/seokit/render"
	"github.com/seokit/seokit/seo"
)

func renderOne(t testing.TB, p *Pool, req *render.Request) *render.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := p.Render(ctx, req)
	if err != nil {
		t.Fatalf("Render(%s): %v", req.URL, err)
	}
	return res
}

func htmlPage(body string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, body)
	}
}

func resource(res *render.Result, suffix string) *render.Resource {
	for i := range res.Resources {
		if strings.HasSuffix(res.Resources[i].URL, suffix) {
			return &res.Resources[i]
		}
	}
	return nil
}

func TestUnavailable(t *testing.T) {
	_, err := New(context.Background(), &Options{ExecPath: "/nonexistent/chromium"})
	if !errors.Is(err, render.ErrUnavailable) {
		t.Fatalf("New with a missing ExecPath: %v, want render.ErrUnavailable", err)
	}
	t.Setenv("SEOKIT_CHROMIUM", "")
	t.Setenv("PATH", t.TempDir())
	// The names with a directory are looked for outside PATH.
	defer func(names []string) { ExecNames = names }(ExecNames)
	ExecNames = slices.DeleteFunc(slices.Clone(ExecNames), filepath.IsAbs)
	_, err = New(context.Background(), nil)
	if !errors.Is(err, render.ErrUnavailable) || !strings.Contains(err.Error(), "chromium, chromium-browser, google-chrome, chrome") {
		t.Fatalf("New without a browser: %v", err)
	}
}

func TestRender(t *testing.T) {
	var privateHits, images atomic.Int64
	mux := http.NewServeMux()
	mux.HandleFunc("/robots", htmlPage(`<!doctype html><title>r</title><script src="/private/a.js"></script><img src="/ok.png"><iframe src="/private/frame.html"></iframe>`))
	mux.HandleFunc("/private/", func(w http.ResponseWriter, _ *http.Request) { privateHits.Add(1) })
	mux.HandleFunc("/ok.png", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })
	var imgs strings.Builder
	for i := range 10 {
		fmt.Fprintf(&imgs, `<img src="/img/%d.png">`, i)
	}
	mux.HandleFunc("/many", htmlPage(`<!doctype html><title>many</title>`+imgs.String()))
	mux.HandleFunc("/img/", func(w http.ResponseWriter, _ *http.Request) { images.Add(1); w.WriteHeader(http.StatusNoContent) })
	mux.HandleFunc("/heavy", htmlPage(`<!doctype html><title>heavy</title><script>
fetch('/big.js').then(r => r.text()).then(() => { const i = new Image(); i.src = '/after.png'; document.body.appendChild(i); });
</script>`))
	mux.HandleFunc("/big.js", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/javascript")
		io.WriteString(w, "/*"+strings.Repeat("x", 300<<10)+"*/")
	})
	mux.HandleFunc("/after.png", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })
	mux.HandleFunc("/set", htmlPage(`<!doctype html><title>set</title><script>localStorage.setItem('k', 'v1'); document.cookie = 'c=v2; path=/';</script>`))
	mux.HandleFunc("/get", htmlPage(`<!doctype html><title>get</title><p id="s"></p><script>document.getElementById('s').textContent = 'storage=' + localStorage.getItem('k') + ';cookie=' + document.cookie + ';';</script>`))
	mux.HandleFunc("/stream", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, "<!doctype html><title>stream</title><p id=s>")
		for i := 0; i < 600; i++ {
			fmt.Fprintf(w, "%d ", i)
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
	})
	mux.HandleFunc("/dialogs", htmlPage(`<!doctype html><title>dialogs</title><p id="d"></p><script>
alert('hello'); const ok = confirm('sure?');
window.open('/popup');
const a = document.createElement('a'); a.href = '/popup'; a.target = '_blank'; document.body.appendChild(a); a.click();
document.getElementById('d').textContent = 'confirm=' + ok;
</script>`))
	var popups atomic.Int64
	mux.HandleFunc("/loop", htmlPage(`<!doctype html><title>loop</title><p id="l">before</p><script>
setTimeout(() => { document.getElementById('l').textContent = 'looping'; for (;;) {} }, 100);
</script>`))
	mux.HandleFunc("/popup", func(w http.ResponseWriter, r *http.Request) {
		popups.Add(1)
		htmlPage(`<!doctype html><title>popup</title>`)(w, r)
	})
	srv := serve(t, mux)
	p := newTestPool(t, &Options{Fetcher: testFetcher(t, srv), Tabs: 1})

	t.Run("Robots", func(t *testing.T) {
		res := renderOne(t, p, &render.Request{URL: srv.URL + "/robots", Allowed: func(u *url.URL) bool {
			return !strings.HasPrefix(u.Path, "/private/") && u.Path != "/robots"
		}})
		if n := privateHits.Load(); n != 0 {
			t.Errorf("the disallowed script was fetched %d times", n)
		}
		if r := resource(res, "/private/a.js"); r == nil || r.Outcome != render.OutcomeRobots || r.Type != "script" {
			t.Errorf("disallowed script reported as %+v", r)
		}
		if r := resource(res, "/private/frame.html"); r == nil || r.Outcome != render.OutcomeRobots || r.Type != "document" {
			t.Errorf("disallowed iframe reported as %+v", r)
		}
		if r := resource(res, "/ok.png"); r == nil || r.Outcome != render.OutcomeOK || r.Status != http.StatusNoContent {
			t.Errorf("allowed image reported as %+v", r)
		}
		if r := resource(res, "/robots"); r == nil || r.Outcome != render.OutcomeOK {
			t.Errorf("document reported as %+v (the document is never robots-checked here)", r)
		}
	})

	t.Run("RequestBudget", func(t *testing.T) {
		res := renderOne(t, p, &render.Request{URL: srv.URL + "/many", MaxRequests: 4})
		if !slices.Contains(res.Truncated, "requests") {
			t.Errorf("Truncated = %v, want requests", res.Truncated)
		}
		if n := images.Load(); n > 3 {
			t.Errorf("%d images fetched with a budget of 4 requests (document included)", n)
		}
		refused := 0
		for _, r := range res.Resources {
			if r.Outcome == render.OutcomeBudget {
				refused++
			}
		}
		if refused < 7 {
			t.Errorf("%d requests refused by the budget, want at least 7: %+v", refused, res.Resources)
		}
	})

	t.Run("ByteBudget", func(t *testing.T) {
		res := renderOne(t, p, &render.Request{URL: srv.URL + "/heavy", MaxBytes: 100 << 10})
		if !slices.Contains(res.Truncated, "bytes") {
			t.Errorf("Truncated = %v, want bytes", res.Truncated)
		}
		if r := resource(res, "/after.png"); r == nil || r.Outcome != render.OutcomeBudget {
			t.Errorf("request after the budget reported as %+v", r)
		}
	})

	t.Run("FreshState", func(t *testing.T) {
		renderOne(t, p, &render.Request{URL: srv.URL + "/set"})
		res := renderOne(t, p, &render.Request{URL: srv.URL + "/get"})
		if !strings.Contains(string(res.HTML), "storage=null;cookie=;") {
			t.Errorf("state leaked between renderings: %s", res.HTML)
		}
	})

	t.Run("NeverEndingStream", func(t *testing.T) {
		const timeout = 2 * time.Second
		start := time.Now()
		res := renderOne(t, p, &render.Request{URL: srv.URL + "/stream", Timeout: timeout})
		if el := time.Since(start); el > timeout+15*time.Second {
			t.Errorf("took %s with a budget of %s", el, timeout)
		}
		if !res.TimedOut || !strings.Contains(string(res.HTML), `id="s"`) {
			t.Errorf("TimedOut %v, HTML %.200s", res.TimedOut, res.HTML)
		}
	})

	t.Run("DialogsAndPopups", func(t *testing.T) {
		res := renderOne(t, p, &render.Request{URL: srv.URL + "/dialogs", Timeout: 10 * time.Second})
		if n := popups.Load(); n != 0 {
			t.Errorf("%d popups loaded", n)
		}
		if res.TimedOut || !strings.Contains(string(res.HTML), "confirm=false") {
			t.Errorf("TimedOut %v, HTML %.300s", res.TimedOut, res.HTML)
		}
	})

	t.Run("EndlessLoop", func(t *testing.T) {
		const timeout = 3 * time.Second
		start := time.Now()
		res := renderOne(t, p, &render.Request{URL: srv.URL + "/loop", Timeout: timeout})
		if el := time.Since(start); el > timeout+20*time.Second {
			t.Errorf("took %s with a budget of %s", el, timeout)
		}
		if !strings.Contains(string(res.HTML), "looping") {
			t.Errorf("TimedOut %v, HTML %.300s", res.TimedOut, res.HTML)
		}
	})

	t.Run("Desktop", func(t *testing.T) {
		res := renderOne(t, p, &render.Request{URL: srv.URL + "/get", Device: render.Desktop, Settle: -1})
		if res.Viewport.Width != 1350 || res.Viewport.Height != 940 || strings.Contains(res.UserAgent, "Mobile") {
			t.Errorf("desktop: viewport %+v, user agent %q", res.Viewport, res.UserAgent)
		}
	})
}

// TestConcurrencyBound renders more pages than the pool has tabs and
// measures, in the server, how many were in flight at once.
func TestConcurrencyBound(t *testing.T) {
	var cur, peak atomic.Int64
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/favicon.ico" {
			http.NotFound(w, r)
			return
		}
		n := cur.Add(1)
		defer cur.Add(-1)
		for {
			m := peak.Load()
			if n <= m || peak.CompareAndSwap(m, n) {
				break
			}
		}
		time.Sleep(300 * time.Millisecond)
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "<!doctype html><title>page</title>")
	}))
	p := newTestPool(t, &Options{Fetcher: testFetcher(t, srv), Tabs: 2})
	var wg sync.WaitGroup
	errs := make(chan error, 6)
	for i := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			_, err := p.Render(ctx, &render.Request{URL: srv.URL + "/p" + strconv.Itoa(i), Settle: -1, Idle: 50 * time.Millisecond})
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if got := peak.Load(); got > 2 || got < 1 {
		t.Errorf("peak of %d pages in flight on a pool of 2 tabs", got)
	}
	if st := p.Stats(); st.Renderings != 6 || st.InUse != 0 {
		t.Errorf("stats %+v", st)
	}
}

// TestNavigationErrors checks that a document that cannot be fetched is an
// error naming why.
func TestNavigationErrors(t *testing.T) {
	srv := serve(t, htmlPage("<!doctype html><title>x</title>"))
	closed := serve(t, htmlPage(""))
	closedURL := closed.URL
	closed.Close()
	p := newTestPool(t, &Options{Fetcher: testFetcher(t, srv, closed)})
	port := srv.URL[strings.LastIndexByte(srv.URL, ':'):]
	tests := []struct {
		url, want string
		forbidden bool
	}{
		{"http://nowhere.test" + port + "/", "no such host", false},
		{closedURL + "/", "connection refused", false},
		{"http://127.0.0.2" + port + "/", "127.0.0.2", true},
		{"http://rebind.test" + port + "/", "10.0.0.1", true},
	}
	for _, tt := range tests {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		_, err := p.Render(ctx, &render.Request{URL: tt.url})
		cancel()
		if err == nil || !strings.Contains(err.Error(), tt.want) || errors.Is(err, seo.ErrForbiddenAddress) != tt.forbidden {
			t.Errorf("Render(%s) = %v, want an error naming %q (forbidden %v)", tt.url, err, tt.want, tt.forbidden)
		}
	}

	// A page that sends itself to a refused address leaves the browser's
	// error page: an error, not a rendering of that page.
	nav := serve(t, htmlPage(`<!doctype html><title>x</title><script>location.href = "http://169.254.169.254/latest/meta-data/"</script>`))
	p2 := newTestPool(t, &Options{Fetcher: testFetcher(t, nav)})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := p2.Render(ctx, &render.Request{URL: nav.URL + "/"})
	if err == nil {
		t.Errorf("Render(self-navigation to 169.254.169.254) = final URL %q, title in %d bytes of HTML; want an error", res.FinalURL, len(res.HTML))
	}
}

// TestCrash kills the browser: the pool starts another one.
func TestCrash(t *testing.T) {
	srv := serve(t, htmlPage("<!doctype html><title>x</title>"))
	p := newTestPool(t, &Options{Fetcher: testFetcher(t, srv)})
	renderOne(t, p, &render.Request{URL: srv.URL + "/", Settle: -1})
	pids := p.browserPIDs()
	if len(pids) == 0 {
		t.Fatal("no browser process")
	}
	if err := syscall.Kill(pids[0], syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(15 * time.Second)
	for alive(pids[0]) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// The rendering under way when the browser died may fail; the next
	// one gets a new browser.
	var err error
	for range 2 {
		if _, err = p.Render(ctx, &render.Request{URL: srv.URL + "/", Settle: -1}); err == nil {
			break
		}
	}
	if err != nil {
		t.Fatalf("no rendering after the crash: %v", err)
	}
	if st := p.Stats(); st.Restarts != 1 || st.Browsers != 1 {
		t.Errorf("stats %+v, want 1 restart", st)
	}
}

// TestMemoryCap restarts a browser whose process tree outgrows the cap.
func TestMemoryCap(t *testing.T) {
	srv := serve(t, htmlPage("<!doctype html><title>x</title>"))
	p := newTestPool(t, &Options{Fetcher: testFetcher(t, srv), MaxBrowserMemory: 1 << 20})
	if mem := treeMemory(p.browserPIDs()[0]); mem <= 1<<20 {
		t.Fatalf("browser memory %d bytes read from /proc, want more than 1 MiB", mem)
	}
	// The watchdog stops the rendering when it samples the tree during
	// it; otherwise the release finds the browser over its cap.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := p.Render(ctx, &render.Request{URL: srv.URL + "/", Settle: -1}); err != nil && !errors.Is(err, render.ErrMemoryLimit) {
		t.Fatalf("Render: %v, want success or render.ErrMemoryLimit", err)
	}
	if st := waitRestarts(p, 1); st.Restarts != 1 {
		t.Errorf("stats %+v, want 1 restart", st)
	}
}

// waitRestarts waits (at most a minute) for the pool to count n restarts
// and a running browser: a browser restarts in the background.
func waitRestarts(p *Pool, n int64) Stats {
	deadline := time.Now().Add(time.Minute)
	for {
		st := p.Stats()
		if (st.Restarts >= n && st.Browsers > 0) || time.Now().After(deadline) {
			return st
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestRecycleAndClose restarts the browser after each rendering, then checks
// that Close leaves no browser process and no goroutine behind.
func TestRecycleAndClose(t *testing.T) {
	requireBrowser(t)
	srv := serve(t, htmlPage("<!doctype html><title>x</title>"))
	before := runtime.NumGoroutine()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	p, err := New(ctx, &Options{Fetcher: testFetcher(t, srv), RecycleAfter: 1})
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for i := range 3 {
		waitRestarts(p, int64(i))
		pids = append(pids, p.browserPIDs()...)
		renderOne(t, p, &render.Request{URL: srv.URL + "/", Settle: -1})
	}
	waitRestarts(p, 3)
	pids = append(pids, p.browserPIDs()...)
	if st := p.Stats(); st.Restarts != 3 || st.Renderings != 3 || st.Browsers != 1 {
		t.Errorf("stats %+v, want 3 restarts", st)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Render(ctx, &render.Request{URL: srv.URL + "/"}); !errors.Is(err, render.ErrUnavailable) {
		t.Errorf("Render after Close: %v", err)
	}
	checkGone(t, srv, pids, before)
}

// TestStartAfterFailedRestart: a browser that crashed and could not be
// started again leaves its slot empty; the next rendering starts a browser
// in the slot and renders in it, rather than waiting for a tab until its
// context ends.
func TestStartAfterFailedRestart(t *testing.T) {
	srv := serve(t, htmlPage("<!doctype html><title>x</title>"))
	p := newTestPool(t, &Options{Fetcher: testFetcher(t, srv)})
	exec := p.exec
	p.exec = "/nonexistent/chromium" // every start fails until restored
	killFirstBrowser(t, p)
	req := &render.Request{URL: srv.URL + "/", Settle: -1}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := p.Render(ctx, req); !errors.Is(err, render.ErrUnavailable) {
		t.Fatalf("rendering while no browser can start: %v, want render.ErrUnavailable", err)
	}
	p.exec = exec
	start := time.Now()
	if _, err := p.Render(ctx, req); err != nil {
		t.Fatalf("rendering once the browser can start again: %v after %v", err, time.Since(start).Round(time.Millisecond))
	}
}

// TestCancelledStart: a rendering whose context has ended when it starts
// the browser of its slot (here the slot's browser crashed, and the
// rendering's client left while the crashed browser was stopped) fails at
// once and leaves the slot free: the next rendering starts a browser and
// renders, and Close leaves no browser process and no goroutine behind.
// Before, the failed start cancelled the browser a second time, which
// waited for ever inside chromedp: the rendering never returned, the slot
// never got a browser again and Close hung.
func TestCancelledStart(t *testing.T) {
	requireBrowser(t)
	srv := serve(t, htmlPage("<!doctype html><title>x</title>"))
	before := runtime.NumGoroutine()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	p, err := New(ctx, &Options{Fetcher: testFetcher(t, srv)})
	if err != nil {
		t.Fatal(err)
	}
	pids := p.browserPIDs()
	killFirstBrowser(t, p)
	req := &render.Request{URL: srv.URL + "/", Settle: -1}
	gone, leave := context.WithCancel(context.Background())
	leave()
	done := make(chan error, 1)
	go func() {
		_, err := p.Render(gone, req)
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, render.ErrUnavailable) {
			t.Fatalf("Render with an ended context, its slot's browser dead: %v, want render.ErrUnavailable", err)
		}
	case <-time.After(30 * time.Second):
		// Close would wait for the start too: the pool is left.
		t.Fatal("Render with an ended context, its slot's browser dead: no answer after 30 s")
	}
	start := time.Now()
	if _, err := p.Render(ctx, req); err != nil {
		t.Fatalf("rendering after the cancelled start: %v after %v", err, time.Since(start).Round(time.Millisecond))
	}
	pids = append(pids, p.browserPIDs()...)
	closed := make(chan error, 1)
	go func() { closed <- p.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Close: no return after 30 s")
	}
	checkGone(t, srv, pids, before)
}

// killFirstBrowser kills the browser of p's first slot and waits until
// the pool can see it dead.
func killFirstBrowser(t *testing.T, p *Pool) {
	t.Helper()
	p.mu.Lock()
	b := p.browsers[0]
	p.mu.Unlock()
	if err := syscall.Kill(b.pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); !b.dead(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the killed browser is not seen dead after 30 s")
		}
	}
}
