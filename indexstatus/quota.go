package indexstatus

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/seokit/seokit/seo"
)

// Documented URL Inspection quotas, per Search Console property.
const (
	// DefaultPerMinute is the inspections a property allows per minute.
	DefaultPerMinute = 600
	// DefaultPerDay is the inspections a property allows per day.
	DefaultPerDay = 2000
)

// MaxProperties bounds the properties a Ledger remembers; the oldest day's
// entries are dropped first.
const MaxProperties = 10000

// ErrDailyQuota means a property's daily inspections are spent. It wraps
// seo.ErrRateLimited.
var ErrDailyQuota = fmt.Errorf("indexstatus: the property's daily inspection quota is spent: %w", seo.ErrRateLimited)

// Quota is the inspections a property allows. Zero fields mean the
// documented defaults.
type Quota struct {
	PerMinute int `json:"perMinute"`
	PerDay    int `json:"perDay"`
}

func (q Quota) withDefaults() Quota {
	if q.PerMinute <= 0 {
		q.PerMinute = DefaultPerMinute
	}
	if q.PerDay <= 0 {
		q.PerDay = DefaultPerDay
	}
	return q
}

// Clock tells the time and waits; tests pass a virtual one.
type Clock interface {
	Now() time.Time
	// Sleep waits d or until ctx ends, returning ctx's error then.
	Sleep(ctx context.Context, d time.Duration) error
}

type wallClock struct{}

func (wallClock) Now() time.Time                                   { return time.Now() }
func (wallClock) Sleep(ctx context.Context, d time.Duration) error { return seo.Sleep(ctx, d) }

// WallClock is the real clock.
var WallClock Clock = wallClock{}

// pacific is the time zone Google's daily quotas reset in.
var pacific = func() *time.Location {
	if l, err := time.LoadLocation("America/Los_Angeles"); err == nil {
		return l
	}
	return time.FixedZone("PST", -8*3600)
}()

// usage is one property's inspections: the times of the last PerMinute
// ones (a ring) and the count of its current day.
type usage struct {
	ring  []time.Time
	next  int
	day   string
	count int
}

// Counter counts inspections where several processes see them: a
// property's quota is Google's, whichever process inspects. The API
// server adapts its store to it (httpapi/store.IndexStatus). A Counter
// must count atomically: under any concurrency neither quota is passed.
type Counter interface {
	// Take counts one inspection of property made at now, on day (a
	// Pacific-time date), within q: no more than q.PerMinute in flight or
	// ended less than a minute before now, no more than q.PerDay on day.
	// It returns end, to call with the time the inspection's answer came;
	// or, when the minute is full, a nil end and the time a place frees
	// (zero when every place is held by an inspection in flight); or
	// ErrDailyQuota.
	Take(ctx context.Context, property, day string, now time.Time, q Quota) (end func(at time.Time), retry time.Time, err error)
	// Used returns the inspections counted for property on day.
	Used(ctx context.Context, property, day string) (int, error)
}

// PollInterval is how often a Ledger over a Counter asks again when every
// place of the minute is held by an inspection in flight (possibly in
// another process, whose end it cannot wait for).
const PollInterval = time.Second

// Ledger counts the inspections made per property and paces new ones
// within a Quota: never more than PerMinute in any 60 seconds, never more
// than PerDay in one Pacific-time day (when Google's quotas reset). One
// Ledger should serve every run against the same properties of one
// process; it is safe for concurrent use. NewLedger keeps the counts in
// memory (a restart forgets them); NewSharedLedger keeps them in a
// Counter, shared by every process using it. Search Console's own
// refusals (429) still stop a run.
type Ledger struct {
	mu      sync.Mutex
	q       Quota
	clock   Clock
	counter Counter
	props   map[string]*usage
	// changed is closed when an inspection in flight ends.
	changed chan struct{}
}

// NewSharedLedger returns a Ledger for q that counts in c, timed by clock
// (nil means WallClock).
func NewSharedLedger(q Quota, clock Clock, c Counter) *Ledger {
	l := NewLedger(q, clock)
	l.counter = c
	return l
}

// NewLedger returns a Ledger for q (zero fields are the documented
// defaults), timed by clock (nil means WallClock).
func NewLedger(q Quota, clock Clock) *Ledger {
	if clock == nil {
		clock = WallClock
	}
	return &Ledger{q: q.withDefaults(), clock: clock, props: map[string]*usage{}}
}

// Shared reports whether the ledger counts in a Counter.
func (l *Ledger) Shared() bool { return l.counter != nil }

// Quota returns the ledger's quota.
func (l *Ledger) Quota() Quota { return l.q }

// Clock returns the ledger's clock.
func (l *Ledger) Clock() Clock { return l.clock }

func dayOf(t time.Time) string { return t.In(pacific).Format(time.DateOnly) }

// get returns property's usage, reset for today; l.mu is held.
func (l *Ledger) get(property string, now time.Time) *usage {
	u := l.props[property]
	if u == nil {
		if len(l.props) >= MaxProperties {
			l.evict(now)
		}
		u = &usage{ring: make([]time.Time, 0, min(l.q.PerMinute, 1024))}
		l.props[property] = u
	}
	if d := dayOf(now); u.day != d {
		u.day, u.count = d, 0
	}
	return u
}

// evict drops properties with no inspection today, or all when every one
// has some; l.mu is held.
func (l *Ledger) evict(now time.Time) {
	today := dayOf(now)
	for p, u := range l.props {
		if u.day != today {
			delete(l.props, p)
		}
	}
	if len(l.props) >= MaxProperties {
		clear(l.props)
	}
}

// Remaining returns the inspections property has left today.
func (l *Ledger) Remaining(ctx context.Context, property string) (int, error) {
	n, err := l.UsedToday(ctx, property)
	return max(l.q.PerDay-n, 0), err
}

// UsedToday returns the inspections counted for property today.
func (l *Ledger) UsedToday(ctx context.Context, property string) (int, error) {
	if l.counter != nil {
		return l.counter.Used(ctx, property, dayOf(l.clock.Now()))
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.get(property, l.clock.Now()).count, nil
}

// Take waits until property may make one more inspection within the
// per-minute quota, then counts it and returns its time and a done func to
// call when the inspection's answer has come. Until done is called the
// inspection holds its place in the minute as if made now: a request
// still on its way may reach the provider late, and only its end bounds
// when the provider counted it. Take returns ErrDailyQuota when the day's
// inspections are spent, and ctx's error when ctx ends first; over a
// Counter, the Counter's error.
func (l *Ledger) Take(ctx context.Context, property string) (at time.Time, done func(), err error) {
	if l.counter != nil {
		return l.takeShared(ctx, property)
	}
	for {
		if err := ctx.Err(); err != nil {
			return time.Time{}, nil, err
		}
		l.mu.Lock()
		now := l.clock.Now()
		u := l.get(property, now)
		if u.count >= l.q.PerDay {
			l.mu.Unlock()
			return time.Time{}, nil, ErrDailyQuota
		}
		var wait time.Duration
		pending := false
		if len(u.ring) == l.q.PerMinute {
			oldest := u.ring[u.next]
			switch {
			case oldest.IsZero():
				pending = true
			case oldest.Add(time.Minute).After(now):
				wait = oldest.Add(time.Minute).Sub(now)
			}
		}
		if !pending && wait == 0 {
			i := len(u.ring)
			if i < l.q.PerMinute {
				u.ring = append(u.ring, time.Time{})
			} else {
				i = u.next
				u.ring[i] = time.Time{}
				u.next = (u.next + 1) % l.q.PerMinute
			}
			u.count++
			day := u.day
			l.mu.Unlock()
			var once sync.Once
			return now, func() {
				once.Do(func() {
					l.mu.Lock()
					defer l.mu.Unlock()
					if u.day == day && i < len(u.ring) && u.ring[i].IsZero() {
						u.ring[i] = l.clock.Now()
					}
					l.wake()
				})
			}, nil
		}
		ch := l.waitCh()
		l.mu.Unlock()
		if pending {
			// The oldest inspection of the minute is still in flight.
			select {
			case <-ch:
				continue
			case <-ctx.Done():
				return time.Time{}, nil, ctx.Err()
			}
		}
		if err := l.clock.Sleep(ctx, wait); err != nil {
			return time.Time{}, nil, err
		}
	}
}

// takeShared is Take over the ledger's Counter.
func (l *Ledger) takeShared(ctx context.Context, property string) (time.Time, func(), error) {
	for {
		if err := ctx.Err(); err != nil {
			return time.Time{}, nil, err
		}
		now := l.clock.Now()
		end, retry, err := l.counter.Take(ctx, property, dayOf(now), now, l.q)
		if err != nil {
			return time.Time{}, nil, err
		}
		if end != nil {
			var once sync.Once
			return now, func() { once.Do(func() { end(l.clock.Now()) }) }, nil
		}
		wait := PollInterval
		if !retry.IsZero() {
			wait = max(retry.Sub(now), time.Millisecond)
		}
		if err := l.clock.Sleep(ctx, wait); err != nil {
			return time.Time{}, nil, err
		}
	}
}

// waitCh returns a channel closed when an inspection ends; l.mu is held.
func (l *Ledger) waitCh() chan struct{} {
	if l.changed == nil {
		l.changed = make(chan struct{})
	}
	return l.changed
}

// wake closes the waiters' channel; l.mu is held.
func (l *Ledger) wake() {
	if l.changed != nil {
		close(l.changed)
		l.changed = nil
	}
}

// isDaily reports whether err is the ledger's daily refusal.
func isDaily(err error) bool { return errors.Is(err, ErrDailyQuota) }
