package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/seokit/seokit/crawler/crawlertest"
)

// TestOutputFormatEverywhere proves every command takes -format json (valid
// JSON out), keeps -json as its alias (the same answer), and refuses an
// unknown format with exit 2 naming -format.
func TestOutputFormatEverywhere(t *testing.T) {
	t.Parallel()
	site := crawlertest.NewSite(crawlertest.SiteOptions{Articles: 3, Categories: 1})
	defer site.Close()
	dir := t.TempDir()
	post := filepath.Join(dir, "post.md")
	if err := os.WriteFile(post, []byte("# Green tea\n\nBrew green tea at 80 degrees for two minutes; boiling water makes green tea bitter.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	crawlJSON := filepath.Join(dir, "crawl.json")
	db := filepath.Join(dir, "data.db")
	for _, c := range []struct {
		name string
		args []string
	}{
		{"checks", []string{"checks"}},
		{"optimize", []string{"optimize", "-keyword", "green tea", post}},
		{"analyze", []string{"analyze", "-allow-private", "-fail-on", "none", site.URL + "/"}},
		{"crawl", []string{"crawl", "-allow-private", "-quiet", "-fail-on", "none", site.URL}},
		{"keywords suggest", []string{"keywords", "suggest", "-db", db, "green tea"}},
		{"report", []string{"report", "-db", db, "-domain", "example.com"}},
		{"logs", []string{"logs", "-verify=false", "-quiet", "testdata/logs/access.log"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			outputs := map[string]string{}
			for _, flagArgs := range [][]string{{"-format", "json"}, {"-json"}} {
				// Flags may follow the arguments (parseFlags).
				args := append(append([]string{}, c.args...), flagArgs...)
				var out, errOut bytes.Buffer
				if err := run(context.Background(), args, &out, &errOut); err != nil {
					t.Fatalf("%v: %v\n%s", args, err, errOut.String())
				}
				if !json.Valid(out.Bytes()) {
					t.Fatalf("%v: not JSON:\n%.300s", args, out.String())
				}
				outputs[flagArgs[0]] = out.String()
				if c.name == "crawl" && flagArgs[0] == "-format" {
					if err := os.WriteFile(crawlJSON, out.Bytes(), 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			// Reports that hold times or durations differ run to run; the
			// others are the same answer under both spellings.
			if c.name == "checks" && outputs["-format"] != outputs["-json"] {
				t.Error("-json and -format json answer differently")
			}
			args := append(append([]string{}, c.args...), "-format", "yaml")
			err := run(context.Background(), args, &bytes.Buffer{}, &bytes.Buffer{})
			if exitCode(err) != 2 || !strings.Contains(err.Error(), "-format must be") {
				t.Errorf("-format yaml: %v (exit %d); want exit 2 naming -format", err, exitCode(err))
			}
		})
	}
	t.Run("diff", func(t *testing.T) {
		var out bytes.Buffer
		if err := run(context.Background(), []string{"diff", "-format", "json", crawlJSON, crawlJSON}, &out, &bytes.Buffer{}); err != nil || !json.Valid(out.Bytes()) {
			t.Fatalf("diff -format json: %v\n%.300s", err, out.String())
		}
	})
}

// TestFailOnDefaultSame proves analyze and crawl share the -fail-on
// default: on a site whose home page links to a 404 (an error finding),
// both exit 1 without the flag and 0 with -fail-on none.
func TestFailOnDefaultSame(t *testing.T) {
	t.Parallel()
	site := crawlertest.NewSite(crawlertest.SiteOptions{Articles: 2, Categories: 1, Broken: 1})
	defer site.Close()
	for _, args := range [][]string{
		{"analyze", "-allow-private", site.URL + "/"},
		{"crawl", "-allow-private", "-quiet", site.URL},
	} {
		// analyze reports the broken link with -links; add it there.
		if args[0] == "analyze" {
			args = append([]string{"analyze", "-links"}, args[1:]...)
		}
		if got := exitCode(run(context.Background(), args, &bytes.Buffer{}, &bytes.Buffer{})); got != 1 {
			t.Errorf("%s with an error finding, default -fail-on: exit %d; want 1", args[0], got)
		}
		none := append([]string{args[0], "-fail-on", "none"}, args[1:]...)
		if got := exitCode(run(context.Background(), none, &bytes.Buffer{}, &bytes.Buffer{})); got != 0 {
			t.Errorf("%s -fail-on none: exit %d; want 0", args[0], got)
		}
	}
}

// TestProgramName proves usage lines and errors name the binary as it was
// called, not "cli".
func TestProgramName(t *testing.T) {
	old := prog
	prog = "seokit"
	t.Cleanup(func() { prog = old })
	var out, errOut bytes.Buffer
	err := run(context.Background(), []string{"crawl", "-no-such-flag"}, &out, &errOut)
	if exitCode(err) != 2 || !strings.Contains(errOut.String(), "usage: seokit crawl [flags] DOMAIN") {
		t.Errorf("crawl -no-such-flag: exit %d, stderr:\n%s", exitCode(err), errOut.String())
	}
	// Every command's usage line.
	for _, c := range [][]string{{"analyze"}, {"optimize"}, {"diff"}, {"ai-crawlers"}, {"logs"}, {"index"}, {"crux"},
		{"keywords", "suggest"}, {"keywords", "import"}, {"rankings", "check"}, {"rankings", "track"}, {"report"}} {
		errOut.Reset()
		err := run(context.Background(), append(append([]string{}, c...), "-no-such-flag"), &out, &errOut)
		want := "usage: seokit " + strings.Join(c, " ")
		if exitCode(err) != 2 || !strings.Contains(errOut.String(), want) || strings.Contains(errOut.String(), "cli ") {
			t.Errorf("%s -no-such-flag: exit %d, want 2 and %q in stderr:\n%s", strings.Join(c, " "), exitCode(err), want, errOut.String())
		}
	}
	errOut.Reset()
	run(context.Background(), []string{"help"}, &errOut, &bytes.Buffer{})
	if !strings.Contains(errOut.String(), "seokit analyze [flags] URL") || strings.Contains(errOut.String(), "cli analyze") {
		t.Errorf("help names the program wrongly:\n%s", errOut.String())
	}
	errOut.Reset()
	printError(&errOut, fmt.Errorf("boom"))
	if errOut.String() != "seokit: boom\n" {
		t.Errorf("error line %q; want %q", errOut.String(), "seokit: boom\n")
	}
}

// TestReportHTMLMode proves report -html writes its file 0644, as the
// other reports are written.
func TestReportHTMLMode(t *testing.T) {
	dir := t.TempDir()
	html := filepath.Join(dir, "report.html")
	code, _, errOut := runCLI(t, "report", "-db", filepath.Join(dir, "data.db"), "-domain", "example.com", "-html", html)
	if code != 0 {
		t.Fatalf("report: exit %d %s", code, errOut)
	}
	st, err := os.Stat(html)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o644 {
		t.Errorf("report -html mode %v; want -rw-r--r--", st.Mode().Perm())
	}
}

// TestCrawlListsCapsAndSkips proves the text report's depth histogram reads
// "depth: pages", skipped URLs are listed by reason with counts, and
// -max-pages-listed raises or lowers the pages the report lists.
func TestCrawlListsCapsAndSkips(t *testing.T) {
	t.Parallel()
	site := crawlertest.NewSite(crawlertest.SiteOptions{Articles: 12, Categories: 3})
	defer site.Close()
	var out, errOut bytes.Buffer
	if err := run(context.Background(), []string{"crawl", "-allow-private", "-quiet", "-fail-on", "none",
		"-exclude", "/a/", site.URL}, &out, &errOut); err != nil {
		t.Fatalf("%v\n%s", err, errOut.String())
	}
	text := out.String()
	if !strings.Contains(text, "Depths        0: 1, 1: ") {
		t.Errorf("depth histogram not as depth: pages:\n%s", text)
	}
	if !strings.Contains(text, "Skipped       ") || !strings.Contains(text, "  excluded") || !strings.Contains(text, "(excluded by -exclude)") {
		t.Errorf("skipped URLs not listed by reason:\n%s", text)
	}
	t.Logf("%s", grepLines(text, "Depths", "Skipped", "excluded"))

	out.Reset()
	if err := run(context.Background(), []string{"crawl", "-allow-private", "-quiet", "-fail-on", "none",
		"-format", "json", "-max-pages-listed", "3", site.URL}, &out, &errOut); err != nil {
		t.Fatalf("%v\n%s", err, errOut.String())
	}
	var rep struct {
		Crawl     struct{ Fetched int }
		Pages     []json.RawMessage
		Truncated map[string]struct{ Total, Omitted int }
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Pages) != 3 || rep.Truncated["pages"].Total != rep.Crawl.Fetched || rep.Crawl.Fetched <= 3 {
		t.Errorf("-max-pages-listed 3: %d pages listed of %d fetched, truncated %+v", len(rep.Pages), rep.Crawl.Fetched, rep.Truncated["pages"])
	}
	if got := exitCode(run(context.Background(), []string{"crawl", "-max-pages-listed", "0", site.URL}, &bytes.Buffer{}, &bytes.Buffer{})); got != 2 {
		t.Errorf("-max-pages-listed 0: exit %d; want 2", got)
	}
}

// grepLines returns the lines of s holding any of words.
func grepLines(s string, words ...string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		for _, w := range words {
			if strings.Contains(l, w) {
				out = append(out, l)
				break
			}
		}
	}
	return strings.Join(out, "\n")
}

// TestCrawlHostConcurrencyAndRate proves -host-concurrency bounds the
// requests in flight to the site (measured by the site, whatever the
// machine's speed), that -rate -1 (unlimited) is accepted, and that bad
// values are usage errors.
func TestCrawlHostConcurrencyAndRate(t *testing.T) {
	t.Parallel()
	var inFlight, peak atomic.Int64
	site := crawlertest.NewSite(crawlertest.SiteOptions{Articles: 30, Categories: 3})
	defer site.Close()
	counting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := inFlight.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		// The answer is buffered and the request counted out before its
		// first byte leaves, so a client that has read a whole answer
		// never finds it still counted.
		rec := httptest.NewRecorder()
		site.Config.Handler.ServeHTTP(rec, r)
		inFlight.Add(-1)
		maps.Copy(w.Header(), rec.Header())
		w.WriteHeader(rec.Code)
		w.Write(rec.Body.Bytes())
	}))
	defer counting.Close()
	var errOut bytes.Buffer
	if err := run(context.Background(), []string{"crawl", "-allow-private", "-quiet", "-fail-on", "none", "-concurrency", "8",
		"-host-concurrency", "1", "-rate", "-1", "-skip-external-links", counting.URL}, &bytes.Buffer{}, &errOut); err != nil {
		t.Fatalf("%v\n%s", err, errOut.String())
	}
	if peak.Load() != 1 {
		t.Errorf("-host-concurrency 1: %d requests in flight at once; want 1", peak.Load())
	}
	t.Logf("-host-concurrency 1 -rate -1: peak requests in flight %d", peak.Load())
	for _, args := range [][]string{{"-host-concurrency", "0"}, {"-rate", "-2"}} {
		a := append(append([]string{"crawl"}, args...), counting.URL)
		if got := exitCode(run(context.Background(), a, &bytes.Buffer{}, &bytes.Buffer{})); got != 2 {
			t.Errorf("%v: exit %d; want 2", args, got)
		}
	}
}

// TestCrawlInterruptedKeepsPartial proves a crawl stopped by its context
// (Ctrl-C) still writes the report of what it crawled, says it is partial
// and exits 2. The site cancels the crawl when it serves its fifth page, so
// the test waits on an event, not on time.
func TestCrawlInterruptedKeepsPartial(t *testing.T) {
	t.Parallel()
	site := crawlertest.NewSite(crawlertest.SiteOptions{Articles: 60, Categories: 3})
	defer site.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var served atomic.Int64
	var once sync.Once
	stopping := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		site.Config.Handler.ServeHTTP(w, r)
		if (strings.HasPrefix(r.URL.Path, "/a/") || strings.HasPrefix(r.URL.Path, "/c/")) && served.Add(1) == 5 {
			once.Do(cancel)
		}
	}))
	defer stopping.Close()
	var out, errOut bytes.Buffer
	err := run(ctx, []string{"crawl", "-allow-private", "-quiet", "-fail-on", "none", "-format", "json",
		"-concurrency", "1", "-rate", "-1", stopping.URL}, &out, &errOut)
	if exitCode(err) != 2 || !strings.Contains(err.Error(), "interrupted") {
		t.Fatalf("err %v (exit %d); want exit 2, interrupted", err, exitCode(err))
	}
	var rep struct {
		Crawl struct {
			Fetched    int
			StopReason string
		}
	}
	if jerr := json.Unmarshal(out.Bytes(), &rep); jerr != nil {
		t.Fatalf("no partial report: %v\n%.300s", jerr, out.String())
	}
	if rep.Crawl.StopReason != "canceled" || rep.Crawl.Fetched < 1 || rep.Crawl.Fetched >= 60 {
		t.Errorf("partial report: %d pages, stopped %q; want some of the site's pages, canceled", rep.Crawl.Fetched, rep.Crawl.StopReason)
	}
	t.Logf("interrupted after %d pages served: %s; report of %d pages, stopped: %s", served.Load(), err, rep.Crawl.Fetched, rep.Crawl.StopReason)
}
