package docs_test

import (
	"bytes"
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/seokit/seokit/analyzer"
	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/crawler/crawlreport"
	"github.com/seokit/seokit/optimizer"
)

// audit analyses one page, then the whole site, then a text, and prints
// what it found. A page or a site that answers nothing is a report that
// says so, not an error; private lets it reach loopback and intranet hosts.
func audit(ctx context.Context, w io.Writer, pageURL, domain string, private bool) error {
	// One page, all checks and every link target (those not checked
	// within Options.LinkCheckBudget, 45 s by default, are listed with
	// NotChecked "time_budget", not reported broken).
	rep, err := analyzer.Analyze(ctx, pageURL, &analyzer.Options{
		Depth:        analyzer.Complete,
		CheckLinks:   true,
		AllowPrivate: private,
	})
	if err != nil { // bad URL or refused address: errors.Is(err, seo.ErrInvalidInput)
		return err
	}
	switch {
	case rep.Score != nil: // an HTML page answered 2xx: its content was analysed
		fmt.Fprintln(w, "page score:", rep.Score.Value)
	case rep.Unreachable != nil: // no response: dns, connection, tls or timeout
		fmt.Fprintln(w, "unreachable:", rep.Unreachable.Kind, rep.Unreachable.Error)
	default: // 4xx/5xx, a redirect, not HTML: findings but no score
		fmt.Fprintln(w, "not scored:", rep.ScoreReason)
	}
	for _, f := range rep.Findings {
		fmt.Fprintln(w, f.Severity, f.ID, f.Message)
	}

	// A whole site. The report comes back even when the crawl stops early;
	// a site that answered nothing has no score: site.ScoreReason says why
	// and site.Crawl.Unreachable how.
	site, err := crawler.New(&crawler.Options{MaxPages: 1000, AllowPrivate: private}).Run(ctx, domain)
	if err != nil { // a bad domain, or ctx ended
		return err
	}
	if site.Score == nil {
		fmt.Fprintln(w, "no site score:", site.ScoreReason)
	} else {
		fmt.Fprintln(w, "site score:", site.Score.Value, "pages:", site.Crawl.Fetched)
	}
	if err := crawlreport.WriteHTML(io.Discard, site); err != nil { // or a file; WriteCSV for the page table
		return err
	}

	// Content for keyphrases and a locale.
	cr, err := optimizer.Optimize(ctx, optimizer.Request{
		Content:  "Green tea is the least processed tea. Brew green tea at 70 to 80 degrees.",
		Keywords: []string{"green tea"}, Locale: "en-US",
	})
	if err != nil {
		return err
	}
	if cr.SEOScore != nil { // nil when the text cannot be scored: cr.SEOReason says why
		fmt.Fprintln(w, "content score:", *cr.SEOScore)
	} else {
		fmt.Fprintln(w, "content not scored:", cr.SEOReason)
	}
	return nil
}

// TestLibraryGuide proves the library guide's example is this file's audit,
// word for word, and that it neither panics nor fails on a site that
// answers, a page that answers 404 and an address that answers nothing.
func TestLibraryGuide(t *testing.T) {
	doc, err := os.ReadFile("library.md")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("library_test.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "library_test.go", src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	var fn string
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Name.Name == "audit" {
			fn = string(src[fset.Position(fd.Doc.Pos()).Offset:fset.Position(fd.End()).Offset])
		}
	}
	if fn == "" || !strings.Contains(string(doc), fn+"\n```") {
		t.Fatalf("docs/library.md does not show audit as library_test.go has it:\n%s", fn)
	}

	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/", "/about":
			fmt.Fprintf(w, `<html lang="en"><title>Oak tables %[1]s</title><h1>Oak tables</h1><p>Solid oak tables made to order.</p><a href="/about">About</a><a href="/gone">Old</a></html>`, r.URL.Path)
		default:
			http.NotFound(w, r)
		}
	}))
	defer site.Close()
	// An address that answers nothing: a port just closed.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := l.Addr().String()
	l.Close()
	host := strings.TrimPrefix(site.URL, "http://")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for _, tc := range []struct {
		name, page, domain string
		want               []string
	}{
		{"answers", site.URL + "/", host, []string{"page score:", "\nsite score:", "content score:"}},
		{"404", site.URL + "/gone", host, []string{"not scored:", "\nsite score:"}},
		{"nothing", "http://" + dead + "/", dead, []string{"unreachable: connection", "no site score: unreachable"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			if err := audit(ctx, &out, tc.page, tc.domain, true); err != nil {
				t.Fatalf("audit: %v\n%s", err, out.String())
			}
			for _, want := range tc.want {
				if !strings.Contains(out.String(), want) {
					t.Errorf("output lacks %q:\n%s", want, out.String())
				}
			}
			t.Logf("%s", firstLines(out.String(), 4))
		})
	}
}

// firstLines returns s's first n lines.
func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}
