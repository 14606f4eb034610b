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

// TestCrawlDelay: with HonorCrawlDelay, a page of the host is requested no
// sooner than Crawl-delay after the previous one was answered, as the
// site sees it (each answer takes 300 ms, so requests spaced by their
// starts alone would arrive 700 ms after the previous answer, and less
// when a request waits in transit on a busy machine); without it, the
// delay is ignored.
func TestCrawlDelay(t *testing.T) {
	const answer = 300 * time.Millisecond
	type span struct{ start, end time.Time }
	var mu sync.Mutex
	var spans []span
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
			start := time.Now()
			time.Sleep(answer)
			defer func() {
				mu.Lock()
				spans = append(spans, span{start, time.Now()})
				mu.Unlock()
			}()
		}
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte(`<html><head><title>Crawl delay test page</title></head><body><a href="/p1">1</a><a href="/p2">2</a><a href="/p3">3</a></body></html>`))
	}))
	defer srv.Close()

	for _, honor := range []bool{true, false} {
		mu.Lock()
		spans = nil
		mu.Unlock()
		rep, err := crawler.New(&crawler.Options{AllowPrivate: true, HonorCrawlDelay: honor, PerHostRate: -1, MaxPages: 10}).Run(context.Background(), srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Crawl.Fetched < 4 {
			t.Fatalf("fetched %d pages; want 4", rep.Crawl.Fetched)
		}
		mu.Lock()
		ss := append([]span(nil), spans...)
		mu.Unlock()
		if len(ss) < 3 {
			t.Fatalf("%d article requests; want 3", len(ss))
		}
		sort.Slice(ss, func(i, j int) bool { return ss[i].start.Before(ss[j].start) })
		minGap := time.Hour // from one answer's end to the next request's start
		for i := 1; i < len(ss); i++ {
			minGap = min(minGap, ss[i].start.Sub(ss[i-1].end))
		}
		if honor && minGap < time.Second {
			t.Errorf("HonorCrawlDelay: a page requested %v after the previous answer; want at least 1 s", minGap)
		}
		if !honor && minGap >= time.Second-answer {
			t.Errorf("without HonorCrawlDelay a page was requested %v after the previous answer, as if the delay applied; it should be ignored", minGap)
		}
	}
}
