package crawler_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/seokit/seokit/analyzer"
	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/crawler/crawlertest"
	"github.com/seokit/seokit/crawler/crawlreport"
	"github.com/seokit/seokit/seo"
)

// templateSite serves the analyzer's template fixtures: two product pages,
// a category page and an article.
func templateSite(t *testing.T) (*crawlertest.Site, map[string]string) {
	t.Helper()
	pages := map[string]string{
		"/kitchen/kettle-1001": "product-1.html", "/garden/hose-2500": "product-2.html",
		"/kitchen/": "category.html", "/blog/descale": "article.html",
	}
	extra := map[string]http.HandlerFunc{}
	fingerprint := map[string]string{}
	for path, name := range pages {
		body, err := os.ReadFile(filepath.Join("..", "analyzer", "testdata", "template", name))
		if err != nil {
			t.Fatal(err)
		}
		rep, err := analyzer.AnalyzeHTML(context.Background(), "https://example.com"+path, nil, body, &analyzer.Options{Depth: analyzer.Basic})
		if err != nil {
			t.Fatal(err)
		}
		fingerprint[strings.TrimSuffix(name, ".html")] = rep.Template
		extra[path] = func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write(body)
		}
	}
	site := crawlertest.NewSite(crawlertest.SiteOptions{Articles: 2, Categories: 1, Extra: extra,
		ExtraLinks: []string{"/kitchen/kettle-1001", "/garden/hose-2500", "/kitchen/", "/blog/descale"}})
	return site, fingerprint
}

func TestCrawlSegmentByTemplate(t *testing.T) {
	site, fp := templateSite(t)
	defer site.Close()
	if fp["product-1"] != fp["product-2"] || fp["product-1"] == fp["category"] {
		t.Fatalf("fixture templates %v", fp)
	}
	opts := &crawler.Options{MaxPages: 50, AllowPrivate: true, Segments: []crawler.Segment{
		{Name: "products", TemplateOf: site.URL + "/kitchen/kettle-1001"},
		{Name: "categories", Template: fp["category"]},
		{Name: "unknown", TemplateOf: site.URL + "/not-crawled"},
	}}
	rep, err := crawler.New(opts).Run(context.Background(), site.URL)
	if err != nil {
		t.Fatal(err)
	}
	seg := map[string]crawler.SegmentSummary{}
	for _, s := range rep.Segments {
		seg[s.Name] = s
	}
	if s := seg["products"]; s.Pages != 2 || s.Template != fp["product-1"] || s.Reason != "" {
		t.Errorf("products segment %+v, want 2 pages of template %s", s, fp["product-1"])
	}
	// The category page and its page 2 (/kitchen/?page=2).
	if s := seg["categories"]; s.Pages != 2 || s.Template != "" {
		t.Errorf("categories segment %+v, want 2 pages", s)
	}
	if s := seg["unknown"]; s.Pages != 0 || !strings.Contains(s.Reason, "did not fetch") {
		t.Errorf("unknown segment %+v, want no page and a reason", s)
	}
	for _, p := range rep.Pages {
		if strings.HasSuffix(p.URL, "/garden/hose-2500") && (p.Segment != "products" || p.Template != fp["product-2"]) {
			t.Errorf("hose page: segment %q, template %q", p.Segment, p.Template)
		}
	}
	var product *crawler.TemplateSummary
	for i, tpl := range rep.Templates {
		if tpl.Template == fp["product-1"] {
			product = &rep.Templates[i]
		}
		if i > 0 && rep.Templates[i-1].Pages < tpl.Pages {
			t.Errorf("templates not sorted by pages: %+v", rep.Templates)
		}
	}
	if product == nil || product.Pages != 2 || product.ExampleURL != site.URL+"/garden/hose-2500" {
		t.Errorf("product template %+v in %+v", product, rep.Templates)
	}
	var buf bytes.Buffer
	if err := crawlreport.WriteCSV(&buf, rep); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col, seen := slices.Index(rows[0], "template"), 0
	for _, row := range rows[1:] {
		if col >= 0 && row[col] == fp["product-1"] {
			seen++
		}
	}
	if seen != 2 {
		t.Errorf("CSV template column %d holds the product template %d times, want 2", col, seen)
	}
	buf.Reset()
	if err := crawlreport.WriteHTML(&buf, rep); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `id="templates"`) || !strings.Contains(buf.String(), fp["product-1"]) {
		t.Error("the HTML report does not list the templates")
	}
}

func TestSegmentTemplateValidation(t *testing.T) {
	for _, tt := range []struct {
		seg   crawler.Segment
		field string
	}{
		{crawler.Segment{Name: "a", Template: "0123456789ab"}, ""},
		{crawler.Segment{Name: "a", Template: "0123456789AB"}, "segments[0].template"},
		{crawler.Segment{Name: "a", Template: "123"}, "segments[0].template"},
		{crawler.Segment{Name: "a", TemplateOf: "https://example.com/p/1"}, ""},
		{crawler.Segment{Name: "a", TemplateOf: "/p/1"}, "segments[0].templateOf"},
		{crawler.Segment{Name: "a", TemplateOf: "https://example.com/" + strings.Repeat("a", 2100)}, "segments[0].templateOf"},
	} {
		err := crawler.ValidateSegments([]crawler.Segment{tt.seg})
		if tt.field == "" {
			if err != nil {
				t.Errorf("%+v: %v", tt.seg, err)
			}
			continue
		}
		if ie, ok := seo.AsInputError(err); !ok || ie.Field != tt.field {
			t.Errorf("%+v: error %v, want one on %s", tt.seg, err, tt.field)
		}
	}
}
