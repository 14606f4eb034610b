package main

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seokit/seokit/fieldvitals"
	"github.com/seokit/seokit/indexstatus"
	"github.com/seokit/seokit/indexstatus/indexstatustest"
	"github.com/seokit/seokit/internal/googlefake"
)

// writeSite writes the synthetic crawl report of n pages as `cli crawl
// -json` would, and returns its path.
func writeSite(t *testing.T, n int) string {
	t.Helper()
	rep := indexstatustest.Site(n)
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "crawl.json")
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestIndexCommand inspects 300 of a 10,000-page crawl against a local
// Search Console and prints the sample's composition, the quota used and
// the pages joined with the crawl, as text and as JSON.
func TestIndexCommand(t *testing.T) {
	fake := &googlefake.SearchConsole{Token: "ya29.cli", PerMinute: indexstatus.DefaultPerMinute, PerDay: indexstatus.DefaultPerDay, Status: indexstatustest.Status}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	fakeEnv(t, map[string]string{envAccessToken: "ya29.cli", envGSCBaseURL: srv.URL})
	crawl := writeSite(t, 10000)

	code, out, errOut := runCLI(t, "index", "-crawl", crawl, "-sample", "300", "-top", "5", "-quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	t.Logf("cli index:\n%s", out)
	for _, want := range []string{
		"Index status of example.com, property sc-domain:example.com (searchconsole)",
		"Sample        300 of 9900 eligible pages (cut by -sample)",
		"product", "blog", "category",
		"Quota         300 inspections made",
		"index.canonical_mismatch", "index.crawled_not_indexed",
		"https://example.com/",
		"… 295 more",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if reqs, answered, refused := fake.Stats(); reqs != 300 || answered != 300 || refused != 0 {
		t.Errorf("fake saw %d requests, %d answered, %d refused; want 300, 300, 0", reqs, answered, refused)
	}

	code, out, errOut = runCLI(t, "index", "-crawl", crawl, "-sample", "20", "-format", "json", "-quiet", "-property", "https://example.com/")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rep indexstatus.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Counts.Inspected != 20 || len(rep.Pages) != 20 || rep.Pages[0].Inspection == nil || rep.Pages[0].Indexed == nil {
		t.Errorf("JSON report: counts %+v, %d pages", rep.Counts, len(rep.Pages))
	}
}

func TestIndexCommandBadInput(t *testing.T) {
	fakeEnv(t, map[string]string{envAccessToken: "ya29.cli"})
	crawl := writeSite(t, 10)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"index"}, "-crawl"},
		{[]string{"index", "-crawl", filepath.Join(t.TempDir(), "missing.json")}, "-crawl"},
		{[]string{"index", "-crawl", crawl, "-sample", "-1"}, "must not be negative"},
		{[]string{"index", "-crawl", crawl, "-property", "example"}, "property"},
	} {
		code, _, errOut := runCLI(t, tc.args...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
}

// TestCruxCommand prints a URL's field vitals beside the crawl's lab
// values, an origin's trend, and "not enough data" for a URL CrUX has none
// for.
func TestCruxCommand(t *testing.T) {
	fake := &googlefake.CrUX{Key: "AIza-cli", Data: func(q googlefake.CrUXQuery) *googlefake.CrUXData {
		if q.URL == "https://example.com/blog/3" {
			return nil
		}
		return &googlefake.CrUXData{P75: map[string]float64{"largest_contentful_paint": 3100, "interaction_to_next_paint": 180, "cumulative_layout_shift": 0.08}}
	}}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	fakeEnv(t, map[string]string{envCrUXKey: "AIza-cli", envCrUXBaseURL: srv.URL})
	// A crawl whose start page has lab vitals.
	rep := indexstatustest.Site(10)
	lcp, cls, tbt := 1400.0, 0.01, 120.0
	rep.Pages[len(rep.Pages)-1].URL = "https://example.com/"
	for i := range rep.Pages {
		if rep.Pages[i].URL == "https://example.com/" {
			rep.Pages[i].LCPMs, rep.Pages[i].CLS, rep.Pages[i].TBTMs = &lcp, &cls, &tbt
		}
	}
	b, _ := json.Marshal(rep)
	crawl := filepath.Join(t.TempDir(), "crawl.json")
	os.WriteFile(crawl, b, 0o600)

	code, out, errOut := runCLI(t, "crux", "-crawl", crawl, "-form-factor", "phone", "https://example.com/")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	t.Logf("cli crux:\n%s", out)
	flat := strings.Join(strings.Fields(out), " ")
	for _, want := range []string{"Field Web Vitals of https://example.com/, phone", "lcp 3100 ms needs_improvement 55% / 30% / 15%", "inp 180 ms good", "ttfb not enough data",
		"lcp lab lcp = 1400 ms, field lcp = 3100 ms. Field is 1700 ms worse than the lab value.", "inp lab tbt = 120 ms"} {
		if !strings.Contains(flat, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	code, out, _ = runCLI(t, "crux", "-origin", "-history", "https://example.com/some/page")
	if code != 0 || !strings.Contains(out, "https://example.com (origin)") || !strings.Contains(out, "Trend         25 weekly periods") {
		t.Errorf("origin history: exit %d\n%s", code, out)
	}
	code, out, _ = runCLI(t, "crux", "-json", "https://example.com/blog/3")
	var got cruxOutput
	if err := json.Unmarshal([]byte(out), &got); code != 0 || err != nil || got.Record.Status != fieldvitals.StatusInsufficient || len(got.Record.Metrics) != 0 {
		t.Errorf("no data: exit %d, %v\n%s", code, err, out)
	}
	code, _, errOut = runCLI(t, "crux", "-form-factor", "watch", "https://example.com/")
	if code != 2 || !strings.Contains(errOut, "formFactor") {
		t.Errorf("bad form factor: exit %d, %s", code, errOut)
	}
}
