package redislimit_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seokit/seokit/httpapi/ratelimit"
	"github.com/seokit/seokit/httpapi/ratelimit/ratelimittest"
	"github.com/seokit/seokit/httpapi/ratelimit/redislimit"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/internal/redistest"
	"github.com/seokit/seokit/seo"
)

func open(t *testing.T, url string, opts *redislimit.Options) *redislimit.Limiter {
	t.Helper()
	l, err := redislimit.Open(context.Background(), url, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

func TestConformance(t *testing.T) {
	srv := redistest.Start(t)
	ratelimittest.RunLimiter(t, func(t *testing.T) ratelimit.Limiter {
		return open(t, srv.URL(), nil)
	})
}

// TestSharedAcrossClients: three limiters with their own connections
// admit exactly the limit together.
func TestSharedAcrossClients(t *testing.T) {
	srv := redistest.Start(t)
	ls := []*redislimit.Limiter{open(t, srv.URL(), nil), open(t, srv.URL(), nil), open(t, srv.URL(), nil)}
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	var wg sync.WaitGroup
	var mu sync.Mutex
	admitted := map[int]int{}
	for i := range 300 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := ls[i%3].Take(context.Background(), ratelimit.Request{Account: "acct_shared", Now: now, Daily: 100, Rate: 1e6, Burst: 1e6})
			if err != nil {
				t.Error(err)
				return
			}
			if r.Refused == ratelimit.Admitted {
				mu.Lock()
				admitted[i%3]++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	total := admitted[0] + admitted[1] + admitted[2]
	if total != 100 {
		t.Fatalf("admitted %d across three clients (%v), want 100", total, admitted)
	}
}

func TestKeysAndExpiry(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	l := open(t, srv.URL(), &redislimit.Options{Prefix: "test:", DayTTL: 72 * time.Hour})
	now := time.Now()
	if _, err := l.Take(ctx, ratelimit.Request{Account: "acct_k", Now: now, Daily: 10, Rate: 2, Burst: 4}); err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	defer rdb.Close()
	keys, err := rdb.Keys(ctx, "*").Result()
	if err != nil {
		t.Fatal(err)
	}
	dayKey := "test:{acct_k}:d:" + now.UTC().Format(time.DateOnly)
	want := map[string]bool{"test:{acct_k}:b": true, dayKey: true}
	if len(keys) != 2 || !want[keys[0]] || !want[keys[1]] {
		t.Fatalf("keys %v, want %v", keys, want)
	}
	if ttl := rdb.TTL(ctx, dayKey).Val(); ttl <= 71*time.Hour || ttl > 72*time.Hour {
		t.Errorf("day key TTL %v, want 72h", ttl)
	}
	// One token of a 2/s bucket: full again after 500 ms, kept a minute
	// longer for callers whose clocks lag Redis's.
	if pttl := rdb.PTTL(ctx, "test:{acct_k}:b").Val(); pttl <= 60*time.Second || pttl > 60501*time.Millisecond {
		t.Errorf("bucket key PTTL %v, want 500ms and a minute", pttl)
	}
	if n := rdb.Get(ctx, dayKey).Val(); n != "1" {
		t.Errorf("day count %q, want 1", n)
	}
}

// TestFailClosed: with Redis down Take answers ErrUnavailable, never an
// admission; after a restart it admits again.
func TestFailClosed(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	l := open(t, srv.URL(), nil)
	req := ratelimit.Request{Account: "acct_f", Daily: 100, Rate: 1e6, Burst: 1e6}
	if _, err := l.Take(ctx, req); err != nil {
		t.Fatal(err)
	}
	srv.Stop()
	for range 5 {
		start := time.Now()
		r, err := l.Take(ctx, req)
		if !errors.Is(err, store.ErrUnavailable) || r.Refused != ratelimit.Admitted || r.Count != 0 {
			t.Fatalf("take with Redis down: %+v, %v; want an ErrUnavailable error", r, err)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("failure took %v", d)
		}
	}
	if _, err := l.Usage(ctx, "acct_f", time.Now(), time.Now()); !errors.Is(err, store.ErrUnavailable) {
		t.Errorf("usage with Redis down: %v", err)
	}
	if err := l.Ping(ctx); !errors.Is(err, store.ErrUnavailable) {
		t.Errorf("ping with Redis down: %v", err)
	}
	if err := srv.Restart(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		r, err := l.Take(ctx, req)
		if err == nil {
			// The test server has no persistence: the count restarts.
			if r.Refused != ratelimit.Admitted || r.Count != 1 {
				t.Fatalf("take after restart: %+v", r)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("Redis restarted but takes still fail: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestOpen(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		url  string
	}{
		{"not a redis URL", "http://localhost:6379"},
		{"bad database", "redis://127.0.0.1:6379/notanumber"},
		{"garbage", "::"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := redislimit.Open(ctx, tc.url, nil)
			if ie, ok := seo.AsInputError(err); !ok || ie.Field != "redisUrl" {
				t.Fatalf("err = %v, want an InputError on redisUrl", err)
			}
		})
	}
	t.Run("password redacted", func(t *testing.T) {
		_, err := redislimit.Open(ctx, "redis://user:s3cret@127.0.0.1:6379/x", nil)
		if err == nil || strings.Contains(err.Error(), "s3cret") {
			t.Fatalf("err = %v, want an error without the password", err)
		}
	})
	t.Run("nobody listening", func(t *testing.T) {
		srv := redistest.Start(t)
		url := srv.URL()
		srv.Stop()
		start := time.Now()
		_, err := redislimit.Open(ctx, url, &redislimit.Options{Timeout: 200 * time.Millisecond})
		if !errors.Is(err, store.ErrUnavailable) {
			t.Fatalf("err = %v, want ErrUnavailable", err)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("Open took %v to fail", d)
		}
	})
}

func TestUsageRange(t *testing.T) {
	srv := redistest.Start(t)
	l := open(t, srv.URL(), nil)
	from := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	_, err := l.Usage(context.Background(), "acct_u", from, from.AddDate(2, 0, 0))
	if ie, ok := seo.AsInputError(err); !ok || ie.Field != "from" {
		t.Fatalf("two-year range: %v, want an InputError on from", err)
	}
	u, err := l.Usage(context.Background(), "acct_u", from.AddDate(0, 0, 1), from)
	if err != nil || len(u) != 0 {
		t.Fatalf("reversed range: %v %v", u, err)
	}
}

func ExampleOpen() {
	ctx := context.Background()
	l, err := redislimit.Open(ctx, "redis://127.0.0.1:6379/0", nil)
	if err != nil {
		fmt.Println(err) // wraps store.ErrUnavailable when Redis is down
		return
	}
	defer l.Close()
	r, err := l.Take(ctx, ratelimit.Request{Account: "acct_1", Daily: 100, Rate: 50, Burst: 200})
	fmt.Println(r.Count, r.Refused, err)
}
