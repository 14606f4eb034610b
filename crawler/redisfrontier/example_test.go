package redisfrontier_test

import (
	"context"
	"fmt"
	"log"

	"github.com/redis/go-redis/v9"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/crawler/redisfrontier"
)

// Each process of a shared crawl runs this with the same crawl ID; exactly
// one runs with worker false and gets the site report. (It needs a Redis
// server, so it is compiled but not run by go test; TestDistributedCrawl
// runs the same against a throwaway server.)
func Example() {
	ctx := context.Background()
	const crawlID, worker = "example-com-2026-11-21", true

	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379"})
	defer rdb.Close()
	front, err := redisfrontier.New(rdb, crawlID, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer front.Close()
	gate, err := redisfrontier.NewHostGate(rdb, nil)
	if err != nil {
		log.Fatal(err)
	}
	rep, err := crawler.New(&crawler.Options{
		MaxPages:    1_000_000, // per worker
		PerHostRate: 20,        // for all workers together
		Frontier:    front,
		HostGate:    gate,
		Worker:      worker,
	}).Run(ctx, "https://example.com/")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("this worker fetched", rep.Crawl.Fetched, "pages")
	if !worker {
		fmt.Println("site findings:", len(rep.Findings))
		front.Delete(ctx) // the crawl is over: remove its keys
	}
}

// An API server keeps every site analysis's crawl in Redis: each instance
// passes the same Crawls as httpapi.Options.Frontiers, so a job resumes,
// and is shared, on any of them. (Compiled, not run: it needs Redis.)
func ExampleCrawls() {
	ctx := context.Background()
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379"})
	defer rdb.Close()
	crawls, err := redisfrontier.NewCrawls(rdb, nil)
	if err != nil {
		log.Fatal(err)
	}
	// What the server does for job "job_1": open, crawl, remove at the end.
	front, err := crawls.Open(ctx, "job_1")
	if err != nil {
		log.Fatal(err)
	}
	gate, err := crawls.HostGate(ctx, "job_1")
	if err != nil {
		log.Fatal(err)
	}
	rep, err := crawler.New(&crawler.Options{Frontier: front, HostGate: gate}).Run(ctx, "https://example.com/")
	front.Close()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(rep.Crawl.Fetched, "pages")
	crawls.Remove(ctx, "job_1")
}
