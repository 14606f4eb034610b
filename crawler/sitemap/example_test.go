package sitemap_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/seokit/seokit/crawler/sitemap"
)

func ExampleRead() {
	const doc = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <url><loc>https://www.example.com/</loc><lastmod>2025-06-01</lastmod></url>
  <url><loc>https://www.example.com/about</loc><lastmod>June 2025</lastmod></url>
  <url><loc>https://cdn.example.net/file</loc></url>
</urlset>`
	info, err := sitemap.Read(context.Background(), strings.NewReader(doc),
		&sitemap.Options{SitemapURL: "https://www.example.com/sitemap.xml"},
		func(e sitemap.Entry) error {
			fmt.Println(e.Loc, e.LastModValid)
			return nil
		})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(info.Kind, info.URLs)
	for _, is := range info.Issues {
		fmt.Println(is.Kind, is.Loc)
	}
	// Output:
	// https://www.example.com/ true
	// https://www.example.com/about false
	// https://cdn.example.net/file false
	// urlset 3
	// lastmod_invalid https://www.example.com/about
	// foreign_url https://cdn.example.net/file
}
