package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/seokit/seokit/seo"
)

// hostile holds text that would act on a terminal if printed raw.
var hostile = []struct {
	name, in, want string
}{
	{"plain", "Trail shoes – 50% off", "Trail shoes – 50% off"},
	{"empty", "", ""},
	{"clear screen", "a\x1b[2Jb", `a\x1b[2Jb`},
	{"csi colour", "\x1b[31mred\x1b[0m", `\x1b[31mred\x1b[0m`},
	{"osc 8 hyperlink", "\x1b]8;;https://evil.example/\x07click\x1b]8;;\x07", `\x1b]8;;https://evil.example/\x07click\x1b]8;;\x07`},
	{"osc title with st", "\x1b]0;pwned\x1b\\", `\x1b]0;pwned\x1b\`},
	{"bell", "ding\a", `ding\x07`},
	{"newline tab cr", "a\nb\tc\rd", `a\nb\tc\rd`},
	{"nul and del", "a\x00b\x7fc", `a\x00b\x7fc`},
	{"c1 csi as utf-8", "a\u009b2Jb", `a\u009b2Jb`},
	{"c1 nel", "a\u0085b", `a\u0085b`},
	{"c1 raw byte", "a\x9b2Jb", `a\x9b2Jb`},
	{"invalid utf-8", "a\xff\xfeb", `a\xff\xfeb`},
	{"bidi override", "evil\u202Etxt.exe", `evil\u202etxt.exe`},
	{"bidi isolates", "\u2066a\u2067b\u2068c\u2069", `\u2066a\u2067b\u2068c\u2069`},
	{"bidi marks", "\u200Ea\u200Fb\u061C", `\u200ea\u200fb\u061c`},
	{"line separator", "a\u2028b\u2029c", `a\u2028b\u2029c`},
	{"kept: non-latin and emoji", "Laufschuhe für Trails 🏃\u200D♀️ ساعة", "Laufschuhe für Trails 🏃\u200D♀️ ساعة"},
	{"kept: backslash", `C:\path`, `C:\path`},
}

func TestClean(t *testing.T) {
	t.Parallel()
	for _, c := range hostile {
		t.Run(c.name, func(t *testing.T) {
			got := clean(c.in)
			if got != c.want {
				t.Errorf("clean(%q) = %q, want %q", c.in, got, c.want)
			}
			if bad := terminalUnsafe(got); bad != "" {
				t.Errorf("clean(%q) left %s", c.in, bad)
			}
		})
	}
}

func TestWriteJSON(t *testing.T) {
	t.Parallel()
	for _, c := range hostile {
		t.Run(c.name, func(t *testing.T) {
			var out bytes.Buffer
			v := map[string]string{"title": c.in}
			if err := writeJSON(&out, v); err != nil {
				t.Fatal(err)
			}
			if bad := terminalUnsafe(strings.TrimSuffix(out.String(), "\n")); bad != "" && !strings.Contains(bad, "newline") {
				t.Errorf("JSON %q has %s", out.String(), bad)
			}
			var back map[string]string
			if err := json.Unmarshal(out.Bytes(), &back); err != nil {
				t.Fatalf("not JSON: %v\n%s", err, out.String())
			}
			if want := string([]rune(c.in)); back["title"] != want {
				t.Errorf("round trip %q, want %q", back["title"], want)
			}
		})
	}
}

func TestPrintMore(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		tr   seo.Truncation
		want string
	}{
		{"cut", seo.Truncation{Total: 200, Omitted: 180}, "  ... and 180 more (200 in all)\n"},
		{"one", seo.Truncation{Total: 51, Omitted: 1}, "  ... and 1 more (51 in all)\n"},
		{"complete", seo.Truncation{}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out bytes.Buffer
			printMore(&out, "  ", c.tr)
			if out.String() != c.want {
				t.Errorf("got %q, want %q", out.String(), c.want)
			}
		})
	}
}

func TestTruncatedSummary(t *testing.T) {
	t.Parallel()
	var tr seo.Truncated
	if got := truncatedSummary(tr); got != "" {
		t.Errorf("complete report: %q", got)
	}
	tr.Note("links", 3000, 500)
	tr.Note("findings", 200, 20)
	tr.Note("images", 10, 10) // not cut
	tr["x\x1b[2J"] = seo.Truncation{Total: 2, Omitted: 1}
	want := `lists cut at their caps: findings 20 of 200, links 500 of 3000, x\x1b[2J 1 of 2`
	if got := truncatedSummary(tr); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// hostileSite serves pages whose markup carries terminal escapes in every
// place the CLI prints: title, description, h1, lang, canonical,
// structured data, link targets.
func hostileSite(t *testing.T) *httptest.Server {
	t.Helper()
	const esc = "\x1b[2J\x1b]8;;https://evil.example/\x07link\x1b]8;;\x07\a\u009b1m\u202Egnp.exe\x7f"
	page := `<!DOCTYPE html><html lang="en` + esc + `"><head><title>Shoes ` + esc + `</title>
<meta name="description" content="Buy ` + esc + `">
<link rel="canonical" href="/` + esc + `">
<script type="application/ld+json">{"@context":"https://schema.org","@type":"Product` + esc + `","name":"x"}</script>
</head><body><h1>Hello ` + esc + `</h1><img src="/a.png"><a href="/about` + esc + `">About ` + esc + `</a><a href="/b">B</a></body></html>`
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(page))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func TestHostileContentIsEscaped(t *testing.T) {
	t.Parallel()
	srv := hostileSite(t)
	for _, c := range []struct {
		args []string
		want string // the title's escape as printed
	}{
		{[]string{"analyze", "-allow-private", "-fail-on", "none", srv.URL + "/"}, `Shoes \x1b[2J\x1b]8;;`},
		{[]string{"analyze", "-allow-private", "-fail-on", "none", "-json", srv.URL + "/"}, `Shoes \u001b[2J\u001b]8;;`},
		{[]string{"crawl", "-allow-private", "-quiet", "-fail-on", "none", "-max-pages", "5", srv.URL + "/"}, ""},
		{[]string{"crawl", "-allow-private", "-quiet", "-fail-on", "none", "-max-pages", "5", "-json", srv.URL + "/"}, `Shoes \u001b[2J\u001b]8;;`},
	} {
		t.Run(strings.Join(c.args[:len(c.args)-1], " "), func(t *testing.T) {
			var out, errOut bytes.Buffer
			err := run(context.Background(), c.args, &out, &errOut)
			if code := exitCode(err); code != 0 {
				t.Fatalf("exit %d (%q)\n%q\n%q", code, err, out.String(), errOut.String())
			}
			if !strings.Contains(out.String(), c.want) {
				t.Errorf("the escaped title %q is not in the output:\n%s", c.want, out.String())
			}
			checkTerminalSafe(t, out.String(), errOut.String())
		})
	}
}

func TestHostileImportIsEscaped(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	csvFile := filepath.Join(dir, "Queries.csv")
	data := "Top queries,Clicks,Impressions,CTR,Position\n" +
		"shoes \x1b[2Jred\u202e,10,100,10%,3.5\n" +
		"trail \x1b]8;;https://evil.example/\x07shoes,5,50,10%,4\n" +
		"bad \x1b[31m line,x,y,z,w\n"
	if err := os.WriteFile(csvFile, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "seokit-data.db")
	for _, args := range [][]string{
		{"keywords", "import", "-db", db, "-format", "search-console", csvFile},
		{"keywords", "suggest", "-db", db, "shoes"},
		{"rankings", "track", "-db", db, "-domain", "example.com", "-import-gsc", csvFile, "-date", "2026-01-15"},
		{"report", "-db", db, "-domain", "example.com", "-start", "2026-01-01", "-end", "2026-01-31"},
	} {
		t.Run(strings.Join(args[:2], " "), func(t *testing.T) {
			var out, errOut bytes.Buffer
			if err := run(context.Background(), args, &out, &errOut); err != nil {
				printError(&errOut, err)
			}
			checkTerminalSafe(t, out.String(), errOut.String())
		})
	}
}

// checkTerminalSafe fails the test if a line of stdout or stderr holds
// something a terminal would act on.
func checkTerminalSafe(t *testing.T, stdout, stderr string) {
	t.Helper()
	for name, s := range map[string]string{"stdout": stdout, "stderr": stderr} {
		for i, line := range strings.Split(s, "\n") {
			if bad := terminalUnsafe(line); bad != "" {
				t.Errorf("%s line %d has %s: %q", name, i+1, bad, line)
			}
		}
	}
}

// terminalUnsafe describes the first character of s a terminal would act
// on (a control, a bidi control, a byte that is not UTF-8), or "".
func terminalUnsafe(s string) string {
	for i, r := range s {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD"):
			return "a byte that is not UTF-8"
		case r == '\n':
			return "a newline"
		case r < 0x20 || (r >= 0x7f && r <= 0x9f):
			return fmt.Sprintf("control %U", r)
		case unicode.Is(unicode.Bidi_Control, r) || r == '\u2028' || r == '\u2029':
			return fmt.Sprintf("bidi or line control %U", r)
		}
	}
	return ""
}
