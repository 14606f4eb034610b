// Package wpttest reads web-platform-tests' urltestdata.json
// (seo/testdata/wpt, with its source and licence) for the tests that run
// its cases through seokit's URL parser, the analyzer and a crawl, and
// holds what those tests share: the rule of which cases are http(s) links
// and the reasons of the differences every path has.
package wpttest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// Case is one case of urltestdata.json.
type Case struct {
	Input    string  `json:"input"`
	Base     *string `json:"base"`
	Href     string  `json:"href"`
	Protocol string  `json:"protocol"`
	Pathname string  `json:"pathname"`
	Search   string  `json:"search"`
	Failure  bool    `json:"failure"`
}

// Load reads every case of urltestdata.json (its comment strings left out).
func Load(t testing.TB) []Case {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	b, err := os.ReadFile(filepath.Join(filepath.Dir(file), "..", "..", "seo", "testdata", "wpt", "urltestdata.json"))
	if err != nil {
		t.Fatal(err)
	}
	var raw []json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	var cases []Case
	for _, r := range raw {
		if len(r) > 0 && r[0] == '{' {
			var c Case
			if err := json.Unmarshal(r, &c); err != nil {
				t.Fatal(err)
			}
			cases = append(cases, c)
		}
	}
	return cases
}

// Link selects the cases that are http(s) links of an http(s) page and
// returns the page's scheme and its base ("" for none). ok is false when
// the case is not such a link: its base is not an http(s) URL; or it has
// none and its input no scheme (a relative href has the page as base); or
// the URL it makes is not http(s); or it is a failure whose input names
// another scheme (file:, javascript: ..., which seokit reports by their
// scheme). A case without base gets a page of the other web scheme than
// its input, which makes "http:x" absolute as it is without base.
func Link(c Case) (scheme, base string, ok bool) {
	if !c.Failure && c.Protocol != "http:" && c.Protocol != "https:" {
		return "", "", false
	}
	in := strings.TrimLeft(strings.NewReplacer("\t", "", "\n", "", "\r", "").Replace(c.Input), "\x00\x01\x02\x03\x04\x05\x06\x07\x08\x0b\x0c\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f ")
	sch, _, found := strings.Cut(in, ":")
	hasScheme := found && sch != "" && isScheme(sch)
	web := strings.EqualFold(sch, "http") || strings.EqualFold(sch, "https")
	if c.Failure && hasScheme && !web {
		return "", "", false
	}
	if c.Base != nil {
		b, _, _ := strings.Cut(*c.Base, ":")
		b = strings.ToLower(b)
		if b != "http" && b != "https" {
			return "", "", false
		}
		return b, *c.Base, true
	}
	if !hasScheme {
		return "", "", false
	}
	if strings.EqualFold(sch, "http") {
		return "https", "", true
	}
	return "http", "", true
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

// Reasons of the differences the analyzer's and the crawl's paths share.
const (
	HTMLNUL     = "HTML parsing turns U+0000 in an attribute into U+FFFD before the URL is parsed, in browsers as in seokit"
	LibPunycode = "the URL parser (2023 snapshot of the Standard) refuses an xn-- label that does not decode, which the Standard now keeps; seokit reports the link as not parsing"
)

// Known lists the cases whose link differs from the URL a browser makes of
// the href on every path through seokit, with the reason.
func Known() map[string]string {
	return map[string]string{
		"\x00\x1b\x04\x12 http://example.com/\x1f \r ": HTMLNUL,
		"https://x/\x00y":             HTMLNUL,
		"https://x/?\x00y":            HTMLNUL,
		"http://a.b.c.xn--pokxncvks":  LibPunycode,
		"http://10.0.0.xn--pokxncvks": LibPunycode,
		"http://a.b.c.XN--pokxncvks":  LibPunycode,
		"http://a.b.c.Xn--pokxncvks":  LibPunycode,
		"http://10.0.0.XN--pokxncvks": LibPunycode,
		"http://10.0.0.xN--pokxncvks": LibPunycode,
		"https://xn--/":               LibPunycode,
	}
}
