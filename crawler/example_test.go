package crawler_test

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"time"

	"github.com/seokit/seokit/analyzer"
	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/crawler/crawlertest"
	"github.com/seokit/seokit/render"
)

func ExampleCrawler_Run() {
	// A generated site on loopback: home, about, 3 category pages, 10 articles.
	site := crawlertest.NewSite(crawlertest.SiteOptions{Articles: 10, Categories: 3})
	defer site.Close()

	rep, err := crawler.New(&crawler.Options{
		MaxPages:     100,
		AllowPrivate: true, // the site is on 127.0.0.1
	}).Run(context.Background(), site.URL)
	if err != nil {
		panic(err)
	}
	fmt.Println("pages:", rep.Crawl.Fetched, "stopped:", rep.Crawl.StopReason)
	fmt.Println("status 200:", rep.StatusCodes[200])
	// Output:
	// pages: 15 stopped: done
	// status 200: 15
}

func ExampleLocalHostGate() {
	// Two requests may start at once, then one every 100 ms.
	gate := crawler.NewLocalHostGate()
	limit := crawler.HostLimit{Interval: 100 * time.Millisecond, Burst: 2}
	start := time.Now()
	for range 3 {
		if err := gate.Wait(context.Background(), "example.com", limit); err != nil {
			panic(err)
		}
	}
	fmt.Println("third request waited about one interval:", time.Since(start) >= 90*time.Millisecond)
	// Output:
	// third request waited about one interval: true
}

// EstimateMemory bounds what a crawl holds in its own state, by the
// memory model of MEMORY.md.
func ExampleEstimateMemory() {
	for _, o := range []*crawler.Options{
		nil,
		{MaxPages: 1000},
		{MaxPages: 10_000, SkipExternalLinks: true},
	} {
		fmt.Printf("%.1f MB\n", float64(crawler.EstimateMemory(o))/1e6)
	}
	// Output:
	// 20.1 MB
	// 22.2 MB
	// 57.8 MB
}

// A rendered crawl: pages are analysed as a browser renders them and the
// links found only in the rendered DOM are crawled. The Renderer here is
// a stand-in; a real crawl uses render/chromium's Pool.
func ExampleOptions_rendering() {
	site := crawlertest.NewSPA(crawlertest.SPAOptions{Pages: 6})
	defer site.Close()
	dir, err := os.MkdirTemp("", "screenshots")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	shots, err := crawler.DirScreenshots(dir)
	if err != nil {
		panic(err)
	}
	rep, err := crawler.New(&crawler.Options{
		AllowPrivate:      true,
		SkipExternalLinks: true,
		Screenshots:       shots,
		Analyzer: &analyzer.Options{
			Render:        render.Always,
			Renderer:      exampleRenderer{site},
			RenderRequest: render.Request{Screenshot: render.Viewport},
		},
	}).Run(context.Background(), site.URL)
	if err != nil {
		panic(err)
	}
	fmt.Println("pages:", len(rep.Pages), "rendered:", rep.Render.Rendered, "screenshots:", shots.Written())
	fmt.Println("links only after rendering:", rep.Render.LinksOnlyRendered > 0)
	// Output:
	// pages: 6 rendered: 6 screenshots: 6
	// links only after rendering: true
}

// exampleRenderer renders the pages of an SPASite from its description.
type exampleRenderer struct{ site *crawlertest.SPASite }

func (r exampleRenderer) Render(_ context.Context, req *render.Request) (*render.Result, error) {
	u, err := url.Parse(req.URL)
	if err != nil {
		return nil, err
	}
	doc, ok := r.site.RenderedHTML(u.Path)
	if !ok {
		return nil, fmt.Errorf("no page at %s", u.Path)
	}
	return &render.Result{URL: req.URL, FinalURL: req.URL, Status: 200, HTML: []byte(doc), Screenshot: []byte("\x89PNG")}, nil
}

// Segments group the pages of the report; AICrawlers adds the AI crawler
// readiness matrix.
func ExampleOptions_segments() {
	site := crawlertest.NewSite(crawlertest.SiteOptions{Articles: 4, Categories: 2, NoSitemap: true})
	defer site.Close()

	one := 1
	rep, err := crawler.New(&crawler.Options{
		MaxPages: 100, AllowPrivate: true, SkipExternalLinks: true,
		Segments:   []crawler.Segment{{Name: "home", MaxDepth: new(int)}, {Name: "linked-from-home", MinDepth: &one, MaxDepth: &one}},
		AICrawlers: true, SkipAICrawlerProbe: true,
	}).Run(context.Background(), site.URL)
	if err != nil {
		panic(err)
	}
	for _, s := range rep.Segments {
		fmt.Println(s.Name, s.Pages)
	}
	fmt.Println("AI crawlers in the matrix:", len(rep.AICrawlers.Crawlers))
	// Output:
	// home 1
	// linked-from-home 7
	// (none) 0
	// AI crawlers in the matrix: 13
}
