package seo

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// BenchmarkFetch fetches a 60 KB page of unknown length (chunked, as the
// crawl benchmarks' test site serves its articles) from a loopback server
// into a reused buffer, as a crawl's worker does: the fetcher's own cost
// per request, the server's included.
func BenchmarkFetch(b *testing.B) {
	page := []byte("<!doctype html><title>t</title>" + strings.Repeat("<p>some text of the page</p>", 2000))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(page)
	}))
	defer srv.Close()
	f := NewFetcher(&FetcherOptions{AllowPrivate: true})
	buf := make([]byte, 0, 128<<10)
	ctx := context.Background()
	b.SetBytes(int64(len(page)))
	b.ReportAllocs()
	for b.Loop() {
		resp, err := f.Fetch(ctx, &Request{URL: srv.URL + "/a/1", NoFollow: true, Buffer: buf})
		if err != nil {
			b.Fatal(err)
		}
		if len(resp.Body) != len(page) {
			b.Fatalf("read %d bytes, want %d", len(resp.Body), len(page))
		}
	}
}
