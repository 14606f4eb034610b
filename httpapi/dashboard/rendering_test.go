package dashboard_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/render"
)

// testPNG is a small phone-shaped PNG.
func testPNG(t *testing.T) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 41, 91))
	for y := range 91 {
		for x := range 41 {
			img.Set(x, y, color.RGBA{uint8(40 + y), 90, 160, 255})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// renderedJob stores a succeeded job of the env's account whose report
// rendered pages, n of them with a stored screenshot, and returns it.
func renderedJob(t *testing.T, e *env, n int) (*store.Job, []string) {
	t.Helper()
	ctx := context.Background()
	rep := &crawler.SiteReport{Domain: "spa.example", StartURL: "https://spa.example/",
		StatusCodes: map[int]int{200: n + 1},
		Crawl:       crawler.CrawlStats{Fetched: n + 1, StopReason: "done", DepthHistogram: []int{1, n}},
		Render: &crawler.RenderSummary{Mode: render.Always, Device: render.Mobile, Rendered: n + 1, ChangedPages: n + 1,
			Changes: map[string]int{"title": n + 1}, LinksOnlyRendered: 7, LinksOnlyRenderedPages: 1,
			VitalsReason: "no page measured lab Web Vitals", Screenshots: n},
	}
	var urls []string
	rendered := true
	for i := range n + 1 {
		u := fmt.Sprintf("https://spa.example/p/%d?q=a&b=<c>", i)
		rep.Pages = append(rep.Pages, crawler.PageSummary{URL: u, Status: 200, Rendered: &rendered, Screenshot: i < n})
		if i < n {
			urls = append(urls, u)
		}
	}
	res, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	j := &store.Job{AccountID: e.acct.ID, Kind: "site", Request: []byte(`{"domain":"spa.example","options":{"render":"always"}}`)}
	if err := e.st.CreateJob(ctx, j); err != nil {
		t.Fatal(err)
	}
	j.Status, j.Result, j.StartedAt, j.FinishedAt = store.JobSucceeded, res, time.Now(), time.Now()
	if err := e.st.UpdateJob(ctx, j); err != nil {
		t.Fatal(err)
	}
	shot := testPNG(t)
	for _, u := range urls {
		if err := e.st.(store.Screenshots).PutScreenshot(ctx, j.ID, u, shot); err != nil {
			t.Fatal(err)
		}
	}
	return j, urls
}

// TestAnalysisRendering: the analysis page of a rendering crawl shows the
// rendering summary and links each stored screenshot, served by the
// dashboard to the signed-in account only.
func TestAnalysisRendering(t *testing.T) {
	e := newEnv(t, nil)
	j, urls := renderedJob(t, e, 60)
	c := e.client(t)
	e.login(t, c)
	resp, body := get(t, c, e.srv.URL+"/dashboard/analyses/"+j.ID)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("analysis page: %d", resp.StatusCode)
	}
	for _, want := range []string{`id="rendering"`, "Changed by JavaScript", `<code>title</code> 61`, "60 screenshots kept", `id="shots-more">12 more pages`} {
		if !strings.Contains(body, want) {
			t.Errorf("analysis page lacks %q", want)
		}
	}
	if n := strings.Count(body, `<img src="/dashboard/analyses/`); n != 48 {
		t.Errorf("%d screenshots shown, want the first 48", n)
	}
	src := "/dashboard/analyses/" + j.ID + "/screenshot?url=" + url.QueryEscape(urls[0])
	resp, err := c.Get(e.srv.URL + src)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "image/png" || !bytes.Equal(b, testPNG(t)) {
		t.Errorf("screenshot: %d %s, %d bytes", resp.StatusCode, resp.Header.Get("Content-Type"), len(b))
	}
	for _, u := range []string{
		"/dashboard/analyses/" + j.ID + "/screenshot?url=" + url.QueryEscape("https://spa.example/p/60?q=a&b=<c>"),
		"/dashboard/analyses/" + j.ID + "/screenshot",
		"/dashboard/analyses/job_other/screenshot?url=" + url.QueryEscape(urls[0]),
	} {
		if resp, _ := get(t, c, e.srv.URL+u); resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", u, resp.StatusCode)
		}
	}
	// Signed out: the sign-in redirect, never the image.
	anon := e.client(t)
	if resp, _ := get(t, anon, e.srv.URL+src); resp.StatusCode == http.StatusOK {
		t.Errorf("screenshot served without a session")
	}
}

// TestAnalysisRenderingBrowser opens the rendering section in headless
// Chromium: the screenshots load under the dashboard's CSP.
func TestAnalysisRenderingBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("e2e: skipped in -short mode")
	}
	ctx := browser(t)
	e := newEnv(t, &envOptions{realClock: true})
	j, _ := renderedJob(t, e, 3)
	base := e.srv.URL
	step := func(name string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		sctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		defer cancel()
		if err := chromedp.Do(sctx, steps...); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	step("sign in", chromedp.Navigate(base+"/dashboard/"), chromedp.WaitVisible(chromedp.CSS("#email")),
		chromedp.SendKeys(chromedp.CSS("#email"), testEmail),
		chromedp.SendKeys(chromedp.CSS("#password"), testPassword),
		chromedp.Click(chromedp.CSS("button.primary")),
		chromedp.WaitVisible(chromedp.CSS("a.tile")))
	step("analysis", chromedp.Navigate(base+"/dashboard/analyses/"+j.ID), chromedp.WaitVisible(chromedp.CSS("#rendering")),
		chromedp.ScrollIntoView(chromedp.CSS(".shots")))
	deadline := time.Now().Add(20 * time.Second)
	for {
		loaded, err := chromedp.Run(ctx, chromedp.Evaluate[int](`[...document.querySelectorAll(".shots img")].filter(i => i.complete && i.naturalWidth === 41).length`))
		if err != nil {
			t.Fatalf("count loaded screenshots: %v", err)
		}
		if loaded == 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of 3 screenshots loaded", loaded)
		}
		time.Sleep(100 * time.Millisecond)
	}
	screenshot(t, ctx, artefacts(t), "rendering")
}
