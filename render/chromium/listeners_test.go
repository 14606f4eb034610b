package chromium

import (
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/seokit/seokit/render"
)

// listenersPage has <a> elements without href with and without listeners
// of each kind; the ids say what each must be.
const listenersPage = `<!doctype html><title>listeners</title><body>
<a id="click-added">added click</a>
<a id="click-property">onclick property</a>
<a id="click-attribute" onclick="void 0">onclick attribute</a>
<a id="pointer-added">pointerdown</a>
<a id="touch-added">touchstart</a>
<a id="hover-only">mouseover only</a>
<a id="click-removed">click added then removed</a>
<a id="bare">bare placeholder</a>
<a id="own-attr" data-seokit-click="page's own">the page's own attribute</a>
<a id="own-attr-click" data-seokit-click="page's own">the page's own attribute and a click</a>
<div id="parent"><a id="in-parent">parent listens</a></div>
<a id="with-href" href="/x">has an href</a>
<svg><a id="svg-click"><text>svg</text></a></svg>
<script>
const $ = (id) => document.getElementById(id);
$("click-added").addEventListener("click", () => { location.href = "/a"; });
$("click-property").onclick = () => { location.href = "/b"; };
$("pointer-added").addEventListener("pointerdown", () => {});
$("touch-added").addEventListener("touchstart", () => {}, { passive: true });
$("hover-only").addEventListener("mouseover", () => {});
const f = () => {};
$("click-removed").addEventListener("click", f);
$("click-removed").removeEventListener("click", f);
$("own-attr-click").addEventListener("mouseup", () => {});
$("parent").addEventListener("click", () => {});
$("with-href").addEventListener("click", () => {});
$("svg-click").addEventListener("click", () => {});
</script>`

// markedIDs returns the ids of the elements of html that carry ClickAttr
// with the value mark.
func markedIDs(html, mark string) []string {
	re := regexp.MustCompile(`<a id="([^"]+)"[^>]*\b` + render.ClickAttr + `="` + regexp.QuoteMeta(mark) + `"`)
	var ids []string
	for _, m := range re.FindAllStringSubmatch(html, -1) {
		ids = append(ids, m[1])
	}
	return ids
}

// TestListeners renders a page whose <a> elements without href get
// listeners by script: those with a click-type listener of their own (not
// a hover listener, not a listener removed again, not a parent's) carry
// the mark in the serialised DOM, the page's own attributes of that name
// are kept, and the counts match the page.
func TestListeners(t *testing.T) {
	srv := serve(t, htmlPage(listenersPage))
	p := newTestPool(t, &Options{Tabs: 1, Fetcher: testFetcher(t, srv)})
	marks := map[string]bool{}
	for _, exact := range []int{domExact, 0} { // outerHTML, then the walk
		defer func(n int) { domExact = n }(domExact)
		domExact = exact
		res := renderOne(t, p, &render.Request{URL: srv.URL + "/"})
		l := res.Listeners
		if l == nil {
			t.Fatalf("no listeners read: %s", res.ListenersReason)
		}
		if len(l.Mark) < 16 || marks[l.Mark] {
			t.Fatalf("mark %q is guessable or reused", l.Mark)
		}
		marks[l.Mark] = true
		html := string(res.HTML)
		got := strings.Join(markedIDs(html, l.Mark), " ")
		const want = "click-added click-property click-attribute pointer-added touch-added own-attr-click"
		if got != want {
			t.Errorf("marked %q, want %q\n%s", got, want, html)
		}
		// 11 HTML <a> without href; the one with href and the SVG one
		// are not counted.
		if l.Anchors != 11 || l.Checked != 11 || l.Clickable != 6 || l.Capped != "" {
			t.Errorf("listeners %+v, want 11 anchors, 11 checked, 6 clickable, no cap", *l)
		}
		if !strings.Contains(html, `<a id="own-attr" data-seokit-click="page's own">`) {
			t.Errorf("the page's own attribute was not kept: %s", html)
		}
		t.Logf("domExact %d: %d anchors read in %.1f ms", exact, l.Checked, l.ElapsedMs)
	}
}

// TestListenersManyAnchors renders pages of 20,000 and 100,000 <a>
// elements without href, every tenth with a click listener: the first
// MaxListenerAnchors are checked (fewer only when the time cap says so),
// every clickable one checked is marked, and the rendering answers within
// its budget and grace. The figures are printed.
func TestListenersManyAnchors(t *testing.T) {
	for _, n := range []int{20000, 100000} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			srv := serve(t, htmlPage(`<!doctype html><title>many</title><body><div hidden id="c"></div><script>
const c = document.getElementById("c"), f = document.createDocumentFragment();
for (let i = 0; i < `+strconv.Itoa(n)+`; i++) {
  const a = document.createElement("a"); a.textContent = "a" + i;
  if (i % 10 === 0) a.addEventListener("click", () => {});
  f.appendChild(a);
}
c.appendChild(f);
</script>`))
			p := newTestPool(t, &Options{Tabs: 1, Fetcher: testFetcher(t, srv)})
			const budget = 20 * time.Second
			start := time.Now()
			res := renderOne(t, p, &render.Request{URL: srv.URL + "/", Timeout: budget})
			took := time.Since(start)
			l := res.Listeners
			if l == nil {
				t.Fatalf("no listeners read: %s", res.ListenersReason)
			}
			t.Logf("%d anchors: %d checked, %d clickable, capped %q; listeners read in %.0f ms, rendering %d ms (%s with the tab)",
				l.Anchors, l.Checked, l.Clickable, l.Capped, l.ElapsedMs, res.ElapsedMs, took.Round(time.Millisecond))
			if l.Anchors != n {
				t.Fatalf("%d anchors counted, want %d", l.Anchors, n)
			}
			want := min(n, MaxListenerAnchors)
			switch {
			case l.Capped == "time":
				// A busy machine: the anchors checked are the first ones.
				if l.Checked >= want || l.ElapsedMs < ListenerTime {
					t.Fatalf("time cap with %d checked in %.0f ms", l.Checked, l.ElapsedMs)
				}
			case l.Checked != want || (l.Capped == "count") != (n > MaxListenerAnchors):
				t.Fatalf("%d checked, capped %q, want %d", l.Checked, l.Capped, want)
			}
			if l.Clickable != (l.Checked+9)/10 {
				t.Fatalf("%d clickable of the first %d, want %d", l.Clickable, l.Checked, (l.Checked+9)/10)
			}
			if got := len(markedIDsAny(string(res.HTML), l.Mark)); got != l.Clickable {
				t.Fatalf("%d marks in the HTML, want %d", got, l.Clickable)
			}
			if limit := budget + grace + prepare; took > limit {
				t.Fatalf("the rendering took %s, beyond its budget and grace", took)
			}
		})
	}
}

// markedIDsAny returns the positions of the marks in html.
func markedIDsAny(html, mark string) []int {
	var at []int
	needle := render.ClickAttr + `="` + mark + `"`
	for i := 0; ; {
		j := strings.Index(html[i:], needle)
		if j < 0 {
			return at
		}
		at = append(at, i+j)
		i += j + len(needle)
	}
}

// TestListenersTimedOut renders a page that never settles: its DOM is
// taken at the budget without its listeners, and the Result says why.
func TestListenersTimedOut(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/", htmlPage(`<!doctype html><title>busy</title><body><a class="m">menu</a><script>
document.querySelector(".m").addEventListener("click", () => {});
setInterval(() => fetch("/ping?" + Math.random()).catch(() => {}), 20);
</script>`))
	mux.HandleFunc("/ping", func(w http.ResponseWriter, r *http.Request) {})
	srv := serve(t, mux)
	p := newTestPool(t, &Options{Tabs: 1, Fetcher: testFetcher(t, srv)})
	res := renderOne(t, p, &render.Request{URL: srv.URL + "/", Timeout: time.Second})
	if !res.TimedOut {
		t.Fatal("TimedOut not set on a page that never settles")
	}
	if res.Listeners != nil || !strings.Contains(res.ListenersReason, "budget ended") || strings.Contains(string(res.HTML), render.ClickAttr) {
		t.Fatalf("listeners %+v, reason %q on a timed-out rendering", res.Listeners, res.ListenersReason)
	}
}

// TestListenersSabotaged renders pages that break what the reading uses:
// the rendering still succeeds, without listeners and with the reason.
func TestListenersSabotaged(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/throws", htmlPage(`<!doctype html><title>throws</title><body><a class="m">menu</a><script>
document.querySelector(".m").addEventListener("click", () => {});
Document.prototype.querySelectorAll = function () { throw new Error("no selectors here"); };
</script>`))
	mux.HandleFunc("/shadowed", htmlPage(`<!doctype html><title>shadowed</title><body><a class="m">menu</a><script>
document.querySelector(".m").addEventListener("click", () => {});
window.getEventListeners = 42;
</script>`))
	srv := serve(t, mux)
	p := newTestPool(t, &Options{Tabs: 1, Fetcher: testFetcher(t, srv)})
	for path, reason := range map[string]string{"/throws": "no selectors here", "/shadowed": "gave no event listeners"} {
		res := renderOne(t, p, &render.Request{URL: srv.URL + path})
		if res.Listeners != nil || !strings.Contains(res.ListenersReason, reason) || !strings.Contains(string(res.HTML), `<a class="m">menu</a>`) {
			t.Errorf("%s: listeners %+v, reason %q, HTML %.300s", path, res.Listeners, res.ListenersReason, res.HTML)
		}
	}
}
