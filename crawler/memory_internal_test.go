package crawler

import (
	"context"
	"fmt"
	"net/url"
	"runtime"
	"runtime/debug"
	"testing"
	"time"

	"github.com/seokit/seokit/internal/proctest"
	"github.com/seokit/seokit/internal/racetest"
)

// liveHeap returns the bytes of live heap objects after a full GC.
func liveHeap() int64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// sampleHeap samples the heap's allocated bytes every millisecond until
// stop is called, which returns the highest value seen.
func sampleHeap() (stop func() int64) {
	stopPeak := proctest.SamplePeak("/memory/classes/heap/objects:bytes", time.Millisecond)
	return func() int64 { return int64(stopPeak()) }
}

// TestMemoryModel measures the constants of EstimateMemory (see MEMORY.md):
// what the crawl holds per crawled page, site checks included, and per URL
// known but not crawled, and fails when a measured figure exceeds its
// constant.
func TestMemoryModel(t *testing.T) {
	if testing.Short() {
		t.Skip("measures the heap")
	}
	if racetest.Enabled {
		// The build's heap is sampled every millisecond at GOGC=5, which
		// the race detector slows ten-fold; .ci/run runs it without -race.
		t.Skip("SKIP under -race: a heap measurement; run it without -race: go test ./crawler -run '^TestMemoryModel$'")
	}
	const pages, known = 10_000, 50_000
	start, _ := url.Parse("https://example.com/")
	base := liveHeap()
	// The report lists at most MaxReportPages pages (10,000 by default,
	// 640 bytes each): a fixed cost, which at this size would read as one
	// list entry per page; 100 keep it out of the per-page figure.
	b := newSiteBuilder(start, &Options{MaxPages: pages, MaxReportPages: 100})
	for i := range pages {
		u := fmt.Sprintf("https://example.com/articles/%d/a-generated-article-title", i)
		edges := make([]Edge, 0, 25)
		for k := range 25 {
			edges = append(edges, Edge{From: u, To: fmt.Sprintf("https://example.com/articles/%d/a-generated-article-title", (i+k*37)%pages)})
		}
		b.addPage(PageSummary{
			URL: u, Status: 200, Depth: ptr(3), ContentType: "text/html; charset=utf-8", IsHTML: true, Indexable: true,
			Title:       fmt.Sprintf("Article %d: a generated title of typical length", i),
			Description: fmt.Sprintf("The description of article %d, about as long as a meta description usually is on a news site.", i),
			H1:          fmt.Sprintf("Article %d", i), WordCount: 800, TextHash: uint64(i), SimHash: uint64(i) * 7919,
			Score: ptr(90), Warnings: 2, Findings: []string{"images.alt_missing", "meta.description_length"},
		}, edges)
	}
	held := liveHeap()
	perPage := (held - base) / pages
	old := debug.SetGCPercent(5)
	stop := sampleHeap()
	rep := b.build(&crawlFacts{})
	peak := stop()
	debug.SetGCPercent(old)
	perPagePeak := (peak - base) / pages
	built := liveHeap()
	perPageBuilt := (built - base) / pages
	runtime.KeepAlive(rep)
	rep, b = nil, nil

	base = liveHeap()
	f := NewMemoryFrontier()
	b = newSiteBuilder(start, &Options{MaxPages: pages})
	items := make([]Item, 0, 1000)
	for i := range known {
		s := fmt.Sprintf("https://example.com/never/seen/%d/a-generated-link-target", i)
		b.id(s)
		items = append(items, Item{URL: s, Depth: 4, Source: SourceLink, Referrer: "https://example.com/articles/1/a-generated-article-title"})
		if len(items) == cap(items) {
			f.Push(context.Background(), items)
			items = items[:0]
		}
	}
	perKnown := (liveHeap() - base) / known
	runtime.KeepAlive(f)
	runtime.KeepAlive(b)
	f, b = nil, nil

	// A frontier on disk (sqlitefrontier) keeps its seen-set and queue
	// there: a known URL costs its graph node only.
	base = liveHeap()
	b = newSiteBuilder(start, &Options{MaxPages: pages})
	for i := range known {
		b.id(fmt.Sprintf("https://example.com/never/seen/%d/a-generated-link-target", i))
	}
	perNode := (liveHeap() - base) / known
	runtime.KeepAlive(b)

	t.Logf("per crawled page: %d bytes while crawling, at most %d bytes while the site report is built (heap sampled with GOGC=5), %d bytes with it built; per known URL (frontier + graph node): %d bytes, %d with a frontier on disk (graph node only)",
		perPage, perPagePeak, perPageBuilt, perKnown, perNode)
	if perPagePeak > memPerPage {
		t.Errorf("a crawled page holds %d bytes, model says %d", perPagePeak, memPerPage)
	}
	if perKnown > memPerKnownURL {
		t.Errorf("a known URL holds %d bytes, model says %d", perKnown, memPerKnownURL)
	}
}
