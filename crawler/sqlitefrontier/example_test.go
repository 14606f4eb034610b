package sqlitefrontier_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"sync/atomic"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/crawler/sqlitefrontier"
)

// Two runs of one job's crawl on its frontier file: the second resumes the
// first, replaying the pages it finished instead of fetching them again.
// Remove deletes the file once the job is over. The API server does this
// for each site analysis (httpapi.Options.Frontiers).
func ExampleDir() {
	var about atomic.Int64
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/about" {
			about.Add(1)
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<!doctype html><html lang=en><head><title>A page of a small example site</title></head><body><h1>Hi</h1><a href="/about">About</a></body></html>`)
	}))
	defer site.Close()
	tmp, _ := os.MkdirTemp("", "frontiers")
	defer os.RemoveAll(tmp)
	dir, _ := sqlitefrontier.NewDir(tmp, nil)
	ctx := context.Background()

	for run := 1; run <= 2; run++ {
		front, err := dir.Open(ctx, "job_1")
		if err != nil {
			fmt.Println(err)
			return
		}
		rep, err := crawler.New(&crawler.Options{Frontier: front, AllowPrivate: true, SkipExternalLinks: true}).Run(ctx, site.URL)
		front.Close()
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("run %d: %d pages reported, /about requested %d time(s)\n", run, rep.Crawl.Fetched, about.Load())
	}
	fmt.Println("removed:", dir.Remove(ctx, "job_1") == nil)
	// Output:
	// run 1: 2 pages reported, /about requested 1 time(s)
	// run 2: 2 pages reported, /about requested 1 time(s)
	// removed: true
}
