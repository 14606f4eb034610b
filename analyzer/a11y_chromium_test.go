package analyzer_test

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/png"
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

var _ = exec.Command
var _ = json.Marshal
var _ = slices.Sort[[]string]
