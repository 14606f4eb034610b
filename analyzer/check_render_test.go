package analyzer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/seokit/seokit/render"
	"github.com/seokit/seokit/seo"
)

// fakeRenderer returns canned HTML and facts, or an error, and records the
// requests it got.
type fakeRenderer struct {
	html []byte
	res  render.Result
	err  error

	mu   sync.Mutex
	reqs []render.Request
}

func (f *fakeRenderer) Render(ctx context.Context, req *render.Request) (*render.Result, error) {
	f.mu.Lock()
	f.reqs = append(f.reqs, *req)
	f.mu.Unlock()
	if f.err != nil {
		return nil, f.err
	}
	res := f.res
	res.URL, res.FinalURL, res.HTML = req.URL, req.URL, f.html
	return &res, nil
}

// readFixture reads a file under testdata.
func readFixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// renderIDs lists every ID of an area of the catalogue.
func areaIDs(area string) []string {
	var ids []string
	for _, c := range Catalog() {
		if seo.AreaOf(c.ID) == area {
			ids = append(ids, c.ID)
		}
	}
	return ids
}

// analyzeRendered analyses the raw fixture with rendering always on and a
// fake renderer returning the rendered fixture (and the Result of the JSON
// fixture, when named).
func analyzeRendered(t *testing.T, raw, rendered, result string, opts *Options) (*Report, *fakeRenderer) {
	t.Helper()
	f := &fakeRenderer{html: readFixture(t, filepath.Join("render", rendered))}
	if result != "" {
		if err := json.Unmarshal(readFixture(t, filepath.Join("render", result)), &f.res); err != nil {
			t.Fatal(err)
		}
	}
	if opts == nil {
		opts = &Options{Depth: Complete}
	}
	if opts.Render == "" {
		opts.Render = render.Always
	}
	opts.Renderer = f
	return analyzeString(t, string(readFixture(t, filepath.Join("render", raw))), "", nil, opts), f
}

func TestRenderChecks(t *testing.T) {
	t.Parallel()
	all := areaIDs("render")
	tests := []struct {
		name, raw, rendered, result string
		want                        []string
	}{
		{"same page", "base.html", "base.html", "", nil},
		{"single-page application", "spa.raw.html", "spa.rendered.html", "", []string{
			"render.title_only_rendered", "render.description_only_rendered", "render.h1_only_rendered",
			"render.canonical_only_rendered", "render.hreflang_only_rendered", "render.structured_data_only_rendered",
			"render.links_only_rendered", "render.word_count_changed"}},
		{"javascript changes every field", "base.html", "changed.rendered.html", "", []string{
			"render.title_changed", "render.description_changed", "render.h1_changed", "render.canonical_mismatch",
			"render.robots_changed", "render.hreflang_changed", "render.structured_data_changed"}},
		{"raw noindex removed", "noindex.raw.html", "norobots.html", "", []string{"render.noindex_removed"}},
		{"noindex added", "norobots.html", "noindex_added.rendered.html", "", []string{"render.noindex_added"}},
		{"robots tag only rendered", "norobots.html", "robots_added.rendered.html", "", []string{"render.robots_only_rendered"}},
		{"errors, resources, timeout", "base.html", "base.html", "problems.json", []string{
			"render.js_errors", "render.console_errors", "render.resources_failed", "render.resources_blocked", "render.timed_out"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rep, _ := analyzeRendered(t, tc.raw, tc.rendered, tc.result, nil)
			if rep.Render == nil || !rep.Render.Rendered || rep.Render.Reason != "always" {
				t.Fatalf("Render = %+v, want rendered always", rep.Render)
			}
			assertIDs(t, rep, tc.want, without(all, tc.want...))
		})
	}
}

func TestRenderSPAReport(t *testing.T) {
	t.Parallel()
	raw := analyzeString(t, string(readFixture(t, "render/spa.raw.html")), "", nil, nil)
	assertIDs(t, raw, []string{"title.missing", "canonical.missing", "content.js_shell"}, nil)
	if raw.Render != nil {
		t.Errorf("raw analysis has Render = %+v, want nil", raw.Render)
	}

	rep, f := analyzeRendered(t, "spa.raw.html", "spa.rendered.html", "", &Options{Depth: Complete, Render: render.Auto})
	rr := rep.Render
	if rr == nil || !rr.Rendered || rr.Reason != "empty #root mount and 0 words of text" || rr.Mode != render.Auto {
		t.Fatalf("Render = %+v, want rendered in auto mode for its empty #root", rr)
	}
	assertIDs(t, rep, []string{"render.title_only_rendered"}, []string{"title.missing", "canonical.missing", "content.js_shell"})
	if rep.Title == nil || !strings.HasPrefix(rep.Title.Text, "Harbour plan") || len(rep.StructuredData) != 1 || rep.Links.Internal != 2 {
		t.Errorf("rendered page data: title %+v, %d structured items, %d internal links", rep.Title, len(rep.StructuredData), rep.Links.Internal)
	}
	if rr.Words == nil || rr.Words.Raw != 0 || rr.Words.Rendered < 100 {
		t.Errorf("Words = %+v, want 0 raw and over 100 rendered", rr.Words)
	}
	if l := rr.LinksOnlyRendered; l == nil || l.Count != 3 || len(l.Examples) != 3 || l.Examples[0] != "https://example.com/news/harbour" {
		t.Errorf("LinksOnlyRendered = %+v, want 3 targets", l)
	}
	var fields []string
	for _, c := range rr.Changes {
		fields = append(fields, c.Field)
	}
	if got := strings.Join(fields, ","); got != "title,description,h1,canonical,hreflang,structuredData,wordCount,links" {
		t.Errorf("changed fields = %s", got)
	}
	if c := rr.Changes[0]; c.Raw != "" || !strings.HasPrefix(c.Rendered, "Harbour plan") {
		t.Errorf("title change = %+v", c)
	}
	if rr.Vitals != nil || rr.VitalsReason != "not measured" {
		t.Errorf("Vitals = %+v, %q; want null, not measured", rr.Vitals, rr.VitalsReason)
	}
	if len(f.reqs) != 1 || f.reqs[0].URL != "https://example.com/page" {
		t.Errorf("render requests = %+v", f.reqs)
	}
}

func TestRenderNoindexKeepsRawVerdict(t *testing.T) {
	t.Parallel()
	rep, _ := analyzeRendered(t, "noindex.raw.html", "norobots.html", "", nil)
	if rep.Robots.Indexable {
		t.Error("Robots.Indexable = true; the raw noindex must stand")
	}
	f := finding(rep, "render.noindex_removed")
	if f == nil || f.Severity != seo.Error || f.Evidence.Detail != "raw HTML: meta:robots=noindex" {
		t.Errorf("noindex_removed = %+v", f)
	}
}

func TestRenderEvidence(t *testing.T) {
	t.Parallel()
	rep, _ := analyzeRendered(t, "base.html", "changed.rendered.html", "", nil)
	f := finding(rep, "render.canonical_mismatch")
	if f == nil || f.Severity != seo.Error || f.Evidence.Value != "https://example.com/other" || f.Evidence.Detail != "raw HTML: https://example.com/page" {
		t.Errorf("canonical_mismatch = %+v", f)
	}
	rep, _ = analyzeRendered(t, "base.html", "base.html", "problems.json", nil)
	rr := rep.Render
	if len(rr.Resources) != 5 || rr.Resources[0].URL != "https://example.com/api/data.json" {
		t.Errorf("Resources = %+v, want the 5 that did not succeed", rr.Resources)
	}
	if f := finding(rep, "render.js_errors"); f == nil || f.Count != 2 || f.Evidence.Element != "https://example.com/static/app.js:12:7" ||
		!strings.Contains(f.Evidence.Detail, "3 more") {
		t.Errorf("js_errors = %+v", f)
	}
	if f := finding(rep, "render.resources_failed"); f == nil || f.Count != 4 {
		t.Errorf("resources_failed = %+v, want 4 (status 500, failed, address, budget)", f)
	}
	if f := finding(rep, "render.resources_blocked"); f == nil || f.Evidence.Value != "https://example.com/private/tracker.js" {
		t.Errorf("resources_blocked = %+v", f)
	}
	if rr.Vitals != nil || rr.VitalsReason != "the page did not paint before the budget ended" || !rr.TimedOut {
		t.Errorf("Vitals = %+v, %q, TimedOut %v", rr.Vitals, rr.VitalsReason, rr.TimedOut)
	}
	// Capped resources say how many were left out.
	rep, _ = analyzeRendered(t, "base.html", "base.html", "problems.json", &Options{Depth: Complete, MaxListItems: 2})
	if rr := rep.Render; len(rr.Resources) != 2 || rr.ResourcesOmitted != 3 {
		t.Errorf("capped Resources = %d, omitted %d; want 2 and 3", len(rr.Resources), rr.ResourcesOmitted)
	}
}

func TestRenderHonestStates(t *testing.T) {
	t.Parallel()
	// Auto on a static page: not rendered, and said so.
	rep, f := analyzeRendered(t, "base.html", "base.html", "", &Options{Depth: Complete, Render: render.Auto})
	if rr := rep.Render; rr == nil || rr.Rendered || rr.Reason != "not an application shell" || rr.Changes != nil || rr.Vitals != nil ||
		rr.VitalsReason != "not rendered" || len(f.reqs) != 0 {
		t.Errorf("Render = %+v after %d renderings, want not rendered", rr, len(f.reqs))
	}
	b, err := json.Marshal(rep.Render)
	if err != nil {
		t.Fatal(err)
	}
	if s := string(b); !strings.Contains(s, `"vitals":null`) || !strings.Contains(s, `"words":null`) || strings.Contains(s, "screenshot") {
		t.Errorf("JSON of an unrendered page = %s", s)
	}
	// A failed rendering leaves the raw analysis with render.failed.
	fail := &fakeRenderer{err: errors.New("chromium: navigation: net::ERR_CONNECTION_RESET")}
	rep = analyzeString(t, string(readFixture(t, "render/spa.raw.html")), "", nil, &Options{Depth: Complete, Render: render.Always, Renderer: fail})
	if rr := rep.Render; rr == nil || rr.Rendered || rr.Reason != "failed: chromium: navigation: net::ERR_CONNECTION_RESET" {
		t.Errorf("Render = %+v, want failed", rr)
	}
	assertIDs(t, rep, []string{"render.failed", "title.missing", "content.js_shell"}, nil)
	// A page the renderer stopped at its memory limit is not rendered,
	// with that reason and no render.failed.
	oom := &fakeRenderer{err: fmt.Errorf("render: https://example.com/: the page was stopped: %w", render.ErrMemoryLimit)}
	rep = analyzeString(t, string(readFixture(t, "render/spa.raw.html")), "", nil, &Options{Depth: Complete, Render: render.Always, Renderer: oom})
	if rr := rep.Render; rr == nil || rr.Rendered || rr.Reason != "not rendered: memory limit" {
		t.Errorf("Render = %+v, want not rendered: memory limit", rr)
	}
	assertIDs(t, rep, []string{"title.missing", "content.js_shell"}, []string{"render.failed"})
	// Not HTML and error statuses are not rendered.
	resp := &seo.Response{URL: "https://example.com/a.pdf", Status: 200, Header: http.Header{"Content-Type": {"application/pdf"}}, ContentType: "application/pdf", Body: []byte("%PDF-1.4")}
	rep, err = AnalyzeResponse(context.Background(), resp, &Options{Render: render.Always, Renderer: fail})
	if err != nil || rep.Render == nil || rep.Render.Reason != "not HTML" {
		t.Errorf("PDF: Render = %+v, %v", rep.Render, err)
	}
	resp = &seo.Response{URL: "https://example.com/gone", Status: 404, Header: http.Header{"Content-Type": {"text/html"}}, Body: readFixture(t, "render/base.html")}
	rep, err = AnalyzeResponse(context.Background(), resp, &Options{Render: render.Always, Renderer: fail})
	if err != nil || rep.Render == nil || rep.Render.Reason != "status 404" {
		t.Errorf("404: Render = %+v, %v", rep.Render, err)
	}
	// Rendering off: no render section at all.
	rep = analyzeString(t, string(readFixture(t, "render/base.html")), "", nil, nil)
	if b, _ := json.Marshal(rep); strings.Contains(string(b), `"render"`) {
		t.Error("report without rendering has a render key")
	}
}

func TestRenderOptions(t *testing.T) {
	t.Parallel()
	body := readFixture(t, "render/base.html")
	_, err := AnalyzeHTML(context.Background(), "https://example.com/", nil, body, &Options{Render: render.Always})
	if !errors.Is(err, render.ErrUnavailable) || !errors.Is(err, seo.ErrUnavailable) || !strings.Contains(err.Error(), "Options.Renderer") {
		t.Errorf("nil Renderer: err = %v, want render.ErrUnavailable naming Options.Renderer", err)
	}
	_, err = AnalyzeHTML(context.Background(), "https://example.com/", nil, body, &Options{Render: "sometimes", Renderer: &fakeRenderer{}})
	var ie *seo.InputError
	if !errors.As(err, &ie) || ie.Field != "render" {
		t.Errorf("bad mode: err = %v, want an input error on render", err)
	}
	// Disable and Mute take the new areas.
	rep, _ := analyzeRendered(t, "spa.raw.html", "spa.rendered.html", "", &Options{Depth: Complete, Disable: []string{"render"}})
	assertIDs(t, rep, nil, areaIDs("render"))
	rep, _ = analyzeRendered(t, "base.html", "base.html", "problems.json", &Options{Depth: Complete, Mute: []string{"render.js_errors"}})
	if len(rep.Muted) != 1 || rep.Muted[0].ID != "render.js_errors" || rep.Muted[0].Count != 2 {
		t.Errorf("Muted = %+v", rep.Muted)
	}
	// The request template is kept; URL and Allowed are the analyzer's.
	robots := robotsFunc(func(u, ua string) (bool, bool) { return !strings.Contains(u, "/private/"), true })
	f := &fakeRenderer{html: body}
	_, err = AnalyzeHTML(context.Background(), "https://example.com/x", nil, body, &Options{Render: render.Always, Renderer: f, Robots: robots,
		RenderRequest: render.Request{Device: render.Desktop, Screenshot: render.Viewport, URL: "https://ignored.example/"}})
	if err != nil {
		t.Fatal(err)
	}
	req := f.reqs[0]
	if req.URL != "https://example.com/x" || req.Device != render.Desktop || req.Screenshot != render.Viewport || req.Allowed == nil {
		t.Fatalf("request = %+v", req)
	}
	if !req.Allowed(&url.URL{Scheme: "https", Host: "example.com", Path: "/app.js"}) || req.Allowed(&url.URL{Scheme: "https", Host: "example.com", Path: "/private/t.js"}) {
		t.Error("Allowed does not follow the robots policy")
	}
}

// robotsFunc is a RobotsPolicy of a function.
type robotsFunc func(rawURL, ua string) (bool, bool)

func (f robotsFunc) Allowed(_ context.Context, rawURL, ua string) (bool, bool) { return f(rawURL, ua) }

func TestLooksLikeAppShell(t *testing.T) {
	t.Parallel()
	words := strings.Repeat("word ", 60)
	tests := []struct {
		name, body string
		want       bool
		reason     string
	}{
		{"empty root", `<div id="root"></div><script src="/a.js"></script>`, true, "empty #root mount and 0 words of text"},
		{"next mount", `<p>Loading</p><div id="__next"> </div><script src="/a.js"></script>`, true, "empty #__next mount and 1 word of text"},
		{"angular", `<app-root></app-root><script src="/main.js"></script>`, true, "empty app-root mount and 0 words of text"},
		{"ng-version", `<my-app ng-version="17.0.0"></my-app><script src="/main.js"></script>`, true, "empty [ng-version] mount and 0 words of text"},
		{"noscript", `<noscript>You need to enable JavaScript to run this app.</noscript><main><span>Hi</span></main><script src="/a.js"></script>`, true, "<noscript> asks for JavaScript and 1 word of text"},
		{"inline bundle", `<main><p>Hi there</p></main><script>` + strings.Repeat("var a=1;", 100) + `</script>`, true, "800 bytes of inline script and 2 words of text"},
		{"no script", `<div id="root"></div>`, false, "not an application shell"},
		{"enough text", `<div id="root"></div><p>` + words + `</p><script src="/a.js"></script>`, false, "not an application shell"},
		{"short static page", `<main><h1>Contact</h1><p>Call us on 0123.</p></main><script src="/analytics.js"></script>`, false, "not an application shell"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg, _ := newConfig(nil)
			doc := "<!DOCTYPE html><html><head><title>t</title></head><body>" + tc.body + "</body></html>"
			p := newPage(&seo.Response{URL: "https://example.com/", Status: 200, Header: http.Header{"Content-Type": {"text/html"}}, Body: []byte(doc)}, cfg)
			got, reason := LooksLikeAppShell(p)
			if got != tc.want || reason != tc.reason {
				t.Errorf("LooksLikeAppShell = %v, %q; want %v, %q", got, reason, tc.want, tc.reason)
			}
		})
	}
	if ok, reason := LooksLikeAppShell(nil); ok || reason != "not HTML" {
		t.Errorf("nil page: %v, %q", ok, reason)
	}
}

// TestLooksLikeAppShellCorpus counts the saved pages the Auto rule would
// render; they are server-rendered sites, so few should be flagged.
func TestLooksLikeAppShellCorpus(t *testing.T) {
	t.Parallel()
	dir := os.Getenv("SEOKIT_CORPUS")
	if dir == "" {
		t.Skip("SEOKIT_CORPUS not set: no saved pages")
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.html"))
	if err != nil || len(files) == 0 {
		t.Skipf("no pages in %s", dir)
	}
	cfg, _ := newConfig(nil)
	var flagged []string
	for _, name := range files {
		body, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		p := newPage(&seo.Response{URL: "https://example.com/", Status: 200, Header: http.Header{"Content-Type": {"text/html"}}, Body: body}, cfg)
		if ok, reason := LooksLikeAppShell(p); ok {
			flagged = append(flagged, fmt.Sprintf("%s (%s, %d words)", filepath.Base(name), reason, p.Words))
			if p.Words >= p.Thresholds().JSShellMaxWords {
				t.Errorf("%s: a page of %d words flagged", name, p.Words)
			}
		}
	}
	t.Logf("LooksLikeAppShell flags %d of %d saved pages", len(flagged), len(files))
	for _, f := range flagged {
		t.Log("  " + f)
	}
}

func TestRenderHTMLReport(t *testing.T) {
	t.Parallel()
	f := &fakeRenderer{html: readFixture(t, "render/spa.rendered.html")}
	if err := json.Unmarshal(readFixture(t, "render/problems.json"), &f.res); err != nil {
		t.Fatal(err)
	}
	png := []byte("\x89PNG\r\n\x1a\nfake")
	f.res.Screenshot = png
	f.res.Vitals = &render.Vitals{LCP: ptr(5200.0), LCPElement: "img#hero", CLS: ptr(0.05)}
	rep := analyzeString(t, string(readFixture(t, "render/spa.raw.html")), "", nil, &Options{Depth: Complete, Render: render.Auto, Renderer: f})
	var sb strings.Builder
	if err := rep.WriteHTML(&sb); err != nil {
		t.Fatal(err)
	}
	out := sb.String()
	for _, want := range []string{
		`<h2 id="rendering">Rendering</h2>`, "empty #root mount", "Rendered HTML</th>", `<th scope="row">canonical</th><td><span class="muted">none</span></td><td class="diff">https://example.com/page</td>`,
		`src="data:image/png;base64,iVBORw0KGgpmYWtl"`, "Lab measurement of one rendering, mobile 412×915", "5200 ms", "img#hero", ">poor<",
		"TBT</th><td>not measured", "Uncaught TypeError", "http://127.0.0.1:8080/admin", "address", "Page weight", "50.0 KB",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("HTML report lacks %q", want)
		}
	}
	b, err := json.Marshal(rep.Render)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"screenshot":"iVBORw0KGgpmYWtl"`) {
		t.Errorf("render JSON lacks the base64 screenshot: %.300s", b)
	}
}

// TestRenderServedFacts checks that the rendered view keeps the facts of
// the response as served: its headers and encoding declarations.
func TestRenderServedFacts(t *testing.T) {
	t.Parallel()
	body := strings.Replace(string(readFixture(t, "render/base.html")), `<meta charset="utf-8">`, "", 1)
	f := &fakeRenderer{html: []byte(strings.Replace(body, "<head>", `<head><meta charset="utf-8">`, 1))}
	rep := analyzeString(t, body, "", http.Header{"Content-Type": {"text/html"}, "X-Robots-Tag": {"noindex"}},
		&Options{Depth: Complete, Render: render.Always, Renderer: f})
	assertIDs(t, rep, []string{"content.charset_missing", "indexability.noindex_header"}, nil)
	if rep.Sizes.ContentType != "text/html" || rep.Sizes.HTML != int64(len(body)) {
		t.Errorf("Sizes = %+v, want the served response's", rep.Sizes)
	}
}
