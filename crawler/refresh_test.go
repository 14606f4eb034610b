package crawler_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/seokit/seokit/crawler"
)

// TestRefreshTargets: the target of a meta refresh or a Refresh header,
// which search engines follow as a redirect (Google Search Central,
// Redirects and Google Search:
// https://developers.google.com/search/docs/crawling-indexing/301-redirects),
// is crawled at the refreshing page's depth even when no link leads to it;
// a refresh that reloads the page, or one on an error page, adds nothing.
func TestRefreshTargets(t *testing.T) {
	pages := map[string]string{
		"/": `<html><head><title>Home</title></head><body><a href="/moved">Moved</a> <a href="/header">Header</a> <a href="/self">Self</a> <a href="/gone">Gone</a></body></html>`,
		// White space alone separates the time from the URL.
		"/moved":     `<html><head><title>Moved</title><meta http-equiv="refresh" content="0 url=/new-home"></head><body>Moved.</body></html>`,
		"/header":    `<html><head><title>Header</title></head><body>Moved.</body></html>`,
		"/self":      `<html><head><title>Self</title><meta http-equiv="refresh" content="30; url=/self"></head><body>News.</body></html>`,
		"/new-home":  `<html><head><title>New home</title></head><body>Here.</body></html>`,
		"/by-header": `<html><head><title>By header</title></head><body>Here.</body></html>`,
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		switch r.URL.Path {
		case "/header":
			w.Header().Set("Refresh", "0; url=/by-header")
		case "/gone":
			w.WriteHeader(http.StatusNotFound)
			w.Write([]byte(`<html><head><title>Gone</title><meta http-equiv="refresh" content="0; url=/from-404"></head></html>`))
			return
		}
		body, ok := pages[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte(body))
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rep, err := crawler.New(testOptions(crawler.Options{SkipExternalLinks: true})).Run(ctx, srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	got := pagesByPath(t, srv.URL, rep)
	for path, depth := range map[string]int{"/new-home": 1, "/by-header": 1} {
		p, ok := got[path]
		if !ok {
			t.Errorf("%s, a refresh target, not crawled", path)
			continue
		}
		if p.Status != http.StatusOK || depthOf(p) != depth {
			t.Errorf("%s: status %d depth %d; want 200 at depth %d", path, p.Status, depthOf(p), depth)
		}
	}
	if _, ok := got["/from-404"]; ok {
		t.Errorf("/from-404, the refresh target of a 404 page, crawled")
	}
	if len(got) != 7 {
		paths := make([]string, 0, len(got))
		for p := range got {
			paths = append(paths, p)
		}
		t.Errorf("pages crawled %q; want 7 (home, 4 linked, 2 refresh targets)", sorted(paths))
	}
}
