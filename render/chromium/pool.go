package chromium

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/seokit/seokit/render"
	"github.com/seokit/seokit/seo"
)

// Defaults of the zero Options fields. DefaultTabs is 5: on the 2-core
// reference machine the rendering benchmark (crawler TestRenderBenchmark,
// 500 client-rendered pages, two runs each) rendered 11.5-11.8 pages/s at
// 1,316-1,322 MiB summed RSS with 5 tabs, 12.3-12.6 at 1,524-1,539 MiB
// with 6 and 9.7-11.4 at 1,567-1,659 MiB with 8: more tabs than cores
// keep the browser busy, but past 5 they add memory, not speed.
const (
	DefaultBrowsers         = 1
	DefaultTabs             = 5
	DefaultRecycleAfter     = 500
	DefaultMaxBrowserMemory = 1536 << 20
	DefaultMaxRenderMemory  = 512 << 20
	DefaultNice             = 10
)

// ExecNames are the programs looked for on PATH, in order, when neither
// Options.ExecPath nor $SEOKIT_CHROMIUM names the browser. The headless
// shells come first: the same Blink and V8 without the browser's window UI,
// they spend about half the CPU of a headless chromium per rendering
// (Debian: the chromium-headless-shell package, whose program is named
// first because the script on PATH runs it without exec, which would leave
// the browser out of reach of the pool's process handling).
var ExecNames = []string{"/usr/lib/chromium/chromium-headless-shell", "chromium-headless-shell", "chrome-headless-shell",
	"chromium", "chromium-browser", "google-chrome", "chrome"}

// Options configure a [Pool]. A nil *Options, and every zero field, means
// the documented default.
type Options struct {
	// ExecPath is the browser program; zero means $SEOKIT_CHROMIUM, then
	// the first of ExecNames found on PATH.
	ExecPath string
	// Browsers is the number of browser processes; zero means
	// DefaultBrowsers.
	Browsers int
	// Tabs is the number of concurrent renderings per browser; zero means
	// DefaultTabs.
	Tabs int
	// RecycleAfter is the number of renderings after which a browser is
	// drained and restarted; zero means DefaultRecycleAfter.
	RecycleAfter int
	// MaxBrowserMemory caps the memory of a browser's process tree in bytes
	// (the sum of its processes' PSS, read from /proc; RSS where PSS cannot
	// be read); zero means DefaultMaxBrowserMemory. It is enforced while
	// pages render: the tree is sampled every 200 ms (50 ms past half the
	// cap), and above 7/8 of the cap (the rest is the margin for growth
	// between two samples) the largest renderer processes are killed (their pages end as
	// render.ErrMemoryLimit), or the browser itself when its own processes
	// exceed it (every page it was rendering ends so). A browser still
	// above it when a rendering ends is drained and restarted.
	MaxBrowserMemory int64
	// MaxRenderMemory caps the memory of one rendering in bytes: the PSS
	// of its renderer process (each rendering has a browser context, so a
	// renderer process, of its own), sampled with the tree, and the V8
	// heap (--max-old-space-size at the same size: the process passes the
	// limit, and is stopped, before V8 would collect garbage without end
	// near its own limit, which still bounds how far the heap grows between
	// two samples); ArrayBuffers and WebAssembly memories live outside the
	// V8 heap and are caught by the sampling. A page above it ends as
	// render.ErrMemoryLimit. Zero means DefaultMaxRenderMemory.
	MaxRenderMemory int64
	// Nice is the CPU priority (nice value, 1 to 19) of the browsers'
	// processes, so that renderings take the CPU the server leaves
	// rather than starve it; zero means DefaultNice, a negative value
	// leaves the browsers at the server's priority.
	Nice int
	// NoSandbox runs the renderers without Chromium's sandbox. Without it,
	// a server running as root runs its browsers as user nobody (65534),
	// as Chromium keeps its sandbox only for an unprivileged user; a
	// browser that cannot start so (no user namespaces, say) makes New
	// fail rather than render without the sandbox. Pool.Sandbox says which
	// applies.
	NoSandbox bool
	// Fetcher governs every connection the browser makes: its dial-time
	// address policy and allowed ports apply to each request, redirect hop
	// and WebSocket; zero means seo.NewFetcher(nil).
	Fetcher *seo.Fetcher
	// AxePath is axe-core's script (axe.min.js), run by the renderings
	// whose Request asks for the accessibility audit (render.Request.A11y);
	// zero means FindAxe's default places ($SEOKIT_AXE, then
	// AxeDefaultPath). Without it, those renderings report the audit as not
	// checked (render.Result.A11yReason), never as passed.
	AxePath string
}

// Stats are a pool's counters.
type Stats struct {
	// Renderings counts the renderings started.
	Renderings int64 `json:"renderings"`
	// Restarts counts browser restarts (recycling, memory, crashes).
	Restarts int64 `json:"restarts"`
	// Tabs counts the tabs opened: a tab serves renderings one after
	// the other, reset between them, until one cannot be reset for sure.
	Tabs int64 `json:"tabs"`
	// InUse is the number of renderings in progress, and of tabs being
	// closed after a rendering that failed or timed out (they hold their
	// slot until they are closed).
	InUse int `json:"inUse"`
	// Browsers is the number of browser processes running.
	Browsers int `json:"browsers"`
	// MemoryKills counts the renderer processes and browsers killed for
	// the memory limits.
	MemoryKills int64 `json:"memoryKills"`
}

// Pool renders pages with a bounded pool of headless Chromium processes.
// It implements render.Renderer and is safe for concurrent use.
type Pool struct {
	opts    Options
	exec    string
	sandbox string // the sandbox mode, see Sandbox
	dial    dialFunc

	mu       sync.Mutex
	changed  chan struct{} // closed and replaced when a tab is freed
	browsers []*browser    // nil while (re)starting or after a failed start
	starting []bool
	closed   bool
	stats    Stats
	wg       sync.WaitGroup // renderings and restarts in progress
	bproxy   *proxy         // the proxy of the browsers' own default context

	axeOnce sync.Once // axe-core's script, read at the first audit
	axeSrc  string
	axeErr  error
}

// browser is one browser process.
type browser struct {
	ctx      context.Context // the browser's chromedp context
	cancel   context.CancelFunc
	pid      int
	lost     <-chan struct{} // closed when the connection to the browser drops
	inUse    int
	served   int
	draining bool
	idle     []*tab    // warm tabs, reset and free; guarded by Pool.mu
	measured time.Time // when the memory of the tree was last read
	home     string    // the profile directory the pool made; "" when chromedp made it

	watched   chan struct{} // closed when the memory watchdog ended
	memKills  atomic.Int64  // renderers killed for memory, not yet claimed by a rendering
	memKilled atomic.Bool   // the whole browser was killed for memory
}

// memoryEvery is how often at most the memory of a browser's process tree
// is read (it walks /proc).
const memoryEvery = 10 * time.Second

// takeTab returns a free warm tab of b, or opens one.
func (p *Pool) takeTab(ctx context.Context, b *browser) (*tab, error) {
	p.mu.Lock()
	var tb *tab
	if n := len(b.idle); n > 0 {
		tb, b.idle = b.idle[n-1], b.idle[:n-1]
	}
	p.mu.Unlock()
	if tb != nil {
		return tb, nil
	}
	return p.openTab(ctx, b)
}

// putTab keeps tb warm for the next rendering of b when reuse is true and
// b goes on; otherwise it closes the tab.
func (p *Pool) putTab(b *browser, tb *tab, reuse bool) {
	p.mu.Lock()
	if reuse && !p.closed && !b.draining && b.ctx.Err() == nil {
		b.idle = append(b.idle, tb)
		tb = nil
	}
	p.mu.Unlock()
	if tb != nil {
		tb.cancel()
	}
}

// stopWait bounds the wait for the processes of a stopped browser to end.
const stopWait = 5 * time.Second

// stop ends the browser process and closes its warm tabs' proxies. With
// wait, it waits (at most stopWait) for the browser's processes to end, so
// that a browser started next does not add its memory to theirs.
func (b *browser) stop(p *Pool, wait bool) {
	p.mu.Lock()
	idle := b.idle
	b.idle = nil
	p.mu.Unlock()
	var pids []int
	if wait && b.pid > 0 {
		pids = processTree(b.pid)
	}
	b.cancel()
	for _, tb := range idle {
		tb.cancel()
	}
	<-b.watched
	if b.home != "" {
		_ = os.RemoveAll(b.home)
	}
	deadline := time.Now().Add(stopWait)
	for _, pid := range pids {
		for alive(pid) && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// New starts a pool of Options.Browsers browsers. When no browser program is
// found or none starts, the error wraps render.ErrUnavailable. ctx bounds the
// start only.
func New(ctx context.Context, opts *Options) (*Pool, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Browsers <= 0 {
		o.Browsers = DefaultBrowsers
	}
	if o.Tabs <= 0 {
		o.Tabs = DefaultTabs
	}
	if o.RecycleAfter <= 0 {
		o.RecycleAfter = DefaultRecycleAfter
	}
	if o.MaxBrowserMemory <= 0 {
		o.MaxBrowserMemory = DefaultMaxBrowserMemory
	}
	if o.MaxRenderMemory <= 0 {
		o.MaxRenderMemory = DefaultMaxRenderMemory
	}
	if o.Nice == 0 {
		o.Nice = DefaultNice
	}
	o.Nice = min(o.Nice, 19)
	if o.Fetcher == nil {
		o.Fetcher = seo.NewFetcher(nil)
	}
	path, err := findExec(o.ExecPath)
	if err != nil {
		return nil, err
	}
	p := &Pool{
		opts:     o,
		exec:     path,
		sandbox:  sandboxMode(&o),
		dial:     o.Fetcher.DialContext,
		changed:  make(chan struct{}),
		browsers: make([]*browser, o.Browsers),
		starting: make([]bool, o.Browsers),
	}
	p.bproxy, err = startProxy(p.dial, 0)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", render.ErrUnavailable, err)
	}
	for i := range p.browsers {
		b, err := p.start(ctx)
		if err != nil {
			p.Close()
			return nil, err
		}
		p.browsers[i] = b
	}
	p.stats.Browsers = o.Browsers
	return p, nil
}

// findExec resolves the browser program.
func findExec(path string) (string, error) {
	if path == "" {
		path = os.Getenv("SEOKIT_CHROMIUM")
	}
	if path != "" {
		found, err := exec.LookPath(path)
		if err != nil {
			return "", fmt.Errorf("%w: browser %q: %v", render.ErrUnavailable, path, err)
		}
		return found, nil
	}
	for _, name := range ExecNames {
		if found, err := exec.LookPath(name); err == nil {
			return found, nil
		}
	}
	return "", fmt.Errorf("%w: no browser found: looked for $SEOKIT_CHROMIUM and %s on PATH", render.ErrUnavailable, strings.Join(ExecNames, ", "))
}

// flags are the browser's command line switches besides chromedp's
// defaults: every connection goes through the proxy (loopback included),
// nothing resolves names or opens side channels (DNS over HTTPS, QUIC,
// WebRTC UDP, background services). For throughput and memory, each new
// window (one per rendering, as each has its own browser context) opens no
// WebUI omnibox popup, which would cost a renderer process of its own, and
// the GPU work (software, GPU off) and the network service run in the
// browser process rather than in processes of their own. A navigation
// keeps the frame's document host (RenderDocument off: each navigation of
// a tab, to the page and to the blank page that resets the tab, would
// otherwise build a new frame and compositor in the renderer and the
// browser) and the tab's browsing instance (ProactivelySwapBrowsingInstance
// off: it serves the back/forward cache, which is off).
func (p *Pool) flags() []chromedp.ExecAllocatorOption {
	return []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(p.exec),
		chromedp.Flag("headless", "new"),
		chromedp.Flag("proxy-server", p.bproxy.URL()),
		chromedp.Flag("proxy-bypass-list", "<-loopback>"),
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-features", "Translate,BlinkGenPropertyTrees,DnsOverHttps,AsyncDns,"+
			"MediaRouter,OptimizationHints,InterestFeedContentSuggestions,CalculateNativeWinOcclusion,"+
			"AutofillServerCommunication,CertificateTransparencyComponentUpdater,"+
			"IsolateOrigins,site-per-process,HttpsUpgrades,PrivacySandboxSettings4,"+
			"WebUIOmniboxPopup,WebUIOmniboxFullPopup,WebUIOmniboxAimPopup,BackForwardCache,"+
			"RenderDocument,ProactivelySwapBrowsingInstance"),
		chromedp.Flag("disable-site-isolation-trials", true),
		chromedp.Flag("force-webrtc-ip-handling-policy", "disable_non_proxied_udp"),
		chromedp.Flag("webrtc-ip-handling-policy", "disable_non_proxied_udp"),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-domain-reliability", true),
		chromedp.Flag("no-pings", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("no-default-browser-check", true),
		chromedp.Flag("disable-notifications", true),
		chromedp.Flag("deny-permission-prompts", true),
		chromedp.Flag("mute-audio", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("in-process-gpu", true),
		chromedp.Flag("disable-print-preview", true),
		chromedp.Flag("block-new-web-contents", true),
		chromedp.Flag("enable-features", "NetworkService,NetworkServiceInProcess2"),
		chromedp.Flag("js-flags", "--max-old-space-size="+strconv.FormatInt(max(p.opts.MaxRenderMemory>>20, 16), 10)),
		chromedp.Flag("no-sandbox", p.sandbox == SandboxOff),
	}
}

// Capacity is the number of pages the pool renders at once.
func (p *Pool) Capacity() int { return p.opts.Browsers * p.opts.Tabs }

// MemoryLimit is the memory in bytes the pool's browsers may hold
// together: Browsers × MaxBrowserMemory.
func (p *Pool) MemoryLimit() int64 { return int64(p.opts.Browsers) * p.opts.MaxBrowserMemory }

// start launches one browser.
func (p *Pool) start(ctx context.Context) (*browser, error) {
	opts := append(chromedp.DefaultExecAllocatorOptions[:], p.flags()...)
	var home string
	if p.sandbox == SandboxNobody {
		var err error
		if home, err = profileDir(); err != nil {
			return nil, fmt.Errorf("%w: a profile for the sandboxed browser: %v", render.ErrUnavailable, err)
		}
		opts = append(opts, chromedp.UserDataDir(home))
	}
	opts = append(opts, chromedp.ModifyCmdFunc(prepareCmd(p.sandbox, home)))
	allocCtx, allocCancel := chromedp.NewExecAllocator(context.Background(), opts...)
	bctx, bcancel := chromedp.NewContext(allocCtx)
	// cancel runs once, and a second caller waits for the first to end:
	// bcancel waits for the browser by taking back the one token of
	// chromedp's allocation channel, which Allocate takes when it starts
	// the browser and closes once the browser has exited. When ctx ends
	// before Allocate takes it (ctx done on entry, say: a rendering whose
	// client left while the slot's crashed browser was stopped), Allocate
	// returns without a browser, the cancel run by ctx takes the token and
	// a second bcancel would wait for ever, and with it restart, the slot
	// and Close.
	cancel := sync.OnceFunc(func() {
		bcancel()
		allocCancel()
	})
	stop := context.AfterFunc(ctx, cancel)
	err := chromedp.Do(bctx)
	if !stop() && err == nil {
		err = ctx.Err()
	}
	if err != nil {
		cancel()
		if home != "" {
			_ = os.RemoveAll(home)
		}
		if p.sandbox == SandboxNobody {
			return nil, fmt.Errorf("%w: starting %s as user nobody with its sandbox (the server runs as root): %v; Options.NoSandbox (examples/server: -render-no-sandbox) renders without the sandbox", render.ErrUnavailable, p.exec, err)
		}
		return nil, fmt.Errorf("%w: starting %s: %v", render.ErrUnavailable, p.exec, err)
	}
	b := &browser{ctx: bctx, cancel: cancel, home: home, watched: make(chan struct{})}
	if c := chromedp.FromContext(bctx); c != nil && c.Browser != nil {
		b.lost = c.Browser.LostConnection
		if c.Browser.Process() != nil {
			b.pid = c.Browser.Process().Pid
		}
		if c.Target != nil {
			// The browser's first tab is never used: its renderer
			// process is closed.
			_, _ = cdp.Call(bctx, c.Browser, target.CloseTarget, target.CloseTargetParams{TargetID: c.Target.TargetID})
		}
	}
	p.renice(b)
	go p.watch(b)
	return b, nil
}

// dead reports that the browser process is gone.
func (b *browser) dead() bool {
	if b.ctx.Err() != nil {
		return true
	}
	select {
	case <-b.lost:
		return true
	default:
	}
	return b.pid > 0 && !alive(b.pid)
}

// alive reports whether pid runs (a zombie does not count).
func alive(pid int) bool {
	st, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(st)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || !strings.HasPrefix(s[i+1:], " Z")
}

// acquire waits for a free tab; it returns the browser and its slot.
func (p *Pool) acquire(ctx context.Context) (*browser, int, error) {
	for {
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			return nil, 0, fmt.Errorf("%w: the pool is closed", render.ErrUnavailable)
		}
		for i, b := range p.browsers {
			if b != nil && b.dead() && b.inUse == 0 && !p.starting[i] {
				// A crashed browser is started again.
				p.browsers[i] = nil
				p.starting[i] = true
				p.stats.Browsers--
				p.wg.Add(1)
				p.mu.Unlock()
				_ = p.restart(ctx, i, b) // a failed start is retried below
				p.mu.Lock()
				b = p.browsers[i]
			}
			if b != nil && !b.draining && !b.dead() && b.inUse < p.opts.Tabs {
				b.inUse++
				b.served++
				p.stats.InUse++
				p.stats.Renderings++
				p.wg.Add(1)
				p.mu.Unlock()
				return b, i, nil
			}
		}
		// A slot whose browser failed to start is started again here.
		var startErr error
		started := false
		for i, b := range p.browsers {
			if b == nil && !p.starting[i] {
				p.starting[i] = true
				p.wg.Add(1)
				p.mu.Unlock()
				startErr = p.restart(ctx, i, nil)
				p.mu.Lock()
				started = true
				break
			}
		}
		ch := p.changed
		p.mu.Unlock()
		if startErr != nil {
			return nil, 0, startErr
		}
		if started {
			// The new browser's tabs are free: look again. The start's
			// notification is already past, and waiting for the next
			// one would wait until another rendering ends.
			continue
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, 0, ctx.Err()
		}
	}
}

// release frees the tab; a browser that served RecycleAfter renderings or
// grew beyond MaxBrowserMemory is drained, then restarted in the background
// when its last tab is freed.
func (p *Pool) release(b *browser, slot int, crashed bool) {
	var mem int64
	p.mu.Lock()
	measure := b.pid > 0 && !crashed && time.Since(b.measured) >= memoryEvery
	if measure {
		b.measured = time.Now()
	}
	p.mu.Unlock()
	if measure {
		mem = treeMemory(b.pid)
	}
	p.mu.Lock()
	b.inUse--
	p.stats.InUse--
	if crashed || b.served >= p.opts.RecycleAfter || mem > p.opts.MaxBrowserMemory {
		b.draining = true
	}
	restart := b.draining && b.inUse == 0 && !p.closed && p.browsers[slot] == b
	if restart {
		p.browsers[slot] = nil
		p.starting[slot] = true
		p.stats.Browsers--
		p.wg.Add(1)
	}
	p.notify()
	p.mu.Unlock()
	if restart {
		// The caller does not wait for the new browser: renderings
		// waiting for a tab get it when it is up; a failed start is
		// retried by acquire.
		go func() { _ = p.restart(context.Background(), slot, b) }()
	}
	p.wg.Done()
}

// restart stops old (when not nil) and starts a browser in slot.
func (p *Pool) restart(ctx context.Context, slot int, old *browser) error {
	defer p.wg.Done()
	if old != nil {
		old.stop(p, true)
	}
	nb, err := p.start(ctx)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.starting[slot] = false
	if err == nil && p.closed {
		nb.cancel()
		if nb.home != "" {
			_ = os.RemoveAll(nb.home)
		}
		return fmt.Errorf("%w: the pool is closed", render.ErrUnavailable)
	}
	if err == nil {
		p.browsers[slot] = nb
		p.stats.Browsers++
		if old != nil {
			p.stats.Restarts++
		}
	}
	p.notify()
	return err
}

// notify wakes the renderings waiting for a tab; p.mu is held.
func (p *Pool) notify() {
	close(p.changed)
	p.changed = make(chan struct{})
}

// Stats returns the pool's counters.
func (p *Pool) Stats() Stats {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stats
}

// Close stops every browser process and waits for the renderings in
// progress, which end with an error. It is safe to call more than once.
func (p *Pool) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	bs := append([]*browser(nil), p.browsers...)
	p.notify()
	p.mu.Unlock()
	for _, b := range bs {
		if b != nil {
			b.stop(p, false)
		}
	}
	p.wg.Wait()
	p.mu.Lock()
	bs = append(bs[:0], p.browsers...)
	for i := range p.browsers {
		p.browsers[i] = nil
	}
	p.stats.Browsers = 0
	p.mu.Unlock()
	for _, b := range bs {
		if b != nil {
			b.stop(p, false)
		}
	}
	if p.bproxy != nil {
		p.bproxy.close()
	}
	return nil
}

// treeMemory is the memory in bytes of pid and its descendants, read from
// /proc: each process's PSS (proportional set size: its private pages and
// its share of the pages it shares, such as the browser program's), or its
// RSS where PSS cannot be read; 0 where /proc cannot be read. Summed RSS
// would count the shared pages once per process, so it grows with the
// number of renderer processes rather than with what they use.
func treeMemory(pid int) int64 {
	var total int64
	for _, n := range processTree(pid) {
		if pss, ok := procKB(n, "smaps_rollup", "Pss:"); ok {
			total += pss
		} else if rss, ok := procKB(n, "status", "VmRSS:"); ok {
			total += rss
		}
	}
	return total
}

// processTree lists pid and its descendants, read from /proc.
func processTree(pid int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	children := map[int][]int{}
	for _, e := range entries {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if pp := parentPID(n); pp > 0 {
			children[pp] = append(children[pp], n)
		}
	}
	var out []int
	seen := map[int]bool{}
	queue := []int{pid}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		if seen[n] {
			continue
		}
		seen[n] = true
		out = append(out, n)
		queue = append(queue, children[n]...)
	}
	return out
}

// parentPID reads the parent of pid from /proc/pid/stat.
func parentPID(pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 2 {
		return 0
	}
	pp, _ := strconv.Atoi(f[1])
	return pp
}

// procKB reads the value in kB of the line of /proc/pid/file that starts
// with key, in bytes; false when the process or the line is missing.
func procKB(pid int, file, key string) (int64, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/" + file)
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, key); ok {
			f := strings.Fields(v)
			if len(f) > 0 {
				kb, err := strconv.ParseInt(f[0], 10, 64)
				return kb << 10, err == nil
			}
		}
	}
	return 0, false
}

var errCrashed = errors.New("render: the browser stopped")

// browserPIDs lists the processes of the running browsers, children
// included.
func (p *Pool) browserPIDs() []int {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []int
	for _, b := range p.browsers {
		if b != nil && b.pid > 0 {
			out = append(out, processTree(b.pid)...)
		}
	}
	return out
}
