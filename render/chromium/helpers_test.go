package chromium

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/seokit/seokit/render"
	"github.com/seokit/seokit/seo"
)

// requireBrowser skips the test when no browser is installed, and fails it
// when SEOKIT_REQUIRE_SERVERS=1.
func requireBrowser(t testing.TB) {
	t.Helper()
	if _, err := findExec(""); err != nil {
		if os.Getenv("SEOKIT_REQUIRE_SERVERS") == "1" {
			t.Fatalf("SEOKIT_REQUIRE_SERVERS=1 but %v", err)
		}
		t.Skipf("skipping: %v", err)
	}
}

// fakeResolver maps host names to addresses.
type fakeResolver map[string][]string

func (r fakeResolver) LookupIPAddr(_ context.Context, host string) ([]net.IPAddr, error) {
	addrs, ok := r[host]
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	out := make([]net.IPAddr, 0, len(addrs))
	for _, a := range addrs {
		out = append(out, net.IPAddr{IP: net.ParseIP(a)})
	}
	return out, nil
}

// testFetcher allows only the given test servers through.
func testFetcher(t testing.TB, servers ...*httptest.Server) *seo.Fetcher {
	t.Helper()
	var ports []int
	for _, s := range servers {
		_, p, err := net.SplitHostPort(s.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		n, _ := strconv.Atoi(p)
		ports = append(ports, n)
	}
	return seo.NewFetcher(&seo.FetcherOptions{
		AllowAddrs:   []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")},
		AllowedPorts: ports,
		Resolver:     fakeResolver{"rebind.test": {"10.0.0.1"}, "site.test": {"127.0.0.1"}},
	})
}

// newTestPool starts a pool closed at the end of the test.
func newTestPool(t testing.TB, opts *Options) *Pool {
	t.Helper()
	requireBrowser(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	p, err := New(ctx, opts)
	if err != nil {
		if errors.Is(err, render.ErrUnavailable) && os.Getenv("SEOKIT_REQUIRE_SERVERS") != "1" {
			t.Skipf("skipping: %v", err)
		}
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// serve starts a test server of the handlers on 127.0.0.1.
func serve(t testing.TB, h http.Handler) *httptest.Server {
	t.Helper()
	s := httptest.NewServer(h)
	t.Cleanup(s.Close)
	return s
}

// checkGone fails the test when, 15 s after Close, one of pids still runs
// or more goroutines than before+2 (the test server's) are left; before
// is runtime.NumGoroutine() taken before the pool was made.
func checkGone(t *testing.T, srv *httptest.Server, pids []int, before int) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for _, pid := range pids {
		for alive(pid) {
			if time.Now().After(deadline) {
				t.Fatalf("browser process %d still runs after Close", pid)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	srv.Client().CloseIdleConnections()
	for runtime.NumGoroutine() > before+2 {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines before New, %d after Close:\n%s", before, runtime.NumGoroutine(), buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(50 * time.Millisecond)
	}
}
