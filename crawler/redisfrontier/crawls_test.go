package redisfrontier_test

import (
	"context"
	"testing"
	"time"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/crawler/redisfrontier"
	"github.com/seokit/seokit/internal/redistest"
)

// TestCrawls opens two jobs' crawls: each has its own keys and summary
// counts, and Remove deletes a job's frontier and host gate keys only.
func TestCrawls(t *testing.T) {
	ctx := context.Background()
	srv := redistest.Start(t)
	c := client(t, srv)
	crawls, err := redisfrontier.NewCrawls(c, nil)
	if err != nil {
		t.Fatal(err)
	}
	open := func(id string) crawler.SharedFrontier {
		f, err := crawls.Open(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f.(crawler.SharedFrontier)
	}
	a, b := open("job_a"), open("job_b")
	a.Push(ctx, []crawler.Item{{URL: "https://a.example/"}})
	sums := []crawler.PageSummary{
		{URL: "https://a.example/", Status: 200},
		{URL: "https://a.example/x", Status: 500},
		{URL: "https://a.example/y", RobotsBlocked: true},
		{URL: "https://a.example/", Status: 200}, // a second summary of a URL is not kept
	}
	for _, s := range sums {
		if err := a.PutSummary(ctx, s, nil); err != nil {
			t.Fatal(err)
		}
	}
	got, err := a.(crawler.SummaryCounter).SummaryCounts(ctx)
	// A URL blocked by robots.txt was not fetched: it is counted as
	// blocked, not as an error.
	if want := (crawler.SummaryCounts{Fetched: 2, Errors: 1, Blocked: 1}); err != nil || got != want {
		t.Errorf("job_a counts %+v (%v), want %+v", got, err, want)
	}
	if got, _ := b.(crawler.SummaryCounter).SummaryCounts(ctx); got != (crawler.SummaryCounts{}) {
		t.Errorf("job_b counts %+v, want none", got)
	}
	gate, err := crawls.HostGate(ctx, "job_a")
	if err != nil {
		t.Fatal(err)
	}
	if err := gate.Wait(ctx, "a.example", crawler.HostLimit{Interval: time.Second, Burst: 1}); err != nil {
		t.Fatal(err)
	}
	b.Push(ctx, []crawler.Item{{URL: "https://b.example/"}})
	if err := crawls.Remove(ctx, "job_a"); err != nil {
		t.Fatal(err)
	}
	if keys, _ := c.Keys(ctx, "seokit:crawl:{job_a}:*").Result(); len(keys) != 0 {
		t.Errorf("keys left after Remove: %v", keys)
	}
	if n, _ := b.Len(ctx); n != 1 {
		t.Errorf("job_b holds %d items after job_a's removal, want 1", n)
	}
	if _, err := crawls.Open(ctx, "bad{id}"); err == nil {
		t.Error("a job ID with braces was accepted")
	}
}
