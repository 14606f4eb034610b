package crawler_test

import (
	"fmt"
	"strings"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/seo"
)

// ExampleDecodeConfig reads a saved crawl configuration and applies it to
// the options of a crawl; a bad document is refused naming the member.
func ExampleDecodeConfig() {
	cfg, err := crawler.DecodeConfig(strings.NewReader(`{
		"exclude": ["/cart"],
		"extract": [{"name": "price", "type": "css", "expr": ".price"}],
		"segments": [{"name": "products", "url": "/p/"}]
	}`))
	if err != nil {
		panic(err)
	}
	opts := &crawler.Options{MaxPages: 100}
	if err := cfg.Apply(opts); err != nil {
		panic(err)
	}
	fmt.Println(opts.MaxPages, opts.Exclude, opts.Analyzer.Extract[0].Name, opts.Segments[0].Name)

	_, err = crawler.DecodeConfig(strings.NewReader(`{"extract": [{"name": "sku", "type": "css", "expr": "[["}]}`))
	ie, _ := seo.AsInputError(err)
	fmt.Println(ie.Field)
	// Output:
	// 100 [/cart] price products
	// extract[0].expr
}
