package analyzer

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// mixedTailPage has links of every kind, images with and without alt,
// headings, foreign content, raw text that looks like markup, an inert
// template (whose content counts for nothing, not even as elements) and a
// declarative shadow root (whose content counts), repeated n times.
func mixedTailPage(n int) string {
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html><html lang="en"><head><title>Element budget test page</title><base href="https://example.com/dir/"></head><body>`)
	for i := range n {
		fmt.Fprintf(&b, `<h2>Part %d</h2><p><a href="p%d">in</a> <a href="https://other.example/%d" rel="nofollow">out</a>`, i, i, i)
		fmt.Fprintf(&b, `<a href="mailto:x@example.com">mail</a><a>none</a><A HREF="/q%d" REL="UGC">up</A>`, i)
		fmt.Fprintf(&b, `<img src="/i/%d.png" alt="pic %d"><img src="/j/%d.png"><image src="/k.png"></p>`, i, i, i)
		b.WriteString(`<svg><a href="/svg-link"><image href="/svg.png"/></a><h3>not html</h3></svg>`)
		b.WriteString(`<script>document.write('<a href="/script">x</a><img src="/s.png">')</script>`)
		b.WriteString(`<textarea><a href="/textarea">x</a></textarea><noscript><img src="/ns.png"></noscript>`)
		b.WriteString(`<template><li><a href="/template">t</a><img src="/t.png"><h2>t</h2><svg><a href="/t-svg"></a></svg>`)
		b.WriteString(`<template shadowrootmode="open"><a href="/template-shadow">x</a></template><p>t</p></template>`)
		b.WriteString(`<template><svg><a href="/unclosed-svg"></template>`) // </template> closes the svg too
		fmt.Fprintf(&b, `<div><template shadowrootmode="Open"><a href="/shadow%d">s</a><img src="/s.png" alt="s"></template></div>`, i)
	}
	b.WriteString(`</body></html>`)
	return b.String()
}

// TestElementBudgetCountsTail checks that a document cut at the element
// budget reports the same counts as the whole tree: links (internal,
// external, nofollow), images, images without alt, headings and the DOM
// size.
func TestElementBudgetCountsTail(t *testing.T) {
	t.Parallel()
	doc := mixedTailPage(40)
	whole := analyzeString(t, doc, "", nil, &Options{Depth: Complete, MaxElements: 1 << 30, Thresholds: Thresholds{MaxDOMElements: 1}})
	// Budgets from 1 to the end cut before every kind of element.
	for max := 1; max < startTags(doc); max += 11 {
		t.Run(fmt.Sprint(max), func(t *testing.T) {
			cut := analyzeString(t, doc, "", nil, &Options{Depth: Complete, MaxElements: max, Thresholds: Thresholds{MaxDOMElements: 1}})
			if cut.Links.Internal != whole.Links.Internal || cut.Links.External != whole.Links.External || cut.Links.Nofollow != whole.Links.Nofollow {
				t.Errorf("links %d/%d/%d with the budget, %d/%d/%d whole", cut.Links.Internal, cut.Links.External, cut.Links.Nofollow,
					whole.Links.Internal, whole.Links.External, whole.Links.Nofollow)
			}
			if cut.Images.Total != whole.Images.Total || cut.Images.WithoutAlt != whole.Images.WithoutAlt {
				t.Errorf("images %d/%d with the budget, %d/%d whole", cut.Images.Total, cut.Images.WithoutAlt, whole.Images.Total, whole.Images.WithoutAlt)
			}
			if got, want := len(cut.Headings)+cut.Truncated["headings"].Omitted, len(whole.Headings); got != want {
				t.Errorf("headings total %d, want %d", got, want)
			}
			wholeDOM := findingValue(whole, "performance.dom_too_large")
			doc := cut.Truncated["document"]
			if doc.Total != int(wholeDOM) || doc.Omitted <= 0 || doc.Omitted >= doc.Total {
				t.Errorf("truncated.document = %+v, whole tree has %v elements", doc, wholeDOM)
			}
			if got := findingValue(cut, "performance.dom_too_large"); got != wholeDOM {
				t.Errorf("dom_too_large counts %v elements, whole tree %v", got, wholeDOM)
			}
			if !hasFinding(cut, "content.document_too_large") {
				t.Error("no content.document_too_large finding")
			}
		})
	}
	if whole.Links.Internal != 120 || whole.Links.External != 40 || whole.Links.Nofollow != 80 || whole.Images.Total != 160 || whole.Images.WithoutAlt != 80 {
		t.Errorf("whole document: links %+v, images %d/%d; the test page changed?", whole.Links, whole.Images.Total, whole.Images.WithoutAlt)
	}
}

// startTags counts the start tags of doc, the elements the budget counts.
func startTags(doc string) int {
	n := 0
	z := html.NewTokenizer(strings.NewReader(doc))
	for tt := z.Next(); tt != html.ErrorToken; tt = z.Next() {
		if tt == html.StartTagToken || tt == html.SelfClosingTagToken {
			n++
		}
	}
	return n
}

// findingValue returns Evidence.Measured of the first finding id (0 if none).
func findingValue(rep *Report, id string) float64 {
	for _, f := range rep.Findings {
		if f.ID == id && f.Evidence.Measured != nil {
			return *f.Evidence.Measured
		}
	}
	return 0
}

func hasFinding(rep *Report, id string) bool {
	for _, f := range rep.Findings {
		if f.ID == id {
			return true
		}
	}
	return false
}

// TestElementBudgetBoundary checks that a document of exactly MaxElements
// start tags is analysed whole, with the same report as without a budget,
// and one more element cuts it.
func TestElementBudgetBoundary(t *testing.T) {
	t.Parallel()
	doc := mixedTailPage(3)
	tags := startTags(doc)
	at := analyzeString(t, doc, "", nil, &Options{Depth: Complete, MaxElements: tags})
	whole := analyzeString(t, doc, "", nil, &Options{Depth: Complete})
	at.AnalyzedAt = whole.AnalyzedAt
	a, _ := json.Marshal(at)
	w, _ := json.Marshal(whole)
	if !bytes.Equal(a, w) {
		t.Errorf("a page at the budget (%d elements) is not analysed whole:\n%s\n%s", tags, a, w)
	}
	over := analyzeString(t, doc, "", nil, &Options{Depth: Complete, MaxElements: tags - 1})
	if d := over.Truncated["document"]; d.Omitted != 1 {
		t.Errorf("one element over the budget: truncated.document = %+v, want 1 omitted", d)
	}
}

// TestElementCutFastPath checks that elementCut skips bodies with no more
// '<' than the budget and finds the offset of the first element over it.
func TestElementCutFastPath(t *testing.T) {
	t.Parallel()
	tests := []struct {
		body string
		max  int
		want int
	}{
		{"<p>a<p>b", 2, -1},
		{"<p>a<p>b<p>c", 2, 8},
		{"<p>a < b <!-- <x> --> <p>", 2, -1},
		{"<script><p><p><p></script><p>", 2, -1},
		{"<script><p><p><p></script><p><br/><i>", 2, 29},
	}
	for _, tt := range tests {
		if got, _ := elementCut([]byte(tt.body), tt.max); got != tt.want {
			t.Errorf("elementCut(%q, %d) = %d, want %d", tt.body, tt.max, got, tt.want)
		}
	}
}

// TestElementBudgetLinkPage analyses a page of 300,000 links with the
// default budget: the report counts every link, lists 1000, records the
// cut document and reports content.document_too_large.
func TestElementBudgetLinkPage(t *testing.T) {
	t.Parallel()
	if testing.Short() || raceEnabled {
		t.Skip("analyses a 7 MB page: not in -short or -race runs")
	}
	const links = 300_000
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html><html lang="en"><head><title>Three hundred thousand links</title></head><body>`)
	for i := range links {
		fmt.Fprintf(&b, `<a href="/p/%06d">x</a>`, i)
	}
	b.WriteString(`</body></html>`)
	body := []byte(b.String())
	rep, err := AnalyzeHTML(context.Background(), "https://example.com/", http.Header{"Content-Type": {"text/html"}}, body, &Options{Depth: Complete})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Links.Internal != links || rep.Links.External != 0 {
		t.Errorf("links internal %d, external %d; want %d, 0", rep.Links.Internal, rep.Links.External, links)
	}
	if tr := rep.Truncated["links"]; tr.Total != links || tr.Omitted != links-DefaultMaxListItems || len(rep.Links.List) != DefaultMaxListItems {
		t.Errorf("truncated.links = %+v with %d listed; want total %d, %d listed", tr, len(rep.Links.List), links, DefaultMaxListItems)
	}
	// html, head, title, body and the links; the parser implies none.
	doc := rep.Truncated["document"]
	if doc.Total != links+4 || doc.Omitted != links+4-DefaultMaxElements {
		t.Errorf("truncated.document = %+v, want total %d, omitted %d", doc, links+4, links+4-DefaultMaxElements)
	}
	if !hasFinding(rep, "content.document_too_large") || findingValue(rep, "performance.dom_too_large") != links+4 {
		t.Errorf("findings: document_too_large %v, dom_too_large measured %v; want present and %d",
			hasFinding(rep, "content.document_too_large"), findingValue(rep, "performance.dom_too_large"), links+4)
	}
	js, _ := json.Marshal(rep)
	t.Logf("body %d bytes, %d links counted, %d listed, truncated.document %+v, JSON %d bytes", len(body), rep.Links.Internal, len(rep.Links.List), doc, len(js))
}

// TestCorpusElementBudget checks that every saved page is far below the
// default element budget, so that the budget never changes their reports,
// and logs the largest element count.
func TestCorpusElementBudget(t *testing.T) {
	t.Parallel()
	names, pages := corpusPages(t)
	most, name := 0, ""
	for i, body := range pages {
		n := startTags(string(body))
		if n > most {
			most, name = n, names[i]
		}
		if cut, _ := elementCut(body, DefaultMaxElements); cut >= 0 {
			t.Errorf("%s: %d elements, over the default budget", names[i], n)
		}
	}
	t.Logf("%d corpus pages: the largest, %s, holds %d elements (budget %d)", len(pages), name, most, DefaultMaxElements)
}

// TestNestingTooDeep: a page nested deeper than MaxNesting (unclosed tags)
// is checked up to its first element too deep, its title and head are
// found, the rest is counted, and content.nesting_too_deep says so; before,
// the parser refused the whole document and every element read as missing.
func TestNestingTooDeep(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, open, close string }{
		{"divs", "<div>", "</div>"},
		{"spans with text", "<span>word ", ""},
		{"tables", "<table><tr><td>", ""},
		{"svg groups", "<svg><g>", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			b.WriteString(`<!DOCTYPE html><html lang="en"><head><title>A deeply nested page of unclosed tags</title>` +
				`<meta name="description" content="The description is in the head, before the nesting."></head><body><h1>Nested</h1><a href="/first">first</a>`)
			for range 700 {
				b.WriteString(tc.open)
			}
			// An img closes open svg elements: the link after it is HTML.
			b.WriteString(`<img src="/deep.png"><a href="/deep">deep</a>`)
			for range 700 {
				b.WriteString(tc.close)
			}
			b.WriteString(`</body></html>`)
			rep, err := AnalyzeHTML(context.Background(), "https://example.com/", http.Header{"Content-Type": {"text/html"}}, []byte(b.String()), &Options{Depth: Complete})
			if err != nil {
				t.Fatal(err)
			}
			for _, id := range []string{"title.missing", "meta.description_missing", "headings.h1_missing"} {
				if hasFinding(rep, id) {
					t.Errorf("false %s on a page that has it", id)
				}
			}
			if !hasFinding(rep, "content.nesting_too_deep") {
				t.Error("no content.nesting_too_deep finding")
			}
			if hasFinding(rep, "content.document_too_large") {
				t.Error("content.document_too_large on a page under the element budget")
			}
			if rep.Links.Internal != 2 {
				t.Errorf("internal links %d, want 2 (one before the cut, one counted after it)", rep.Links.Internal)
			}
			if doc := rep.Truncated["document"]; doc.Omitted == 0 {
				t.Errorf("truncated.document = %+v, want the elements past the cut omitted", doc)
			}
		})
	}
}
