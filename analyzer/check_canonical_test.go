package analyzer

import (
	"net/http"
	"testing"
)

func canonDoc(head string) string {
	return `<!DOCTYPE html><html lang="en"><head><title>Canonical test</title>` + head + `</head><body><p>Text</p></body></html>`
}

var canonicalIDs = []string{"canonical.missing", "canonical.conflicting", "canonical.relative", "canonical.invalid",
	"canonical.has_fragment", "canonical.outside_head", "canonical.other_host", "canonical.other_scheme",
	"canonical.to_homepage", "canonical.to_hreflang_alternate", "canonical.points_elsewhere"}

func TestCanonicalChecks(t *testing.T) {
	t.Parallel()
	html := http.Header{"Content-Type": {"text/html"}}
	tests := []struct {
		name, doc, url string
		header         http.Header
		want           []string
	}{
		{name: "self", doc: canonDoc(`<link rel="canonical" href="https://example.com/page">`)},
		{name: "self normalised", doc: canonDoc(`<link rel="canonical" href="HTTPS://Example.com:443/page">`)},
		{name: "missing", doc: canonDoc(``), want: []string{"canonical.missing"}},
		{name: "missing but noindex", doc: canonDoc(`<meta name="robots" content="noindex">`)},
		{name: "header only", doc: canonDoc(``), header: http.Header{"Content-Type": {"text/html"}, "Link": {`<https://example.com/page>; rel="canonical"`}}},
		{name: "conflicting html", doc: canonDoc(`<link rel="canonical" href="https://example.com/page"><link rel="canonical" href="https://example.com/other">`),
			want: []string{"canonical.conflicting"}},
		{name: "conflicting html and header", doc: canonDoc(`<link rel="canonical" href="https://example.com/page">`),
			header: http.Header{"Content-Type": {"text/html"}, "Link": {`<https://example.com/b>; rel=canonical`}}, want: []string{"canonical.conflicting"}},
		{name: "same in html and header", doc: canonDoc(`<link rel="canonical" href="https://example.com/page">`),
			header: http.Header{"Content-Type": {"text/html"}, "Link": {`</page>; rel="canonical"`}}, want: []string{"canonical.relative"}},
		{name: "relative", doc: canonDoc(`<link rel="canonical" href="/page">`), want: []string{"canonical.relative"}},
		{name: "empty", doc: canonDoc(`<link rel="canonical" href="">`), want: []string{"canonical.invalid"}},
		{name: "ftp", doc: canonDoc(`<link rel="canonical" href="ftp://example.com/page">`), want: []string{"canonical.invalid"}},
		{name: "fragment", doc: canonDoc(`<link rel="canonical" href="https://example.com/page#top">`), want: []string{"canonical.has_fragment"}},
		{name: "other host", doc: canonDoc(`<link rel="canonical" href="https://other.org/page">`), want: []string{"canonical.other_host", "canonical.points_elsewhere"}},
		{name: "www is same host", doc: canonDoc(`<link rel="canonical" href="https://www.example.com/page">`), want: []string{"canonical.points_elsewhere"}},
		{name: "other scheme", doc: canonDoc(`<link rel="canonical" href="http://example.com/page">`), want: []string{"canonical.other_scheme", "canonical.points_elsewhere"}},
		{name: "to homepage", doc: canonDoc(`<link rel="canonical" href="https://example.com/">`), want: []string{"canonical.to_homepage", "canonical.points_elsewhere"}},
		{name: "root to itself", url: "https://example.com/", doc: canonDoc(`<link rel="canonical" href="https://example.com/">`)},
		{name: "elsewhere", doc: canonDoc(`<link rel="canonical" href="https://example.com/other">`), want: []string{"canonical.points_elsewhere"}},
		{name: "to hreflang alternate", doc: canonDoc(`<link rel="canonical" href="https://example.com/de/page">` +
			`<link rel="alternate" hreflang="en" href="https://example.com/page"><link rel="alternate" hreflang="de" href="https://example.com/de/page">`),
			want: []string{"canonical.to_hreflang_alternate", "canonical.points_elsewhere"}},
		{name: "parameterised copy to alternate", url: "https://example.com/page?ref=1", doc: canonDoc(`<link rel="canonical" href="https://example.com/page">` +
			`<link rel="alternate" hreflang="en" href="https://example.com/page"><link rel="alternate" hreflang="de" href="https://example.com/de/page">`),
			want: []string{"canonical.points_elsewhere"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := tc.header
			if h == nil {
				h = html
			}
			rep := analyzeString(t, tc.doc, tc.url, h, nil)
			var absent []string
			for _, id := range canonicalIDs {
				if !lkContains(tc.want, id) {
					absent = append(absent, id)
				}
			}
			assertIDs(t, rep, tc.want, absent)
		})
	}
}

func TestCanonicalFixtures(t *testing.T) {
	t.Parallel()
	rep := analyzeFixture(t, "canonical/good.html", "", nil, nil)
	assertIDs(t, rep, nil, canonicalIDs)
	if len(rep.Canonical) != 1 || rep.Canonical[0] != (Canonical{URL: "https://example.com/page", Source: "html"}) {
		t.Errorf("Canonical = %+v", rep.Canonical)
	}
	rep = analyzeFixture(t, "canonical/outside_head.html", "", nil, nil)
	assertIDs(t, rep, []string{"canonical.outside_head"}, []string{"canonical.missing"})
	if len(rep.Canonical) != 0 {
		t.Errorf("a canonical outside head must not count: %+v", rep.Canonical)
	}
}

func TestCanonicalPageData(t *testing.T) {
	t.Parallel()
	h := http.Header{"Content-Type": {"text/html"}, "Link": {`</style.css>; rel=preload; as=style, <https://example.com/c>; rel="canonical"`}}
	rep := analyzeString(t, canonDoc(`<link rel="canonical" href="/page">`), "", h, nil)
	want := []Canonical{{"https://example.com/page", "html"}, {"https://example.com/c", "header"}}
	if len(rep.Canonical) != 2 || rep.Canonical[0] != want[0] || rep.Canonical[1] != want[1] {
		t.Errorf("Canonical = %+v, want %+v", rep.Canonical, want)
	}
}

func TestCanonicalLinkHeaderParsing(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		values []string
		want   []headerLink
	}{
		{"single", []string{`<https://a.example/>; rel="canonical"`}, []headerLink{{"https://a.example/", map[string]string{"rel": "canonical"}}}},
		{"several in one", []string{`<https://a/>; rel=alternate; hreflang=de, <https://b/>; rel="canonical"`},
			[]headerLink{{"https://a/", map[string]string{"rel": "alternate", "hreflang": "de"}}, {"https://b/", map[string]string{"rel": "canonical"}}}},
		{"quoted comma and escape", []string{`<https://a/>; title="a, \"b\"; c"; rel="next canonical"`},
			[]headerLink{{"https://a/", map[string]string{"title": `a, "b"; c`, "rel": "next canonical"}}}},
		{"first rel wins", []string{`<https://a/>; rel=canonical; REL=next`}, []headerLink{{"https://a/", map[string]string{"rel": "canonical"}}}},
		{"several headers", []string{`<https://a/>; rel=x`, `<https://b/>;rel=y`},
			[]headerLink{{"https://a/", map[string]string{"rel": "x"}}, {"https://b/", map[string]string{"rel": "y"}}}},
		{"garbage skipped", []string{`junk, <https://a/>; rel=x`}, []headerLink{{"https://a/", map[string]string{"rel": "x"}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := cnParseLinkHeaders(tc.values)
			if len(got) != len(tc.want) {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
			for i := range got {
				if got[i].Target != tc.want[i].Target || len(got[i].Params) != len(tc.want[i].Params) {
					t.Errorf("link %d = %+v, want %+v", i, got[i], tc.want[i])
				}
				for k, v := range tc.want[i].Params {
					if got[i].Params[k] != v {
						t.Errorf("link %d param %s = %q, want %q", i, k, got[i].Params[k], v)
					}
				}
			}
		})
	}
}
