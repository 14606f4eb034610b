package analyzer_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/seokit/seokit/analyzer"
	"github.com/seokit/seokit/render"
	"github.com/seokit/seokit/render/chromium"
	"github.com/seokit/seokit/seo"
)

// jsSite serves pages whose SEO facts JavaScript writes or changes.
var jsSite = map[string]string{
	"/robots.txt": "User-agent: *\nDisallow: /private/\n",
	"/spa": `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><script src="/private/track.js"></script></head>
<body><div id="root"></div><script>
document.title = "Harbour plan: the council debates three hundred new flats";
var l = document.createElement("link"); l.rel = "canonical"; l.href = location.origin + "/spa"; document.head.appendChild(l);
var s = document.createElement("script"); s.type = "application/ld+json";
s.textContent = JSON.stringify({"@context": "https://schema.org", "@type": "Organization", "name": "Harbour council", "url": location.origin + "/"});
document.head.appendChild(s);
var root = document.getElementById("root"), words = [];
for (var i = 0; i < 120; i++) words.push("harbour" + i);
root.innerHTML = "<h1>Harbour plan</h1><p>" + words.join(" ") + "</p><a href=\"/news/one\">One</a> <a href=\"/news/two\">Two</a>";
</script></body></html>`,
	"/canonical": `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Canonical changed by JavaScript on this page</title>
<link rel="canonical" href="/canonical"></head><body><h1>Canonical</h1><p>Text.</p>
<script>document.querySelector('link[rel=canonical]').href = location.origin + "/elsewhere";</script></body></html>`,
	"/noindex": `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Noindex removed by JavaScript on this page</title>
<meta name="robots" content="noindex"></head><body><h1>Noindex</h1><p>Text.</p>
<script>document.querySelector('meta[name=robots]').remove();</script></body></html>`,
	"/errors": `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>A page whose scripts throw uncaught errors</title></head>
<body><h1>Errors</h1><p>Text.</p><script>console.error("config missing"); undefinedFunction();</script></body></html>`,
	"/private/track.js": `window.tracked = true;`,
	"/listeners": `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>A menu whose anchors scripts make clickable</title></head>
<body><h1>Menu</h1><p>Text.</p><nav><a class="menu">Menu</a> <a class="hover">Hover</a> <a class="bare">Bare</a> <a href="/next">Next</a></nav>
<script>
document.querySelector(".menu").addEventListener("click", function () { location.href = "/next"; });
document.querySelector(".hover").addEventListener("mouseover", function () {});
</script></body></html>`,
}

// componentsPage is a page of web components whose links and heading are
// in their shadow roots (one nested in another's shadow tree, one closed);
// the light DOM has one link. A script then adds pad empty elements at the
// end of the page: past 100,000 elements in all, the pool reads the
// document by its capped walk rather than by the browser's serialisation.
func componentsPage(pad int) string {
	return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>A page of web components with shadow roots</title></head>
<body><x-card><p>Light text of the card.</p></x-card> <a href="/light">Light</a> <x-closed></x-closed><div id="pad" hidden></div><script>
customElements.define("x-inner", class extends HTMLElement {
  connectedCallback() { this.attachShadow({ mode: "open" }).innerHTML = '<a href="/nested-only">Nested</a>'; }
});
customElements.define("x-card", class extends HTMLElement {
  connectedCallback() {
    this.attachShadow({ mode: "open" }).innerHTML = '<h2>Shadow heading</h2><slot></slot><a href="/shadow-only">Shadow</a> <x-inner></x-inner>';
  }
});
customElements.define("x-closed", class extends HTMLElement {
  connectedCallback() { this.attachShadow({ mode: "closed" }).innerHTML = '<a href="/closed-only">Closed</a>'; }
});
const pad = document.getElementById("pad");
for (let i = 0; i < ` + strconv.Itoa(pad) + `; i++) pad.appendChild(document.createElement("i"));
</script></body></html>`
}

func TestRenderChromium(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := jsSite[r.URL.Path]
		switch r.URL.Path {
		case "/components":
			body, ok = componentsPage(0), true
		case "/components-big":
			body, ok = componentsPage(100001), true
		}
		if !ok {
			http.NotFound(w, r)
			return
		}
		switch {
		case strings.HasSuffix(r.URL.Path, ".txt"):
			w.Header().Set("Content-Type", "text/plain")
		case strings.HasSuffix(r.URL.Path, ".js"):
			w.Header().Set("Content-Type", "text/javascript")
		default:
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
		}
		fmt.Fprint(w, body)
	}))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	n, _ := strconv.Atoi(port)
	fetcher := seo.NewFetcher(&seo.FetcherOptions{AllowAddrs: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}, AllowedPorts: []int{n}})

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	pool, err := chromium.New(ctx, &chromium.Options{Browsers: 1, Tabs: 2, Fetcher: fetcher})
	if err != nil {
		if errors.Is(err, render.ErrUnavailable) && os.Getenv("SEOKIT_REQUIRE_SERVERS") != "1" {
			t.Skipf("skipping the rendering tests against Chromium: %v", err)
		}
		t.Fatal(err)
	}
	defer pool.Close()
	analyze := func(t *testing.T, path string, mode render.Mode) *analyzer.Report {
		t.Helper()
		rep, err := analyzer.Analyze(ctx, srv.URL+path, &analyzer.Options{Fetcher: fetcher, Render: mode, Renderer: pool,
			RenderRequest: render.Request{Settle: 100 * time.Millisecond, Timeout: 30 * time.Second}})
		if err != nil {
			t.Fatal(err)
		}
		if mode != render.None && (rep.Render == nil || !rep.Render.Rendered) {
			t.Fatalf("Render = %+v, want rendered", rep.Render)
		}
		return rep
	}

	t.Run("single-page application", func(t *testing.T) {
		raw := analyze(t, "/spa", render.None)
		assertHas(t, raw, []string{"title.missing", "canonical.missing", "content.js_shell"}, []string{"render.title_only_rendered"})
		rep := analyze(t, "/spa", render.Auto)
		assertHas(t, rep, []string{"render.title_only_rendered", "render.canonical_only_rendered", "render.structured_data_only_rendered",
			"render.h1_only_rendered", "render.links_only_rendered", "render.word_count_changed", "render.resources_blocked"},
			[]string{"title.missing", "canonical.missing", "content.js_shell"})
		if rep.Title == nil || !strings.HasPrefix(rep.Title.Text, "Harbour plan") || rep.Links.Internal != 2 || len(rep.StructuredData) != 1 {
			t.Errorf("rendered data: title %+v, %d internal links, %d structured items", rep.Title, rep.Links.Internal, len(rep.StructuredData))
		}
		if l := rep.Render.LinksOnlyRendered; l == nil || l.Count != 2 {
			t.Errorf("LinksOnlyRendered = %+v, want 2", l)
		}
		if !strings.HasPrefix(rep.Render.Reason, "empty #root mount") {
			t.Errorf("Reason = %q", rep.Render.Reason)
		}
	})
	t.Run("canonical changed by javascript", func(t *testing.T) {
		rep := analyze(t, "/canonical", render.Always)
		assertHas(t, rep, []string{"render.canonical_mismatch"}, nil)
	})
	t.Run("raw noindex removed by javascript", func(t *testing.T) {
		rep := analyze(t, "/noindex", render.Always)
		assertHas(t, rep, []string{"render.noindex_removed", "indexability.noindex_meta"}, nil)
		if rep.Robots.Indexable {
			t.Error("Robots.Indexable = true, want the raw noindex to stand")
		}
	})
	t.Run("click listener added by script", func(t *testing.T) {
		// As served, the three <a> without href are placeholders; rendered,
		// the one a script gave a click listener is a link crawlers cannot
		// follow, the one with a mouseover listener stays a placeholder.
		raw := analyze(t, "/listeners", render.None)
		assertHas(t, raw, nil, []string{"links.uncrawlable"})
		rep := analyze(t, "/listeners", render.Always)
		assertHas(t, rep, []string{"links.uncrawlable"}, nil)
		var f *seo.Finding
		for i := range rep.Findings {
			if rep.Findings[i].ID == "links.uncrawlable" {
				f = &rep.Findings[i]
			}
		}
		if f == nil {
			return
		}
		if f.Count != 1 || f.Evidence.Element != `<a class="menu">` || !strings.Contains(f.Evidence.Detail, "click-type event listener") {
			t.Errorf("links.uncrawlable = %d, %+v; want the menu alone", f.Count, f.Evidence)
		}
		if l := rep.Render.Listeners; l == nil || l.Anchors != 3 || l.Checked != 3 || l.Clickable != 1 {
			t.Errorf("Render.Listeners = %+v (%s), want 3 anchors checked, 1 clickable", l, rep.Render.ListenersReason)
		}
	})
	t.Run("shadow roots", func(t *testing.T) {
		// Google flattens shadow and light DOM when it renders: the links
		// and heading of open shadow roots are the page's, those of a
		// closed one are out of reach. Both readings of the DOM.
		for _, path := range []string{"/components", "/components-big"} {
			rep := analyze(t, path, render.Always)
			var links []string
			for _, l := range rep.Links.List {
				links = append(links, strings.TrimPrefix(l.URL, srv.URL))
			}
			slices.Sort(links)
			if want := []string{"/light", "/nested-only", "/shadow-only"}; rep.Links.Internal != 3 || !slices.Equal(links, want) {
				t.Errorf("%s: %d internal links %v, want %v", path, rep.Links.Internal, links, want)
			}
			if l := rep.Render.LinksOnlyRendered; l == nil || l.Count != 2 {
				t.Errorf("%s: LinksOnlyRendered = %+v, want the 2 shadow links", path, l)
			}
			if !slices.Contains(rep.Headings, analyzer.Heading{Level: 2, Text: "Shadow heading"}) {
				t.Errorf("%s: headings %+v, want the shadow root's h2", path, rep.Headings)
			}
		}
	})
	t.Run("uncaught errors", func(t *testing.T) {
		rep := analyze(t, "/errors", render.Always)
		assertHas(t, rep, []string{"render.js_errors", "render.console_errors"}, nil)
		if len(rep.Render.Errors) == 0 || !strings.Contains(rep.Render.Errors[0].Text, "undefinedFunction") {
			t.Errorf("Errors = %+v", rep.Render.Errors)
		}
	})
}

// assertHas checks that the report has every ID of want and none of absent.
func assertHas(t *testing.T, rep *analyzer.Report, want, absent []string) {
	t.Helper()
	var got []string
	for _, f := range rep.Findings {
		got = append(got, f.ID)
	}
	for _, id := range want {
		if !slices.Contains(got, id) {
			t.Errorf("missing %s; got %v", id, got)
		}
	}
	for _, id := range absent {
		if slices.Contains(got, id) {
			t.Errorf("unexpected %s", id)
		}
	}
}
