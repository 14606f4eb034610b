package crawler

import (
	"math"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"time"
)

// MinMemoryLimit is the least Options.MemoryLimit Run accepts: below it the
// runtime and the pages in flight alone would keep the collector running.
const MinMemoryLimit = 32 << 20

// memLimitPoll is how often a crawl with a memory limit reads its live
// heap to raise the limit when the crawl needs more.
const memLimitPoll = 100 * time.Millisecond

// memLimits sets the Go runtime's soft memory limit from the budgets of the
// crawls running in the process (Options.MemoryLimit): their sum, never
// above the limit that was in place when the first of them started
// (GOMEMLIMIT, a server's own), which is restored when the last one ends.
var memLimits = &memLimiter{set: debug.SetMemoryLimit}

// memLimiter is the bookkeeping of memLimits; set is debug.SetMemoryLimit
// (a stand-in in tests).
type memLimiter struct {
	mu     sync.Mutex
	set    func(int64) int64
	base   int64 // the limit before the first active crawl
	active map[*crawlLimit]struct{}
}

// crawlLimit is one crawl's share of the process limit.
type crawlLimit struct {
	l      *memLimiter
	budget int64 // Options.MemoryLimit
	want   int64 // budget, raised when the live heap needs more
	stop   chan struct{}
	done   chan struct{}
}

// acquire adds a crawl with the given budget and returns its share; release
// removes it. The share polls the live heap until released and raises its
// want to 1.25 × the live heap whenever the heap comes within a fifth of it,
// so the limit stays soft: a crawl that needs more than its budget runs
// with an ordinary collector rather than a continuous one.
func (l *memLimiter) acquire(budget int64, live func() int64) *crawlLimit {
	c := &crawlLimit{l: l, budget: budget, want: budget, stop: make(chan struct{}), done: make(chan struct{})}
	l.mu.Lock()
	if len(l.active) == 0 {
		l.base = l.set(-1) // -1 reads the limit without changing it
		l.active = map[*crawlLimit]struct{}{}
	}
	l.active[c] = struct{}{}
	l.applyLocked()
	l.mu.Unlock()
	go c.watch(live)
	return c
}

// applyLocked sets the limit to the sum of the active wants, capped by
// base. l.mu is held.
func (l *memLimiter) applyLocked() {
	if len(l.active) == 0 {
		l.set(l.base)
		return
	}
	var sum int64
	for c := range l.active {
		sum = satAdd(sum, c.want)
	}
	l.set(min(sum, l.base))
}

// raise lifts c's want to fit a live heap of live bytes, when it is within
// a fifth of it.
func (c *crawlLimit) raise(live int64) {
	c.l.mu.Lock()
	defer c.l.mu.Unlock()
	if live < c.want-c.want/5 {
		return
	}
	c.want = max(c.budget, satAdd(live, live/4))
	c.l.applyLocked()
}

// watch polls the live heap until release.
func (c *crawlLimit) watch(live func() int64) {
	defer close(c.done)
	t := time.NewTicker(memLimitPoll)
	defer t.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-t.C:
			c.raise(live())
		}
	}
}

// release removes c from the process limit, restoring the limit in place
// before the first crawl when c was the last, and waits for its watcher.
func (c *crawlLimit) release() {
	close(c.stop)
	<-c.done
	c.l.mu.Lock()
	delete(c.l.active, c)
	c.l.applyLocked()
	c.l.mu.Unlock()
}

// heapLive returns the heap the last collection found live, in bytes.
func heapLive() int64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(min(s[0].Value.Uint64(), math.MaxInt64))
}

// satAdd adds two non-negative int64s, saturating at math.MaxInt64.
func satAdd(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}
