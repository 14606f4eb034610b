package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/seo"
)

func writeReport(t *testing.T, dir, name string, r *crawler.SiteReport) string {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestDiffCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	page := func(u, title string, findings ...string) crawler.PageSummary {
		return crawler.PageSummary{URL: u, Status: 200, Indexable: true, Title: title, Findings: findings}
	}
	old := writeReport(t, dir, "old.json", &crawler.SiteReport{Domain: "example.com",
		Pages: []crawler.PageSummary{page("https://example.com/", "Home"), page("https://example.com/a", "A")}})
	cur := writeReport(t, dir, "new.json", &crawler.SiteReport{Domain: "example.com",
		Pages:    []crawler.PageSummary{page("https://example.com/", "Home"), page("https://example.com/a", "A | renamed", "title.missing")},
		Findings: []crawler.FindingGroup{{ID: "title.missing", Severity: seo.Error, Scope: seo.ScopePage, Count: 1, Pages: 1}}})

	for _, tc := range []struct {
		args     []string
		wantErr  error
		contains []string
	}{
		{[]string{"diff", old, cur}, nil, []string{"New findings (1)", "title.missing", `"A | renamed"`}},
		{[]string{"diff", "-format", "markdown", old, cur}, nil, []string{"| Site score |", "`title.missing`", `A \| renamed`}},
		{[]string{"diff", "-format", "json", old, cur}, nil, []string{`"status": "new"`}},
		{[]string{"diff", "-format", "html", old, cur}, nil, []string{"<!DOCTYPE html>", "title.missing"}},
		{[]string{"diff", "-fail-on-new", "error", old, cur}, errFindings, nil},
		{[]string{"diff", "-fail-on-new", "error", old, old}, nil, []string{"New findings (0)"}},
	} {
		var out, errOut bytes.Buffer
		err := run(context.Background(), tc.args, &out, &errOut)
		if !errors.Is(err, tc.wantErr) && err != tc.wantErr {
			t.Errorf("%v: err = %v, want %v", tc.args, err, tc.wantErr)
		}
		for _, want := range tc.contains {
			if !strings.Contains(out.String(), want) {
				t.Errorf("%v: output lacks %q:\n%s", tc.args, want, out.String())
			}
		}
	}
	for _, args := range [][]string{
		{"diff", old},
		{"diff", "-format", "pdf", old, cur},
		{"diff", "-fail-on-new", "fatal", old, cur},
		{"diff", old, filepath.Join(dir, "missing.json")},
	} {
		var out, errOut bytes.Buffer
		err := run(context.Background(), args, &out, &errOut)
		var ee *exitError
		if !errors.As(err, &ee) || ee.code != 2 {
			t.Errorf("%v: err = %v, want a usage error (exit 2)", args, err)
		}
	}
}

func TestCrawlCompare(t *testing.T) {
	t.Parallel()
	var broken atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			w.Header().Set("Content-Type", "text/html")
			link := `<a href="/a">A</a>`
			if broken.Load() {
				link += ` <a href="/missing">Missing</a>`
			}
			fmt.Fprintf(w, `<!DOCTYPE html><html lang="en"><head><title>Home page of the site under test</title></head><body><h1>Home</h1>%s</body></html>`, link)
		case "/a":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, `<!DOCTYPE html><html lang="en"><head><title>Page A of the site under test</title></head><body><h1>A</h1><a href="/">Home</a></body></html>`)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	dir := t.TempDir()
	old := filepath.Join(dir, "old.json")
	var out, errOut bytes.Buffer
	if err := run(context.Background(), []string{"crawl", "-allow-private", "-skip-external-links", "-quiet", "-json", srv.URL}, &out, &errOut); err != nil {
		t.Fatalf("first crawl: %v\n%s", err, errOut.String())
	}
	if err := os.WriteFile(old, out.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}

	// Unchanged: no new finding, exit 0.
	out.Reset()
	if err := run(context.Background(), []string{"crawl", "-allow-private", "-skip-external-links", "-quiet", "-compare", old, "-fail-on-new", "error", srv.URL}, &out, &errOut); err != nil {
		t.Fatalf("unchanged site: %v", err)
	}
	if !strings.Contains(out.String(), "New findings (0)") {
		t.Errorf("unchanged site: output lacks the empty diff:\n%s", out.String())
	}

	// A broken link: a new error fails the run, and the Markdown diff names it.
	broken.Store(true)
	out.Reset()
	md := filepath.Join(dir, "diff.md")
	err := run(context.Background(), []string{"crawl", "-allow-private", "-skip-external-links", "-quiet", "-compare", old, "-compare-out", md, "-fail-on-new", "error", srv.URL}, &out, &errOut)
	if err != errFindings {
		t.Fatalf("broken link: err = %v, want exit 1", err)
	}
	b, _ := os.ReadFile(md)
	for _, want := range []string{"`links.broken_internal`", "/missing"} {
		if !strings.Contains(string(b), want) || !strings.Contains(out.String(), strings.Trim(want, "`")) {
			t.Errorf("diff lacks %q:\n%s\n%s", want, b, out.String())
		}
	}
	var ee *exitError
	if err := run(context.Background(), []string{"crawl", "-fail-on-new", "error", srv.URL}, &out, &errOut); !errors.As(err, &ee) || ee.code != 2 {
		t.Errorf("-fail-on-new without -compare: err = %v, want a usage error", err)
	}
}
