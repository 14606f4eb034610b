package httpapi

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
)

// TestPageAnalysesShareFetcher: page analyses (and their link checks) go
// through the server's one fetcher, so the site analysed sees connections
// reused across analyses instead of new ones for each.
func TestPageAnalysesShareFetcher(t *testing.T) {
	site := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, `<!doctype html><html lang="en"><head><title>Oak tables made by hand</title></head>
<body><h1>Oak tables</h1><p>Solid oak tables that last for generations.</p><a href="/about">About us</a></body></html>`)
		case "/about":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, `<!doctype html><title>About</title>`)
		default:
			http.NotFound(w, r)
		}
	}))
	var conns atomic.Int64
	site.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	site.Start()
	defer site.Close()
	a := newTestAPI(t, &Options{AllowPrivate: true})
	const n = 10
	body := `{"url":"` + site.URL + `/","options":{"checkLinks":true}}`
	var first int64
	for i := range n {
		resp := a.call("POST", "/v1/analyze/page", a.key, body)
		wantStatus(t, resp, http.StatusOK)
		resp.Body.Close()
		if i == 0 {
			first = conns.Load()
		}
	}
	total := conns.Load()
	t.Logf("%d page analyses opened %d connections to the site (%d for the first)", n, total, first)
	if total >= n {
		t.Errorf("%d page analyses opened %d connections: they do not share one connection pool", n, total)
	}
}
