package crux

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/seokit/seokit/fieldvitals"
	"github.com/seokit/seokit/internal/googlefake"
	"github.com/seokit/seokit/seo"
)

// vclock is a virtual clock: Sleep moves its time on at once.
type vclock struct {
	mu    sync.Mutex
	t     time.Time
	slept time.Duration
}

func (c *vclock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.t.IsZero() {
		c.t = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	}
	return c.t
}

func (c *vclock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
	c.slept += d
	return nil
}

// quota is a Chrome UX Report project's quota in front of the fake: a
// request past per in the trailing window is refused with 429 and a
// Retry-After, as Google does. It records every arrival.
type quota struct {
	next    http.Handler
	per     int
	window  time.Duration
	mu      sync.Mutex
	arrived []time.Time
	refused int
	// refuseFirst refuses the first n requests whatever the count.
	refuseFirst int
}

func (q *quota) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	q.mu.Lock()
	now := time.Now()
	n := 0
	for i := len(q.arrived) - 1; i >= 0 && now.Sub(q.arrived[i]) < q.window; i-- {
		n++
	}
	q.arrived = append(q.arrived, now)
	over := n >= q.per || len(q.arrived) <= q.refuseFirst
	if over {
		q.refused++
	}
	q.mu.Unlock()
	if over {
		w.Header().Set("Retry-After", "1")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusTooManyRequests)
		fmt.Fprint(w, `{"error":{"code":429,"message":"Quota exceeded for quota metric 'Queries' and limit 'Queries per minute'","status":"RESOURCE_EXHAUSTED"}}`)
		return
	}
	q.next.ServeHTTP(w, r)
}

// maxInWindow is the most arrivals in any window-long span.
func (q *quota) maxInWindow() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	best, lo := 0, 0
	for hi := range q.arrived {
		for q.arrived[hi].Sub(q.arrived[lo]) >= q.window {
			lo++
		}
		best = max(best, hi-lo+1)
	}
	return best
}

// TestPacedWithinQuota asks for more URLs than the quota allows in one
// window, from many goroutines at once through one shared limiter with
// the documented 150 per window (the window scaled from a minute to a
// second): no query is refused and no window holds more than 150.
func TestPacedWithinQuota(t *testing.T) {
	const n, per, window = 400, DefaultPerMinute, time.Second
	q := &quota{per: per, window: window, next: &googlefake.CrUX{Key: key, Data: func(googlefake.CrUXQuery) *googlefake.CrUXData { return full }}}
	srv := httptest.NewServer(q)
	t.Cleanup(srv.Close)
	lim := NewLimiter(&LimiterOptions{Window: window})
	// Two Sources of the same project share the limiter, as two
	// services of one process share their key's.
	var srcs [2]*Source
	for i := range srcs {
		s, err := New(key, &Options{BaseURL: srv.URL, Timeout: 10 * time.Second, Limiter: lim})
		if err != nil {
			t.Fatal(err)
		}
		srcs[i] = s
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
		ok   int
	)
	work := make(chan int)
	for w := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				rec, err := srcs[w%2].Record(ctx, fieldvitals.Query{URL: fmt.Sprintf("https://example.com/p/%d", i)})
				mu.Lock()
				if err != nil {
					errs = append(errs, err)
				} else if rec.Status == fieldvitals.StatusOK {
					ok++
				}
				mu.Unlock()
			}
		}()
	}
	for i := range n {
		work <- i
	}
	close(work)
	wg.Wait()
	if len(errs) > 0 {
		t.Fatalf("%d queries failed, first: %v", len(errs), errs[0])
	}
	peak := q.maxInWindow()
	span := q.arrived[len(q.arrived)-1].Sub(q.arrived[0])
	t.Logf("%d URLs: %d records, %d requests, %d refused (429), at most %d in any %s (quota %d), over %s",
		n, ok, len(q.arrived), q.refused, peak, window, per, span.Round(time.Millisecond))
	if ok != n || len(q.arrived) != n {
		t.Errorf("records %d, requests %d, want %d each", ok, len(q.arrived), n)
	}
	if q.refused != 0 {
		t.Errorf("%d requests refused with 429", q.refused)
	}
	if peak > per {
		t.Errorf("%d requests in one window, quota %d", peak, per)
	}
	// 400 queries at 150 a window need two windows to pass.
	if min := time.Duration((n-1)/per) * window; span < min {
		t.Errorf("the requests took %s, less than the %s the quota needs", span, min)
	}
}

// TestRetryAfter: a 429 pauses the key's queries for its Retry-After and
// the query is sent again; a query refused every time ends with the
// rate-limit error after MaxRetries retries.
func TestRetryAfter(t *testing.T) {
	q := &quota{per: 1000, window: time.Minute, refuseFirst: 1, next: &googlefake.CrUX{Data: func(googlefake.CrUXQuery) *googlefake.CrUXData { return full }}}
	srv := httptest.NewServer(q)
	t.Cleanup(srv.Close)
	clock := &vclock{}
	s, err := New(key, &Options{BaseURL: srv.URL, Timeout: 5 * time.Second, Limiter: NewLimiter(&LimiterOptions{Clock: clock})})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := s.Record(context.Background(), fieldvitals.Query{URL: "https://example.com/"})
	if err != nil || rec.Status != fieldvitals.StatusOK {
		t.Fatalf("Record = %+v, %v; want the record after one retry", rec, err)
	}
	if len(q.arrived) != 2 || clock.slept != time.Second {
		t.Errorf("requests %d, paused %s; want 2 after a 1s pause", len(q.arrived), clock.slept)
	}

	q2 := &quota{per: 1000, window: time.Minute, refuseFirst: 100, next: q.next}
	srv2 := httptest.NewServer(q2)
	t.Cleanup(srv2.Close)
	s2, err := New(key, &Options{BaseURL: srv2.URL, Timeout: 5 * time.Second, Limiter: NewLimiter(&LimiterOptions{Clock: &vclock{}})})
	if err != nil {
		t.Fatal(err)
	}
	_, err = s2.Record(context.Background(), fieldvitals.Query{URL: "https://example.com/"})
	if !errors.Is(err, seo.ErrRateLimited) || len(q2.arrived) != MaxRetries+1 {
		t.Errorf("err %v after %d requests; want ErrRateLimited after %d", err, len(q2.arrived), MaxRetries+1)
	}
}

// TestLimiterCanceled: a query waiting for the window ends with its
// context.
func TestLimiterCanceled(t *testing.T) {
	lim := NewLimiter(&LimiterOptions{PerWindow: 1})
	done, err := lim.Wait(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := lim.Wait(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Wait = %v, want context.Canceled", err)
	}
}
