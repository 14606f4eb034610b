package redisfrontier

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/seo"
)

var _ crawler.HostGate = (*HostGate)(nil)

// DefaultGatePrefix is the default key prefix of a HostGate.
const DefaultGatePrefix = "seokit:hostgate:"

// GateOptions configure a HostGate. The zero value is ready to use.
type GateOptions struct {
	// Prefix starts every key of the gate; zero means DefaultGatePrefix.
	// Gates with one prefix on one server share their per-host limits,
	// whatever crawl they serve.
	Prefix string
}

// HostGate is a crawler.HostGate kept in Redis, so that the per-host rate
// and Crawl-delay hold for every crawl process using the same server and
// prefix together.
//
// Each host has one key holding its theoretical arrival time (GCRA, the
// generic cell rate algorithm): a Wait reserves the next start slot in one
// Lua script, using the server's clock, and sleeps until it. With interval
// I and burst B, the starts in any window of length W number at most
// B + W/I, however many workers ask. A slot reserved by a Wait whose
// context ends is not given back, which only ever slows the host down.
type HostGate struct {
	rdb    redis.UniversalClient
	prefix string
}

// NewHostGate returns a gate on the Redis server behind rdb; the client
// stays the caller's. opts may be nil.
func NewHostGate(rdb redis.UniversalClient, opts *GateOptions) (*HostGate, error) {
	if rdb == nil {
		return nil, &seo.InputError{Field: "client", Reason: "is nil"}
	}
	g := &HostGate{rdb: rdb, prefix: DefaultGatePrefix}
	if opts != nil && opts.Prefix != "" {
		if strings.ContainsAny(opts.Prefix, "*?[]\\ \t\r\n") {
			return nil, &seo.InputError{Field: "prefix", Value: opts.Prefix, Reason: "may not contain glob characters or white space"}
		}
		g.prefix = opts.Prefix
	}
	return g, nil
}

// gateScript reserves a start slot (KEYS[1]: the host's theoretical
// arrival time in µs; KEYS[2]: its pause flag; ARGV: interval µs, burst).
// It returns the µs to wait before starting, or minus the µs of a pause,
// after which the caller asks again.
var gateScript = redis.NewScript(`
local pause = redis.call('PTTL', KEYS[2])
if pause > 0 then return -pause * 1000 end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local iv = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
if tat < now then tat = now end
local newtat = tat + iv
local wait = newtat - burst * iv - now
if wait < 0 then wait = 0 end
redis.call('SET', KEYS[1], string.format('%.0f', newtat), 'PX', math.floor((newtat - now) / 1000) + 1000)
return wait
`)

// pauseScript keeps the host paused for at least ARGV[1] ms.
var pauseScript = redis.NewScript(`
local ms = tonumber(ARGV[1])
if redis.call('PTTL', KEYS[1]) < ms then redis.call('SET', KEYS[1], '1', 'PX', ms) end
return 0
`)

func (g *HostGate) keys(host string) []string {
	k := g.prefix + host
	return []string{k + ":tat", k + ":pause"}
}

// Wait reserves the next start slot of host under limit and sleeps until
// it. It returns ctx.Err() when ctx ends first, and an error wrapping the
// client's when Redis cannot be asked.
func (g *HostGate) Wait(ctx context.Context, host string, limit crawler.HostLimit) error {
	if err := limit.Validate(); err != nil {
		return err
	}
	iv := max(limit.Interval.Microseconds(), 1)
	keys := g.keys(host)
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		us, err := gateScript.Run(ctx, g.rdb, keys, iv, limit.Burst).Int64()
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("redisfrontier: host gate: %w", err)
		}
		if us == 0 {
			return nil
		}
		if err := seo.Sleep(ctx, time.Duration(max(us, -us))*time.Microsecond); err != nil {
			return err
		}
		if us > 0 {
			return nil
		}
	}
}

// Pause keeps every worker's requests to host from starting before until.
func (g *HostGate) Pause(ctx context.Context, host string, until time.Time) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	ms := time.Until(until).Milliseconds()
	if ms <= 0 {
		return nil
	}
	if err := pauseScript.Run(ctx, g.rdb, g.keys(host)[1:], ms).Err(); err != nil {
		return fmt.Errorf("redisfrontier: host gate pause: %w", err)
	}
	return nil
}
