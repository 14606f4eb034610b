package crawler

import (
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/seokit/seokit/analyzer"
	"github.com/seokit/seokit/seo"
)

func TestValidateSegments(t *testing.T) {
	two := 2
	one := 1
	neg := -1
	tests := []struct {
		name  string
		segs  []Segment
		field string
	}{
		{"good", []Segment{{Name: "blog", URL: `/blog/`}, {Name: "errors", Status: "4xx"}, {Name: "deep", MinDepth: &two}, {Name: "rest"}}, ""},
		{"bad name", []Segment{{Name: "a b"}}, "segments[0].name"},
		{"empty name", []Segment{{URL: "x"}}, "segments[0].name"},
		{"duplicate", []Segment{{Name: "a"}, {Name: "a"}}, "segments[1].name"},
		{"bad regexp", []Segment{{Name: "a"}, {Name: "b", URL: `(`}}, "segments[1].url"},
		{"long regexp", []Segment{{Name: "a", URL: strings.Repeat("a", 1001)}}, "segments[0].url"},
		{"bad status", []Segment{{Name: "a", Status: "44"}}, "segments[0].status"},
		{"negative depth", []Segment{{Name: "a", MinDepth: &neg}}, "segments[0].minDepth"},
		{"max below min", []Segment{{Name: "a", MinDepth: &two, MaxDepth: &one}}, "segments[0].maxDepth"},
		{"by value", []Segment{{Name: "a", Extract: "price", Value: `^\$`}, {Name: "b", Extract: "sku"}}, ""},
		{"value without extract", []Segment{{Name: "a", Value: "x"}}, "segments[0].value"},
		{"bad value regexp", []Segment{{Name: "a", Extract: "price", Value: "(("}}, "segments[0].value"},
		{"long value regexp", []Segment{{Name: "a", Extract: "price", Value: strings.Repeat("a", 1001)}}, "segments[0].value"},
		{"too many", make([]Segment, MaxSegments+1), "segments"},
	}
	for _, tt := range tests {
		err := ValidateSegments(tt.segs)
		if tt.field == "" {
			if err != nil {
				t.Errorf("%s: %v", tt.name, err)
			}
			continue
		}
		ie, ok := seo.AsInputError(err)
		if !ok || ie.Field != tt.field {
			t.Errorf("%s: error %v, want an InputError on %s", tt.name, err, tt.field)
		}
	}
}

func TestSegments(t *testing.T) {
	zero, one := 0, 1
	s := testSite{
		pages: []PageSummary{
			pg("/blog/a", func(p *PageSummary) { p.Findings = []string{"title.missing"}; p.Depth = ptr(1) }),
			pg("/blog/b", func(p *PageSummary) {
				p.Findings = []string{"title.missing", "meta.description_missing"}
				p.Depth = ptr(2)
			}),
			pg("/gone", func(p *PageSummary) { p.Status = 404; p.Depth = ptr(1) }),
			pg("/shop/x", func(p *PageSummary) { p.Depth = ptr(3) }),
		},
		linked: []string{"/blog/a", "/gone"},
	}
	start, _ := url.Parse(siteOrigin + "/")
	b := newSiteBuilder(start, &Options{Segments: []Segment{
		{Name: "home", MinDepth: &zero, MaxDepth: &zero},
		{Name: "missing", Status: "4xx"},
		{Name: "blog", URL: `^https://[^/]+/blog/`, MinDepth: &one},
	}})
	rep := s.buildOn(b)
	got := map[string]SegmentSummary{}
	for _, sg := range rep.Segments {
		got[sg.Name] = sg
	}
	if len(rep.Segments) != 4 || rep.Segments[3].Name != NoSegment {
		t.Fatalf("segments %+v", rep.Segments)
	}
	if g := got["blog"]; g.Pages != 2 || g.ByID["title.missing"] != 2 || g.ByID["meta.description_missing"] != 1 {
		t.Errorf("blog %+v", g)
	}
	if g := got["home"]; g.Pages != 1 {
		t.Errorf("home %+v", g)
	}
	if g := got["missing"]; g.Pages != 1 {
		t.Errorf("missing %+v", g)
	}
	if g := got[NoSegment]; g.Pages != 1 {
		t.Errorf("none %+v", g)
	}
	seg := map[string]string{}
	for _, p := range rep.Pages {
		seg[strings.TrimPrefix(p.URL, siteOrigin)] = p.Segment
	}
	if seg["/blog/a"] != "blog" || seg["/gone"] != "missing" || seg["/"] != "home" || seg["/shop/x"] != "" {
		t.Errorf("page segments %v", seg)
	}
	var csv strings.Builder
	if err := writeCSV(&csv, rep); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(csv.String(), "\n")
	if !strings.HasSuffix(lines[0], ",error,template,segment") || !strings.Contains(csv.String(), ",blog\n") {
		t.Errorf("CSV lacks the segment column:\n%s", csv.String())
	}
	var html strings.Builder
	if err := writeHTML(&html, rep); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(html.String(), `id="segments"`) || !strings.Contains(html.String(), `"segment":"blog"`) {
		t.Error("HTML report lacks the segments")
	}
	if rep := (testSite{}).build(t); rep.Segments != nil {
		t.Errorf("segments without Options.Segments: %+v", rep.Segments)
	}
}

func TestRunRefusesBadSegments(t *testing.T) {
	_, err := New(&Options{Segments: []Segment{{Name: "x", URL: "(("}}}).Run(t.Context(), "example.com")
	if ie, ok := seo.AsInputError(err); !ok || ie.Field != "segments[0].url" {
		t.Errorf("Run: %v, want an InputError on segments[0].url", err)
	}
}

func TestValidateSegmentsFor(t *testing.T) {
	extract := []analyzer.Extractor{{Name: "price", Kind: "css", Expr: ".price"}}
	tests := []struct {
		name  string
		segs  []Segment
		field string
	}{
		{"known extractor", []Segment{{Name: "a", Extract: "price", Value: "^9"}}, ""},
		{"unknown extractor", []Segment{{Name: "a"}, {Name: "b", Extract: "sku"}}, "segments[1].extract"},
		{"form first", []Segment{{Name: "a b", Extract: "sku"}}, "segments[0].name"},
	}
	for _, tt := range tests {
		err := ValidateSegmentsFor(tt.segs, extract)
		ie, ok := seo.AsInputError(err)
		switch {
		case tt.field == "" && err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case tt.field != "" && (!ok || ie.Field != tt.field || !errors.Is(err, seo.ErrInvalidInput)):
			t.Errorf("%s: error %v, want an InputError on %s", tt.name, err, tt.field)
		}
	}
	_, err := New(&Options{Segments: []Segment{{Name: "x", Extract: "price"}}}).Run(t.Context(), "example.com")
	if ie, ok := seo.AsInputError(err); !ok || ie.Field != "segments[0].extract" {
		t.Errorf("Run without extractors: %v, want an InputError on segments[0].extract", err)
	}
}

func TestSegmentsByExtractedValue(t *testing.T) {
	val := func(vals ...string) func(p *PageSummary) {
		return func(p *PageSummary) {
			p.Extracted = []analyzer.Extraction{{Name: "other", Values: []string{"x"}, Count: 1},
				{Name: "type", Values: vals, Count: len(vals)}}
		}
	}
	s := testSite{
		pages: []PageSummary{
			pg("/p/1", val("product", "x")),
			pg("/p/2", val("Product page")),
			pg("/c/1", val("category")),
			pg("/none", val()),
			pg("/failed", func(p *PageSummary) {
				p.Extracted = []analyzer.Extraction{{Name: "type", Values: []string{}, Error: "over budget"}}
			}),
		},
		linked: []string{"/p/1", "/p/2", "/c/1", "/none", "/failed"},
	}
	start, _ := url.Parse(siteOrigin + "/")
	b := newSiteBuilder(start, &Options{Segments: []Segment{
		{Name: "products", Extract: "type", Value: `(?i)^product`},
		{Name: "typed", Extract: "type"},
	}})
	rep := s.buildOn(b)
	seg := map[string]string{}
	for _, p := range rep.Pages {
		seg[strings.TrimPrefix(p.URL, siteOrigin)] = p.Segment
	}
	want := map[string]string{"/p/1": "products", "/p/2": "products", "/c/1": "typed", "/none": "", "/failed": "", "/": ""}
	for u, w := range want {
		if seg[u] != w {
			t.Errorf("%s: segment %q, want %q", u, seg[u], w)
		}
	}
	if rep.Segments[0].Pages != 2 || rep.Segments[1].Pages != 1 {
		t.Errorf("segments %+v", rep.Segments)
	}
}

// TestSegmentBudget spends the segments' regex budget part-way through a
// crawl: the pages after it are in no segment and every summary says how
// many, instead of counting them as outside every segment.
func TestSegmentBudget(t *testing.T) {
	s := testSite{pages: []PageSummary{pg("/blog/a"), pg("/blog/b"), pg("/blog/c"), pg("/blog/d")}}
	start, _ := url.Parse(siteOrigin + "/")
	b := newSiteBuilder(start, &Options{Segments: []Segment{{Name: "blog", URL: `/blog/`}}})
	// The work of one page: its URL's bytes times the program's
	// instructions, both plus one.
	_, insts, err := analyzer.CompileRegexp(`/blog/`)
	if err != nil {
		t.Fatal(err)
	}
	perPage := int64(len(siteOrigin+"/blog/a")+1) * int64(insts+1)
	defer func(old int64) { segmentBudget = old }(segmentBudget)
	segmentBudget = 3 * perPage // the home page and two blog pages
	rep := s.buildOn(b)
	if len(rep.Segments) != 2 {
		t.Fatalf("segments %+v", rep.Segments)
	}
	blog, none := rep.Segments[0], rep.Segments[1]
	if blog.Pages != 2 || none.Pages != 1 {
		t.Errorf("blog %d pages, none %d, want 2 and 1", blog.Pages, none.Pages)
	}
	for _, sg := range rep.Segments {
		if !strings.Contains(sg.Reason, "not matched on 2 of 5 pages") {
			t.Errorf("%s: reason %q", sg.Name, sg.Reason)
		}
	}
}
