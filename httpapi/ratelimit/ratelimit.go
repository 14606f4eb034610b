package ratelimit

import (
	"context"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/internal/keyed"
	"github.com/seokit/seokit/seo"
)

// Request is one request to count.
type Request struct {
	// Account is the account the request is counted for.
	Account string
	// Now is the request's time, between 1970 and 2200; its UTC date is
	// the quota's day. Zero means time.Now().
	Now time.Time
	// Daily is the account's limit per UTC day; zero admits nothing.
	Daily int
	// Rate (tokens per second) and Burst (bucket size) are the account's
	// short-term limit; both must be positive.
	Rate  float64
	Burst int
}

// Reason says which limit refused a request.
type Reason string

// Reasons.
const (
	// Admitted means no limit refused the request.
	Admitted Reason = ""
	// BurstLimit means the account sent too many requests at once.
	BurstLimit Reason = "burst"
	// DailyLimit means the account's daily quota is used up.
	DailyLimit Reason = "daily"
)

// Result is the outcome of Take.
type Result struct {
	// Count is the number of requests admitted on the day, this one
	// included when it was admitted. On a burst refusal it is the day's
	// count as last seen by the limiter.
	Count int
	// Refused is Admitted or the limit that refused the request.
	Refused Reason
	// RetryAfter is how long to wait before a retry can succeed (burst
	// refusals; a daily refusal lasts until the next UTC midnight).
	RetryAfter time.Duration
}

// Limiter counts requests. Implementations are safe for concurrent use and
// exact: under any concurrency, across every process sharing the
// implementation's state, at most Daily requests of an account are admitted
// per UTC day. A request refused by either limit counts against neither.
// A failure of the backing service is an error wrapping
// store.ErrUnavailable, never an admission.
type Limiter interface {
	Take(ctx context.Context, req Request) (Result, error)
	// Usage returns the account's daily counts in [from, to], days
	// without requests left out.
	Usage(ctx context.Context, account string, from, to time.Time) ([]store.Usage, error)
}

// Pinger is implemented by limiters with a backing service of their own
// (redislimit), so that a readiness check can see it answer. The error
// wraps store.ErrUnavailable.
type Pinger interface {
	Ping(ctx context.Context) error
}

// Check validates req and fills in a zero Now. Drivers call it first so
// that every driver refuses the same bad input with a *seo.InputError
// naming the field.
func Check(req *Request) error {
	switch {
	case req.Account == "":
		return &seo.InputError{Field: "account", Reason: "is empty"}
	case req.Daily < 0:
		return &seo.InputError{Field: "daily", Value: fmt.Sprint(req.Daily), Reason: "must not be negative"}
	case !(req.Rate > 0) || math.IsInf(req.Rate, 1):
		return &seo.InputError{Field: "rate", Value: fmt.Sprint(req.Rate), Reason: "must be a positive, finite number of requests per second"}
	case req.Burst <= 0:
		return &seo.InputError{Field: "burst", Value: fmt.Sprint(req.Burst), Reason: "must be positive"}
	}
	if req.Now.IsZero() {
		req.Now = time.Now()
	}
	if y := req.Now.UTC().Year(); y < 1970 || y > 2200 {
		return &seo.InputError{Field: "now", Value: req.Now.Format(time.RFC3339), Reason: "must be between 1970 and 2200"}
	}
	return nil
}

// Day returns the UTC midnight starting t's UTC date.
func Day(t time.Time) time.Time {
	t = t.UTC()
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
}

// DefaultMaxAccounts is the number of accounts whose buckets a Local keeps
// in memory when LocalOptions.MaxAccounts is zero.
const DefaultMaxAccounts = 10_000

// DefaultMaxLease is the most requests of one account a Local reserves in
// one store write when LocalOptions.MaxLease is zero.
const DefaultMaxLease = 64

// leaseWindow is how much of an account's recent traffic one lease
// reserves: a lease spent faster than this doubles the next, one spent
// slower shrinks it in proportion.
const leaseWindow = int64(250 * time.Millisecond)

// LocalOptions configure a Local. The zero value is ready to use.
type LocalOptions struct {
	// MaxAccounts bounds the accounts whose burst buckets are kept in
	// memory; the least recently used is dropped first. Zero means
	// DefaultMaxAccounts. A dropped account starts again with a full
	// bucket, which loses nothing when it has been idle for Burst/Rate
	// seconds (4 s with the API's defaults).
	MaxAccounts int
	// MaxLease bounds the requests of one account reserved from the
	// store in one write (see Local). Zero means DefaultMaxLease; 1 (or a
	// negative value) writes every request.
	MaxLease int
}

var _ Limiter = (*Local)(nil)

// Local is the single-process Limiter: daily counts in a store.Limits (so
// a restart resets nothing), burst buckets in memory.
//
// The bucket is a GCRA (generic cell rate algorithm) bucket: one
// "theoretical arrival time" per account, the same algorithm the
// redislimit driver runs in Redis. A request takes a token from the
// bucket, then one unit of the daily quota; a request the quota refuses
// gives its token back.
//
// Units of the daily quota are counted in the store before they are
// spent. An account sending a request now and then takes one unit per
// request (store.Limits.Take). A busy one, on a store that implements
// store.LimitsN, takes a lease of several units in one write and spends
// them from memory: the lease holds about a quarter second of the
// account's recent requests, at most MaxLease and at most 1% of its daily
// limit (so an account of fewer than 200 requests a day is always counted
// one request at a time). Concurrent requests of one account wait for a
// single lease write, and the request that spends half of a lease writes
// the next one while the others spend the rest, so a busy account seldom
// waits for the store at all. The count in the store therefore never lags the
// requests admitted, and across every process sharing the store at most
// Daily requests are admitted per day; what a lease costs is that units
// reserved and not spent before the process stops, or before the day
// ends, stay counted: at most two leases (the one being spent and the one
// written ahead: 2×MaxLease, and 2% of the daily limit) per account and
// process. A unit reserved under a daily limit that
// has since been lowered is not spent past the new limit.
//
// Once the store has answered that an account's count reached its limit
// for the day and the account's lease is spent, later requests of that day
// are refused in memory without a store call: counts never go down within
// a day, so this stays exact, and it keeps the cost of an account
// hammering past its quota to a map lookup.
type Local struct {
	st       store.Limits
	stN      store.LimitsN // st, when it counts several units in one write
	maxLease int

	mu      sync.Mutex
	buckets *keyed.Map[*bucket]
}

// bucket is the in-memory state of one account.
type bucket struct {
	tat   int64 // GCRA theoretical arrival time, Unix nanoseconds
	day   int64 // Unix day number of count and the lease
	count int   // the day's count as last answered by the store

	// The lease: units next+1..end of the day's count are reserved in
	// the store and not spent yet; aheadNext+1..aheadEnd is the lease
	// written ahead, spent once the first is.
	next, end           int
	aheadNext, aheadEnd int
	lease               int           // size of the last lease asked for
	leasedAt            int64         // when it was granted, Unix nanoseconds
	waiting             int           // requests waiting for the write in flight
	writing             chan struct{} // closed when the write in flight ends; nil when none
}

// NewLocal returns a Local counting daily requests in st, with default
// options.
func NewLocal(st store.Limits) *Local {
	return NewLocalWith(st, nil)
}

// NewLocalWith returns a Local counting daily requests in st; opts may be
// nil.
func NewLocalWith(st store.Limits, opts *LocalOptions) *Local {
	var o LocalOptions
	if opts != nil {
		o = *opts
	}
	if o.MaxAccounts <= 0 {
		o.MaxAccounts = DefaultMaxAccounts
	}
	if o.MaxLease == 0 {
		o.MaxLease = DefaultMaxLease
	}
	l := &Local{st: st, maxLease: max(1, o.MaxLease), buckets: keyed.New[*bucket](o.MaxAccounts)}
	l.stN, _ = st.(store.LimitsN)
	return l
}

// Buckets returns the number of accounts whose buckets are in memory.
func (l *Local) Buckets() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buckets.Len()
}

// get returns the account's bucket, creating it (and evicting the least
// recently used one beyond the bound) when absent. l.mu is held.
func (l *Local) get(account string) *bucket {
	return l.buckets.GetOrAdd(account, func() *bucket { return &bucket{} })
}

// gcra holds the bucket arithmetic in integer nanoseconds.
type gcra struct {
	interval int64 // time between two tokens
	window   int64 // interval × burst: how far ahead the bucket may run
}

func newGCRA(rateps float64, burst int) gcra {
	iv := math.Round(float64(time.Second) / rateps)
	if iv < 1 {
		iv = 1 // rates above 1e9/s count as 1e9/s
	}
	w := iv * float64(burst)
	if w > math.MaxInt64/4 {
		w = math.MaxInt64 / 4
	}
	return gcra{interval: int64(iv), window: int64(w)}
}

// take returns the new arrival time, or how long to wait.
func (g gcra) take(tat, now int64) (newTAT int64, wait time.Duration) {
	newTAT = max(tat, now) + g.interval
	if over := newTAT - g.window - now; over > 0 {
		return tat, time.Duration(over)
	}
	return newTAT, 0
}

// leaseSize is how many units the next store write of b reserves at now:
// the last lease doubled when it was spent within leaseWindow, shrunk in
// proportion when it lasted longer, at least the requests waiting for it,
// at most maxLease and 1% of daily. l.mu is held.
func (l *Local) leaseSize(b *bucket, now int64, daily int) int {
	if l.stN == nil || l.maxLease <= 1 {
		return 1
	}
	k := max(b.lease, 1)
	if el := now - b.leasedAt; b.leasedAt == 0 || el < 0 || el >= leaseWindow*int64(k) {
		k = 1 // the first lease of the bucket, a clock gone back, or one request per window at most
	} else if el < leaseWindow {
		k *= 2
	} else {
		k = max(1, int(int64(k)*leaseWindow/el))
	}
	k = max(k, b.waiting+1)
	return max(1, min(k, l.maxLease, daily/100))
}

// spare reports whether a reserved unit is left under daily, moving the
// lease written ahead into place when the current one is spent. l.mu is
// held.
func (b *bucket) spare(daily int) bool {
	if b.next >= b.end && b.aheadNext < b.aheadEnd {
		b.next, b.end, b.aheadNext, b.aheadEnd = b.aheadNext, b.aheadEnd, 0, 0
	}
	return b.next < b.end && b.next < daily
}

// Take takes a token of the account's bucket, then a unit of its daily
// quota. A request refused by either limit counts against neither.
func (l *Local) Take(ctx context.Context, req Request) (Result, error) {
	if err := Check(&req); err != nil {
		return Result{}, fmt.Errorf("ratelimit: take: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return Result{}, fmt.Errorf("ratelimit: take: %w", err)
	}
	now := req.Now.UnixNano()
	dayNum := unixDay(req.Now)
	g := newGCRA(req.Rate, req.Burst)

	l.mu.Lock()
	b := l.get(req.Account)
	for {
		if b.day != dayNum {
			b.day, b.count, b.next, b.end, b.aheadNext, b.aheadEnd = dayNum, 0, 0, 0, 0, 0
		}
		spare := b.spare(req.Daily)
		if !spare && b.count >= req.Daily {
			n := b.count
			l.mu.Unlock()
			return Result{Count: n, Refused: DailyLimit}, nil
		}
		tat, wait := g.take(b.tat, now)
		if wait > 0 {
			n := b.count - b.unspent()
			l.mu.Unlock()
			return Result{Count: n, Refused: BurstLimit, RetryAfter: wait}, nil
		}
		if spare {
			b.tat = tat
			b.next++
			n := b.next
			// Half the lease spent: this request writes the next one
			// while the others spend the rest.
			ahead := b.writing == nil && b.aheadNext == b.aheadEnd && b.lease > 1 && 2*(b.end-b.next) <= b.lease
			if !ahead {
				l.mu.Unlock()
				return Result{Count: n}, nil
			}
			k := l.leaseSize(b, now, req.Daily)
			done := make(chan struct{})
			b.writing = done
			l.mu.Unlock()
			c, taken, err := l.stN.TakeN(ctx, req.Account, Day(req.Now), req.Daily, k)
			l.mu.Lock()
			b.writing = nil
			close(done)
			// A failed write ahead costs nothing: the write when the
			// lease is spent reports the error.
			if err == nil && b.day == dayNum {
				b.count = max(b.count, c)
				if taken > 0 {
					b.aheadNext, b.aheadEnd = c-taken, c
					b.lease, b.leasedAt = k, now
				}
			}
			l.mu.Unlock()
			return Result{Count: n}, nil
		}
		if b.writing == nil {
			b.tat = tat
			break
		}
		// Another request of the account is writing a lease: wait for
		// it, then look again.
		ch := b.writing
		b.waiting++
		l.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			l.mu.Lock()
			b.waiting--
			l.mu.Unlock()
			return Result{}, fmt.Errorf("ratelimit: take: %w", ctx.Err())
		}
		l.mu.Lock()
		b.waiting--
		b = l.get(req.Account) // the bucket may have been evicted meanwhile
	}
	k := l.leaseSize(b, now, req.Daily)
	done := make(chan struct{})
	b.writing = done
	l.mu.Unlock()

	var (
		n, taken int
		err      error
	)
	if k > 1 {
		n, taken, err = l.stN.TakeN(ctx, req.Account, Day(req.Now), req.Daily, k)
	} else {
		var ok bool
		n, ok, err = l.st.Take(ctx, req.Account, Day(req.Now), req.Daily)
		if ok {
			taken = 1
		}
	}

	l.mu.Lock()
	defer l.mu.Unlock()
	b.writing = nil
	close(done)
	if err != nil || taken == 0 {
		b.tat -= g.interval // give the token back
	}
	if err != nil {
		return Result{}, err
	}
	if b.day == dayNum {
		b.count = max(b.count, n)
		if taken > 1 {
			b.next, b.end = n-taken+1, n
		}
		b.lease, b.leasedAt = k, now
	}
	if taken == 0 {
		return Result{Count: n, Refused: DailyLimit}, nil
	}
	return Result{Count: n - taken + 1}, nil
}

// unixDay is the number of whole UTC days from the Unix epoch to t.
func unixDay(t time.Time) int64 {
	s := t.Unix()
	d := s / 86400
	if s%86400 < 0 {
		d--
	}
	return d
}

// Usage reads the daily counts from the store, less the units this Local
// holds reserved and unspent (other processes' stay in the counts).
func (l *Local) Usage(ctx context.Context, account string, from, to time.Time) ([]store.Usage, error) {
	us, err := l.st.Usage(ctx, account, from, to)
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	var day int64
	unspent := 0
	if b, ok := l.buckets.Get(account); ok {
		day, unspent = b.day, b.unspent()
	}
	l.mu.Unlock()
	if unspent == 0 {
		return us, nil
	}
	out := us[:0]
	for _, u := range us {
		if unixDay(u.Day) == day {
			u.Count -= unspent
		}
		if u.Count > 0 {
			out = append(out, u)
		}
	}
	return out, nil
}

// unspent is the number of units reserved in the store and not spent.
// l.mu is held.
func (b *bucket) unspent() int {
	return max(0, b.end-b.next) + max(0, b.aheadEnd-b.aheadNext)
}
