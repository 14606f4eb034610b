package chromium

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
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
	exactAndWalked(t, page)
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

// shadowPage has open shadow roots made by script (one nested in
// another's shadow tree, one with a slot for light children, one with
// every option a root can have), declarative ones from the markup, closed
// ones, and a component inside an inert <template>.
const shadowPage = `<!DOCTYPE html><html lang="en"><head><title>components</title></head><body>
<x-card><span slot="title">light title</span>light text</x-card>
<x-options></x-options><x-closed></x-closed>
<div id="dsd"><template shadowrootmode="open" shadowrootdelegatesfocus><p>declared &amp; open</p></template>after</div>
<div id="dsdc"><template shadowrootmode="closed"><p>declared closed</p></template></div>
<template id="inert"><x-card>in template</x-card></template>
<script>
customElements.define("x-inner", class extends HTMLElement {
  connectedCallback() { this.attachShadow({ mode: "open" }).innerHTML = '<a href="/nested">nested link</a>'; }
});
customElements.define("x-card", class extends HTMLElement {
  connectedCallback() {
    if (this.shadowRoot) return;
    this.attachShadow({ mode: "open" }).innerHTML = '<style>a > b { color: red }</style><h2>shadow heading</h2>' +
      '<slot name="title"></slot><a href="/shadow">shadow link</a><x-inner></x-inner><slot></slot>';
  }
});
customElements.define("x-closed", class extends HTMLElement {
  connectedCallback() { this.attachShadow({ mode: "closed" }).innerHTML = '<a href="/closed">closed link</a>'; }
});
document.querySelector("x-options").attachShadow({ mode: "open", delegatesFocus: true, serializable: true,
  clonable: true, slotAssignment: "manual", customElementRegistry: new CustomElementRegistry() }).textContent = "a < b";
document.getElementById("inert").content.querySelector("x-card").attachShadow({ mode: "open" }).innerHTML = "<b>inert shadow</b>";
</script></body></html>`

// TestDOMShadow reads the open shadow roots of a page as declarative
// shadow DOM, the same by getHTML and by the walk; closed roots and the
// shadow roots of inert template content are not read.
func TestDOMShadow(t *testing.T) {
	exact := exactAndWalked(t, shadowPage)
	html := string(exact.HTML)
	for _, want := range []string{
		`<x-card><template shadowrootmode="open"><style>a > b { color: red }</style><h2>shadow heading</h2><slot name="title"></slot><a href="/shadow">shadow link</a>` +
			`<x-inner><template shadowrootmode="open"><a href="/nested">nested link</a></template></x-inner><slot></slot></template><span slot="title">light title</span>light text</x-card>`,
		`<x-options><template shadowrootmode="open" shadowrootdelegatesfocus="" shadowrootserializable="" shadowrootslotassignment="manual" shadowrootclonable="" shadowrootcustomelementregistry="">a &lt; b</template></x-options>`,
		`<div id="dsd"><template shadowrootmode="open" shadowrootdelegatesfocus=""><p>declared &amp; open</p></template>after</div>`,
		`<x-closed></x-closed>`,
		`<div id="dsdc"></div>`,
		`<template id="inert"><x-card>in template</x-card></template>`,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("the rendered HTML lacks %s:\n%s", want, html)
		}
	}
}

// TestDOMShadowCount counts the elements of shadow trees against domExact:
// a document whose shadow tree takes it past domExact is read by the walk.
// The page replaces getHTML to tell which reading ran.
func TestDOMShadowCount(t *testing.T) {
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		htmlPage(`<!doctype html><title>count</title><body><div id="h"></div><script>
Element.prototype.getHTML = function () { return "<p>get" + "HTML</p>"; };
document.getElementById("h").attachShadow({ mode: "open" }).innerHTML = "<i></i>".repeat(`+r.URL.Query().Get("n")+`);
</script>`)(w, r)
	}))
	p := newTestPool(t, &Options{Tabs: 1, Fetcher: testFetcher(t, srv)})
	defer func(n int) { domExact = n }(domExact)
	domExact = 50 // the light DOM has 6 elements
	for n, exact := range map[string]bool{"10": true, "100": false} {
		res := renderOne(t, p, &render.Request{URL: srv.URL + "/?n=" + n})
		if got := strings.Contains(string(res.HTML), "<p>getHTML</p>"); got != exact {
			t.Errorf("%s elements in the shadow tree: read by getHTML %v, want %v:\n%s", n, got, exact, res.HTML)
		}
	}
}

// BenchmarkDOMRead times domScript in the page itself (page-ms/op: the
// median of the browser's times to serialise, without the transfer of the
// result, each after a first serialisation that warms it up) on documents
// a page script builds: one read by the browser's serialisation (just
// under domExact elements, the most there is to look through for shadow
// roots), the same with 1,000 open shadow roots, and one read by the walk
// (1.2 times domExact elements, under the cap of characters). The elements
// are in a hidden container: the page costs its DOM, not its layout.
func BenchmarkDOMRead(b *testing.B) {
	mux := http.NewServeMux()
	for _, c := range []struct {
		name         string
		elems, hosts int
	}{{"exact", domExact - 100, 0}, {"exact-shadow", domExact - 100, 1000}, {"walk", domExact * 6 / 5, 0}} {
		// Divs of two spans each; every host's shadow root holds two
		// more elements.
		mux.HandleFunc("/"+c.name, htmlPage(fmt.Sprintf(`<!doctype html><title>big</title><body><div hidden id="c"></div><script>
const n = %d, hosts = %d, body = document.getElementById("c");
let made = 5;
for (let i = 0; made < n; i++) {
  const d = document.createElement("div");
  d.innerHTML = "<span>a" + i + "</span><span>b</span>";
  made += 3;
  if (i < hosts) { d.attachShadow({ mode: "open" }).innerHTML = "<b>s</b><a href=/x>x</a>"; made += 2; }
  body.appendChild(d);
}
const read = %s;
read(%d, %d, null);
const t = performance.now(), r = read(%[4]d, %[5]d, null);
document.title = (performance.now() - t) + " " + r.html.length;
</script>`, c.elems, c.hosts, domScript, seo.DefaultMaxBodyBytes, domExact)))
	}
	srv := serve(b, mux)
	// The walk's strings take the big page past the default memory limit.
	p := newTestPool(b, &Options{Tabs: 1, Fetcher: testFetcher(b, srv), MaxRenderMemory: 2 << 30, MaxBrowserMemory: 3 << 30})
	for _, name := range []string{"exact", "exact-shadow", "walk"} {
		b.Run(name, func(b *testing.B) {
			var ms []float64
			for b.Loop() {
				res := renderOne(b, p, &render.Request{URL: srv.URL + "/" + name, Timeout: time.Minute})
				_, title, _ := strings.Cut(string(res.HTML), "<title>")
				title, _, _ = strings.Cut(title, "</title>")
				var took, size float64
				if _, err := fmt.Sscan(title, &took, &size); err != nil {
					b.Fatalf("title %q: %v", title, err)
				}
				ms = append(ms, took)
				b.ReportMetric(size, "bytes")
			}
			// The median: other processes' load only ever adds time.
			slices.Sort(ms)
			b.ReportMetric(ms[len(ms)/2], "page-ms/op")
		})
	}
}

// exactAndWalked renders page twice in one tab, read by the browser's own
// serialisation and by the walk (domExact 0), fails the test unless both
// readings are the same, and returns the first rendering.
func exactAndWalked(t *testing.T, page string) *render.Result {
	t.Helper()
	srv := serve(t, htmlPage(page))
	p := newTestPool(t, &Options{Tabs: 1, Fetcher: testFetcher(t, srv)})
	exact := renderOne(t, p, &render.Request{URL: srv.URL + "/"})
	defer func(n int) { domExact = n }(domExact)
	domExact = 0
	walked := renderOne(t, p, &render.Request{URL: srv.URL + "/"})
	if string(exact.HTML) != string(walked.HTML) {
		t.Fatalf("the walk and the browser's serialisation differ:\nbrowser: %s\nwalk:    %s", exact.HTML, walked.HTML)
	}
	return exact
}
