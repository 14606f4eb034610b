package analyzer

import (
	"net/http"
	"testing"
)

var hreflangIDs = []string{"hreflang.invalid_code", "hreflang.relative_url", "hreflang.self_missing", "hreflang.x_default_missing",
	"hreflang.duplicate_code", "hreflang.url_multiple_languages", "hreflang.lang_mismatch", "hreflang.outside_head"}

func TestHreflangFixtures(t *testing.T) {
	t.Parallel()
	rep := analyzeFixture(t, "hreflang/good.html", "", nil, nil)
	assertIDs(t, rep, nil, hreflangIDs)
	want := []Alternate{{"en-GB", "https://example.com/page", "html"}, {"de", "https://example.com/de/page", "html"},
		{"zh-Hant-TW", "https://example.com/tw/page", "html"}, {"x-default", "https://example.com/page", "html"}}
	if len(rep.Hreflang) != len(want) {
		t.Fatalf("Hreflang = %+v", rep.Hreflang)
	}
	for i := range want {
		if rep.Hreflang[i] != want[i] {
			t.Errorf("Hreflang[%d] = %+v, want %+v", i, rep.Hreflang[i], want[i])
		}
	}

	// bad.html: en-uk is invalid, /de/page relative, de listed twice, /de/other
	// under de and es, no x-default, self is en but html lang fr, it in body.
	rep = analyzeFixture(t, "hreflang/bad.html", "", nil, nil)
	assertIDs(t, rep, []string{"hreflang.invalid_code", "hreflang.relative_url", "hreflang.x_default_missing",
		"hreflang.duplicate_code", "hreflang.url_multiple_languages", "hreflang.lang_mismatch", "hreflang.outside_head"},
		[]string{"hreflang.self_missing"})
	if f := finding(rep, "hreflang.invalid_code"); f == nil || f.Evidence.Value != "en-uk" {
		t.Errorf("invalid_code evidence = %+v", f)
	}
	if f := finding(rep, "hreflang.duplicate_code"); f == nil || len(f.Evidence.URLs) != 2 {
		t.Errorf("duplicate_code evidence = %+v", f)
	}
	if len(rep.Hreflang) != 4 {
		t.Errorf("the alternate outside head must not count: %+v", rep.Hreflang)
	}
}

func TestHreflangSelfViaCanonical(t *testing.T) {
	t.Parallel()
	doc := `<html lang="de"><head><title>t</title><link rel="canonical" href="https://example.com/de/page">
<link rel="alternate" hreflang="de" href="https://example.com/de/page"><link rel="alternate" hreflang="x-default" href="https://example.com/de/page">
</head><body></body></html>`
	rep := analyzeString(t, doc, "https://example.com/de/page?utm_source=x", nil, nil)
	assertIDs(t, rep, nil, []string{"hreflang.self_missing", "hreflang.lang_mismatch"})

	doc = `<html lang="de"><head><title>t</title>
<link rel="alternate" hreflang="de" href="https://example.com/de/page"><link rel="alternate" hreflang="x-default" href="https://example.com/de/page">
</head><body></body></html>`
	rep = analyzeString(t, doc, "https://example.com/fr/page", nil, nil)
	assertIDs(t, rep, []string{"hreflang.self_missing"}, []string{"hreflang.lang_mismatch"})
}

func TestHreflangHeader(t *testing.T) {
	t.Parallel()
	h := http.Header{"Content-Type": {"text/html"}, "Link": {
		`<https://example.com/page>; rel="alternate"; hreflang="en", <https://example.com/fr/page>; rel="alternate"; hreflang="fr"`,
		`<https://example.com/page>; rel="alternate"; hreflang="x-default"`}}
	rep := analyzeString(t, `<html lang="en"><head><title>t</title></head><body></body></html>`, "", h, nil)
	assertIDs(t, rep, nil, hreflangIDs)
	if len(rep.Hreflang) != 3 || rep.Hreflang[1] != (Alternate{"fr", "https://example.com/fr/page", "header"}) {
		t.Errorf("Hreflang = %+v", rep.Hreflang)
	}
}

func TestHreflangCodes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		code string
		want bool
	}{
		{"en", true}, {"en-US", true}, {"en-gb", true}, {"zh-Hans", true}, {"zh-Hant-TW", true}, {"x-default", true}, {"X-Default", true},
		{"en-uk", false}, {"gb", false}, {"eng", false}, {"en_US", false}, {"en-USA", false}, {"es-419", false},
		{"xx", false}, {"en-Xxxx", false}, {"en-US-x", false}, {"", false}, {"de-EU", false},
	}
	for _, tc := range tests {
		t.Run(tc.code, func(t *testing.T) {
			if got, why := hlValidCode(tc.code); got != tc.want {
				t.Errorf("hlValidCode(%q) = %v (%s), want %v", tc.code, got, why, tc.want)
			}
		})
	}
}
