package crawler

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"runtime/debug"
	"sync"
	"testing"

	"github.com/seokit/seokit/analyzer"
	"github.com/seokit/seokit/seo"
)

// fakeLimit records the limits a memLimiter sets, as the runtime would
// hold them, and signals each change.
type fakeLimit struct {
	mu  sync.Mutex
	cur int64
	ch  chan int64
}

func (f *fakeLimit) set(v int64) int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	old := f.cur
	if v >= 0 {
		f.cur = v
		select {
		case f.ch <- v:
		default:
		}
	}
	return old
}

func (f *fakeLimit) get() int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.cur
}

func TestMemLimiterSumsAndRestores(t *testing.T) {
	const mb = 1 << 20
	idle := func() int64 { return 0 }
	for _, tc := range []struct {
		name       string
		base       int64
		budgets    []int64
		want       int64 // with every crawl running
		afterFirst int64 // after the first crawl released
	}{
		{"no limit before", math.MaxInt64, []int64{100 * mb}, 100 * mb, math.MaxInt64},
		{"two crawls add", math.MaxInt64, []int64{100 * mb, 50 * mb}, 150 * mb, 50 * mb},
		{"lower limit in place kept", 120 * mb, []int64{100 * mb, 50 * mb}, 120 * mb, 50 * mb},
		{"higher limit in place lowered", 900 * mb, []int64{200 * mb}, 200 * mb, 900 * mb},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeLimit{cur: tc.base, ch: make(chan int64, 1)}
			l := &memLimiter{set: f.set}
			var shares []*crawlLimit
			for _, b := range tc.budgets {
				shares = append(shares, l.acquire(b, idle))
			}
			if got := f.get(); got != tc.want {
				t.Errorf("limit with %d crawls = %d, want %d", len(shares), got, tc.want)
			}
			shares[0].release()
			if got := f.get(); got != tc.afterFirst {
				t.Errorf("limit after the first release = %d, want %d", got, tc.afterFirst)
			}
			for _, s := range shares[1:] {
				s.release()
			}
			if got := f.get(); got != tc.base {
				t.Errorf("limit after every release = %d, want the one before, %d", got, tc.base)
			}
		})
	}
}

// TestMemLimiterRaisesForLiveHeap: a crawl whose live heap outgrows its
// budget gets a limit of 1.25 times that heap, so the limit stays soft.
func TestMemLimiterRaisesForLiveHeap(t *testing.T) {
	const mb = 1 << 20
	f := &fakeLimit{cur: math.MaxInt64, ch: make(chan int64, 8)}
	l := &memLimiter{set: f.set}
	var mu sync.Mutex
	heap := int64(10 * mb)
	live := func() int64 { mu.Lock(); defer mu.Unlock(); return heap }
	s := l.acquire(100*mb, live)
	defer s.release()
	if got := <-f.ch; got != 100*mb {
		t.Fatalf("first limit %d, want the budget %d", got, 100*mb)
	}
	mu.Lock()
	heap = 90 * mb // within a fifth of the budget
	mu.Unlock()
	if got := <-f.ch; got != 90*mb+90*mb/4 {
		t.Fatalf("limit after the heap grew to 90 MB = %d, want %d", got, 90*mb+90*mb/4)
	}
	// Below a fifth under the raised limit nothing changes (raise is
	// called directly: the watcher calls it the same way).
	s.raise(50 * mb)
	if got := f.get(); got != 90*mb+90*mb/4 {
		t.Errorf("limit after the heap fell = %d, want it kept at %d", got, 90*mb+90*mb/4)
	}
}

func TestMemoryLimitValidated(t *testing.T) {
	for _, v := range []int64{-1, 1, MinMemoryLimit - 1} {
		_, err := New(&Options{MemoryLimit: v}).Run(context.Background(), "example.com")
		ie, ok := seo.AsInputError(err)
		if !ok || ie.Field != "memoryLimit" || !errors.Is(err, seo.ErrInvalidInput) {
			t.Errorf("MemoryLimit %d: error %v, want an input error on memoryLimit", v, err)
		}
	}
}

// TestRunSetsMemoryLimit: while a crawl with MemoryLimit runs, the
// runtime's soft limit is its budget; when Run returns, the limit in place
// before is back.
func TestRunSetsMemoryLimit(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<!doctype html><html lang=en><head><title>A page of a small test site</title></head><body><h1>Hi</h1><a href="/b">B</a></body></html>`)
	}))
	defer srv.Close()
	const before, budget = 3 << 30, 100 << 20
	old := debug.SetMemoryLimit(before)
	defer debug.SetMemoryLimit(old)
	var mu sync.Mutex
	var during []int64
	sink := SinkFunc(func(ctx context.Context, rep *analyzer.Report) error {
		mu.Lock()
		defer mu.Unlock()
		during = append(during, debug.SetMemoryLimit(-1))
		return nil
	})
	rep, err := New(&Options{AllowPrivate: true, PerHostRate: -1, SkipExternalLinks: true, MemoryLimit: budget, Sink: sink}).Run(context.Background(), srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Crawl.Fetched < 2 || len(during) < 2 {
		t.Fatalf("crawled %d pages, %d reports, want 2", rep.Crawl.Fetched, len(during))
	}
	for i, v := range during {
		// The budget, or more when this process's live heap needed it.
		if v < budget || v >= before {
			t.Errorf("limit during page %d = %d, want the budget %d (or the live heap's need, below %d)", i, v, budget, int64(before))
		}
	}
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("limit after Run = %d, want %d as before", got, int64(before))
	}
}
