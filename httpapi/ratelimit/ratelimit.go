// Package ratelimit counts API requests against each account's limits: a
// short-term burst limit (a token bucket) and a daily quota per UTC day.
//
// Limiter is the driver interface. Local, the default, keeps the daily
// counts in the API's store and the buckets in this process; the redislimit
// driver keeps both in Redis, so that several API instances share them.
package ratelimit

import (
	"context"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/seokit/seokit/httpapi/store"
)

// Request is one request to count.
type Request struct {
	// Account is the account the request is counted for.
	Account string
	// Now is the request's time; its UTC date is the quota's day.
	Now time.Time
	// Daily is the account's limit per UTC day.
	Daily int
	// Rate (tokens per second) and Burst (bucket size) are the account's
	// short-term limit.
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
	// included when it was admitted.
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

var _ Limiter = (*Local)(nil)

// Local is the single-process Limiter: daily counts in a store.Limits (so
// a restart resets nothing), token buckets in memory.
type Local struct {
	st store.Limits

	mu      sync.Mutex
	buckets map[string]*rate.Limiter
}

// NewLocal returns a Local counting daily requests in st.
func NewLocal(st store.Limits) *Local {
	return &Local{st: st, buckets: map[string]*rate.Limiter{}}
}

// Take takes a token of the account's bucket, then a unit of its daily
// quota.
func (l *Local) Take(ctx context.Context, req Request) (Result, error) {
	l.mu.Lock()
	b := l.buckets[req.Account]
	if b == nil || b.Limit() != rate.Limit(req.Rate) || b.Burst() != req.Burst {
		b = rate.NewLimiter(rate.Limit(req.Rate), req.Burst)
		l.buckets[req.Account] = b
	}
	l.mu.Unlock()
	res := b.ReserveN(req.Now, 1)
	if d := res.DelayFrom(req.Now); d > 0 {
		res.CancelAt(req.Now)
		return Result{Refused: BurstLimit, RetryAfter: d}, nil
	}
	now := req.Now.UTC()
	day := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	n, ok, err := l.st.Take(ctx, req.Account, day, req.Daily)
	if err != nil {
		res.CancelAt(req.Now)
		return Result{}, err
	}
	if !ok {
		res.CancelAt(req.Now)
		return Result{Count: n, Refused: DailyLimit}, nil
	}
	return Result{Count: n}, nil
}

// Usage reads the daily counts from the store.
func (l *Local) Usage(ctx context.Context, account string, from, to time.Time) ([]store.Usage, error) {
	return l.st.Usage(ctx, account, from, to)
}
