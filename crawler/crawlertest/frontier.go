// Package crawlertest provides a conformance suite for crawler.Frontier
// drivers and a generated web site, served on loopback, for crawler tests
// and benchmarks.
package crawlertest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

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
			{URL: "https://example.com/", Status: 200, Depth: 0, Title: "Home", TextHash: 42, SimHash: 7,
				Redirects: []seo.Redirect{{URL: "http://example.com/", Status: 301, Location: "https://example.com/"}}},
			{URL: "https://example.com/a", Status: 404, Depth: 1, Error: ""},
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
			len(got[0].Redirects) != 1 || got[1].Status != 404 {
			t.Fatalf("Summaries = %+v", got)
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

func mustPush(t *testing.T, f crawler.Frontier, its []crawler.Item) {
	t.Helper()
	if _, err := f.Push(context.Background(), its); err != nil {
		t.Fatal(err)
	}
}
