package crawler

import (
	"context"
	"errors"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// politeness enforces the per-host limits: requests in flight, request rate
// (or robots.txt Crawl-delay), and back-off after 429 and 503 answers.
type politeness struct {
	conc     int
	rate     float64
	maxDelay time.Duration
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
	sem chan struct{}
	lim *rate.Limiter // nil: unlimited

	mu        sync.Mutex
	notBefore time.Time
	strikes   int
}

func newPoliteness(o *Options, crawlDelay func(string) time.Duration) *politeness {
	p := &politeness{conc: o.PerHostConcurrency, rate: o.PerHostRate, maxDelay: o.MaxCrawlDelay, now: o.Now, hosts: map[string]*hostGate{}}
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
	conc, r := p.conc, p.rate
	if p.crawlDelay != nil {
		// Looked up outside the lock: it may fetch robots.txt.
		if d := p.crawlDelay(host); d > 0 {
			d = min(d, p.maxDelay)
			conc, r = 1, 1/d.Seconds()
		}
	}
	g = &hostGate{sem: make(chan struct{}, conc)}
	if r > 0 && !math.IsInf(r, 1) {
		g.lim = rate.NewLimiter(rate.Limit(r), 1)
	}
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
	if g.lim != nil {
		if err := g.lim.Wait(ctx); err != nil {
			<-g.sem
			return nil, err
		}
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
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
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
	wait, ok := parseRetryAfter(retryAfter, now)
	if !ok {
		wait = time.Second << min(g.strikes-1, 6)
	}
	wait = min(max(wait, 0), maxBackoff)
	if t := now.Add(wait); t.After(g.notBefore) {
		g.notBefore = t
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

// parseRetryAfter reads a Retry-After value: delay seconds or an HTTP date.
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n < 0 {
			return 0, false
		}
		if n > int64(maxBackoff/time.Second) {
			return maxBackoff, true
		}
		return time.Duration(n) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return t.Sub(now), true
	}
	return 0, false
}
