package seo

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/seokit/seokit/internal/wiretest"
	"github.com/seokit/seokit/internal/wpttest"
)

// wptKnown lists the cases of urltestdata.json where ResolveReference
// differs from the Standard, with the reason.
var wptKnown = map[string]string{
	"http://a.b.c.xn--pokxncvks":  libPunycode,
	"http://10.0.0.xn--pokxncvks": libPunycode,
	"http://a.b.c.XN--pokxncvks":  libPunycode,
	"http://a.b.c.Xn--pokxncvks":  libPunycode,
	"http://10.0.0.XN--pokxncvks": libPunycode,
	"http://10.0.0.xN--pokxncvks": libPunycode,
	"file://xn--/p":               libPunycode,
	"https://xn--/":               libPunycode,
}

const (
	libPunycode = "the parser (2023 snapshot, UTS 46 with CheckHyphens and punycode validation) refuses an xn-- label that does not decode, which the Standard now keeps as it is; seokit reports such a link as not parsing"
)

// TestResolveReferenceWPT runs every case of urltestdata.json through
// ResolveReference: the URL's String must be the case's href, and a
// failure must be an error wrapping ErrInvalidURL. Cases may differ only
// in the fragment (net/url writes some escapes of fragments its own way and
// cannot write an empty one; fragments are never sent and links drop
// them) or when wptKnown lists them.
func TestResolveReferenceWPT(t *testing.T) {
	t.Parallel()
	cases := wpttest.Load(t)
	agree, fragOnly, listed := 0, 0, 0
	for _, c := range cases {
		var base *url.URL
		if c.Base != nil {
			b, err := ParseHref(*c.Base)
			if err != nil {
				t.Errorf("base %q: %v", *c.Base, err)
				continue
			}
			base = b
		}
		u, err := ResolveReference(base, c.Input)
		got := "failure"
		if err == nil {
			got = u.String()
		} else if !errors.Is(err, ErrInvalidURL) {
			t.Errorf("ResolveReference(%v, %q) error %v does not wrap ErrInvalidURL", c.Base, c.Input, err)
		}
		want := c.Href
		if c.Failure {
			want = "failure"
		}
		gotNoFrag, _, _ := strings.Cut(got, "#")
		wantNoFrag, _, _ := strings.Cut(want, "#")
		switch {
		case got == want:
			agree++
		case gotNoFrag == wantNoFrag:
			fragOnly++
		case wptKnown[c.Input] != "":
			listed++
		default:
			t.Errorf("ResolveReference(%v, %q) = %s; want %s", c.Base, c.Input, got, want)
		}
	}
	t.Logf("urltestdata through seo.ResolveReference: %d cases, %d agree, %d differ in the fragment only, %d listed differences", len(cases), agree, fragOnly, listed)
}

func TestResolveReference(t *testing.T) {
	t.Parallel()
	base, err := ParseHref("http://example.com/dir/page")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, ref, want, target string
	}{
		{"space in query", "/search?q=blue shoes", "http://example.com/search?q=blue%20shoes", "/search?q=blue%20shoes"},
		{"quotes and non-ASCII in query", `/s?q="<é>"`, "http://example.com/s?q=%22%3C%C3%A9%3E%22", "/s?q=%22%3C%C3%A9%3E%22"},
		{"newline in href", "/products\n/shoes", "http://example.com/products/shoes", "/products/shoes"},
		{"tab in href", "/pro\tducts", "http://example.com/products", "/products"},
		{"lone percent", "/discount-100%", "http://example.com/discount-100%", "/discount-100%"},
		{"backslash", `images\photo.jpg`, "http://example.com/dir/images/photo.jpg", "/dir/images/photo.jpg"},
		{"three slashes", "///host/x", "http://host/x", "/x"},
		{"scheme-relative path", "http:/example.com/", "http://example.com/example.com/", "/example.com/"},
		{"colon first", ":foo", "http://example.com/dir/:foo", "/dir/:foo"},
		{"ipv4 number", "http://0x7f.1/", "http://127.0.0.1/", "/"},
		{"pipe and caret", "/a|b^c", "http://example.com/a|b%5Ec", "/a|b%5Ec"},
		{"default port", "http://example.com:80/x", "http://example.com/x", "/x"},
		{"empty query kept", "/x?", "http://example.com/x?", "/x?"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			u, err := ResolveReference(base, tt.ref)
			if err != nil {
				t.Fatal(err)
			}
			if u.String() != tt.want || RequestTarget(u) != tt.target {
				t.Errorf("ResolveReference(%q) = %s, target %s; want %s, target %s", tt.ref, u, RequestTarget(u), tt.want, tt.target)
			}
		})
	}
	for _, ref := range []string{"http://exa mple.com/", "http://[::1/", "http://example.com:99999/", strings.Repeat("a", MaxRefLength+1)} {
		if u, err := ResolveReference(base, ref); !errors.Is(err, ErrInvalidURL) {
			t.Errorf("ResolveReference(%.40q) = %.60v, %v; want ErrInvalidURL", ref, u, err)
		}
	}
}

// TestParseHrefWebSocket: ws:// and wss:// are special schemes with a
// host, as the URL Standard has them: ParseHref gives their host (its
// default port dropped), path and query, and the same serialisation.
func TestParseHrefWebSocket(t *testing.T) {
	for _, tt := range []struct {
		raw, host, hostname, port, path, query, href string
	}{
		{"ws://127.0.0.1:9222/devtools/browser/ab?x=1", "127.0.0.1:9222", "127.0.0.1", "9222", "/devtools/browser/ab", "x=1", "ws://127.0.0.1:9222/devtools/browser/ab?x=1"},
		{"wss://Example.COM/chat", "example.com", "example.com", "", "/chat", "", "wss://example.com/chat"},
		{"ws://[::1]:80/", "[::1]", "::1", "", "/", "", "ws://[::1]/"},
		{"wss://example.com:443", "example.com", "example.com", "", "/", "", "wss://example.com/"},
		{"ws://10.0.0.1:8080", "10.0.0.1:8080", "10.0.0.1", "8080", "/", "", "ws://10.0.0.1:8080/"},
		{"ws://0x7f.1/", "127.0.0.1", "127.0.0.1", "", "/", "", "ws://127.0.0.1/"},
	} {
		u, err := ParseHref(tt.raw)
		if err != nil {
			t.Errorf("ParseHref(%q): %v", tt.raw, err)
			continue
		}
		if u.Host != tt.host || u.Hostname() != tt.hostname || u.Port() != tt.port || u.Path != tt.path || u.RawQuery != tt.query || u.Opaque != "" || u.String() != tt.href {
			t.Errorf("ParseHref(%q) = host %q hostname %q port %q path %q query %q opaque %q, %s; want %q %q %q %q %q, %s",
				tt.raw, u.Host, u.Hostname(), u.Port(), u.Path, u.RawQuery, u.Opaque, u, tt.host, tt.hostname, tt.port, tt.path, tt.query, tt.href)
		}
	}
}

// TestFetchSendsSerialisedTarget checks on the wire that the fetcher sends
// the path and query exactly as the URL Standard serialises them, as
// browsers do, for URLs net/url would refuse or re-encode.
func TestFetchSendsSerialisedTarget(t *testing.T) {
	t.Parallel()
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/redirect" {
			w.Header().Set("Location", "/after redirect?x=a b")
			w.WriteHeader(http.StatusFound)
		}
	}))
	wire := wiretest.Listen(srv.Listener)
	srv.Listener = wire
	srv.Start()
	defer srv.Close()
	base, err := ParseHref(srv.URL + "/dir/page")
	if err != nil {
		t.Fatal(err)
	}
	f := NewFetcher(&FetcherOptions{AllowPrivate: true})
	for _, tt := range []struct{ ref, want string }{
		{"/search?q=blue shoes", "/search?q=blue%20shoes"},
		{"/discount-100%", "/discount-100%"},
		{"/a|b^c?q=|", "/a|b%5Ec?q=|"},
		{`images\photo.jpg`, "/dir/images/photo.jpg"},
		{"/caf\u00e9?q=\u00e9", "/caf%C3%A9?q=%C3%A9"},
		{"/redirect", "/redirect /after%20redirect?x=a%20b"},
		{"//" + base.Host + "//double", "//double"},
	} {
		u, err := ResolveReference(base, tt.ref)
		if err != nil {
			t.Fatalf("%q: %v", tt.ref, err)
		}
		wire.Reset()
		// net/http's server refuses some of these targets (400); the
		// request line is what counts.
		if _, err := f.Fetch(context.Background(), &Request{URL: u.String()}); err != nil {
			t.Fatalf("fetch %s: %v", u, err)
		}
		var got []string
		for _, r := range wire.Requests() {
			got = append(got, r.Target)
			if r.Host != base.Host {
				t.Errorf("href %q: Host %q; want %q", tt.ref, r.Host, base.Host)
			}
		}
		if strings.Join(got, " ") != tt.want {
			t.Errorf("href %q: request targets %q; want %q", tt.ref, got, tt.want)
		}
	}
}

// TestIPv4NumberFormsMeetAddressPolicy checks that the address policy sees
// the address an IPv4 number form stands for.
func TestIPv4NumberFormsMeetAddressPolicy(t *testing.T) {
	t.Parallel()
	f := NewFetcher(nil)
	for _, raw := range []string{"http://0x7f.1/", "http://2130706433/", "http://0177.0.0.1/", "http://127.1/"} {
		u, err := f.CheckURL(context.Background(), raw)
		if !errors.Is(err, ErrForbiddenAddress) {
			t.Errorf("CheckURL(%s) = %v, %v; want ErrForbiddenAddress", raw, u, err)
		}
		if p, err := ParseURL(raw); err != nil || p.Hostname() != "127.0.0.1" {
			t.Errorf("ParseURL(%s) = %v, %v; want host 127.0.0.1", raw, p, err)
		}
	}
}

// TestFastPathAgrees holds BaseURL's fast path and opaqueURL to the
// Standard's parser (opaqueURL but for a space before ? or #, which the
// parser predates):
// for every reference it takes (the inputs of urltestdata against its http
// bases and against other bases, hand-picked references, and with
// SEOKIT_CORPUS every href and src of the saved pages), the URL must be the
// parser's, byte for byte, request target included.
func TestFastPathAgrees(t *testing.T) {
	t.Parallel()
	bases := []string{"http://example.org/foo/bar", "https://example.com/a/b/c?q=1#f", "http://example.com/", "https://www.example.com/dir/page.html"}
	var refs []string
	for _, c := range wpttest.Load(t) {
		refs = append(refs, c.Input)
		if c.Base != nil && (strings.HasPrefix(*c.Base, "http:") || strings.HasPrefix(*c.Base, "https:")) && !slices.Contains(bases, *c.Base) {
			bases = append(bases, *c.Base)
		}
	}
	refs = append(refs, "", "/", "a", "./a", "../a", "../../../../a", "a/./b/../c", "/a/b/..", "?", "?q", "#", "#f",
		"/p?q#f", "https://example.com", "https://example.com.", "http://a.b-c.example/x?y", "http://example.com./",
		"https://1.2.3.4/", "https://host.123/", "https://-x.example/", "https://x-.example/", "https://a..b/",
		"http://127.0.0.1:8080/x", "http://127.0.0.1/", "http://127.0.0.01/", "http://256.0.0.1/", "http://1.2.3/", "http://h:80/", "https://h:443/", "http://h:0/", "http://h:65536/", "http://h:08/", "https://h:8443/p",
		"/a%41b%2fc%2e", "/%7e/", "/a(b)*c!$&;=+,:@", "mailto:x@example.com", "HTTP://example.com/", "https://Example.com/",
		"/a.html\n        ", "\x01/a\x7f", " \x00/a?q \x1f", "\t/a", "/a\n/b", "https://Ex\tample.com/", "/a?b=%3A&c=%e2%80%99", "/a?b=%zz", "../a/./b/..")
	var corpus []string
	if dir := os.Getenv("SEOKIT_CORPUS"); dir != "" {
		corpus = corpusRefs(t, dir)
	}
	fast, opaque, checked, differ := 0, 0, 0, 0
	// Without base (ParseHref) first.
	for _, ref := range append(slices.Clip(refs), corpus...) {
		checked++
		nb := &BaseURL{}
		fu, ok := nb.fast(ref)
		if !ok {
			continue
		}
		fast++
		w, err := parseWHATWG(ref, nil)
		if err != nil || fu.String() != fromWHATWG(w).String() || RequestTarget(fu) != RequestTarget(fromWHATWG(w)) {
			differ++
			t.Errorf("no base, ref %q: fast path %s, parser %v %v", ref, fu, w, err)
		}
	}
	for i, bs := range bases {
		refs := refs
		if i < 4 {
			refs = append(slices.Clip(refs), corpus...)
		}
		bu, err := ParseHref(bs)
		if err != nil {
			continue
		}
		b, err := NewBaseURL(bu)
		if err != nil {
			t.Fatal(err)
		}
		for _, ref := range refs {
			checked++
			plain := strings.NewReplacer("\t", "", "\n", "", "\r", "").Replace(ref)
			if ou, ok := opaqueURL(ref); ok && !strings.Contains(plain, " ?") && !strings.Contains(plain, " #") {
				w, err := parseWHATWG(ref, b.whatwg())
				if err != nil || ou.String() != fromWHATWG(w).String() {
					differ++
					t.Errorf("base %s, ref %q: opaque path %s, parser %v %v", bs, ref, ou, w, err)
				}
				opaque++
			}
			fu, ok := b.fast(ref)
			if !ok {
				continue
			}
			fast++
			w, err := parseWHATWG(ref, b.whatwg())
			if err != nil {
				differ++
				t.Errorf("base %s, ref %q: fast path %s, parser fails: %v", bs, ref, fu, err)
				continue
			}
			su := fromWHATWG(w)
			if fu.String() != su.String() || RequestTarget(fu) != RequestTarget(su) || fu.Path != su.Path {
				differ++
				t.Errorf("base %s, ref %q: fast path %s (target %s, path %q), parser %s (target %s, path %q)", bs, ref, fu, RequestTarget(fu), fu.Path, su, RequestTarget(su), su.Path)
			}
		}
	}
	t.Logf("%d references resolved, %d by the fast path, %d as opaque paths, %d of them not as the parser resolves them", checked, fast, opaque, differ)
}

// corpusRefs returns the href and src values of the saved pages in dir.
func corpusRefs(t *testing.T, dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var refs []string
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".html") {
			continue
		}
		b, err := os.ReadFile(dir + "/" + e.Name())
		if err != nil {
			t.Fatal(err)
		}
		s := string(b)
		for _, attr := range []string{`href="`, `src="`} {
			for rest := s; ; {
				i := strings.Index(rest, attr)
				if i < 0 {
					break
				}
				rest = rest[i+len(attr):]
				j := strings.IndexByte(rest, '"')
				if j < 0 {
					break
				}
				refs = append(refs, strings.ReplaceAll(rest[:j], "&amp;", "&"))
				rest = rest[j:]
			}
		}
	}
	return refs
}
