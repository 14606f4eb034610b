package dashboard_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/seokit/seokit/httpapi"
	"github.com/seokit/seokit/httpapi/dashboard"
	"github.com/seokit/seokit/rankings/memstore"
)

// changingSite serves a small site on loopback whose second version
// changes the home page's title, adds /new and turns /about noindex.
func changingSite(t *testing.T) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var version atomic.Int32
	version.Store(1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v2 := version.Load() == 2
		page := func(title, robots, links string) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			meta := ""
			if robots != "" {
				meta = `<meta name="robots" content="` + robots + `">`
			}
			fmt.Fprintf(w, `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>%s</title>%s
<meta name="description" content="A shop for oak furniture made to order in small batches."></head>
<body><h1>%s</h1><p>Oak tables, chairs and shelves, made to order from local wood and delivered to your door.</p>%s</body></html>`, title, meta, title, links)
		}
		switch r.URL.Path {
		case "/":
			if v2 {
				page("Oak furniture made to order – new collection", "", `<a href="/about">About</a> <a href="/new">New</a>`)
			} else {
				page("Oak furniture made to order", "", `<a href="/about">About</a>`)
			}
		case "/about":
			robots := ""
			if v2 {
				robots = "noindex"
			}
			page("About the oak workshop", robots, `<a href="/">Home</a>`)
		case "/new":
			if !v2 {
				http.NotFound(w, r)
				return
			}
			page("The new collection of oak tables", "", `<a href="/">Home</a>`)
		case "/robots.txt":
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprint(w, "User-agent: *\nAllow: /\n")
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, &version
}

// TestProjectEndToEnd drives the project pages in headless Chromium
// against the real /v1 API and its job queue: sign in, create a project,
// run two analyses of a local site that changes between them, see the
// history chart with two points, add a schedule and an alert rule (a test
// alert reaches a local webhook), open the diff (the changed title, the
// new page), and take the screenshots of docs/ (SEOKIT_UPDATE_SCREENSHOTS=1).
func TestProjectEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("e2e: skipped in -short mode")
	}
	ctx := browser(t)
	late := &lateProjectsAPI{}
	e := newEnv(t, &envOptions{realClock: true, opts: dashboard.Options{Analyses: late, Quota: late, Projects: lateProjects{&late.lateAPI}, Schedules: lateSchedules{&late.lateAPI}, Alerts: lateAlerts{&late.lateAPI}}, rankings: memstore.New(nil), api: func(e *env) http.Handler {
		s, err := httpapi.New(context.Background(), &httpapi.Options{Store: e.st, Auth: e.au, AllowPrivate: true, Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatalf("httpapi.New: %v", err)
		}
		if err := s.Start(context.Background()); err != nil {
			t.Fatalf("Start: %v", err)
		}
		t.Cleanup(func() { s.Close() })
		late.s = s
		return s
	}})
	site, version := changingSite(t)
	host := strings.TrimPrefix(site.URL, "http://")
	dir := artefacts(t)
	base := e.srv.URL

	step := func(name string, timeout time.Duration, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		sctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		if err := chromedp.Do(sctx, steps...); err != nil {
			loc, _ := chromedp.Run(ctx, chromedp.Location())
			text, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector("main") ? document.querySelector("main").innerText.slice(0, 2000) : ""`))
			t.Fatalf("%s: %v (at %s)\npage text:\n%s", name, err, loc, text)
		}
	}
	eval := func(js string) string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Evaluate[string](js))
		if err != nil {
			t.Fatalf("evaluate %s: %v", js, err)
		}
		return v
	}

	step("sign in", 15*time.Second,
		chromedp.Navigate(base+"/dashboard/"), chromedp.WaitVisible(chromedp.CSS("#email")),
		chromedp.SendKeys(chromedp.CSS("#email"), testEmail),
		chromedp.SendKeys(chromedp.CSS("#password"), testPassword),
		chromedp.Click(chromedp.CSS("button.primary")),
		chromedp.WaitVisible(chromedp.CSS("a.tile")),
	)
	step("create project", 15*time.Second,
		chromedp.Navigate(base+"/dashboard/projects"), chromedp.WaitVisible(chromedp.CSS("#pj-domain")),
		chromedp.SendKeys(chromedp.CSS("#pj-name"), "Oak workshop"),
		chromedp.SendKeys(chromedp.CSS("#pj-domain"), host),
		chromedp.SendKeys(chromedp.CSS("#pj-keywords"), "oak tables\noak furniture"),
		chromedp.Click(chromedp.CSS("#new-project-h ~ form button.primary")),
		chromedp.WaitVisible(chromedp.CSS("#run-now")),
	)
	projectURL, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}
	projectURL, _, _ = strings.Cut(projectURL, "?")
	for i := range 2 {
		step(fmt.Sprintf("analysis %d", i+1), 60*time.Second,
			chromedp.Navigate(projectURL), chromedp.WaitVisible(chromedp.CSS("#run-now")),
			chromedp.Click(chromedp.CSS("#run-now")),
			chromedp.WaitVisible(chromedp.CSS("#summary-h")),
		)
		version.Store(2)
	}
	step("project view", 15*time.Second, chromedp.Navigate(projectURL), chromedp.WaitVisible(chromedp.CSS("figure.chart.trend")))
	if got := eval(`String(document.querySelectorAll("figure.chart.trend").length) + " " + document.querySelector("figure.chart.trend").querySelectorAll("circle.dot").length`); got != "4 2" {
		t.Fatalf("trend charts and points of the first: %q, want 4 charts, 2 points", got)
	}
	if rows := eval(`String(document.querySelectorAll("table.history tbody tr").length)`); rows != "2" {
		t.Fatalf("history rows %s, want 2", rows)
	}

	// A schedule and an alert rule whose webhook is a local receiver;
	// "Send test" reaches it, signed.
	var hooks atomic.Int32
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Seokit-Signature") != "" {
			hooks.Add(1)
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(receiver.Close)
	step("add schedule", 15*time.Second,
		chromedp.Navigate(projectURL), chromedp.WaitVisible(chromedp.CSS("#sc-spec")),
		chromedp.SetValue(chromedp.CSS("#sc-spec"), "weekly@mon 06:00"),
		chromedp.Click(chromedp.CSS(`form[action$="/schedules"] button.primary`)),
		chromedp.WaitVisible(chromedp.CSS("table.schedules")),
	)
	if got := eval(`document.querySelector("table.schedules tbody").innerText`); !strings.Contains(got, "weekly@mon 06:00") || !strings.Contains(got, "UTC") {
		t.Errorf("schedules table: %q", got)
	}
	step("add alert rule", 15*time.Second,
		chromedp.SendKeys(chromedp.CSS("#al-target"), receiver.URL+"/hook"),
		chromedp.Click(chromedp.CSS(`form[action$="/alerts"] button.primary`)),
		chromedp.WaitVisible(chromedp.CSS("#alert-secret")),
	)
	step("send test alert", 15*time.Second,
		chromedp.Navigate(projectURL), chromedp.WaitVisible(chromedp.CSS("table.alerts")),
		chromedp.Click(chromedp.CSS(`table.alerts form[action$="/test"] button`)),
		chromedp.WaitVisible(chromedp.CSS("p.notice")),
	)
	if n := hooks.Load(); n != 1 {
		t.Errorf("the receiver got %d signed test alerts, want 1", n)
	}
	step("project view with schedules and alerts", 15*time.Second, chromedp.Navigate(projectURL), chromedp.WaitVisible(chromedp.CSS("table.alerts")))
	screenshot(t, ctx, dir, "project-1280")

	step("diff view", 30*time.Second,
		chromedp.Click(chromedp.CSS(`table.history a[href*="/diff?against="]`)),
		chromedp.WaitVisible(chromedp.CSS("#changed-h")),
	)
	text := eval(`document.querySelector("main").innerText`)
	for _, want := range []string{"Oak furniture made to order – new collection", site.URL + "/new", "noindex"} {
		if !strings.Contains(text, want) {
			t.Errorf("diff view lacks %q:\n%s", want, text)
		}
	}
	screenshot(t, ctx, dir, "diff")
	diffURL, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}

	step("phone", 15*time.Second,
		chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2), chromedp.EmulateMobile),
		chromedp.Navigate(projectURL), chromedp.WaitVisible(chromedp.CSS("figure.chart.trend")))
	if w := eval(`String(document.documentElement.scrollWidth)`); w != "390" {
		t.Errorf("project view scrolls sideways on a phone: scrollWidth %s", w)
	}
	// No table of the page needs sideways scrolling either.
	if wide := eval(`[...document.querySelectorAll("div.scroll")].filter(d => d.scrollWidth > d.clientWidth + 1).map(d => d.firstElementChild.className).join(",")`); wide != "" {
		t.Errorf("tables scroll sideways on a phone: %s", wide)
	}
	screenshot(t, ctx, dir, "project-390")
	step("diff on a phone", 30*time.Second, chromedp.Navigate(diffURL), chromedp.WaitVisible(chromedp.CSS("#changed-h")))
	if w := eval(`String(document.documentElement.scrollWidth)`); w != "390" {
		t.Errorf("diff view scrolls sideways on a phone: scrollWidth %s", w)
	}
	if wide := eval(`[...document.querySelectorAll("div.scroll")].filter(d => d.scrollWidth > d.clientWidth + 1).map(d => d.firstElementChild.className).join(",")`); wide != "" {
		t.Errorf("diff tables scroll sideways on a phone: %s", wide)
	}
	t.Logf("screenshots in %s", dir)
}
