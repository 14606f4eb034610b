package crawler_test

import (
	"context"
	"fmt"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/crawler/crawlertest"
)

func ExampleScope() {
	site := crawlertest.NewSite(crawlertest.SiteOptions{Articles: 10, Categories: 3})
	defer site.Close()

	// Leave the articles out: they are never requested.
	o := &crawler.Options{AllowPrivate: true, SkipExternalLinks: true}
	o.Exclude = []string{`/a/\d+$`}
	rep, err := crawler.New(o).Run(context.Background(), site.URL)
	if err != nil {
		panic(err)
	}
	fmt.Println("pages:", rep.Crawl.Fetched)
	for _, s := range rep.Crawl.ScopeSkipped {
		fmt.Println(s.Reason, s.Count)
	}

	// A list crawl: exactly these URLs, no link followed.
	o = &crawler.Options{AllowPrivate: true, SkipExternalLinks: true}
	o.URLs = []string{site.URL + "/about", site.ArticleURL(3)}
	rep, err = crawler.New(o).Run(context.Background(), site.URL)
	if err != nil {
		panic(err)
	}
	fmt.Println("listed pages:", rep.Crawl.Fetched)
	// Output:
	// pages: 5
	// excluded 10
	// listed pages: 2
}

func ExampleValidateStart() {
	// Checked when the crawl is configured, before anything is fetched.
	scope := &crawler.Scope{Include: []string{`/blog/`}}
	fmt.Println(crawler.ValidateStart("example.com", scope))
	fmt.Println(crawler.ValidateStart("https://example.com/blog/", scope))
	// Output:
	// seo: invalid include: does not include the start URL (got "https://example.com/")
	// <nil>
}
