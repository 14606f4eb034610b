package redislimit

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seokit/seokit/httpapi/ratelimit"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/seo"
)

// Defaults of Options.
const (
	DefaultPrefix  = "seokit:rl:"
	DefaultDayTTL  = 40 * 24 * time.Hour
	DefaultTimeout = time.Second
	// MaxUsageDays is the longest range Usage reads at once.
	MaxUsageDays = 400
)

// Options configure a Limiter. The zero value is ready to use; nil means
// the zero value.
type Options struct {
	// Prefix starts every key; empty means DefaultPrefix. It should not
	// contain braces, which would put every account in one Cluster slot.
	Prefix string
	// DayTTL is how long a day's count is kept after its first request;
	// zero means 40 days.
	DayTTL time.Duration
	// Timeout bounds dialing, reading and writing of the client Open
	// creates; zero means one second. New leaves the given client as it is.
	Timeout time.Duration
}

var (
	_ ratelimit.Limiter = (*Limiter)(nil)
	_ ratelimit.Pinger  = (*Limiter)(nil)
)

// Limiter is a ratelimit.Limiter keeping its state in Redis. It is safe
// for concurrent use, and any number of Limiters over one Redis share the
// limits exactly.
type Limiter struct {
	rdb    redis.UniversalClient
	prefix string
	ttl    int64 // seconds
	own    bool  // Close closes rdb
}

// New returns a Limiter over client; opts may be nil.
func New(client redis.UniversalClient, opts *Options) *Limiter {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Prefix == "" {
		o.Prefix = DefaultPrefix
	}
	if o.DayTTL <= 0 {
		o.DayTTL = DefaultDayTTL
	}
	return &Limiter{rdb: client, prefix: o.Prefix, ttl: int64(math.Ceil(o.DayTTL.Seconds()))}
}

// Open connects to the Redis server of a redis:// or rediss:// URL (with
// an optional password and database number, as redis.ParseURL reads it),
// checks it answers PING, and returns a Limiter whose Close closes the
// connection. A bad URL is a *seo.InputError on field "redisUrl"; a server
// that does not answer, an error wrapping store.ErrUnavailable.
func Open(ctx context.Context, url string, opts *Options) (*Limiter, error) {
	ro, err := redis.ParseURL(url)
	if err != nil {
		return nil, &seo.InputError{Field: "redisUrl", Value: redactURL(url), Reason: err.Error()}
	}
	timeout := DefaultTimeout
	if opts != nil && opts.Timeout > 0 {
		timeout = opts.Timeout
	}
	ro.DialTimeout, ro.ReadTimeout, ro.WriteTimeout = timeout, timeout, timeout
	ro.MaxRetries = -1   // a retried script could count a request twice
	ro.DialerRetries = 1 // a refused dial answers at once, not after 5 tries
	c := redis.NewClient(ro)
	if err := c.Ping(ctx).Err(); err != nil {
		c.Close()
		return nil, fmt.Errorf("redislimit: ping %s: %w: %w", ro.Addr, store.ErrUnavailable, err)
	}
	l := New(c, opts)
	l.own = true
	return l, nil
}

// redactURL hides a password in a URL for error messages.
func redactURL(s string) string {
	if i := strings.Index(s, "@"); i >= 0 {
		if j := strings.Index(s, "://"); j >= 0 && j < i {
			return s[:j+3] + "xxxxx" + s[i:]
		}
	}
	return s
}

// Close closes the connection when Open made it.
func (l *Limiter) Close() error {
	if l.own {
		return l.rdb.Close()
	}
	return nil
}

// Ping reports whether Redis answers; the error wraps
// store.ErrUnavailable.
func (l *Limiter) Ping(ctx context.Context) error {
	if err := l.rdb.Ping(ctx).Err(); err != nil {
		return l.fail(ctx, "ping", err)
	}
	return nil
}

// takeScript is the whole of Take.
//
// KEYS[1] bucket, KEYS[2] day count. ARGV: now (Unix µs), interval (whole
// µs per token), burst, daily limit, day TTL (s). Every time is a whole
// number of microseconds, which Lua's doubles hold exactly (below 2^53,
// year 2255). The bucket key's expiry is capped at 40 days. Returns {count, refused, wait}:
// refused 0 = admitted, 1 = burst, 2 = daily; wait in whole µs.
var takeScript = redis.NewScript(`
local now = tonumber(ARGV[1])
local interval = tonumber(ARGV[2])
local burst = tonumber(ARGV[3])
local daily = tonumber(ARGV[4])
local count = tonumber(redis.call('GET', KEYS[2]) or '0')
if count >= daily then
  return {count, 2, 0}
end
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
if tat < now then tat = now end
local newtat = tat + interval
local over = newtat - interval * burst - now
if over > 0 then
  return {count, 1, math.ceil(over)}
end
count = redis.call('INCR', KEYS[2])
if count == 1 then
  redis.call('EXPIRE', KEYS[2], ARGV[5])
end
-- The bucket is full again, and its key useless, once now passes newtat.
-- Redis expires keys by its own clock, not by the callers': a minute's
-- margin keeps callers whose clocks lag from finding a bucket gone early.
local px = math.min(math.ceil((newtat - now) / 1000) + 60000, 3456000000)
redis.call('SET', KEYS[1], string.format('%d', newtat), 'PX', string.format('%d', px))
return {count, 0, 0}
`)

func (l *Limiter) bucketKey(account string) string {
	return l.prefix + "{" + account + "}:b"
}

func (l *Limiter) dayKey(account string, day time.Time) string {
	return l.prefix + "{" + account + "}:d:" + day.Format(time.DateOnly)
}

// Take counts one request in one script run. A Redis failure is an error
// wrapping store.ErrUnavailable (fail closed).
func (l *Limiter) Take(ctx context.Context, req ratelimit.Request) (ratelimit.Result, error) {
	if err := ratelimit.Check(&req); err != nil {
		return ratelimit.Result{}, fmt.Errorf("redislimit: take: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return ratelimit.Result{}, fmt.Errorf("redislimit: take: %w", err)
	}
	now := req.Now.UnixMicro()
	// Whole microseconds: rates above 1e6/s count as 1e6/s.
	interval := int64(max(1, math.Round(1e6/req.Rate)))
	window := float64(interval) * float64(req.Burst)
	if window > 1<<52 {
		// A bucket of more than 142 years: the same as no burst limit,
		// kept within what the script computes exactly.
		interval = max(1, int64(float64(1<<52)/float64(req.Burst)))
	}
	v, err := takeScript.Run(ctx, l.rdb,
		[]string{l.bucketKey(req.Account), l.dayKey(req.Account, ratelimit.Day(req.Now))},
		now, interval, req.Burst, req.Daily, l.ttl).Int64Slice()
	if err != nil {
		return ratelimit.Result{}, l.fail(ctx, "take", err)
	}
	if len(v) != 3 {
		return ratelimit.Result{}, fmt.Errorf("redislimit: take: %w: script answered %d values", store.ErrUnavailable, len(v))
	}
	res := ratelimit.Result{Count: int(v[0])}
	switch v[1] {
	case 0:
	case 1:
		res.Refused, res.RetryAfter = ratelimit.BurstLimit, time.Duration(v[2])*time.Microsecond
	default:
		res.Refused = ratelimit.DailyLimit
	}
	return res, nil
}

// Usage reads the day counts of [from, to] (at most MaxUsageDays days) with
// one MGET.
func (l *Limiter) Usage(ctx context.Context, account string, from, to time.Time) ([]store.Usage, error) {
	if account == "" {
		return nil, fmt.Errorf("redislimit: usage: %w", &seo.InputError{Field: "account", Reason: "is empty"})
	}
	from, to = ratelimit.Day(from), ratelimit.Day(to)
	if to.Before(from) {
		return nil, nil
	}
	if to.Sub(from) >= MaxUsageDays*24*time.Hour {
		return nil, fmt.Errorf("redislimit: usage: %w", &seo.InputError{Field: "from", Value: from.Format(time.DateOnly),
			Reason: "the range is longer than " + strconv.Itoa(MaxUsageDays) + " days"})
	}
	var days []time.Time
	var keys []string
	for d := from; !d.After(to); d = d.AddDate(0, 0, 1) {
		days = append(days, d)
		keys = append(keys, l.dayKey(account, d))
	}
	vals, err := l.rdb.MGet(ctx, keys...).Result()
	if err != nil {
		return nil, l.fail(ctx, "usage", err)
	}
	var out []store.Usage
	for i, v := range vals {
		s, ok := v.(string)
		if !ok {
			continue // nil: no requests that day
		}
		n, err := strconv.Atoi(s)
		if err != nil {
			return nil, fmt.Errorf("redislimit: usage: corrupt count %q under %s", s, keys[i])
		}
		out = append(out, store.Usage{Day: days[i], Count: n})
	}
	return out, nil
}

// fail wraps a Redis error: the caller's cancellation as itself, anything
// else as store.ErrUnavailable.
func (l *Limiter) fail(ctx context.Context, op string, err error) error {
	if ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
		return fmt.Errorf("redislimit: %s: %w", op, err)
	}
	return fmt.Errorf("redislimit: %s: %w: %w", op, store.ErrUnavailable, err)
}

// Component names the limiter in the API's outage messages and health
// checks (httpapi.Component).
func (l *Limiter) Component() string { return "Redis rate limiter" }
