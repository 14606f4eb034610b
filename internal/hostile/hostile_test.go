package hostile_test

import (
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/seokit/seokit/internal/hostile"
)

func get(t *testing.T, h http.Handler, path string) (*http.Response, string) {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	tr := &http.Transport{DisableCompression: true}
	t.Cleanup(tr.CloseIdleConnections)
	resp, err := (&http.Client{Transport: tr, Timeout: 30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Get(srv.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

func TestGzipBomb(t *testing.T) {
	resp, body := get(t, hostile.GzipBomb(64<<20), "/")
	if resp.Header.Get("Content-Encoding") != "gzip" || len(body) > 1<<20 {
		t.Fatalf("encoding %q, %d bytes on the wire", resp.Header.Get("Content-Encoding"), len(body))
	}
	zr, err := gzip.NewReader(strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := io.Copy(io.Discard, zr); n < 64<<20 {
		t.Errorf("%d bytes decompressed", n)
	}
}

func TestHugeRobots(t *testing.T) {
	_, robots := get(t, hostile.HugeRobots(5<<20), "/robots.txt")
	if len(robots) < 5<<20 || !strings.HasPrefix(robots, "User-agent: *\nDisallow: /private/0/\n") {
		t.Errorf("%d bytes: %.60q", len(robots), robots)
	}
}

func TestText(t *testing.T) {
	b, _ := io.ReadAll(hostile.NewText(1000))
	if len(b) != 1000 || !strings.Contains(string(b), "oak table") || strings.ContainsAny(string(b), "\"\\\n") {
		t.Errorf("%d bytes: %.80q", len(b), b)
	}
}
