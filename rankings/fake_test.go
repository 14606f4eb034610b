package rankings_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/seokit/seokit/rankings"
)

// fakeSource answers result pages from a table, for tests. A keyword
// missing from results is answered with an empty page (nothing ranked).
type fakeSource struct {
	mu       sync.Mutex
	results  map[string][]rankings.Result
	fail     map[string]error // keyword -> error to answer
	calls    map[string]int
	depth    int
	delay    time.Duration
	now      func() time.Time // stamps pages; nil: 2025-03-01 10:00 UTC
	inflight atomic.Int32
	maxSeen  atomic.Int32
}

func newFake(results map[string][]rankings.Result) *fakeSource {
	return &fakeSource{results: results, fail: map[string]error{}, calls: map[string]int{}, depth: 100}
}

func (f *fakeSource) Name() string { return "fake" }

func (f *fakeSource) Search(ctx context.Context, q rankings.Query) (*rankings.SERP, error) {
	n := f.inflight.Add(1)
	defer f.inflight.Add(-1)
	for {
		m := f.maxSeen.Load()
		if n <= m || f.maxSeen.CompareAndSwap(m, n) {
			break
		}
	}
	if f.delay > 0 {
		select {
		case <-time.After(f.delay):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls[q.Keyword]++
	if err := f.fail[q.Keyword]; err != nil {
		return nil, fmt.Errorf("fake: %w", err)
	}
	at := time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)
	if f.now != nil {
		at = f.now()
	}
	return &rankings.SERP{Query: q, Results: f.results[q.Keyword], Depth: f.depth, Source: "fake", CheckedAt: at}, nil
}

func (f *fakeSource) callsOf(k string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[k]
}

func (f *fakeSource) setFail(k string, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err == nil {
		delete(f.fail, k)
	} else {
		f.fail[k] = err
	}
}
