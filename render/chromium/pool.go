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

	"github.com/chromedp/chromedp"

	"github.com/seokit/seokit/render"
	"github.com/seokit/seokit/seo"
)

// Defaults of the zero Options fields.
const (
	DefaultBrowsers         = 1
	DefaultTabs             = 4
	DefaultRecycleAfter     = 100
	DefaultMaxBrowserMemory = 1 << 30
)

// ExecNames are the programs looked for on PATH, in order, when neither
// Options.ExecPath nor $SEOKIT_CHROMIUM names the browser.
var ExecNames = []string{"chromium", "chromium-browser", "google-chrome", "chrome"}

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
	// MaxBrowserMemory caps the resident memory (RSS, read from /proc) of a
	// browser's process tree in bytes: above it the browser is drained and
	// restarted; zero means DefaultMaxBrowserMemory.
	MaxBrowserMemory int64
	// Fetcher governs every connection the browser makes: its dial-time
	// address policy and allowed ports apply to each request, redirect hop
	// and WebSocket; zero means seo.NewFetcher(nil).
	Fetcher *seo.Fetcher
}

// Stats are a pool's counters.
type Stats struct {
	// Renderings counts the renderings started.
	Renderings int64 `json:"renderings"`
	// Restarts counts browser restarts (recycling, memory, crashes).
	Restarts int64 `json:"restarts"`
	// InUse is the number of renderings in progress.
	InUse int `json:"inUse"`
	// Browsers is the number of browser processes running.
	Browsers int `json:"browsers"`
}

// Pool renders pages with a bounded pool of headless Chromium processes.
// It implements render.Renderer and is safe for concurrent use.
type Pool struct {
	opts Options
	exec string
	dial dialFunc

	mu       sync.Mutex
	changed  chan struct{} // closed and replaced when a tab is freed
	browsers []*browser    // nil while (re)starting or after a failed start
	starting []bool
	closed   bool
	stats    Stats
	wg       sync.WaitGroup // renderings and restarts in progress
	bproxy   *proxy         // the proxy of the browsers' own default context
}

// browser is one browser process.
type browser struct {
	ctx      context.Context // the browser's chromedp context
	cancel   context.CancelFunc
	pid      int
	inUse    int
	served   int
	draining bool
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
// WebRTC UDP, background services).
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
			"IsolateOrigins,site-per-process,HttpsUpgrades,PrivacySandboxSettings4"),
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
		chromedp.Flag("disable-print-preview", true),
		chromedp.Flag("block-new-web-contents", true),
	}
}

// start launches one browser.
func (p *Pool) start(ctx context.Context) (*browser, error) {
	opts := append(chromedp.DefaultExecAllocatorOptions[:], p.flags()...)
	allocCtx, allocCancel := chromedp.NewExecAllocator(context.Background(), opts...)
	bctx, bcancel := chromedp.NewContext(allocCtx)
	cancel := func() {
		bcancel()
		allocCancel()
	}
	stop := context.AfterFunc(ctx, cancel)
	err := chromedp.Do(bctx)
	if !stop() && err == nil {
		err = ctx.Err()
	}
	if err != nil {
		cancel()
		return nil, fmt.Errorf("%w: starting %s: %v", render.ErrUnavailable, p.exec, err)
	}
	b := &browser{ctx: bctx, cancel: cancel}
	if c := chromedp.FromContext(bctx); c != nil && c.Browser != nil && c.Browser.Process() != nil {
		b.pid = c.Browser.Process().Pid
	}
	return b, nil
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
			if b != nil && !b.draining && b.inUse < p.opts.Tabs {
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
		for i, b := range p.browsers {
			if b == nil && !p.starting[i] {
				p.starting[i] = true
				p.wg.Add(1)
				p.mu.Unlock()
				p.restart(ctx, i, nil)
				p.mu.Lock()
				break
			}
		}
		ch := p.changed
		p.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, 0, ctx.Err()
		}
	}
}

// release frees the tab; a browser that served RecycleAfter renderings or
// grew beyond MaxBrowserMemory is drained, then restarted when its last tab
// is freed.
func (p *Pool) release(b *browser, slot int, crashed bool) {
	var rss int64
	if b.pid > 0 && !crashed {
		rss = treeRSS(b.pid)
	}
	p.mu.Lock()
	b.inUse--
	p.stats.InUse--
	if crashed || b.served >= p.opts.RecycleAfter || rss > p.opts.MaxBrowserMemory {
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
		p.restart(context.Background(), slot, b)
	}
	p.wg.Done()
}

// restart stops old (when not nil) and starts a browser in slot.
func (p *Pool) restart(ctx context.Context, slot int, old *browser) {
	defer p.wg.Done()
	if old != nil {
		old.cancel()
	}
	nb, err := p.start(ctx)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.starting[slot] = false
	if err == nil && p.closed {
		nb.cancel()
		return
	}
	if err == nil {
		p.browsers[slot] = nb
		p.stats.Browsers++
		if old != nil {
			p.stats.Restarts++
		}
	}
	p.notify()
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
			b.cancel()
		}
	}
	p.wg.Wait()
	p.mu.Lock()
	for i, b := range p.browsers {
		if b != nil {
			b.cancel()
			p.browsers[i] = nil
		}
	}
	p.stats.Browsers = 0
	p.mu.Unlock()
	if p.bproxy != nil {
		p.bproxy.close()
	}
	return nil
}

// treeRSS is the resident memory in bytes of pid and its descendants, read
// from /proc; 0 where /proc cannot be read.
func treeRSS(pid int) int64 {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0
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
	var total int64
	seen := map[int]bool{}
	queue := []int{pid}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		if seen[n] {
			continue
		}
		seen[n] = true
		total += processRSS(n)
		queue = append(queue, children[n]...)
	}
	return total
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

// processRSS reads VmRSS of pid from /proc/pid/status.
func processRSS(pid int) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			f := strings.Fields(v)
			if len(f) > 0 {
				kb, _ := strconv.ParseInt(f[0], 10, 64)
				return kb << 10
			}
		}
	}
	return 0
}

var errCrashed = errors.New("render: the browser stopped")
