package httpapi

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/seokit/seokit/render"
	"github.com/seokit/seokit/render/chromium"
	"github.com/seokit/seokit/seo"
)

// TestRenderChromiumEndToEnd: a page analysis through the API renders a
// client-side application in headless Chromium. It skips without a
// browser, and fails then with SEOKIT_REQUIRE_SERVERS=1.
func TestRenderChromiumEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping: starts a browser")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pool, err := chromium.New(ctx, &chromium.Options{Tabs: 1, Fetcher: seo.NewFetcher(&seo.FetcherOptions{AllowPrivate: true})})
	if err != nil {
		if errors.Is(err, render.ErrUnavailable) && os.Getenv("SEOKIT_REQUIRE_SERVERS") != "1" {
			t.Skipf("skipping: %v", err)
		}
		t.Fatal(err)
	}
	t.Cleanup(func() { pool.Close() })
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, `<!doctype html><html lang="en"><head><meta name="viewport" content="width=device-width"></head>`+
				`<body><div id="root"></div><script src="/app.js"></script></body></html>`)
		case "/app.js":
			w.Header().Set("Content-Type", "text/javascript")
			fmt.Fprint(w, `document.title = "Oak tables, rendered";
var h = document.createElement("h1"); h.textContent = "Oak tables"; document.getElementById("root").appendChild(h);
var a = document.createElement("a"); a.href = "/chairs"; a.textContent = "Chairs"; document.getElementById("root").appendChild(a);`)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(site.Close)
	a := newTestAPI(t, &Options{AllowPrivate: true, Renderer: pool})
	resp := a.call("POST", "/v1/analyze/page", a.key, `{"url":"`+site.URL+`/","options":{"render":"always"}}`)
	wantStatus(t, resp, 200)
	var rep struct {
		Render *struct {
			Rendered   bool   `json:"rendered"`
			Reason     string `json:"reason"`
			Screenshot []byte `json:"screenshot"`
			Changes    []struct{ Field, Raw, Rendered string }
		} `json:"render"`
	}
	readJSON(t, resp, &rep)
	if rep.Render == nil || !rep.Render.Rendered {
		t.Fatalf("render section %+v, want a rendered page", rep.Render)
	}
	if !bytes.HasPrefix(rep.Render.Screenshot, []byte("\x89PNG")) {
		t.Errorf("screenshot of %d bytes is not a PNG", len(rep.Render.Screenshot))
	}
	title := false
	for _, c := range rep.Render.Changes {
		title = title || (c.Field == "title" && c.Raw == "" && c.Rendered == "Oak tables, rendered")
	}
	if !title {
		t.Errorf("changes %+v do not pair the missing raw title with the rendered one", rep.Render.Changes)
	}
}
