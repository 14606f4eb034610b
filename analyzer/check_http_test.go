package analyzer

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/seokit/seokit/seo"
)

// httpAnalyzeResponse analyses a synthetic response: body from testdata/<fixture>
// when fixture ends in ".html", else fixture itself is the body.
func httpAnalyzeResponse(t *testing.T, resp *seo.Response, fixture string, opts *Options) *Report {
	t.Helper()
	if strings.HasSuffix(fixture, ".html") {
		b, err := os.ReadFile(filepath.Join("testdata", fixture))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body = b
	} else if fixture != "" {
		resp.Body = []byte(fixture)
	}
	if resp.URL == "" {
		resp.URL = "https://example.com/page"
	}
	if resp.RequestedURL == "" {
		resp.RequestedURL = resp.URL
	}
	if resp.Status == 0 {
		resp.Status = 200
	}
	if resp.Header == nil {
		resp.Header = http.Header{"Content-Type": {"text/html; charset=utf-8"}}
	}
	if resp.BodyBytes == 0 {
		resp.BodyBytes = int64(len(resp.Body))
	}
	resp.ContentType = resp.Header.Get("Content-Type")
	resp.ContentEncoding = resp.Header.Get("Content-Encoding")
	if opts == nil {
		opts = &Options{Depth: Complete}
	}
	rep, err := AnalyzeResponse(context.Background(), resp, opts)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func httpTestHeader(kv ...string) http.Header {
	h := http.Header{}
	for i := 0; i+1 < len(kv); i += 2 {
		h.Add(kv[i], kv[i+1])
	}
	return h
}

func TestHTTPChecks(t *testing.T) {
	t.Parallel()
	html := "<!DOCTYPE html><html><head><title>x</title></head><body><p>hello</p></body></html>"
	big := "<!DOCTYPE html><html><head><title>x</title></head><body><p>" + strings.Repeat("word ", 400) + "</p></body></html>"
	tests := []struct {
		name    string
		resp    seo.Response
		fixture string
		opts    *Options
		want    []string
		absent  []string
	}{
		{name: "plain 200", fixture: "http/plain.html",
			resp:   seo.Response{Header: httpTestHeader("Content-Type", "text/html", "ETag", `"v1"`)},
			absent: []string{"http.status_4xx", "http.status_5xx", "http.redirect", "http.redirect_temporary", "http.redirect_chain", "http.redirect_loop", "http.redirect_to_home", "http.meta_refresh", "http.content_type_wrong", "http.no_compression", "http.no_validators", "http.html_large", "http.html_too_large", "http.slow_ttfb"}},
		{name: "404", fixture: html, resp: seo.Response{Status: 404}, want: []string{"http.status_4xx"}, absent: []string{"http.status_5xx", "http.no_validators"}},
		{name: "503", fixture: html, resp: seo.Response{Status: 503}, want: []string{"http.status_5xx"}, absent: []string{"http.status_4xx"}},
		{name: "one permanent redirect", fixture: html,
			resp: seo.Response{RequestedURL: "http://example.com/page", URL: "https://example.com/page",
				Redirects: []seo.Redirect{{URL: "http://example.com/page", Status: 301, Location: "https://example.com/page"}}},
			want: []string{"http.redirect"}, absent: []string{"http.redirect_temporary", "http.redirect_chain", "http.redirect_loop", "http.redirect_to_home"}},
		{name: "temporary upgrade", fixture: html,
			resp: seo.Response{RequestedURL: "http://example.com/page", URL: "https://example.com/page",
				Redirects: []seo.Redirect{{URL: "http://example.com/page", Status: 302, Location: "https://example.com/page"}}},
			want: []string{"http.redirect", "http.redirect_temporary"}, absent: []string{"http.redirect_chain"}},
		{name: "chain of two", fixture: html,
			resp: seo.Response{RequestedURL: "http://example.com/a", URL: "https://www.example.com/b",
				Redirects: []seo.Redirect{
					{URL: "http://example.com/a", Status: 301, Location: "https://example.com/a"},
					{URL: "https://example.com/a", Status: 308, Location: "https://www.example.com/b"}}},
			want: []string{"http.redirect", "http.redirect_chain"}, absent: []string{"http.redirect_loop", "http.redirect_temporary"}},
		{name: "chain revisits a URL", fixture: html,
			resp: seo.Response{RequestedURL: "https://example.com/a", URL: "https://example.com/b",
				Redirects: []seo.Redirect{
					{URL: "https://example.com/a", Status: 301, Location: "https://example.com/login"},
					{URL: "https://example.com/login", Status: 301, Location: "https://example.com/a"},
					{URL: "https://example.com/a", Status: 301, Location: "https://example.com/b"}}},
			want: []string{"http.redirect_loop", "http.redirect_chain"}},
		{name: "chain too long", fixture: html,
			resp: func() seo.Response {
				var hops []seo.Redirect
				for i := range 11 {
					hops = append(hops, seo.Redirect{URL: "https://example.com/r" + string(rune('a'+i)), Status: 301})
				}
				return seo.Response{RequestedURL: hops[0].URL, URL: "https://example.com/end", Redirects: hops}
			}(),
			want: []string{"http.redirect_loop"}},
		{name: "redirect to home", fixture: html,
			resp: seo.Response{RequestedURL: "https://example.com/old-product", URL: "https://example.com/",
				Redirects: []seo.Redirect{{URL: "https://example.com/old-product", Status: 301, Location: "/"}}},
			want: []string{"http.redirect_to_home"}},
		{name: "index file to root is fine", fixture: html,
			resp: seo.Response{RequestedURL: "https://example.com/index.html", URL: "https://example.com/",
				Redirects: []seo.Redirect{{URL: "https://example.com/index.html", Status: 301, Location: "/"}}},
			want: []string{"http.redirect"}, absent: []string{"http.redirect_to_home"}},
		{name: "meta refresh elsewhere", fixture: "http/meta_refresh.html", want: []string{"http.meta_refresh"}},
		{name: "meta refresh reloads itself", fixture: "http/meta_refresh_self.html", absent: []string{"http.meta_refresh"}},
		{name: "refresh header", fixture: html, resp: seo.Response{Header: httpTestHeader("Content-Type", "text/html", "Refresh", "0;URL='https://example.com/other'")},
			want: []string{"http.meta_refresh"}},
		{name: "refresh header on an image", fixture: "\x89PNG\r\n\x1a\n", resp: seo.Response{URL: "https://example.com/a.png", Header: httpTestHeader("Content-Type", "image/png", "Refresh", "1; url=/b.png")},
			want: []string{"http.meta_refresh"}, absent: []string{"http.content_type_wrong", "http.no_validators"}},
		{name: "html as text/plain", fixture: html, resp: seo.Response{Header: httpTestHeader("Content-Type", "text/plain")}, want: []string{"http.content_type_wrong"}},
		{name: "html without content type", fixture: html, resp: seo.Response{Header: http.Header{}}, want: []string{"http.content_type_wrong"}},
		{name: "pdf url served as html", fixture: html, resp: seo.Response{URL: "https://example.com/report.pdf"}, want: []string{"http.content_type_wrong"}},
		{name: "missing pdf answers an html 404", fixture: html, resp: seo.Response{URL: "https://example.com/report.pdf", Status: 404},
			want: []string{"http.status_4xx"}, absent: []string{"http.content_type_wrong"}},
		{name: "pdf url served as pdf", fixture: "%PDF-1.7\n", resp: seo.Response{URL: "https://example.com/report.pdf", Header: httpTestHeader("Content-Type", "application/pdf")},
			absent: []string{"http.content_type_wrong"}},
		{name: "jpg url served as pdf", fixture: "%PDF-1.7\n", resp: seo.Response{URL: "https://example.com/photo.jpg", Header: httpTestHeader("Content-Type", "application/pdf")},
			want: []string{"http.content_type_wrong"}},
		{name: "uncompressed although offered", fixture: big,
			resp: seo.Response{AcceptedEncoding: "gzip, br", Header: httpTestHeader("Content-Type", "text/html", "Last-Modified", "Mon, 02 Jan 2006 15:04:05 GMT")},
			want: []string{"http.no_compression"}, absent: []string{"http.no_validators"}},
		{name: "compressed", fixture: big,
			resp: seo.Response{AcceptedEncoding: "gzip, br", Header: httpTestHeader("Content-Type", "text/html", "Content-Encoding", "br")}, absent: []string{"http.no_compression"}},
		{name: "compression not offered", fixture: big, absent: []string{"http.no_compression"}},
		{name: "small body uncompressed", fixture: html, resp: seo.Response{AcceptedEncoding: "gzip"}, absent: []string{"http.no_compression"}},
		{name: "no validators", fixture: html, want: []string{"http.no_validators"}},
		{name: "html large", fixture: html, resp: seo.Response{BodyBytes: 3_000_000}, want: []string{"http.html_large"}, absent: []string{"http.html_too_large"}},
		{name: "html too large", fixture: html, resp: seo.Response{BodyBytes: 16_000_000}, want: []string{"http.html_too_large"}, absent: []string{"http.html_large"}},
		{name: "truncated at cap", fixture: html, resp: seo.Response{BodyBytes: seo.DefaultMaxBodyBytes, Truncated: true}, want: []string{"http.html_too_large"}},
		{name: "slow ttfb", fixture: html, resp: seo.Response{Timings: seo.Timings{TTFB: 1200 * time.Millisecond}}, want: []string{"http.slow_ttfb"}},
		{name: "fast ttfb", fixture: html, resp: seo.Response{Timings: seo.Timings{TTFB: 300 * time.Millisecond}}, absent: []string{"http.slow_ttfb"}},
		{name: "custom ttfb threshold", fixture: html, resp: seo.Response{Timings: seo.Timings{TTFB: 300 * time.Millisecond}},
			opts: &Options{Depth: Basic, Thresholds: Thresholds{SlowTTFB: 200 * time.Millisecond}}, want: []string{"http.slow_ttfb"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp := tc.resp
			rep := httpAnalyzeResponse(t, &resp, tc.fixture, tc.opts)
			assertIDs(t, rep, tc.want, tc.absent)
		})
	}
}

func TestHTTPEvidence(t *testing.T) {
	t.Parallel()
	resp := seo.Response{RequestedURL: "http://example.com/a", URL: "https://example.com/c",
		Redirects: []seo.Redirect{
			{URL: "http://example.com/a", Status: 302, Location: "https://example.com/a"},
			{URL: "https://example.com/a", Status: 301, Location: "/c"}},
		Timings: seo.Timings{TTFB: 900 * time.Millisecond}}
	rep := httpAnalyzeResponse(t, &resp, "http/plain.html", nil)
	f := finding(rep, "http.redirect_chain")
	if f == nil || f.Evidence.Measured == nil || *f.Evidence.Measured != 2 || *f.Evidence.Threshold != 1 {
		t.Fatalf("redirect_chain evidence: %+v", f)
	}
	if got := strings.Join(f.Evidence.URLs, " "); got != "http://example.com/a https://example.com/a https://example.com/c" {
		t.Errorf("chain URLs = %q", got)
	}
	if f := finding(rep, "http.redirect_temporary"); f == nil || f.Evidence.Value != "302" {
		t.Errorf("redirect_temporary evidence: %+v", f)
	}
	if f := finding(rep, "http.slow_ttfb"); f == nil || *f.Evidence.Measured != 900 || *f.Evidence.Threshold != 800 {
		t.Errorf("slow_ttfb evidence: %+v", f)
	}
	if f := finding(rep, "http.redirect_chain"); f.Severity != seo.Warning || f.URL != "https://example.com/c" {
		t.Errorf("severity/url: %+v", f)
	}
}

// TestHTTPRefreshBase: a Refresh header is acted on as the document is
// created, before its <base> is parsed, so it resolves against the page's
// URL; a meta refresh resolves against the <base href>.
func TestHTTPRefreshBase(t *testing.T) {
	t.Parallel()
	doc := `<html><head><base href="https://example.com/other/"><title>t</title>%s</head></html>`
	tests := []struct{ name, meta, header, want string }{
		{"header", "", "0; url=next", "https://example.com/dir/next"},
		{"meta", `<meta http-equiv="refresh" content="0; url=next">`, "", "https://example.com/other/next"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{"Content-Type": {"text/html"}}
			if tc.header != "" {
				h.Set("Refresh", tc.header)
			}
			rep := analyzeString(t, fmt.Sprintf(doc, tc.meta), "https://example.com/dir/page", h, nil)
			f := finding(rep, "http.meta_refresh")
			if f == nil || len(f.Evidence.URLs) != 1 || f.Evidence.URLs[0] != tc.want {
				t.Errorf("http.meta_refresh: %+v; want it sending to %s", f, tc.want)
			}
		})
	}
}

// TestHTTPRefreshFirst: browsers act on the first valid refresh only (the
// header's, then the first <meta>'s), even one that reloads the page; an
// invalid value, or one whose URL does not parse, is ignored as if absent
// (https://html.spec.whatwg.org/multipage/semantics.html#shared-declarative-refresh-steps).
func TestHTTPRefreshFirst(t *testing.T) {
	t.Parallel()
	meta := func(c string) string { return `<meta http-equiv="refresh" content="` + c + `">` }
	tests := []struct{ name, header, metas, want string }{
		{"a reload first", "", meta("900") + meta("0; url=/next"), ""},
		{"a reload to the page's own URL first", "", meta("0; url=/dir/page#top") + meta("0; url=/next"), ""},
		{"the header's reload first", "60", meta("0; url=/next"), ""},
		{"an invalid value first", "", meta("soon") + meta("0; url=/next"), "https://example.com/next"},
		{"a URL that does not parse first", "", meta("0; url=http://exa mple.com/") + meta("0; url=/next"), "https://example.com/next"},
		{"the header first", "0; url=/from-header", meta("0; url=/next"), "https://example.com/from-header"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{"Content-Type": {"text/html"}}
			if tc.header != "" {
				h.Set("Refresh", tc.header)
			}
			rep := analyzeString(t, `<html><head><title>t</title>`+tc.metas+`</head></html>`, "https://example.com/dir/page", h, nil)
			f := finding(rep, "http.meta_refresh")
			switch {
			case tc.want == "" && f != nil:
				t.Errorf("http.meta_refresh %+v; want none", f)
			case tc.want != "" && (f == nil || f.Evidence.URLs[0] != tc.want):
				t.Errorf("http.meta_refresh %+v; want it sending to %s", f, tc.want)
			}
		})
	}
}

func TestHTTPRefreshTarget(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"5; url=/next", "/next", true},
		{"0;URL='https://x.test/a'", "https://x.test/a", true},
		{`3, "/q"`, "/q", true},
		{"10", "", true}, // reloads the page
		{"url=/x", "", false},
		{"0; /plain", "/plain", true},
		// The HTML Standard's shared declarative refresh steps
		// (https://html.spec.whatwg.org/multipage/semantics.html#shared-declarative-refresh-steps):
		// white space alone ends the time, as ';' or ',' does.
		{"0 url=/spaced", "/spaced", true},
		{"5\t/tab", "/tab", true},
		{"0 ; url = /both", "/both", true},
		{".5; url=/dot", "/dot", true},
		{"1.5.2;url=/dots", "/dots", true},
		{"\f 0;url=/ff", "/ff", true},
		// Anything else after the time makes the value invalid: no refresh.
		{"0x; url=/x", "", false},
		{"0url=/x", "", false},
		{"5 seconds", "seconds", true},
		// "url" without "=" is part of the URL; the quote is only taken
		// after "url=" or at the start.
		{"0; urlpage.html", "urlpage.html", true},
		{"0; url 'x'", "url 'x'", true},
		{"0; 'q.html'", "q.html", true},
		{`0; url="open`, "open", true},
		// White space that is not ASCII is part of the URL (the URL parser
		// percent-encodes it); C0 controls around it are trimmed.
		{"0; url=/a\u00a0", "/a\u00a0", true},
		{"0; url=", "", true},
		{"   ", "", false},
		{"", "", false},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, ok := httpRefreshTarget(tc.in)
			if got != tc.want || ok != tc.ok {
				t.Errorf("httpRefreshTarget(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
			}
		})
	}
}

func TestHTTPDeclaredIDs(t *testing.T) {
	t.Parallel()
	for _, id := range []string{"http.unreachable", "http.redirect_loop", "http.status_4xx", "http.slow_ttfb"} {
		in, ok := catalog[id]
		if !ok || in.Scope != seo.ScopePage || in.Summary == "" {
			t.Errorf("%s not declared properly: %+v", id, in)
		}
	}
	if catalog["http.unreachable"].Severity != seo.Error || catalog["http.redirect"].Severity != seo.Notice {
		t.Error("wrong severities")
	}
}

// httpFailingFetcher answers every fetch with its response and error.
type httpFailingFetcher struct {
	resp *seo.Response
	err  error
}

func (f httpFailingFetcher) Fetch(ctx context.Context, req *seo.Request) (*seo.Response, error) {
	return f.resp, f.err
}

func TestHTTPFailedFetch(t *testing.T) {
	t.Parallel()
	loop := &seo.Response{RequestedURL: "https://example.com/a", URL: "https://example.com/a",
		Redirects: []seo.Redirect{{URL: "https://example.com/a", Status: 301, Location: "/b"}, {URL: "https://example.com/b", Status: 301, Location: "/a"}}}
	ok := &seo.Response{RequestedURL: "https://example.com/a", URL: "https://example.com/a", Status: 200,
		Header: http.Header{"Content-Type": {"text/html"}}, Body: []byte("<title>fine</title>")}
	tests := []struct {
		name   string
		f      httpFailingFetcher
		want   []string
		absent []string
	}{
		{name: "connection refused", f: httpFailingFetcher{err: fmt.Errorf("seo: dial example.com:443: %w", syscall.ECONNREFUSED)},
			want: []string{"http.unreachable"}, absent: []string{"http.redirect_loop"}},
		{name: "redirect loop", f: httpFailingFetcher{resp: loop, err: fmt.Errorf("seo: fetch: %w", seo.ErrRedirectLoop)},
			want: []string{"http.redirect_loop"}, absent: []string{"http.unreachable"}},
		{name: "fetched", f: httpFailingFetcher{resp: ok}, absent: []string{"http.unreachable", "http.redirect_loop"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rep, err := Analyze(context.Background(), "https://example.com/a", &Options{Depth: Basic, Fetcher: tc.f})
			if err != nil {
				t.Fatal(err)
			}
			assertIDs(t, rep, tc.want, tc.absent)
			if f := finding(rep, "http.unreachable"); f != nil && (f.Severity != seo.Error || rep.Error == "") {
				t.Errorf("unreachable: %+v, Error %q", f, rep.Error)
			}
		})
	}
}
