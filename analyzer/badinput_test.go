package analyzer

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/seokit/seokit/seo"
)

// TestBadDocuments feeds documents that break naive analysers: each must
// give a report quickly, never a panic.
func TestBadDocuments(t *testing.T) {
	nested := strings.Repeat("<div>", 10000) + "deep text" + strings.Repeat("</div>", 10000)
	binary := make([]byte, 64<<10)
	for i := range binary {
		binary[i] = byte(i * 7)
	}
	for _, tt := range []struct {
		name   string
		ct     string
		body   []byte
		isHTML bool
	}{
		{"empty", "text/html", nil, true},
		{"malformed", "text/html", []byte("<html><head><title>a<b></title><body><p><table><tr><td><div></span></p></html><<<>>>"), true},
		{"binary as html", "text/html", binary, true},
		{"binary", "application/octet-stream", binary, false},
		{"wrong charset", "text/html; charset=utf-8", []byte("<title>caf\xe9 cr\xe8me</title>\xff\xfe"), true},
		{"unknown charset", "text/html; charset=x-nonsense", []byte("<title>hello</title>"), true},
		{"shift_jis", "text/html; charset=shift_jis", []byte("<title>\x82\xa0\x82\xa2</title>"), true},
		{"nested 10000", "text/html", []byte(nested), true},
		{"only doctype", "text/html", []byte("<!DOCTYPE html>"), true},
		{"image", "image/png", []byte("\x89PNG\r\n\x1a\n"), false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			rep, err := AnalyzeHTML(context.Background(), "https://example.com/", http.Header{"Content-Type": {tt.ct}}, tt.body, &Options{Depth: Complete})
			if err != nil {
				t.Fatal(err)
			}
			if rep.IsHTML != tt.isHTML {
				t.Errorf("IsHTML = %v; want %v", rep.IsHTML, tt.isHTML)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("took %v", d)
			}
		})
	}
}

// TestAnalyzeInputErrors: bad URLs are input errors naming the field.
func TestAnalyzeInputErrors(t *testing.T) {
	t.Parallel()
	for _, raw := range []string{"", "/relative", "ftp://example.com/", "https://user:pw@example.com/", "https://" + strings.Repeat("a", 2100) + ".com/"} {
		_, err := Analyze(context.Background(), raw, nil)
		ie, ok := seo.AsInputError(err)
		if !ok || ie.Field != "url" {
			t.Errorf("Analyze(%.40q) error = %v; want InputError for url", raw, err)
		}
	}
	if _, err := Analyze(context.Background(), "https://example.com/", &Options{Depth: "deep"}); !errors.Is(err, seo.ErrInvalidInput) {
		t.Errorf("bad depth: %v; want ErrInvalidInput", err)
	}
}

// TestAnalyzeRefusesPrivate: without AllowPrivate a loopback URL is an input
// error (the address is refused), not a fetch failure.
func TestAnalyzeRefusesPrivate(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Error("the server was reached")
	}))
	defer srv.Close()
	_, err := Analyze(context.Background(), srv.URL, nil)
	if !errors.Is(err, seo.ErrInvalidInput) || !errors.Is(err, seo.ErrForbiddenAddress) {
		t.Fatalf("err = %v; want an input error wrapping ErrForbiddenAddress", err)
	}
}

// TestHostileServers: a 50 MB page, a gzip bomb and a body that never ends
// each end in a report within the fetch limits and bounded memory.
func TestHostileServers(t *testing.T) {
	bomb := gzipZeros(t, 200<<20)
	mux := http.NewServeMux()
	mux.HandleFunc("/huge", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<html><head><title>A very large page indeed, for testing</title></head><body>"))
		chunk := []byte(strings.Repeat("<p>lorem text filler words here</p>\n", 1000))
		for written := 0; written < 50<<20; written += len(chunk) {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	})
	mux.HandleFunc("/bomb", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Content-Encoding", "gzip")
		w.Write(bomb)
	})
	mux.HandleFunc("/endless", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<html><title>never ends</title>"))
		w.(http.Flusher).Flush()
		for {
			select {
			case <-r.Context().Done():
				return
			case <-time.After(100 * time.Millisecond):
				if _, err := w.Write([]byte("<p>x</p>")); err != nil {
					return
				}
				w.(http.Flusher).Flush()
			}
		}
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	for _, tt := range []struct {
		path string
		want string
	}{
		{"/huge", "http.html_too_large"},
		{"/bomb", "http.html_too_large"},
		{"/endless", "http.unreachable"},
	} {
		t.Run(tt.path, func(t *testing.T) {
			var before runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			start := time.Now()
			// Only the endless body is to time out; reading the capped
			// bodies may take seconds on a loaded machine under -race.
			timeout := time.Minute
			if tt.want == "http.unreachable" {
				timeout = 3 * time.Second
			}
			f := seo.NewFetcher(&seo.FetcherOptions{AllowPrivate: true, Timeout: timeout})
			rep, err := Analyze(context.Background(), srv.URL+tt.path, &Options{Fetcher: f, Depth: Basic})
			if err != nil {
				t.Fatal(err)
			}
			if d := time.Since(start); d > 60*time.Second { // generous: -race slows parsing about tenfold
				t.Errorf("took %v", d)
			}
			assertIDs(t, rep, []string{tt.want}, nil)
			var after runtime.MemStats
			runtime.ReadMemStats(&after)
			if grow := int64(after.HeapInuse) - int64(before.HeapInuse); grow > 400<<20 {
				t.Errorf("heap grew by %d MB", grow>>20)
			}
		})
	}
}

func gzipZeros(t *testing.T, n int) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	zero := make([]byte, 1<<20)
	for i := 0; i < n; i += len(zero) {
		zw.Write(zero)
	}
	zw.Close()
	return buf.Bytes()
}
