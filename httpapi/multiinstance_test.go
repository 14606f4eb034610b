package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seokit/seokit/httpapi"
	"github.com/seokit/seokit/httpapi/auth"
	"github.com/seokit/seokit/httpapi/ratelimit/redislimit"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/httpapi/store/sqlstore"
	"github.com/seokit/seokit/internal/pgtest"
	"github.com/seokit/seokit/internal/redistest"
)

// clusterNow is the time of every instance of the cluster.
var clusterNow = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

// cluster is three API instances sharing one PostgreSQL database and one
// Redis, behind one round-robin proxy.
type cluster struct {
	servers []*httpapi.Server
	limits  []*redislimit.Limiter
	proxy   *httptest.Server
	redis   *redistest.Server
	client  *http.Client
	errlog  lockedBuffer // the instances' error logs
}

// lockedBuffer is a bytes.Buffer safe for concurrent writes.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func startCluster(t *testing.T) *cluster {
	t.Helper()
	ctx := context.Background()
	dsn := pgtest.DSN(t)
	rs := redistest.Start(t)
	c := &cluster{redis: rs, servers: make([]*httpapi.Server, 3), limits: make([]*redislimit.Limiter, 3)}
	var backends []*url.URL
	// Each instance opens its own store and Redis client, as separate
	// processes would; the stores open at once, racing their migrations.
	stores := make([]*sqlstore.Store, 3)
	errs := make([]error, 3)
	var wg sync.WaitGroup
	for i := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			stores[i], errs[i] = sqlstore.Open(ctx, dsn, nil)
		}()
	}
	wg.Wait()
	for i := range 3 {
		if errs[i] != nil {
			t.Fatalf("instance %d: open store: %v", i, errs[i])
		}
		st := stores[i]
		t.Cleanup(func() { st.Close() })
		// Generous timeouts: the race detector and parallel test packages
		// slow everything down, and the test is about counting, not speed.
		l, err := redislimit.Open(ctx, rs.URL(), &redislimit.Options{Timeout: 3 * time.Second})
		if err != nil {
			t.Fatalf("instance %d: open limiter: %v", i, err)
		}
		t.Cleanup(func() { l.Close() })
		srv, err := httpapi.New(ctx, &httpapi.Options{
			Store:   st,
			Limiter: l,
			Logger:  slog.New(slog.NewTextHandler(&c.errlog, &slog.HandlerOptions{Level: slog.LevelError})),
			// A burst allowance that never refuses here: the test is about
			// the daily quota.
			BurstRate: 1e6, Burst: 1e6,
			// One fixed time: the run never straddles a UTC midnight.
			Now: func() time.Time { return clusterNow },
		})
		if err != nil {
			t.Fatalf("instance %d: %v", i, err)
		}
		t.Cleanup(func() { srv.Close() })
		if err := srv.Start(ctx); err != nil {
			t.Fatalf("instance %d: start: %v", i, err)
		}
		c.servers[i], c.limits[i] = srv, l
		name := strconv.Itoa(i)
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("X-Test-Instance", name)
			srv.ServeHTTP(w, r)
		}))
		t.Cleanup(ts.Close)
		u, _ := url.Parse(ts.URL)
		backends = append(backends, u)
	}
	var next atomic.Uint64
	c.proxy = httptest.NewServer(&httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(backends[next.Add(1)%uint64(len(backends))])
		},
		Transport: &http.Transport{MaxIdleConnsPerHost: 100},
	})
	t.Cleanup(c.proxy.Close)
	c.client = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 300}, Timeout: 30 * time.Second}
	t.Cleanup(c.client.CloseIdleConnections)
	return c
}

// newKey creates a Free account (100 requests a day) through one instance
// and returns a read key of it.
func (c *cluster) newKey(t *testing.T, email string) (string, *store.Account) {
	t.Helper()
	ctx := context.Background()
	a := c.servers[1].Auth()
	acct, err := a.CreateAccount(ctx, email, "Multi", "", store.Free)
	if err != nil {
		t.Fatal(err)
	}
	key, _, err := a.CreateAPIKey(ctx, acct.ID, "multi", []string{auth.ScopeRead, auth.ScopeWrite}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	return key, acct
}

// answer is one response through the proxy.
type answer struct {
	status     int
	instance   string
	code       string // error envelope code
	remaining  string
	retryAfter string
	started    time.Time
	err        error
}

func (c *cluster) get(key string) answer {
	a := answer{started: time.Now()}
	req, _ := http.NewRequest("GET", c.proxy.URL+"/v1/analyze/site", nil)
	req.Header.Set("X-API-Key", key)
	resp, err := c.client.Do(req)
	if err != nil {
		a.err = err
		return a
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	a.status = resp.StatusCode
	a.instance = resp.Header.Get("X-Test-Instance")
	a.remaining = resp.Header.Get("X-RateLimit-Remaining")
	a.retryAfter = resp.Header.Get("Retry-After")
	if resp.StatusCode >= 400 {
		var env struct {
			Error struct {
				Code   string `json:"code"`
				Status int    `json:"status"`
			} `json:"error"`
		}
		if err := json.Unmarshal(body, &env); err != nil || env.Error.Status != resp.StatusCode {
			a.code = "no envelope: " + string(body)
		} else {
			a.code = env.Error.Code
		}
	}
	return a
}

// TestMultiInstanceSharedLimit: 300 concurrent requests of one account
// through one address spread over three instances; exactly the account's
// 100 are admitted. Then Redis dies mid-load: every request answers 503
// and none is admitted, until Redis is back.
func TestMultiInstanceSharedLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL and Redis")
	}
	c := startCluster(t)
	key, acct := c.newKey(t, "multi@example.com")
	// Warm each instance up (connections to PostgreSQL and Redis, the
	// account cache) with another account, as in a running deployment.
	warm, _ := c.newKey(t, "warm@example.com")
	for range 3 {
		if a := c.get(warm); a.status != http.StatusOK {
			t.Fatalf("warm-up: %d %q %v", a.status, a.code, a.err)
		}
	}

	const n = 300
	answers := make([]answer, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			answers[i] = c.get(key)
		}()
	}
	close(start)
	wg.Wait()
	byStatus := map[int]int{}
	admittedBy := map[string]int{}
	servedBy := map[string]int{}
	remaining := map[string]bool{}
	for _, a := range answers {
		if a.err != nil {
			t.Fatalf("request failed: %v", a.err)
		}
		byStatus[a.status]++
		servedBy[a.instance]++
		switch a.status {
		case http.StatusOK:
			admittedBy[a.instance]++
			if remaining[a.remaining] {
				t.Errorf("X-RateLimit-Remaining %s given twice", a.remaining)
			}
			remaining[a.remaining] = true
		case http.StatusTooManyRequests:
			if a.code != httpapi.CodeRateLimited || a.remaining != "0" || a.retryAfter == "" {
				t.Errorf("429 answer: code %q, remaining %q, Retry-After %q", a.code, a.remaining, a.retryAfter)
			}
		}
	}
	t.Logf("statuses %v; requests per instance %v; admitted per instance %v", byStatus, servedBy, admittedBy)
	if byStatus[200] != 100 || byStatus[429] != 200 || len(byStatus) != 2 {
		t.Fatalf("statuses %v, want exactly 100×200 and 200×429; error logs:\n%s", byStatus, c.errlog.String())
	}
	// Round robin: every instance answered its third of the requests, and
	// admissions came from more than one instance (which of them admits
	// depends on which answers first).
	for i := range 3 {
		if servedBy[strconv.Itoa(i)] != n/3 {
			t.Errorf("instance %d served %d requests, want %d", i, servedBy[strconv.Itoa(i)], n/3)
		}
	}
	if len(admittedBy) < 2 {
		t.Errorf("admissions came from one instance only: %v", admittedBy)
	}
	// Every instance reads the same usage.
	for i, l := range c.limits {
		u, err := l.Usage(context.Background(), acct.ID, clusterNow, clusterNow)
		if err != nil || len(u) != 1 || u[0].Count != 100 {
			t.Errorf("instance %d usage %v, %v; want 100 today", i, u, err)
		}
	}

	t.Run("redis stops mid-load", func(t *testing.T) {
		key, _ := c.newKey(t, "outage@example.com")
		var (
			mu       sync.Mutex
			all      []answer
			ok       atomic.Int64
			stopped  atomic.Int64 // UnixNano of Stop, 0 before
			stopOnce sync.Once
			wg       sync.WaitGroup
		)
		const workers, afterStop = 20, 10
		// Bounded in count and time: when Redis never stops or never
		// fails a request, the checks below report it.
		loadEnd := time.Now().Add(2 * time.Minute)
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				left := afterStop
				for n := 0; left > 0 && n < 1000 && time.Now().Before(loadEnd); n++ {
					a := c.get(key)
					mu.Lock()
					all = append(all, a)
					mu.Unlock()
					if a.status == http.StatusOK && ok.Add(1) == 30 {
						stopOnce.Do(func() {
							c.redis.Stop()
							stopped.Store(time.Now().UnixNano())
						})
					}
					if s := stopped.Load(); s != 0 && a.started.UnixNano() > s {
						left--
					}
				}
			}()
		}
		wg.Wait()
		stopAt := time.Unix(0, stopped.Load())
		var after, admitted int
		for _, a := range all {
			if a.err != nil {
				t.Fatalf("request failed: %v", a.err)
			}
			if a.status == http.StatusOK {
				admitted++
			}
			if a.status != http.StatusOK && a.status != http.StatusServiceUnavailable {
				t.Errorf("answer %d (%s) during the outage test", a.status, a.code)
			}
			if a.started.After(stopAt) {
				after++
				if a.status != http.StatusServiceUnavailable || a.code != httpapi.CodeUnavailable || a.retryAfter == "" {
					t.Errorf("request after Redis stopped: %d %q Retry-After %q, want 503 unavailable", a.status, a.code, a.retryAfter)
				}
			}
		}
		t.Logf("%d answers, %d admitted, %d after Redis stopped", len(all), admitted, after)
		if after < workers*afterStop || admitted > 100 {
			t.Fatalf("%d requests after the stop, %d admitted", after, admitted)
		}

		if err := c.redis.Restart(); err != nil {
			t.Fatal(err)
		}
		// Each instance's client finds Redis again within about a second
		// (go-redis probes a failed dial once a second).
		deadline := time.Now().Add(time.Minute) // generous for a loaded machine
		for i, l := range c.limits {
			for l.Ping(context.Background()) != nil {
				if time.Now().After(deadline) {
					t.Fatalf("instance %d: Redis is back but its limiter does not reconnect", i)
				}
				time.Sleep(20 * time.Millisecond)
			}
		}
		// Then every request through the proxy is admitted again.
		for i := range 30 {
			if a := c.get(key); a.status != http.StatusOK {
				t.Fatalf("request %d after recovery: %d %q", i, a.status, a.code)
			}
		}
	})
}
