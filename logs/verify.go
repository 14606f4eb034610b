package logs

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Resolver is the DNS a Verifier asks: reverse lookups of client
// addresses and forward lookups of the names they give. *net.Resolver is
// one; NewDNSResolver points one at a given server.
type Resolver interface {
	LookupAddr(ctx context.Context, addr string) ([]string, error)
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

var _ Resolver = (*net.Resolver)(nil)

// NewDNSResolver returns a Resolver that asks the DNS server at addr
// ("127.0.0.1:53") over UDP, falling back to TCP, with Go's resolver.
func NewDNSResolver(addr string) *net.Resolver {
	return &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, network, addr)
	}}
}

// VerdictStatus is the outcome of a bot verification.
type VerdictStatus string

// Verdicts on a request that names a bot of the registry.
const (
	// Verified: the address is in the operator's published ranges, or its
	// reverse DNS name is under the operator's domains and resolves back
	// to it.
	Verified VerdictStatus = "verified"
	// Spoofed: the operator publishes how to verify its bot and the
	// address fails it. Spoofed hits are not counted as the bot's.
	Spoofed VerdictStatus = "spoofed"
	// Unverifiable: the operator publishes no way to verify, the log has
	// no client address, or the lookups failed or were not made (Reason).
	Unverifiable VerdictStatus = "unverifiable"
)

// Verdict is the verification of one client address for one bot.
type Verdict struct {
	Status VerdictStatus `json:"status"`
	// Method is "ranges" or "rdns" for verified and spoofed verdicts.
	Method string `json:"method,omitempty"`
	Reason string `json:"reason"`
}

// VerifierOptions configures a Verifier. Zero values are the defaults.
type VerifierOptions struct {
	// Resolver answers the DNS lookups; nil means net.DefaultResolver.
	Resolver Resolver
	// Ranges gives the published range files; nil means none are read, so
	// bots verified only by ranges are unverifiable.
	Ranges RangeSource
	// DisableDNS skips reverse DNS: bots verifiable only by it are
	// unverifiable ("dns disabled").
	DisableDNS bool
	// MaxEntries caps the cached verdicts (one per operator and address);
	// zero means 100,000. A full cache drops its oldest entries.
	MaxEntries int
	// MaxLookups caps the DNS verifications of each Analyze that uses
	// the Verifier, and those of direct Verify and VerifyAll calls
	// together; beyond it, addresses that need DNS are unverifiable
	// ("lookup budget spent"), so a log of a million forged addresses
	// costs a bounded number of queries, and one such log does not
	// spend the budget of the other analyses sharing the Verifier (and
	// its cache), such as a server's. Zero means 20,000.
	MaxLookups int
	// TTL is how long a verdict is kept; zero means 24 hours.
	TTL time.Duration
	// FailureTTL is how long an unverifiable verdict from a failed lookup
	// (DNS error or timeout, range files unavailable) is kept, so that a
	// DNS server that does not answer costs one timeout per address, not
	// one per batch of lines; zero means 10 minutes.
	FailureTTL time.Duration
	// LookupTimeout bounds one verification's DNS queries; zero means 5 s.
	LookupTimeout time.Duration
	// MaxLookupTime caps the time the DNS verifications of each Analyze
	// spend waiting for answers, summed over the verifications; beyond
	// it, addresses that need DNS are unverifiable ("DNS time spent").
	// MaxLookups alone let a log of addresses whose reverse DNS never
	// answers (a zone its sender runs) take a timeout for each:
	// 20,000 × 5 s / 16 at once, 1 h 44 min of a server's job worker for
	// one upload. Zero means 360 times LookupTimeout: 30 minutes at the
	// default 5 s, 20,000 verifications of 90 ms, and about 2 minutes of
	// an analysis's time at the default Concurrency when every lookup
	// times out.
	MaxLookupTime time.Duration
	// Concurrency caps the verifications run at once by VerifyAll; zero
	// means 16.
	Concurrency int
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Verifier checks that requests naming a bot come from its operator, with
// forward-confirmed reverse DNS and the operator's published ranges. It
// caches verdicts per operator and address; it is safe for concurrent use.
type Verifier struct {
	o       VerifierOptions
	mu      sync.Mutex
	cache   map[verifyKey]cached
	order   []verifyKey // insertion order, for eviction
	lookups int         // DNS verifications made
	direct  int         // those made outside an Analyze, against MaxLookups
}

type verifyKey struct {
	op string
	ip netip.Addr
}

type cached struct {
	v   Verdict
	exp time.Time
}

// NewVerifier returns a Verifier.
func NewVerifier(opts *VerifierOptions) *Verifier {
	v := &Verifier{cache: map[verifyKey]cached{}}
	if opts != nil {
		v.o = *opts
	}
	if v.o.Resolver == nil {
		v.o.Resolver = net.DefaultResolver
	}
	if v.o.MaxEntries <= 0 {
		v.o.MaxEntries = 100_000
	}
	if v.o.MaxLookups <= 0 {
		v.o.MaxLookups = 20_000
	}
	if v.o.TTL <= 0 {
		v.o.TTL = 24 * time.Hour
	}
	if v.o.FailureTTL <= 0 {
		v.o.FailureTTL = 10 * time.Minute
	}
	if v.o.LookupTimeout <= 0 {
		v.o.LookupTimeout = 5 * time.Second
	}
	if v.o.MaxLookupTime <= 0 {
		v.o.MaxLookupTime = 360 * v.o.LookupTimeout
	}
	if v.o.Concurrency <= 0 {
		v.o.Concurrency = 16
	}
	if v.o.Now == nil {
		v.o.Now = time.Now
	}
	return v
}

// key is the cache key of a verification: bots of one operator share the
// same rules, except those verified by their own range files.
func key(b *Bot, ip netip.Addr) verifyKey {
	k := b.Operator
	if len(b.Ranges) > 0 && b.Operator != "Google" && b.Operator != "Microsoft" {
		k += "/" + strings.Join(b.Ranges, ",")
	}
	return verifyKey{op: k, ip: ip}
}

// Cached returns the cached verdict of ip for b, if any.
func (v *Verifier) Cached(b *Bot, ip netip.Addr) (Verdict, bool) {
	k := key(b, ip)
	v.mu.Lock()
	defer v.mu.Unlock()
	c, ok := v.cache[k]
	if !ok || v.o.Now().After(c.exp) {
		return Verdict{}, false
	}
	return c.v, true
}

// Lookups returns the number of DNS verifications made, by every
// analysis and call.
func (v *Verifier) Lookups() int {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.lookups
}

// Verify returns the verdict on a request for bot b from ip, from the cache
// or by checking the published ranges, then DNS.
func (v *Verifier) Verify(ctx context.Context, b *Bot, ip netip.Addr) Verdict {
	if !ip.IsValid() {
		return Verdict{Status: Unverifiable, Reason: "the log records no client address"}
	}
	if b == Undeclared {
		return Verdict{Status: Unverifiable, Reason: "not a bot of the registry"}
	}
	if !b.Verifiable() {
		return Verdict{Status: Unverifiable, Reason: b.Operator + " publishes no way to verify " + b.Token}
	}
	if c, ok := v.Cached(b, ip); ok {
		return c
	}
	vd, ttl := v.verify(ctx, b, ip)
	if ttl > 0 {
		v.put(key(b, ip), vd, ttl)
	}
	return vd
}

func (v *Verifier) put(k verifyKey, vd Verdict, ttl time.Duration) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if _, ok := v.cache[k]; !ok {
		for len(v.cache) >= v.o.MaxEntries && len(v.order) > 0 {
			delete(v.cache, v.order[0])
			v.order = v.order[1:]
		}
		v.order = append(v.order, k)
	}
	v.cache[k] = cached{v: vd, exp: v.o.Now().Add(ttl)}
}

// verify returns the verdict and how long to cache it (zero: not at all).
func (v *Verifier) verify(ctx context.Context, b *Bot, ip netip.Addr) (Verdict, time.Duration) {
	var rangeErrs []string
	loaded := 0
	if v.o.Ranges != nil {
		for _, name := range b.Ranges {
			l, err := v.o.Ranges.Ranges(ctx, name)
			if err != nil {
				if ctx.Err() != nil {
					return Verdict{Status: Unverifiable, Reason: "stopped: " + ctx.Err().Error()}, 0
				}
				rangeErrs = append(rangeErrs, err.Error())
				continue
			}
			loaded++
			if l.Contains(ip) {
				r := "in " + b.Operator + "'s published ranges (" + name
				if !l.Created.IsZero() {
					r += ", created " + l.Created.Format(time.DateOnly)
				}
				return Verdict{Status: Verified, Method: "ranges", Reason: r + ")"}, v.o.TTL
			}
		}
	}
	if len(b.RDNS) == 0 || v.o.DisableDNS {
		switch {
		case loaded > 0 && loaded == len(b.Ranges):
			return Verdict{Status: Spoofed, Method: "ranges", Reason: "outside " + b.Operator + "'s published ranges for " + b.Token}, v.o.TTL
		case len(b.RDNS) > 0:
			return Verdict{Status: Unverifiable, Reason: "reverse DNS disabled"}, 0
		case v.o.Ranges == nil:
			return Verdict{Status: Unverifiable, Reason: "no range source configured"}, 0
		default:
			return Verdict{Status: Unverifiable, Reason: "range files unavailable: " + strings.Join(rangeErrs, "; ")}, v.o.FailureTTL
		}
	}
	spent := Verdict{Status: Unverifiable, Reason: fmt.Sprintf("lookup budget spent (%d DNS verifications)", v.o.MaxLookups)}
	if lb, _ := ctx.Value(lookupBudgetKey{}).(*lookupBudget); lb != nil {
		if time.Duration(lb.waited.Load()) >= v.o.MaxLookupTime {
			return Verdict{Status: Unverifiable, Reason: fmt.Sprintf("DNS time spent (%v of lookups)", v.o.MaxLookupTime)}, 0
		}
		if lb.used.Add(1) > int64(v.o.MaxLookups) {
			lb.used.Add(-1)
			return spent, 0
		}
		v.mu.Lock()
		v.lookups++
		v.mu.Unlock()
		start := time.Now()
		defer func() { lb.waited.Add(int64(time.Since(start))) }()
		return v.rdns(ctx, b, ip)
	}
	v.mu.Lock()
	if v.direct >= v.o.MaxLookups {
		v.mu.Unlock()
		return spent, 0
	}
	v.direct++
	v.lookups++
	v.mu.Unlock()
	return v.rdns(ctx, b, ip)
}

// lookupBudget counts the DNS verifications of one analysis and the time
// they waited, in nanoseconds (see VerifierOptions.MaxLookups and
// MaxLookupTime); Analyze puts it in the context of its verifications.
type lookupBudget struct{ used, waited atomic.Int64 }

type lookupBudgetKey struct{}

func withLookupBudget(ctx context.Context) (context.Context, *lookupBudget) {
	lb := &lookupBudget{}
	return context.WithValue(ctx, lookupBudgetKey{}, lb), lb
}

// rdns is forward-confirmed reverse DNS, as Google and Bing document it:
// the PTR name must be under one of the operator's domains, and resolve
// back to the address.
func (v *Verifier) rdns(ctx context.Context, b *Bot, ip netip.Addr) (Verdict, time.Duration) {
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, v.o.LookupTimeout)
	defer cancel()
	names, err := v.o.Resolver.LookupAddr(ctx, ip.String())
	if err != nil {
		var de *net.DNSError
		if errors.As(err, &de) && de.IsNotFound {
			return Verdict{Status: Spoofed, Method: "rdns", Reason: "the address has no reverse DNS name"}, v.o.TTL
		}
		if parent.Err() != nil {
			return Verdict{Status: Unverifiable, Reason: "stopped: " + parent.Err().Error()}, 0
		}
		return Verdict{Status: Unverifiable, Reason: "reverse DNS failed: " + dnsFailure(err)}, v.o.FailureTTL
	}
	if len(names) > 10 {
		names = names[:10]
	}
	var under []string
	for _, n := range names {
		n = strings.ToLower(strings.TrimSuffix(n, "."))
		for _, suf := range b.RDNS {
			if n == suf || strings.HasSuffix(n, "."+suf) {
				under = append(under, n)
				break
			}
		}
	}
	if len(under) == 0 {
		name := "none"
		if len(names) > 0 {
			name = strings.TrimSuffix(names[0], ".")
		}
		return Verdict{Status: Spoofed, Method: "rdns", Reason: fmt.Sprintf("reverse DNS name %s is not under %s", name, strings.Join(b.RDNS, ", "))}, v.o.TTL
	}
	var lastErr error
	for _, n := range under {
		addrs, err := v.o.Resolver.LookupNetIP(ctx, "ip", n)
		if err != nil {
			lastErr = err
			continue
		}
		for _, a := range addrs {
			if a.Unmap() == ip {
				return Verdict{Status: Verified, Method: "rdns", Reason: "reverse DNS " + n + " resolves back to the address"}, v.o.TTL
			}
		}
	}
	if lastErr != nil {
		var de *net.DNSError
		if !errors.As(lastErr, &de) || !de.IsNotFound {
			if parent.Err() != nil {
				return Verdict{Status: Unverifiable, Reason: "stopped: " + parent.Err().Error()}, 0
			}
			return Verdict{Status: Unverifiable, Reason: "forward DNS failed: " + dnsFailure(lastErr)}, v.o.FailureTTL
		}
	}
	return Verdict{Status: Spoofed, Method: "rdns", Reason: "reverse DNS name " + under[0] + " does not resolve back to the address"}, v.o.TTL
}

// VerifyRequest is one verification asked of VerifyAll.
type VerifyRequest struct {
	Bot *Bot
	IP  netip.Addr
}

// VerifyAll verifies reqs with at most Options.Concurrency at once and
// returns their verdicts in order. It returns when all are done or ctx
// ends (the rest are then unverifiable); no goroutine outlives it.
func (v *Verifier) VerifyAll(ctx context.Context, reqs []VerifyRequest) []Verdict {
	out := make([]Verdict, len(reqs))
	sem := make(chan struct{}, v.o.Concurrency)
	var wg sync.WaitGroup
	for i, r := range reqs {
		if ctx.Err() != nil {
			out[i] = Verdict{Status: Unverifiable, Reason: "stopped: " + ctx.Err().Error()}
			continue
		}
		if c, ok := v.Cached(r.Bot, r.IP); ok {
			out[i] = c
			continue
		}
		acquired := false
		select {
		case sem <- struct{}{}:
			acquired = true
		case <-ctx.Done():
		}
		if ctx.Err() != nil { // a slot freed as ctx ended: start nothing more
			if acquired {
				<-sem
			}
			out[i] = Verdict{Status: Unverifiable, Reason: "stopped: " + ctx.Err().Error()}
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			out[i] = v.Verify(ctx, r.Bot, r.IP)
		}()
	}
	wg.Wait()
	return out
}

// dnsFailure says why a lookup failed without the names, addresses and
// ports of the query, so that the failures of many addresses count under
// one reason.
func dnsFailure(err error) string {
	var de *net.DNSError
	switch {
	case errors.As(err, &de) && de.IsTimeout:
		return "timeout"
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.As(err, &de):
		msg := de.Err
		if i := strings.LastIndex(msg, ": "); i >= 0 {
			msg = msg[i+2:]
		}
		return msg
	}
	return err.Error()
}
