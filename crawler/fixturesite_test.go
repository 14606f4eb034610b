package crawler_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// fixturePage is a page of a fixtureSite: a 301 to location when set,
// else body with a Refresh header when refresh is set.
type fixturePage struct {
	body     string
	refresh  string // Refresh header
	location string // 301 to this URL
}

// fixtureHTML is a small page with a title and an H1, head and body added.
func fixtureHTML(head, body string) string {
	return `<html><head><title>Page</title>` + head + `</head><body><h1>Page</h1>` + body + `</body></html>`
}

// metaRefresh is a meta refresh to to.
func metaRefresh(to string) string {
	return `<meta http-equiv="refresh" content="0; url=` + to + `">`
}

// fixtureSite serves pages on loopback: "/" links to each path of home in
// order, /robots.txt answers robots, any other path not in pages is a
// 404. It counts the requests per path.
type fixtureSite struct {
	*httptest.Server
	mu    sync.Mutex
	asked map[string]int
}

// newFixtureSite starts a fixtureSite, closed when t ends.
func newFixtureSite(t *testing.T, pages map[string]fixturePage, home []string, robots string) *fixtureSite {
	s := &fixtureSite{asked: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.asked[r.URL.Path]++
		s.mu.Unlock()
		if r.URL.Path == "/robots.txt" && robots != "" {
			w.Write([]byte(robots))
			return
		}
		if r.URL.Path == "/" {
			var links strings.Builder
			for _, p := range home {
				links.WriteString(`<a href="` + p + `">` + p + `</a> `)
			}
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write([]byte(fixtureHTML("", links.String())))
			return
		}
		p, found := pages[r.URL.Path]
		switch {
		case !found:
			http.NotFound(w, r)
		case p.location != "":
			http.Redirect(w, r, p.location, http.StatusMovedPermanently)
		default:
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			if p.refresh != "" {
				w.Header().Set("Refresh", p.refresh)
			}
			w.Write([]byte(p.body))
		}
	}))
	t.Cleanup(s.Close)
	return s
}

// requests returns how many requests path got so far.
func (s *fixtureSite) requests(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.asked[path]
}
