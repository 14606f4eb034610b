package chromium

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/seokit/seokit/render"
	"github.com/seokit/seokit/seo"
)

// TestDOMWalk reads a document with every kind of node both ways, by the
// browser's serialisation and by the capped walk, which must agree.
func TestDOMWalk(t *testing.T) {
	page := `<!DOCTYPE html><html lang="en"><head><title>a &amp; b</title><style>p > b { color: red }</style>
<script>var x = 1 < 2 && "</p>";</script></head><body><!-- a comment -->
<p class="q&quot;t" data-x="a&lt;b&nbsp;c">one&nbsp;&lt;two&gt; &amp; three<br>four<img src="/i.png" alt="x"></p>
<svg viewBox="0 0 10 10"><foreignObject width="5" height="5"><div>in svg</div></foreignObject><path d="M0 0"/></svg>
<template id="t"><b>inside</b> template</template><textarea>t &lt; u</textarea><noscript><i>ns</i></noscript>
<math><mi>x</mi></math><table><tbody><tr><td>cell</td></tr></tbody></table><pre>
pre</pre></body></html>`
	srv := serve(t, htmlPage(page))
	p := newTestPool(t, &Options{Tabs: 1, Fetcher: testFetcher(t, srv)})
	exact := renderOne(t, p, &render.Request{URL: srv.URL + "/"})
	defer func(n int) { domExact = n }(domExact)
	domExact = 0
	walked := renderOne(t, p, &render.Request{URL: srv.URL + "/"})
	if string(exact.HTML) != string(walked.HTML) {
		t.Fatalf("the walk and outerHTML differ:\nouterHTML: %s\nwalk:      %s", exact.HTML, walked.HTML)
	}
}

// TestDOMCap renders a page whose document serialises to more than the
// cap, read by the walk: it stops at the cap and the Result says "html" was
// truncated.
func TestDOMCap(t *testing.T) {
	// The text is in a hidden container: the page costs its DOM, not
	// its layout.
	srv := serve(t, htmlPage(`<!doctype html><title>big</title><body><div hidden id="c"></div><script>
const text = "x".repeat(8000), c = document.getElementById("c");
for (let i = 0; i < 2100; i++) { const d = document.createElement("div"); d.id = "d" + i; d.textContent = text; c.appendChild(d); }
</script>`))
	p := newTestPool(t, &Options{Tabs: 1, Fetcher: testFetcher(t, srv)})
	defer func(n int) { domExact = n }(domExact)
	domExact = 1000
	res := renderOne(t, p, &render.Request{URL: srv.URL + "/", Timeout: 30 * time.Second})
	if len(res.HTML) > seo.DefaultMaxBodyBytes || len(res.HTML) < seo.DefaultMaxBodyBytes-1000 {
		t.Fatalf("HTML of %d bytes, want just under the cap of %d", len(res.HTML), seo.DefaultMaxBodyBytes)
	}
	if !strings.Contains(strings.Join(res.Truncated, ","), "html") || !strings.Contains(string(res.HTML[:2000]), `<div id="d0">`) {
		t.Fatalf("Truncated %v, HTML starts %.200q", res.Truncated, res.HTML)
	}
}

// TestDOMDeadline renders a page that builds two million nodes with a
// budget of 3 s: the rendering answers within the budget and its grace
// (plus the time to open a tab), whatever stopped it.
func TestDOMDeadline(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/huge", htmlPage(`<!doctype html><title>huge</title><body><script>
for (let i = 0; i < 2000000; i++) { const d = document.createElement("div"); d.textContent = "n" + i; document.body.appendChild(d); }
</script>`))
	mux.HandleFunc("/warm", htmlPage(`<!doctype html><title>warm</title>`))
	srv := serve(t, mux)
	p := newTestPool(t, &Options{Tabs: 1, Fetcher: testFetcher(t, srv)})
	// The tab is opened (and warmed) first, so that the bound below is
	// the rendering's own.
	renderOne(t, p, &render.Request{URL: srv.URL + "/warm"})
	const budget = 3 * time.Second
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	start := time.Now()
	res, err := p.Render(ctx, &render.Request{URL: srv.URL + "/huge", Timeout: budget})
	took := time.Since(start)
	switch {
	case err == nil:
		t.Logf("answered in %s: timed out %v, %d bytes of HTML, truncated %v", took.Round(time.Millisecond), res.TimedOut, len(res.HTML), res.Truncated)
	case errors.Is(err, render.ErrMemoryLimit) || strings.Contains(err.Error(), "reading the DOM"):
		t.Logf("answered in %s: %v", took.Round(time.Millisecond), err)
	default:
		t.Fatalf("Render: %v", err)
	}
	if limit := budget + grace + time.Second; took > limit {
		t.Fatalf("the rendering took %s, more than the budget and grace (%s)", took, limit)
	}
}
