package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image/png"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/seokit/seokit/httpapi"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/render"
	"github.com/seokit/seokit/render/chromium"
	"github.com/seokit/seokit/seo"
)

// TestScreenshotResource: a site analysis rendered in headless Chromium
// keeps its pages' viewport screenshots, and an MCP client reads one as
// the resource seokit://analyses/{id}/screenshot?url=...: a PNG the
// browser drew, of the viewport's size; another account, and a page
// without a screenshot, read nothing. It skips without a browser, and
// fails then with SEOKIT_REQUIRE_SERVERS=1.
func TestScreenshotResource(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping: starts a browser")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	pool, err := chromium.New(ctx, &chromium.Options{Tabs: 1, Fetcher: seo.NewFetcher(&seo.FetcherOptions{AllowPrivate: true})})
	if err != nil {
		if errors.Is(err, render.ErrUnavailable) && os.Getenv("SEOKIT_REQUIRE_SERVERS") != "1" {
			t.Skipf("skipping: %v", err)
		}
		t.Fatal(err)
	}
	t.Cleanup(func() { pool.Close() })
	// A client-side application: the heading exists only once rendered.
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			fmt.Fprint(w, "User-agent: *\nAllow: /\n")
		case "/", "/chairs":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprintf(w, `<!doctype html><html lang="en"><head><title>Oak %s</title><meta name="viewport" content="width=device-width"></head>`+
				`<body style="background:#2a6"><div id="root"></div><a href="/chairs">Chairs</a><script src="/app.js"></script></body></html>`, r.URL.Path)
		case "/app.js":
			w.Header().Set("Content-Type", "text/javascript")
			fmt.Fprint(w, `var h = document.createElement("h1"); h.textContent = "Oak tables"; document.getElementById("root").appendChild(h);`)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(site.Close)
	e := newEnv(t, &httpapi.Options{AllowPrivate: true, Renderer: pool, Limits: map[store.Plan]int{store.Free: 1000}})
	cs := e.connect(e.key, nil)

	var job struct {
		ID string `json:"id"`
	}
	if te := call(t, cs, "start_site_analysis", map[string]any{"url": site.URL + "/",
		"options": map[string]any{"maxPages": 5, "render": "always", "renderPages": 2, "skipExternalLinks": true}}, &job); te != nil {
		t.Fatalf("start_site_analysis: %+v", te)
	}
	var st struct {
		Analysis struct {
			Status string `json:"status"`
		} `json:"analysis"`
	}
	for deadline := time.Now().Add(90 * time.Second); ; {
		if te := call(t, cs, "wait_site_analysis", map[string]any{"id": job.ID, "timeoutSeconds": 30}, &st); te != nil {
			t.Fatalf("wait_site_analysis: %+v", te)
		}
		if st.Analysis.Status != "queued" && st.Analysis.Status != "running" || time.Now().After(deadline) {
			break
		}
	}
	if st.Analysis.Status != "succeeded" {
		t.Fatalf("analysis %s", st.Analysis.Status)
	}
	rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "seokit://analyses/" + job.ID + "/report"})
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Pages []struct {
			URL        string `json:"url"`
			Screenshot bool   `json:"screenshot"`
		} `json:"pages"`
	}
	if err := json.Unmarshal([]byte(rr.Contents[0].Text), &rep); err != nil {
		t.Fatal(err)
	}
	shots := 0
	for _, p := range rep.Pages {
		if !p.Screenshot {
			continue
		}
		shots++
		uri := "seokit://analyses/" + job.ID + "/screenshot?url=" + url.QueryEscape(p.URL)
		res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if err != nil {
			t.Fatalf("%s: %v", uri, err)
		}
		if len(res.Contents) != 1 || res.Contents[0].MIMEType != "image/png" {
			t.Fatalf("%s: %d contents", uri, len(res.Contents))
		}
		img, err := png.Decode(bytes.NewReader(res.Contents[0].Blob))
		if err != nil {
			t.Fatalf("%s: %d bytes that are not a PNG: %v", uri, len(res.Contents[0].Blob), err)
		}
		b := img.Bounds()
		if b.Dx() < 200 || b.Dy() < 200 {
			t.Errorf("%s: a %dx%d image, not a viewport", uri, b.Dx(), b.Dy())
		}
		// The page's background is what the browser painted.
		if r, g, bl, _ := img.At(b.Dx()-1, b.Dy()-1).RGBA(); r>>8 != 0x22 || g>>8 != 0xaa || bl>>8 != 0x66 {
			t.Errorf("%s: corner pixel %02x%02x%02x, want the page's background 22aa66", uri, r>>8, g>>8, bl>>8)
		}
		t.Logf("screenshot of %s: %dx%d PNG, %d bytes", p.URL, b.Dx(), b.Dy(), len(res.Contents[0].Blob))

		other := e.connect(e.other, nil)
		if _, err := other.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri}); err == nil {
			t.Errorf("another account read %s", uri)
		}
	}
	if shots == 0 {
		t.Fatalf("no page of %+v has a screenshot", rep.Pages)
	}
	missing := "seokit://analyses/" + job.ID + "/screenshot?url=" + url.QueryEscape(site.URL+"/none")
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: missing}); err == nil {
		t.Errorf("read a screenshot of a page the analysis did not render")
	}
}
