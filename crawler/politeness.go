package crawler

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/seokit/seokit/seo"
)

// politeness enforces the per-host limits: requests in flight, request rate
// (or robots.txt Crawl-delay), and back-off after 429 and 503 answers.
type politeness struct {
	conc     int
	rate     float64
	burst    int
	maxDelay time.Duration
	// gate spaces the requests to each host; it is shared between workers
	// when Options.HostGate is.
	hgate HostGate
	// crawlDelay returns a host's Crawl-delay (zero: none); nil when
	// Crawl-delay is not honoured.
	crawlDelay func(host string) time.Duration
	now        func() time.Time

	mu    sync.Mutex
	hosts map[string]*hostGate
}

// errHostAbandoned is returned for hosts that kept answering 429 or 503.
var errHostAbandoned = errors.New("crawler: host abandoned after repeated 429/503 answers")

type hostGate struct {
	sem     chan struct{}
	limit   HostLimit
	limited bool // false: no rate limit
	// delay is the host's Crawl-delay when honoured: its one request in
	// flight at a time starts no sooner than delay after the previous one
	// ended, so the site sees the delay between requests whatever the
	// time they spend in transit or being answered.
	delay time.Duration

	mu        sync.Mutex
	notBefore time.Time
	strikes   int
}

func newPoliteness(o *Options, crawlDelay func(string) time.Duration) *politeness {
	p := &politeness{conc: o.PerHostConcurrency, rate: o.PerHostRate, burst: o.PerHostBurst, maxDelay: o.MaxCrawlDelay,
		hgate: o.HostGate, now: o.Now, hosts: map[string]*hostGate{}}
	if p.hgate == nil {
		p.hgate = NewLocalHostGate()
	}
	if o.HonorCrawlDelay {
		p.crawlDelay = crawlDelay
	}
	return p
}

func (p *politeness) gate(host string) *hostGate {
	p.mu.Lock()
	g := p.hosts[host]
	p.mu.Unlock()
	if g != nil {
		return g
	}
	conc, r, burst := p.conc, p.rate, p.burst
	var delay time.Duration
	if p.crawlDelay != nil {
		// Looked up outside the lock: it may fetch robots.txt.
		if d := p.crawlDelay(host); d > 0 {
			delay = min(d, p.maxDelay)
			conc, r, burst = 1, 1/delay.Seconds(), 1
		}
	}
	g = &hostGate{sem: make(chan struct{}, conc), delay: delay}
	g.limit, g.limited = hostLimit(r, burst)
	p.mu.Lock()
	defer p.mu.Unlock()
	if old := p.hosts[host]; old != nil {
		return old
	}
	p.hosts[host] = g
	return g
}

// acquire waits until a request to host may start and returns the function
// that ends it.
func (p *politeness) acquire(ctx context.Context, host string) (release func(), err error) {
	g := p.gate(host)
	g.mu.Lock()
	dead := g.strikes >= abandonStrikes
	g.mu.Unlock()
	if dead {
		return nil, errHostAbandoned
	}
	if err := g.waitBackoff(ctx, p.now); err != nil {
		return nil, err
	}
	select {
	case g.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if g.delay > 0 {
		// The previous request's release set the earliest start.
		if err := g.waitBackoff(ctx, p.now); err != nil {
			<-g.sem
			return nil, err
		}
	}
	if g.limited {
		if err := p.hgate.Wait(ctx, host, g.limit); err != nil {
			<-g.sem
			if ctx.Err() == nil && !errors.Is(err, context.DeadlineExceeded) {
				err = gateError(err)
			}
			return nil, err
		}
	}
	if g.delay > 0 {
		return func() {
			g.mu.Lock()
			if t := p.now().Add(g.delay); t.After(g.notBefore) {
				g.notBefore = t
			}
			g.mu.Unlock()
			<-g.sem
		}, nil
	}
	return func() { <-g.sem }, nil
}

func (g *hostGate) waitBackoff(ctx context.Context, now func() time.Time) error {
	for {
		g.mu.Lock()
		wait := g.notBefore.Sub(now())
		g.mu.Unlock()
		if wait <= 0 {
			return nil
		}
		if err := seo.Sleep(ctx, wait); err != nil {
			return err
		}
	}
}

// backoff records a 429 or 503 answer from host: no request starts before
// Retry-After (or, without one, 1 s doubling with each strike), at most
// maxBackoff. It returns the wait.
func (p *politeness) backoff(host string, retryAfter string) time.Duration {
	g := p.gate(host)
	now := p.now()
	g.mu.Lock()
	defer g.mu.Unlock()
	g.strikes++
	wait, ok := seo.ParseRetryAfter(retryAfter, now)
	if !ok {
		wait = time.Second << min(g.strikes-1, 6)
	}
	wait = min(max(wait, 0), maxBackoff)
	if t := now.Add(wait); t.After(g.notBefore) {
		g.notBefore = t
	}
	if wait > 0 {
		// Other workers sharing the gate wait too; a failure here only
		// loses that courtesy, this worker still waits.
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		p.hgate.Pause(ctx, host, time.Now().Add(wait))
		cancel()
	}
	return wait
}

// success resets a host's back-off strikes.
func (p *politeness) success(host string) {
	p.mu.Lock()
	g := p.hosts[host]
	p.mu.Unlock()
	if g == nil {
		return
	}
	g.mu.Lock()
	g.strikes = 0
	g.mu.Unlock()
}
