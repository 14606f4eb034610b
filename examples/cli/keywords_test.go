package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestKeywordsCommands(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "seokit-data.db")
	if code, _, errOut := runCLI(t, "keywords", "import", "-db", db, "testdata/keyword-planner.csv"); code != 0 {
		t.Fatalf("import: %d %s", code, errOut)
	}
	for _, c := range []struct {
		name     string
		args     []string
		code     int
		contains string // a regular expression
	}{
		{"suggest text", []string{"suggest", "-db", db, "trail"}, 0, `trail running shoes\s+9900\s+-\s+keyword-planner`},
		{"flags after query", []string{"suggest", "trail", "-db", db, "-limit", "1"}, 0, "1 suggestions for \"trail\""},
		{"nothing known", []string{"suggest", "-db", db, "-locale", "de-DE", "laufschuhe"}, 0, "laufschuhe"},
		{"empty query", []string{"suggest", "-db", db, "   "}, 2, "invalid query"},
		{"no query", []string{"suggest", "-db", db}, 2, "takes a query"},
		{"limit too big", []string{"suggest", "-db", db, "-limit", "5000", "shoes"}, 2, "invalid limit"},
		{"bad locale", []string{"suggest", "-db", db, "-locale", "en-XX", "shoes"}, 2, "invalid locale"},
		{"not csv", []string{"import", "-db", db, "testdata/not-csv.bin"}, 2, "import testdata/not-csv.bin"},
		{"missing file", []string{"import", "-db", db, "testdata/nope.csv"}, 2, "no such file"},
		{"unknown format", []string{"import", "-db", db, "-input-format", "ahrefs", "testdata/keyword-planner.csv"}, 2, "unknown format"},
		{"unknown output", []string{"import", "-db", db, "-format", "ahrefs", "testdata/keyword-planner.csv"}, 2, "-format must be text, json"},
		{"two files", []string{"import", "-db", db, "a.csv", "b.csv"}, 2, "exactly one file"},
		{"unknown subcommand", []string{"delete"}, 2, "unknown subcommand"},
		{"no subcommand", nil, 2, "no subcommand"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, append([]string{"keywords"}, c.args...)...)
			if code != c.code || !regexp.MustCompile(c.contains).MatchString(out+errOut) {
				t.Errorf("exit %d, output %q %q; want %d and %q", code, out, errOut, c.code, c.contains)
			}
		})
	}
	// The bad file imported nothing, the good rows are still there once.
	code, out, _ := runCLI(t, "keywords", "suggest", "-db", db, "-limit", "100", "shoes")
	if code != 0 || strings.Count(out, "measured by keyword-planner") != 5 {
		t.Errorf("after the failed imports: %d\n%s", code, out)
	}
}

// TestKeywordsSuggestSite: with -site and nothing imported, the ideas are
// the phrases of the crawled site's pages with the query's words, each
// with its source and the pages it is on; no template phrase.
func TestKeywordsSuggestSite(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, `<!doctype html><html lang="en"><head><title>Matcha green tea powder</title></head><body><main>
<h1>Organic green tea</h1><p>Our organic green tea grows in Uji. Cold brew green tea keeps its sweetness.</p></main></body></html>`)
	}))
	defer srv.Close()
	db := filepath.Join(t.TempDir(), "seokit-data.db")
	code, out, errOut := runCLI(t, "keywords", "suggest", "-db", db, "-site", srv.URL, "-allow-private", "-site-pages", "5", "green tea")
	if code != 0 {
		t.Fatalf("exit %d: %s %s", code, out, errOut)
	}
	t.Logf("\n%s", out)
	for _, want := range []string{"from local, site", "organic green tea", "matcha green tea powder", "used on 1 of 1 crawled pages (2 times)"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	for _, not := range []string{"can green tea", "green tea 2026", "best green tea", "expansion"} {
		if strings.Contains(out, not) {
			t.Errorf("output has %q", not)
		}
	}
}
