package robotstxt

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/seokit/seokit/seo"
)

// FetchFunc fetches a robots.txt URL. It returns the final status and body
// after redirects, or an error when no response could be had. The body
// should be capped at MaxSize+1 bytes.
type FetchFunc func(ctx context.Context, robotsURL string) (status int, body []byte, err error)

// Cache defaults.
const (
	// MaxTTL is the longest a robots.txt is cached (RFC 9309 section 2.4).
	MaxTTL = 24 * time.Hour
	// DefaultErrorTTL is how long an unreachable or 5xx robots.txt is kept
	// before it is fetched again.
	DefaultErrorTTL = time.Minute
	// maxEntries bounds the hosts cached; expired entries are dropped first.
	maxEntries = 10000
)

// CacheOptions configure a [Cache]. The zero value is ready to use.
type CacheOptions struct {
	// TTL is how long a fetched robots.txt is used; zero means 24 h, and
	// longer values are capped at 24 h.
	TTL time.Duration
	// ErrorTTL is how long an unreachable (network error, 5xx, 429)
	// robots.txt is used before a new fetch; zero means one minute. It is
	// capped at TTL.
	ErrorTTL time.Duration
	// UserAgent is the product token used when Allowed is asked for an empty
	// user agent; zero means seo.RobotsToken.
	UserAgent string
	// Now returns the current time (tests); nil means time.Now.
	Now func() time.Time
}

// Cache fetches robots.txt once per origin (scheme://host:port) and keeps it
// for the TTL. Concurrent callers for one origin share one fetch. A Cache is
// safe for concurrent use and implements analyzer.RobotsPolicy.
type Cache struct {
	fetch    FetchFunc
	ttl      time.Duration
	errorTTL time.Duration
	agent    string
	now      func() time.Time

	mu      sync.Mutex
	entries map[string]*entry
}

type entry struct {
	done    chan struct{} // closed when robots is set
	robots  *Robots
	expires time.Time
}

// NewCache returns a cache that fetches with fetch. opts may be nil.
func NewCache(fetch FetchFunc, opts *CacheOptions) *Cache {
	var o CacheOptions
	if opts != nil {
		o = *opts
	}
	if o.TTL <= 0 || o.TTL > MaxTTL {
		o.TTL = MaxTTL
	}
	if o.ErrorTTL <= 0 {
		o.ErrorTTL = DefaultErrorTTL
	}
	if o.ErrorTTL > o.TTL {
		o.ErrorTTL = o.TTL
	}
	if o.UserAgent == "" {
		o.UserAgent = seo.RobotsToken
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Cache{fetch: fetch, ttl: o.TTL, errorTTL: o.ErrorTTL, agent: o.UserAgent, now: o.Now, entries: map[string]*entry{}}
}

// RobotsURL returns the robots.txt URL of u's origin and the cache key
// (scheme://host:port, lowercased, default port filled in). ok is false for
// URLs that are not absolute http(s) URLs.
func RobotsURL(u *url.URL) (robotsURL, key string, ok bool) {
	if u == nil {
		return "", "", false
	}
	scheme := strings.ToLower(u.Scheme)
	host := strings.ToLower(u.Hostname())
	if (scheme != "http" && scheme != "https") || host == "" {
		return "", "", false
	}
	port := u.Port()
	if port == "" {
		port = "80"
		if scheme == "https" {
			port = "443"
		}
	}
	hostport := host
	if strings.IndexByte(host, ':') >= 0 {
		hostport = "[" + host + "]"
	}
	key = scheme + "://" + hostport + ":" + port
	if (scheme == "http" && port != "80") || (scheme == "https" && port != "443") {
		hostport += ":" + port
	}
	return scheme + "://" + hostport + "/robots.txt", key, true
}

// Get returns the robots.txt of u's origin, fetching it when it is not
// cached or has expired. A URL that is not absolute http(s) gets a Robots
// that allows everything. When ctx ends before the fetch does, Get returns
// an unreachable Robots and caches nothing.
func (c *Cache) Get(ctx context.Context, u *url.URL) *Robots {
	robotsURL, key, ok := RobotsURL(u)
	if !ok {
		return &Robots{mode: modeAllowAll}
	}
	for {
		c.mu.Lock()
		e := c.entries[key]
		if e != nil {
			select {
			case <-e.done:
				if c.now().Before(e.expires) {
					c.mu.Unlock()
					return e.robots
				}
				e = nil // expired: fetch again below
			default:
			}
		}
		if e != nil {
			c.mu.Unlock()
			select {
			case <-e.done:
				if e.robots != nil {
					return e.robots
				}
				continue // the leader's context ended; try again
			case <-ctx.Done():
				return unreachableErr(ctx.Err())
			}
		}
		e = &entry{done: make(chan struct{})}
		c.evictLocked()
		c.entries[key] = e
		c.mu.Unlock()
		return c.load(ctx, key, robotsURL, e)
	}
}

// load fetches for e and publishes the result.
func (c *Cache) load(ctx context.Context, key, robotsURL string, e *entry) (r *Robots) {
	defer func() {
		if p := recover(); p != nil {
			c.forget(key, e)
			panic(p)
		}
	}()
	status, body, err := c.fetch(ctx, robotsURL)
	if err != nil && ctx.Err() != nil {
		c.forget(key, e)
		return unreachableErr(err)
	}
	r = fromFetch(status, body, err)
	ttl := c.ttl
	if r.mode == modeDisallowAll {
		ttl = c.errorTTL
	}
	c.mu.Lock()
	e.robots = r
	e.expires = c.now().Add(ttl)
	close(e.done)
	c.mu.Unlock()
	return r
}

// forget drops an in-flight entry without a result, waking its waiters.
func (c *Cache) forget(key string, e *entry) {
	c.mu.Lock()
	if c.entries[key] == e {
		delete(c.entries, key)
	}
	close(e.done)
	c.mu.Unlock()
}

// evictLocked keeps the map bounded: expired entries go first, then any.
func (c *Cache) evictLocked() {
	if len(c.entries) < maxEntries {
		return
	}
	now := c.now()
	for k, e := range c.entries {
		select {
		case <-e.done:
			if !now.Before(e.expires) {
				delete(c.entries, k)
			}
		default:
		}
	}
	for k, e := range c.entries {
		if len(c.entries) < maxEntries*9/10 {
			break
		}
		select {
		case <-e.done:
			delete(c.entries, k)
		default:
		}
	}
}

// fromFetch maps a fetch outcome to a Robots. A redirect chain that cannot
// be followed means the file is unavailable (RFC 9309 section 2.3.1.2), so
// everything is allowed; any other error means unreachable.
func fromFetch(status int, body []byte, err error) *Robots {
	if err != nil {
		if errors.Is(err, seo.ErrTooManyRedirects) || errors.Is(err, seo.ErrRedirectLoop) {
			return &Robots{mode: modeAllowAll, err: err, status: status}
		}
		return unreachableErr(err)
	}
	return FromStatus(status, body)
}

// Allowed reports whether robots.txt lets userAgent (a token or a full
// user-agent string; empty means the cache's UserAgent) crawl rawURL. known
// is false when rawURL is not an absolute http(s) URL and when the address
// policy refuses its host (Robots.Refused): robots.txt does not decide then.
func (c *Cache) Allowed(ctx context.Context, rawURL, userAgent string) (allowed, known bool) {
	u, err := seo.ParseHref(rawURL)
	if err != nil {
		return false, false
	}
	if _, _, ok := RobotsURL(u); !ok {
		return false, false
	}
	if userAgent == "" {
		userAgent = c.agent
	}
	path := seo.RequestTarget(u)
	r := c.Get(ctx, u)
	if r.Refused() {
		return false, false
	}
	return r.Allowed(userAgent, path), true
}

// Fetcher is the part of seo.Fetcher that [FetcherFunc] uses.
type Fetcher interface {
	Fetch(ctx context.Context, req *seo.Request) (*seo.Response, error)
}

// FetcherFunc builds a FetchFunc from a fetcher (normally the safe
// seo.Fetcher, which follows redirects and refuses private addresses). The
// body is capped at MaxSize+1 bytes so a huge robots.txt is never read whole
// and still shows as truncated.
func FetcherFunc(f Fetcher) FetchFunc {
	return func(ctx context.Context, robotsURL string) (int, []byte, error) {
		resp, err := f.Fetch(ctx, &seo.Request{URL: robotsURL, MaxBodyBytes: MaxSize + 1})
		if err != nil {
			status := 0
			if resp != nil {
				status = resp.Status
			}
			return status, nil, fmt.Errorf("robotstxt: fetch %s: %w", robotsURL, err)
		}
		if resp == nil {
			return 0, nil, fmt.Errorf("robotstxt: fetch %s: no response", robotsURL)
		}
		return resp.Status, resp.Body, nil
	}
}
