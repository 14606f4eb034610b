package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/url"
	"testing"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/httpapi/auth"
	"github.com/seokit/seokit/httpapi/store"
)

// TestSiteScreenshots: a rendering site analysis keeps its pages'
// viewport screenshots with the job and serves them to its account only.
func TestSiteScreenshots(t *testing.T) {
	a := newTestAPI(t, &Options{AllowPrivate: true, Renderer: &fakeRenderer{}})
	site := shellSite(t)
	resp := a.call("POST", "/v1/analyze/site", a.key, `{"url":"`+site.URL+`/","options":{"render":"always","renderPages":2,"maxPages":5}}`)
	wantStatus(t, resp, 202)
	var j Job
	readJSON(t, resp, &j)
	done := waitJob(t, a, a.key, j.ID, func(j Job) bool { return j.Status == "succeeded" || j.Status == "failed" })
	if done.Status != "succeeded" {
		t.Fatalf("job %s: %s", done.Status, done.Error)
	}
	var rep struct {
		Render *struct {
			Screenshots int `json:"screenshots"`
		} `json:"render"`
		Pages []struct {
			URL        string `json:"url"`
			Screenshot bool   `json:"screenshot"`
		} `json:"pages"`
	}
	if err := json.Unmarshal(done.Result, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Render == nil || rep.Render.Screenshots != 2 {
		t.Fatalf("render summary %+v, want 2 screenshots stored", rep.Render)
	}
	shots := 0
	for _, p := range rep.Pages {
		if !p.Screenshot {
			continue
		}
		shots++
		resp := a.call("GET", "/v1/analyze/site/"+j.ID+"/screenshot?url="+url.QueryEscape(p.URL), a.key, "")
		wantStatus(t, resp, 200)
		if ct := resp.Header.Get("Content-Type"); ct != "image/png" {
			t.Errorf("Content-Type %q, want image/png", ct)
		}
		if b, _ := io.ReadAll(resp.Body); string(b) != string(onePixelPNG) {
			t.Errorf("screenshot of %s: %d bytes, want the renderer's PNG", p.URL, len(b))
		}
	}
	if shots != 2 {
		t.Fatalf("%d pages with a screenshot, want 2: %+v", shots, rep.Pages)
	}
	shot := "/v1/analyze/site/" + j.ID + "/screenshot?url=" + url.QueryEscape(rep.Pages[0].URL)
	_, other := a.account("b@example.com", store.Free, auth.ScopeRead)
	apiErr(t, a.call("GET", shot, other, ""), 404, CodeNotFound)
	apiErr(t, a.call("GET", "/v1/analyze/site/"+j.ID+"/screenshot?url="+url.QueryEscape(site.URL+"/none"), a.key, ""), 404, CodeNotFound)
	apiErr(t, a.call("GET", "/v1/analyze/site/job_missing/screenshot?url=x", a.key, ""), 404, CodeNotFound)
	if e := apiErr(t, a.call("GET", "/v1/analyze/site/"+j.ID+"/screenshot", a.key, ""), 400, CodeInvalidRequest); e.Field != "url" {
		t.Errorf("missing url: field %q, want url", e.Field)
	}
}

// TestSiteScreenshotsOff: without viewport screenshots, a renderer or a
// store that keeps them, a site analysis gets no sink.
func TestSiteScreenshotsOff(t *testing.T) {
	a := newTestAPI(t, &Options{AllowPrivate: true, Renderer: &fakeRenderer{}})
	tests := []struct {
		name string
		opts SiteOptions
	}{
		{"raw", SiteOptions{}},
		{"no screenshots", SiteOptions{Render: "always", Screenshot: "none", RenderPages: 5}},
		{"no pages", SiteOptions{Render: "always", Screenshot: "viewport"}},
	}
	for _, tt := range tests {
		if s := a.srv.screenshotSink("job_x", SiteRequest{Options: tt.opts}); s != nil {
			t.Errorf("%s: sink %T, want none", tt.name, s)
		}
	}
	if s := a.srv.screenshotSink("job_x", SiteRequest{Options: SiteOptions{Render: "auto", RenderPages: 5}}); s == nil {
		t.Error("auto rendering with default screenshots: no sink")
	}
	raw := newTestAPI(t, &Options{AllowPrivate: true})
	if s := raw.srv.screenshotSink("job_x", SiteRequest{Options: SiteOptions{Render: "always", RenderPages: 5}}); s != nil {
		t.Errorf("server without a renderer: sink %T, want none", s)
	}
}

// TestJobScreenshotsCap: the sink refuses screenshots past the job's cap,
// and a refused write does not count.
func TestJobScreenshotsCap(t *testing.T) {
	a := newTestAPI(t, &Options{AllowPrivate: true})
	ctx := context.Background()
	j := &store.Job{AccountID: a.acct.ID, Kind: "site"}
	if err := a.st.CreateJob(ctx, j); err != nil {
		t.Fatal(err)
	}
	sink := &jobScreenshots{st: a.st.(store.Screenshots), job: j.ID, max: 2}
	if err := sink.PutScreenshot(ctx, "https://example.com/big", make([]byte, store.MaxScreenshotBytes+1)); err == nil {
		t.Error("an image over MaxScreenshotBytes was stored")
	}
	for i, u := range []string{"https://example.com/1", "https://example.com/2"} {
		if err := sink.PutScreenshot(ctx, u, onePixelPNG); err != nil {
			t.Fatalf("screenshot %d: %v", i+1, err)
		}
	}
	if err := sink.PutScreenshot(ctx, "https://example.com/3", onePixelPNG); !errors.Is(err, crawler.ErrScreenshotsFull) {
		t.Errorf("third screenshot past a cap of 2: %v, want ErrScreenshotsFull", err)
	}
}
