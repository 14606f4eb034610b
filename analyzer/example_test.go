package analyzer_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/seokit/seokit/analyzer"
	"github.com/seokit/seokit/render"
	"github.com/seokit/seokit/seo"
)

func ExampleAnalyzeHTML() {
	page := []byte(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>Home</title>
</head><body><h1>Welcome</h1><img src="/logo.png"></body></html>`)
	rep, err := analyzer.AnalyzeHTML(context.Background(), "https://example.com/", http.Header{"Content-Type": {"text/html"}}, page,
		&analyzer.Options{Depth: analyzer.Basic})
	if err != nil {
		panic(err)
	}
	fmt.Println("title:", rep.Title.Text)
	for _, f := range rep.Findings {
		if f.Severity >= seo.Warning {
			fmt.Println(f.Severity, f.ID)
		}
	}
	// Output:
	// title: Home
	// warning description.missing
	// warning title.boilerplate_only
	// warning title.too_short
}

func ExampleOptions_custom() {
	// A custom check: every page must mention the brand.
	brand := analyzer.Check{
		Area: "brand",
		IDs:  []seo.CheckInfo{{ID: "brand.missing", Severity: seo.Warning, Scope: seo.ScopePage, Summary: "the page never names the brand"}},
		Run: func(p *analyzer.Page, r *analyzer.Reporter) {
			r.Add("brand.missing", "the main text does not mention Acme", seo.Evidence{})
		},
	}
	rep, _ := analyzer.AnalyzeHTML(context.Background(), "https://example.com/", nil, []byte("<title>Shoes</title><p>Shoes</p>"),
		&analyzer.Options{Depth: analyzer.Basic, Checks: []analyzer.Check{brand}, Disable: []string{"title", "description", "headings", "http", "canonical", "indexability"}})
	for _, f := range rep.Findings {
		fmt.Println(f.ID, f.Severity, rep.Score.Value)
	}
	// Output: brand.missing warning 96
}

func ExampleReport_WriteHTML() {
	rep, err := analyzer.AnalyzeHTML(context.Background(), "https://example.com/", http.Header{"Content-Type": {"text/html"}},
		[]byte(`<title>Home</title><h1>Welcome</h1>`), &analyzer.Options{Depth: analyzer.Basic})
	if err != nil {
		panic(err)
	}
	// One self-contained file that opens offline; write it to a file
	// instead of discarding it.
	var page strings.Builder
	if err := rep.WriteHTML(&page); err != nil {
		panic(err)
	}
	fmt.Println(strings.Contains(page.String(), "<title>SEO page report: https://example.com/</title>"))
	// Output: true
}

// shellRenderer stands in for render/chromium's Pool: it returns the DOM a
// browser would build from the application shell.
type shellRenderer struct{}

func (shellRenderer) Render(ctx context.Context, req *render.Request) (*render.Result, error) {
	return &render.Result{URL: req.URL, FinalURL: req.URL, Status: 200, Device: render.Mobile,
		HTML: []byte(`<html><head><title>Harbour plan: the council debates new flats</title>
<link rel="canonical" href="https://example.com/"></head>
<body><div id="root"><h1>Harbour plan</h1><a href="/news">News</a></div></body></html>`)}, nil
}

func ExampleLooksLikeAppShell() {
	shell := []byte(`<html><head><script src="/app.js" defer></script></head><body><div id="root"></div></body></html>`)
	rep, err := analyzer.AnalyzeHTML(context.Background(), "https://example.com/", http.Header{"Content-Type": {"text/html"}}, shell,
		&analyzer.Options{Render: render.Auto, Renderer: shellRenderer{}})
	if err != nil {
		panic(err)
	}
	fmt.Println(rep.Render.Rendered, rep.Render.Reason)
	fmt.Println("title:", rep.Title.Text)
	for _, c := range rep.Render.Changes {
		fmt.Printf("%s: %q -> %q\n", c.Field, c.Raw, c.Rendered)
	}
	// Output:
	// true empty #root mount and 0 words of text
	// title: Harbour plan: the council debates new flats
	// title: "" -> "Harbour plan: the council debates new flats"
	// h1: "" -> "Harbour plan"
	// canonical: "" -> "https://example.com/"
	// wordCount: "0" -> "3"
	// links: "0" -> "1"
}

// Extractors and search rules run on the page's one parsed tree; the
// command-line forms parse with ParseExtractor and ParseSearchRule.
func ExampleOptions_extract() {
	page := []byte(`<html><body><h1>Trail shoes</h1>
<div class="product" data-sku="TR-100"><span class="price">€89.90</span></div>
<div class="product" data-sku="TR-200"><span class="price">€109.00</span></div>
<p>In stock</p></body></html>`)
	sku, err := analyzer.ParseExtractor("sku=css:.product@data-sku")
	if err != nil {
		panic(err)
	}
	stock, err := analyzer.ParseSearchRule("stock=text-contains:In stock")
	if err != nil {
		panic(err)
	}
	rep, err := analyzer.AnalyzeHTML(context.Background(), "https://shop.example/p/1", http.Header{"Content-Type": {"text/html"}}, page,
		&analyzer.Options{Depth: analyzer.Basic,
			Extract: []analyzer.Extractor{sku, {Name: "price", Kind: "xpath", Expr: "//span[@class='price']", MaxValues: 1}},
			Search:  []analyzer.SearchRule{stock}})
	if err != nil {
		panic(err)
	}
	for _, x := range rep.Extracted {
		fmt.Println(x.Name, x.Values, x.Count, "omitted", x.Omitted)
	}
	for _, s := range rep.Search {
		fmt.Println(s.Name, s.Matched, s.Occurrences)
	}
	// Output:
	// sku [TR-100 TR-200] 2 omitted 0
	// price [€89.90] 2 omitted 1
	// stock true 1
}

func ExampleTemplateFingerprint() {
	page := func(title, price string) string {
		return `<!doctype html><title>` + title + `</title><body class="product"><main><h1 class="name">` + title +
			`</h1><span class="price">` + price + `</span><p>` + title + ` is made by hand.</p></main></body>`
	}
	ctx := context.Background()
	a, _ := analyzer.AnalyzeHTML(ctx, "https://shop.example/p/1", nil, []byte(page("Oak table", "€900")), nil)
	b, _ := analyzer.AnalyzeHTML(ctx, "https://shop.example/p/2", nil, []byte(page("Ash chair", "€250")), nil)
	c, _ := analyzer.AnalyzeHTML(ctx, "https://shop.example/blog/oak", nil, []byte(`<!doctype html><title>Oak</title><body><article class="post"><p>Oak.</p></article></body>`), nil)
	fmt.Println(a.Template == b.Template, a.Template == c.Template, len(a.Template))
	// Output: true false 12
}
