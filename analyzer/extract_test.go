package analyzer

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/seokit/seokit/seo"
)

func TestExtractors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		ex   Extractor
		want Extraction
	}{
		{"css text", Extractor{Kind: "css", Expr: ".price"},
			Extraction{Values: []string{"€89.90", "€109.00", "€ 59.50"}, Count: 3}},
		{"css attr", Extractor{Kind: "css", Expr: ".product", Attr: "data-sku"},
			Extraction{Values: []string{"TR-100", "TR-200", "TR-300"}, Count: 3}},
		{"css inner_html", Extractor{Kind: "css", Expr: ".product:nth-of-type(3) .price", Output: "inner_html"},
			Extraction{Values: []string{"<b>€ 59.50</b>"}, Count: 1}},
		{"css outer_html", Extractor{Kind: "css", Expr: "h1", Output: "outer_html"},
			Extraction{Values: []string{"<h1>Trail running shoes</h1>"}, Count: 1}},
		{"css count", Extractor{Kind: "css", Expr: ".product", Output: "count"},
			Extraction{Values: []string{}, Count: 3}},
		{"css max", Extractor{Kind: "css", Expr: ".sku", MaxValues: 1},
			Extraction{Values: []string{"SKU: TR-100"}, Count: 3, Omitted: 2}},
		{"css none", Extractor{Kind: "css", Expr: ".missing"},
			Extraction{Values: []string{}, Count: 0}},
		{"xpath text", Extractor{Kind: "xpath", Expr: "//span[@class='sku']"},
			Extraction{Values: []string{"SKU: TR-100", "SKU: TR-200", "SKU: TR-300"}, Count: 3}},
		{"xpath attribute node", Extractor{Kind: "xpath", Expr: "//div/@data-sku", MaxValues: 2},
			Extraction{Values: []string{"TR-100", "TR-200"}, Count: 3, Omitted: 1}},
		{"xpath attr", Extractor{Kind: "xpath", Expr: "//a", Attr: "href"},
			Extraction{Values: []string{"/", "/shoes/"}, Count: 2}},
		{"xpath scalar", Extractor{Kind: "xpath", Expr: "count(//div[@class='product'])"},
			Extraction{Values: []string{"3"}, Count: 1}},
		{"xpath string", Extractor{Kind: "xpath", Expr: "string(//title)"},
			Extraction{Values: []string{"Trail running shoes – Example Shop"}, Count: 1}},
		{"xpath outer", Extractor{Kind: "xpath", Expr: "//h1", Output: "outer_html"},
			Extraction{Values: []string{"<h1>Trail running shoes</h1>"}, Count: 1}},
		{"regex group", Extractor{Kind: "regex", Expr: `SKU: ([A-Z]{2}-\d+)`},
			Extraction{Values: []string{"TR-100", "TR-200", "TR-300"}, Count: 3}},
		{"regex whole", Extractor{Kind: "regex", Expr: `"price":"[0-9.]+"`},
			Extraction{Values: []string{`"price":"89.90"`}, Count: 1}},
		{"regex count", Extractor{Kind: "regex", Expr: `€`, Output: "count"},
			Extraction{Values: []string{}, Count: 4}},
	}
	var list []Extractor
	for i, tt := range tests {
		tt.ex.Name = tt.name
		tests[i].want.Name = tt.name
		list = append(list, tt.ex)
	}
	rep := analyzeFixture(t, "extract/shop.html", "", nil, &Options{Depth: Basic, Extract: list})
	if len(rep.Extracted) != len(tests) {
		t.Fatalf("got %d extractions, want %d", len(rep.Extracted), len(tests))
	}
	for i, tt := range tests {
		got := rep.Extracted[i]
		if got.Name != tt.want.Name || !slices.Equal(got.Values, tt.want.Values) || got.Count != tt.want.Count ||
			got.Omitted != tt.want.Omitted || got.Error != "" {
			t.Errorf("%s: got %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

func TestExtractNotConfigured(t *testing.T) {
	t.Parallel()
	rep := analyzeFixture(t, "extract/shop.html", "", nil, &Options{Depth: Basic})
	if rep.Extracted != nil || rep.Search != nil {
		t.Fatalf("extracted %v, search %v without configuration", rep.Extracted, rep.Search)
	}
}

func TestExtractorErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		ex    Extractor
		field string
	}{
		{Extractor{Name: "a", Kind: "css", Expr: "div[["}, "extract[0].expr"},
		{Extractor{Name: "a", Kind: "xpath", Expr: "//div[@"}, "extract[0].expr"},
		{Extractor{Name: "a", Kind: "regex", Expr: "(unclosed"}, "extract[0].expr"},
		{Extractor{Name: "a", Kind: "css", Expr: ""}, "extract[0].expr"},
		{Extractor{Name: "a", Kind: "css", Expr: strings.Repeat("a", MaxPatternLen+1)}, "extract[0].expr"},
		{Extractor{Name: "a", Kind: "css", Expr: "a:has(b:has(c:has(d)))"}, "extract[0].expr"},
		{Extractor{Name: "a", Kind: "jq", Expr: "."}, "extract[0].type"},
		{Extractor{Name: "", Kind: "css", Expr: "a"}, "extract[0].name"},
		{Extractor{Name: "a", Kind: "css", Expr: "a", MaxValues: 101}, "extract[0].max"},
		{Extractor{Name: "a", Kind: "css", Expr: "a", Output: "json"}, "extract[0].output"},
		{Extractor{Name: "a", Kind: "css", Expr: "a", Output: "attr"}, "extract[0].attr"},
		{Extractor{Name: "a", Kind: "regex", Expr: "a", Output: "inner_html"}, "extract[0].output"},
	}
	for _, tt := range tests {
		_, err := AnalyzeHTML(context.Background(), "https://example.com/", nil, []byte("<p>x"), &Options{Extract: []Extractor{tt.ex}})
		ie, ok := seo.AsInputError(err)
		if !ok || ie.Field != tt.field || !errors.Is(err, seo.ErrInvalidInput) {
			t.Errorf("%+v: got %v, want an input error naming %s", tt.ex, err, tt.field)
		}
	}
	dup := []Extractor{{Name: "a", Kind: "css", Expr: "a"}, {Name: "a", Kind: "css", Expr: "b"}}
	if _, err := CompileExtractors(dup); err == nil || !strings.Contains(err.Error(), "extract[1].name") {
		t.Errorf("duplicate names: %v", err)
	}
	many := make([]Extractor, MaxExtractors+1)
	if _, err := CompileExtractors(many); err == nil || !strings.Contains(err.Error(), "invalid extract:") {
		t.Errorf("too many: %v", err)
	}
}

func TestParseExtractor(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want Extractor
		bad  bool
	}{
		{in: "price=css:.price", want: Extractor{Name: "price", Kind: "css", Expr: ".price"}},
		{in: "sku=css:.product@data-sku", want: Extractor{Name: "sku", Kind: "css", Expr: ".product", Attr: "data-sku"}},
		{in: `mail=css:a[href^="mailto:x@y"]`, want: Extractor{Name: "mail", Kind: "css", Expr: `a[href^="mailto:x@y"]`}},
		{in: "h=xpath://h1/text()", want: Extractor{Name: "h", Kind: "xpath", Expr: "//h1/text()"}},
		{in: `ga=regex:UA-\d+-\d+`, want: Extractor{Name: "ga", Kind: "regex", Expr: `UA-\d+-\d+`}},
		{in: "price", bad: true},
		{in: "price=.price", bad: true},
		{in: "x=css:div[[", bad: true},
		{in: "x=regex:(", bad: true},
	}
	for _, tt := range tests {
		got, err := ParseExtractor(tt.in)
		if tt.bad {
			if !errors.Is(err, seo.ErrInvalidInput) {
				t.Errorf("%q: got %v, want an input error", tt.in, err)
			}
			continue
		}
		if err != nil || got.key() != tt.want {
			t.Errorf("%q: got %+v, %v; want %+v", tt.in, got.key(), err, tt.want)
		}
	}
}

// TestExtractManyMatches: 10,000 matches on a page keep MaxValues values
// and an exact count, for every kind.
func TestExtractManyMatches(t *testing.T) {
	t.Parallel()
	doc := "<ul>" + strings.Repeat(`<li class="i" data-n="x">item</li>`, 10_000) + "</ul>"
	rep := analyzeString(t, doc, "", nil, &Options{Depth: Basic, MaxElements: 50_000, Extract: []Extractor{
		{Name: "css", Kind: "css", Expr: "li.i"},
		{Name: "xpath", Kind: "xpath", Expr: "//li/@data-n", MaxValues: 100},
		{Name: "regex", Kind: "regex", Expr: "<li", MaxValues: 3},
	}})
	for i, want := range []int{10, 100, 3} {
		x := rep.Extracted[i]
		if len(x.Values) != want || x.Count != 10_000 || x.Omitted != 10_000-want || x.Error != "" {
			t.Errorf("%s: %d values, count %d, omitted %d, error %q", x.Name, len(x.Values), x.Count, x.Omitted, x.Error)
		}
	}
}

// TestExtractHostile: Go's regexp (RE2) runs (a+)+$ in linear time on 1 MB;
// an XPath walking the tree again and again stops at its node budget; a
// long value is clipped.
func TestExtractHostile(t *testing.T) {
	body := "<p>" + strings.Repeat("a", 1<<20) + "!</p>"
	start := time.Now()
	rep := analyzeString(t, body, "", nil, &Options{Depth: Basic,
		Extract: []Extractor{{Name: "re", Kind: "regex", Expr: `(a+)+$`}, {Name: "p", Kind: "css", Expr: "p"}},
		Search:  []SearchRule{{Name: "s", Contains: true, Regex: `(a|aa)+!<`}}})
	if d := time.Since(start); d > time.Minute {
		t.Errorf("catastrophic regex took %v", d)
	}
	if x := rep.Extracted[0]; x.Count != 0 {
		t.Errorf("(a+)+$ on a line ending in !: %+v", x)
	}
	if v := rep.Extracted[1].Values[0]; len([]rune(v)) != MaxValueChars+1 || !strings.HasSuffix(v, "…") {
		t.Errorf("value not clipped: %d runes", len([]rune(v)))
	}
	if s := rep.Search[0]; !s.Matched || s.Occurrences != 1 {
		t.Errorf("search: %+v", s)
	}

	deep := strings.Repeat("<div>", 200) + strings.Repeat("<span>x</span>", 2000) + strings.Repeat("</div>", 200)
	start = time.Now()
	rep = analyzeString(t, deep, "", nil, &Options{Depth: Basic, Extract: []Extractor{
		{Name: "deep", Kind: "xpath", Expr: "//*//*//*//*"},
		{Name: "ok", Kind: "xpath", Expr: "count(//span)"},
	}})
	if d := time.Since(start); d > time.Minute {
		t.Errorf("deep xpath took %v", d)
	}
	if x := rep.Extracted[0]; x.Error == "" || x.Count != 0 || len(x.Values) != 0 {
		t.Errorf("deep xpath not stopped: count %d, error %q", x.Count, x.Error)
	}
	if x := rep.Extracted[1]; x.Error != "" || !slices.Equal(x.Values, []string{"2000"}) {
		t.Errorf("count(//span): %+v", x)
	}
}

func TestSearchRules(t *testing.T) {
	t.Parallel()
	rules := []SearchRule{
		{Name: "stock", Contains: true, Text: "In stock"},
		{Name: "no-soldout", Contains: false, Text: "Sold out"},
		{Name: "has-soldout", Contains: true, Text: "Sold out"},
		{Name: "no-price", Contains: false, Text: "€"},
		{Name: "sku-re", Contains: true, Regex: `TR-\d00`},
		{Name: "script-in-html", Contains: true, Text: "application/ld+json"},
		{Name: "script-in-text", Contains: true, Text: "application/ld+json", In: "text"},
		{Name: "text-re", Contains: true, Regex: `(?i)free DELIVERY`, In: "text"},
		{Name: "no-text-re", Contains: false, Regex: `lorem`, In: "text"},
	}
	want := []SearchMatch{
		{Name: "stock", Matched: true, Occurrences: 1}, {Name: "no-soldout", Matched: true, Occurrences: 0}, {Name: "has-soldout", Matched: false, Occurrences: 0}, {Name: "no-price", Matched: false, Occurrences: 4},
		{Name: "sku-re", Matched: true, Occurrences: 7}, {Name: "script-in-html", Matched: true, Occurrences: 1}, {Name: "script-in-text", Matched: false, Occurrences: 0}, {Name: "text-re", Matched: true, Occurrences: 1},
		{Name: "no-text-re", Matched: true, Occurrences: 0},
	}
	rep := analyzeFixture(t, "extract/shop.html", "", nil, &Options{Depth: Basic, Search: rules})
	if !slices.Equal(rep.Search, want) {
		t.Errorf("got %+v\nwant %+v", rep.Search, want)
	}
}

func TestSearchRuleErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		r     SearchRule
		field string
	}{
		{SearchRule{Name: "a", Regex: "("}, "search[0].regex"},
		{SearchRule{Name: "a"}, "search[0].text"},
		{SearchRule{Name: "a", Text: "x", Regex: "y"}, "search[0].text"},
		{SearchRule{Name: "a", Text: "x", In: "body"}, "search[0].in"},
		{SearchRule{Text: "x"}, "search[0].name"},
	}
	for _, tt := range tests {
		_, err := CompileSearchRules([]SearchRule{tt.r})
		if ie, ok := seo.AsInputError(err); !ok || ie.Field != tt.field {
			t.Errorf("%+v: got %v, want field %s", tt.r, err, tt.field)
		}
	}
}

func TestParseSearchRule(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want SearchRule
		bad  bool
	}{
		{in: "stock=contains:In stock", want: SearchRule{Name: "stock", Contains: true, Text: "In stock", In: "html"}},
		{in: "ga=!contains:gtag(", want: SearchRule{Name: "ga", Text: "gtag(", In: "html"}},
		{in: "sku=regex:TR-\\d+", want: SearchRule{Name: "sku", Contains: true, Regex: `TR-\d+`, In: "html"}},
		{in: "lorem=!text-regex:(?i)lorem", want: SearchRule{Name: "lorem", Regex: `(?i)lorem`, In: "text"}},
		{in: "x=text-contains:a:b", want: SearchRule{Name: "x", Contains: true, Text: "a:b", In: "text"}},
		{in: "x=has:y", bad: true},
		{in: "x=regex:(", bad: true},
		{in: "x", bad: true},
	}
	for _, tt := range tests {
		got, err := ParseSearchRule(tt.in)
		got.re, got.lit = nil, nil
		if tt.bad != (err != nil) || (!tt.bad && got != tt.want) {
			t.Errorf("%q: got %+v, %v", tt.in, got, err)
		}
	}
}

// TestExtractSkipsNonDocuments: a redirect or error page gets no
// extraction.
func TestExtractSkipsNonDocuments(t *testing.T) {
	t.Parallel()
	resp := &seo.Response{URL: "https://example.com/", Status: 404, Header: http.Header{"Content-Type": {"text/html"}}, Body: []byte("<p class=price>1</p>")}
	rep, err := AnalyzeResponse(context.Background(), resp, &Options{Depth: Basic,
		Extract: []Extractor{{Name: "p", Kind: "css", Expr: ".price"}}, Search: []SearchRule{{Name: "s", Text: "x"}}})
	if err != nil || rep.Extracted != nil || rep.Search != nil {
		t.Fatalf("404: %v, %+v %+v", err, rep.Extracted, rep.Search)
	}
}

func TestExtractHTMLReport(t *testing.T) {
	t.Parallel()
	rep := analyzeFixture(t, "extract/shop.html", "", nil, &Options{Depth: Basic,
		Extract: []Extractor{{Name: "sku", Kind: "css", Expr: ".product", Attr: "data-sku", MaxValues: 2}},
		Search:  []SearchRule{{Name: "stock", Contains: true, Text: "In stock"}}})
	var sb strings.Builder
	if err := rep.WriteHTML(&sb); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<h2>Extracted</h2>", "<code>TR-100</code> | <code>TR-200</code>", "+1 more", "<h2>Search</h2>", "<th scope=\"row\">stock</th><td>matched</td>"} {
		if !strings.Contains(sb.String(), want) {
			t.Errorf("HTML report lacks %q", want)
		}
	}
}

// TestExtractConcurrent: one compiled configuration serves concurrent
// analyses, as in a crawl (run with -race).
func TestExtractConcurrent(t *testing.T) {
	t.Parallel()
	list, err := CompileExtractors([]Extractor{
		{Name: "x", Kind: "xpath", Expr: "//div[@class='product']/@data-sku"},
		{Name: "c", Kind: "css", Expr: ".price"},
		{Name: "r", Kind: "regex", Expr: `SKU: (\S+)`},
	})
	if err != nil {
		t.Fatal(err)
	}
	body := []byte(`<div class="product" data-sku="A"><span class="price">1</span>SKU: A</div>`)
	errs := make(chan error, 8)
	for range 8 {
		go func() {
			var err error
			for range 20 {
				var rep *Report
				rep, err = AnalyzeHTML(context.Background(), "https://example.com/", nil, body, &Options{Depth: Basic, Extract: list})
				if err == nil && (rep.Extracted[0].Count != 1 || rep.Extracted[0].Values[0] != "A") {
					err = errors.New("wrong xpath result")
				}
				if err != nil {
					break
				}
			}
			errs <- err
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
