package httpapi

import (
	"context"
	"errors"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seokit/seokit/httpapi/auth"
	"github.com/seokit/seokit/httpapi/plans"
	"github.com/seokit/seokit/httpapi/ratelimit"
	"github.com/seokit/seokit/httpapi/ratelimit/redislimit"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/httpapi/store/sqlstore"
	"github.com/seokit/seokit/internal/pgtest"
	"github.com/seokit/seokit/internal/redistest"
)

func TestRateLimitHeaders(t *testing.T) {
	clk := &clock{t: time.Date(2026, 11, 21, 18, 0, 0, 0, time.UTC)}
	a := newTestAPI(t, &Options{Now: clk.Now, Limits: map[store.Plan]int{store.Pro: 1000}})
	resp := a.call("GET", "/v1/analyze/site", a.key, "")
	wantStatus(t, resp, 200)
	reset := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC).Unix()
	want := map[string]string{"X-RateLimit-Limit": "100", "X-RateLimit-Remaining": "99", "X-RateLimit-Reset": strconv.FormatInt(reset, 10)}
	for k, v := range want {
		if got := resp.Header.Get(k); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
	// An error after authentication carries the headers too.
	resp = a.call("GET", "/v1/analyze/site/job_missing", a.key, "")
	apiErr(t, resp, 404, CodeNotFound)
	if got := resp.Header.Get("X-RateLimit-Remaining"); got != "98" {
		t.Errorf("404 Remaining %q, want 98", got)
	}
	t.Run("plans", func(t *testing.T) {
		ctx := context.Background()
		_, proKey := a.account("pro@example.com", store.Pro, auth.ScopeRead)
		ent, entKey := a.account("ent@example.com", store.Enterprise, auth.ScopeRead)
		ent.DailyLimit = 5000
		if err := a.st.UpdateAccount(ctx, ent); err != nil {
			t.Fatal(err)
		}
		for key, want := range map[string]string{proKey: "1000", entKey: "5000"} {
			resp := a.call("GET", "/v1/analyze/site", key, "")
			wantStatus(t, resp, 200)
			if got := resp.Header.Get("X-RateLimit-Limit"); got != want {
				t.Errorf("limit %s, want %s", got, want)
			}
		}
	})
	t.Run("next day resets", func(t *testing.T) {
		clk.Add(6 * time.Hour)
		resp := a.call("GET", "/v1/analyze/site", a.key, "")
		if got := resp.Header.Get("X-RateLimit-Remaining"); got != "99" {
			t.Errorf("Remaining %q on a new day, want 99", got)
		}
	})
}

// TestRateLimitConcurrent sends 130 parallel requests with two keys of one
// Free account and spoofed X-Forwarded-For headers: exactly 100 pass.
func TestRateLimitConcurrent(t *testing.T) {
	testRateLimitConcurrent(t, nil)
}

// TestRateLimitConcurrentPostgres runs the same over PostgreSQL (skipped,
// visibly, when no PostgreSQL binaries are installed).
func TestRateLimitConcurrentPostgres(t *testing.T) {
	st, err := sqlstore.Open(context.Background(), pgtest.DSN(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	testRateLimitConcurrent(t, st)
}

func testRateLimitConcurrent(t *testing.T, st store.Store) {
	clk := &clock{t: time.Date(2026, 11, 21, 23, 59, 0, 0, time.UTC)}
	a := newTestAPI(t, &Options{Store: st, Now: clk.Now})
	key2 := a.newKey(a.acct.ID, auth.ScopeRead)
	const n = 130
	var wg sync.WaitGroup
	statuses := make([]int, n)
	retry := make([]string, n)
	errs := make([]error, n)
	for i := range n {
		key := a.key
		if i%2 == 1 {
			key = key2
		}
		r := a.req("GET", "/v1/analyze/site", key, "")
		r.Header.Set("X-Forwarded-For", "198.51.100."+strconv.Itoa(i%250))
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := a.send(r)
			if err != nil {
				errs[i] = err
				return
			}
			statuses[i] = resp.StatusCode
			retry[i] = resp.Header.Get("Retry-After")
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	counts := map[int]int{}
	for i, s := range statuses {
		counts[s]++
		if s == http.StatusTooManyRequests && retry[i] != "60" {
			t.Errorf("Retry-After %q, want 60 (seconds to midnight UTC)", retry[i])
		}
	}
	if counts[200] != 100 || counts[429] != 30 {
		t.Fatalf("statuses %v, want 100×200 and 30×429", counts)
	}
	r := a.req("GET", "/v1/analyze/site", a.key, "")
	r.Header.Set("X-Forwarded-For", "192.0.2.1")
	resp := a.do(r)
	e := apiErr(t, resp, 429, CodeRateLimited)
	if resp.Header.Get("X-RateLimit-Remaining") != "0" || e.Message == "" {
		t.Errorf("429 headers %v", resp.Header)
	}
	// Another account is unaffected.
	_, other := a.account("b@example.com", store.Free, auth.ScopeRead)
	wantStatus(t, a.call("GET", "/v1/analyze/site", other, ""), 200)
}

func TestRateLimitSurvivesRestart(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "api.db")
	clk := &clock{t: time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)}
	st, err := sqlstore.Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	a := newTestAPI(t, &Options{Store: st, Now: clk.Now})
	for range 3 {
		wantStatus(t, a.call("GET", "/v1/analyze/site", a.key, ""), 200)
	}
	a.srv.Close()
	st.Close()

	st2, err := sqlstore.Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	b := newTestAPI(t, &Options{Store: st2, Now: clk.Now}, apiConfig{noAccount: true})
	t.Cleanup(func() { st2.Close() })
	resp := b.call("GET", "/v1/analyze/site", a.key, "")
	wantStatus(t, resp, 200)
	if got := resp.Header.Get("X-RateLimit-Remaining"); got != "96" {
		t.Errorf("Remaining after restart %q, want 96", got)
	}
}

func TestAuthFailureThrottle(t *testing.T) {
	a := newTestAPI(t, nil)
	saw429 := false
	for range auth.DefaultAddrBurst + 5 {
		resp := a.call("GET", "/v1/analyze/site", "seo_live_wrong", "")
		if resp.StatusCode == http.StatusTooManyRequests {
			saw429 = true
			apiErr(t, resp, 429, CodeRateLimited)
			break
		}
		apiErr(t, resp, 401, CodeUnauthorized)
	}
	if !saw429 {
		t.Error("repeated failures from one address were never throttled")
	}
}

// limiters are the Limiter drivers the API tests run with: the default
// Local and, when redis-server is installed, redislimit.
func limiters() map[string]func(t *testing.T) ratelimit.Limiter {
	return map[string]func(t *testing.T) ratelimit.Limiter{
		"local": func(t *testing.T) ratelimit.Limiter { return nil },
		"redis": func(t *testing.T) ratelimit.Limiter {
			rs := redistest.Start(t)
			l, err := redislimit.Open(context.Background(), rs.URL(), nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { l.Close() })
			return l
		},
	}
}

// TestRateLimitBurst: a burst beyond the bucket answers 429 with the
// bucket's Retry-After and the day's real remaining count, and counts
// against nothing.
func TestRateLimitBurst(t *testing.T) {
	for name, mk := range limiters() {
		t.Run(name, func(t *testing.T) {
			clk := &clock{t: time.Date(2026, 11, 21, 18, 0, 0, 0, time.UTC)}
			a := newTestAPI(t, &Options{Now: clk.Now, Limiter: mk(t), BurstRate: 0.5, Burst: 3})
			for i := range 3 {
				resp := a.call("GET", "/v1/analyze/site", a.key, "")
				wantStatus(t, resp, 200)
				if got, want := resp.Header.Get("X-RateLimit-Remaining"), strconv.Itoa(99-i); got != want {
					t.Errorf("request %d: Remaining %q, want %q", i+1, got, want)
				}
			}
			resp := a.call("GET", "/v1/analyze/site", a.key, "")
			e := apiErr(t, resp, 429, CodeRateLimited)
			// One token per two seconds.
			if got := resp.Header.Get("Retry-After"); got != "2" {
				t.Errorf("burst Retry-After %q, want 2", got)
			}
			if got := resp.Header.Get("X-RateLimit-Remaining"); got != "97" {
				t.Errorf("burst 429 Remaining %q, want 97 (the refused request is not counted)", got)
			}
			if !strings.Contains(e.Message, "slow down") {
				t.Errorf("burst message %q", e.Message)
			}
			clk.Add(2 * time.Second)
			resp = a.call("GET", "/v1/analyze/site", a.key, "")
			wantStatus(t, resp, 200)
			if got := resp.Header.Get("X-RateLimit-Remaining"); got != "96" {
				t.Errorf("after the wait Remaining %q, want 96", got)
			}
		})
	}
}

// TestRateLimitPerPlan: a plan's RequestRate and RequestBurst bound its
// accounts' requests; an account of a plan that sets none keeps the
// server's BurstRate and Burst.
func TestRateLimitPerPlan(t *testing.T) {
	for name, mk := range limiters() {
		t.Run(name, func(t *testing.T) {
			clk := &clock{t: time.Date(2026, 11, 21, 18, 0, 0, 0, time.UTC)}
			a := newTestAPI(t, &Options{Now: clk.Now, Limiter: mk(t), BurstRate: 0.5, Burst: 3,
				Plans: map[store.Plan]plans.Limits{store.Pro: {RequestRate: 0.25, RequestBurst: 5}}})
			_, pro := a.account("pro@example.com", store.Pro, auth.ScopeRead)
			for _, tc := range []struct {
				key      string
				admitted int
				retry    string
			}{{a.key, 3, "2"}, {pro, 5, "4"}} {
				for range tc.admitted {
					wantStatus(t, a.call("GET", "/v1/analyze/site", tc.key, ""), 200)
				}
				resp := a.call("GET", "/v1/analyze/site", tc.key, "")
				apiErr(t, resp, 429, CodeRateLimited)
				if got := resp.Header.Get("Retry-After"); got != tc.retry {
					t.Errorf("after %d requests: Retry-After %q, want %q", tc.admitted, got, tc.retry)
				}
			}
		})
	}
}

// TestRateLimitRedisDaily: the API over the Redis limiter keeps the
// daily quota and its headers like the default one.
func TestRateLimitRedisDaily(t *testing.T) {
	l := limiters()["redis"](t)
	clk := &clock{t: time.Date(2026, 11, 21, 23, 59, 30, 0, time.UTC)}
	a := newTestAPI(t, &Options{Now: clk.Now, Limiter: l, Limits: map[store.Plan]int{store.Free: 5}})
	for i := range 5 {
		resp := a.call("GET", "/v1/analyze/site", a.key, "")
		wantStatus(t, resp, 200)
		if got, want := resp.Header.Get("X-RateLimit-Remaining"), strconv.Itoa(4-i); got != want {
			t.Errorf("Remaining %q, want %q", got, want)
		}
	}
	resp := a.call("GET", "/v1/analyze/site", a.key, "")
	apiErr(t, resp, 429, CodeRateLimited)
	if got := resp.Header.Get("Retry-After"); got != "30" {
		t.Errorf("Retry-After %q, want 30 (seconds to midnight UTC)", got)
	}
	u, err := l.Usage(context.Background(), a.acct.ID, clk.Now(), clk.Now())
	if err != nil || len(u) != 1 || u[0].Count != 5 {
		t.Errorf("usage %v %v, want 5 today", u, err)
	}
	clk.Add(30 * time.Second)
	wantStatus(t, a.call("GET", "/v1/analyze/site", a.key, ""), 200)
}

// TestRateLimitRedisDown: with Redis unreachable the API fails closed:
// 503 unavailable with Retry-After, never the endpoint's answer.
func TestRateLimitRedisDown(t *testing.T) {
	rs := redistest.Start(t)
	l, err := redislimit.Open(context.Background(), rs.URL(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	a := newTestAPI(t, &Options{Limiter: l})
	wantStatus(t, a.call("GET", "/v1/analyze/site", a.key, ""), 200)
	rs.Stop()
	for range 3 {
		resp := a.call("GET", "/v1/analyze/site", a.key, "")
		apiErr(t, resp, 503, CodeUnavailable)
		if resp.Header.Get("Retry-After") == "" {
			t.Error("503 without Retry-After")
		}
	}
	if err := rs.Restart(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for a.call("GET", "/v1/analyze/site", a.key, "").StatusCode != 200 {
		if time.Now().After(deadline) {
			t.Fatal("no recovery after Redis restarted")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// zeroRate passes every request to a real Local with its Rate cleared, as
// a misconfigured server would.
type zeroRate struct{ *ratelimit.Local }

func (z zeroRate) Take(ctx context.Context, req ratelimit.Request) (ratelimit.Result, error) {
	req.Rate = 0
	return z.Local.Take(ctx, req)
}

// TestRateLimitServerBug: a limiter refusing the server's own request as
// invalid is a 500, not the client's 400, and admits nothing.
func TestRateLimitServerBug(t *testing.T) {
	st, err := sqlstore.Open(context.Background(), ":memory:", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	a := newTestAPI(t, &Options{Store: st, Limiter: zeroRate{ratelimit.NewLocal(st)}})
	resp := a.call("GET", "/v1/analyze/site", a.key, "")
	apiErr(t, resp, 500, CodeInternal)
	if !strings.Contains(a.logs.String(), "invalid rate") {
		t.Errorf("the cause was not logged:\n%s", a.logs.String())
	}
}
