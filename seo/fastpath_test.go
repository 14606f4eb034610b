package seo

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/url"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/seokit/seokit/internal/wpttest"
)

// TestPlainRefAgrees holds plainRef, the one-allocation path of plain
// references, to the URL net/url's Parse and ResolveReference build for
// them (an empty path written "/"), field by field, and to the Standard's
// parser by its text, over hand-picked references, web-platform-tests'
// inputs and the corpus's, against bases with plain and other paths.
func TestPlainRefAgrees(t *testing.T) {
	t.Parallel()
	refs := []string{"/", "/a", "/a/b-c_d.html", "/a/b/", "/a//b", "/a?", "/a?q=1&r=2", "/?x", "/a?b=/c:d@e!$*()+,;",
		"/a.b/c.d", "/.a", "/a/./b", "/a/../b", "/a/..", "//host/x", "/a%20b", "/a?%41", "/a#f", "/a?b#f", "/a b", "/a?b c",
		"/é", "/a?é", "/a?b?c", "/~user/x_y-z", "a/b", "?q", "", "#", "#f", "#f?g", "#a#b", "?", "?q#f", "?#f", "/a#", "/a?#",
		"a", "a.b", "a/", ".a", "./a", "../a", "a/../b", "a/.b", "a//b", "a:b", "a?q", "a#f", "a?q#f",
		"https://example.com", "https://example.com/", "https://example.com?q", "https://example.com#f", "https://example.com/a/b?q#f",
		"http://example.com.", "http://a.b-c.example/x?y", "https://1.2.3.4/", "https://host.123/", "https://a..b/", "http://h:8080/x",
		"http://h:80/", "https://h:443/", "http://h:08/", "https://Example.com/", "HTTP://example.com/", "https://user@h/",
		"https://h//x", "https://h/./x", "https://h/a/..", "https://xn--bcher-kva.example/", "//h", "//h?q", "//h#f", "//", "//H/",
		"http:a", "http:/a", "https:", "http://", "https://h:/", "ftp://h/",
		"/a?b=%3A%2f&c=%E2%80%99", "/a?%", "/a?%4", "/a?%4g", "/a?b%2e", "/a?b?c=%20#f", "/a#%20", "https://www.Example.ORG/a?q=%7B",
		"https://A.b/", "//Cdn.Example/x.js", "https://EXAMPLE.com:8080/", "https://Xn--bcher-kva.example/", "https://h.Ab1/", "https://h.1A/",
		"./", ".", "..", "../", "../..", "../../../../x", "./a/./b/../c", "a/./b", "a/.", "a/..", "a/../", "a/...", "a/..b", ".../a",
		"a//../b", "..//b", "../a//b/..", "/a/b/../../..", "/./a", "/../a", "/a/.?q", "/a/..?q#f", "/a/..#f", "https://h/a/../b/./c?q",
		"//h/../a", "?q=..", "#..", "/a,b;c=d@e+f$g&h", "/a:b/c", "a:b", "a/b:c", "/a/b,c/../d", "/a*b", "/a!b", "/a(b)", "/a'b",
		"https://h/r~b:r:x/", "https://h:8080:/", "/a/b;v=1.2/c"}
	for _, c := range wpttest.Load(t) {
		refs = append(refs, c.Input)
	}
	if dir := os.Getenv("SEOKIT_CORPUS"); dir != "" {
		refs = append(refs, corpusRefs(t, dir)...)
	}
	taken, relative := 0, 0
	for _, bs := range []string{"http://example.org/foo/bar", "https://user:pw@example.com:8443/a/b?q=1#f", "http://127.0.0.1:8080/",
		"https://example.com/dir/page.html?", "https://example.com/a%20b/c", "https://example.com/a|b/c?x#y", "https://example.com"} {
		base, err := ParseHref(bs)
		if err != nil {
			t.Fatal(err)
		}
		b, err := NewBaseURL(base)
		if err != nil {
			t.Fatal(err)
		}
		for _, ref := range refs {
			got, ok := b.plainRef(ref)
			if !ok {
				continue
			}
			taken++
			if !strings.HasPrefix(ref, "/") && !strings.HasPrefix(ref, "http") {
				relative++
			}
			r, err := url.Parse(ref)
			if err != nil {
				t.Errorf("%s + %q: plainRef took a reference net/url refuses: %v", bs, ref, err)
				continue
			}
			want := base.ResolveReference(r)
			if want.Path == "" {
				want.Path = "/"
			}
			// net/url keeps a host's capitals, which the Standard and
			// plainRef lowercase, and removes dot segments by RFC 3986;
			// those are held to the Standard alone.
			want.Host = strings.ToLower(want.Host)
			if p, _, _ := strings.Cut(ref, "?"); !strings.Contains("/"+p+"/", "/./") && !strings.Contains("/"+p+"/", "/../") &&
				!reflect.DeepEqual(got, want) {
				t.Errorf("%s + %q: plainRef %#v, net/url %#v", bs, ref, got, want)
			}
			w, err := parseWHATWG(ref, b.whatwg())
			if err != nil || fromWHATWG(w).String() != got.String() || RequestTarget(fromWHATWG(w)) != RequestTarget(got) ||
				fromWHATWG(w).Path != got.Path {
				t.Errorf("%s + %q: plainRef %s, the Standard %v %v", bs, ref, got, w, err)
			}
		}
	}
	if taken < 100 || relative < 20 {
		t.Errorf("plainRef took only %d references, %d of them relative", taken, relative)
	}
	t.Logf("%d references resolved by plainRef (%d relative), all agreeing", taken, relative)
}

// TestPlainHost holds normalizeHost's fast path to the IDNA path: every
// host it takes comes back unchanged from normalizeHostSlow, over crafted
// and generated host names.
func TestPlainHost(t *testing.T) {
	t.Parallel()
	hosts := []string{"example.com", "www.example.co.uk", "a-b.example", "ab--cd.example", "xn--bcher-kva.example", "-a.example",
		"a-.example", "example.com.", "1.2.3.4", "127.0.0.1", "1e100.net", "Example.com", "exa_mple.com", "a..b", ".a", "a.",
		"localhost", "0x7f.1", "münchen.de", "a.b-c.d", "123", "a123", strings.Repeat("a", 64) + ".com", "xn--a.com"}
	alphabet := "abz09-.xX_"
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		b := make([]byte, 1+rng.IntN(12))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		hosts = append(hosts, string(b))
	}
	taken := 0
	for _, h := range hosts {
		if !plainHost(h) {
			continue
		}
		taken++
		if got, err := normalizeHostSlow(h); err != nil || got != h {
			t.Errorf("plainHost(%q) is true, but the IDNA path gives %q, %v", h, got, err)
		}
	}
	if taken < 1000 {
		t.Errorf("plainHost took only %d hosts", taken)
	}
}

// TestPlainIPv4 holds plainIPv4 to the slow path: every address it takes,
// normalizeHostSlow returns unchanged.
func TestPlainIPv4(t *testing.T) {
	t.Parallel()
	hosts := []string{"127.0.0.1", "0.0.0.0", "255.255.255.255", "256.1.1.1", "01.2.3.4", "1.2.3", "1.2.3.4.5", "1.2.3.4.",
		".1.2.3.4", "1..2.3", "1.2.3.04", "10.0.0.255", "1000.1.1.1", "a.1.1.1", "1.2.3.4a", ""}
	alphabet := "0123456789.x"
	rng := rand.New(rand.NewPCG(3, 4))
	for range 50000 {
		b := make([]byte, 1+rng.IntN(16))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		hosts = append(hosts, string(b))
	}
	for range 2000 {
		hosts = append(hosts, fmt.Sprintf("%d.%d.%d.%d", rng.IntN(256), rng.IntN(256), rng.IntN(256), rng.IntN(256)))
	}
	taken := 0
	for _, h := range hosts {
		if !plainIPv4(h) {
			continue
		}
		taken++
		if got, err := normalizeHostSlow(h); err != nil || got != h {
			t.Errorf("plainIPv4(%q) is true, but the slow path gives %q, %v", h, got, err)
		}
	}
	if taken < 2000 {
		t.Errorf("plainIPv4 took only %d addresses", taken)
	}
	for _, h := range []string{"127.0.0.1", "0.0.0.0", "255.255.255.255", "10.0.0.255"} {
		if !plainIPv4(h) {
			t.Errorf("plainIPv4(%q) is false", h)
		}
	}
}

// TestReadChunked reads bodies of every size around the chunk boundaries,
// in reads of every size, and a failing reader, as io.ReadAll does.
func TestReadChunked(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(9, 9))
	for _, size := range []int{0, 1, 100, bodyChunk - 1, bodyChunk, bodyChunk + 1, 3*bodyChunk + 7, 200_000} {
		body := make([]byte, size)
		for i := range body {
			body[i] = byte(rng.Uint32())
		}
		for _, step := range []int{1, 7, 4096, 1 << 20} {
			if size > 50_000 && step == 1 {
				continue
			}
			got, err := readChunked(&stepReader{b: body, step: step}, nil)
			if err != nil || !bytes.Equal(got, body) {
				t.Errorf("size %d in reads of %d: %d bytes, %v; want the body", size, step, len(got), err)
			}
			want := errors.New("reset")
			got, err = readChunked(&stepReader{b: body, step: step, err: want}, nil)
			if !errors.Is(err, want) || !bytes.Equal(got, body) {
				t.Errorf("size %d in reads of %d, failing at the end: %d bytes, %v; want the body and the error", size, step, len(got), err)
			}
			// Into a buffer short of the body, just holding it, and with
			// room to spare: the body, read in place when it fits.
			for _, room := range []int{size / 2, size, size + 1, size + bodyChunk} {
				into := make([]byte, 3, room+3)[3:]
				got, err := readChunked(&stepReader{b: body, step: step}, into)
				if err != nil || !bytes.Equal(got, body) {
					t.Errorf("size %d in reads of %d into room for %d: %d bytes, %v; want the body", size, step, room, len(got), err)
				}
				if inPlace := size > 0 && room > 0 && &got[0] == &into[:1][0]; inPlace != (size > 0 && room >= size) {
					t.Errorf("size %d in reads of %d into room for %d: read in place %v", size, step, room, inPlace)
				}
				got, err = readChunked(&stepReader{b: body, step: step, err: want}, into)
				if !errors.Is(err, want) || !bytes.Equal(got, body) {
					t.Errorf("size %d in reads of %d into room for %d, failing at the end: %d bytes, %v; want the body and the error", size, step, room, len(got), err)
				}
			}
		}
	}
}

// stepReader yields b in reads of at most step bytes, then err or io.EOF.
type stepReader struct {
	b    []byte
	step int
	err  error
}

func (r *stepReader) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		if r.err != nil {
			return 0, r.err
		}
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), r.step)], r.b)
	r.b = r.b[n:]
	return n, nil
}

// TestOpaqueRefAgrees holds opaqueRef's one-pass reading of the scheme to
// splitScheme's, over web-platform-tests' inputs and generated references
// with tabs, newlines, case and leading controls.
func TestOpaqueRefAgrees(t *testing.T) {
	t.Parallel()
	ref := func(s string) bool {
		scheme, rest, ok := splitScheme(strings.TrimLeftFunc(s, isC0OrSpace))
		if !ok || strings.HasPrefix(rest, "/") {
			return false
		}
		switch scheme {
		case "http", "https", "ws", "wss", "ftp", "file":
			return false
		}
		return true
	}
	inputs := []string{"", ":", "a:", "a:/", "a:b", "1a:b", "a1:b", "+a:b", "a+:b", "data:x", "DATA:x", "javascript:void(0)",
		"JavaScript:x", "mailto:x", "http:x", "HTTPS:x", "htt\tp:x", "http\n:x", "h\rttps:/x", "a:\t/x", "a:\n\nx", " \x01a:b",
		"https:", "httpsx:y", "wss:y", "Ws:y", "file:y", "fil:e", "ftp:/", "ftps:x", "a.b-c+d:e", "a b:c", "/a:b", "?a:b", "\ta:b"}
	for _, c := range wpttest.Load(t) {
		inputs = append(inputs, c.Input)
	}
	alphabet := []string{"a", "H", "t", "p", "s", ":", "/", "\t", "\n", "\r", " ", "\x01", "1", "+", ".", "-", "w", "f", "é", "?"}
	rng := rand.New(rand.NewPCG(11, 12))
	for range 50000 {
		var sb strings.Builder
		for range 1 + rng.IntN(10) {
			sb.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		inputs = append(inputs, sb.String())
	}
	taken := 0
	for _, s := range inputs {
		got, want := opaqueRef(s), ref(s)
		if got != want {
			t.Errorf("opaqueRef(%q) = %v, splitScheme's reading %v", s, got, want)
		}
		if got {
			taken++
		}
	}
	if taken < 1000 {
		t.Errorf("only %d opaque references among the inputs", taken)
	}
}

// TestPlainBaseAgrees holds NewBaseURL's fast path for plain bases to the
// Standard's parse it defers: the same URL field by field, the same
// directory for path-relative references, and the same parse once needed.
func TestPlainBaseAgrees(t *testing.T) {
	t.Parallel()
	hrefs := []string{"https://example.com", "https://example.com/", "http://example.com/a/b", "https://example.com/a/b/?q=1",
		"https://example.com/a?", "http://h:8080/x", "http://127.0.0.1/", "https://example.com/a%20b", "https://Example.com/",
		"https://example.com/a#f", "https://user@example.com/", "https://example.com/./a", "http://example.com./a", "https://h/é"}
	for _, c := range wpttest.Load(t) {
		hrefs = append(hrefs, c.Input)
		if c.Base != nil {
			hrefs = append(hrefs, *c.Base)
		}
	}
	if dir := os.Getenv("SEOKIT_CORPUS"); dir != "" {
		hrefs = append(hrefs, corpusRefs(t, dir)...)
	}
	taken := 0
	for _, h := range hrefs {
		u, ok := plainAbsolute(h)
		if !ok {
			continue
		}
		taken++
		w, err := parseWHATWG(h, nil)
		if err != nil {
			t.Errorf("%q: plainAbsolute took a URL the parser refuses: %v", h, err)
			continue
		}
		if want := fromWHATWG(w); !reflect.DeepEqual(u, want) {
			t.Errorf("%q: plainAbsolute %#v, the Standard %#v", h, u, want)
		}
		lazy, err := NewBaseURL(u)
		if err != nil {
			t.Fatal(err)
		}
		eager := newBase(w)
		if lazy.dir != eager.dir || !reflect.DeepEqual(lazy.u, eager.u) || lazy.URL().String() != eager.URL().String() {
			t.Errorf("%q: lazy base %#v dir %q, eager %#v dir %q", h, lazy.u, lazy.dir, eager.u, eager.dir)
		}
	}
	if taken < 20 {
		t.Errorf("plainAbsolute took only %d URLs", taken)
	}
}
