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

// TestPathRefAgrees holds the one-allocation path of path-absolute
// references to the URL net/url's Parse and ResolveReference build for
// them, field by field, and to the Standard's parser by its text, over
// hand-picked references, web-platform-tests' inputs and the corpus's.
func TestPathRefAgrees(t *testing.T) {
	t.Parallel()
	refs := []string{"/", "/a", "/a/b-c_d.html", "/a/b/", "/a//b", "/a?", "/a?q=1&r=2", "/?x", "/a?b=/c:d@e!$*()+,;",
		"/a.b/c.d", "/.a", "/a/./b", "/a/../b", "/a/..", "//host/x", "/a%20b", "/a?%41", "/a#f", "/a?b#f", "/a b", "/a?b c",
		"/é", "/a?é", "/a?b?c", "/~user/x_y-z", "a/b", "?q", ""}
	for _, c := range wpttest.Load(t) {
		refs = append(refs, c.Input)
	}
	if dir := os.Getenv("SEOKIT_CORPUS"); dir != "" {
		refs = append(refs, corpusRefs(t, dir)...)
	}
	taken := 0
	for _, bs := range []string{"http://example.org/foo/bar", "https://user:pw@example.com:8443/a/b?q=1#f", "http://127.0.0.1:8080/"} {
		base, err := ParseHref(bs)
		if err != nil {
			t.Fatal(err)
		}
		b, err := NewBaseURL(base)
		if err != nil {
			t.Fatal(err)
		}
		for _, ref := range refs {
			got, ok := b.pathRef(ref)
			if !ok {
				continue
			}
			taken++
			r, err := url.Parse(ref)
			if err != nil {
				t.Errorf("%s + %q: pathRef took a reference net/url refuses: %v", bs, ref, err)
				continue
			}
			want := base.ResolveReference(r)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s + %q: pathRef %#v, net/url %#v", bs, ref, got, want)
			}
			w, err := parseWHATWG(ref, b.w)
			if err != nil || fromWHATWG(w).String() != got.String() {
				t.Errorf("%s + %q: pathRef %s, the Standard %v %v", bs, ref, got, w, err)
			}
		}
	}
	if taken < 20 {
		t.Errorf("pathRef took only %d references", taken)
	}
	t.Logf("%d references resolved by pathRef, all agreeing", taken)
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
