package analyzer

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seokit/seokit/seo"
)

// testFetcher is a plain http.Client fetcher for tests: it follows
// redirects unless NoFollow, caps and optionally discards bodies, and
// reaches loopback servers.
type testFetcher struct {
	client *http.Client
}

func newTestFetcher(t *testing.T) *testFetcher {
	tr := &http.Transport{MaxIdleConnsPerHost: 64}
	t.Cleanup(tr.CloseIdleConnections)
	return &testFetcher{client: &http.Client{Transport: tr}}
}

func (f *testFetcher) Fetch(ctx context.Context, req *seo.Request) (*seo.Response, error) {
	method := req.Method
	if method == "" {
		method = http.MethodGet
	}
	hreq, err := http.NewRequestWithContext(ctx, method, req.URL, nil)
	if err != nil {
		return nil, err
	}
	if req.UserAgent != "" {
		hreq.Header.Set("User-Agent", req.UserAgent)
	}
	var redirects []seo.Redirect
	c := *f.client
	c.CheckRedirect = func(r *http.Request, via []*http.Request) error {
		if req.NoFollow {
			return http.ErrUseLastResponse
		}
		if len(via) >= seo.DefaultMaxRedirects {
			return seo.ErrTooManyRedirects
		}
		prev := via[len(via)-1]
		redirects = append(redirects, seo.Redirect{URL: prev.URL.String(), Status: r.Response.StatusCode, Location: r.Response.Header.Get("Location")})
		return nil
	}
	start := time.Now()
	hresp, err := c.Do(hreq)
	if err != nil {
		return nil, fmt.Errorf("testfetch: %w", err)
	}
	defer hresp.Body.Close()
	limit := req.MaxBodyBytes
	if limit <= 0 {
		limit = seo.DefaultMaxBodyBytes
	}
	data, err := io.ReadAll(io.LimitReader(hresp.Body, limit+1))
	if err != nil {
		return nil, fmt.Errorf("testfetch: %w", err)
	}
	resp := &seo.Response{
		RequestedURL: req.URL, URL: hresp.Request.URL.String(), Status: hresp.StatusCode,
		Header: hresp.Header, Redirects: redirects, ContentType: hresp.Header.Get("Content-Type"),
		Timings: seo.Timings{Total: time.Since(start)}, FetchedAt: start,
	}
	if int64(len(data)) > limit {
		data, resp.Truncated = data[:limit], true
	}
	resp.BodyBytes, resp.TransferredBytes = int64(len(data)), int64(len(data))
	if !req.DiscardBody {
		resp.Body = data
	}
	return resp, nil
}

// fixture reads testdata/<dir>/<name> and replaces {{KEY}} placeholders.
func fixture(t *testing.T, dir, name string, vars map[string]string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", dir, name))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for k, v := range vars {
		s = strings.ReplaceAll(s, "{{"+k+"}}", v)
	}
	return []byte(s)
}

func pngBytes(t *testing.T, w, h int) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewGray(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// findingsWith returns the findings of id whose evidence value ends in suffix.
func findingsWith(rep *Report, id, suffix string) []seo.Evidence {
	var out []seo.Evidence
	for _, ev := range evidence(rep, id) {
		if strings.HasSuffix(ev.Value, suffix) {
			out = append(out, ev)
		}
	}
	return out
}

// requestLog counts requests by method and path.
type requestLog struct {
	mu sync.Mutex
	n  map[string]int
}

func (l *requestLog) add(r *http.Request) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.n == nil {
		l.n = map[string]int{}
	}
	l.n[r.Method+" "+r.URL.Path]++
}

func (l *requestLog) count(key string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.n[key]
}

func (l *requestLog) total(path string) int {
	return l.count("HEAD "+path) + l.count("GET "+path)
}

func TestLinkChecks(t *testing.T) {
	var log requestLog
	mux := http.NewServeMux()
	var intURL string
	vars := func() map[string]string { return map[string]string{"INT": intURL} }
	html := func(name string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write(fixture(t, "linkcheck", name, vars()))
		}
	}
	small := pngBytes(t, 100, 100)
	big := make([]byte, 600_000)
	copy(big, pngBytes(t, 10, 10))
	mux.HandleFunc("/ok", html("de.html"))
	mux.HandleFunc("/ok-external", html("de.html"))
	mux.HandleFunc("/de", html("de.html"))
	mux.HandleFunc("/fr", html("fr.html"))
	mux.HandleFunc("/es", html("es.html"))
	mux.HandleFunc("/canon-noindex", html("canon-noindex.html"))
	mux.HandleFunc("/moved", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/ok", http.StatusMovedPermanently) })
	mux.HandleFunc("/it", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/de", http.StatusFound) })
	mux.HandleFunc("/head-refused", func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodHead {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		w.Write([]byte("fine"))
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(2 * time.Second):
		case <-r.Context().Done():
		}
	})
	servePNG := func(b []byte, length bool) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "image/png")
			if length {
				w.Header().Set("Content-Length", fmt.Sprint(len(b)))
			}
			if r.Method == http.MethodHead {
				return
			}
			for i := 0; i < len(b); i += 32 << 10 { // chunked when no length
				w.Write(b[i:min(i+32<<10, len(b))])
				w.(http.Flusher).Flush()
			}
		}
	}
	mux.HandleFunc("/img/ok.png", servePNG(small, true))
	mux.HandleFunc("/og/small.png", servePNG(small, true))
	mux.HandleFunc("/img/big.png", servePNG(big, true))
	mux.HandleFunc("/img/big-chunked.png", servePNG(big, false))
	mux.HandleFunc("/img/text", html("fr.html"))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		log.add(r)
		mux.ServeHTTP(w, r) // unknown paths answer 404
	}))
	defer srv.Close()
	intURL = srv.URL
	// The same server under another host name is an external site.
	extURL := strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)

	page := fixture(t, "linkcheck", "page.html", map[string]string{"INT": intURL, "EXT": extURL})
	opts := &Options{Depth: Complete, CheckLinks: true, Fetcher: newTestFetcher(t), LinkTimeout: 300 * time.Millisecond}
	rep, err := AnalyzeHTML(context.Background(), intURL+"/page", http.Header{"Content-Type": {"text/html"}}, page, opts)
	if err != nil {
		t.Fatal(err)
	}

	for _, tt := range []struct {
		name, id, target string
		want             bool
	}{
		{"internal 404", "links.broken_internal", "/missing", true},
		{"internal timeout", "links.broken_internal", "/slow", true},
		{"internal ok", "links.broken_internal", "/ok", false},
		{"refresh target 404", "links.broken_internal", "/refresh-missing", true},
		{"HEAD refused then GET ok", "links.broken_internal", "/head-refused", false},
		{"internal redirect", "links.redirect_internal", "/moved", true},
		{"external 404 nofollow", "links.broken_external", extURL + "/gone", true},
		{"external redirect", "links.redirect_external", extURL + "/moved", true},
		{"external ok", "links.broken_external", extURL + "/ok-external", false},
		{"external redirect not internal", "links.redirect_internal", extURL + "/moved", false},
		{"image too large with length", "images.too_large", "/img/big.png", true},
		{"image too large counted", "images.too_large", "/img/big-chunked.png", true},
		{"small image", "images.too_large", "/img/ok.png", false},
		{"image 404", "images.broken", "/img/missing.png", true},
		{"srcset image 404", "images.broken", "/img/srcset-missing.png", true},
		{"picture source 404", "images.broken", "/img/picture-missing.png", true},
		{"srcset URL with commas 404", "images.broken", "/img/w_300,h_200/comma-missing.png", true},
		{"image served as html", "images.broken", "/img/text", true},
		{"image fine", "images.broken", "/img/ok.png", false},
		{"canonical noindex", "canonical.target_noindex", "/canon-noindex", true},
		{"canonical answers", "canonical.target_error", "/canon-noindex", false},
		{"hreflang 404", "hreflang.target_error", "/pt", true},
		{"hreflang redirect", "hreflang.target_redirect", "/it", true},
		{"hreflang fine", "hreflang.target_error", "/de", false},
		{"hreflang return present", "hreflang.return_missing", "/de", false},
		{"hreflang return missing", "hreflang.return_missing", "/fr", true},
		{"hreflang non-canonical", "hreflang.target_non_canonical", "/es", true},
		{"hreflang canonical self", "hreflang.target_non_canonical", "/de", false},
		{"og image small", "social.og_image_small", "/og/small.png", true},
		{"og image fine", "social.og_image_broken", "/og/small.png", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := findingsWith(rep, tt.id, tt.target)
			if tt.want && len(got) == 0 {
				t.Errorf("no %s for %s; findings: %v", tt.id, tt.target, rep.Findings)
			}
			if !tt.want && len(got) > 0 {
				t.Errorf("unexpected %s for %s: %+v", tt.id, tt.target, got)
			}
			if tt.want && len(got) > 1 {
				t.Errorf("%d findings %s for %s, want one per distinct URL", len(got), tt.id, tt.target)
			}
			if _, ok := catalog[tt.id]; !ok {
				t.Errorf("%s is not declared", tt.id)
			}
		})
	}

	t.Run("redirect evidence names the Location", func(t *testing.T) {
		f := findingsWith(rep, "links.redirect_internal", "/moved")
		if len(f) == 0 || len(f[0].URLs) < 2 || f[0].URLs[1] != intURL+"/ok" {
			t.Fatalf("evidence %+v, want URLs [target, %s/ok]", f, intURL)
		}
		if !strings.Contains(f[0].Detail, "301") || !strings.HasPrefix(f[0].Element, "<a") {
			t.Errorf("evidence %+v lacks status or element", f[0])
		}
	})
	t.Run("each URL fetched once", func(t *testing.T) {
		if n := log.total("/ok"); n != 1 {
			t.Errorf("/ok fetched %d times, want 1", n)
		}
		if n := log.count("HEAD /ok"); n != 1 {
			t.Errorf("/ok: %d HEAD requests, want 1", n)
		}
		if log.count("GET /head-refused") != 1 || log.count("HEAD /head-refused") != 1 {
			t.Errorf("/head-refused: want one HEAD then one GET, got %v", log.n)
		}
		if n := log.count("GET /de"); n != 1 {
			t.Errorf("/de fetched with GET %d times, want 1 (hreflang target needs its HTML)", n)
		}
		if n := log.total("/page"); n != 0 {
			t.Errorf("the page itself was fetched %d times as its own alternate", n)
		}
	})
	t.Run("report lists carry statuses", func(t *testing.T) {
		if rep.Links.List == nil {
			t.Skip("no link extractor filled Report.Links.List")
		}
		seen := 0
		for _, l := range rep.Links.List {
			switch {
			case strings.HasSuffix(l.URL, "/missing"):
				seen++
				if l.Status != http.StatusNotFound {
					t.Errorf("link %s status %d, want 404", l.URL, l.Status)
				}
			case strings.HasSuffix(l.URL, "/slow"):
				seen++
				if l.Error == "" || l.Status != 0 {
					t.Errorf("link %s: status %d error %q, want a fetch error", l.URL, l.Status, l.Error)
				}
			case strings.HasSuffix(l.URL, "/moved"):
				seen++
				if l.Status != http.StatusMovedPermanently {
					t.Errorf("link %s status %d, want 301", l.URL, l.Status)
				}
			}
		}
		if seen < 4 {
			t.Errorf("found %d of the /missing, /slow and /moved links in %+v", seen, rep.Links.List)
		}
	})
	t.Run("image list carries bytes", func(t *testing.T) {
		if rep.Images.List == nil {
			t.Skip("no image extractor filled Report.Images.List")
		}
		seen := false
		for _, im := range rep.Images.List {
			if strings.HasSuffix(im.Src, "/img/big.png") {
				seen = true
				if im.Status != 200 || im.Bytes != int64(len(big)) {
					t.Errorf("image %s: status %d bytes %d", im.Src, im.Status, im.Bytes)
				}
			}
		}
		if !seen {
			t.Errorf("/img/big.png not in %+v", rep.Images.List)
		}
	})
}

// concurrencyServer counts requests in flight and the most seen at once.
type concurrencyServer struct {
	inFlight, peak, total atomic.Int64
	mu                    sync.Mutex
	seen                  map[string]int
}

func (c *concurrencyServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := c.inFlight.Add(1)
	defer c.inFlight.Add(-1)
	for {
		p := c.peak.Load()
		if n <= p || c.peak.CompareAndSwap(p, n) {
			break
		}
	}
	c.total.Add(1)
	c.mu.Lock()
	c.seen[r.URL.Path]++
	c.mu.Unlock()
	time.Sleep(2 * time.Millisecond)
}

func linksPage(n int, bases ...string) []byte {
	var b strings.Builder
	b.WriteString("<!doctype html><html><head><title>Many links</title></head><body>")
	for i := 0; i < n; i++ {
		base := bases[i%len(bases)]
		fmt.Fprintf(&b, "<a href=\"%s/p%d\">%d</a><a href=\"%s/p%d#again\">again</a>\n", base, i, i, base, i)
	}
	b.WriteString("</body></html>")
	return []byte(b.String())
}

func TestLinkChecksConcurrency(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name            string
		links, hosts    int
		global, perHost int
		maxChecks       int
		wantChecked     int
	}{
		{name: "one host, per-host limit", links: 1000, hosts: 1, global: 16, perHost: 3, wantChecked: 1000},
		{name: "two hosts, global limit", links: 400, hosts: 2, global: 5, perHost: 4, wantChecked: 400},
		{name: "capped", links: 50, hosts: 1, global: 8, perHost: 8, maxChecks: 20, wantChecked: 20},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cs := &concurrencyServer{seen: map[string]int{}}
			srv := httptest.NewServer(cs)
			defer srv.Close()
			bases := []string{srv.URL, strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)}[:tt.hosts]
			opts := &Options{CheckLinks: true, Fetcher: newTestFetcher(t), LinkConcurrency: tt.global,
				LinkConcurrencyPerHost: tt.perHost, MaxLinkChecks: tt.maxChecks}
			rep, err := AnalyzeHTML(context.Background(), srv.URL+"/", nil, linksPage(tt.links, bases...), opts)
			if err != nil {
				t.Fatal(err)
			}
			limit := int64(min(tt.global, tt.perHost*tt.hosts))
			if p := cs.peak.Load(); p > limit || p < 2 {
				t.Errorf("peak in flight %d, want between 2 and %d", p, limit)
			}
			if tt.hosts > 1 && cs.peak.Load() <= int64(tt.perHost) {
				t.Errorf("peak %d: hosts were not checked in parallel", cs.peak.Load())
			}
			if got := cs.total.Load(); got != int64(tt.wantChecked) {
				t.Errorf("%d requests, want %d (one per distinct URL)", got, tt.wantChecked)
			}
			for path, n := range cs.seen {
				if n > 1 && tt.hosts == 1 {
					t.Errorf("%s fetched %d times", path, n)
				}
			}
			if want := tt.links - tt.wantChecked; rep.Links.Unchecked != want {
				t.Errorf("Unchecked = %d, want %d", rep.Links.Unchecked, want)
			}
			if n := len(findingsWith(rep, "links.broken_internal", "")); n != 0 {
				t.Errorf("%d broken links reported for 200 answers", n)
			}
		})
	}
}

func TestLinkChecksCancelled(t *testing.T) {
	t.Parallel()
	cs := &concurrencyServer{seen: map[string]int{}}
	srv := httptest.NewServer(cs)
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	// A cancelled analysis reports no broken links, nor any report whose
	// targets would read as fine: its context's error.
	rep, err := AnalyzeHTML(ctx, srv.URL+"/", nil, linksPage(20, srv.URL), &Options{CheckLinks: true, Fetcher: newTestFetcher(t)})
	if !errors.Is(err, context.Canceled) || rep != nil {
		t.Fatalf("a cancelled analysis with link checks: report %v, error %v; want no report and context.Canceled", rep != nil, err)
	}
}

func TestWebPSize(t *testing.T) {
	t.Parallel()
	riff := func(chunk string, data []byte) []byte {
		b := []byte("RIFF\x00\x00\x00\x00WEBP" + chunk + "\x00\x00\x00\x00")
		return append(b, data...)
	}
	le24 := func(v int) []byte { return []byte{byte(v), byte(v >> 8), byte(v >> 16)} }
	vp8x := append(append([]byte{0x10, 0, 0, 0}, le24(1199)...), le24(629)...)
	vp8x = append(vp8x, make([]byte, 10)...)
	vp8l := []byte{0x2f}
	bits := uint32(99) | uint32(49)<<14
	vp8l = append(vp8l, byte(bits), byte(bits>>8), byte(bits>>16), byte(bits>>24))
	vp8l = append(vp8l, make([]byte, 10)...)
	vp8 := []byte{0, 0, 0, 0x9d, 0x01, 0x2a, 0x2c, 0x01, 0xc8, 0x00, 0, 0}
	for _, tt := range []struct {
		name   string
		data   []byte
		w, h   int
		wantOK bool
	}{
		{"VP8X extended", riff("VP8X", vp8x), 1200, 630, true},
		{"VP8L lossless", riff("VP8L", vp8l), 100, 50, true},
		{"VP8 lossy", riff("VP8 ", append(vp8, make([]byte, 10)...)), 300, 200, true},
		{"VP8 bad start code", riff("VP8 ", make([]byte, 20)), 0, 0, false},
		{"not webp", pngBytes(t, 3, 4), 0, 0, false},
		{"short", []byte("RIFF"), 0, 0, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w, h, ok := lcWebPSize(tt.data)
			if ok != tt.wantOK || w != tt.w || h != tt.h {
				t.Errorf("got %dx%d %v, want %dx%d %v", w, h, ok, tt.w, tt.h, tt.wantOK)
			}
		})
	}
	if w, h := lcImageSize(pngBytes(t, 640, 320)); w != 640 || h != 320 {
		t.Errorf("PNG size %dx%d, want 640x320", w, h)
	}
}

func TestLinkHelpers(t *testing.T) {
	t.Parallel()
	t.Run("link header", func(t *testing.T) {
		got := lcParseLinkHeader(`<https://a.example/x,y>; rel="canonical", <https://a.example/de>; rel="alternate"; hreflang="de"`)
		if len(got) != 2 || got[0].url != "https://a.example/x,y" || got[0].rel != "canonical" ||
			got[1].hreflang != "de" || got[1].rel != "alternate" {
			t.Errorf("got %+v", got)
		}
	})
	for _, tt := range []struct {
		value string
		want  bool
	}{
		{"noindex", true},
		{"googlebot: noindex, nofollow", true},
		{"otherbot: noindex", false},
		{"unavailable_after: 25 Jun 2010 15:00:00 PST", false},
		{"none", true},
		{"index, follow", false},
	} {
		t.Run("x-robots-tag "+tt.value, func(t *testing.T) {
			if got := lcHeaderNoindex(tt.value); got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

// TestLinkChecksDisabledExternal checks that disabling the external link
// IDs (what the CLI's analyze -skip-external-links does) requests no
// external target, and that the internal ones are still checked.
func TestLinkChecksDisabledExternal(t *testing.T) {
	t.Parallel()
	cs := &concurrencyServer{seen: map[string]int{}}
	srv := httptest.NewServer(cs)
	defer srv.Close()
	ext := strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)
	for _, tt := range []struct {
		name    string
		disable []string
		want    int64
	}{
		{"all checks", nil, 20},
		{"external disabled", []string{"links.broken_external", "links.redirect_external"}, 10},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cs.total.Store(0)
			opts := &Options{CheckLinks: true, Fetcher: newTestFetcher(t), Disable: tt.disable}
			if _, err := AnalyzeHTML(context.Background(), srv.URL+"/", nil, linksPage(20, srv.URL, ext), opts); err != nil {
				t.Fatal(err)
			}
			if got := cs.total.Load(); got != tt.want {
				t.Errorf("%d requests, want %d", got, tt.want)
			}
		})
	}
}
