package dashboard_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/seokit/seokit/httpapi"
	"github.com/seokit/seokit/httpapi/dashboard"
	"github.com/seokit/seokit/httpapi/service"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/logs"
)

// lateLogs hands the dashboard's Logs to the late API server.
type lateLogs struct{ *lateAPI }

var _ service.Logs = lateLogs{}

func (l lateLogs) Upload(ctx context.Context, accountID, projectID string, req service.LogUpload, body io.Reader) (*service.LogJob, error) {
	return l.s.Logs().Upload(ctx, accountID, projectID, req, body)
}
func (l lateLogs) Get(ctx context.Context, accountID, projectID, id string) (*service.LogJob, service.Result, error) {
	return l.s.Logs().Get(ctx, accountID, projectID, id)
}
func (l lateLogs) List(ctx context.Context, accountID, projectID string, limit int) ([]service.LogJob, error) {
	return l.s.Logs().List(ctx, accountID, projectID, limit)
}
func (l lateLogs) Report(ctx context.Context, accountID, projectID, id string) (*service.LogJob, *logs.Report, func(), error) {
	return l.s.Logs().Report(ctx, accountID, projectID, id)
}
func (l lateLogs) Page(ctx context.Context, accountID, projectID, id, list string, offset, limit int) (*service.LogPage, error) {
	return l.s.Logs().Page(ctx, accountID, projectID, id, list, offset, limit)
}

// loggedSite is a small site: / links to /a and /moved (a redirect to
// /a); /orphan and /private/x answer but nothing links to them;
// robots.txt disallows /private/ to Googlebot.
func loggedSite(t *testing.T) *httptest.Server {
	t.Helper()
	page := func(w http.ResponseWriter, title, links string) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>%s</title>
<meta name="description" content="Oak tables, chairs and shelves made to order."></head><body><h1>%s</h1>%s</body></html>`, title, title, links)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			io.WriteString(w, "User-agent: Googlebot\nDisallow: /private/\n\nUser-agent: *\nAllow: /\n")
		case "/":
			page(w, "Oak furniture", `<a href="/a">Tables</a> <a href="/moved">Chairs</a>`)
		case "/a":
			page(w, "Oak tables", `<a href="/">Home</a>`)
		case "/moved":
			http.Redirect(w, r, "/a", http.StatusMovedPermanently)
		case "/orphan", "/private/x":
			page(w, "Hidden page", `<a href="/">Home</a>`)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// accessLog is a combined log over two days: verified Googlebot hits on
// / (2), /a (5), /orphan (3), /moved (4) and /private/x (2), GPTBot on
// /a (3), a spoofed Googlebot on /a (6) and people on / (10).
func accessLog() string {
	var b strings.Builder
	n := 0
	add := func(ip, path string, status, times int, ua string) {
		for range times {
			fmt.Fprintf(&b, "%s - - [%02d/Dec/2026:10:%02d:%02d +0000] \"GET %s HTTP/1.1\" %d 512 \"-\" \"%s\"\n", ip, 1+n%2, n/60, n%60, path, status, ua)
			n++
		}
	}
	const gb = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"
	add("66.249.64.5", "/", 200, 2, gb)
	add("66.249.64.5", "/a", 200, 5, gb)
	add("66.249.64.5", "/orphan", 200, 3, gb)
	add("66.249.64.5", "/moved", 301, 4, gb)
	add("66.249.64.5", "/private/x", 200, 2, gb)
	add("20.15.240.70", "/a", 200, 3, "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)")
	add("203.0.113.50", "/a", 200, 6, gb)
	add("198.51.100.23", "/", 200, 10, "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0")
	return b.String()
}

// TestLogPagesInBrowser uploads a log to a project with a crawl of a
// local site through the real API server, then opens the project's log
// pages in headless Chromium: the list shows the upload with its counts,
// and the report shows both charts (a line per bot, four status lines),
// the bots with their verdicts and the crawl join with the right counts
// (orphans, redirecting URLs, robots.txt says / the bot did). The page's
// load time and size are measured, and screenshots are taken for docs/
// (SEOKIT_UPDATE_SCREENSHOTS=1).
func TestLogPagesInBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("browser: skipped in -short mode")
	}
	ctx := browser(t)
	late := &lateProjectsAPI{}
	ranges := t.TempDir()
	for name, body := range map[string]string{
		"google-common": `{"prefixes": [{"ipv4Prefix": "66.249.64.0/27"}]}`, "google-special": `{"prefixes": []}`,
		"google-user": `{"prefixes": []}`, "google-user-g": `{"prefixes": []}`, "openai-gptbot": `{"prefixes": [{"ipv4Prefix": "20.15.240.64/28"}]}`,
	} {
		if err := os.WriteFile(filepath.Join(ranges, name+".json"), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	e := newEnv(t, &envOptions{realClock: true, opts: dashboard.Options{Analyses: late, Quota: late, Projects: lateProjects{&late.lateAPI}, Logs: lateLogs{&late.lateAPI}},
		api: func(e *env) http.Handler {
			s, err := httpapi.New(context.Background(), &httpapi.Options{Store: e.st, Auth: e.au, AllowPrivate: true, Logger: slog.New(slog.DiscardHandler),
				LogDir: t.TempDir(), LogVerifier: logs.NewVerifier(&logs.VerifierOptions{Ranges: logs.DirRanges(ranges), DisableDNS: true}),
				Limits: map[store.Plan]int{store.Free: 10_000}})
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
	site := loggedSite(t)
	bg := context.Background()
	name, domain := "Oak workshop", strings.TrimPrefix(site.URL, "http://")
	p, err := late.s.Projects().Create(bg, e.acct.ID, service.ProjectRequest{Name: &name, Domain: &domain})
	if err != nil {
		t.Fatal(err)
	}
	job, err := late.s.Analyses().Submit(bg, e.acct.ID, service.SiteRequest{ProjectID: p.ID})
	if err != nil {
		t.Fatal(err)
	}
	until := func(what string, done func() bool) {
		t.Helper()
		deadline := time.Now().Add(60 * time.Second)
		for !done() {
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s", what)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	until("the analysis", func() bool {
		j, _, err := late.s.Analyses().Get(bg, e.acct.ID, job.ID)
		return err == nil && j.Status != "queued" && j.Status != "running"
	})
	up, err := late.s.Logs().Upload(bg, e.acct.ID, p.ID, service.LogUpload{Name: "access.log", Size: -1}, strings.NewReader(accessLog()))
	if err != nil {
		t.Fatal(err)
	}
	var parsed *service.LogJob
	until("the log parse", func() bool {
		parsed, _, err = late.s.Logs().Get(bg, e.acct.ID, p.ID, up.ID)
		return err == nil && parsed.Status != "queued" && parsed.Status != "running"
	})
	if parsed.Status != "succeeded" || parsed.CrawlJob != job.ID {
		t.Fatalf("parse %s (%s), joined with %q", parsed.Status, parsed.Error, parsed.CrawlJob)
	}

	dir := artefacts(t)
	base := e.srv.URL
	step := func(name string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		if err := chromedp.Do(sctx, steps...); err != nil {
			t.Fatalf("%s: %v", name, err)
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
	step("sign in", chromedp.Navigate(base+"/dashboard/login"), chromedp.WaitVisible(chromedp.CSS("#email")),
		chromedp.SendKeys(chromedp.CSS("#email"), testEmail), chromedp.SendKeys(chromedp.CSS("#password"), testPassword),
		chromedp.Click(chromedp.CSS("button.primary")), chromedp.WaitVisible(chromedp.CSS("a.tile")))

	step("log list", chromedp.Navigate(base+"/dashboard/projects/"+p.ID+"/logs"), chromedp.WaitVisible(chromedp.CSS("table.logs")))
	if row := eval(`document.querySelector("table.logs tbody tr").innerText`); !strings.Contains(row, "access.log") || !strings.Contains(row, "succeeded") ||
		!strings.Contains(row, "35\t25\t19\t6") || !strings.Contains(row, job.ID) {
		t.Errorf("log list row %q; want access.log, succeeded, 35 lines, 25 bot hits, 19 verified, 6 spoofed, joined with %s", row, job.ID)
	}
	screenshot(t, ctx, dir, "logs-list")

	step("log report", chromedp.Click(chromedp.CSS("table.logs tbody a")), chromedp.WaitVisible(chromedp.CSS("#join-orphans")))
	if got := eval(`String(document.querySelectorAll("section.logs-chart > svg").length)`); got != "2" {
		t.Errorf("%s charts, want 2", got)
	}
	// A line per bot (Googlebot, GPTBot) over the two days, four status lines.
	if got := eval(`Array.from(document.querySelectorAll("section.logs-chart > svg")).map(s => s.querySelectorAll("polyline").length).join(" ")`); got != "2 4" {
		t.Errorf("chart lines %q, want \"2 4\"", got)
	}
	for sel, want := range map[string]string{
		"#join-orphans":     "2 URLs, 5 hits",
		"#join-redirecting": "1 URLs, 4 hits",
		"table.join-disallowed tbody tr:last-child, table.join-disallowed tr:last-child": "Googlebot\t1\t2\t/private/x (2)",
	} {
		if got := eval(`document.querySelector(` + fmt.Sprintf("%q", sel) + `).innerText`); !strings.Contains(got, want) {
			t.Errorf("%s: %q, want %q", sel, got, want)
		}
	}
	if got := eval(`document.querySelector("section.logs-bots").innerText`); !strings.Contains(got, "Googlebot\tsearch\t16\t16\t6\t0") {
		t.Errorf("bots table %q; want Googlebot with 16 hits, all verified, 6 spoofed", got)
	}
	if strings.Contains(eval(`document.documentElement.outerHTML`), "203.0.113.50") {
		t.Error("the page shows a spoofing client's address")
	}
	load := eval(`(() => { const n = performance.getEntriesByType("navigation")[0]; return Math.round(n.duration) + " ms, " + n.transferSize + " bytes" })()`)
	t.Logf("log report page: %s", load)
	screenshot(t, ctx, dir, "logs-report")
}
