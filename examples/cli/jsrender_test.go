package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seokit/seokit/crawler/crawlertest"
)

func TestRenderFlags(t *testing.T) {
	t.Parallel()
	srv := testSite(t)
	for _, tt := range []struct {
		name     string
		args     []string
		contains string
	}{
		{"bad mode", []string{"analyze", "-allow-private", "-render", "yes", srv.URL}, `-render must be "none", "auto" or "always"`},
		{"screenshot without render", []string{"analyze", "-allow-private", "-screenshot", "x.png", srv.URL}, "-screenshot and -full-page need -render"},
		{"full page without file", []string{"analyze", "-allow-private", "-render", "always", "-full-page", srv.URL}, "-full-page needs -screenshot"},
		{"crawl bad mode", []string{"crawl", "-allow-private", "-render", "sometimes", srv.URL}, `-render must be`},
		{"crawl screenshots without render", []string{"crawl", "-allow-private", "-screenshots", t.TempDir(), srv.URL}, "-screenshots needs -render"},
		{"crawl negative tabs", []string{"crawl", "-allow-private", "-render", "always", "-render-tabs", "-1", srv.URL}, "-render-tabs must not be negative"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			err := run(context.Background(), tt.args, &out, &errOut)
			if code := exitCode(err); code != 2 {
				t.Fatalf("exit code %d (%v), want 2", code, err)
			}
			if !strings.Contains(err.Error(), tt.contains) {
				t.Errorf("error %q lacks %q", err, tt.contains)
			}
		})
	}
}

// TestRenderWithoutBrowser: with no browser, -render fails clearly with
// exit code 2, and the raw analysis still works.
func TestRenderWithoutBrowser(t *testing.T) {
	srv := testSite(t)
	t.Setenv("SEOKIT_CHROMIUM", filepath.Join(t.TempDir(), "no-chromium"))
	t.Setenv("PATH", t.TempDir())
	for _, args := range [][]string{
		{"analyze", "-allow-private", "-render", "always", srv.URL},
		{"crawl", "-allow-private", "-quiet", "-render", "auto", srv.URL},
	} {
		var out, errOut bytes.Buffer
		err := run(context.Background(), args, &out, &errOut)
		if code := exitCode(err); code != 2 {
			t.Fatalf("%v: exit code %d (%v), want 2", args, code, err)
		}
		for _, want := range []string{"rendering unavailable", "install chromium or set SEOKIT_CHROMIUM"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%v: error %q lacks %q", args, err, want)
			}
		}
	}
	var out, errOut bytes.Buffer
	if err := run(context.Background(), []string{"analyze", "-allow-private", "-fail-on", "none", "-render", "none", srv.URL}, &out, &errOut); err != nil {
		t.Fatalf("raw analysis: %v", err)
	}
}

// TestRenderCrawlChromium crawls a client-rendered site with -render
// always and -screenshots (real Chromium; skips without it).
func TestRenderCrawlChromium(t *testing.T) {
	t.Parallel()
	if _, err := findChromium(); err != nil {
		if os.Getenv("SEOKIT_REQUIRE_SERVERS") != "" {
			t.Fatalf("no Chromium: %v", err)
		}
		t.Skipf("SKIP: needs Chromium (install chromium or set SEOKIT_CHROMIUM): %v", err)
	}
	site := crawlertest.NewSPA(crawlertest.SPAOptions{Pages: 5})
	defer site.Close()
	dir := filepath.Join(t.TempDir(), "shots")
	var out, errOut bytes.Buffer
	err := run(context.Background(), []string{"crawl", "-allow-private", "-quiet", "-skip-external-links",
		"-render", "always", "-render-tabs", "2", "-screenshots", dir, site.URL}, &out, &errOut)
	if err != nil {
		t.Fatalf("crawl: %v\n%s", err, errOut.String())
	}
	if !strings.Contains(out.String(), "Rendering     always: 5 rendered") {
		t.Errorf("output lacks the rendering summary:\n%s", out.String())
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.png"))
	if len(files) != 5 {
		t.Errorf("%d screenshots in %s, want 5", len(files), dir)
	}
}

// findChromium looks for a browser as the Chromium pool does.
func findChromium() (string, error) {
	if p := os.Getenv("SEOKIT_CHROMIUM"); p != "" {
		return exec.LookPath(p)
	}
	for _, n := range []string{"chromium", "chromium-browser", "google-chrome", "chrome"} {
		if p, err := exec.LookPath(n); err == nil {
			return p, nil
		}
	}
	return "", errors.New("no chromium, chromium-browser, google-chrome or chrome on PATH")
}
