// Command render-report makes docs/render-report.png, the README's picture
// of the raw-vs-rendered comparison: it serves a client-rendered
// single-page application on 127.0.0.1, analyses it with rendering
// "always" through render/chromium, writes the analyzer's HTML page report
// and screenshots its Rendering section in headless Chromium.
//
// Usage (from the repository root; needs Chromium, $SEOKIT_CHROMIUM or
// chromium on PATH):
//
//	go run ./scripts/render-report [-o docs/render-report.png] [-html report.html]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/seokit/seokit/analyzer"
	"github.com/seokit/seokit/render"
	"github.com/seokit/seokit/render/chromium"
	"github.com/seokit/seokit/seo"
)

// spa is the application: its shell has no title, canonical, heading,
// links or structured data; its script writes them all.
var spa = map[string]string{
	"/": `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<script src="/app.js" defer></script></head><body><div id="root"></div></body></html>`,
	"/app.js": `document.title = "Oak dining tables, made to order | Northwood Furniture";
var m = document.createElement("meta"); m.name = "description";
m.content = "Solid oak dining tables built to your size in our Yorkshire workshop, delivered in six weeks with a ten-year guarantee.";
document.head.appendChild(m);
var l = document.createElement("link"); l.rel = "canonical"; l.href = location.origin + "/"; document.head.appendChild(l);
var s = document.createElement("script"); s.type = "application/ld+json";
s.textContent = JSON.stringify({"@context": "https://schema.org", "@type": "Organization", "name": "Northwood Furniture", "url": location.origin + "/"});
document.head.appendChild(s);
var p = [];
for (var i = 0; i < 12; i++) p.push("Each table is cut from air-dried oak, jointed by hand and finished with hard wax oil so that it lasts for generations.");
document.getElementById("root").innerHTML = "<header><h1>Oak dining tables, made to order</h1></header><main><p>" + p.join(" ") +
  "</p><nav><a href=\"/tables\">Tables</a> <a href=\"/chairs\">Chairs</a> <a href=\"/workshop\">Our workshop</a> <a href=\"/contact\">Contact</a></nav></main>";
document.body.style.font = "18px Georgia, serif";`,
	"/robots.txt": "User-agent: *\nAllow: /\n",
}

func main() {
	out := flag.String("o", filepath.Join("docs", "render-report.png"), "PNG to write")
	htmlOut := flag.String("html", "", "also keep the HTML report here")
	flag.Parse()
	if err := run(*out, *htmlOut); err != nil {
		log.Fatal(err)
	}
}

func run(out, htmlOut string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: http.HandlerFunc(serveSPA), ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	defer srv.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	// The browser may reach this server only: loopback and its port.
	fetcher := seo.NewFetcher(&seo.FetcherOptions{AllowAddrs: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}, AllowedPorts: []int{port}})
	pool, err := chromium.New(ctx, &chromium.Options{Browsers: 1, Tabs: 1, Fetcher: fetcher})
	if err != nil {
		return err
	}
	defer pool.Close()
	rep, err := analyzer.Analyze(ctx, "http://127.0.0.1:"+strconv.Itoa(port)+"/", &analyzer.Options{Fetcher: fetcher,
		Render: render.Always, Renderer: pool, RenderRequest: render.Request{Settle: 200 * time.Millisecond, Screenshot: render.Viewport}})
	if err != nil {
		return err
	}
	if rep.Render == nil || !rep.Render.Rendered {
		return errors.New("the page was not rendered")
	}
	dir, err := os.MkdirTemp("", "render-report")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	page := filepath.Join(dir, "report.html")
	f, err := os.Create(page)
	if err != nil {
		return err
	}
	if err := rep.WriteHTML(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if htmlOut != "" {
		b, _ := os.ReadFile(page)
		if err := os.WriteFile(htmlOut, b, 0o644); err != nil {
			return err
		}
	}
	png, err := shoot(ctx, page)
	if err != nil {
		return err
	}
	fmt.Printf("%s: %d bytes\n", out, len(png))
	return os.WriteFile(out, png, 0o644)
}

func serveSPA(w http.ResponseWriter, r *http.Request) {
	body, ok := spa[r.URL.Path]
	if !ok {
		http.NotFound(w, r)
		return
	}
	switch filepath.Ext(r.URL.Path) {
	case ".js":
		w.Header().Set("Content-Type", "text/javascript")
	case ".txt":
		w.Header().Set("Content-Type", "text/plain")
	default:
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
	}
	fmt.Fprint(w, body)
}

// shoot opens the report file in its own headless Chromium and returns a
// 1280×900 screenshot scrolled to its Rendering section.
func shoot(ctx context.Context, page string) ([]byte, error) {
	bin := os.Getenv("SEOKIT_CHROMIUM")
	if bin == "" {
		for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
			if p, err := exec.LookPath(name); err == nil {
				bin = p
				break
			}
		}
	}
	if bin == "" {
		return nil, errors.New("no Chromium found: set SEOKIT_CHROMIUM")
	}
	actx, cancel := chromedp.NewExecAllocator(ctx, chromedp.ExecPath(bin), chromedp.Headless, chromedp.NoSandbox,
		chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.WindowSize(1280, 900))
	defer cancel()
	bctx, cancel2 := chromedp.NewContext(actx)
	defer cancel2()
	if err := chromedp.Do(bctx, chromedp.Navigate("file://"+page)); err != nil {
		return nil, err
	}
	found, err := chromedp.Run(bctx, chromedp.Evaluate[bool](`(() => {
		const h = [...document.querySelectorAll("h2")].find(h => h.textContent.trim() === "Rendering");
		if (!h) return false;
		window.scrollTo(0, h.getBoundingClientRect().top + window.scrollY - 16);
		return true;
	})()`))
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, errors.New("the report has no Rendering section")
	}
	return chromedp.Run(bctx, chromedp.CaptureScreenshot())
}
