package crawler_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/seokit/seokit/analyzer"
	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/render"
	"github.com/seokit/seokit/render/chromium"
)

// a11yPage is a page of one layout: a header whose logo has no alternative
// text (chrome every page shares) and, on /2 only, an empty button.
func a11yPage(i int) string {
	button := ""
	if i == 2 {
		button = `<button type="button"></button>`
	}
	return fmt.Sprintf(`<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Harbour walk %d of the council</title>
<meta name="description" content="Walk %d along the harbour wall, with its history and the best time to go."></head>
<body><header><img class="logo" src="/logo.png" width="40" height="40"></header>
<main><h1>Harbour walk %d</h1><p>The harbour wall at dawn, walk %d.</p>%s
<nav><p><a href="/1">Walk 1</a></p><p><a href="/2">Walk 2</a></p><p><a href="/3">Walk 3</a></p></nav></main></body></html>`, i, i, i, i, button)
}

// TestA11yCrawlChromium crawls a site whose pages share a header with an
// image without alternative text, one page adding an empty button: the
// crawl's accessibility summary reports the header's image-alt once, as
// shared by every page of the template, and the button on its one page.
func TestA11yCrawlChromium(t *testing.T) {
	if _, err := chromium.FindAxe(""); err != nil {
		if os.Getenv("SEOKIT_REQUIRE_SERVERS") == "1" {
			t.Fatalf("SEOKIT_REQUIRE_SERVERS=1 but %v", err)
		}
		t.Skipf("skipping: %v", err)
	}
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var i int
		switch r.URL.Path {
		case "/", "/1":
			i = 1
		case "/2":
			i = 2
		case "/3":
			i = 3
		case "/logo.png":
			w.Header().Set("Content-Type", "image/png")
			return
		default:
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, a11yPage(i))
	}))
	defer site.Close()
	pool := newChromium(t, site.URL, 1, 2)
	opts := testOptions(crawler.Options{SkipExternalLinks: true, SkipResourceChecks: true, TimeBudget: 2 * time.Minute,
		Analyzer: &analyzer.Options{Render: render.Always, Renderer: pool, A11y: true}})
	rep, err := crawler.New(opts).Run(context.Background(), site.URL)
	if err != nil {
		t.Fatal(err)
	}
	a := rep.A11y
	if a == nil {
		t.Fatal("no accessibility summary")
	}
	if a.Checked != len(rep.Pages) || a.Checked != 4 || a.NotChecked != 0 || a.Score == nil {
		t.Fatalf("summary %+v for %d pages", a, len(rep.Pages))
	}
	byRule := map[string]crawler.A11yGroup{}
	for _, g := range a.Groups {
		if _, dup := byRule[g.Rule]; dup {
			t.Errorf("rule %s in two groups of one template: %+v", g.Rule, a.Groups)
		}
		byRule[g.Rule] = g
	}
	if g, ok := byRule["image-alt"]; !ok || !g.Shared || g.Pages != 4 || g.TemplatePages != 4 || g.Target != "img" || g.Level != "A" {
		t.Errorf("image-alt group = %+v", g)
	}
	if g, ok := byRule["button-name"]; !ok || g.Shared || g.Pages != 1 || g.Examples[0] != site.URL+"/2" {
		t.Errorf("button-name group = %+v", g)
	}
	for _, g := range a.Groups {
		t.Logf("%s %s: %d of %d pages of template %s, shared %v, first %s", g.Impact, g.Rule, g.Pages, g.TemplatePages, g.Template, g.Shared, g.Target)
	}
	for _, p := range rep.Pages {
		if p.A11yChecked == nil || !*p.A11yChecked || p.A11yScore == nil {
			t.Errorf("%s: audited %v, score %v", p.URL, p.A11yChecked, p.A11yScore)
		}
	}
}
