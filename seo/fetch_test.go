package seo

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// testIP is the loopback address test servers listen on. It is not
// 127.0.0.1, so that tests can allow exactly the server and still show
// every form of 127.0.0.1 refused.
const testIP = "127.0.0.3"

// fakeResolver answers from a table; seq gives successive answers for a host
// (the last one repeats). It never touches the network.
type fakeResolver struct {
	mu    sync.Mutex
	hosts map[string][]string
	seq   map[string][][]string
	calls map[string]int
	delay time.Duration
}

func newResolver(hosts map[string][]string) *fakeResolver {
	return &fakeResolver{hosts: hosts, seq: map[string][][]string{}, calls: map[string]int{}}
}

func (r *fakeResolver) LookupIPAddr(ctx context.Context, host string) ([]net.IPAddr, error) {
	if r.delay > 0 {
		time.Sleep(r.delay)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls[host]++
	answer, ok := r.hosts[host]
	if s, found := r.seq[host]; found {
		answer, ok = s[min(r.calls[host]-1, len(s)-1)], true
	}
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	out := make([]net.IPAddr, len(answer))
	for i, a := range answer {
		out[i] = net.IPAddr{IP: net.ParseIP(a)}
	}
	return out, nil
}

func (r *fakeResolver) count(host string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.calls[host]
}

// serve starts a test server on testIP and returns it with its port.
func serve(t *testing.T, h http.Handler) (*httptest.Server, int) {
	t.Helper()
	l, err := net.Listen("tcp", testIP+":0")
	if err != nil {
		t.Skipf("cannot listen on %s (needs the whole 127/8 on loopback): %v", testIP, err)
	}
	srv := &httptest.Server{Listener: l, Config: &http.Server{Handler: h}}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, l.Addr().(*net.TCPAddr).Port
}

// testFetcher allows exactly the test server's address and port.
func testFetcher(port int, r Resolver, mod func(*FetcherOptions)) *Fetcher {
	o := &FetcherOptions{
		AllowAddrs:   []netip.Prefix{netip.MustParsePrefix(testIP + "/32")},
		AllowedPorts: []int{80, 443, port},
		Resolver:     r,
	}
	if mod != nil {
		mod(o)
	}
	return NewFetcher(o)
}

func assertForbidden(t *testing.T, err error, wantInput bool) {
	t.Helper()
	if !errors.Is(err, ErrForbiddenAddress) {
		t.Fatalf("err = %v, want one wrapping ErrForbiddenAddress", err)
	}
	ie, isInput := AsInputError(err)
	if isInput != wantInput {
		t.Fatalf("err = %v (InputError %v), want InputError %v", err, isInput, wantInput)
	}
	if isInput && ie.Field != "url" {
		t.Fatalf("InputError field = %q, want url", ie.Field)
	}
}

// ssrfTargets are the addresses of the SSRF test matrix; ip is the address
// a resolver would answer for the target ("" for names).
var ssrfTargets = []struct {
	name, host, ip string
}{
	{"loopback", "127.0.0.1", "127.0.0.1"},
	{"loopback short", "127.1", "127.0.0.1"},
	{"loopback decimal", "2130706433", "127.0.0.1"},
	{"loopback hex", "0x7f000001", "127.0.0.1"},
	{"loopback octal", "0177.0.0.1", "127.0.0.1"},
	{"unspecified", "0.0.0.0", "0.0.0.0"},
	{"v6 unspecified", "[::]", "::"},
	{"v6 loopback", "[::1]", "::1"},
	{"v4 mapped loopback", "[::ffff:127.0.0.1]", "::ffff:127.0.0.1"},
	{"v4 mapped loopback hex", "[::ffff:7f00:1]", "::ffff:7f00:1"},
	{"nat64", "[64:ff9b::7f00:1]", "64:ff9b::7f00:1"},
	{"nat64 local use", "[64:ff9b:1::7f00:1]", "64:ff9b:1::7f00:1"},
	{"6to4", "[2002:7f00:1::]", "2002:7f00:1::"},
	{"metadata", "169.254.169.254", "169.254.169.254"},
	{"v4 mapped metadata", "[::ffff:169.254.169.254]", "::ffff:169.254.169.254"},
	{"aws imds v6", "[fd00:ec2::254]", "fd00:ec2::254"},
	{"alibaba metadata", "100.100.100.200", "100.100.100.200"},
	{"gcp metadata name", "metadata.google.internal", ""},
	{"localhost name", "localhost", ""},
	{"localhost subdomain", "app.localhost", ""},
	{"internal name", "db.corp.internal", ""},
	{"mdns name", "printer.local", ""},
	{"private 10 low", "10.0.0.1", "10.0.0.1"},
	{"private 10 high", "10.255.255.254", "10.255.255.254"},
	{"private 172.16", "172.16.0.1", "172.16.0.1"},
	{"private 172.31", "172.31.255.254", "172.31.255.254"},
	{"private 192.168", "192.168.0.1", "192.168.0.1"},
	{"private 192.168 high", "192.168.255.254", "192.168.255.254"},
	{"cgnat", "100.64.0.1", "100.64.0.1"},
	{"cgnat high", "100.127.255.254", "100.127.255.254"},
	{"benchmark", "198.18.0.1", "198.18.0.1"},
	{"benchmark high", "198.19.255.254", "198.19.255.254"},
	{"ula fc", "[fc00::1]", "fc00::1"},
	{"ula fd", "[fdff:ffff::1]", "fdff:ffff::1"},
	{"link-local v6", "[fe80::1]", "fe80::1"},
	{"link-local v6 high", "[febf::1]", "febf::1"},
	{"teredo", "[2001::1]", "2001::1"},
	{"v6 documentation", "[2001:db8::1]", "2001:db8::1"},
	{"test-net", "192.0.2.1", "192.0.2.1"},
	{"multicast", "224.0.0.1", "224.0.0.1"},
	{"broadcast", "255.255.255.255", "255.255.255.255"},
	{"other loopback", "127.0.0.2", "127.0.0.2"},
}

func TestSSRFMatrix(t *testing.T) {
	t.Parallel()
	for _, tt := range ssrfTargets {
		t.Run(tt.name, func(t *testing.T) {
			target := "http://" + tt.host + "/"
			res := newResolver(map[string][]string{})
			if tt.ip != "" {
				res.hosts["alias.example.com"] = []string{tt.ip}
			}
			var hits atomic.Int32
			_, port := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				hits.Add(1)
				switch r.URL.Path {
				case "/direct":
					http.Redirect(w, r, target, http.StatusFound)
				case "/alias":
					http.Redirect(w, r, "http://alias.example.com/", http.StatusMovedPermanently)
				default:
					fmt.Fprint(w, "ok")
				}
			}))
			f := testFetcher(port, res, nil)
			base := "http://" + testIP + ":" + strconv.Itoa(port)
			ctx := context.Background()

			t.Run("direct", func(t *testing.T) {
				resp, err := f.Fetch(ctx, &Request{URL: target})
				assertForbidden(t, err, true)
				if resp != nil {
					t.Errorf("resp = %+v, want nil", resp)
				}
				_, err = f.CheckURL(ctx, target)
				assertForbidden(t, err, true)
			})
			t.Run("redirect", func(t *testing.T) {
				before := hits.Load()
				_, err := f.Fetch(ctx, &Request{URL: base + "/direct"})
				assertForbidden(t, err, false)
				if got := hits.Load() - before; got != 1 {
					t.Errorf("server hits = %d, want 1", got)
				}
			})
			if tt.ip == "" {
				return
			}
			t.Run("resolved", func(t *testing.T) {
				_, err := f.Fetch(ctx, &Request{URL: "http://alias.example.com/"})
				assertForbidden(t, err, true)
			})
			t.Run("redirect to resolved", func(t *testing.T) {
				_, err := f.Fetch(ctx, &Request{URL: base + "/alias"})
				assertForbidden(t, err, false)
			})
		})
	}
}

func TestAllowedServerReachable(t *testing.T) {
	t.Parallel()
	// The matrix is only meaningful if the allowed server itself answers.
	_, port := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "hello")
	}))
	res := newResolver(map[string][]string{"site.example.com": {testIP}})
	f := testFetcher(port, res, nil)
	for _, u := range []string{
		"http://" + testIP + ":" + strconv.Itoa(port) + "/",
		"http://site.example.com:" + strconv.Itoa(port) + "/",
	} {
		resp, err := f.Fetch(context.Background(), &Request{URL: u})
		if err != nil {
			t.Fatalf("Fetch(%s): %v", u, err)
		}
		if resp.Status != 200 || string(resp.Body) != "hello" {
			t.Fatalf("Fetch(%s) = %d %q, want 200 hello", u, resp.Status, resp.Body)
		}
	}
}

func TestDNSRebinding(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		answers [][]string
	}{
		{"public then private", [][]string{{"93.184.216.34"}, {"10.0.0.1"}}},
		{"public then loopback", [][]string{{"93.184.216.34"}, {"127.0.0.1"}}},
		{"public then metadata", [][]string{{"93.184.216.34"}, {"169.254.169.254"}}},
		{"public then mapped loopback", [][]string{{"2606:2800:220:1::1"}, {"::ffff:127.0.0.1"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := newResolver(nil)
			res.seq["rebind.example.com"] = tt.answers
			f := NewFetcher(&FetcherOptions{Resolver: res})
			_, err := f.Fetch(context.Background(), &Request{URL: "http://rebind.example.com/"})
			assertForbidden(t, err, false)
			if n := res.count("rebind.example.com"); n != 2 {
				t.Fatalf("resolver calls = %d, want 2 (check, then dial)", n)
			}
		})
	}
}

func TestDialGuard(t *testing.T) {
	t.Parallel()
	f := NewFetcher(&FetcherOptions{AllowAddrs: []netip.Prefix{netip.MustParsePrefix(testIP + "/32")}, AllowedPorts: []int{443, 8000}})
	tests := []struct {
		addr string
		ok   bool
	}{
		{"93.184.216.34:443", true},
		{testIP + ":8000", true},
		{"[2606:2800:220:1::1]:443", true},
		{"10.0.0.1:443", false},
		{"127.0.0.1:8000", false},
		{"[::1]:443", false},
		{"[::ffff:127.0.0.1]:443", false},
		{"169.254.169.254:443", false},
		{"93.184.216.34:22", false},
		{"93.184.216.34:6379", false},
		{"not-an-address", false},
	}
	for _, tt := range tests {
		t.Run(tt.addr, func(t *testing.T) {
			err := f.control("tcp", tt.addr, nil)
			if tt.ok && err != nil {
				t.Fatalf("control(%s) = %v, want nil", tt.addr, err)
			}
			if !tt.ok && !errors.Is(err, ErrForbiddenAddress) {
				t.Fatalf("control(%s) = %v, want ErrForbiddenAddress", tt.addr, err)
			}
		})
	}
	if f.dialer.Control == nil {
		t.Fatal("the dialer has no Control guard")
	}
}

func TestPorts(t *testing.T) {
	t.Parallel()
	res := newResolver(map[string][]string{"public.example.com": {"93.184.216.34"}})
	_, port := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://public.example.com:"+r.URL.Query().Get("p")+"/", http.StatusFound)
	}))
	f := testFetcher(port, res, nil)
	for _, p := range []string{"22", "25", "6379", "11211"} {
		t.Run(p, func(t *testing.T) {
			_, err := f.Fetch(context.Background(), &Request{URL: "http://93.184.216.34:" + p + "/"})
			assertForbidden(t, err, true)
			_, err = f.Fetch(context.Background(), &Request{URL: "http://public.example.com:" + p + "/"})
			assertForbidden(t, err, true)
			// Via a redirect the dialer refuses before connecting.
			_, err = f.Fetch(context.Background(), &Request{URL: fmt.Sprintf("http://%s:%d/?p=%s", testIP, port, p)})
			assertForbidden(t, err, false)
		})
	}
	// AllowPrivate opens every port.
	open := NewFetcher(&FetcherOptions{AllowPrivate: true})
	if _, err := open.CheckURL(context.Background(), "http://127.0.0.1:6379/"); err != nil {
		t.Fatalf("AllowPrivate CheckURL: %v", err)
	}
}

func TestAllowPrivate(t *testing.T) {
	t.Parallel()
	f := NewFetcher(&FetcherOptions{AllowPrivate: true, Resolver: newResolver(map[string][]string{"meta.example.com": {"169.254.169.254"}})})
	ctx := context.Background()
	for _, u := range []string{"http://127.0.0.1:1234/", "http://10.0.0.1/", "http://localhost:8080/", "http://[fe80::1]/"} {
		if _, err := f.CheckURL(ctx, u); err != nil {
			t.Errorf("CheckURL(%s) with AllowPrivate: %v", u, err)
		}
	}
	for _, u := range []string{"http://169.254.169.254/", "http://metadata.google.internal/", "http://[fd00:ec2::254]/", "http://0.0.0.0/"} {
		_, err := f.CheckURL(ctx, u)
		assertForbidden(t, err, true)
	}
	// A name resolving to metadata is refused at dial time.
	_, err := f.Fetch(ctx, &Request{URL: "http://meta.example.com/"})
	assertForbidden(t, err, false)
}

func TestCheckURLResolution(t *testing.T) {
	t.Parallel()
	res := newResolver(map[string][]string{
		"mixed.example.com":   {"10.0.0.1", "93.184.216.34"},
		"private.example.com": {"10.0.0.1", "192.168.0.1"},
		"public.example.com":  {"93.184.216.34"},
	})
	f := NewFetcher(&FetcherOptions{Resolver: res})
	ctx := context.Background()
	for _, u := range []string{"https://mixed.example.com/", "https://public.example.com/a?b=c"} {
		got, err := f.CheckURL(ctx, u)
		if err != nil || got.String() != u {
			t.Errorf("CheckURL(%s) = %v, %v", u, got, err)
		}
	}
	_, err := f.CheckURL(ctx, "https://private.example.com/")
	assertForbidden(t, err, true)
	_, err = f.CheckURL(ctx, "https://missing.example.com/")
	var dnsErr *net.DNSError
	if !errors.As(err, &dnsErr) || errors.Is(err, ErrInvalidInput) {
		t.Fatalf("CheckURL(missing) = %v, want a DNS error, not an input error", err)
	}
	if !strings.HasPrefix(err.Error(), "seo: check https://missing.example.com/: ") {
		t.Fatalf("CheckURL error %q lacks its context", err)
	}
	_, err = f.Fetch(ctx, &Request{URL: "https://missing.example.com/"})
	if !errors.As(err, &dnsErr) || strings.Count(err.Error(), "seo: ") != 1 ||
		!strings.HasPrefix(err.Error(), "seo: fetch https://missing.example.com/: ") {
		t.Fatalf("Fetch error = %q", err)
	}
}

// TestRefusalNamesTheSwitch checks that a refusal -allow-private lifts
// says so, and that one it does not lift (cloud metadata) does not.
func TestRefusalNamesTheSwitch(t *testing.T) {
	t.Parallel()
	f := NewFetcher(&FetcherOptions{Resolver: newResolver(map[string][]string{"intranet.example.com": {"10.0.0.1"}})})
	ctx := context.Background()
	tests := []struct {
		url  string
		hint bool
	}{
		{"http://127.0.0.1/", true},
		{"http://localhost/", true},
		{"https://intranet.example.com/", true},
		{"http://example.com:22/", true},
		{"http://169.254.169.254/", false},
		{"http://metadata.google.internal/", false},
	}
	for _, tt := range tests {
		_, err := f.CheckURL(ctx, tt.url)
		if !errors.Is(err, ErrForbiddenAddress) {
			t.Fatalf("CheckURL(%s) = %v, want a refusal", tt.url, err)
		}
		if got := strings.Contains(err.Error(), "-allow-private"); got != tt.hint {
			t.Errorf("CheckURL(%s) = %q; mentions -allow-private: %v, want %v", tt.url, err, got, tt.hint)
		}
	}
}

func TestInputErrors(t *testing.T) {
	t.Parallel()
	f := NewFetcher(&FetcherOptions{Resolver: newResolver(nil)})
	tests := []struct{ name, url string }{
		{"empty", ""},
		{"relative", "/about"},
		{"no scheme", "example.com/page"},
		{"no host", "http:///path"},
		{"ftp", "ftp://example.com/file"},
		{"file", "file:///etc/passwd"},
		{"gopher", "gopher://example.com/"},
		{"too long", "https://example.com/" + strings.Repeat("a", MaxURLLength)},
		{"userinfo", "http://user:pass@example.com/"},
		{"user only", "http://user@example.com/"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := f.Fetch(context.Background(), &Request{URL: tt.url})
			ie, ok := AsInputError(err)
			if !ok || ie.Field != "url" || !errors.Is(err, ErrInvalidInput) {
				t.Fatalf("err = %v, want *InputError for url", err)
			}
			if errors.Is(err, ErrForbiddenAddress) {
				t.Fatalf("err = %v wraps ErrForbiddenAddress", err)
			}
		})
	}
	if _, err := f.Fetch(context.Background(), nil); !errors.Is(err, ErrInvalidInput) {
		t.Fatalf("Fetch(nil) = %v, want ErrInvalidInput", err)
	}
}

func TestProxyIgnored(t *testing.T) {
	var proxyHits atomic.Int32
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		proxyHits.Add(1)
		fmt.Fprint(w, "from proxy")
	}))
	defer proxy.Close()
	for _, k := range []string{"HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY"} {
		t.Setenv(k, proxy.URL)
	}
	t.Setenv("NO_PROXY", "")
	t.Setenv("no_proxy", "")
	_, port := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "direct")
	}))
	res := newResolver(map[string][]string{"site.example.com": {testIP}, "private.example.com": {"10.0.0.1"}})
	f := testFetcher(port, res, nil)
	if f.transport.Proxy != nil {
		t.Fatal("transport has a Proxy func")
	}
	resp, err := f.Fetch(context.Background(), &Request{URL: fmt.Sprintf("http://site.example.com:%d/", port)})
	if err != nil || string(resp.Body) != "direct" {
		t.Fatalf("Fetch = %v, %v; want the direct answer", resp, err)
	}
	_, err = f.Fetch(context.Background(), &Request{URL: "http://private.example.com/"})
	assertForbidden(t, err, true)
	hr, err := f.Client().Get(fmt.Sprintf("http://site.example.com:%d/", port))
	if err != nil {
		t.Fatalf("Client().Get: %v", err)
	}
	hr.Body.Close()
	if n := proxyHits.Load(); n != 0 {
		t.Fatalf("proxy was used %d times", n)
	}
}

func TestRedirects(t *testing.T) {
	t.Parallel()
	_, port := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		switch {
		case strings.HasPrefix(p, "/chain/"):
			// /chain/N/I redirects to /chain/N/I+1 until I == N.
			parts := strings.Split(p, "/")
			n, _ := strconv.Atoi(parts[2])
			i, _ := strconv.Atoi(parts[3])
			if i < n {
				http.Redirect(w, r, fmt.Sprintf("/chain/%d/%d", n, i+1), http.StatusMovedPermanently)
				return
			}
			fmt.Fprint(w, "end")
		case p == "/loop/a":
			w.Header().Set("Location", "b")
			w.WriteHeader(http.StatusFound)
		case p == "/loop/b":
			http.Redirect(w, r, "/loop/a#frag", http.StatusTemporaryRedirect)
		case p == "/self":
			http.Redirect(w, r, "/self", http.StatusPermanentRedirect)
		case p == "/relative/x/y":
			w.Header().Set("Location", "../z?q=1")
			w.WriteHeader(http.StatusSeeOther)
		case p == "/relative/z":
			fmt.Fprint(w, r.Method+" "+r.URL.RawQuery)
		case p == "/scheme":
			w.Header().Set("Location", r.URL.Query().Get("to"))
			w.WriteHeader(http.StatusFound)
		case p == "/no-location":
			w.WriteHeader(http.StatusFound)
			fmt.Fprint(w, "no location")
		default:
			http.NotFound(w, r)
		}
	}))
	f := testFetcher(port, nil, nil)
	base := fmt.Sprintf("http://%s:%d", testIP, port)
	ctx := context.Background()

	t.Run("ten redirects followed", func(t *testing.T) {
		resp, err := f.Fetch(ctx, &Request{URL: base + "/chain/10/0"})
		if err != nil {
			t.Fatal(err)
		}
		if resp.Status != 200 || string(resp.Body) != "end" || len(resp.Redirects) != 10 {
			t.Fatalf("got %d %q with %d redirects", resp.Status, resp.Body, len(resp.Redirects))
		}
		if resp.URL != base+"/chain/10/10" || resp.RequestedURL != base+"/chain/10/0" {
			t.Fatalf("URL = %s, RequestedURL = %s", resp.URL, resp.RequestedURL)
		}
		h := resp.Redirects[3]
		if h.URL != base+"/chain/10/3" || h.Status != 301 || h.Location != "/chain/10/4" {
			t.Fatalf("hop 3 = %+v", h)
		}
	})
	t.Run("eleven redirects", func(t *testing.T) {
		resp, err := f.Fetch(ctx, &Request{URL: base + "/chain/11/0"})
		if !errors.Is(err, ErrTooManyRedirects) {
			t.Fatalf("err = %v, want ErrTooManyRedirects", err)
		}
		if resp == nil || len(resp.Redirects) != 11 || resp.Status != 301 {
			t.Fatalf("partial response = %+v", resp)
		}
	})
	t.Run("max redirects option", func(t *testing.T) {
		g := testFetcher(port, nil, func(o *FetcherOptions) { o.MaxRedirects = 2 })
		if _, err := g.Fetch(ctx, &Request{URL: base + "/chain/3/0"}); !errors.Is(err, ErrTooManyRedirects) {
			t.Fatalf("err = %v, want ErrTooManyRedirects", err)
		}
		if _, err := g.Fetch(ctx, &Request{URL: base + "/chain/2/0"}); err != nil {
			t.Fatalf("two redirects with MaxRedirects 2: %v", err)
		}
	})
	t.Run("loop", func(t *testing.T) {
		resp, err := f.Fetch(ctx, &Request{URL: base + "/loop/a"})
		if !errors.Is(err, ErrRedirectLoop) {
			t.Fatalf("err = %v, want ErrRedirectLoop", err)
		}
		if resp == nil || len(resp.Redirects) != 2 || resp.Status != 307 {
			t.Fatalf("partial response = %+v", resp)
		}
		if resp.Redirects[0].Location != "b" || resp.Redirects[1].URL != base+"/loop/b" {
			t.Fatalf("redirects = %+v", resp.Redirects)
		}
	})
	t.Run("self loop", func(t *testing.T) {
		resp, err := f.Fetch(ctx, &Request{URL: base + "/self"})
		if !errors.Is(err, ErrRedirectLoop) || resp == nil || len(resp.Redirects) != 1 || resp.Status != 308 {
			t.Fatalf("got %+v, %v", resp, err)
		}
	})
	t.Run("relative location and 303", func(t *testing.T) {
		resp, err := f.Fetch(ctx, &Request{URL: base + "/relative/x/y", Method: "POST"})
		if err != nil {
			t.Fatal(err)
		}
		if string(resp.Body) != "GET q=1" || resp.URL != base+"/relative/z?q=1" {
			t.Fatalf("got %q at %s", resp.Body, resp.URL)
		}
	})
	t.Run("no follow", func(t *testing.T) {
		resp, err := f.Fetch(ctx, &Request{URL: base + "/chain/3/0", NoFollow: true})
		if err != nil {
			t.Fatal(err)
		}
		if resp.Status != 301 || len(resp.Redirects) != 0 || resp.Header.Get("Location") != "/chain/3/1" {
			t.Fatalf("got %d, redirects %v, Location %q", resp.Status, resp.Redirects, resp.Header.Get("Location"))
		}
	})
	t.Run("3xx without location", func(t *testing.T) {
		resp, err := f.Fetch(ctx, &Request{URL: base + "/no-location"})
		if err != nil || resp.Status != 302 || string(resp.Body) != "no location" {
			t.Fatalf("got %+v, %v", resp, err)
		}
	})
	for _, to := range []string{"file:///etc/passwd", "gopher://example.com:70/_x", "ftp://example.com/f", "javascript:alert(1)"} {
		t.Run("scheme "+to, func(t *testing.T) {
			_, err := f.Fetch(ctx, &Request{URL: base + "/scheme?to=" + url.QueryEscape(to)})
			if !errors.Is(err, ErrUnsupported) || errors.Is(err, ErrInvalidInput) {
				t.Fatalf("err = %v, want ErrUnsupported", err)
			}
		})
	}
	t.Run("credentials in target", func(t *testing.T) {
		to := fmt.Sprintf("http://user:pw@%s:%d/chain/0/0", testIP, port)
		_, err := f.Fetch(ctx, &Request{URL: base + "/scheme?to=" + url.QueryEscape(to)})
		if !errors.Is(err, ErrUnsupported) {
			t.Fatalf("err = %v, want ErrUnsupported", err)
		}
	})
}

func TestCredentialHeadersDroppedAcrossHosts(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	got := map[string]string{}
	_, port := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got[r.Host] = r.Header.Get("Authorization") + "|" + r.Header.Get("X-Custom") + "|" + r.Header.Get("X-Api-Key") + r.Header.Get("Cookie")
		mu.Unlock()
		if strings.HasPrefix(r.Host, "a.") {
			http.Redirect(w, r, "http://b.example.com:"+strconv.Itoa(reqPort(r))+"/", http.StatusFound)
		}
	}))
	res := newResolver(map[string][]string{"a.example.com": {testIP}, "b.example.com": {testIP}})
	f := testFetcher(port, res, nil)
	h := http.Header{"Authorization": {"Bearer secret"}, "X-Custom": {"v"}, "X-Api-Key": {"k"}, "Cookie": {"c=1"}}
	if _, err := f.Fetch(context.Background(), &Request{URL: fmt.Sprintf("http://a.example.com:%d/", port), Header: h}); err != nil {
		t.Fatal(err)
	}
	a, b := got[fmt.Sprintf("a.example.com:%d", port)], got[fmt.Sprintf("b.example.com:%d", port)]
	if a != "Bearer secret|v|kc=1" || b != "|v|" {
		t.Fatalf("headers seen: a %q, b %q", a, b)
	}
}

func reqPort(r *http.Request) int {
	_, p, _ := net.SplitHostPort(r.Host)
	n, _ := strconv.Atoi(p)
	return n
}

func compress(t *testing.T, enc string, data []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	var w io.WriteCloser
	switch enc {
	case "gzip":
		w = gzip.NewWriter(&buf)
	case "deflate":
		w = zlib.NewWriter(&buf)
	case "raw-deflate":
		w, _ = flate.NewWriter(&buf, flate.DefaultCompression)
	default:
		return data
	}
	w.Write(data)
	w.Close()
	return buf.Bytes()
}

func TestBodyEncodings(t *testing.T) {
	t.Parallel()
	page := []byte(strings.Repeat("<p>Hello, compressed world.</p>\n", 500))
	var gotAE atomic.Value
	_, port := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotAE.Store(r.Header.Get("Accept-Encoding"))
		enc := r.URL.Query().Get("enc")
		served := enc
		if enc == "raw-deflate" {
			served = "deflate"
		}
		if served != "" {
			w.Header().Set("Content-Encoding", served)
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(compress(t, enc, page))
	}))
	f := testFetcher(port, nil, nil)
	tests := []struct {
		name, enc, wantEncoding string
	}{
		{"identity", "", ""},
		{"gzip", "gzip", "gzip"},
		{"deflate zlib", "deflate", "deflate"},
		{"deflate raw", "raw-deflate", "deflate"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := fmt.Sprintf("http://%s:%d/?enc=%s", testIP, port, tt.enc)
			resp, err := f.Fetch(context.Background(), &Request{URL: u})
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(resp.Body, page) {
				t.Fatalf("body differs: %d bytes, want %d", len(resp.Body), len(page))
			}
			wire := int64(len(compress(t, tt.enc, page)))
			if resp.TransferredBytes != wire || resp.BodyBytes != int64(len(page)) {
				t.Fatalf("TransferredBytes %d (want %d), BodyBytes %d (want %d)", resp.TransferredBytes, wire, resp.BodyBytes, len(page))
			}
			if resp.ContentEncoding != tt.wantEncoding || resp.ContentType != "text/html; charset=utf-8" {
				t.Fatalf("ContentEncoding %q, ContentType %q", resp.ContentEncoding, resp.ContentType)
			}
			if resp.AcceptedEncoding != "gzip, deflate" || gotAE.Load() != "gzip, deflate" {
				t.Fatalf("AcceptedEncoding %q, sent %q", resp.AcceptedEncoding, gotAE.Load())
			}
			if tt.enc != "" && resp.TransferredBytes >= resp.BodyBytes {
				t.Fatalf("compressed transfer %d not smaller than body %d", resp.TransferredBytes, resp.BodyBytes)
			}
		})
	}
}

// TestBodyUndecodable: a body in a content coding the fetcher neither asked
// for nor decodes is an error naming the coding, not its compressed bytes
// read as the page; a Content-Encoding naming no coding is ignored.
func TestBodyUndecodable(t *testing.T) {
	t.Parallel()
	page := []byte("<html><title>Plain</title></html>")
	_, port := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Encoding", r.URL.Query().Get("enc"))
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(page)
	}))
	f := testFetcher(port, nil, nil)
	tests := []struct {
		enc     string
		wantErr bool
	}{
		{"br", true},
		{"zstd", true},
		{"BR", true},
		{"x-compress", true},
		{"identity", false},
		{"utf-8", false},
	}
	for _, tt := range tests {
		t.Run(tt.enc, func(t *testing.T) {
			u := fmt.Sprintf("http://%s:%d/?enc=%s", testIP, port, tt.enc)
			resp, err := f.Fetch(context.Background(), &Request{URL: u})
			if tt.wantErr {
				if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), tt.enc) {
					t.Fatalf("err = %v; want one wrapping ErrUnsupported naming %s", err, tt.enc)
				}
				if resp == nil || resp.Status != http.StatusOK || len(resp.Body) != 0 {
					t.Fatalf("response %+v; want the 200 with no body", resp)
				}
				return
			}
			if err != nil || !bytes.Equal(resp.Body, page) {
				t.Fatalf("body %q, err %v; want the page as served", resp.Body, err)
			}
		})
	}
	// A body only discarded (a link check's status) and a HEAD's empty one
	// need no decoding.
	u := fmt.Sprintf("http://%s:%d/?enc=br", testIP, port)
	if _, err := f.Fetch(context.Background(), &Request{URL: u, DiscardBody: true}); err != nil {
		t.Errorf("discarded br body: %v", err)
	}
	if _, err := f.Fetch(context.Background(), &Request{URL: u, Method: http.MethodHead}); err != nil {
		t.Errorf("HEAD with Content-Encoding br: %v", err)
	}
}

func TestBodyCap(t *testing.T) {
	t.Parallel()
	_, port := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.URL.Query().Get("n"))
		data := bytes.Repeat([]byte("x"), n)
		if r.URL.Query().Get("gz") != "" {
			w.Header().Set("Content-Encoding", "gzip")
			data = compress(t, "gzip", data)
		}
		w.Write(data)
	}))
	f := testFetcher(port, nil, func(o *FetcherOptions) { o.MaxBodyBytes = 1000 })
	tests := []struct {
		name      string
		query     string
		req       Request
		wantLen   int
		wantBytes int64
		truncated bool
	}{
		{"under cap", "n=999", Request{}, 999, 999, false},
		{"exactly cap", "n=1000", Request{}, 1000, 1000, false},
		{"over cap", "n=5000", Request{}, 1000, 1000, true},
		{"gzip over cap", "n=5000&gz=1", Request{}, 1000, 1000, true},
		{"request cap", "n=5000", Request{MaxBodyBytes: 10}, 10, 10, true},
		{"request cap above fetcher", "n=5000", Request{MaxBodyBytes: 4000}, 4000, 4000, true},
		{"discard", "n=800", Request{DiscardBody: true}, 0, 800, false},
		{"discard over cap", "n=5000", Request{DiscardBody: true}, 0, 1000, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := tt.req
			req.URL = fmt.Sprintf("http://%s:%d/?%s", testIP, port, tt.query)
			resp, err := f.Fetch(context.Background(), &req)
			if err != nil {
				t.Fatal(err)
			}
			if len(resp.Body) != tt.wantLen || resp.BodyBytes != tt.wantBytes || resp.Truncated != tt.truncated {
				t.Fatalf("len %d, BodyBytes %d, Truncated %v; want %d, %d, %v",
					len(resp.Body), resp.BodyBytes, resp.Truncated, tt.wantLen, tt.wantBytes, tt.truncated)
			}
			if req.DiscardBody && resp.Body != nil {
				t.Fatal("DiscardBody kept the body")
			}
		})
	}
}

func TestGzipBomb(t *testing.T) {
	// One gzip member of 1 MiB of zeros, served 10240 times: a 10 GiB body.
	member := compress(t, "gzip", make([]byte, 1<<20))
	_, port := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Encoding", "gzip")
		for range 10240 {
			if _, err := w.Write(member); err != nil {
				return
			}
		}
	}))
	const limit = 2 << 20
	f := testFetcher(port, nil, func(o *FetcherOptions) { o.MaxBodyBytes = limit })
	start := time.Now()
	resp, err := f.Fetch(context.Background(), &Request{URL: fmt.Sprintf("http://%s:%d/", testIP, port)})
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 30*time.Second { // generous: -race and a loaded machine
		t.Fatalf("took %v", d)
	}
	if !resp.Truncated || len(resp.Body) != limit || resp.BodyBytes != limit {
		t.Fatalf("Truncated %v, len %d, BodyBytes %d", resp.Truncated, len(resp.Body), resp.BodyBytes)
	}
	if resp.TransferredBytes > 1<<20 {
		t.Fatalf("read %d wire bytes for a %d byte cap", resp.TransferredBytes, limit)
	}
}

func TestOpen(t *testing.T) {
	t.Parallel()
	_, port := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Encoding", "gzip")
		w.Write(compress(t, "gzip", bytes.Repeat([]byte("abc"), 1000)))
	}))
	u := fmt.Sprintf("http://%s:%d/", testIP, port)
	t.Run("within cap", func(t *testing.T) {
		f := testFetcher(port, nil, nil)
		resp, rc, err := f.Open(context.Background(), &Request{URL: u})
		if err != nil {
			t.Fatal(err)
		}
		defer rc.Close()
		if resp.Body != nil || resp.Status != 200 {
			t.Fatalf("resp = %+v", resp)
		}
		data, err := io.ReadAll(rc)
		if err != nil || len(data) != 3000 || resp.BodyBytes != 3000 {
			t.Fatalf("read %d bytes (BodyBytes %d), err %v", len(data), resp.BodyBytes, err)
		}
	})
	t.Run("past cap", func(t *testing.T) {
		f := testFetcher(port, nil, nil)
		_, rc, err := f.Open(context.Background(), &Request{URL: u, MaxBodyBytes: 100})
		if err != nil {
			t.Fatal(err)
		}
		defer rc.Close()
		data, err := io.ReadAll(rc)
		if !errors.Is(err, ErrTooLarge) || len(data) != 100 {
			t.Fatalf("read %d bytes, err %v; want 100 and ErrTooLarge", len(data), err)
		}
		if err := rc.Close(); err != nil {
			t.Fatalf("Close: %v", err)
		}
		if err := rc.Close(); err != nil {
			t.Fatalf("second Close: %v", err)
		}
	})
}

func TestTimeouts(t *testing.T) {
	_, port := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/slow-headers":
			select {
			case <-r.Context().Done():
			case <-time.After(10 * time.Second):
			}
		case "/trickle":
			w.Header().Set("Content-Length", "100")
			for range 100 {
				w.Write([]byte("a"))
				w.(http.Flusher).Flush()
				select {
				case <-r.Context().Done():
					return
				case <-time.After(time.Second):
				}
			}
		case "/endless":
			chunk := bytes.Repeat([]byte("z"), 1024)
			for {
				if _, err := w.Write(chunk); err != nil {
					return
				}
				w.(http.Flusher).Flush()
				time.Sleep(time.Millisecond)
			}
		}
	}))
	base := fmt.Sprintf("http://%s:%d", testIP, port)
	tests := []struct {
		name    string
		path    string
		timeout time.Duration
		cancel  time.Duration
		wantErr error
		// deadline, when set, is the caller's: the fetch ends at it or
		// at the fetcher's timeout, whichever comes first.
		deadline time.Duration
	}{
		{"slow headers", "/slow-headers", 500 * time.Millisecond, 0, nil, 0},
		{"trickling body", "/trickle", 1500 * time.Millisecond, 0, context.DeadlineExceeded, 0},
		{"endless body", "/endless", 800 * time.Millisecond, 0, context.DeadlineExceeded, 0},
		{"cancelled", "/slow-headers", 5 * time.Second, 200 * time.Millisecond, context.Canceled, 0},
		{"caller's deadline first", "/endless", 5 * time.Second, 0, context.DeadlineExceeded, 500 * time.Millisecond},
		{"fetcher's timeout first", "/endless", 500 * time.Millisecond, 0, context.DeadlineExceeded, time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := testFetcher(port, nil, func(o *FetcherOptions) { o.Timeout = tt.timeout; o.MaxBodyBytes = 1 << 30 })
			ctx := context.Background()
			if tt.cancel > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tt.cancel)
				defer cancel()
				ctx, cancel = context.WithCancel(ctx)
				time.AfterFunc(tt.cancel/2, cancel)
			}
			if tt.deadline > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tt.deadline)
				defer cancel()
			}
			start := time.Now()
			_, err := f.Fetch(ctx, &Request{URL: base + tt.path})
			elapsed := time.Since(start)
			if err == nil {
				t.Fatal("no error")
			}
			if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			limit := tt.timeout
			if tt.cancel > 0 {
				limit = tt.cancel
			}
			if tt.deadline > 0 {
				limit = min(limit, tt.deadline)
			}
			if elapsed > limit+time.Second {
				t.Fatalf("took %v, limit %v", elapsed, limit)
			}
		})
	}
}

func TestHugeHeaders(t *testing.T) {
	_, port := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for i := range 20 {
			w.Header().Set("X-Big-"+strconv.Itoa(i), strings.Repeat("h", 60<<10))
		}
		fmt.Fprint(w, "body")
	}))
	u := fmt.Sprintf("http://%s:%d/", testIP, port)
	f := testFetcher(port, nil, nil)
	start := time.Now()
	_, err := f.Fetch(context.Background(), &Request{URL: u})
	if err == nil || !strings.Contains(err.Error(), "header") {
		t.Fatalf("err = %v, want a header size error", err)
	}
	if d := time.Since(start); d > 30*time.Second { // generous: -race and a loaded machine
		t.Fatalf("took %v", d)
	}
	big := testFetcher(port, nil, func(o *FetcherOptions) { o.MaxHeaderBytes = 4 << 20 })
	if resp, err := big.Fetch(context.Background(), &Request{URL: u}); err != nil || string(resp.Body) != "body" {
		t.Fatalf("with a 4 MB header cap: %v", err)
	}
}

func TestTimings(t *testing.T) {
	_, port := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(20 * time.Millisecond)
		fmt.Fprint(w, "ok")
	}))
	res := newResolver(map[string][]string{"timed.example.com": {testIP}})
	res.delay = 10 * time.Millisecond
	f := testFetcher(port, res, nil)
	before := time.Now()
	resp, err := f.Fetch(context.Background(), &Request{URL: fmt.Sprintf("http://timed.example.com:%d/", port)})
	if err != nil {
		t.Fatal(err)
	}
	tm := resp.Timings
	if tm.DNS < 10*time.Millisecond || tm.Connect <= 0 || tm.TTFB < 20*time.Millisecond || tm.Total < tm.TTFB {
		t.Fatalf("timings = %+v", tm)
	}
	if tm.TLS != 0 {
		t.Fatalf("TLS time %v on plain http", tm.TLS)
	}
	if resp.FetchedAt.Before(before) || time.Since(resp.FetchedAt) > time.Minute {
		t.Fatalf("FetchedAt = %v", resp.FetchedAt)
	}
}

func newExpiredServer(t *testing.T) (*httptest.Server, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(7),
		Subject:               pkix.Name{CommonName: "expired test"},
		NotBefore:             time.Now().Add(-72 * time.Hour),
		NotAfter:              time.Now().Add(-24 * time.Hour),
		IPAddresses:           []net.IP{net.ParseIP("127.0.0.1")},
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "old") }))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv, pool
}

func TestTLS(t *testing.T) {
	t.Parallel()
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "secure") }))
	defer srv.Close()
	pool := srv.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	expired, expiredPool := newExpiredServer(t)
	expiredPort := expired.Listener.Addr().(*net.TCPAddr).Port
	res := newResolver(map[string][]string{"wrong.example.net": {"127.0.0.1"}})
	opts := func(roots *x509.CertPool, ports ...int) *FetcherOptions {
		return &FetcherOptions{
			AllowAddrs:   []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")},
			AllowedPorts: ports,
			Resolver:     res,
			TLSRoots:     roots,
		}
	}
	tests := []struct {
		name                               string
		opts                               *FetcherOptions
		url                                string
		verified, untrusted, mismatch, exp bool
	}{
		{"trusted", opts(pool, port), srv.URL, true, false, false, false},
		{"untrusted", opts(nil, port), srv.URL, false, true, false, false},
		{"hostname mismatch", opts(pool, port), fmt.Sprintf("https://wrong.example.net:%d/", port), false, false, true, false},
		{"expired", opts(expiredPool, expiredPort), expired.URL, false, false, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := NewFetcher(tt.opts)
			resp, err := f.Fetch(context.Background(), &Request{URL: tt.url})
			if err != nil {
				t.Fatal(err)
			}
			if resp.Status != 200 || len(resp.Body) == 0 {
				t.Fatalf("status %d body %q", resp.Status, resp.Body)
			}
			ti := resp.TLS
			if ti == nil {
				t.Fatal("no TLS info")
			}
			if ti.Verified != tt.verified || ti.Untrusted != tt.untrusted || ti.HostnameMismatch != tt.mismatch || ti.Expired != tt.exp {
				t.Fatalf("TLS = %+v", ti)
			}
			if (ti.VerifyError == "") != tt.verified {
				t.Fatalf("VerifyError %q with Verified %v", ti.VerifyError, ti.Verified)
			}
			if !strings.HasPrefix(ti.Version, "TLS 1.") || ti.Issuer == "" || ti.Subject == "" || ti.NotAfter.IsZero() || ti.CipherSuite == "" {
				t.Fatalf("TLS = %+v", ti)
			}
			if resp.Timings.TLS <= 0 {
				t.Fatalf("TLS timing = %v", resp.Timings.TLS)
			}
		})
	}
	t.Run("plain http has no TLS", func(t *testing.T) {
		plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
		defer plain.Close()
		p := plain.Listener.Addr().(*net.TCPAddr).Port
		resp, err := NewFetcher(opts(nil, p)).Fetch(context.Background(), &Request{URL: plain.URL})
		if err != nil || resp.TLS != nil {
			t.Fatalf("resp.TLS = %+v, err %v", resp.TLS, err)
		}
	})
}

func TestProbeTLS(t *testing.T) {
	t.Parallel()
	newServer := func(minVersion uint16) int {
		srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
		srv.TLS = &tls.Config{MinVersion: minVersion}
		srv.StartTLS()
		t.Cleanup(srv.Close)
		return srv.Listener.Addr().(*net.TCPAddr).Port
	}
	legacy, modern := newServer(tls.VersionTLS10), newServer(tls.VersionTLS12)
	f := NewFetcher(&FetcherOptions{
		AllowAddrs:   []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")},
		AllowedPorts: []int{legacy, modern},
	})
	tests := []struct {
		name string
		port int
		max  uint16
		want bool
	}{
		{"legacy server accepts 1.0", legacy, tls.VersionTLS10, true},
		{"legacy server accepts 1.1", legacy, tls.VersionTLS11, true},
		{"modern server refuses 1.0", modern, tls.VersionTLS10, false},
		{"modern server refuses 1.1", modern, tls.VersionTLS11, false},
		{"modern server accepts 1.3", modern, tls.VersionTLS13, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ok, err := f.ProbeTLS(context.Background(), "127.0.0.1:"+strconv.Itoa(tt.port), tt.max)
			if err != nil || ok != tt.want {
				t.Fatalf("ProbeTLS = %v, %v; want %v", ok, err, tt.want)
			}
		})
	}
	if _, err := f.ProbeTLS(context.Background(), "10.0.0.1:443", tls.VersionTLS11); !errors.Is(err, ErrForbiddenAddress) {
		t.Fatalf("ProbeTLS(10.0.0.1) = %v, want ErrForbiddenAddress", err)
	}
}

func TestClientDoesNotFollow(t *testing.T) {
	t.Parallel()
	_, port := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://10.0.0.1/", http.StatusFound)
	}))
	f := testFetcher(port, nil, nil)
	c := f.Client()
	resp, err := c.Get(fmt.Sprintf("http://%s:%d/", testIP, port))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 302 {
		t.Fatalf("status = %d, want 302", resp.StatusCode)
	}
	if _, err := c.Get("http://10.0.0.1/"); !errors.Is(err, ErrForbiddenAddress) {
		t.Fatalf("Client().Get(10.0.0.1) = %v, want ErrForbiddenAddress", err)
	}
}

func TestUserAgent(t *testing.T) {
	t.Parallel()
	var got atomic.Value
	_, port := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.Store(r.UserAgent())
	}))
	u := fmt.Sprintf("http://%s:%d/", testIP, port)
	tests := []struct{ name, fetcherUA, requestUA, want string }{
		{"default", "", "", DefaultUserAgent},
		{"fetcher", "custom/1", "", "custom/1"},
		{"request", "custom/1", MobileUserAgent, MobileUserAgent},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := testFetcher(port, nil, func(o *FetcherOptions) { o.UserAgent = tt.fetcherUA })
			if _, err := f.Fetch(context.Background(), &Request{URL: u, UserAgent: tt.requestUA}); err != nil {
				t.Fatal(err)
			}
			if got.Load() != tt.want {
				t.Fatalf("User-Agent = %q, want %q", got.Load(), tt.want)
			}
		})
	}
}

// TestDialContext checks that the exported dialer applies the fetcher's
// address policy: the allowed test server is reached, refused addresses,
// names and ports are not dialled.
func TestDialContext(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", testIP+":0")
	if err != nil {
		t.Skipf("cannot listen on %s: %v", testIP, err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	f := NewFetcher(&FetcherOptions{
		AllowAddrs:   []netip.Prefix{netip.MustParsePrefix(testIP + "/32")},
		AllowedPorts: []int{port},
		Resolver:     newResolver(map[string][]string{"rebind.test": {"10.0.0.1"}, "ok.test": {testIP}}),
	})
	ctx := context.Background()
	p := strconv.Itoa(port)
	tests := []struct {
		addr   string
		refuse bool
	}{
		{testIP + ":" + p, false},
		{"ok.test:" + p, false},
		{"127.0.0.1:" + p, true},
		{"169.254.169.254:" + p, true},
		{"rebind.test:" + p, true},
		{"localhost:" + p, true},
		{testIP + ":1", true},
	}
	for _, tt := range tests {
		conn, err := f.DialContext(ctx, "tcp", tt.addr)
		if conn != nil {
			conn.Close()
		}
		if got := errors.Is(err, ErrForbiddenAddress); got != tt.refuse {
			t.Errorf("DialContext(%s) = %v, want refused %v", tt.addr, err, tt.refuse)
		}
		if !tt.refuse && err != nil {
			t.Errorf("DialContext(%s) = %v", tt.addr, err)
		}
	}
}

// TestTransitionEncodingsAtDial checks that DNS answers in IPv6 transition
// encodings of metadata and loopback addresses are refused when the fetcher
// connects, with AllowPrivate and without: by Fetch (whose URL names a host,
// so only the dial-time resolution sees the address), by DialContext (the
// render proxy's dialer) and by the dialer's Control hook, which sees the
// address actually connected to.
func TestTransitionEncodingsAtDial(t *testing.T) {
	t.Parallel()
	hosts := map[string][]string{}
	var names []string
	for _, form := range transitionForms {
		for _, kind := range embeddedKinds {
			if kind.name == "private" || kind.name == "public" || kind.name == "loopback" && form.name == "ipv4-mapped" {
				continue // allowed with AllowPrivate; TestTransitionEncodings covers them
			}
			name := fmt.Sprintf("h%d.example.com", len(names))
			hosts[name] = []string{form.encode(kind.ip)}
			names = append(names, name)
		}
	}
	// With AllowPrivate the fetcher resolves only when it dials. Without,
	// it checks the URL first, so the first answer is public and the
	// second one (the dial's) is the encoded address, as in DNS rebinding.
	open := newResolver(hosts)
	rebind := newResolver(nil)
	for name, answer := range hosts {
		rebind.seq[name] = [][]string{{"93.184.216.34"}, answer}
	}
	ctx := context.Background()
	for _, opts := range []FetcherOptions{{AllowPrivate: true, Resolver: open}, {Resolver: rebind}} {
		f := NewFetcher(&opts)
		res := opts.Resolver.(*fakeResolver)
		for _, name := range names {
			ip := hosts[name][0]
			t.Run(fmt.Sprintf("allowPrivate=%v/%s", opts.AllowPrivate, ip), func(t *testing.T) {
				before := res.count(name)
				_, err := f.Fetch(ctx, &Request{URL: "http://" + name + "/"})
				assertForbidden(t, err, false)
				if res.count(name) == before {
					t.Fatal("Fetch refused without resolving at dial time")
				}
				if !strings.Contains(err.Error(), "always refused") {
					t.Errorf("Fetch error %q does not say the address is always refused", err)
				}
				conn, err := f.DialContext(ctx, "tcp", name+":80")
				if conn != nil {
					conn.Close()
				}
				if !errors.Is(err, ErrForbiddenAddress) {
					t.Errorf("DialContext(%s) = %v, want ErrForbiddenAddress", name, err)
				}
				if err := f.control("tcp", "["+ip+"]:80", nil); !errors.Is(err, ErrForbiddenAddress) {
					t.Errorf("control([%s]:80) = %v, want ErrForbiddenAddress", ip, err)
				}
			})
		}
	}
}

// TestFetchIntoBuffer fetches bodies of known length and chunked ones,
// small and past the chunk size, with a Buffer that holds them, one too
// small and none: the body is the same, and it is read into the Buffer
// exactly when the Buffer has the room.
func TestFetchIntoBuffer(t *testing.T) {
	t.Parallel()
	body := bytes.Repeat([]byte("0123456789abcdef"), 5000) // 80,000 bytes
	_, port := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.URL.Query().Get("n"))
		if r.URL.Query().Get("cl") != "" {
			w.Header().Set("Content-Length", strconv.Itoa(n))
		}
		w.Write(body[:n])
	}))
	f := testFetcher(port, nil, nil)
	for _, n := range []int{10, 3000, len(body)} {
		for _, cl := range []string{"", "1"} {
			for _, room := range []int{0, n / 2, n + 512} {
				var buf []byte
				if room > 0 {
					buf = make([]byte, 0, room)
				}
				u := fmt.Sprintf("http://%s:%d/?n=%d&cl=%s", testIP, port, n, cl)
				resp, err := f.Fetch(context.Background(), &Request{URL: u, Buffer: buf})
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(resp.Body, body[:n]) {
					t.Fatalf("%s with a buffer of %d: %d bytes, not the body", u, room, len(resp.Body))
				}
				into := room > 0 && &buf[:1][0] == &resp.Body[0]
				if want := room >= n+512; into != want {
					t.Errorf("%s with a buffer of %d: read into it %v, want %v", u, room, into, want)
				}
			}
		}
	}
}
