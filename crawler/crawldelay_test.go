package crawler_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seokit/seokit/crawler"
)

// TestCrawlDelay: with HonorCrawlDelay, pages of one host are fetched at
// least Crawl-delay apart; without it, the delay is ignored.
func TestCrawlDelay(t *testing.T) {
	var mu sync.Mutex
	var times []time.Time
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			w.Write([]byte("User-agent: *\nCrawl-delay: 1\n"))
			return
		case "/sitemap.xml", "/favicon.ico":
			http.NotFound(w, r)
			return
		}
		// The crawled article pages; the home page is also requested by the
		// host-variant probe, which is not a crawl request.
		if strings.HasPrefix(r.URL.Path, "/p") {
			mu.Lock()
			times = append(times, time.Now())
			mu.Unlock()
		}
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte(`<html><head><title>Crawl delay test page</title></head><body><a href="/p1">1</a><a href="/p2">2</a><a href="/p3">3</a></body></html>`))
	}))
	defer srv.Close()

	for _, honor := range []bool{true, false} {
		mu.Lock()
		times = nil
		mu.Unlock()
		rep, err := crawler.New(&crawler.Options{AllowPrivate: true, HonorCrawlDelay: honor, PerHostRate: -1, MaxPages: 10}).Run(context.Background(), srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Crawl.Fetched < 4 {
			t.Fatalf("fetched %d pages; want 4", rep.Crawl.Fetched)
		}
		mu.Lock()
		ts := append([]time.Time(nil), times...)
		mu.Unlock()
		if len(ts) < 3 {
			t.Fatalf("%d article requests; want 3", len(ts))
		}
		sort.Slice(ts, func(i, j int) bool { return ts[i].Before(ts[j]) })
		minGap := time.Hour
		for i := 1; i < len(ts); i++ {
			minGap = min(minGap, ts[i].Sub(ts[i-1]))
		}
		if honor && minGap < 900*time.Millisecond {
			t.Errorf("HonorCrawlDelay: page requests %v apart; want at least about 1 s", minGap)
		}
		if !honor && minGap > 900*time.Millisecond {
			t.Errorf("without HonorCrawlDelay the requests were %v apart; the delay should be ignored", minGap)
		}
	}
}
