package crawler_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/seokit/seokit/analyzer"
	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/crawler/crawlertest"
	"github.com/seokit/seokit/crawler/crawlreport"
	"github.com/seokit/seokit/seo"
)

// shopSite serves a small site with three product pages, one sold out.
func shopSite() *crawlertest.Site {
	product := func(sku, price, extra string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprintf(w, `<!doctype html><html lang="en"><head><title>Product %s</title></head><body>
<h1>Product %s</h1><div class="product" data-sku="%s"><span class="price">%s</span></div><p>%s</p>
<script>gtag('config', 'G-TEST')</script></body></html>`, sku, sku, sku, price, extra)
		}
	}
	return crawlertest.NewSite(crawlertest.SiteOptions{Articles: 2, Categories: 1, Extra: map[string]http.HandlerFunc{
		"/p/1": product("TR-100", "€89.90", "In stock"),
		"/p/2": product("TR-200", "€109.00", "In stock"),
		"/p/3": product("TR-300", "€59.50", "Sold out"),
	}, ExtraLinks: []string{"/p/1", "/p/2", "/p/3"}})
}

func TestCrawlExtraction(t *testing.T) {
	site := shopSite()
	defer site.Close()
	ao := &analyzer.Options{
		Extract: []analyzer.Extractor{
			{Name: "price", Kind: "css", Expr: ".price"},
			{Name: "sku", Kind: "xpath", Expr: "//div[@class='product']/@data-sku"},
			{Name: "ga", Kind: "regex", Expr: `gtag\('config', '([^']+)'`},
		},
		Search: []analyzer.SearchRule{
			{Name: "sold out", Contains: true, Text: "Sold out", In: "text"},
			{Name: "no ga", Contains: false, Regex: `G-[A-Z]+`},
		},
	}
	rep, err := crawler.New(&crawler.Options{MaxPages: 50, AllowPrivate: true, Analyzer: ao}).Run(context.Background(), site.URL)
	if err != nil {
		t.Fatal(err)
	}
	var p3 *crawler.PageSummary
	for i := range rep.Pages {
		if strings.HasSuffix(rep.Pages[i].URL, "/p/3") {
			p3 = &rep.Pages[i]
		}
	}
	if p3 == nil {
		t.Fatal("no /p/3")
	}
	if len(p3.Extracted) != 3 || !slices.Equal(p3.Extracted[0].Values, []string{"€59.50"}) ||
		!slices.Equal(p3.Extracted[1].Values, []string{"TR-300"}) || !slices.Equal(p3.Extracted[2].Values, []string{"G-TEST"}) {
		t.Errorf("extracted %+v", p3.Extracted)
	}
	if want := []analyzer.SearchMatch{{Name: "sold out", Matched: true, Occurrences: 1}, {Name: "no ga", Matched: false, Occurrences: 1}}; !slices.Equal(p3.Search, want) {
		t.Errorf("search %+v", p3.Search)
	}
	html := 0
	for _, p := range rep.Pages {
		if p.IsHTML && p.Status == 200 {
			html++
		}
	}
	wantX := []crawler.ExtractorStats{
		{Name: "price", Pages: html, WithValue: 3, Matches: 3},
		{Name: "sku", Pages: html, WithValue: 3, Matches: 3},
		{Name: "ga", Pages: html, WithValue: 3, Matches: 3},
	}
	if !slices.Equal(rep.Extraction, wantX) {
		t.Errorf("extraction stats %+v, want %+v", rep.Extraction, wantX)
	}
	wantS := []crawler.SearchStats{{Name: "sold out", Matching: 1, NotMatching: html - 1}, {Name: "no ga", Matching: html - 3, NotMatching: 3}}
	if !slices.Equal(rep.SearchRules, wantS) {
		t.Errorf("search stats %+v, want %+v", rep.SearchRules, wantS)
	}

	var buf bytes.Buffer
	if err := crawlreport.WriteCSV(&buf, rep); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	head := rows[0]
	if got := head[len(head)-5:]; !slices.Equal(got, []string{"extract:price", "extract:sku", "extract:ga", "search:sold out", "search:no ga"}) {
		t.Errorf("csv columns %q", got)
	}
	found := false
	for _, r := range rows[1:] {
		if strings.HasSuffix(r[0], "/p/3") {
			found = true
			if got := r[len(r)-5:]; !slices.Equal(got, []string{"€59.50", "TR-300", "G-TEST", "true", "false"}) {
				t.Errorf("csv cells %q", got)
			}
		}
	}
	if !found {
		t.Error("no csv row for /p/3")
	}
}

func TestCrawlExtractionBadInput(t *testing.T) {
	for _, ao := range []*analyzer.Options{
		{Extract: []analyzer.Extractor{{Name: "x", Kind: "css", Expr: "div[["}}},
		{Search: []analyzer.SearchRule{{Name: "x", Regex: "("}}},
	} {
		_, err := crawler.New(&crawler.Options{Analyzer: ao, AllowPrivate: true}).Run(context.Background(), "127.0.0.1:1")
		ie, ok := seo.AsInputError(err)
		if !ok || !errors.Is(err, seo.ErrInvalidInput) || !strings.HasPrefix(ie.Field, "analyzer.") {
			t.Errorf("got %v, want an input error naming analyzer.extract/search", err)
		}
	}
}

// TestCSVWithoutExtraction: a crawl without extractors has only the base
// CSV columns, the template fingerprint last.
func TestCSVWithoutExtraction(t *testing.T) {
	rep := &crawler.SiteReport{Pages: []crawler.PageSummary{{URL: "https://example.com/", Status: 200}}}
	var buf bytes.Buffer
	if err := crawlreport.WriteCSV(&buf, rep); err != nil {
		t.Fatal(err)
	}
	head, _, _ := strings.Cut(buf.String(), "\n")
	if strings.Contains(head, "extract:") || !strings.HasSuffix(strings.TrimSpace(head), ",error,template") {
		t.Errorf("header %q", head)
	}
}

func TestSiteHTMLReportExtraction(t *testing.T) {
	rep := &crawler.SiteReport{
		Pages: []crawler.PageSummary{{URL: "https://example.com/p/1", Status: 200, IsHTML: true,
			Extracted: []analyzer.Extraction{{Name: "price", Values: []string{"€89.90", "=1+1"}, Count: 2}},
			Search:    []analyzer.SearchMatch{{Name: "stock", Matched: true, Occurrences: 1}}}},
		Extraction:  []crawler.ExtractorStats{{Name: "price", Pages: 1, WithValue: 1, Matches: 2}},
		SearchRules: []crawler.SearchStats{{Name: "stock", Matching: 1}},
	}
	var sb strings.Builder
	if err := crawlreport.WriteHTML(&sb, rep); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Custom extraction and search", "extract: price", "search: stock", "€89.90 | =1+1"} {
		if !strings.Contains(sb.String(), want) {
			t.Errorf("HTML report lacks %q", want)
		}
	}
	var buf bytes.Buffer
	if err := crawlreport.WriteCSV(&buf, rep); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "€89.90 | '=1+1,true") {
		t.Errorf("csv: %s", buf.String())
	}
}
