package crawler

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/seokit/seokit/seo"
)

// HostLimit is the request rate allowed to one host: Burst requests may
// start at once, then one every Interval.
type HostLimit struct {
	// Interval is the time between two request starts; it must be positive.
	Interval time.Duration
	// Burst is how many requests may start back to back after a quiet
	// spell; it must be at least 1.
	Burst int
}

// Validate reports a bad limit as a *seo.InputError.
func (l HostLimit) Validate() error {
	if l.Interval <= 0 {
		return &seo.InputError{Field: "limit.interval", Value: l.Interval.String(), Reason: "must be positive"}
	}
	if l.Burst < 1 {
		return &seo.InputError{Field: "limit.burst", Value: strconv.Itoa(l.Burst), Reason: "must be at least 1"}
	}
	return nil
}

// HostGate spaces the requests of a crawl to each host. The crawler asks it
// before every request to a host whose rate is limited; a gate shared by
// several crawl processes (see package redisfrontier) makes the per-host
// rate and Crawl-delay hold for all of them together. Implementations must
// be safe for concurrent use.
//
// Wait blocks until a request to host may start under limit and returns
// nil, or returns ctx.Err() when ctx ends first, or an error when the gate
// cannot decide (a shared gate whose store is unreachable): the crawler
// then stops rather than crawl without a limit. Pause keeps every request
// to host from starting before until (a 429 or 503 answer's Retry-After).
type HostGate interface {
	Wait(ctx context.Context, host string, limit HostLimit) error
	Pause(ctx context.Context, host string, until time.Time) error
}

var _ HostGate = (*LocalHostGate)(nil)

// LocalHostGate is the default HostGate: a token bucket per host
// (golang.org/x/time/rate) in this process. Crawls sharing one
// LocalHostGate share its per-host limits. The zero value is ready to use.
type LocalHostGate struct {
	mu    sync.Mutex
	hosts map[string]*localHost
}

type localHost struct {
	mu        sync.Mutex
	lim       *rate.Limiter
	limit     HostLimit
	notBefore time.Time
}

// NewLocalHostGate returns an empty in-process gate.
func NewLocalHostGate() *LocalHostGate { return &LocalHostGate{} }

func (g *LocalHostGate) host(host string) *localHost {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.hosts == nil {
		g.hosts = map[string]*localHost{}
	}
	h := g.hosts[host]
	if h == nil {
		h = &localHost{}
		g.hosts[host] = h
	}
	return h
}

// Wait blocks until a request to host may start under limit. A host's
// bucket takes the limit of the first call; a later call with another limit
// resets it.
func (g *LocalHostGate) Wait(ctx context.Context, host string, limit HostLimit) error {
	if err := limit.Validate(); err != nil {
		return err
	}
	h := g.host(host)
	for {
		h.mu.Lock()
		wait := time.Until(h.notBefore)
		h.mu.Unlock()
		if wait <= 0 {
			break
		}
		if err := seo.Sleep(ctx, wait); err != nil {
			return err
		}
	}
	h.mu.Lock()
	if h.lim == nil || h.limit != limit {
		r := rate.Inf
		if per := limit.Interval.Seconds(); per > 0 && !math.IsInf(1/per, 1) {
			r = rate.Limit(1 / per)
		}
		h.lim, h.limit = rate.NewLimiter(r, limit.Burst), limit
	}
	lim := h.lim
	h.mu.Unlock()
	if err := lim.Wait(ctx); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		// The limiter refuses at once a wait that would outlast ctx's
		// deadline.
		return fmt.Errorf("crawler: host gate: %w", context.DeadlineExceeded)
	}
	return nil
}

// Pause keeps requests to host from starting before until.
func (g *LocalHostGate) Pause(ctx context.Context, host string, until time.Time) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	h := g.host(host)
	h.mu.Lock()
	if until.After(h.notBefore) {
		h.notBefore = until
	}
	h.mu.Unlock()
	return nil
}

// hostLimit returns the limit of a request rate in requests per second and
// a burst; ok is false when the rate is unlimited.
func hostLimit(perSecond float64, burst int) (HostLimit, bool) {
	if perSecond <= 0 || math.IsInf(perSecond, 1) || math.IsNaN(perSecond) {
		return HostLimit{}, false
	}
	iv := time.Duration(float64(time.Second) / perSecond)
	if iv <= 0 {
		return HostLimit{}, false
	}
	return HostLimit{Interval: iv, Burst: max(burst, 1)}, true
}

// gateError wraps a host gate's failure for the crawl.
func gateError(err error) error { return fmt.Errorf("crawler: host gate: %w", err) }
