package crux

import (
	"context"
	"crypto/sha256"
	"sync"
	"time"

	"github.com/seokit/seokit/seo"
)

// DefaultPerMinute is CrUX's documented query limit: 150 queries a minute
// per Google Cloud project (developer.chrome.com/docs/crux/api, "API key"
// and "Limitations"). An API key belongs to one project, so a limiter per
// key paces the project.
const DefaultPerMinute = 150

// DefaultRetryAfter is how long a 429 without a Retry-After pauses the
// key's queries: the length of CrUX's quota window.
const DefaultRetryAfter = time.Minute

// MaxRetries is how many times one query refused with 429 is sent again,
// after the pause the refusal asked for, before its error is returned.
const MaxRetries = 2

// Clock tells the time and waits; tests pass their own.
type Clock interface {
	Now() time.Time
	// Sleep waits d or until ctx ends, returning ctx's error then.
	Sleep(ctx context.Context, d time.Duration) error
}

type wallClock struct{}

func (wallClock) Now() time.Time                                   { return time.Now() }
func (wallClock) Sleep(ctx context.Context, d time.Duration) error { return seo.Sleep(ctx, d) }

// LimiterOptions configures a Limiter; the zero value is CrUX's
// documented limit on the wall clock.
type LimiterOptions struct {
	// PerWindow is the queries allowed in any Window; zero means
	// DefaultPerMinute.
	PerWindow int
	// Window is the length of the quota window; zero means a minute.
	// Tests scale it down.
	Window time.Duration
	// Clock times the window; nil means the wall clock.
	Clock Clock
}

// Limiter paces the queries of one CrUX project: never more than
// PerWindow started in any Window, a query counting from its start until
// its answer came (a query still in flight may reach Google late, so its
// end bounds when Google counted it), and none at all while a 429's
// Retry-After runs. It is safe for concurrent use; every Source with the
// same key shares one unless given its own.
type Limiter struct {
	mu     sync.Mutex
	per    int
	window time.Duration
	clock  Clock
	// ring holds the end times of the last per queries; a zero entry is
	// a query in flight.
	ring        []time.Time
	next        int
	pausedUntil time.Time
	changed     chan struct{}
}

// NewLimiter returns a Limiter; nil opts means the documented limit.
func NewLimiter(opts *LimiterOptions) *Limiter {
	var o LimiterOptions
	if opts != nil {
		o = *opts
	}
	if o.PerWindow <= 0 {
		o.PerWindow = DefaultPerMinute
	}
	if o.Window <= 0 {
		o.Window = time.Minute
	}
	if o.Clock == nil {
		o.Clock = wallClock{}
	}
	return &Limiter{per: o.PerWindow, window: o.Window, clock: o.Clock, ring: make([]time.Time, 0, min(o.PerWindow, 4096))}
}

// Wait blocks until one more query may start, counts it, and returns a
// done func to call when its answer has come. It returns ctx's error when
// ctx ends first.
func (l *Limiter) Wait(ctx context.Context) (done func(), err error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		l.mu.Lock()
		now := l.clock.Now()
		var wait time.Duration
		pending := false
		switch {
		case now.Before(l.pausedUntil):
			wait = l.pausedUntil.Sub(now)
		case len(l.ring) == l.per:
			oldest := l.ring[l.next]
			switch {
			case oldest.IsZero():
				pending = true
			case oldest.Add(l.window).After(now):
				wait = oldest.Add(l.window).Sub(now)
			}
		}
		if !pending && wait == 0 {
			i := len(l.ring)
			if i < l.per {
				l.ring = append(l.ring, time.Time{})
			} else {
				i = l.next
				l.ring[i] = time.Time{}
				l.next = (l.next + 1) % l.per
			}
			l.mu.Unlock()
			var once sync.Once
			return func() {
				once.Do(func() {
					l.mu.Lock()
					defer l.mu.Unlock()
					l.ring[i] = l.clock.Now()
					if l.changed != nil {
						close(l.changed)
						l.changed = nil
					}
				})
			}, nil
		}
		if l.changed == nil {
			l.changed = make(chan struct{})
		}
		ch := l.changed
		l.mu.Unlock()
		if pending {
			// The oldest query of the window is still in flight.
			select {
			case <-ch:
				continue
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		if err := l.clock.Sleep(ctx, wait); err != nil {
			return nil, err
		}
	}
}

// Pause stops every query of the limiter for d from now, as a 429's
// Retry-After asks; a longer pause already set is kept.
func (l *Limiter) Pause(d time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if until := l.clock.Now().Add(d); until.After(l.pausedUntil) {
		l.pausedUntil = until
	}
}

// shared holds the process's limiter of each API key (by its SHA-256, so
// the map keeps no key). A process configures a handful of keys, so the
// map is not pruned.
var shared sync.Map

// limiterFor returns the process's shared limiter of key.
func limiterFor(key string) *Limiter {
	h := sha256.Sum256([]byte(key))
	if l, ok := shared.Load(h); ok {
		return l.(*Limiter)
	}
	l, _ := shared.LoadOrStore(h, NewLimiter(nil))
	return l.(*Limiter)
}
