package rendertest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seokit/seokit/render"
	"github.com/seokit/seokit/seo"
)

// RebindHost is a host name the suite's resolver maps to a private address
// (10.0.0.1), as a DNS rebinding attack would; it is never dialled.
const RebindHost = "rebind.test"

// Resolver is the suite's fake resolver: RebindHost resolves to 10.0.0.1,
// every other name fails.
type Resolver struct{}

// LookupIPAddr implements seo.Resolver.
func (Resolver) LookupIPAddr(_ context.Context, host string) ([]net.IPAddr, error) {
	if strings.EqualFold(strings.TrimSuffix(host, "."), RebindHost) {
		return []net.IPAddr{{IP: net.ParseIP("10.0.0.1")}}, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

// Fetcher returns a fetcher that allows exactly the given test servers
// (their address and port) and resolves names with [Resolver].
func Fetcher(t testing.TB, servers ...*httptest.Server) *seo.Fetcher {
	t.Helper()
	var prefixes []netip.Prefix
	var ports []int
	for _, s := range servers {
		ap, err := netip.ParseAddrPort(s.Listener.Addr().String())
		if err != nil {
			t.Fatalf("rendertest: server address: %v", err)
		}
		prefixes = append(prefixes, netip.PrefixFrom(ap.Addr(), ap.Addr().BitLen()))
		ports = append(ports, int(ap.Port()))
	}
	return seo.NewFetcher(&seo.FetcherOptions{AllowAddrs: prefixes, AllowedPorts: ports, Resolver: Resolver{}})
}

// Counter is an http.Handler that counts the requests it gets and answers
// 204; a canary that must stay at zero.
type Counter struct{ n atomic.Int64 }

// ServeHTTP counts the request.
func (c *Counter) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	c.n.Add(1)
	w.WriteHeader(http.StatusNoContent)
}

// Count is the number of requests served.
func (c *Counter) Count() int64 { return c.n.Load() }

// SPA is a client-rendered page: its title, a link to /about, a canonical
// and JSON-LD exist only once its script ran.
const SPA = `<!doctype html><html><head><title>Loading</title></head><body><div id="app"></div>
<script>
document.title = 'Rendered title';
const l = document.createElement('link'); l.rel = 'canonical'; l.href = location.origin + '/canonical';
document.head.appendChild(l);
const a = document.createElement('a'); a.href = '/about'; a.textContent = 'About us';
document.getElementById('app').appendChild(a);
const s = document.createElement('script'); s.type = 'application/ld+json';
s.textContent = JSON.stringify({"@context": "https://schema.org", "@type": "Organization", "name": "Acme"});
document.head.appendChild(s);
</script></body></html>`

// attackPage tries to reach the canary on another port, and on the
// site's own (allowed) port a second loopback address, a cloud metadata
// address and a rebinding host, by fetch, XHR, image and WebSocket.
func attackPage(canary string) string {
	return `<!doctype html><html><head><title>attack</title></head><body>
<img src="http://` + canary + `/img.png">
<script>
const p = location.port;
const same = (host, path) => 'http://' + host + ':' + p + path;
fetch('http://` + canary + `/fetch').catch(() => {});
fetch('https://` + canary + `/tls').catch(() => {});
const x = new XMLHttpRequest(); x.open('GET', 'http://` + canary + `/xhr'); x.send();
try { new WebSocket('ws://` + canary + `/ws'); } catch (e) {}
fetch(same('169.254.169.254', '/latest/meta-data/')).catch(() => {});
fetch(same('` + RebindHost + `', '/rebind')).catch(() => {});
fetch(same('127.0.0.2', '/private')).catch(() => {});
const i = new Image(); i.src = same('127.0.0.2', '/private.png'); document.body.appendChild(i);
try { new WebSocket('ws://127.0.0.2:' + p + '/ws'); } catch (e) {}
</script></body></html>`
}

func portOf(hostport string) string {
	_, p, _ := net.SplitHostPort(hostport)
	return p
}

// neverSettles keeps the network busy for ever.
const neverSettles = `<!doctype html><html><head><title>busy</title></head><body><p id="n">0</p>
<script>
let n = 0;
setInterval(() => { fetch('/slow?' + (n++)).catch(() => {}); document.getElementById('n').textContent = String(n); }, 50);
</script></body></html>`

// errorsPage throws, rejects and logs errors.
const errorsPage = `<!doctype html><html><head><title>errors</title></head><body>
<script>console.error('console says no', 42);</script>
<script>Promise.reject(new Error('rejected promise'));</script>
<script>null.boom();</script>
</body></html>`

// componentsPage puts a link and a heading in the open shadow root of a
// custom element (its light child after the root), another link in an open
// root nested in the first one, and a link in a closed root.
const componentsPage = `<!doctype html><html><head><title>components</title></head><body>
<x-card><p>light</p></x-card><x-closed></x-closed><script>
customElements.define("x-inner", class extends HTMLElement {
  connectedCallback() { this.attachShadow({ mode: "open" }).innerHTML = '<a href="/nested">nested</a>'; }
});
customElements.define("x-card", class extends HTMLElement {
  connectedCallback() { this.attachShadow({ mode: "open" }).innerHTML = '<h2>card</h2><a href="/about">about</a><x-inner></x-inner><slot></slot>'; }
});
customElements.define("x-closed", class extends HTMLElement {
  connectedCallback() { this.attachShadow({ mode: "closed" }).innerHTML = '<a href="/closed">closed</a>'; }
});
</script></body></html>`

// Site serves the suite's pages:
//
//	/            SPA
//	/attack      attackPage (needs the canary's host:port in ?canary=)
//	/busy        neverSettles; /slow answers after a second
//	/components  componentsPage
//	/errors      errorsPage
//	/redirect    302 to http://169.254.169.254 on the site's port
func Site() http.Handler {
	mux := http.NewServeMux()
	html := func(body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			io.WriteString(w, body)
		}
	}
	mux.HandleFunc("/{$}", html(SPA))
	mux.HandleFunc("/about", html("<!doctype html><title>About</title>"))
	mux.HandleFunc("/attack", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, attackPage(r.URL.Query().Get("canary")))
	})
	mux.HandleFunc("/busy", html(neverSettles))
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(time.Second):
		case <-r.Context().Done():
		}
		io.WriteString(w, "ok")
	})
	mux.HandleFunc("/components", html(componentsPage))
	mux.HandleFunc("/errors", html(errorsPage))
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		_, port, _ := net.SplitHostPort(r.Host)
		http.Redirect(w, r, "http://"+net.JoinHostPort("169.254.169.254", port)+"/latest/meta-data/", http.StatusFound)
	})
	return mux
}

// Run checks what every render.Renderer must do. newRenderer makes the
// renderer under test with the fetcher whose address policy it must obey
// for every request of the page; a renderer that is an io.Closer is closed
// at the end.
func Run(t *testing.T, newRenderer func(f *seo.Fetcher) render.Renderer) {
	t.Helper()
	site := httptest.NewServer(Site())
	defer site.Close()
	canary := &Counter{}
	canarySrv := httptest.NewServer(canary)
	defer canarySrv.Close()
	r := newRenderer(Fetcher(t, site))
	if c, ok := r.(io.Closer); ok {
		defer c.Close()
	}
	render1 := func(t *testing.T, req *render.Request) (*render.Result, error) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		return r.Render(ctx, req)
	}

	t.Run("SPA", func(t *testing.T) {
		res, err := render1(t, &render.Request{URL: site.URL + "/"})
		if err != nil {
			t.Fatal(err)
		}
		html := string(res.HTML)
		for _, want := range []string{"<title>Rendered title</title>", `href="/about"`, `"@type":"Organization"`, `rel="canonical"`} {
			if !strings.Contains(html, want) {
				t.Errorf("rendered HTML lacks %s:\n%s", want, seo.Clip(html))
			}
		}
		if !strings.HasPrefix(strings.ToLower(html), "<!doctype html>") {
			t.Errorf("rendered HTML lacks its doctype: %.60s", html)
		}
		if res.Status != http.StatusOK || res.FinalURL != site.URL+"/" || res.URL != site.URL+"/" {
			t.Errorf("status %d, URL %s, final URL %s", res.Status, res.URL, res.FinalURL)
		}
		if res.Device != render.Mobile || res.Viewport.Width != 412 || !strings.Contains(res.UserAgent, "seokit") {
			t.Errorf("device %q viewport %+v user agent %q", res.Device, res.Viewport, res.UserAgent)
		}
		if len(res.Resources) == 0 || res.Resources[0].Type != "document" || res.Resources[0].Outcome != render.OutcomeOK {
			t.Errorf("resources %+v: want the document first", res.Resources)
		}
		if res.TimedOut {
			t.Error("TimedOut on a page that settles")
		}
	})

	t.Run("AddressRefusals", func(t *testing.T) {
		sitePort := portOf(site.Listener.Addr().String())
		// A second canary on the site's own port, at an address the policy
		// refuses; skipped where 127.0.0.2 cannot be bound.
		private := &Counter{}
		if ln, err := net.Listen("tcp", "127.0.0.2:"+sitePort); err == nil {
			srv := &httptest.Server{Listener: ln, Config: &http.Server{Handler: private}}
			srv.Start()
			defer srv.Close()
		}
		c := canarySrv.Listener.Addr().String()
		res, err := render1(t, &render.Request{URL: site.URL + "/attack?canary=" + c})
		if err != nil {
			t.Fatal(err)
		}
		if n := canary.Count() + private.Count(); n != 0 {
			t.Errorf("the canaries got %d requests", n)
		}
		same := func(host, path string) string { return "http://" + net.JoinHostPort(host, sitePort) + path }
		want := map[string]string{ // URL → a part of the refusal's reason
			"http://" + c + "/img.png":                                "port",
			"http://" + c + "/fetch":                                  "port",
			"https://" + c + "/tls":                                   "port",
			"http://" + c + "/xhr":                                    "port",
			"ws://" + c + "/ws":                                       "port",
			same("169.254.169.254", "/latest/meta-data/"):             "metadata",
			same(RebindHost, "/rebind"):                               "10.0.0.1",
			same("127.0.0.2", "/private"):                             "127.0.0.2",
			same("127.0.0.2", "/private.png"):                         "127.0.0.2",
			"ws://" + net.JoinHostPort("127.0.0.2", sitePort) + "/ws": "127.0.0.2",
		}
		seen := map[string]bool{}
		for _, rs := range res.Resources {
			why, ok := want[rs.URL]
			if !ok {
				continue
			}
			seen[rs.URL] = true
			if rs.Outcome != render.OutcomeAddress || !strings.Contains(rs.Error, why) {
				t.Errorf("%s (%s): outcome %q, error %q; want %q naming %q", rs.URL, rs.Type, rs.Outcome, rs.Error, render.OutcomeAddress, why)
			}
		}
		for u := range want {
			if !seen[u] {
				t.Errorf("%s is not reported", u)
			}
		}
	})

	t.Run("RedirectToForbiddenAddress", func(t *testing.T) {
		res, err := render1(t, &render.Request{URL: site.URL + "/redirect"})
		if err == nil {
			t.Fatalf("no error; status %d, final URL %s", res.Status, res.FinalURL)
		}
		if !errors.Is(err, seo.ErrForbiddenAddress) || !strings.Contains(err.Error(), "metadata") {
			t.Errorf("error %v does not wrap seo.ErrForbiddenAddress naming the metadata address", err)
		}
	})

	t.Run("TimeoutHonoured", func(t *testing.T) {
		const timeout = 3 * time.Second
		start := time.Now()
		res, err := render1(t, &render.Request{URL: site.URL + "/busy", Timeout: timeout})
		elapsed := time.Since(start)
		if err != nil {
			t.Fatal(err)
		}
		if !res.TimedOut {
			t.Error("TimedOut not set on a page that never settles")
		}
		// Slack for a busy machine: stopping the page and reading the DOM.
		if elapsed > timeout+15*time.Second {
			t.Errorf("rendering took %s with a %s budget", elapsed, timeout)
		}
		if !strings.Contains(string(res.HTML), `id="n"`) {
			t.Errorf("no DOM taken at the timeout: %.200s", res.HTML)
		}
	})

	t.Run("ShadowRoots", func(t *testing.T) {
		res, err := render1(t, &render.Request{URL: site.URL + "/components"})
		if err != nil {
			t.Fatal(err)
		}
		html := string(res.HTML)
		want := `<x-card><template shadowrootmode="open"><h2>card</h2><a href="/about">about</a>` +
			`<x-inner><template shadowrootmode="open"><a href="/nested">nested</a></template></x-inner><slot></slot></template><p>light</p></x-card>`
		if !strings.Contains(html, want) || !strings.Contains(html, "<x-closed></x-closed>") {
			t.Errorf("rendered HTML lacks the open shadow roots as declarative shadow DOM (%s), or has the closed one:\n%s", want, seo.Clip(html))
		}
	})

	t.Run("ErrorsReported", func(t *testing.T) {
		res, err := render1(t, &render.Request{URL: site.URL + "/errors"})
		if err != nil {
			t.Fatal(err)
		}
		joined := func(ms []render.Message) string {
			var b strings.Builder
			for _, m := range ms {
				fmt.Fprintf(&b, "%s\n", m.Text)
			}
			return b.String()
		}
		errs, console := joined(res.Errors), joined(res.Console)
		for _, want := range []string{"rejected promise", "boom"} {
			if !strings.Contains(errs, want) {
				t.Errorf("errors lack %q: %q", want, errs)
			}
		}
		if !strings.Contains(console, "console says no 42") {
			t.Errorf("console lacks the console.error: %q", console)
		}
	})
}
