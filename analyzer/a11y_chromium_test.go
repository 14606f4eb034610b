package analyzer_test

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/png"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
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

// a11yFixtures are the pages of testdata/a11y, each with its known defects:
// the axe rules violated, with their WCAG success criteria, and the rules
// needing review. clean.html has none.
var a11yFixtures = []struct {
	page       string
	violations map[string]string // rule → WCAG success criteria
	review     map[string]string
}{
	{"clean.html", map[string]string{}, map[string]string{}},
	{"alt.html", map[string]string{"image-alt": "1.1.1"}, map[string]string{}},
	{"label.html", map[string]string{"label": "4.1.2"}, map[string]string{}},
	{"contrast.html", map[string]string{"color-contrast": "1.4.3"}, map[string]string{}},
	{"lang.html", map[string]string{"html-has-lang": "3.1.1"}, map[string]string{}},
	{"button.html", map[string]string{"button-name": "4.1.2"}, map[string]string{}},
	{"duplicate-id.html", map[string]string{}, map[string]string{"duplicate-id-aria": "4.1.2"}},
	{"aria.html", map[string]string{"aria-roles": "4.1.2", "aria-required-attr": "4.1.2", "aria-valid-attr-value": "4.1.2"}, map[string]string{}},
}

// requireAxe returns axe-core's script, skipping the test when it is not
// installed (failing it when SEOKIT_REQUIRE_SERVERS=1).
func requireAxe(t *testing.T) string {
	t.Helper()
	path, err := chromium.FindAxe("")
	if err != nil {
		if os.Getenv("SEOKIT_REQUIRE_SERVERS") == "1" {
			t.Fatalf("SEOKIT_REQUIRE_SERVERS=1 but %v", err)
		}
		t.Skipf("skipping: %v", err)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// serveA11yFixtures serves testdata/a11y on 127.0.0.1, with a 1×1 PNG at
// /pixel.png, and returns the server and a fetcher allowed to reach it.
func serveA11yFixtures(t *testing.T) (*httptest.Server, *seo.Fetcher) {
	t.Helper()
	var pixel bytes.Buffer
	if err := png.Encode(&pixel, image.NewGray(image.Rect(0, 0, 1, 1))); err != nil {
		t.Fatal(err)
	}
	files := http.FileServer(http.Dir("testdata/a11y"))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/pixel.png" {
			w.Header().Set("Content-Type", "image/png")
			w.Write(pixel.Bytes())
			return
		}
		files.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	n, _ := strconv.Atoi(port)
	return srv, seo.NewFetcher(&seo.FetcherOptions{AllowAddrs: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}, AllowedPorts: []int{n}})
}

// a11yPool starts a rendering pool with axe-core, closed with the test.
func a11yPool(t *testing.T, fetcher *seo.Fetcher) *chromium.Pool {
	t.Helper()
	axe := requireAxe(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pool, err := chromium.New(ctx, &chromium.Options{Browsers: 1, Tabs: 2, Fetcher: fetcher, AxePath: axe})
	if err != nil {
		if os.Getenv("SEOKIT_REQUIRE_SERVERS") != "1" {
			t.Skipf("skipping: %v", err)
		}
		t.Fatal(err)
	}
	t.Cleanup(func() { pool.Close() })
	return pool
}

// auditFixtures analyses each fixture page with the audit and returns the
// reports by page.
func auditFixtures(t *testing.T, srv *httptest.Server, pool *chromium.Pool, fetcher *seo.Fetcher) map[string]*analyzer.Report {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out := map[string]*analyzer.Report{}
	for _, f := range a11yFixtures {
		rep, err := analyzer.Analyze(ctx, srv.URL+"/"+f.page, &analyzer.Options{Fetcher: fetcher, AllowPrivate: true,
			Render: render.Always, Renderer: pool, A11y: true})
		if err != nil {
			t.Fatalf("%s: %v", f.page, err)
		}
		out[f.page] = rep
	}
	return out
}

func issueRules(issues []analyzer.A11yIssue) map[string]string {
	m := map[string]string{}
	for _, v := range issues {
		m[v.Rule] = strings.Join(v.WCAG, " ")
	}
	return m
}

// TestA11yFixtures: every known defect of the fixture site is reported
// with its axe rule and WCAG success criterion, as a finding with the
// element's selector, snippet and failure summary; the clean page has no
// violation and scores 100, the others less.
func TestA11yFixtures(t *testing.T) {
	srv, fetcher := serveA11yFixtures(t)
	pool := a11yPool(t, fetcher)
	reps := auditFixtures(t, srv, pool, fetcher)
	for _, f := range a11yFixtures {
		rep := reps[f.page]
		a := rep.A11y
		if a == nil || !a.Checked {
			t.Fatalf("%s: not audited: %+v", f.page, a)
		}
		if got := issueRules(a.Violations); !mapsEqual(got, f.violations) {
			t.Errorf("%s: violations %v, want %v", f.page, got, f.violations)
		}
		if got := issueRules(a.NeedsReview); !mapsEqual(got, f.review) {
			t.Errorf("%s: needing review %v, want %v", f.page, got, f.review)
		}
		if a.Score == nil {
			t.Fatalf("%s: no score: %s", f.page, a.ScoreReason)
		}
		if len(f.violations) == 0 && *a.Score != 100 || len(f.violations) > 0 && *a.Score >= 100 {
			t.Errorf("%s: score %d with %d violations", f.page, *a.Score, len(f.violations))
		}
		var a11yFindings []string
		for _, fd := range rep.Findings {
			if strings.HasPrefix(fd.ID, "a11y.") {
				a11yFindings = append(a11yFindings, fd.ID)
			}
		}
		for rule, sc := range f.violations {
			fd := findingByID(rep, "a11y."+rule)
			if fd == nil {
				t.Errorf("%s: no finding a11y.%s in %v", f.page, rule, a11yFindings)
				continue
			}
			ev := fd.Evidence
			if ev.Element == "" || !strings.HasPrefix(ev.Value, "<") || !strings.Contains(ev.Detail, "WCAG SC "+sc) ||
				!strings.Contains(ev.Detail, "dequeuniversity.com/rules/axe/") || !strings.Contains(fd.Message, rule) {
				t.Errorf("%s: a11y.%s: %q %+v", f.page, rule, fd.Message, ev)
			}
		}
		if len(f.review) > 0 && findingByID(rep, "a11y.needs_review") == nil {
			t.Errorf("%s: no a11y.needs_review in %v", f.page, a11yFindings)
		}
		if len(f.violations)+len(f.review) == 0 && len(a11yFindings) > 0 {
			t.Errorf("%s: findings on the clean page: %v", f.page, a11yFindings)
		}
		t.Logf("%s: score %d, violations %v, needing review %v, %d rules passed", f.page, *a.Score, issueRules(a.Violations), issueRules(a.NeedsReview), a.Passed)
	}
	t.Run("axe-cli", func(t *testing.T) { compareWithAxeCLI(t, srv, reps) })
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func findingByID(rep *analyzer.Report, id string) *seo.Finding {
	for i := range rep.Findings {
		if rep.Findings[i].ID == id {
			return &rep.Findings[i]
		}
	}
	return nil
}

// axeCLI finds axe's own command line (@axe-core/cli) and chromedriver:
// $SEOKIT_AXE_CLI, else the axe beside axe-core's package
// (node_modules/.bin/axe), else axe on PATH; $SEOKIT_CHROMEDRIVER, else
// chromedriver on PATH. It skips the test when either is missing (fails
// it when SEOKIT_REQUIRE_SERVERS=1).
func axeCLI(t *testing.T, axeJS string) (cli, driver, chrome string) {
	t.Helper()
	need := func(what string, err error) {
		if os.Getenv("SEOKIT_REQUIRE_SERVERS") == "1" {
			t.Fatalf("SEOKIT_REQUIRE_SERVERS=1 but %s: %v", what, err)
		}
		t.Skipf("skipping the comparison with axe's CLI: %s: %v", what, err)
	}
	cli = os.Getenv("SEOKIT_AXE_CLI")
	if cli == "" {
		if c := filepath.Join(filepath.Dir(axeJS), "..", ".bin", "axe"); fileExists(c) {
			cli = c
		} else if c, err := exec.LookPath("axe"); err == nil {
			cli = c
		} else {
			need("@axe-core/cli not found (npm install @axe-core/cli@4.13.0)", err)
		}
	}
	driver = os.Getenv("SEOKIT_CHROMEDRIVER")
	if driver == "" {
		var err error
		if driver, err = exec.LookPath("chromedriver"); err != nil {
			need("chromedriver not found (Debian: chromium-driver)", err)
		}
	}
	var err error
	if chrome, err = exec.LookPath("chromium"); err != nil {
		need("chromium not found", err)
	}
	return cli, driver, chrome
}

func fileExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// compareWithAxeCLI runs axe's own CLI, with the same axe-core script and
// tags, on the fixture pages and compares the rule IDs of its violations
// and results needing review with seokit's, page by page.
func compareWithAxeCLI(t *testing.T, srv *httptest.Server, reps map[string]*analyzer.Report) {
	axeJS := requireAxe(t)
	cli, driver, chrome := axeCLI(t, axeJS)
	dir := t.TempDir()
	args := []string{}
	for _, f := range a11yFixtures {
		args = append(args, srv.URL+"/"+f.page)
	}
	args = append(args, "--tags", strings.Join(render.A11yTags, ","), "--axe-source", axeJS,
		"--chromedriver-path", driver, "--chrome-path", chrome,
		"--chrome-options", "headless=new,no-sandbox,disable-dev-shm-usage",
		"--save", "axe.json", "--dir", dir, "--no-reporter", "--timeout", "60")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, cli, args...)
	cmd.Env = append(os.Environ(), "HOME="+dir) // chromedriver and Chrome write their state here
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("axe CLI: %v\n%s", err, out)
	}
	b, err := os.ReadFile(filepath.Join(dir, "axe.json"))
	if err != nil {
		t.Fatal(err)
	}
	var results []struct {
		URL        string                `json:"url"`
		Violations []struct{ ID string } `json:"violations"`
		Incomplete []struct{ ID string } `json:"incomplete"`
	}
	if err := json.Unmarshal(b, &results); err != nil {
		t.Fatal(err)
	}
	if len(results) != len(a11yFixtures) {
		t.Fatalf("axe CLI audited %d pages, want %d", len(results), len(a11yFixtures))
	}
	ids := func(xs []struct{ ID string }) []string {
		out := []string{}
		for _, x := range xs {
			out = append(out, x.ID)
		}
		slices.Sort(out)
		return out
	}
	for _, r := range results {
		page := strings.TrimPrefix(r.URL, srv.URL+"/")
		rep := reps[page]
		if rep == nil || rep.A11y == nil {
			t.Errorf("%s: audited by axe's CLI, not by seokit", r.URL)
			continue
		}
		ours, oursReview := slices.Sorted(maps.Keys(issueRules(rep.A11y.Violations))), slices.Sorted(maps.Keys(issueRules(rep.A11y.NeedsReview)))
		theirs, theirsReview := ids(r.Violations), ids(r.Incomplete)
		if !slices.Equal(ours, theirs) || !slices.Equal(oursReview, theirsReview) {
			t.Errorf("%s: seokit violations %v, needing review %v; axe CLI %v, %v", page, ours, oursReview, theirs, theirsReview)
			continue
		}
		t.Logf("%s: same verdict as axe's CLI: violations %v, needing review %v", page, ours, oursReview)
	}
}
