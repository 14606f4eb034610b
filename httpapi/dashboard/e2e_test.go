package dashboard_test

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/seokit/seokit/httpapi"
	"github.com/seokit/seokit/rankings"
	"github.com/seokit/seokit/rankings/memstore"
	"github.com/seokit/seokit/seo"
)

const chromiumPath = "/usr/bin/chromium"

// shared is the package's one headless Chromium: starting a browser costs
// more than most of the tests that use it, so each test opens a tab of
// its own in a browser context of its own (its own cookies and storage)
// and the process is closed once, by TestMain.
var shared struct {
	once   sync.Once
	ctx    context.Context // the browser's first tab
	cancel func()          // closes the browser
	dir    string          // its user data directory
	err    error
}

func TestMain(m *testing.M) {
	code := m.Run()
	closeBrowser()
	os.Exit(code)
}

// closeBrowser ends the shared browser, if one was started.
func closeBrowser() {
	if shared.cancel != nil {
		shared.cancel()
	}
	if shared.dir != "" {
		os.RemoveAll(shared.dir)
	}
}

// startBrowser starts the shared browser and loads its first tab.
func startBrowser() error {
	dir, err := os.MkdirTemp("", "seokit-dashboard-chromium-")
	if err != nil {
		return err
	}
	shared.dir = dir
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(chromiumPath),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(dir),
		chromedp.WindowSize(1280, 900),
	)
	ctx, cancelBrowser := chromedp.NewContext(actx)
	shared.ctx = ctx
	shared.cancel = func() { cancelBrowser(); cancelAlloc() }
	// Not under a timeout: the context of the first call is the browser's.
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		return fmt.Errorf("start chromium: %w", err)
	}
	return nil
}

// browser opens a tab for t in a fresh browser context of the package's
// headless Chromium, closed at the end of t, or skips (fails when
// SEOKIT_REQUIRE_SERVERS is set) when Chromium is not installed.
func browser(t *testing.T) context.Context {
	t.Helper()
	if _, err := exec.LookPath(chromiumPath); err != nil {
		msg := "e2e: Chromium not found at " + chromiumPath + " (apt-get install chromium): " + err.Error()
		if os.Getenv("SEOKIT_REQUIRE_SERVERS") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	shared.once.Do(func() { shared.err = startBrowser() })
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	ctx, cancel := chromedp.NewContext(shared.ctx, chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("open a tab: %v", err)
	}
	return ctx
}

// artefacts is where screenshots go: $SEOKIT_ARTIFACTS or a temp dir.
func artefacts(t *testing.T) string {
	dir := os.Getenv("SEOKIT_ARTIFACTS")
	if dir == "" {
		return t.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func screenshot(t *testing.T, ctx context.Context, dir, name string) {
	t.Helper()
	buf, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	if len(buf) < 1000 || string(buf[1:4]) != "PNG" {
		t.Fatalf("screenshot %s: not a PNG (%d bytes)", name, len(buf))
	}
	if err := os.WriteFile(filepath.Join(dir, "dashboard-"+name+".png"), buf, 0o644); err != nil {
		t.Fatal(err)
	}
	if os.Getenv("SEOKIT_UPDATE_SCREENSHOTS") == "1" {
		if err := os.WriteFile(filepath.Join("..", "..", "docs", "dashboard-"+name+".png"), buf, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("screenshot %s: %d bytes", name, len(buf))
}

// TestEndToEnd drives the dashboard in headless Chromium against the real
// /v1 API handler: sign in, create an API key, read it once, call the API
// with it, revoke it and see 401; create an OAuth application and complete
// the authorization flow through the consent page; start a site analysis
// of a local site and open its report.
func TestEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("e2e: skipped in -short mode")
	}
	ctx := browser(t)
	var api *httpapi.Server
	rs := memstore.New(nil)
	e := newEnv(t, &envOptions{realClock: true, rankings: rs, api: func(e *env) http.Handler {
		var err error
		api, err = httpapi.New(context.Background(), &httpapi.Options{Store: e.st, Auth: e.au, AllowPrivate: true, Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatalf("httpapi.New: %v", err)
		}
		if err := api.Start(context.Background()); err != nil {
			t.Fatalf("Start: %v", err)
		}
		t.Cleanup(func() { api.Close() })
		return api
	}})
	site := newTestSite(t)
	dir := artefacts(t)
	base := e.srv.URL

	// Every dialog is recorded and accepted; only the revoke confirmation
	// is expected (an alert would mean crawled script ran).
	var dmu sync.Mutex
	var dialogs []string
	dialogEvents := chromedp.Events(ctx, page.JavascriptDialogOpening)
	go func() {
		for ev, err := range dialogEvents {
			if err != nil {
				return
			}
			dmu.Lock()
			dialogs = append(dialogs, string(ev.Type)+": "+ev.Message)
			dmu.Unlock()
			chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: true})
		}
	}()

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
	value := func(sel string) string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Value(chromedp.CSS(sel)))
		if err != nil {
			t.Fatalf("value of %s: %v", sel, err)
		}
		return v
	}

	// Sign in.
	step("sign-in page", 10*time.Second, chromedp.Navigate(base+"/dashboard/"), chromedp.WaitVisible(chromedp.CSS("#email")))
	screenshot(t, ctx, dir, "login")
	step("sign in", 10*time.Second,
		chromedp.SendKeys(chromedp.CSS("#email"), testEmail),
		chromedp.SendKeys(chromedp.CSS("#password"), testPassword),
		chromedp.Click(chromedp.CSS("button.primary")),
		chromedp.WaitVisible(chromedp.CSS("a.tile")),
	)

	// API key: create, read once, use, revoke, see 401.
	step("keys page", 10*time.Second, chromedp.Navigate(base+"/dashboard/keys"), chromedp.WaitVisible(chromedp.CSS("#key-name")))
	step("create key", 10*time.Second,
		chromedp.SendKeys(chromedp.CSS("#key-name"), "e2e key"),
		chromedp.Click(chromedp.CSS(`input[name=permissions][value=write]`)),
		chromedp.Click(chromedp.CSS("#create-h ~ form button.primary")),
		chromedp.WaitVisible(chromedp.CSS("#new-key")),
	)
	key := value("#new-key")
	screenshot(t, ctx, dir, "api-key-created")
	callAPI := func() int {
		req, _ := http.NewRequest("GET", base+"/v1/analyze/site", nil)
		req.Header.Set("X-API-Key", key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	if got := callAPI(); got != http.StatusOK {
		t.Fatalf("API call with the new key: %d, want 200", got)
	}
	step("reload keys", 10*time.Second, chromedp.Navigate(base+"/dashboard/keys"), chromedp.WaitVisible(chromedp.CSS("table.keys")))
	html, err := chromedp.Run(ctx, chromedp.OuterHTML(chromedp.CSS("html")))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(html, key) {
		t.Fatal("the key is shown again after reload")
	}
	step("revoke key", 10*time.Second,
		chromedp.Click(chromedp.CSS("table.keys button.danger")),
		chromedp.WaitVisible(chromedp.CSS("p.notice")),
	)
	if got := callAPI(); got != http.StatusUnauthorized {
		t.Fatalf("API call with the revoked key: %d, want 401", got)
	}
	screenshot(t, ctx, dir, "api-keys")

	// OAuth application and the authorization-code flow.
	codes := make(chan url.Values, 1)
	cb := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case codes <- r.URL.Query():
		default:
		}
		io.WriteString(w, "<!doctype html><title>client</title><p id=done>received</p>")
	}))
	defer cb.Close()
	redirect := cb.URL + "/callback"
	step("apps page", 10*time.Second, chromedp.Navigate(base+"/dashboard/apps"), chromedp.WaitVisible(chromedp.CSS("#app-name")))
	step("create app", 10*time.Second,
		chromedp.SendKeys(chromedp.CSS("#app-name"), "E2E client"),
		chromedp.SendKeys(chromedp.CSS("#app-uris"), redirect),
		chromedp.Click(chromedp.CSS("button.primary")),
		chromedp.WaitVisible(chromedp.CSS("#client-secret")),
	)
	clientID, secret := value("#client-id"), value("#client-secret")
	screenshot(t, ctx, dir, "oauth-app")
	verifier := base64.RawURLEncoding.EncodeToString([]byte(rand.Text() + rand.Text()))
	sum := sha256.Sum256([]byte(verifier))
	q := url.Values{"response_type": {"code"}, "client_id": {clientID}, "redirect_uri": {redirect}, "scope": {"read"},
		"state": {"xyz123"}, "code_challenge": {base64.RawURLEncoding.EncodeToString(sum[:])}, "code_challenge_method": {"S256"}}
	step("consent page", 10*time.Second,
		chromedp.Navigate(base+"/v1/oauth/authorize?"+q.Encode()),
		chromedp.WaitVisible(chromedp.CSS(`button[value=allow]`)),
	)
	// The inlined shared stylesheet applies (Chromium accepted its CSP hash).
	bg, err := chromedp.Run(ctx, chromedp.Evaluate[string](`getComputedStyle(document.querySelector("header.top")).backgroundColor`))
	if err != nil || bg != "rgb(16, 42, 67)" {
		t.Errorf("consent page header background %q (%v): the dashboard stylesheet did not apply", bg, err)
	}
	screenshot(t, ctx, dir, "consent")
	step("allow", 10*time.Second, chromedp.Click(chromedp.CSS(`button[value=allow]`)), chromedp.WaitVisible(chromedp.CSS("#done")))
	var got url.Values
	select {
	case got = <-codes:
	case <-time.After(5 * time.Second):
		t.Fatal("the client received no redirect")
	}
	if got.Get("state") != "xyz123" || got.Get("code") == "" {
		t.Fatalf("callback query %v", got)
	}
	resp, err := http.PostForm(base+"/v1/oauth/token", url.Values{"grant_type": {"authorization_code"}, "code": {got.Get("code")},
		"redirect_uri": {redirect}, "code_verifier": {verifier}, "client_id": {clientID}, "client_secret": {secret}})
	if err != nil {
		t.Fatal(err)
	}
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	json.NewDecoder(resp.Body).Decode(&tok)
	resp.Body.Close()
	if resp.StatusCode != 200 || tok.AccessToken == "" {
		t.Fatalf("token exchange: %d", resp.StatusCode)
	}
	req, _ := http.NewRequest("GET", base+"/v1/analyze/site", nil)
	req.Header.Set("Authorization", "Bearer "+tok.AccessToken)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("API call with the OAuth token: %d", resp.StatusCode)
	}

	// Site analysis of the local site, live progress, report.
	host := strings.TrimPrefix(site.URL, "http://")
	step("analyses page", 10*time.Second, chromedp.Navigate(base+"/dashboard/analyses"), chromedp.WaitVisible(chromedp.CSS("#domain")))
	step("start analysis", 10*time.Second,
		chromedp.SendKeys(chromedp.CSS("#domain"), host),
		chromedp.SetValue(chromedp.CSS("#max-pages"), "20"),
		chromedp.Click(chromedp.CSS("#start-h ~ form button.primary")),
		chromedp.WaitVisible(chromedp.CSS("#progress")),
	)
	step("report", 30*time.Second, chromedp.WaitVisible(chromedp.CSS("#summary-h")))
	title, err := chromedp.Run(ctx, chromedp.Evaluate[string](
		`[...document.querySelectorAll("td.page-title")].map(e => e.textContent).find(s => s.includes("script")) || ""`))
	if err != nil {
		t.Fatal(err)
	}
	if title != `<script>document.title='pwned';alert('xss')</script>` {
		t.Fatalf("crawled script title shown as %q, want the literal text", title)
	}
	docTitle, _ := chromedp.Run(ctx, chromedp.Title())
	if docTitle == "pwned" {
		t.Fatal("crawled script ran in the dashboard")
	}
	screenshot(t, ctx, dir, "analysis-report")
	step("usage", 10*time.Second, chromedp.Navigate(base+"/dashboard/usage"), chromedp.WaitVisible(chromedp.CSS("figure.chart")))
	screenshot(t, ctx, dir, "usage")
	step("overview", 10*time.Second, chromedp.Navigate(base+"/dashboard/"), chromedp.WaitVisible(chromedp.CSS("a.tile")))
	screenshot(t, ctx, dir, "overview")

	// Rankings: track two keywords; the history below is synthetic test
	// data (a steady climb), recorded as a provider's daily checks would be.
	today := rankings.Day(time.Now())
	var obs []rankings.Observation
	for i := range 30 {
		for j, kw := range []string{"oak tables", "walnut desks"} {
			p := float64(4 + (29-i)/3 + 5*j)
			obs = append(obs, rankings.Observation{Domain: "oak-shop.example", Keyword: kw, Locale: seo.Locale{Language: "en", Region: "US"},
				Device: rankings.Desktop, Date: today.AddDate(0, 0, i-29), Position: &p, Depth: 100, Source: "test fixture",
				URL: "https://oak-shop.example/" + strings.ReplaceAll(kw, " ", "-"), CheckedAt: today.AddDate(0, 0, i-29)})
		}
	}
	if err := rs.Record(context.Background(), obs); err != nil {
		t.Fatal(err)
	}
	step("rankings page", 10*time.Second, chromedp.Navigate(base+"/dashboard/rankings"), chromedp.WaitVisible(chromedp.CSS("#rk-domain")))
	step("track keywords", 10*time.Second,
		chromedp.SendKeys(chromedp.CSS("#rk-domain"), "oak-shop.example"),
		chromedp.SendKeys(chromedp.CSS("#rk-keywords"), "oak tables\nwalnut desks"),
		chromedp.Click(chromedp.CSS("#track-title ~ form button.primary")),
		chromedp.WaitVisible(chromedp.CSS("figure.chart polyline")),
	)
	charts, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("figure.chart").length`))
	if err != nil || charts != 2 {
		t.Errorf("rankings page shows %d charts (%v), want 2", charts, err)
	}
	screenshot(t, ctx, dir, "rankings")
	step("phone", 10*time.Second,
		chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2), chromedp.EmulateMobile),
		chromedp.Navigate(base+"/dashboard/keys"), chromedp.WaitVisible(chromedp.CSS("#key-name")))
	width, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`document.documentElement.scrollWidth`))
	if err != nil || width > 390 {
		t.Errorf("phone layout scrolls sideways: scrollWidth %v (%v)", width, err)
	}
	screenshot(t, ctx, dir, "phone")
	q.Set("state", "phone")
	step("consent on a phone", 10*time.Second,
		chromedp.Navigate(base+"/v1/oauth/authorize?"+q.Encode()),
		chromedp.WaitVisible(chromedp.CSS(`button[value=allow]`)))
	width, err = chromedp.Run(ctx, chromedp.Evaluate[float64](`document.documentElement.scrollWidth`))
	if err != nil || width > 390 {
		t.Errorf("consent page scrolls sideways on a phone: scrollWidth %v (%v)", width, err)
	}
	screenshot(t, ctx, dir, "consent-phone")

	dmu.Lock()
	defer dmu.Unlock()
	if len(dialogs) != 1 || !strings.HasPrefix(dialogs[0], "confirm: Revoke") {
		t.Fatalf("dialogs %q, want only the revoke confirmation", dialogs)
	}
	t.Logf("screenshots in %s", dir)
}
