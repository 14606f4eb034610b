package chromium

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/seokit/seokit/render"
)

// testBrowser starts headless Chromium, without proxy, for the test and
// returns its context; it stops when the test ends.
func testBrowser(t *testing.T) context.Context {
	t.Helper()
	requireBrowser(t)
	path, err := findExec("")
	if err != nil {
		t.Fatal(err)
	}
	actx, cancel := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(path),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()),
	)
	t.Cleanup(cancel)
	bctx, cancel2 := chromedp.NewContext(actx)
	t.Cleanup(cancel2)
	if err := chromedp.Do(bctx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return bctx
}

// testTab opens a tab with the mobile device metrics the pool sets,
// installs the vitals script, loads u and waits until the expression done
// (if any) is true.
func testTab(t *testing.T, bctx context.Context, u, done string) context.Context {
	t.Helper()
	tctx, cancel := chromedp.NewContext(bctx)
	t.Cleanup(cancel)
	if err := chromedp.Do(tctx,
		chromedp.EmulateViewport(412, 915, chromedp.EmulateScale(2.625), chromedp.EmulateMobile, chromedp.EmulateTouch, chromedp.EmulatePortrait),
		installVitals(),
	); err != nil {
		t.Fatalf("set up tab: %v", err)
	}
	nctx, ncancel := context.WithTimeout(tctx, 30*time.Second)
	defer ncancel()
	if err := chromedp.Do(nctx, chromedp.Navigate(u)); err != nil {
		t.Fatalf("navigate %s: %v", u, err)
	}
	if done != "" {
		if _, err := chromedp.Run(nctx, chromedp.Poll[bool](done, chromedp.WithPollingInterval(50*time.Millisecond))); err != nil {
			t.Fatalf("wait for %s on %s: %v", done, u, err)
		}
	}
	// A short settle, as the renderer waits after network idle.
	if err := chromedp.Do(nctx, chromedp.Sleep(300*time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	return tctx
}

// vitalsSite serves the test pages.
func vitalsSite(t *testing.T) *httptest.Server {
	t.Helper()
	hero := testPNG(t, 400, 300)
	pages := map[string]string{}
	for _, name := range []string{"shift", "lcp", "longtask", "fast", "blank", "long", "huge", "input"} {
		b, err := os.ReadFile(filepath.Join("testdata", "vitals", name+".html"))
		if err != nil {
			t.Fatal(err)
		}
		pages["/"+name] = string(b)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/hero.png", func(w http.ResponseWriter, r *http.Request) {
		select { // the slow hero image: served after 3 s
		case <-time.After(3 * time.Second):
		case <-r.Context().Done():
			return
		}
		w.Header().Set("Content-Type", "image/png")
		w.Write(hero)
	})
	mux.HandleFunc("/data.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"a":1}`))
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		p, ok := pages[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(p))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func testPNG(t *testing.T, w, h int) []byte {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.RGBA{uint8(x), uint8(y), 200, 255})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// between checks lo <= *v < hi.
func between(t *testing.T, name string, v *float64, lo, hi float64) {
	t.Helper()
	if v == nil {
		t.Errorf("%s = nil, want in [%v, %v)", name, lo, hi)
		return
	}
	if *v < lo || *v >= hi {
		t.Errorf("%s = %v, want in [%v, %v)", name, *v, lo, hi)
	}
}

// TestVitals measures the lab Web Vitals of local pages in real Chromium.
// The ranges are wide: these are lab figures on a busy machine. Delays the
// pages inject are lower bounds.
func TestVitals(t *testing.T) {
	bctx := testBrowser(t)
	srv := vitalsSite(t)
	read := func(t *testing.T, path, done string) (*render.Vitals, string) {
		t.Helper()
		v, reason, err := readVitals(testTab(t, bctx, srv.URL+path, done))
		if err != nil {
			t.Fatalf("readVitals %s: %v", path, err)
		}
		t.Logf("%s: reason %q vitals %s", path, reason, dump(v))
		return v, reason
	}
	needVitals := func(t *testing.T, v *render.Vitals, reason string) {
		t.Helper()
		if v == nil {
			t.Fatalf("vitals nil (%s), want figures", reason)
		}
	}

	t.Run("layout shift", func(t *testing.T) {
		v, reason := read(t, "/shift", "window.shifted === true")
		needVitals(t, v, reason)
		between(t, "CLS", v.CLS, 0.2, 0.6)
		if len(v.Shifts) == 0 {
			t.Fatal("no shift kept")
		}
		if !strings.Contains(strings.Join(v.Shifts[0].Elements, " "), "div#content.article") {
			t.Errorf("largest shift moved %q, want div#content.article among them", v.Shifts[0].Elements)
		}
	})
	t.Run("shift after input", func(t *testing.T) {
		tctx := testTab(t, bctx, srv.URL+"/input", "")
		// Past the first 500 ms, whose shifts Chromium flags anyway.
		ctx, cancel := context.WithTimeout(tctx, 30*time.Second)
		defer cancel()
		if _, err := chromedp.Run(ctx, chromedp.Poll[bool]("performance.now() > 1000", chromedp.WithPollingInterval(50*time.Millisecond))); err != nil {
			t.Fatal(err)
		}
		if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#more"))); err != nil {
			t.Fatalf("click: %v", err)
		}
		if _, err := chromedp.Run(ctx, chromedp.Poll[bool]("window.shifted === true", chromedp.WithPollingInterval(50*time.Millisecond))); err != nil {
			t.Fatal(err)
		}
		v, reason, err := readVitals(tctx)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("/input: reason %q vitals %s", reason, dump(v))
		needVitals(t, v, reason)
		between(t, "CLS", v.CLS, 0, 0.01)
		if len(v.Shifts) != 0 {
			t.Errorf("shifts after input kept: %+v", v.Shifts)
		}
	})
	t.Run("slow LCP", func(t *testing.T) {
		v, reason := read(t, "/lcp", "document.getElementById('hero').complete")
		needVitals(t, v, reason)
		between(t, "LCP", v.LCP, 3000, 6000)
		if v.LCPElement != "img#hero" {
			t.Errorf("LCP element %q, want img#hero", v.LCPElement)
		}
		between(t, "FCP", v.FCP, 0, 3000)
	})
	t.Run("long task", func(t *testing.T) {
		v, reason := read(t, "/longtask", "window.busyDone === true")
		needVitals(t, v, reason)
		between(t, "TBT", v.TBT, 300, 5000)
	})
	t.Run("fast page", func(t *testing.T) {
		v, reason := read(t, "/fast", "")
		needVitals(t, v, reason)
		between(t, "LCP", v.LCP, 0, 2500)
		between(t, "FCP", v.FCP, 0, 2500)
		between(t, "CLS", v.CLS, 0, 0.1)
		between(t, "TBT", v.TBT, 0, 200)
		between(t, "TTFB", v.TTFB, 0, 2000)
		if v.LCPElement != "h1.title" {
			t.Errorf("LCP element %q, want h1.title", v.LCPElement)
		}
		if v.DOMElements < 8 || v.DOMElements > 20 {
			t.Errorf("DOMElements = %d, want the page's 10 or so", v.DOMElements)
		}
	})
	t.Run("no contentful paint", func(t *testing.T) {
		v, reason := read(t, "/blank", "")
		if v == nil {
			if reason == "" {
				t.Fatal("nil vitals without a reason")
			}
			return
		}
		if v.LCP != nil || v.FCP != nil || v.TBT != nil {
			t.Errorf("LCP %v, FCP %v, TBT %v: want nil without a contentful paint", v.LCP, v.FCP, v.TBT)
		}
		if v.LCPElement != "" {
			t.Errorf("LCP element %q without LCP", v.LCPElement)
		}
	})
	t.Run("not HTML", func(t *testing.T) {
		v, reason := read(t, "/data.json", "")
		if v != nil || !strings.Contains(reason, "not an HTML document") {
			t.Errorf("vitals %s, reason %q: want nil, not an HTML document", dump(v), reason)
		}
	})
}

// dump shows v as its JSON.
func dump(v *render.Vitals) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestParseVitals checks what readVitals accepts from a page, which may be
// hostile: implausible figures become nil, lists and texts are capped.
func TestParseVitals(t *testing.T) {
	long := strings.Repeat("x", 500)
	many := `[` + strings.Repeat(`{"value":0.1,"elements":["a","b","c","d","e","f","g"]},`, 9) + `{"value":0.1,"elements":[]}]`
	tests := []struct {
		name, in string
		wantNil  string // reason substring when nil is expected
		check    func(t *testing.T, v *render.Vitals)
	}{
		{name: "script absent", in: "", wantNil: "did not run"},
		{name: "garbage", in: "{", wantNil: "no figures"},
		{name: "too large", in: `{"contentType":"text/html","x":"` + strings.Repeat("a", maxVitalsJSON) + `"}`, wantNil: "too much"},
		{name: "image", in: `{"contentType":"image/png","ttfb":5}`, wantNil: "not an HTML document (image/png)"},
		{name: "nothing measured", in: `{"contentType":"text/html","domElements":3}`, wantNil: "no paint"},
		{name: "implausible figures", in: `{"contentType":"text/html","lcp":-1,"lcpElement":"img","cls":-0.5,"tbt":1e300,"fcp":12.345,"ttfb":null,"domElements":-4}`,
			check: func(t *testing.T, v *render.Vitals) {
				if v.LCP != nil || v.LCPElement != "" || v.CLS != nil || v.TBT != nil || v.TTFB != nil {
					t.Errorf("implausible figures kept: %s", dump(v))
				}
				if v.FCP == nil || *v.FCP != 12.3 || v.DOMElements != 0 {
					t.Errorf("FCP %v DOMElements %d, want 12.3 and 0", v.FCP, v.DOMElements)
				}
			}},
		{name: "caps", in: `{"contentType":"application/xhtml+xml","lcp":100,"lcpElement":"` + long + "\\u0007" + `","cls":0.123456,"shifts":` + many + `}`,
			check: func(t *testing.T, v *render.Vitals) {
				if len([]rune(v.LCPElement)) != maxElementDesc || strings.ContainsRune(v.LCPElement, 7) {
					t.Errorf("LCP element not clipped: %d runes", len([]rune(v.LCPElement)))
				}
				if *v.CLS != 0.1235 || len(v.Shifts) != maxShifts {
					t.Errorf("CLS %v, %d shifts; want 0.1235, %d", *v.CLS, len(v.Shifts), maxShifts)
				}
				for _, s := range v.Shifts {
					if len(s.Elements) > maxShiftSources || s.Elements == nil {
						t.Errorf("shift elements %q, want at most %d, never nil", s.Elements, maxShiftSources)
					}
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, reason := parseVitals(tt.in)
			if tt.wantNil != "" {
				if v != nil || !strings.Contains(reason, tt.wantNil) {
					t.Errorf("got %s, %q; want nil, %q", dump(v), reason, tt.wantNil)
				}
				return
			}
			if v == nil {
				t.Fatalf("nil vitals: %s", reason)
			}
			tt.check(t, v)
		})
	}
}

// TestPoolVitals renders through the pool, as seokit does: the Result
// carries the lab vitals and the screenshots of the rendering.
func TestPoolVitals(t *testing.T) {
	srv := vitalsSite(t)
	p := newTestPool(t, &Options{Fetcher: testFetcher(t, srv)})
	render1 := func(t *testing.T, req *render.Request) *render.Result {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		res, err := p.Render(ctx, req)
		if err != nil {
			t.Fatalf("Render %s: %v", req.URL, err)
		}
		t.Logf("%s: timed out %v, reason %q, vitals %s", req.URL, res.TimedOut, res.VitalsReason, dump(res.Vitals))
		if res.Vitals == nil {
			t.Fatalf("no vitals: %q", res.VitalsReason)
		}
		return res
	}
	t.Run("layout shift, full page", func(t *testing.T) {
		// The banner comes 1.2 s after the start: settle past it.
		res := render1(t, &render.Request{URL: srv.URL + "/shift", Settle: 2 * time.Second, Screenshot: render.FullPage})
		between(t, "CLS", res.Vitals.CLS, 0.2, 0.6)
		if len(res.Vitals.Shifts) == 0 || !slices.Contains(res.Vitals.Shifts[0].Elements, "div#content.article") {
			t.Errorf("shifts %+v, want div#content.article moved", res.Vitals.Shifts)
		}
		if w, h := pngSize(t, res.Screenshot); w != res.Viewport.Width || h != res.Viewport.Height {
			t.Errorf("viewport PNG %d×%d, want the viewport's %+v", w, h, res.Viewport)
		}
		if w, h := pngSize(t, res.FullScreenshot); w != res.Viewport.Width || h < res.Viewport.Height {
			t.Errorf("full-page PNG %d×%d, want %d wide and at least the viewport's height", w, h, res.Viewport.Width)
		}
	})
	t.Run("slow LCP, desktop", func(t *testing.T) {
		res := render1(t, &render.Request{URL: srv.URL + "/lcp", Device: render.Desktop, Screenshot: render.Viewport})
		between(t, "LCP", res.Vitals.LCP, 3000, 6000)
		if res.Vitals.LCPElement != "img#hero" {
			t.Errorf("LCP element %q, want img#hero", res.Vitals.LCPElement)
		}
		if w, h := pngSize(t, res.Screenshot); w != res.Viewport.Width || h != res.Viewport.Height {
			t.Errorf("viewport PNG %d×%d, want the viewport's %+v", w, h, res.Viewport)
		}
		if res.FullScreenshot != nil {
			t.Error("full-page PNG without a request")
		}
	})
}
