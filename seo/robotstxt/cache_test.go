package robotstxt

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seokit/seokit/seo"
)

// httpFetch is a plain FetchFunc over an http.Client, for tests.
func httpFetch(client *http.Client) FetchFunc {
	return func(ctx context.Context, robotsURL string) (int, []byte, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, robotsURL, nil)
		if err != nil {
			return 0, nil, err
		}
		resp, err := client.Do(req)
		if err != nil {
			return 0, nil, err
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(io.LimitReader(resp.Body, MaxSize+1))
		return resp.StatusCode, body, err
	}
}

type robotsServer struct {
	*httptest.Server
	hits   atomic.Int64
	status atomic.Int64
	delay  time.Duration
}

func newRobotsServer(t *testing.T, body string) *robotsServer {
	s := &robotsServer{}
	s.status.Store(200)
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		s.hits.Add(1)
		time.Sleep(s.delay)
		w.WriteHeader(int(s.status.Load()))
		io.WriteString(w, body)
	}))
	t.Cleanup(s.Close)
	return s
}

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func TestCacheSharesOneFetch(t *testing.T) {
	srv := newRobotsServer(t, "User-agent: *\nDisallow: /private\n")
	srv.delay = 50 * time.Millisecond
	c := NewCache(httpFetch(srv.Client()), nil)
	var wg sync.WaitGroup
	var denied atomic.Int64
	for i := 0; i < 50; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			allowed, known := c.Allowed(context.Background(), srv.URL+"/private/page", "")
			if known && !allowed {
				denied.Add(1)
			}
		}()
	}
	wg.Wait()
	if n := srv.hits.Load(); n != 1 {
		t.Errorf("robots.txt fetched %d times, want 1", n)
	}
	if denied.Load() != 50 {
		t.Errorf("%d of 50 callers saw /private disallowed", denied.Load())
	}
}

func TestCacheTTL(t *testing.T) {
	tests := []struct {
		name      string
		opts      CacheOptions
		status    int
		stale     time.Duration // still cached after this
		refetched time.Duration // fetched again after this
	}{
		{"default 24h", CacheOptions{}, 200, 23 * time.Hour, 24*time.Hour + time.Second},
		{"capped at 24h", CacheOptions{TTL: 72 * time.Hour}, 200, 23 * time.Hour, 24*time.Hour + time.Second},
		{"short ttl", CacheOptions{TTL: time.Hour}, 200, 59 * time.Minute, time.Hour + time.Second},
		{"404 kept like 200", CacheOptions{}, 404, 23 * time.Hour, 24*time.Hour + time.Second},
		{"5xx retried after a minute", CacheOptions{}, 503, 30 * time.Second, time.Minute + time.Second},
		{"custom error ttl", CacheOptions{ErrorTTL: 10 * time.Minute}, 500, 9 * time.Minute, 10*time.Minute + time.Second},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := newRobotsServer(t, "User-agent: *\nDisallow: /x\n")
			srv.status.Store(int64(tc.status))
			clk := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
			opts := tc.opts
			opts.Now = clk.Now
			c := NewCache(httpFetch(srv.Client()), &opts)
			u, _ := url.Parse(srv.URL + "/")
			ctx := context.Background()
			c.Get(ctx, u)
			clk.Advance(tc.stale)
			c.Get(ctx, u)
			if n := srv.hits.Load(); n != 1 {
				t.Fatalf("after %v: %d fetches, want 1", tc.stale, n)
			}
			clk.Advance(tc.refetched - tc.stale)
			c.Get(ctx, u)
			if n := srv.hits.Load(); n != 2 {
				t.Fatalf("after %v: %d fetches, want 2", tc.refetched, n)
			}
		})
	}
}

func TestCacheOutcomes(t *testing.T) {
	tests := []struct {
		name    string
		status  int
		allowed bool
	}{
		{"200 rules", 200, false},
		{"404 allows", 404, true},
		{"403 allows", 403, true},
		{"500 disallows", 500, false},
		{"503 disallows even allowed paths", 503, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := newRobotsServer(t, "User-agent: *\nDisallow: /x\n")
			srv.status.Store(int64(tc.status))
			c := NewCache(httpFetch(srv.Client()), nil)
			path := "/x"
			if tc.status == 503 {
				path = "/y"
			}
			allowed, known := c.Allowed(context.Background(), srv.URL+path, "seokit")
			if !known || allowed != tc.allowed {
				t.Errorf("Allowed = %v, %v; want %v, true", allowed, known, tc.allowed)
			}
		})
	}
	// Network failure: connection refused.
	srv := httptest.NewServer(http.NotFoundHandler())
	addr := srv.URL
	srv.Close()
	c := NewCache(httpFetch(http.DefaultClient), nil)
	u, _ := url.Parse(addr + "/page")
	r := c.Get(context.Background(), u)
	if r.Allowed("seokit", "/page") || r.Err() == nil {
		t.Errorf("unreachable host: Allowed = true or no error (%v)", r.Err())
	}
}

func TestCacheAllowedURLs(t *testing.T) {
	srv := newRobotsServer(t, "User-agent: *\nDisallow: /*?session=\nDisallow: /caf%C3%A9\n\nUser-agent: otherbot\nDisallow: /\n")
	c := NewCache(httpFetch(srv.Client()), &CacheOptions{UserAgent: "seokit"})
	ctx := context.Background()
	tests := []struct {
		name, url, agent string
		allowed, known   bool
	}{
		{"plain", srv.URL + "/a", "", true, true},
		{"query", srv.URL + "/a?session=1", "", false, true},
		{"unicode path", srv.URL + "/café/menu", "", false, true},
		{"full user agent", srv.URL + "/a", "Mozilla/5.0 (compatible; otherbot/2.0)", false, true},
		{"robots.txt itself", srv.URL + "/robots.txt", "otherbot", true, true},
		{"not a url", "http://[::1", "", false, false},
		{"relative", "/a", "", false, false},
		{"mailto", "mailto:a@b.example", "", false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			allowed, known := c.Allowed(ctx, tc.url, tc.agent)
			if allowed != tc.allowed || known != tc.known {
				t.Errorf("Allowed(%q) = %v, %v; want %v, %v", tc.url, allowed, known, tc.allowed, tc.known)
			}
		})
	}
	if n := srv.hits.Load(); n != 1 {
		t.Errorf("%d fetches for one origin, want 1", n)
	}
}

func TestRobotsURL(t *testing.T) {
	tests := []struct{ in, robots, key string }{
		{"https://Example.COM/a/b?c", "https://example.com/robots.txt", "https://example.com:443"},
		{"http://example.com:80/", "http://example.com/robots.txt", "http://example.com:80"},
		{"http://example.com:8080/x", "http://example.com:8080/robots.txt", "http://example.com:8080"},
		{"https://[::1]:8443/", "https://[::1]:8443/robots.txt", "https://[::1]:8443"},
	}
	for _, tc := range tests {
		u, _ := url.Parse(tc.in)
		robots, key, ok := RobotsURL(u)
		if !ok || robots != tc.robots || key != tc.key {
			t.Errorf("RobotsURL(%s) = %s, %s, %v", tc.in, robots, key, ok)
		}
	}
}

func TestCacheCancelledLeaderNotCached(t *testing.T) {
	var calls atomic.Int64
	fetch := func(ctx context.Context, robotsURL string) (int, []byte, error) {
		if calls.Add(1) == 1 {
			<-ctx.Done()
			return 0, nil, ctx.Err()
		}
		return 200, []byte("User-agent: *\nDisallow: /x\n"), nil
	}
	c := NewCache(fetch, nil)
	u, _ := url.Parse("https://example.com/x")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if r := c.Get(ctx, u); !r.Unavailable() {
		t.Error("a cancelled fetch must answer unreachable")
	}
	r := c.Get(context.Background(), u)
	if r.Allowed("seokit", "/x") || !r.Allowed("seokit", "/y") || calls.Load() != 2 {
		t.Errorf("after cancel: fetches = %d, want the file fetched again", calls.Load())
	}
}

// fakeFetcher serves like seo.Fetcher: it honours MaxBodyBytes and marks
// the body truncated.
type fakeFetcher struct {
	client *http.Client
	err    error
	gotMax int64
}

func (f *fakeFetcher) Fetch(ctx context.Context, r *seo.Request) (*seo.Response, error) {
	f.gotMax = r.MaxBodyBytes
	if f.err != nil {
		return nil, f.err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, r.URL, nil)
	if err != nil {
		return nil, err
	}
	resp, err := f.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, r.MaxBodyBytes+1))
	if err != nil {
		return nil, err
	}
	out := &seo.Response{RequestedURL: r.URL, URL: resp.Request.URL.String(), Status: resp.StatusCode}
	if int64(len(body)) > r.MaxBodyBytes {
		body, out.Truncated = body[:r.MaxBodyBytes], true
	}
	out.Body = body
	return out, nil
}

func TestFetcherFunc(t *testing.T) {
	var written atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "User-agent: *\nDisallow: /first\n")
		line := []byte("Disallow: /more-and-more-and-more\n")
		for i := 0; i < (10<<20)/len(line); i++ {
			n, err := w.Write(line)
			written.Add(int64(n))
			if err != nil {
				return
			}
		}
	}))
	defer srv.Close()
	f := &fakeFetcher{client: srv.Client()}
	c := NewCache(FetcherFunc(f), nil)
	u, _ := url.Parse(srv.URL + "/")
	r := c.Get(context.Background(), u)
	if f.gotMax != MaxSize+1 {
		t.Errorf("MaxBodyBytes = %d, want %d", f.gotMax, MaxSize+1)
	}
	if !r.Truncated() || r.Size() != MaxSize+1 || r.Status() != 200 {
		t.Errorf("Truncated = %v, Size = %d, Status = %d", r.Truncated(), r.Size(), r.Status())
	}
	if r.Allowed("seokit", "/first") {
		t.Error("/first allowed")
	}

	tests := []struct {
		name    string
		err     error
		allowed bool
	}{
		{"too many redirects means unavailable", fmt.Errorf("fetch: %w", seo.ErrTooManyRedirects), true},
		{"redirect loop means unavailable", seo.ErrRedirectLoop, true},
		{"forbidden address is unreachable", seo.ErrForbiddenAddress, false},
		{"network error is unreachable", errors.New("connection reset"), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := NewCache(FetcherFunc(&fakeFetcher{err: tc.err}), nil)
			r := c.Get(context.Background(), u)
			if r.Allowed("seokit", "/page") != tc.allowed {
				t.Errorf("Allowed = %v, want %v", !tc.allowed, tc.allowed)
			}
			if !errors.Is(r.Err(), tc.err) || !strings.HasPrefix(r.Err().Error(), "robotstxt: ") {
				t.Errorf("Err() = %v", r.Err())
			}
		})
	}
}

// Cache satisfies analyzer.RobotsPolicy (declared here to avoid an import
// cycle: the analyzer imports this package).
var _ interface {
	Allowed(ctx context.Context, rawURL, userAgent string) (allowed, known bool)
} = (*Cache)(nil)

// A host the address policy refuses is not decided by robots.txt: Allowed
// says so (known false), so that the refusal is reported as the policy's.
func TestCacheRefusedHost(t *testing.T) {
	refuse := func(ctx context.Context, robotsURL string) (int, []byte, error) {
		return 0, nil, fmt.Errorf("fetch %s: %w", robotsURL, seo.ErrForbiddenAddress)
	}
	c := NewCache(refuse, nil)
	allowed, known := c.Allowed(context.Background(), "http://169.254.169.254/latest/meta-data", "seokit")
	if allowed || known {
		t.Errorf("refused host: allowed %v, known %v; want false, false", allowed, known)
	}
	u, _ := url.Parse("http://169.254.169.254/x")
	if r := c.Get(context.Background(), u); !r.Refused() || r.Allowed("seokit", "/x") {
		t.Errorf("refused host: Refused %v, Allowed %v; want true, false", r.Refused(), r.Allowed("seokit", "/x"))
	}
	fail := func(ctx context.Context, robotsURL string) (int, []byte, error) {
		return 0, nil, errors.New("connection refused")
	}
	if r := NewCache(fail, nil).Get(context.Background(), u); r.Refused() {
		t.Error("an unreachable host counts as refused by the address policy")
	}
}
