package redisfrontier_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/crawler/crawlertest"
	"github.com/seokit/seokit/crawler/redisfrontier"
	"github.com/seokit/seokit/internal/redistest"
	"github.com/seokit/seokit/seo"
)

// hammer has gates[i%len(gates)] serve goroutines that each pass Wait
// perG times for one host, and returns when each Wait returned.
func hammer(t *testing.T, gates []crawler.HostGate, goroutines, perG int, limit crawler.HostLimit) []time.Time {
	t.Helper()
	var mu sync.Mutex
	var times []time.Time
	var wg sync.WaitGroup
	for g := range goroutines {
		gate := gates[g%len(gates)]
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range perG {
				if err := gate.Wait(context.Background(), "site.test:8080", limit); err != nil {
					t.Error(err)
					return
				}
				now := time.Now()
				mu.Lock()
				times = append(times, now)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return times
}

// Three gates with their own connections, 30 goroutines, 1,500 requests
// at 1,000/s with a burst of 5: at most 1,005 start in any second, and the
// whole takes at least (1,500-5)/1,000 s. The same load on three
// in-process gates, one per worker, breaks the bound: the check detects a
// per-worker limit.
func TestHostGateGlobalRate(t *testing.T) {
	srv := redistest.Start(t)
	limit := crawler.HostLimit{Interval: time.Millisecond, Burst: 5}
	const goroutines, perG = 30, 50
	total := goroutines * perG
	var gates []crawler.HostGate
	prefix := "seokit:hostgate:" + newID() + ":"
	for range 3 {
		g, err := redisfrontier.NewHostGate(client(t, srv), &redisfrontier.GateOptions{Prefix: prefix})
		if err != nil {
			t.Fatal(err)
		}
		gates = append(gates, g)
	}
	start := time.Now()
	times := hammer(t, gates, goroutines, perG, limit)
	el := time.Since(start)
	if len(times) != total {
		t.Fatalf("%d waits returned, want %d", len(times), total)
	}
	// Wake-ups lag their slots by scheduling delays, which can bunch them:
	// 5% of the rate (a 50 ms lag) is allowed for that.
	allowed := int(1000*1.05) + limit.Burst
	got := crawlertest.MaxInWindow(times, time.Second)
	t.Logf("%d requests in %v; most in any 1 s window %d (allowed %d)", total, el.Round(time.Millisecond), got, allowed)
	if got > allowed {
		t.Errorf("%d starts in one second, more than %d", got, allowed)
	}
	if min := time.Duration(total-limit.Burst) * limit.Interval; el < min {
		t.Errorf("%d waits took %v, less than the %v the rate allows", total, el, min)
	}

	local := []crawler.HostGate{crawler.NewLocalHostGate(), crawler.NewLocalHostGate(), crawler.NewLocalHostGate()}
	if got := crawlertest.MaxInWindow(hammer(t, local, goroutines, perG, limit), time.Second); got <= allowed {
		t.Errorf("control: three per-worker gates allowed only %d in a second; the check cannot tell them apart", got)
	}
}

// A pause set through one gate (a 429 answer) holds every gate's Wait.
func TestHostGatePause(t *testing.T) {
	srv := redistest.Start(t)
	prefix := "seokit:hostgate:" + newID() + ":"
	a, _ := redisfrontier.NewHostGate(client(t, srv), &redisfrontier.GateOptions{Prefix: prefix})
	b, _ := redisfrontier.NewHostGate(client(t, srv), &redisfrontier.GateOptions{Prefix: prefix})
	ctx := context.Background()
	limit := crawler.HostLimit{Interval: time.Microsecond, Burst: 1}
	const pause = 400 * time.Millisecond
	if err := a.Pause(ctx, "h.test", time.Now().Add(pause)); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := b.Wait(ctx, "h.test", limit); err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el < pause-50*time.Millisecond {
		t.Errorf("Wait during a %v pause returned after %v", pause, el)
	}
	start = time.Now()
	if err := b.Wait(ctx, "other.test", limit); err != nil || time.Since(start) > 200*time.Millisecond {
		t.Errorf("another host waited %v, %v", time.Since(start), err)
	}
	cctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	a.Pause(ctx, "h.test", time.Now().Add(time.Minute))
	if err := b.Wait(cctx, "h.test", limit); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Wait past its deadline = %v", err)
	}
}

func TestHostGateRejectsBadLimit(t *testing.T) {
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	defer c.Close()
	g, _ := redisfrontier.NewHostGate(c, nil)
	cases := []struct {
		name  string
		limit crawler.HostLimit
		field string
	}{
		{"zero_interval", crawler.HostLimit{Burst: 1}, "limit.interval"},
		{"negative_interval", crawler.HostLimit{Interval: -time.Second, Burst: 1}, "limit.interval"},
		{"zero_burst", crawler.HostLimit{Interval: time.Second}, "limit.burst"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var ie *seo.InputError
			if err := g.Wait(context.Background(), "h", tc.limit); !errors.As(err, &ie) || ie.Field != tc.field {
				t.Fatalf("Wait(%+v) = %v, want InputError on %s", tc.limit, err, tc.field)
			}
		})
	}
	if _, err := redisfrontier.NewHostGate(c, &redisfrontier.GateOptions{Prefix: "a*"}); !errors.Is(err, seo.ErrInvalidInput) {
		t.Fatalf("glob prefix: %v", err)
	}
}
