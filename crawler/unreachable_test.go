package crawler_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/seokit/seokit/crawler"
)

// closedPort returns an http URL of a loopback port nothing listens on.
// The port stays bound, by a socket that does not listen, until the test
// ends: a port merely freed could be handed to the next listener (such as
// silentPort's), which would answer the connection this case expects
// refused.
func closedPort(t *testing.T) string {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("http://127.0.0.1:%d/", sa.(*syscall.SockaddrInet4).Port)
}

// silentPort returns an http URL of a loopback port that accepts
// connections and never answers; everything is closed when the test ends.
func silentPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu    sync.Mutex
		conns []net.Conn
		wg    sync.WaitGroup
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		l.Close()
		wg.Wait()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
	})
	return "http://" + l.Addr().String() + "/"
}

const upPage = `<!doctype html><html lang=en><head><title>A page of a site that is up</title></head><body><h1>Up</h1><p>Words.</p></body></html>`

// TestUnreachable: a site that answers nothing has no score and stops as
// unreachable with the kind of failure; a robots.txt that alone fails, or
// that disallows, or pages that answer without a score, each say so, and
// only a robots.txt that disallows counts as blocked.
func TestUnreachable(t *testing.T) {
	site := func(robots http.HandlerFunc, home int) string {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch r.URL.Path {
			case "/robots.txt":
				robots(w, r)
			case "/":
				w.Header().Set("Content-Type", "text/html")
				w.WriteHeader(home)
				w.Write([]byte(upPage))
			default:
				http.NotFound(w, r)
			}
		}))
		t.Cleanup(srv.Close)
		return srv.URL + "/"
	}
	plain := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(plain.Close)
	dropRobots := func(w http.ResponseWriter, r *http.Request) {
		c, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			c.Close()
		}
	}
	cases := []struct {
		name        string
		start       string
		timeout     time.Duration
		stop        string
		kind        string // crawl.unreachable.kind, "" for none
		scoreReason string
		notFetched  string
		blocked     int
		finding     string // a site finding that must be reported
	}{
		{name: "connection refused", start: closedPort(t), stop: crawler.StopUnreachable, kind: "connection",
			scoreReason: crawler.SiteUnreachable, notFetched: crawler.NotFetchedRobotsUnavailable},
		{name: "tls to a plain http port", start: strings.Replace(plain.URL, "http:", "https:", 1) + "/", stop: crawler.StopUnreachable, kind: "tls",
			scoreReason: crawler.SiteUnreachable, notFetched: crawler.NotFetchedRobotsUnavailable},
		{name: "no answer", start: silentPort(t), timeout: 300 * time.Millisecond, stop: crawler.StopUnreachable, kind: "timeout",
			scoreReason: crawler.SiteUnreachable, notFetched: crawler.NotFetchedRobotsUnavailable},
		{name: "robots.txt 503, site up", start: site(func(w http.ResponseWriter, r *http.Request) { http.Error(w, "busy", http.StatusServiceUnavailable) }, 200),
			stop: crawler.StopDone, scoreReason: crawler.SiteRobotsUnavailable, notFetched: crawler.NotFetchedRobotsUnavailable,
			finding: "site.robots_txt_server_error"},
		{name: "robots.txt connection drops, site up", start: site(dropRobots, 200),
			stop: crawler.StopDone, scoreReason: crawler.SiteRobotsUnavailable, notFetched: crawler.NotFetchedRobotsUnavailable,
			finding: "site.robots_txt_server_error"},
		{name: "robots.txt disallows", start: site(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("User-agent: *\nDisallow: /\n")) }, 200),
			stop: crawler.StopDone, scoreReason: crawler.SiteRobotsBlocked, notFetched: crawler.NotFetchedRobots, blocked: 1},
		{name: "home page 404", start: site(http.NotFound, 404),
			stop: crawler.StopDone, scoreReason: crawler.SiteNoScoredPages},
		{name: "home page 200", start: site(http.NotFound, 200), stop: crawler.StopDone},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rep, err := crawler.New(testOptions(crawler.Options{MaxPages: 5, SkipExternalLinks: true, RequestTimeout: c.timeout})).
				Run(context.Background(), c.start)
			if err != nil {
				t.Fatal(err)
			}
			cs := rep.Crawl
			if cs.StopReason != c.stop || rep.ScoreReason != c.scoreReason || cs.Blocked != c.blocked {
				t.Errorf("stop %q, scoreReason %q, blocked %d; want %q, %q, %d", cs.StopReason, rep.ScoreReason, cs.Blocked, c.stop, c.scoreReason, c.blocked)
			}
			if (rep.Score == nil) != (c.scoreReason != "") {
				t.Errorf("score %+v with reason %q", rep.Score, rep.ScoreReason)
			}
			switch {
			case c.kind == "" && cs.Unreachable != nil:
				t.Errorf("unreachable %+v for a site that answered", cs.Unreachable)
			case c.kind != "" && (cs.Unreachable == nil || cs.Unreachable.Kind != c.kind || cs.Unreachable.URL != c.start || cs.Unreachable.Error == ""):
				t.Errorf("unreachable %+v, want kind %s at %s", cs.Unreachable, c.kind, c.start)
			}
			if c.kind != "" && (len(rep.Findings) != 0 || len(rep.SiteFindings) != 0) {
				t.Errorf("a site that answered nothing has findings %+v", rep.Findings)
			}
			if c.finding != "" && !hasFinding(rep, c.finding) {
				t.Errorf("%s not reported: %+v", c.finding, rep.SiteFindings)
			}
			if c.notFetched != "" && (len(rep.NotFetched) != 1 || rep.NotFetched[0].Reason != c.notFetched) {
				t.Errorf("not fetched %+v, want one %s", rep.NotFetched, c.notFetched)
			}
			if c.notFetched == crawler.NotFetchedRobotsUnavailable && cs.RobotsUnavailable != 1 {
				t.Errorf("robotsUnavailable %d, want 1", cs.RobotsUnavailable)
			}
			if un := cs.Unreachable; un != nil {
				t.Logf("%s: %s (%s)", c.name, un.Kind, un.Error)
			}
		})
	}
}
