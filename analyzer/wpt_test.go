package analyzer_test

import (
	"context"
	"html"
	"net/http"
	"strings"
	"testing"

	"github.com/seokit/seokit/analyzer"
	"github.com/seokit/seokit/internal/wpttest"
)

// wptPage returns the page a case's input is an <a href> of: its URL and
// <base href> (wpttest.Link says which cases are http(s) links).
func wptPage(c wpttest.Case) (pageURL, base string, ok bool) {
	scheme, base, ok := wpttest.Link(c)
	if !ok {
		return "", "", false
	}
	return scheme + "://page.test/dir/page", base, true
}

// wptLinkOutcome analyses a page holding the case's href and returns the
// link's URL as the report has it, or "failure" when the analyzer reports
// the href as not parsing.
func wptLinkOutcome(t *testing.T, c wpttest.Case, pageURL, base string) string {
	t.Helper()
	doc := "<!doctype html><html><head><title>wpt</title>"
	if base != "" {
		doc += `<base href="` + html.EscapeString(base) + `">`
	}
	doc += `</head><body><a href="` + html.EscapeString(c.Input) + `">link</a></body></html>`
	rep, err := analyzer.AnalyzeHTML(context.Background(), pageURL, http.Header{"Content-Type": {"text/html; charset=utf-8"}}, []byte(doc), nil)
	if err != nil {
		t.Fatalf("AnalyzeHTML: %v", err)
	}
	if len(rep.Links.List) > 0 {
		return rep.Links.List[0].URL
	}
	for _, f := range rep.Findings {
		if f.ID == "links.uncrawlable" && strings.Contains(f.Evidence.Detail, "does not parse") {
			return "failure"
		}
	}
	return "no link"
}

// TestWPTLinks runs every case of urltestdata.json that can be a link of an
// http(s) page through the analyzer: the link it reports must be the URL a
// browser makes of the href (without fragment), and an href a browser
// cannot parse must be reported by links.uncrawlable as not parsing.
func TestWPTLinks(t *testing.T) {
	t.Parallel()
	applicable, agree, listed := 0, 0, 0
	wptAnalyzerKnown := wpttest.Known()
	for _, c := range wpttest.Load(t) {
		pageURL, base, ok := wptPage(c)
		if !ok {
			continue
		}
		applicable++
		want := "failure"
		if !c.Failure {
			want, _, _ = strings.Cut(c.Href, "#")
		}
		got := wptLinkOutcome(t, c, pageURL, base)
		switch {
		case got == want:
			agree++
		case wptAnalyzerKnown[c.Input] != "":
			listed++
		default:
			t.Errorf("href %q (base %q): link %q; want %q", c.Input, base, got, want)
		}
	}
	t.Logf("urltestdata: %d applicable, %d agree, %d listed differences", applicable, agree, listed)
}
