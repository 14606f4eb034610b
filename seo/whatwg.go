package seo

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

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
	w *wurl.Url
}

// NewBaseURL parses base (an absolute URL, normally one from this package)
// for [BaseURL.Resolve]. A nil base gives a BaseURL that resolves absolute
// references only.
func NewBaseURL(base *url.URL) (*BaseURL, error) {
	if base == nil {
		return &BaseURL{}, nil
	}
	w, err := parseWHATWG(base.String(), nil)
	if err != nil {
		return nil, err
	}
	return newBase(w), nil
}

// newBase wraps a parsed base. Parsing against a base clones it, and the
// clone fills the base's lazily built search parameters; building them
// here leaves the base read-only afterwards, so safe for concurrent use.
func newBase(w *wurl.Url) *BaseURL {
	w.SearchParams()
	return &BaseURL{w: w}
}

// Resolve resolves ref against the base by the WHATWG URL Standard and
// returns it as a *url.URL whose String is exactly the standard's
// serialisation and whose request target (the path and query an HTTP
// request sends) is exactly what a browser sends; see [ResolveReference].
func (b *BaseURL) Resolve(ref string) (*url.URL, error) {
	var base *wurl.Url
	if b != nil {
		base = b.w
	}
	w, err := parseWHATWG(ref, base)
	if err != nil {
		return nil, err
	}
	return fromWHATWG(w), nil
}

// ResolveBase resolves ref as Resolve does and returns it as a BaseURL, for
// a document whose <base href> is ref.
func (b *BaseURL) ResolveBase(ref string) (*BaseURL, error) {
	var base *wurl.Url
	if b != nil {
		base = b.w
	}
	w, err := parseWHATWG(ref, base)
	if err != nil {
		return nil, err
	}
	return newBase(w), nil
}

// URL returns the base URL as Resolve would (nil for a BaseURL without
// base).
func (b *BaseURL) URL() *url.URL {
	if b == nil || b.w == nil {
		return nil
	}
	return fromWHATWG(b.w)
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
	if len(ref) > MaxRefLength {
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
	if scheme != "http" && scheme != "https" {
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
