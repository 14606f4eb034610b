package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seokit/seokit/crawler/crawlertest"
)

func testSite(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(`<!DOCTYPE html><html lang="en"><head><title>x</title></head><body><h1>Hello</h1><a href="/about">About us</a></body></html>`))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func exitCode(err error) int {
	if err == nil {
		return 0
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return 2
}

func TestAnalyzeCommand(t *testing.T) {
	t.Parallel()
	srv := testSite(t)
	for _, tt := range []struct {
		name     string
		args     []string
		code     int
		contains string
	}{
		{"text", []string{"analyze", "-allow-private", "-fail-on", "none", srv.URL + "/"}, 0, "Score "},
		{"flags after url", []string{"analyze", srv.URL + "/", "-allow-private", "-fail-on", "none"}, 0, "WARNINGS"},
		{"fail on warning", []string{"analyze", "-allow-private", "-fail-on", "warning", srv.URL + "/"}, 1, "title.too_short"},
		{"private refused", []string{"analyze", srv.URL + "/"}, 2, ""},
		{"no url", []string{"analyze"}, 2, ""},
		{"bad url", []string{"analyze", "ftp://x"}, 2, ""},
		{"bad depth", []string{"analyze", "-allow-private", "-depth", "deep", srv.URL}, 2, ""},
		{"unknown command", []string{"explode"}, 2, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			err := run(context.Background(), tt.args, &out, &errOut)
			if got := exitCode(err); got != tt.code {
				t.Fatalf("exit code %d (%v); want %d\nstdout:\n%s\nstderr:\n%s", got, err, tt.code, out.String(), errOut.String())
			}
			if !strings.Contains(out.String(), tt.contains) {
				t.Errorf("output lacks %q:\n%s", tt.contains, out.String())
			}
		})
	}
}

func TestAnalyzeHTML(t *testing.T) {
	t.Parallel()
	srv := testSite(t)
	htmlFile := filepath.Join(t.TempDir(), "page.html")
	var out, errOut bytes.Buffer
	if err := run(context.Background(), []string{"analyze", "-allow-private", "-fail-on", "none", "-html", htmlFile, srv.URL + "/"}, &out, &errOut); err != nil {
		t.Fatalf("analyze: %v\n%s", err, errOut.String())
	}
	page, err := os.ReadFile(htmlFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<title>SEO page report: " + srv.URL + "/</title>", "title.too_short", `id="rt-links"`} {
		if !bytes.Contains(page, []byte(want)) {
			t.Errorf("HTML report lacks %q", want)
		}
	}
	if !strings.Contains(errOut.String(), "HTML report written to "+htmlFile) {
		t.Errorf("stderr lacks the report's path:\n%s", errOut.String())
	}
}

func TestAnalyzeJSON(t *testing.T) {
	t.Parallel()
	srv := testSite(t)
	var out bytes.Buffer
	if err := run(context.Background(), []string{"analyze", "-json", "-allow-private", "-fail-on", "none", srv.URL}, &out, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Status   int `json:"status"`
		Findings []struct {
			ID, Severity, Message, URL string
			Evidence                   map[string]any
		} `json:"findings"`
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out.String())
	}
	if rep.Status != 200 || len(rep.Findings) == 0 {
		t.Fatalf("status %d, %d findings", rep.Status, len(rep.Findings))
	}
	for _, f := range rep.Findings {
		if f.ID == "" || f.Severity == "" || f.Message == "" || f.URL == "" {
			t.Errorf("incomplete finding %+v", f)
		}
	}
}

func TestCrawlCommand(t *testing.T) {
	t.Parallel()
	site := crawlertest.NewSite(crawlertest.SiteOptions{Articles: 12, Categories: 3, Broken: 2})
	defer site.Close()
	htmlFile := filepath.Join(t.TempDir(), "report.html")

	var out, errOut bytes.Buffer
	err := run(context.Background(), []string{"crawl", "-allow-private", "-fail-on", "none", "-max-pages", "100", "-html", htmlFile, site.URL}, &out, &errOut)
	if err != nil {
		t.Fatalf("crawl: %v\n%s", err, errOut.String())
	}
	for _, want := range []string{"Site score", "Status codes", "404: 2", "links.broken_internal"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("text output lacks %q:\n%s", want, out.String())
		}
	}
	page, err := os.ReadFile(htmlFile)
	if err != nil || !bytes.Contains(page, []byte("<svg")) {
		t.Errorf("HTML report missing or without charts: %v", err)
	}

	out.Reset()
	// -format json, with the default -fail-on error: the broken links are
	// errors, so the report is printed and the exit code is 1.
	if got := exitCode(run(context.Background(), []string{"crawl", "-format", "json", "-allow-private", site.URL}, &out, &errOut)); got != 1 {
		t.Errorf("crawl with broken links, default -fail-on: exit %d; want 1", got)
	}
	var rep struct {
		Crawl    struct{ Fetched int }
		Findings []struct{ ID, Severity string }
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil || rep.Crawl.Fetched < 17 || len(rep.Findings) == 0 {
		t.Errorf("JSON report: %v, fetched %d, %d finding groups", err, rep.Crawl.Fetched, len(rep.Findings))
	}

	out.Reset()
	if err := run(context.Background(), []string{"crawl", "-csv", "-fail-on", "none", "-allow-private", site.URL}, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&out).ReadAll()
	if err != nil || len(rows) < 18 || rows[0][0] != "url" {
		t.Errorf("CSV: %v, %d rows, header %v", err, len(rows), rows[:min(1, len(rows))])
	}

	if got := exitCode(run(context.Background(), []string{"crawl", "-allow-private", "-fail-on", "warning", site.URL}, &bytes.Buffer{}, &bytes.Buffer{})); got != 1 {
		t.Errorf("-fail-on warning with broken links: exit %d; want 1", got)
	}
	if got := exitCode(run(context.Background(), []string{"crawl", "notexample"}, &bytes.Buffer{}, &bytes.Buffer{})); got != 2 {
		t.Errorf("bad domain: exit %d; want 2", got)
	}
}

func TestOptimizeCommand(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "post.md")
	text := "# Brewing green tea\n\nGreen tea tastes best when the water is not boiling. " +
		"Heat the water to about 80 degrees and steep the green tea for two minutes.\n\n" +
		"## Choosing leaves\n\nLoose leaves give a fuller cup than bags. Store them dry and dark.\n"
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if err := run(context.Background(), []string{"optimize", "-locale", "en-US", "-keyword", "green tea", file}, &out, &errOut); err != nil {
		t.Fatalf("%v\n%s", err, errOut.String())
	}
	for _, want := range []string{"SEO score", "readability", `keyphrase "green tea"`} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	if err := run(context.Background(), []string{"optimize", "-json", "-keyword", "green tea", file}, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	var rep struct{ SEOScore *int }
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil || rep.SEOScore == nil {
		t.Errorf("JSON: %v %s", err, out.String())
	}
	if got := exitCode(run(context.Background(), []string{"optimize", "-locale", "english", file}, &bytes.Buffer{}, &bytes.Buffer{})); got != 2 {
		t.Errorf("bad locale: exit %d; want 2", got)
	}
}

// TestAnalyzeShowsTruncation: a page with more links and repeated
// findings than the report lists says so in the text output.
func TestAnalyzeShowsTruncation(t *testing.T) {
	t.Parallel()
	var page strings.Builder
	page.WriteString(`<!doctype html><html lang="en"><head><title>Many links</title></head><body>`)
	for i := range 3000 {
		fmt.Fprintf(&page, `<a href="/p/%d">here</a> `, i)
	}
	page.WriteString(`</body></html>`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, page.String())
	}))
	defer srv.Close()
	var out bytes.Buffer
	if err := run(context.Background(), []string{"analyze", "-allow-private", "-fail-on", "none", srv.URL}, &out, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "lists cut at their caps: ") || !strings.Contains(out.String(), "links 1000 of 3000") {
		t.Errorf("output does not say the link list was cut:\n%s", out.String())
	}
}
