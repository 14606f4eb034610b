package auth

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/netip"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/seokit/seokit/internal/keyed"
)

// ErrThrottled matches the errors of a Throttle that refuses an attempt
// ([*ThrottledError]).
var ErrThrottled = errors.New("auth: too many failed attempts")

// ThrottledError is a refusal of a [Throttle]: the caller answers 429 with
// Retry-After.
type ThrottledError struct {
	// RetryAfter is how long until an attempt may succeed; at least one
	// second.
	RetryAfter time.Duration
}

func (e *ThrottledError) Error() string {
	return fmt.Sprintf("auth: too many failed attempts; retry in %s", e.RetryAfter)
}

// Is makes a ThrottledError match ErrThrottled.
func (e *ThrottledError) Is(target error) bool { return target == ErrThrottled }

// RetryAfterSeconds is the value of a Retry-After header for err: the
// seconds of a *ThrottledError rounded up, 1 for other errors.
func RetryAfterSeconds(err error) int {
	var te *ThrottledError
	if errors.As(err, &te) {
		return max(1, int(math.Ceil(te.RetryAfter.Seconds())))
	}
	return 1
}

// Defaults of ThrottleOptions.
const (
	DefaultPairBurst     = 10
	DefaultPairEvery     = 2 * time.Second
	DefaultAddrBurst     = 100
	DefaultAddrEvery     = time.Second
	DefaultIdentityBurst = 100
	DefaultIdentityEvery = time.Second
	DefaultSlowDelay     = time.Second
	DefaultThrottleMax   = 100_000
)

// ThrottleOptions configures a Throttle. Zero fields take the defaults.
type ThrottleOptions struct {
	// PairBurst failed attempts of one identity from one address are
	// allowed at once, then one per PairEvery (default 10, 2 s). The
	// pair's budget is checked before the secret is.
	PairBurst int
	PairEvery time.Duration
	// AddrBurst failures from one address (an IPv6 /64), over every
	// identity and of credentials naming none, then one per AddrEvery
	// (default 100, 1 s). Checked after the secret: a credential that
	// verifies is never refused because of this budget.
	AddrBurst int
	AddrEvery time.Duration
	// IdentityBurst failures of one identity over every address, then one
	// per IdentityEvery (default 100, 1 s). Past it the identity is slowed,
	// never refused.
	IdentityBurst int
	IdentityEvery time.Duration
	// SlowDelay is how long an attempt on a slowed identity waits before
	// its secret is checked (default 1 s).
	SlowDelay time.Duration
	// MaxEntries bounds each of the three tables (default 100,000).
	MaxEntries int
	// Now returns the current time; nil means time.Now.
	Now func() time.Time
}

// Throttle slows down the guessing of secrets (client secrets, passwords,
// API keys) while a correct secret keeps working. It keeps failures in
// three bounded tables of token buckets:
//
//   - per (address, identity): the budget of one identity from one
//     address; when it is spent, attempts of that identity from that
//     address are refused, even with the right secret, until it refills;
//   - per address: failures over every identity from one address (IPv6
//     addresses count per /64); when spent, further failures are answered
//     429 instead of 401, and they no longer add entries to the tables, so
//     one address cannot flush other clients' state;
//   - per identity: failures over every address; when spent, every attempt
//     on the identity waits SlowDelay first and a new address starts with
//     one attempt instead of PairBurst. The identity is slowed, never
//     locked: the right secret from a fresh address succeeds.
//
// Requests without credentials are no attempts and must not be recorded.
// A Throttle is safe for concurrent use.
type Throttle struct {
	o     ThrottleOptions
	mu    sync.Mutex
	pairs *bucketTable
	addrs *bucketTable
	ids   *bucketTable
}

// NewThrottle returns a Throttle; o may be nil.
func NewThrottle(o *ThrottleOptions) *Throttle {
	var opts ThrottleOptions
	if o != nil {
		opts = *o
	}
	def := func(n *int, d int) {
		if *n <= 0 {
			*n = d
		}
	}
	defd := func(n *time.Duration, d time.Duration) {
		if *n <= 0 {
			*n = d
		}
	}
	def(&opts.PairBurst, DefaultPairBurst)
	def(&opts.AddrBurst, DefaultAddrBurst)
	def(&opts.IdentityBurst, DefaultIdentityBurst)
	def(&opts.MaxEntries, DefaultThrottleMax)
	defd(&opts.PairEvery, DefaultPairEvery)
	defd(&opts.AddrEvery, DefaultAddrEvery)
	defd(&opts.IdentityEvery, DefaultIdentityEvery)
	defd(&opts.SlowDelay, DefaultSlowDelay)
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Throttle{
		o:     opts,
		pairs: newBucketTable(opts.MaxEntries, rate.Every(opts.PairEvery), opts.PairBurst),
		addrs: newBucketTable(opts.MaxEntries, rate.Every(opts.AddrEvery), opts.AddrBurst),
		ids:   newBucketTable(opts.MaxEntries, rate.Every(opts.IdentityEvery), opts.IdentityBurst),
	}
}

// Attempt is one check of a secret, begun with [Throttle.Begin]. Call
// Succeeded or Failed once the secret is checked.
type Attempt struct {
	t        *Throttle
	addr, id string
	pair     *rate.Limiter // the (address, identity) bucket a failure spends
}

// Begin starts an attempt of a secret naming identity (a client_id, an
// email; "" for credentials naming none, such as API keys) sent from
// addr. It refuses with a *ThrottledError when the pair's budget is spent,
// and waits SlowDelay (or until ctx ends) when the identity is slowed.
func (t *Throttle) Begin(ctx context.Context, addr, identity string) (*Attempt, error) {
	a := &Attempt{t: t, addr: addrKey(addr), id: identity}
	if identity == "" {
		return a, nil
	}
	now := t.o.Now()
	t.mu.Lock()
	slowed := false
	if l, ok := t.ids.get(identity); ok && l.TokensAt(now) < 1 {
		slowed = true
	}
	pk := a.addr + "\x00" + identity
	l, ok := t.pairs.get(pk)
	if !ok && t.addrOK(a.addr, now) {
		l = t.pairs.add(pk)
		ok = true
		if slowed {
			l.AllowN(now, t.o.PairBurst-1)
		}
	}
	if ok {
		// Only failures spend the pair's budget, so attempts with the
		// right secret are never refused however many run at once.
		if l.TokensAt(now) < 1 {
			d := wait(l, now)
			t.mu.Unlock()
			return nil, &ThrottledError{RetryAfter: max(d, time.Second)}
		}
		a.pair = l
	}
	t.mu.Unlock()
	if slowed {
		tm := time.NewTimer(t.o.SlowDelay)
		defer tm.Stop()
		select {
		case <-tm.C:
		case <-ctx.Done():
			a.Succeeded() // nothing was checked
			return nil, ctx.Err()
		}
	}
	return a, nil
}

// addrOK reports whether addr has failures left. t.mu is held.
func (t *Throttle) addrOK(addr string, now time.Time) bool {
	l, ok := t.addrs.get(addr)
	return !ok || l.TokensAt(now) >= 1
}

// Succeeded ends an attempt whose secret was right, or that checked
// nothing: it spends nothing.
func (a *Attempt) Succeeded() {
	if a != nil {
		a.pair = nil
	}
}

// Failed ends an attempt whose secret was wrong. It returns a
// *ThrottledError when the address has spent its failures, for the caller
// to answer 429 instead of 401.
func (a *Attempt) Failed() error {
	if a == nil {
		return nil
	}
	t := a.t
	now := t.o.Now()
	t.mu.Lock()
	defer t.mu.Unlock()
	if a.pair != nil {
		a.pair.AllowN(now, 1)
		a.pair = nil
	}
	al, ok := t.addrs.get(a.addr)
	if !ok {
		al = t.addrs.add(a.addr)
	}
	addrOK := al.AllowN(now, 1)
	if a.id != "" {
		il, ok := t.ids.get(a.id)
		if !ok && addrOK {
			il, ok = t.ids.add(a.id), true
		}
		if ok {
			il.AllowN(now, 1)
		}
	}
	if !addrOK {
		return &ThrottledError{RetryAfter: max(wait(al, now), time.Second)}
	}
	return nil
}

// wait is how long until l has a token.
func wait(l *rate.Limiter, now time.Time) time.Duration {
	tok := l.TokensAt(now)
	if tok >= 1 {
		return 0
	}
	return time.Duration((1 - tok) / float64(l.Limit()) * float64(time.Second))
}

// addrKey is the throttle key of an address: IPv6 addresses by their /64,
// which one subscriber usually holds whole.
func addrKey(addr string) string {
	a, err := netip.ParseAddr(addr)
	if err != nil {
		if len(addr) > 64 {
			addr = addr[:64]
		}
		return addr
	}
	a = a.Unmap()
	if a.Is6() {
		p, _ := a.Prefix(64)
		return p.String()
	}
	return a.String()
}

// bucketTable is a token bucket per key, at most max of them; the least
// recently used is dropped first. Its user holds the lock.
type bucketTable struct {
	limit rate.Limit
	burst int
	m     *keyed.Map[*rate.Limiter]
}

func newBucketTable(max int, limit rate.Limit, burst int) *bucketTable {
	return &bucketTable{limit: limit, burst: burst, m: keyed.New[*rate.Limiter](max)}
}

func (b *bucketTable) get(key string) (*rate.Limiter, bool) { return b.m.Get(key) }

// add inserts a full bucket for key, which must be absent.
func (b *bucketTable) add(key string) *rate.Limiter {
	l := rate.NewLimiter(b.limit, b.burst)
	b.m.Add(key, l)
	return l
}

func (b *bucketTable) len() int { return b.m.Len() }
