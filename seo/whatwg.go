package seo

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"sync"

	wurl "github.com/nlnwa/whatwg-url/url"
)

// MaxRefLength is the longest reference (href, src, Location, <loc> ...)
// resolved, in bytes; a longer one is refused with ErrInvalidURL. It keeps
// the parser's work per reference bounded on hostile pages; servers
// commonly refuse request lines far shorter.
const MaxRefLength = 16 << 10

// ErrInvalidURL is returned (wrapped) for a reference that does not parse as
// a URL by the WHATWG URL Standard, as a browser would refuse it too.
var ErrInvalidURL = errors.New("seo: invalid URL")

// whatwg is the URL Standard's parser with its default (browser) behaviour.
var whatwg = wurl.NewParser()

// BaseURL is a base URL parsed once, for resolving the many references of
// one document against it. Resolution follows the WHATWG URL Standard, as
// browsers do: tabs and newlines are removed, leading and trailing spaces
// trimmed, backslashes are slashes in http(s) URLs, spaces, quotes, angle
// brackets and non-ASCII characters are percent-encoded, a lone % is kept
// as it is, hosts are IDNA-mapped and IPv4 numbers in any form (0x7f.1) are
// written as dotted decimals. A BaseURL is safe for concurrent use.
type BaseURL struct {
	// u is the base as a net/url URL, for the fast path of Resolve.
	u *url.URL
	// dir is u's path up to its last slash when that path is plain (see
	// plainPath) and u has no Opaque, for plainRef; else "".
	dir string
	// w is the base parsed by the Standard's parser, for the references
	// the fast path leaves to it. A plain base (the common case) is
	// parsed only on first need, from href, once.
	w    *wurl.Url
	href string
	once sync.Once
}

// NewBaseURL parses base (an absolute URL, normally one from this package)
// for [BaseURL.Resolve]. A nil base gives a BaseURL that resolves absolute
// references only.
func NewBaseURL(base *url.URL) (*BaseURL, error) {
	if base == nil {
		return &BaseURL{}, nil
	}
	href := base.String()
	if u, ok := plainAbsolute(href); ok {
		// The fast path's URL is the Standard's (TestPlainBaseAgrees); the
		// Standard's parse waits until a reference needs it.
		b := &BaseURL{u: u, href: href}
		b.setDir()
		return b, nil
	}
	w, err := parseWHATWG(href, nil)
	if err != nil {
		return nil, err
	}
	return newBase(w), nil
}

// plainAbsolute parses an absolute http(s) URL of plain characters without
// fragment (see plainRef) in one allocation; ok is false for any other.
func plainAbsolute(href string) (*url.URL, bool) {
	if !strings.HasPrefix(href, "http://") && !strings.HasPrefix(href, "https://") {
		return nil, false
	}
	u, ok := noBase.plainRef(href)
	if !ok || u.Fragment != "" {
		return nil, false
	}
	return u, true
}

// noBase is the base plainRef reads for absolute references, which take
// nothing from it.
var noBase = &BaseURL{u: &url.URL{}}

// newBase wraps a parsed base. Parsing against a base clones it, and the
// clone fills the base's lazily built search parameters; building them
// here leaves the base read-only afterwards, so safe for concurrent use.
func newBase(w *wurl.Url) *BaseURL {
	w.SearchParams()
	b := &BaseURL{w: w, u: fromWHATWG(w)}
	b.once.Do(func() {})
	b.setDir()
	return b
}

// setDir sets dir from u.
func (b *BaseURL) setDir() {
	if p := b.u.Path; b.u.Opaque == "" && b.u.RawPath == "" && strings.HasPrefix(p, "/") && plainPath(p) {
		b.dir = p[:strings.LastIndexByte(p, '/')+1]
	}
}

// whatwg returns the base as the Standard's parser has it (nil for a
// BaseURL without base), parsing a plain base on first use.
func (b *BaseURL) whatwg() *wurl.Url {
	if b == nil {
		return nil
	}
	b.once.Do(func() {
		if b.href == "" {
			return
		}
		// A plain base always parses (the fast path agrees with the
		// parser on it).
		if w, err := parseWHATWG(b.href, nil); err == nil {
			w.SearchParams()
			b.w = w
		}
	})
	return b.w
}

// Resolve resolves ref against the base by the WHATWG URL Standard and
// returns it as a *url.URL whose String is exactly the standard's
// serialisation and whose request target (the path and query an HTTP
// request sends) is exactly what a browser sends; see [ResolveReference].
func (b *BaseURL) Resolve(ref string) (*url.URL, error) {
	if u, ok := opaqueURL(ref); ok {
		return u, nil
	}
	if u, ok := b.fast(ref); ok {
		return u, nil
	}
	w, err := parseWHATWG(ref, b.whatwg())
	if err != nil {
		return nil, err
	}
	return fromWHATWG(w), nil
}

// fast resolves the references most pages are made of (a path, a query, a
// plain https://host/path) with net/url, which gives the same URL as the
// Standard for them at a fraction of the cost; ok is false for any other
// reference. TestFastPathAgrees holds it to the Standard's parser.
func (b *BaseURL) fast(ref string) (*url.URL, bool) {
	if len(ref) > MaxRefLength {
		return nil, false
	}
	// The Standard strips leading and trailing C0 controls and spaces (a
	// tab or newline inside is left to the parser, which removes it).
	ref = TrimC0Space(ref)
	if b == nil || b.u == nil {
		// No base: an absolute http(s) URL only.
		if !(strings.HasPrefix(ref, "http://") || strings.HasPrefix(ref, "https://")) || !simpleRef(ref) {
			return nil, false
		}
		u, err := url.Parse(ref)
		if err != nil {
			return nil, false
		}
		if u.Path == "" {
			u.Path = "/"
		}
		return u, true
	}
	if b.u.Opaque != "" || (b.u.Scheme != "http" && b.u.Scheme != "https") {
		return nil, false
	}
	if ref == "" || ref == "#" {
		// The base without its fragment.
		u := *b.u
		u.Fragment, u.RawFragment = "", ""
		return &u, true
	}
	if u, ok := b.plainRef(ref); ok {
		return u, true
	}
	if !simpleRef(ref) {
		return nil, false
	}
	r, err := url.Parse(ref)
	if err != nil {
		return nil, false
	}
	u := b.u.ResolveReference(r)
	if u.Path == "" {
		u.Path = "/"
	}
	return u, true
}

// simpleRef reports whether ref is made only of characters the Standard
// leaves as they are in a path, query and fragment, with valid escapes of
// anything but a dot, at most one #, and either no scheme and no authority
// or a lowercase http(s) scheme with a lowercase host name whose last label
// starts with a letter (no port, user, IP address or punycode).
func simpleRef(ref string) bool {
	hashes := 0
	for i := 0; i < len(ref); i++ {
		c := ref[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case c == '%':
			if i+2 >= len(ref) || !isHex(ref[i+1]) || !isHex(ref[i+2]) || (ref[i+1] == '2' && (ref[i+2] == 'e' || ref[i+2] == 'E')) {
				return false
			}
		case c == '#':
			hashes++
		case strings.IndexByte("-._~!$&()*+,;=:@/?", c) >= 0:
		default:
			return false
		}
	}
	// Dot segments are left to the parser: net/url removes them by RFC
	// 3986, which differs from the Standard around empty segments.
	// net/url keeps the base's fragment for "" and "#".
	if ref == "" || strings.HasSuffix(ref, "#") || hashes > 1 || strings.HasPrefix(ref, ".") || strings.Contains(ref, "/.") {
		return false
	}
	if rest, ok := strings.CutPrefix(ref, "//"); ok {
		end := strings.IndexAny(rest, "/?#")
		if end < 0 {
			end = len(rest)
		}
		return simpleHost(rest[:end])
	}
	end := strings.IndexAny(ref, "/?#")
	if end < 0 {
		end = len(ref)
	}
	if !strings.Contains(ref[:end], ":") {
		return true
	}
	var rest string
	switch {
	case strings.HasPrefix(ref, "http://"):
		rest = ref[len("http://"):]
	case strings.HasPrefix(ref, "https://"):
		rest = ref[len("https://"):]
	default:
		return false
	}
	if end = strings.IndexAny(rest, "/?#"); end < 0 {
		end = len(rest)
	}
	return simpleHost(rest[:end])
}

// simpleHost reports whether h is a lowercase ASCII host name whose last
// label starts with a letter, or an IPv4 address in dotted decimals, with
// an optional port other than the scheme's default, written without
// leading zeros.
func simpleHost(h string) bool {
	if i := strings.LastIndexByte(h, ':'); i >= 0 {
		p := h[i+1:]
		if p == "" || p[0] == '0' || len(p) > 5 || p == "80" || p == "443" {
			return false
		}
		for j := 0; j < len(p); j++ {
			if p[j] < '0' || p[j] > '9' {
				return false
			}
		}
		if n, _ := strconv.Atoi(p); n > 65535 {
			return false
		}
		h = h[:i]
	}
	// Digits and dots only: an IPv4 address or nothing the fast path
	// takes (a name's last label starts with a letter).
	numeric := true
	for i := 0; i < len(h) && numeric; i++ {
		numeric = '0' <= h[i] && h[i] <= '9' || h[i] == '.'
	}
	if numeric {
		return dottedDecimal(h)
	}
	if strings.Contains(h, "xn--") {
		return false
	}
	for i := 0; i < len(h); i++ {
		c := h[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '.') {
			return false
		}
	}
	last := strings.TrimSuffix(h, ".")
	if i := strings.LastIndexByte(last, '.'); i >= 0 {
		last = last[i+1:]
	}
	return last != "" && 'a' <= last[0] && last[0] <= 'z'
}

// plainRef resolves the references pages are mostly made of, written in
// plain characters: a path-absolute one ("/a/b-c_d.html",
// "/search?q=x&p=2"), an absolute or scheme-relative one with a plain host
// ("https://example.com/a", "//cdn.example/x.js"), a path-relative one
// ("img/a.png", "../a.png") against a plain base path, and a query or
// fragment alone ("?p=2", "#top"), each with an optional plain query (in
// which escapes such as %3A are plain too: both parsers keep them as they
// are) and fragment. It builds, in one allocation (two for a path-relative
// one, more for the cases below), the URL net/url's Parse and
// ResolveReference build for it with an
// empty path written "/" (TestPlainRefAgrees), which is what the Standard
// gives too; ok is false for any other reference.
//
// Two things net/url does not do the Standard's way, plainRef does as the
// Standard (TestPlainRefAgrees holds it to the Standard's parser for
// them): a host with ASCII capitals is lowercased, and "." and ".."
// segments are removed by the Standard's path state (removeDotSegments).
// Pages write both often enough ("../img/a.png", "http://www.Example.org/")
// that the parser, over thirty times as slow, was a tenth of the
// resolving's cost.
func (b *BaseURL) plainRef(ref string) (*url.URL, bool) {
	if ref == "" {
		return nil, false
	}
	u := url.URL{Scheme: b.u.Scheme, User: b.u.User, Host: b.u.Host}
	rest, withHost := ref, true
	switch {
	case strings.HasPrefix(ref, "//"):
		rest = ref[2:]
	case strings.HasPrefix(ref, "https://"):
		u.Scheme, rest = "https", ref[len("https://"):]
	case strings.HasPrefix(ref, "http://"):
		u.Scheme, rest = "http", ref[len("http://"):]
	default:
		withHost = false
	}
	if withHost {
		// The host runs up to the path, query or fragment.
		end := strings.IndexAny(rest, "/?#")
		if end < 0 {
			end = len(rest)
		}
		host := rest[:end]
		if !simpleHost(host) {
			if host = lowerASCII(host); host == "" || !simpleHost(host) {
				return nil, false
			}
		}
		u.User, u.Host, rest = nil, host, rest[end:]
	}
	// rest is a path (absolute or relative), then ?query, then #fragment.
	n, dots := dottedPathLen(rest)
	if n < len(rest) && rest[n] != '?' && rest[n] != '#' {
		return nil, false
	}
	path := rest[:n]
	rest = rest[n:]
	if withHost && path == "" {
		path = "/"
	}
	if rest != "" && rest[0] == '?' {
		q := rest[1:]
		if i := strings.IndexByte(q, '#'); i >= 0 {
			q, rest = q[:i], q[i:]
		} else {
			rest = ""
		}
		if !plainEscapedQuery(q) {
			return nil, false
		}
		u.RawQuery, u.ForceQuery = q, q == ""
	}
	if rest != "" {
		// A fragment: net/url and the Standard keep "#" with nothing after
		// it differently.
		f := rest[1:]
		if f == "" || !plainQuery(f) {
			return nil, false
		}
		u.Fragment = f
	}
	switch {
	case path == "" && rest == ref:
		// A fragment alone: the base's path and query (net/url drops a
		// base's empty query, the Standard keeps it).
		if b.dir == "" || b.u.ForceQuery {
			return nil, false
		}
		u.Path, u.RawQuery, u.ForceQuery = b.u.Path, b.u.RawQuery, b.u.ForceQuery
	case path == "":
		// A query alone: the base's path.
		if b.dir == "" {
			return nil, false
		}
		u.Path = b.u.Path
	case path[0] == '/':
		u.Path = path
	default:
		// Path-relative: against the base's directory.
		if b.dir == "" {
			return nil, false
		}
		u.Path = b.dir + path
	}
	if dots {
		u.Path = removeDotSegments(u.Path)
	}
	return &u, true
}

// lowerASCII returns h with its ASCII capitals lowercased, or "" when it
// has none (the caller's host was refused for something else).
func lowerASCII(h string) string {
	i := 0
	for i < len(h) && !('A' <= h[i] && h[i] <= 'Z') {
		i++
	}
	if i == len(h) {
		return ""
	}
	b := []byte(h)
	for ; i < len(b); i++ {
		if 'A' <= b[i] && b[i] <= 'Z' {
			b[i] += 'a' - 'A'
		}
	}
	return string(b)
}

// dottedPathLen returns the length of the longest prefix of p made of
// plain path characters only (letters, digits, "-_~./" and ",;=@+$&", and
// ':' in a path that starts with '/', as a relative one would start with a
// scheme), which net/url and the Standard both keep as they are, and
// whether a segment of it is "." or "..", which removeDotSegments must
// remove. A segment such as ".a" or "..." is a name like any other.
func dottedPathLen(p string) (n int, dots bool) {
	seg := 0 // the start of the current segment
	for i := 0; i < len(p); i++ {
		c := p[i]
		if plainChars[c]&plainPathChar != 0 {
			continue
		}
		switch {
		case c == '/':
			dots = dots || isDotSegment(p[seg:i])
			seg = i + 1
		case c == ':' && p[0] == '/':
		default:
			return i, dots || isDotSegment(p[seg:i])
		}
	}
	return len(p), dots || isDotSegment(p[seg:])
}

// plainChars classifies the bytes plainRef keeps as they are: in a path
// segment (plainPathChar), a fragment (plainQueryChar) and a query
// (plainQueryChar and '?'). A table, as plainRef reads every byte of most
// of a page's references.
var plainChars = func() (t [256]uint8) {
	for c := range t {
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' {
			t[c] = plainPathChar | plainQueryChar
		}
	}
	for _, c := range []byte("-_~.,;=@+$&") {
		t[c] |= plainPathChar
	}
	for _, c := range []byte("-._~=&+,;:@/!$*()") {
		t[c] |= plainQueryChar
	}
	return t
}()

const (
	plainPathChar = 1 << iota
	plainQueryChar
)

// isDotSegment reports whether s is "." or "..".
func isDotSegment(s string) bool { return s == "." || s == ".." }

// removeDotSegments resolves the "." and ".." segments of p, an absolute
// path of plain segments, as the URL Standard's path state does for an
// http(s) URL (https://url.spec.whatwg.org/#path-state): ".." removes the
// segment before it (none at the root), "." is dropped, and either one
// last leaves an empty last segment (a trailing slash). Empty segments
// ("a//b") are segments like any other, which is where the Standard
// differs from RFC 3986's remove_dot_segments that net/url applies.
func removeDotSegments(p string) string {
	segs := make([]string, 0, strings.Count(p, "/"))
	for rest := p[1:]; ; {
		seg, next, more := strings.Cut(rest, "/")
		switch seg {
		case "..":
			if len(segs) > 0 {
				segs = segs[:len(segs)-1]
			}
			if !more {
				segs = append(segs, "")
			}
		case ".":
			if !more {
				segs = append(segs, "")
			}
		default:
			segs = append(segs, seg)
		}
		if !more {
			break
		}
		rest = next
	}
	return "/" + strings.Join(segs, "/")
}

// plainPath reports whether p is a path of plain characters (see
// dottedPathLen) with no "." or ".." segment: every parser keeps it as it
// is.
func plainPath(p string) bool {
	n, dots := dottedPathLen(p)
	return n == len(p) && !dots
}

// plainEscapedQuery reports whether q holds only characters every parser
// keeps as they are in a query, '?' and valid percent escapes included.
func plainEscapedQuery(q string) bool {
	for i := 0; i < len(q); i++ {
		switch c := q[i]; {
		case plainChars[c]&plainQueryChar != 0, c == '?':
		case c == '%':
			if i+2 >= len(q) || !isHex(q[i+1]) || !isHex(q[i+2]) {
				return false
			}
			i += 2
		default:
			return false
		}
	}
	return true
}

// plainQuery reports whether q holds only characters every parser keeps as
// they are in a query.
func plainQuery(q string) bool {
	for i := 0; i < len(q); i++ {
		if plainChars[q[i]]&plainQueryChar == 0 {
			return false
		}
	}
	return true
}

// ResolveBase resolves ref as Resolve does and returns it as a BaseURL, for
// a document whose <base href> is ref.
func (b *BaseURL) ResolveBase(ref string) (*BaseURL, error) {
	w, err := parseWHATWG(ref, b.whatwg())
	if err != nil {
		return nil, err
	}
	return newBase(w), nil
}

// URL returns the base URL as Resolve would (nil for a BaseURL without
// base).
func (b *BaseURL) URL() *url.URL {
	w := b.whatwg()
	if w == nil {
		return nil
	}
	return fromWHATWG(w)
}

// ResolveReference resolves ref against base (nil: ref must be absolute) by
// the WHATWG URL Standard, the way browsers resolve hrefs, and returns the
// result as a *url.URL:
//
//   - String() is the standard's serialisation (href), except for a
//     fragment that net/url writes differently;
//   - Path is the path percent-decoded (an invalid escape such as a lone
//     % kept as it is), for reading; the path as serialised is RawPath, or,
//     when net/url cannot carry it (a lone %, | or ^, which browsers send
//     as they are), Opaque holds "//" + host + path;
//   - RawQuery is the query exactly as serialised.
//
// A URL with an Opaque is sent by [Fetcher] with its path unchanged; code
// that rewrites Path must clear Opaque. Errors wrap ErrInvalidURL.
func ResolveReference(base *url.URL, ref string) (*url.URL, error) {
	b, err := NewBaseURL(base)
	if err != nil {
		return nil, err
	}
	return b.Resolve(ref)
}

// ParseHref parses an absolute URL by the WHATWG URL Standard, as
// [ResolveReference] with no base does. It is the parser for URLs seokit
// has already resolved and stored as strings (link targets, redirect
// chains, frontier entries), which net/url may refuse (a lone % in the
// path). User input goes through [ParseURL].
func ParseHref(raw string) (*url.URL, error) {
	return ResolveReference(nil, raw)
}

func parseWHATWG(ref string, base *wurl.Url) (*wurl.Url, error) {
	if len(ref) > MaxRefLength && !opaqueRef(ref) {
		return nil, fmt.Errorf("%w: longer than %d bytes", ErrInvalidURL, MaxRefLength)
	}
	var (
		w   *wurl.Url
		err error
	)
	if base == nil {
		w, err = whatwg.Parse(ref)
	} else {
		w, err = base.Parse(ref)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %q: %s", ErrInvalidURL, Clip(ref), whatwgReason(err))
	}
	return w, nil
}

// opaqueURL parses a reference with an opaque path ("javascript:...",
// "mailto:...", "data:..."; see opaqueRef) by the Standard's steps for it,
// which never look at the base: the path, query and fragment are kept with
// C0 controls, non-ASCII bytes and, in the query and fragment, the
// characters of their percent-encode sets escaped; a space before ? or #
// is %20. ok is false for any other reference.
func opaqueURL(ref string) (*url.URL, bool) {
	if !opaqueRef(ref) {
		return nil, false
	}
	ref = TrimC0Space(ref)
	if hasTabOrNewline(ref) {
		ref = strings.Map(func(r rune) rune {
			if r == '\t' || r == '\n' || r == '\r' {
				return -1
			}
			return r
		}, ref)
	}
	i := strings.IndexByte(ref, ':')
	scheme := strings.ToLower(ref[:i])
	rest := ref[i+1:]
	// The output is rest itself until a byte needs escaping (most
	// javascript:, mailto: and data: references need none): only then is
	// it copied.
	var b []byte
	copied := false
	put := func(j int, s ...byte) {
		if !copied {
			b = make([]byte, 0, len(rest)+8)
			b = append(b, rest[:j]...)
			copied = true
		}
		b = append(b, s...)
	}
	state, frag := 0, -1 // 0 path, 1 query, 2 fragment
	for j := 0; j < len(rest); j++ {
		c := rest[j]
		switch {
		case state < 2 && c == '#':
			state, frag = 2, j
			if copied {
				frag = len(b)
				b = append(b, c)
			}
			continue
		case state == 0 && c == '?':
			state = 1
			if copied {
				b = append(b, c)
			}
			continue
		case state == 0 && c == ' ' && j+1 < len(rest) && (rest[j+1] == '?' || rest[j+1] == '#'):
			put(j, '%', '2', '0')
			continue
		}
		enc := c < 0x20 || c > 0x7e
		switch state {
		case 1:
			enc = enc || c == ' ' || c == '"' || c == '#' || c == '<' || c == '>'
		case 2:
			enc = enc || c == ' ' || c == '"' || c == '<' || c == '>' || c == '`'
		}
		switch {
		case enc:
			const hex = "0123456789ABCDEF"
			put(j, '%', hex[c>>4], hex[c&15])
		case copied:
			b = append(b, c)
		}
	}
	out := rest
	if copied {
		out = string(b)
	}
	u := &url.URL{Scheme: scheme, Opaque: out}
	if frag >= 0 {
		u.Opaque = out[:frag]
		if f := out[frag+1:]; f != "" {
			u.Fragment, u.RawFragment = unescapeLenient(f), f
			if u.EscapedFragment() != f {
				u.RawFragment = ""
			}
		}
	}
	return u, true
}

// opaqueRef reports whether ref has a scheme other than the Standard's
// special ones (http, https, ws, wss, ftp, file) and no "/" after it
// ("data:...", "javascript:...", "mailto:..."): its path is one opaque
// string, parsed in linear time whatever its length.
//
// It reads only the scheme and the byte after it, dropping tabs and
// newlines as the Standard does, so that a long data: URL costs no scan of
// its own (TestOpaqueRefAgrees holds it to splitScheme's reading).
func opaqueRef(ref string) bool {
	i := 0
	for i < len(ref) && ref[i] <= ' ' {
		i++
	}
	// The scheme: a letter, then letters, digits, "+", "-" and "."; the
	// special ones are kept lowercased for the comparison below.
	var low [5]byte
	n := 0
	for ; ; i++ {
		if i == len(ref) {
			return false
		}
		c := ref[i]
		switch {
		case c == '\t' || c == '\n' || c == '\r':
			continue
		case c == ':':
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
			if n < len(low) {
				low[n] = c | 0x20
			}
			n++
			continue
		case n > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'):
			if n < len(low) {
				low[n] = c
			}
			n++
			continue
		default:
			return false
		}
		break
	}
	if n == 0 {
		return false
	}
	for i++; i < len(ref) && (ref[i] == '\t' || ref[i] == '\n' || ref[i] == '\r'); i++ {
	}
	if i < len(ref) && ref[i] == '/' {
		return false
	}
	if n <= len(low) {
		switch string(low[:n]) {
		case "http", "https", "ws", "wss", "ftp", "file":
			return false
		}
	}
	return true
}

// whatwgReason is the parser's error without its restatement of the input.
func whatwgReason(err error) string {
	s := err.Error()
	if i := strings.LastIndex(s, ": "); i >= 0 && i+2 < len(s) {
		return s[i+2:]
	}
	return s
}

// fromWHATWG converts a parsed URL to a net/url URL that serialises and is
// requested exactly as the standard has it.
func fromWHATWG(w *wurl.Url) *url.URL {
	scheme := w.Scheme()
	href := w.Href(true)
	u := &url.URL{Scheme: scheme}
	if frag := w.Fragment(); frag != "" {
		u.Fragment, u.RawFragment = unescapeLenient(frag), frag
		if u.EscapedFragment() != frag {
			u.RawFragment = ""
		}
	}
	p := w.Pathname()
	if !w.OpaquePath() && strings.Contains(p, "^") {
		// The Standard has percent-encoded ^ in paths since 2024; the
		// parser predates that.
		q := strings.ReplaceAll(p, "^", "%5E")
		sl := len(w.Search())
		if sl == 0 && strings.HasSuffix(href, "?") {
			sl = 1
		}
		if i := len(href) - sl - len(p); i >= 0 && href[i:i+len(p)] == p {
			href = href[:i] + q + href[i+len(p):]
		}
		p = q
	}
	switch scheme {
	case "http", "https", "ws", "wss":
		// Special schemes with a host: ws and wss are read for their
		// host too (a browser's WebSocket URLs, which the renderer's
		// proxy checks by address).
	default:
		// Not fetched: only the serialisation matters.
		u.Opaque = strings.TrimPrefix(href, scheme+":")
		return u
	}
	var userinfo string
	if name, pass := w.Username(), w.Password(); name != "" || pass != "" {
		if pass != "" {
			u.User = url.UserPassword(unescapeLenient(name), unescapeLenient(pass))
			userinfo = name + ":" + pass + "@"
		} else {
			u.User = url.User(unescapeLenient(name))
			userinfo = name + "@"
		}
	}
	u.Host = w.Host()
	u.Path = unescapeLenient(p)
	if u.EscapedPath() != p {
		u.RawPath = p
	}
	u.RawQuery = w.Query()
	u.ForceQuery = u.RawQuery == "" && strings.HasSuffix(href, "?")
	if u.EscapedPath() != p || !sameHref(u, href) {
		u.Opaque = "//" + userinfo + u.Host + p
	}
	return u
}

// sameHref reports whether u without its fragment serialises as href.
func sameHref(u *url.URL, href string) bool {
	c := *u
	c.Fragment, c.RawFragment = "", ""
	return c.String() == href
}

// unescapeLenient decodes the valid %XX escapes of s and keeps every other
// byte, a % not followed by two hex digits included, as it is.
func unescapeLenient(s string) string {
	i := strings.IndexByte(s, '%')
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	b.WriteString(s[:i])
	for ; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			v, _ := strconv.ParseUint(s[i+1:i+3], 16, 8)
			b.WriteByte(byte(v))
			i += 2
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// RequestTarget returns the path and query u is requested with (the
// request target of an HTTP request in origin form), as the serialisation
// has them: "/search?q=blue%20shoes".
func RequestTarget(u *url.URL) string {
	if strings.HasPrefix(u.Opaque, "//") {
		p := opaquePath(u.Opaque)
		if u.ForceQuery || u.RawQuery != "" {
			p += "?" + u.RawQuery
		}
		return p
	}
	return u.RequestURI()
}

// opaquePath is the path of an Opaque "//authority/path".
func opaquePath(op string) string {
	rest := op[2:]
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		return rest[i:]
	}
	return "/"
}

// wireURL returns the URL to put in an http.Request for u, so that the
// request line carries u's path and query exactly: an Opaque holding the
// authority becomes the path alone (origin form). A path starting with "//"
// cannot be written that way by net/http and is sent in absolute form,
// which servers must accept.
func wireURL(u *url.URL) *url.URL {
	if !strings.HasPrefix(u.Opaque, "//") {
		return u
	}
	p := opaquePath(u.Opaque)
	if strings.HasPrefix(p, "//") {
		return u
	}
	w := *u
	w.Opaque = p
	w.User = nil
	return &w
}

// IsAbsoluteRef reports whether ref names its own scheme and, for http(s)
// and the URL Standard's other special schemes, its host ("https://host/",
// "mailto:x"), so that it resolves to the same URL against any base. A
// reference such as "http:page" or "http:/page" is relative to an http base.
func IsAbsoluteRef(ref string) bool {
	scheme, rest, ok := splitScheme(strings.TrimLeftFunc(ref, isC0OrSpace))
	if !ok {
		return false
	}
	switch scheme {
	case "http", "https", "ws", "wss", "ftp", "file":
		return len(rest) >= 2 && isSlash(rest[0]) && isSlash(rest[1])
	}
	return true
}

func isSlash(c byte) bool { return c == '/' || c == '\\' }

func isC0OrSpace(r rune) bool { return r <= ' ' }

// TrimC0Space strips the leading and trailing C0 controls and spaces of
// s, as the URL Standard's parser does first to a reference, without
// decoding runes.
func TrimC0Space(s string) string {
	i, j := 0, len(s)
	for i < j && s[i] <= ' ' {
		i++
	}
	for j > i && s[j-1] <= ' ' {
		j--
	}
	return s[i:j]
}

// dottedDecimal reports whether h is four decimal numbers from 0 to 255
// without leading zeros, separated by dots: an IPv4 address the Standard
// writes as it is.
func dottedDecimal(h string) bool {
	parts := 0
	for part := range strings.SplitSeq(h, ".") {
		parts++
		if part == "" || len(part) > 3 || (len(part) > 1 && part[0] == '0') {
			return false
		}
		n := 0
		for i := 0; i < len(part); i++ {
			if part[i] < '0' || part[i] > '9' {
				return false
			}
			n = n*10 + int(part[i]-'0')
		}
		if n > 255 {
			return false
		}
	}
	return parts == 4
}

// hasTabOrNewline reports whether s holds a tab, LF or CR, which the
// Standard removes from URLs: three vectorised byte searches, faster over
// a long data: URL than one pass testing each byte against a set.
func hasTabOrNewline(s string) bool {
	return strings.IndexByte(s, '\n') >= 0 || strings.IndexByte(s, '\t') >= 0 || strings.IndexByte(s, '\r') >= 0
}
