package analyzer

import (
	"net/http"
	"strings"
	"testing"

	"github.com/seokit/seokit/seo"
)

func TestURLChecks(t *testing.T) {
	t.Parallel()
	doc := `<!DOCTYPE html><html lang="en"><head><title>x</title></head><body><p>text</p></body></html>`
	allURL := []string{"url.uppercase", "url.underscore", "url.space", "url.non_ascii", "url.multiple_slashes", "url.too_long",
		"url.too_many_params", "url.session_id", "url.repetitive_path", "url.internal_search"}
	tests := []struct {
		name   string
		url    string
		doc    string
		header http.Header
		want   []string
		absent []string
	}{
		{name: "clean", url: "https://example.com/shop/red-shoes?page=2", absent: allURL},
		{name: "uppercase", url: "https://example.com/Shop/Shoes", want: []string{"url.uppercase"}, absent: []string{"url.underscore"}},
		{name: "uppercase host only", url: "https://EXAMPLE.com/shop", absent: []string{"url.uppercase"}},
		{name: "percent hex is not uppercase", url: "https://example.com/a%2Fb", absent: []string{"url.uppercase"}},
		{name: "underscore", url: "https://example.com/red_shoes", want: []string{"url.underscore"}},
		{name: "underscore in query only", url: "https://example.com/shoes?sort_by=x", absent: []string{"url.underscore"}},
		{name: "encoded space", url: "https://example.com/red%20shoes", want: []string{"url.space"}},
		{name: "space in query", url: "https://example.com/shoes?c=a%20b", want: []string{"url.space"}},
		{name: "non-ascii encoded", url: "https://example.com/caf%C3%A9", want: []string{"url.non_ascii"}},
		{name: "non-ascii raw", url: "https://example.com/straße", want: []string{"url.non_ascii"}},
		{name: "idn host is fine", url: "https://xn--mnchen-3ya.de/stadt", absent: []string{"url.non_ascii"}},
		{name: "double slash", url: "https://example.com/shop//shoes", want: []string{"url.multiple_slashes"}},
		{name: "too long", url: "https://example.com/" + strings.Repeat("a", 100), want: []string{"url.too_long"}},
		{name: "exactly at the limit", url: "https://example.com/" + strings.Repeat("a", 115-len("https://example.com/")), absent: []string{"url.too_long"}},
		{name: "too many params", url: "https://example.com/p?a=1&b=2&c=3&d=4", want: []string{"url.too_many_params"}},
		{name: "three params", url: "https://example.com/p?a=1&b=2&c=3", absent: []string{"url.too_many_params"}},
		{name: "session param", url: "https://example.com/p?PHPSESSID=abc123", want: []string{"url.session_id"}},
		{name: "jsessionid path param", url: "https://example.com/cart;jsessionid=AB12CD", want: []string{"url.session_id"}},
		{name: "side is not sid", url: "https://example.com/p?side=left", absent: []string{"url.session_id"}},
		{name: "repeated segment", url: "https://example.com/shop/shop/shoes", want: []string{"url.repetitive_path"}},
		{name: "repeated pair", url: "https://example.com/a/b/a/b/", want: []string{"url.repetitive_path"}},
		{name: "non-adjacent repeat", url: "https://example.com/a/b/c/a", absent: []string{"url.repetitive_path"}},
		{name: "search path", url: "https://example.com/search/shoes", want: []string{"url.internal_search"}},
		{name: "search query", url: "https://example.com/?s=shoes", want: []string{"url.internal_search"}},
		{name: "noindex search page", url: "https://example.com/?q=shoes",
			doc: `<html><head><meta name="robots" content="noindex"></head><body>x</body></html>`, absent: []string{"url.internal_search"}},
		{name: "non-html document", url: "https://example.com/Files/Price_List.pdf", doc: "%PDF-1.4\n",
			header: http.Header{"Content-Type": {"application/pdf"}}, want: []string{"url.uppercase", "url.underscore"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := tc.doc
			if d == "" {
				d = doc
			}
			resp := seo.Response{URL: tc.url, RequestedURL: tc.url, Header: tc.header}
			rep := httpAnalyzeResponse(t, &resp, d, nil)
			assertIDs(t, rep, tc.want, tc.absent)
		})
	}
}

func TestURLRequestedAndFinal(t *testing.T) {
	t.Parallel()
	resp := seo.Response{RequestedURL: "https://example.com/Old_Page", URL: "https://example.com/new-page",
		Redirects: []seo.Redirect{{URL: "https://example.com/Old_Page", Status: 301, Location: "/new-page"}}}
	rep := httpAnalyzeResponse(t, &resp, "http/plain.html", nil)
	f := finding(rep, "url.underscore")
	if f == nil || f.Evidence.Value != "https://example.com/Old_Page" {
		t.Fatalf("underscore on the requested URL: %+v", f)
	}
	resp = seo.Response{RequestedURL: "https://example.com/old", URL: "https://example.com/New_Page",
		Redirects: []seo.Redirect{{URL: "https://example.com/old", Status: 301, Location: "/New_Page"}}}
	rep = httpAnalyzeResponse(t, &resp, "http/plain.html", nil)
	if f := finding(rep, "url.uppercase"); f == nil || f.Evidence.Value != "https://example.com/New_Page" {
		t.Fatalf("uppercase on the final URL: %+v", f)
	}
	long := "https://example.com/" + strings.Repeat("x", 130)
	rep = analyzeString(t, "<p>x</p>", long, nil, nil)
	if f := finding(rep, "url.too_long"); f == nil || *f.Evidence.Measured != float64(len(long)) || *f.Evidence.Threshold != 115 {
		t.Errorf("too_long evidence: %+v", f)
	}
}

func TestURLTrackingLinks(t *testing.T) {
	t.Parallel()
	rep := analyzeFixture(t, "url/tracking.html", "", nil, nil)
	var got []string
	for _, ev := range evidence(rep, "url.tracking_params_internal") {
		got = append(got, ev.URLs[0])
	}
	want := []string{"https://example.com/offers?utm_source=newsletter&utm_medium=email", "https://example.com/shoes?gclid=abc123"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("tracking findings = %v, want %v", got, want)
	}
	rep = analyzeFixture(t, "url/clean_links.html", "", nil, nil)
	assertIDs(t, rep, nil, []string{"url.tracking_params_internal"})
	rep = analyzeFixture(t, "url/tracking.html", "", nil, &Options{Depth: Basic})
	assertIDs(t, rep, nil, []string{"url.tracking_params_internal"})
}
