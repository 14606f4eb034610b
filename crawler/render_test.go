package crawler_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seokit/seokit/analyzer"
	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/crawler/crawlertest"
	"github.com/seokit/seokit/crawler/crawlreport"
	"github.com/seokit/seokit/render"
)

// fakePNG is a screenshot's bytes for the fake renderer.
var fakePNG = []byte("\x89PNG\r\n\x1a\nfake")

// fakeRenderer renders the pages of an SPASite as a browser would, from
// the site's own description, and fails the paths in fail.
type fakeRenderer struct {
	site *crawlertest.SPASite
	fail map[string]bool

	mu      sync.Mutex
	calls   int
	allowed map[string]bool // the robots verdicts asked of req.Allowed
	agents  []string
}

func (f *fakeRenderer) Render(ctx context.Context, req *render.Request) (*render.Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	u, err := url.Parse(req.URL)
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	f.calls++
	f.agents = append(f.agents, req.UserAgent)
	if req.Allowed != nil {
		for _, p := range []string{"/private/track.js", "/p/1"} {
			t, _ := u.Parse(p)
			f.allowed[p] = req.Allowed(t)
		}
	}
	f.mu.Unlock()
	if f.fail[u.Path] {
		return nil, errors.New("navigation failed: net::ERR_CONNECTION_RESET")
	}
	doc, ok := f.site.RenderedHTML(u.Path)
	if !ok {
		return nil, errors.New("navigation failed: status 404")
	}
	lcp, cls, tbt := 1800.0, 0.02, 120.0
	if u.Path == "/" {
		lcp = 3000
	}
	res := &render.Result{URL: req.URL, FinalURL: req.URL, Status: 200, Device: render.Mobile,
		Viewport: render.Size{Width: 412, Height: 915}, HTML: []byte(doc),
		Vitals: &render.Vitals{LCP: &lcp, CLS: &cls, TBT: &tbt}}
	if u.Path == "/p/2" {
		res.Errors = []render.Message{{Text: "TypeError: x is undefined"}}
	}
	if req.Screenshot == render.Viewport || req.Screenshot == render.FullPage {
		res.Screenshot = fakePNG
	}
	return res, nil
}

func newFakeRenderer(site *crawlertest.SPASite, fail ...string) *fakeRenderer {
	f := &fakeRenderer{site: site, fail: map[string]bool{}, allowed: map[string]bool{}}
	for _, p := range fail {
		f.fail[p] = true
	}
	return f
}

func TestRenderedCrawlFollowsJavaScriptLinks(t *testing.T) {
	site := crawlertest.NewSPA(crawlertest.SPAOptions{Pages: 13, Fanout: 3})
	defer site.Close()

	raw, err := crawler.New(testOptions(crawler.Options{SkipExternalLinks: true})).Run(context.Background(), site.URL)
	if err != nil {
		t.Fatal(err)
	}
	if len(raw.Pages) != 1 || raw.Render != nil {
		t.Fatalf("raw crawl: %d pages, render %+v; want the home page only and no render summary", len(raw.Pages), raw.Render)
	}
	if p := raw.Pages[0]; p.Rendered != nil || p.LCPMs != nil || p.JSErrors != nil {
		t.Errorf("raw crawl page has rendering fields: %+v", p)
	}

	fake := newFakeRenderer(site, "/p/4")
	dir := t.TempDir()
	shots, err := crawler.DirScreenshots(filepath.Join(dir, "shots"))
	if err != nil {
		t.Fatal(err)
	}
	opts := testOptions(crawler.Options{SkipExternalLinks: true, Screenshots: shots,
		Analyzer: &analyzer.Options{Render: render.Always, Renderer: fake,
			RenderRequest: render.Request{Screenshot: render.Viewport}}})
	rep, err := crawler.New(opts).Run(context.Background(), site.URL)
	if err != nil {
		t.Fatal(err)
	}
	pages := pagesByPath(t, site.URL, rep)
	if len(pages) != site.Pages() {
		t.Fatalf("rendered crawl: %d pages, want %d: %v", len(pages), site.Pages(), rep.Pages)
	}
	home := pages["/"]
	if home.Rendered == nil || !*home.Rendered || home.LinksOnlyRendered == nil || *home.LinksOnlyRendered < 3 {
		t.Errorf("home: rendered %v, links only rendered %v; want rendered with >= 3 JS-only links", home.Rendered, home.LinksOnlyRendered)
	}
	if !strings.Contains(strings.Join(home.RenderChanges, " "), "title") || home.Title != "Client-rendered page 0" {
		t.Errorf("home: changes %v, title %q; want the title from JavaScript", home.RenderChanges, home.Title)
	}
	if home.LCPMs == nil || *home.LCPMs != 3000 || home.CLS == nil || home.TBTMs == nil || !home.Screenshot {
		t.Errorf("home: lcp %v cls %v tbt %v screenshot %v", home.LCPMs, home.CLS, home.TBTMs, home.Screenshot)
	}
	failed := pages["/p/4"]
	if failed.Rendered == nil || *failed.Rendered || !failed.RenderFailed || failed.LCPMs != nil || failed.Status != 200 {
		t.Errorf("/p/4: %+v; want a fetched page, not rendered, render failed, no vitals", failed)
	}
	if p := pages["/p/2"]; p.JSErrors == nil || *p.JSErrors != 1 {
		t.Errorf("/p/2 jsErrors = %v, want 1", p.JSErrors)
	}

	s := rep.Render
	if s == nil {
		t.Fatal("no render summary")
	}
	if s.Mode != render.Always || s.Rendered != site.Pages()-1 || s.Failed != 1 || s.NotRendered != 1 ||
		s.NotRenderedReasons["failed"] != 1 || s.JSErrorPages != 1 || s.LinksOnlyRendered == 0 || s.Changes["title"] == 0 {
		t.Errorf("render summary = %+v", s)
	}
	if v := s.Vitals; v == nil || !v.Lab || v.Device != render.Mobile || v.Pages != site.Pages()-1 ||
		v.LCPP75Ms == nil || *v.LCPP75Ms != 1800 || v.CLSP75 == nil || v.TBTP75Ms == nil {
		t.Errorf("render vitals = %+v", s.Vitals)
	}
	if s.Screenshots != site.Pages()-1 || shots.Written() != site.Pages()-1 || s.ScreenshotDir != shots.Dir() {
		t.Errorf("screenshots: summary %d in %q, sink wrote %d; want %d", s.Screenshots, s.ScreenshotDir, shots.Written(), site.Pages()-1)
	}
	if b, err := os.ReadFile(filepath.Join(shots.Dir(), crawler.ScreenshotName(home.URL))); err != nil || !bytes.Equal(b, fakePNG) {
		t.Errorf("home screenshot file: %v", err)
	}

	fake.mu.Lock()
	if got := fake.allowed["/private/track.js"]; got {
		t.Error("the rendering may fetch /private/track.js, which robots.txt disallows")
	}
	if got := fake.allowed["/p/1"]; !got {
		t.Error("the rendering may not fetch /p/1, which robots.txt allows")
	}
	for _, ua := range fake.agents {
		if ua != "" {
			t.Errorf("rendering user agent = %q, want the device's (empty in the request)", ua)
		}
	}
	fake.mu.Unlock()

	// The summary and its page fields are in the JSON, the CSV and the
	// HTML report.
	js, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"render":{"mode":"always"`, `"lcpP75Ms":1800`, `"linksOnlyRendered":`, `"rendered":true`, `"renderFailed":true`} {
		if !bytes.Contains(js, []byte(want)) {
			t.Errorf("JSON lacks %s", want)
		}
	}
	var csv, html bytes.Buffer
	if err := crawlreport.WriteCSV(&csv, rep); err != nil {
		t.Fatal(err)
	}
	if first, _, _ := strings.Cut(csv.String(), "\n"); !strings.HasSuffix(first, ",rendered,render_reason,render_changes,links_only_rendered,js_errors,lcp_ms,cls,tbt_ms,screenshot") {
		t.Errorf("CSV header = %s", first)
	}
	if !strings.Contains(csv.String(), crawler.ScreenshotName(home.URL)) {
		t.Error("CSV does not name the home page's screenshot")
	}
	if err := crawlreport.WriteHTML(&html, rep); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<h2 id="rendering">Rendering</h2>`, "JS-only links", "LCP ms (lab)", "not field data", crawler.ScreenshotName(home.URL)} {
		if !strings.Contains(html.String(), want) {
			t.Errorf("HTML report lacks %q", want)
		}
	}
	var rawCSV bytes.Buffer
	if err := crawlreport.WriteCSV(&rawCSV, raw); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(rawCSV.String(), "render_reason") {
		t.Error("the CSV of a crawl that did not render has rendering columns")
	}
}

func TestDirScreenshotsCap(t *testing.T) {
	d, err := crawler.DirScreenshots(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	d.SetMax(2)
	ctx := context.Background()
	for i, u := range []string{"https://a.test/1", "https://a.test/2", "https://a.test/3"} {
		err := d.PutScreenshot(ctx, u, fakePNG)
		if want := i < 2; (err == nil) != want {
			t.Errorf("PutScreenshot %d: %v", i, err)
		}
	}
	if d.Written() != 2 || d.Omitted() != 1 {
		t.Errorf("written %d, omitted %d; want 2, 1", d.Written(), d.Omitted())
	}
	if n := crawler.ScreenshotName("https://a.test/../../etc"); len(n) != 36 || strings.Trim(n[:32], "0123456789abcdef") != "" || n[32:] != ".png" {
		t.Errorf("ScreenshotName = %q, want 32 hex digits and .png", n)
	}
}

// blockingRenderer renders nothing until ctx ends.
type blockingRenderer struct{}

func (blockingRenderer) Render(ctx context.Context, _ *render.Request) (*render.Result, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

// TestRenderedCrawlTimeBudget: a crawl waiting for the renderer stops at
// its time budget with a report, not an error.
func TestRenderedCrawlTimeBudget(t *testing.T) {
	site := crawlertest.NewSPA(crawlertest.SPAOptions{Pages: 3})
	defer site.Close()
	opts := testOptions(crawler.Options{SkipExternalLinks: true, TimeBudget: 300 * time.Millisecond,
		Analyzer: &analyzer.Options{Render: render.Always, Renderer: blockingRenderer{}}})
	rep, err := crawler.New(opts).Run(context.Background(), site.URL)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if rep.Crawl.StopReason != crawler.StopTimeBudget {
		t.Errorf("StopReason = %q, want %q", rep.Crawl.StopReason, crawler.StopTimeBudget)
	}
}
