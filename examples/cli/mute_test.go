package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/seokit/seokit/crawler/crawlertest"
)

// repeatSite serves a page with 13 images without alt and three empty
// links to 1,200-character ad URLs.
func repeatSite(t *testing.T) string {
	t.Helper()
	ad := "https://ads.example.com/click?" + strings.Repeat("tracking=abcdefghij&", 60)
	var page strings.Builder
	page.WriteString(`<!doctype html><html lang="en"><head><title>Repeated findings</title></head><body>`)
	for i := range 13 {
		fmt.Fprintf(&page, `<img src="/img%d.png">`, i)
	}
	for i := range 3 {
		fmt.Fprintf(&page, `<a href="%sn=%d"></a>`, ad, i)
	}
	page.WriteString(`</body></html>`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, page.String())
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/"
}

func TestAnalyzeGroupsFindings(t *testing.T) {
	t.Parallel()
	u := repeatSite(t)
	var out bytes.Buffer
	if err := run(context.Background(), []string{"analyze", "-allow-private", "-fail-on", "none", u}, &out, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	if n := strings.Count(text, "images.alt_missing"); n != 1 {
		t.Errorf("images.alt_missing on %d lines, want 1:\n%s", n, text)
	}
	if !strings.Contains(text, "13x") || !strings.Contains(text, "+10 more") {
		t.Errorf("the group does not say 13 findings, 10 not shown:\n%s", text)
	}
	for _, line := range strings.Split(text, "\n") {
		if n := utf8.RuneCountInString(line); n > 450 {
			t.Errorf("line of %d characters:\n%s", n, line)
		}
	}
	if strings.Count(text, "ads.example.com") > 3 {
		t.Errorf("the ad URL is printed more than once per example:\n%s", text)
	}

	out.Reset()
	if err := run(context.Background(), []string{"analyze", "-allow-private", "-fail-on", "none", "-v", u}, &out, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out.String(), "images.alt_missing"); n != 13 {
		t.Errorf("-v prints images.alt_missing %d times, want 13", n)
	}
	if !strings.Contains(out.String(), strings.Repeat("tracking=abcdefghij&", 60)) {
		t.Error("-v does not print the long URL in full")
	}
}

func TestMuteAndDisableFlags(t *testing.T) {
	t.Parallel()
	u := repeatSite(t)
	for _, tt := range []struct {
		name     string
		args     []string
		code     int
		contains string // in stdout, or in the error for code 2
	}{
		{"unknown disable", []string{"analyze", "-allow-private", "-disable", "title,bogus.id", u}, 2, `"bogus.id"`},
		{"unknown mute", []string{"analyze", "-allow-private", "-mute", "socal", u}, 2, `-mute: unknown check ID or area "socal"`},
		{"site id on a page", []string{"analyze", "-allow-private", "-mute", "site.orphan", u}, 2, `"site.orphan"`},
		{"mute", []string{"analyze", "-allow-private", "-fail-on", "none", "-mute", "images.alt_missing,security", u}, 0, "Muted (not in the findings or score): images.alt_missing (warning, 13)"},
		{"crawl unknown mute", []string{"crawl", "-allow-private", "-mute", "site.bogus", u}, 2, `"site.bogus"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			err := run(context.Background(), tt.args, &out, &errOut)
			if got := exitCode(err); got != tt.code {
				t.Fatalf("exit code %d (%v), want %d", got, err, tt.code)
			}
			got := out.String()
			if err != nil {
				got = err.Error()
			}
			if !strings.Contains(got, tt.contains) {
				t.Errorf("%q lacks %q", got, tt.contains)
			}
			if tt.code == 0 && strings.Contains(out.String(), "  images.alt_missing") {
				t.Errorf("muted ID listed among the findings:\n%s", out.String())
			}
		})
	}
}

func TestCrawlMuteFlag(t *testing.T) {
	t.Parallel()
	site := crawlertest.NewSite(crawlertest.SiteOptions{Articles: 4, Broken: 1})
	defer site.Close()
	var out, errOut bytes.Buffer
	if err := run(context.Background(), []string{"crawl", "-allow-private", "-quiet", "-fail-on", "none", "-mute", "links.broken_internal,site.orphan", site.URL}, &out, &errOut); err != nil {
		t.Fatalf("%v\n%s", err, errOut.String())
	}
	if !strings.Contains(out.String(), "Muted (not in the findings or score): links.broken_internal (error, 1)") {
		t.Errorf("no muted line for links.broken_internal:\n%s", out.String())
	}
}

func TestEllipsis(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in    string
		limit int
		want  string
	}{
		{"short", 10, "short"},
		{"abcdefghijkl", 5, "ab…kl"},
		{"abcdefghijkl", 6, "ab…jkl"},
		{"äöüäöüäöü", 4, "ä…öü"},
		{"whole", 0, "whole"},
	} {
		if got := ellipsis(tt.in, tt.limit); got != tt.want {
			t.Errorf("ellipsis(%q, %d) = %q, want %q", tt.in, tt.limit, got, tt.want)
		}
	}
}
