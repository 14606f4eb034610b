package analyzer_test

import (
	"context"
	"encoding/json"
	"html"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/seokit/seokit/analyzer"
)

// wptCase is one case of web-platform-tests' urltestdata.json
// (seo/testdata/wpt).
type wptCase struct {
	Input    string  `json:"input"`
	Base     *string `json:"base"`
	Href     string  `json:"href"`
	Protocol string  `json:"protocol"`
	Failure  bool    `json:"failure"`
}

func loadWPTCases(t *testing.T) []wptCase {
	t.Helper()
	b, err := os.ReadFile("../seo/testdata/wpt/urltestdata.json")
	if err != nil {
		t.Fatal(err)
	}
	var raw []json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	var cases []wptCase
	for _, r := range raw {
		if len(r) > 0 && r[0] == '{' {
			var c wptCase
			if err := json.Unmarshal(r, &c); err != nil {
				t.Fatal(err)
			}
			cases = append(cases, c)
		}
	}
	return cases
}

// wptPage returns the page a case's input is an <a href> of: its URL and
// <base href>. ok is false when the case is not an http(s) link: its base
// is not an http(s) URL; or it has none and its input no scheme (a relative
// href has the page as base); or the URL it makes is not http(s); or it is
// a failure whose input names another scheme (file:, javascript: ...,
// which seokit reports by their scheme). A case without base gets a page
// of the other web scheme than its input, which makes "http:x" absolute as
// it is without base.
func wptPage(c wptCase) (pageURL, base string, ok bool) {
	if !c.Failure && c.Protocol != "http:" && c.Protocol != "https:" {
		return "", "", false
	}
	in := strings.TrimLeft(strings.NewReplacer("\t", "", "\n", "", "\r", "").Replace(c.Input), "\x00\x01\x02\x03\x04\x05\x06\x07\x08\x0b\x0c\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f ")
	scheme, _, found := strings.Cut(in, ":")
	hasScheme := found && scheme != "" && isScheme(scheme)
	web := strings.EqualFold(scheme, "http") || strings.EqualFold(scheme, "https")
	if c.Failure && hasScheme && !web {
		return "", "", false
	}
	if c.Base != nil {
		low := strings.ToLower(*c.Base)
		if !strings.HasPrefix(low, "http:") && !strings.HasPrefix(low, "https:") {
			return "", "", false
		}
		return "http://page.test/dir/page", *c.Base, true
	}
	if !hasScheme {
		return "", "", false
	}
	if strings.EqualFold(scheme, "http") {
		return "https://page.test/dir/page", "", true
	}
	return "http://page.test/dir/page", "", true
}

func isScheme(s string) bool {
	for i, c := range s {
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		case i > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'):
		default:
			return false
		}
	}
	return true
}

// wptAnalyzerKnown lists the cases where the analyzer's link differs from
// the URL a browser makes of the href, with the reason.
var wptAnalyzerKnown = map[string]string{
	"\x00\x1b\x04\x12 http://example.com/\x1f \r ": htmlNUL,
	"https://x/\x00y":             htmlNUL,
	"https://x/?\x00y":            htmlNUL,
	"http://a.b.c.xn--pokxncvks":  libPunycode,
	"http://10.0.0.xn--pokxncvks": libPunycode,
	"http://a.b.c.XN--pokxncvks":  libPunycode,
	"http://a.b.c.Xn--pokxncvks":  libPunycode,
	"http://10.0.0.XN--pokxncvks": libPunycode,
	"http://10.0.0.xN--pokxncvks": libPunycode,
	"https://xn--/":               libPunycode,
}

const (
	htmlNUL     = "HTML parsing turns U+0000 in an attribute into U+FFFD before the URL is parsed, in browsers as in seokit"
	libPunycode = "the URL parser (2023 snapshot of the Standard) refuses an xn-- label that does not decode, which the Standard now keeps; seokit reports the link as not parsing"
)

// wptLinkOutcome analyses a page holding the case's href and returns the
// link's URL as the report has it, or "failure" when the analyzer reports
// the href as not parsing.
func wptLinkOutcome(t *testing.T, c wptCase, pageURL, base string) string {
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
	applicable, agree, listed := 0, 0, 0
	for _, c := range loadWPTCases(t) {
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
