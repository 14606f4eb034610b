// Package crawlertest provides conformance suites for crawler.Frontier,
// crawler.SharedFrontier and crawler.HostGate drivers and a generated web
// site, served on loopback, for crawler tests and benchmarks.
package crawlertest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/seokit/seokit/analyzer"
	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/seo"
)

// RunFrontier runs the Frontier conformance suite. newFrontier returns an
// empty frontier for each subtest; the suite closes it. Frontiers that
// implement crawler.SummaryStore are checked for that too.
func RunFrontier(t *testing.T, newFrontier func(t *testing.T) crawler.Frontier) {
	t.Helper()
	ctx := context.Background()
	open := func(t *testing.T) crawler.Frontier {
		f := newFrontier(t)
		t.Cleanup(func() { f.Close() })
		return f
	}
	items := func(depth int, urls ...string) []crawler.Item {
		out := make([]crawler.Item, len(urls))
		for i, u := range urls {
			out[i] = crawler.Item{URL: u, Depth: depth, Source: crawler.SourceLink, Referrer: "https://example.com/"}
		}
		return out
	}
	urlsOf := func(its []crawler.Item) []string {
		out := make([]string, len(its))
		for i, it := range its {
			out[i] = it.URL
		}
		return out
	}

	t.Run("push_dedups", func(t *testing.T) {
		f := open(t)
		n, err := f.Push(ctx, items(1, "https://example.com/a", "https://example.com/b", "https://example.com/a"))
		if err != nil || n != 2 {
			t.Fatalf("Push = %d, %v; want 2 added", n, err)
		}
		n, err = f.Push(ctx, items(0, "https://example.com/b", "https://example.com/c"))
		if err != nil || n != 1 {
			t.Fatalf("second Push = %d, %v; want 1 added", n, err)
		}
		if l, err := f.Len(ctx); err != nil || l != 3 {
			t.Fatalf("Len = %d, %v; want 3", l, err)
		}
	})

	t.Run("pop_lowest_depth_first_fifo", func(t *testing.T) {
		f := open(t)
		mustPush(t, f, items(2, "https://example.com/d2a", "https://example.com/d2b"))
		mustPush(t, f, items(1, "https://example.com/d1a"))
		mustPush(t, f, items(-1, "https://example.com/sitemap-only"))
		mustPush(t, f, items(1, "https://example.com/d1b"))
		mustPush(t, f, items(0, "https://example.com/"))
		got, err := f.Pop(ctx, 3)
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"https://example.com/sitemap-only", "https://example.com/", "https://example.com/d1a"}
		if fmt.Sprint(urlsOf(got)) != fmt.Sprint(want) {
			t.Fatalf("Pop(3) = %v, want %v", urlsOf(got), want)
		}
		got, err = f.Pop(ctx, 10)
		if err != nil {
			t.Fatal(err)
		}
		want = []string{"https://example.com/d1b", "https://example.com/d2a", "https://example.com/d2b"}
		if fmt.Sprint(urlsOf(got)) != fmt.Sprint(want) {
			t.Fatalf("Pop(10) = %v, want %v", urlsOf(got), want)
		}
		if got[0].Depth != 1 || got[0].Source != crawler.SourceLink || got[0].Referrer != "https://example.com/" {
			t.Errorf("item fields not kept: %+v", got[0])
		}
	})

	t.Run("pop_empty", func(t *testing.T) {
		f := open(t)
		got, err := f.Pop(ctx, 5)
		if err != nil || len(got) != 0 {
			t.Fatalf("Pop on empty = %v, %v; want nothing, nil", got, err)
		}
		if l, err := f.Len(ctx); err != nil || l != 0 {
			t.Fatalf("Len = %d, %v; want 0", l, err)
		}
	})

	t.Run("popped_stays_seen", func(t *testing.T) {
		f := open(t)
		mustPush(t, f, items(0, "https://example.com/x"))
		got, err := f.Pop(ctx, 1)
		if err != nil || len(got) != 1 {
			t.Fatalf("Pop = %v, %v", got, err)
		}
		if l, _ := f.Len(ctx); l != 0 {
			t.Fatalf("Len after Pop = %d, want 0", l)
		}
		if err := f.Done(ctx, "https://example.com/x"); err != nil {
			t.Fatalf("Done: %v", err)
		}
		if n, err := f.Push(ctx, items(0, "https://example.com/x")); err != nil || n != 0 {
			t.Fatalf("Push of a done URL = %d, %v; want 0", n, err)
		}
		if err := f.Done(ctx, "https://example.com/never-pushed"); err != nil {
			t.Fatalf("Done of an unknown URL: %v", err)
		}
	})

	t.Run("canceled_context", func(t *testing.T) {
		f := open(t)
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if _, err := f.Push(cctx, items(0, "https://example.com/")); !errors.Is(err, context.Canceled) {
			t.Errorf("Push with canceled ctx = %v, want context.Canceled", err)
		}
		if _, err := f.Pop(cctx, 1); !errors.Is(err, context.Canceled) {
			t.Errorf("Pop with canceled ctx = %v, want context.Canceled", err)
		}
	})

	t.Run("concurrent", func(t *testing.T) {
		f := open(t)
		const workers, per = 4, 50
		var wg sync.WaitGroup
		var mu sync.Mutex
		popped := map[string]int{}
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range per {
					// Every worker pushes the same URLs: each is added once.
					if _, err := f.Push(ctx, items(i%3, fmt.Sprintf("https://example.com/p/%d", i))); err != nil {
						t.Error(err)
						return
					}
					got, err := f.Pop(ctx, 2)
					if err != nil {
						t.Error(err)
						return
					}
					mu.Lock()
					for _, it := range got {
						popped[it.URL]++
						_ = w
					}
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		rest, err := f.Pop(ctx, workers*per)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range rest {
			popped[it.URL]++
		}
		if len(popped) != per {
			t.Fatalf("popped %d distinct URLs, want %d", len(popped), per)
		}
		for u, n := range popped {
			if n != 1 {
				t.Fatalf("%s popped %d times", u, n)
			}
		}
	})

	t.Run("summary_store", func(t *testing.T) {
		f := open(t)
		s, ok := f.(crawler.SummaryStore)
		if !ok {
			t.Skip("frontier does not implement crawler.SummaryStore")
		}
		sums := []crawler.PageSummary{
			{URL: "https://example.com/", Status: 200, Depth: ptr(0), Score: ptr(90), Title: "Home", TextHash: 42, SimHash: 7,
				FingerprintVersion: 1, // kept: a summary of a crawl begun before an upgrade
				Redirects:          []seo.Redirect{{URL: "http://example.com/", Status: 301, Location: "https://example.com/"}}},
			{URL: "https://example.com/a", Status: 404, ScoreReason: analyzer.ScoreErrorStatus, Error: ""},
		}
		edges := [][]crawler.Edge{{{From: "https://example.com/", To: "https://example.com/a", Nofollow: true}}, nil}
		for i := range sums {
			if err := s.PutSummary(ctx, sums[i], edges[i]); err != nil {
				t.Fatal(err)
			}
		}
		var got []crawler.PageSummary
		var gotEdges [][]crawler.Edge
		if err := s.Summaries(ctx, func(p crawler.PageSummary, e []crawler.Edge) error {
			got = append(got, p)
			gotEdges = append(gotEdges, e)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 || got[0].URL != sums[0].URL || got[0].Title != "Home" || got[0].TextHash != 42 || got[0].SimHash != 7 ||
			len(got[0].Redirects) != 1 || got[1].Status != 404 ||
			got[0].Depth == nil || *got[0].Depth != 0 || got[0].Score == nil || *got[0].Score != 90 ||
			got[1].Depth != nil || got[1].Score != nil || got[1].ScoreReason != analyzer.ScoreErrorStatus {
			t.Fatalf("Summaries = %+v", got)
		}
		// The fingerprint's version is stored with it; none reads as the
		// current one.
		if v := got[1].FingerprintVersion; got[0].FingerprintVersion != 1 || v != 0 && v != analyzer.FingerprintVersion {
			t.Fatalf("fingerprint versions %d and %d, want 1 and %d", got[0].FingerprintVersion, v, analyzer.FingerprintVersion)
		}
		if len(gotEdges[0]) != 1 || !gotEdges[0][0].Nofollow || gotEdges[0][0].To != "https://example.com/a" || len(gotEdges[1]) != 0 {
			t.Fatalf("edges = %+v", gotEdges)
		}
		stop := errors.New("stop")
		n := 0
		if err := s.Summaries(ctx, func(crawler.PageSummary, []crawler.Edge) error { n++; return stop }); !errors.Is(err, stop) || n != 1 {
			t.Fatalf("Summaries with failing fn = %v after %d calls; want stop after 1", err, n)
		}
	})
}

// ptr returns a pointer to v.
func ptr[T any](v T) *T { return &v }

func mustPush(t *testing.T, f crawler.Frontier, its []crawler.Item) {
	t.Helper()
	if _, err := f.Push(context.Background(), its); err != nil {
		t.Fatal(err)
	}
}

// RunSharedFrontier runs the conformance suite of crawler.SharedFrontier
// drivers: open returns a new handle on the crawl crawlID (each call a
// separate worker, as another process would open it); the suite closes
// them. Each subtest uses its own crawl ID.
func RunSharedFrontier(t *testing.T, open func(t *testing.T, crawlID string) crawler.SharedFrontier) {
	t.Helper()
	ctx := context.Background()
	n := 0
	worker := func(t *testing.T, id string) crawler.SharedFrontier {
		f := open(t, id)
		t.Cleanup(func() { f.Close() })
		return f
	}
	pair := func(t *testing.T) (a, b crawler.SharedFrontier) {
		n++
		id := fmt.Sprintf("conformance-%d", n)
		return worker(t, id), worker(t, id)
	}
	it := func(u string, d int) crawler.Item { return crawler.Item{URL: u, Depth: d, Source: crawler.SourceLink} }

	t.Run("shared_seen_and_queue", func(t *testing.T) {
		a, b := pair(t)
		if n, err := a.Push(ctx, []crawler.Item{it("https://example.com/1", 1), it("https://example.com/2", 1)}); err != nil || n != 2 {
			t.Fatalf("a.Push = %d, %v; want 2", n, err)
		}
		if n, err := b.Push(ctx, []crawler.Item{it("https://example.com/2", 1), it("https://example.com/0", 0)}); err != nil || n != 1 {
			t.Fatalf("b.Push = %d, %v; want 1 (example.com/2 pushed by a)", n, err)
		}
		if l, err := b.Len(ctx); err != nil || l != 3 {
			t.Fatalf("b.Len = %d, %v; want 3", l, err)
		}
		got, err := b.Pop(ctx, 2)
		if err != nil || len(got) != 2 || got[0].URL != "https://example.com/0" || got[1].URL != "https://example.com/1" {
			t.Fatalf("b.Pop(2) = %v, %v; want /0 then /1", got, err)
		}
		got, err = a.Pop(ctx, 5)
		if err != nil || len(got) != 1 || got[0].URL != "https://example.com/2" {
			t.Fatalf("a.Pop = %v, %v; want only /2", got, err)
		}
	})

	t.Run("pending_counts", func(t *testing.T) {
		a, b := pair(t)
		if q, f, err := a.Pending(ctx); err != nil || q != 0 || f != 0 {
			t.Fatalf("Pending of a new crawl = %d, %d, %v", q, f, err)
		}
		mustPush(t, a, []crawler.Item{it("https://example.com/a", 1), it("https://example.com/b", 1), it("https://example.com/c", 2)})
		if got, err := b.Pop(ctx, 1); err != nil || len(got) != 1 {
			t.Fatalf("b.Pop = %v, %v", got, err)
		}
		if q, f, err := a.Pending(ctx); err != nil || q != 2 || f != 1 {
			t.Fatalf("Pending = %d queued, %d in flight, %v; want 2, 1", q, f, err)
		}
		// Done from a worker that did not pop the URL changes nothing.
		if err := a.Done(ctx, "https://example.com/a"); err != nil {
			t.Fatal(err)
		}
		if _, f, _ := a.Pending(ctx); f != 1 {
			t.Fatalf("in flight after another worker's Done = %d, want 1", f)
		}
		if err := b.Done(ctx, "https://example.com/a"); err != nil {
			t.Fatal(err)
		}
		if q, f, _ := b.Pending(ctx); q != 2 || f != 0 {
			t.Fatalf("Pending after Done = %d, %d; want 2, 0", q, f)
		}
		rest, err := a.Pop(ctx, 10)
		if err != nil || len(rest) != 2 {
			t.Fatalf("a.Pop = %v, %v", rest, err)
		}
		for _, r := range rest {
			if err := a.Done(ctx, r.URL); err != nil {
				t.Fatal(err)
			}
		}
		if q, f, _ := b.Pending(ctx); q != 0 || f != 0 {
			t.Fatalf("Pending when all is done = %d, %d; want 0, 0", q, f)
		}
	})

	t.Run("shared_summaries", func(t *testing.T) {
		a, b := pair(t)
		if err := a.PutSummary(ctx, crawler.PageSummary{URL: "https://example.com/", Status: 200}, nil); err != nil {
			t.Fatal(err)
		}
		if err := b.PutSummary(ctx, crawler.PageSummary{URL: "https://example.com/x", Status: 404}, nil); err != nil {
			t.Fatal(err)
		}
		var urls []string
		if err := a.Summaries(ctx, func(s crawler.PageSummary, _ []crawler.Edge) error { urls = append(urls, s.URL); return nil }); err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(urls) != "[https://example.com/ https://example.com/x]" {
			t.Fatalf("summaries seen by a = %v, want both workers'", urls)
		}
	})

	t.Run("page_cap", func(t *testing.T) {
		a, b := pair(t)
		for i := range 6 {
			mustPush(t, a, []crawler.Item{it(fmt.Sprintf("https://example.com/cap/%d", i), 1)})
		}
		if got, err := a.PopPages(ctx, 3, 4); err != nil || len(got) != 3 {
			t.Fatalf("a.PopPages(3, cap 4) = %v, %v; want 3 items", got, err)
		}
		got, err := b.PopPages(ctx, 3, 4)
		if err != nil || len(got) != 1 {
			t.Fatalf("b.PopPages(3, cap 4) = %v, %v; want 1 item (3 counted by a)", got, err)
		}
		if p, f, err := a.PagesCounted(ctx); err != nil || p != 4 || f != 4 {
			t.Fatalf("PagesCounted = %d, %d, %v; want 4 pages, 4 in flight", p, f, err)
		}
		if got, err := b.PopPages(ctx, 3, 4); err != nil || len(got) != 0 {
			t.Fatalf("PopPages at the cap = %v, %v; want none", got, err)
		}
		// A page given back (robots.txt blocked it) frees its slot.
		if err := b.ReturnPages(ctx, 1); err != nil {
			t.Fatal(err)
		}
		if err := b.Done(ctx, got[0].URL); err != nil {
			t.Fatal(err)
		}
		if got, err := a.PopPages(ctx, 3, 4); err != nil || len(got) != 1 {
			t.Fatalf("PopPages after ReturnPages = %v, %v; want 1 item", got, err)
		}
		if p, _, err := b.PagesCounted(ctx); err != nil || p != 4 {
			t.Fatalf("pages counted = %d, %v; want 4", p, err)
		}
		// Pop does not count pages.
		if got, err := b.Pop(ctx, 1); err != nil || len(got) != 1 {
			t.Fatalf("Pop at the cap = %v, %v; want 1 item", got, err)
		}
		if p, f, err := b.PagesCounted(ctx); err != nil || p != 4 || f != 5 {
			t.Fatalf("PagesCounted = %d, %d, %v; want 4 pages, 5 in flight", p, f, err)
		}
	})

	t.Run("concurrent_workers", func(t *testing.T) {
		a, b := pair(t)
		ws := []crawler.SharedFrontier{a, b, worker(t, fmt.Sprintf("conformance-%d", n))}
		const per = 60
		var mu sync.Mutex
		popped := map[string]int{}
		var wg sync.WaitGroup
		for _, w := range ws {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range per {
					if _, err := w.Push(ctx, []crawler.Item{it(fmt.Sprintf("https://example.com/p/%d", i), i%4)}); err != nil {
						t.Error(err)
						return
					}
					got, err := w.Pop(ctx, 2)
					if err != nil {
						t.Error(err)
						return
					}
					mu.Lock()
					for _, g := range got {
						popped[g.URL]++
					}
					mu.Unlock()
					for _, g := range got {
						if err := w.Done(ctx, g.URL); err != nil {
							t.Error(err)
						}
					}
				}
			}()
		}
		wg.Wait()
		rest, err := a.Pop(ctx, 3*per)
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range rest {
			popped[g.URL]++
			a.Done(ctx, g.URL)
		}
		if len(popped) != per {
			t.Fatalf("popped %d distinct URLs, want %d", len(popped), per)
		}
		for u, k := range popped {
			if k != 1 {
				t.Fatalf("%s popped %d times", u, k)
			}
		}
		if q, f, _ := b.Pending(ctx); q != 0 || f != 0 {
			t.Fatalf("Pending = %d, %d; want 0, 0", q, f)
		}
	})
}
