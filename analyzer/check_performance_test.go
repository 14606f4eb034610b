package analyzer

import (
	"bytes"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/seokit/seokit/seo"
)

func TestPerformanceChecks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		fixture string
		opts    *Options
		want    []string
		absent  []string
	}{
		{name: "big DOM", fixture: "performance/big_dom.html", want: []string{"performance.dom_too_large"},
			absent: []string{"performance.render_blocking_scripts", "performance.inline_size", "performance.too_many_requests"}},
		{name: "big DOM under a raised threshold", fixture: "performance/big_dom.html",
			opts: &Options{Depth: Complete, Thresholds: Thresholds{MaxDOMElements: 2000}}, absent: []string{"performance.dom_too_large"}},
		{name: "three blocking scripts", fixture: "performance/blocking.html", want: []string{"performance.render_blocking_scripts"}},
		{name: "two blocking scripts", fixture: "performance/not_blocking.html", absent: []string{"performance.render_blocking_scripts"}},
		{name: "nomodule fallback does not block", fixture: "performance/nomodule.html", want: []string{"performance.render_blocking_scripts"}},
		{name: "inline over 100 KB", fixture: "performance/inline_large.html", want: []string{"performance.inline_size"}},
		{name: "inline over half the HTML", fixture: "performance/inline_half.html", want: []string{"performance.inline_size"}},
		{name: "small inline", fixture: "performance/inline_small.html", absent: []string{"performance.inline_size"}},
		{name: "101 subresources", fixture: "performance/many_requests.html", want: []string{"performance.too_many_requests"},
			absent: []string{"performance.dom_too_large"}},
		{name: "99 distinct subresources", fixture: "performance/some_requests.html", absent: []string{"performance.too_many_requests", "performance.inline_size"}},
		{name: "standard depth skips performance", fixture: "performance/big_dom.html", opts: &Options{Depth: Standard},
			absent: []string{"performance.dom_too_large"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rep := analyzeFixture(t, tc.fixture, "", nil, tc.opts)
			assertIDs(t, rep, tc.want, tc.absent)
		})
	}
}

func TestPerformanceEvidence(t *testing.T) {
	t.Parallel()
	rep := analyzeFixture(t, "performance/big_dom.html", "", nil, nil)
	// 760 li + 760 span + html, head, title, body, ul.
	if f := finding(rep, "performance.dom_too_large"); f == nil || *f.Evidence.Measured != 1525 || *f.Evidence.Threshold != 1500 {
		t.Errorf("dom_too_large evidence: %+v", f)
	}
	rep = analyzeFixture(t, "performance/nomodule.html", "", nil, nil)
	if f := finding(rep, "performance.render_blocking_scripts"); f == nil || *f.Evidence.Measured != 3 ||
		slices.Contains(f.Evidence.URLs, "https://example.com/js/polyfills.js") {
		t.Errorf("render_blocking_scripts with a nomodule script = %+v, want lib0, lib1 and legacy-widget", f)
	}
	rep = analyzeFixture(t, "performance/blocking.html", "", nil, nil)
	f := finding(rep, "performance.render_blocking_scripts")
	if f == nil || *f.Evidence.Measured != 3 || *f.Evidence.Threshold != 2 {
		t.Fatalf("render_blocking_scripts evidence: %+v", f)
	}
	if got := strings.Join(f.Evidence.URLs, " "); got != "https://example.com/js/lib0.js https://example.com/js/lib1.js https://example.com/js/lib2.js" {
		t.Errorf("blocking URLs = %q", got)
	}
	rep = analyzeFixture(t, "performance/many_requests.html", "", nil, nil)
	if f := finding(rep, "performance.too_many_requests"); f == nil || *f.Evidence.Measured != 101 {
		t.Errorf("too_many_requests evidence: %+v", f)
	}
	rep = analyzeFixture(t, "performance/inline_large.html", "", nil, nil)
	if f := finding(rep, "performance.inline_size"); f == nil || *f.Evidence.Measured <= 100000 || *f.Evidence.Threshold != 100000 {
		t.Errorf("inline_size evidence: %+v", f)
	}
}

// BenchmarkOwnChecks times the http, indexability, url, security and
// performance checks and extractors on one parsed page, to compare with
// BenchmarkOwnChecksParse (a bare html.Parse of the same bytes).
func BenchmarkOwnChecks(b *testing.B) {
	body := perfBenchBody()
	cfg, _ := newConfig(&Options{Depth: Complete})
	resp := &seo.Response{URL: "https://example.com/page", RequestedURL: "https://example.com/page", Status: 200,
		Header: http.Header{"Content-Type": {"text/html"}}, Body: body, BodyBytes: int64(len(body))}
	p := newPage(resp, cfg)
	fillResponseData(p.Report, resp, p.IsHTML)
	own := map[string]bool{"http": true, "indexability": true, "url": true, "security": true, "performance": true}
	var checks []Check
	for _, c := range builtinChecks {
		if own[c.Area] {
			checks = append(checks, c)
		}
	}
	b.SetBytes(int64(len(body)))
	b.ResetTimer()
	for range b.N {
		extractRobots(p)
		extractSecurity(p)
		r := newReporter(cfg, resp.URL)
		for _, c := range checks {
			c.Run(p, r)
		}
	}
}

func BenchmarkOwnChecksParse(b *testing.B) {
	body := perfBenchBody()
	b.SetBytes(int64(len(body)))
	for range b.N {
		if _, err := html.Parse(bytes.NewReader(body)); err != nil {
			b.Fatal(err)
		}
	}
}

func perfBenchBody() []byte {
	var sb strings.Builder
	sb.WriteString(`<!DOCTYPE html><html lang="en"><head><title>Bench</title><meta name="robots" content="index, follow">`)
	for i := range 5 {
		fmt.Fprintf(&sb, `<script src="http://cdn.example.net/%d.js"></script><style>.a%d{color:red}</style>`, i, i)
	}
	sb.WriteString(`</head><body>`)
	for i := range 2000 {
		q := "?page=2&sort=asc"
		if i%100 == 0 {
			q = "?utm_source=x"
		}
		fmt.Fprintf(&sb, `<div class="row"><p>Paragraph %d with some words in it.</p><a href="/p/%d%s">link %d</a><img src="/i/%d.png" alt="x"></div>`, i, i, q, i, i)
	}
	sb.WriteString(`<form action="/s"><input type="password"></form></body></html>`)
	return []byte(sb.String())
}
