package crawler

import (
	"context"
	"errors"
	"slices"
	"sync"
)

// Item is one URL waiting in a Frontier.
type Item struct {
	// URL is normalised; the frontier de-duplicates on it.
	URL string
	// Depth is the click depth from the start URL (-1 for a URL known only
	// from a sitemap).
	Depth int
	// Source says how the URL was found: "start", "link", "redirect",
	// "refresh", "sitemap", "canonical", "hreflang" or "list".
	Source string
	// Referrer is the page that linked or redirected to URL, if any.
	Referrer string
}

// Item sources.
const (
	SourceStart    = "start"
	SourceLink     = "link"
	SourceRedirect = "redirect"
	SourceSitemap  = "sitemap"
	// SourceRefresh marks the target of a page's Refresh header or meta
	// refresh, which search engines follow as a redirect.
	SourceRefresh = "refresh"
)

// Frontier is the crawl's queue and seen-set. Implementations must be safe
// for concurrent use.
//
// Push adds the items whose URL was never pushed before (in this or an
// earlier call) and returns how many it added. Pop removes and returns up to
// n queued items, lowest Depth first and in push order within a depth; it
// returns an empty slice, not an error, when nothing is queued. Done marks a
// popped URL as finished; a durable frontier re-queues items popped but never
// Done when it is reopened. Len counts the items queued (popped ones not
// included). Methods return ctx.Err() when ctx is done.
type Frontier interface {
	Push(ctx context.Context, items []Item) (added int, err error)
	Pop(ctx context.Context, n int) ([]Item, error)
	Done(ctx context.Context, url string) error
	Len(ctx context.Context) (int, error)
	Close() error
}

// SummaryStore is an optional capability of a Frontier: it keeps each
// page's summary and outgoing edges, so that a resumed crawl can rebuild its
// site report without fetching finished pages again.
type SummaryStore interface {
	PutSummary(ctx context.Context, sum PageSummary, edges []Edge) error
	// Summaries calls fn for every stored summary, in storage order, and
	// stops at fn's first error, which it returns.
	Summaries(ctx context.Context, fn func(PageSummary, []Edge) error) error
}

// SharedFrontier is a Frontier that several crawl processes use at once
// for one crawl, each running its own Run over it (see Options.Worker).
// Items popped by one worker are leased to it until Done; a worker that
// dies leaves them to be queued again when the lease runs out. It keeps
// every page's summary (SummaryStore), from which the coordinating Run
// builds the site report.
//
// Every handle on one crawl sees the same seen-set, queue and summaries.
// Done ends only the calling worker's own lease. Pending returns, across
// all workers, the items queued and the items popped but not yet Done,
// counted in one atomic step: when both are zero the crawl is over, since
// only a page in flight can add new items. Package crawlertest has the
// conformance suite (RunSharedFrontier).
//
// The page cap (Options.MaxPages) is global: the frontier counts the pages
// of the crawl. PopPages is Pop under the cap: in one atomic step it pops
// at most limit minus the pages counted and counts the items it pops.
// ReturnPages gives back n counted pages whose items were not fetched as
// pages (blocked by robots.txt, or given up when the worker stopped); a
// worker calls it before Done of those items. PagesCounted returns the
// pages counted and, in the same atomic read, the items in flight: with
// the count at the cap and nothing in flight no worker can pop again, so
// the crawl stopped at the cap. The count is an upper bound of the pages
// fetched: the pages counted for a worker that dies with items in flight
// are not given back, so the crawl then fetches fewer than the cap.
type SharedFrontier interface {
	Frontier
	SummaryStore
	Pending(ctx context.Context) (queued, inFlight int, err error)
	PopPages(ctx context.Context, n, limit int) ([]Item, error)
	ReturnPages(ctx context.Context, n int) error
	PagesCounted(ctx context.Context) (pages, inFlight int, err error)
}

var _ Frontier = (*MemoryFrontier)(nil)

// MemoryFrontier is the default Frontier: a queue per depth and a set of
// every URL pushed, in memory. The zero value is not usable; call
// NewMemoryFrontier.
type MemoryFrontier struct {
	mu     sync.Mutex
	seen   map[string]struct{}
	levels []level // levels[d+1] holds depth d (depth -1 is sitemap-only)
	queued int
	closed bool
}

type level struct {
	items []Item
	head  int
}

// NewMemoryFrontier returns an empty in-memory frontier.
func NewMemoryFrontier() *MemoryFrontier {
	return &MemoryFrontier{seen: make(map[string]struct{})}
}

var errClosed = errors.New("crawler: frontier is closed")

// Push adds the items not seen before and returns how many it added.
func (f *MemoryFrontier) Push(ctx context.Context, items []Item) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return 0, errClosed
	}
	added := 0
	for _, it := range items {
		if _, ok := f.seen[it.URL]; ok {
			continue
		}
		f.seen[it.URL] = struct{}{}
		f.enqueue(it)
		added++
	}
	return added, nil
}

func (f *MemoryFrontier) enqueue(it Item) {
	d := it.Depth + 1
	if d < 0 {
		d = 0
	}
	for len(f.levels) <= d {
		f.levels = append(f.levels, level{})
	}
	f.levels[d].items = append(f.levels[d].items, it)
	f.queued++
}

// Pop removes up to n items, lowest depth first.
func (f *MemoryFrontier) Pop(ctx context.Context, n int) ([]Item, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return nil, errClosed
	}
	if n > f.queued {
		n = f.queued
	}
	out := make([]Item, 0, n)
	for d := range f.levels {
		l := &f.levels[d]
		for len(out) < n && l.head < len(l.items) {
			out = append(out, l.items[l.head])
			l.items[l.head] = Item{}
			l.head++
		}
		if l.head == len(l.items) {
			// Drained: a large array goes back to the GC, so a level that
			// once held a whole site does not stay that big.
			if cap(l.items) > maxIdleLevel {
				l.items = nil
			}
			l.items, l.head = l.items[:0], 0
		} else if l.head > 1024 && l.head > len(l.items)/2 {
			if cap(l.items) > maxIdleLevel {
				l.items = slices.Clone(l.items[l.head:])
			} else {
				l.items = append(l.items[:0], l.items[l.head:]...)
			}
			l.head = 0
		}
		if len(out) == n {
			break
		}
	}
	f.queued -= len(out)
	return out, nil
}

// maxIdleLevel is the capacity above which a drained or mostly popped
// level's array is released or shrunk rather than reused.
const maxIdleLevel = 4096

// Done is a no-op for the in-memory frontier: a popped URL stays seen.
func (f *MemoryFrontier) Done(ctx context.Context, url string) error {
	return ctx.Err()
}

// Len returns the number of queued items.
func (f *MemoryFrontier) Len(ctx context.Context) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.queued, nil
}

// Close releases the frontier's memory; later calls fail.
func (f *MemoryFrontier) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed = true
	f.seen, f.levels, f.queued = nil, nil, 0
	return nil
}
