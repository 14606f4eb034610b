package seo

import (
	"net"
	"net/url"
	"path"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/net/idna"
	"golang.org/x/net/publicsuffix"
)

// MaxURLLength is the longest URL accepted as input, in bytes.
const MaxURLLength = 2048

// ParseURL validates a user-supplied page URL: absolute, http or https, with a
// host, no user information, at most MaxURLLength bytes. It parses by the
// WHATWG URL Standard, as a browser's address bar does (see
// [ResolveReference]): the host is IDNA-mapped to ASCII and lowercased, an
// IPv4 address in any form (http://0x7f.1/) is written as dotted decimals,
// so the fetcher's address policy sees the address that is dialled, and a
// default port is dropped. Unlike a browser it requires the "//" before the
// host. Errors are *InputError for the field "url".
func ParseURL(raw string) (*url.URL, error) {
	return parseURLField("url", raw)
}

func parseURLField(field, raw string) (*url.URL, error) {
	bad := func(reason string) (*url.URL, error) {
		return nil, &InputError{Field: field, Value: raw, Reason: reason}
	}
	s := strings.TrimSpace(raw)
	switch {
	case s == "":
		return bad("is empty")
	case len(s) > MaxURLLength:
		return bad("is longer than " + strconv.Itoa(MaxURLLength) + " characters")
	}
	scheme, rest, ok := splitScheme(s)
	if !ok {
		return bad("must be an absolute URL starting with http:// or https://")
	}
	if scheme != "http" && scheme != "https" {
		return bad("scheme " + scheme + " is not allowed; use http or https")
	}
	rest = strings.ReplaceAll(rest, "\\", "/")
	if !strings.HasPrefix(rest, "//") || strings.HasPrefix(rest, "///") || len(rest) == 2 {
		return bad("has no host")
	}
	u, err := ParseHref(s)
	if err != nil {
		return bad("does not parse as a URL")
	}
	if u.User != nil {
		return bad("must not contain a user name or password")
	}
	host := strings.Trim(u.Hostname(), "[]")
	if host == "" {
		return bad("has no host")
	}
	// The DNS's lengths; a final dot (a fully qualified name) is no label.
	if err := CheckHostName(field, strings.TrimSuffix(host, ".")); err != nil {
		ie, _ := AsInputError(err)
		return bad(ie.Reason)
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return bad("has an invalid port")
		}
	}
	return u, nil
}

// splitScheme splits "scheme:rest" after removing tabs and newlines, as the
// URL Standard does; the scheme is lowercased.
func splitScheme(s string) (scheme, rest string, ok bool) {
	if hasTabOrNewline(s) {
		s = strings.Map(func(r rune) rune {
			if r == '\t' || r == '\n' || r == '\r' {
				return -1
			}
			return r
		}, s)
	}
	i := strings.IndexByte(s, ':')
	if i < 1 {
		return "", "", false
	}
	for j := 0; j < i; j++ {
		c := s[j]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		case j > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'):
		default:
			return "", "", false
		}
	}
	return strings.ToLower(s[:i]), s[i+1:], true
}

type hostError string

func (e hostError) Error() string { return string(e) }

// normalizeHost lowercases a host and converts an internationalised name to
// ASCII. IP literals are returned in canonical form without brackets.
func normalizeHost(h string) (string, error) {
	if plainHost(h) || plainIPv4(h) {
		return h, nil
	}
	return normalizeHostSlow(h)
}

// plainIPv4 reports whether h is an IPv4 address in the form
// normalizeHostSlow returns unchanged: four decimal numbers from 0 to 255
// without leading zeros, separated by dots (TestPlainIPv4).
func plainIPv4(h string) bool {
	parts := 0
	for len(h) > 0 {
		n, v := 0, 0
		for n < len(h) && n < 4 && '0' <= h[n] && h[n] <= '9' {
			v = v*10 + int(h[n]-'0')
			n++
		}
		if n == 0 || n > 3 || v > 255 || (n > 1 && h[0] == '0') {
			return false
		}
		if parts++; parts == 4 {
			return n == len(h)
		}
		if n == len(h) || h[n] != '.' {
			return false
		}
		h = h[n+1:]
	}
	return false
}

// plainHost reports whether h is a host name normalizeHostSlow returns
// unchanged, the common case checked without the IDNA tables: lowercase
// ASCII labels of letters, digits and inner hyphens (none at positions 3
// and 4, which IDNA reserves), at least one letter (so not an IP address),
// no trailing dot (TestPlainHost).
func plainHost(h string) bool {
	letter := false
	label := 0 // length of the current label
	for i := 0; i < len(h); i++ {
		switch c := h[i]; {
		case 'a' <= c && c <= 'z':
			letter = true
			label++
		case '0' <= c && c <= '9':
			label++
		case c == '-':
			if label == 0 || i+1 == len(h) || h[i+1] == '.' || label == 2 || label == 3 {
				return false
			}
			label++
		case c == '.':
			if label == 0 || i+1 == len(h) {
				return false
			}
			label = 0
		default:
			return false
		}
		if label > 63 {
			return false
		}
	}
	return letter && label > 0
}

func normalizeHostSlow(h string) (string, error) {
	h = strings.TrimSuffix(strings.ToLower(h), ".")
	if h == "" {
		return "", hostError("has no host")
	}
	if ip := net.ParseIP(h); ip != nil {
		return ip.String(), nil
	}
	a, err := idna.Lookup.ToASCII(h)
	if err != nil {
		return "", hostError("host " + h + " is not a valid domain name")
	}
	return a, nil
}

func bracket(host string) string {
	if strings.Contains(host, ":") {
		return "[" + host + "]"
	}
	return host
}

// ParseDomain is seokit's domain parser: it validates a site domain, a
// host name with an optional port and no scheme, path or query
// ("example.com", "shop.example.co.uk:8443"). A start URL with a scheme is
// also accepted, for command-line use; its path is kept, and its host may
// be a single-label intranet name. A bare domain must be an IP address,
// "localhost" or a fully qualified name. Every host name must keep within
// the DNS's lengths (CheckHostName). It returns the http(s) URL to start
// from (https when no scheme was given). Errors are *InputError for the
// field "domain". ParseHost takes a bare domain only, with or without a
// port as its caller decides.
func ParseDomain(raw string) (*url.URL, error) {
	s := strings.TrimSpace(raw)
	bad := func(reason string) (*url.URL, error) {
		return nil, &InputError{Field: "domain", Value: raw, Reason: reason}
	}
	if s == "" {
		return bad("is empty")
	}
	var u *url.URL
	if strings.Contains(s, "://") {
		var err error
		if u, err = parseURLField("domain", s); err != nil {
			return nil, err
		}
		if u.Path == "" {
			u.Path = "/"
		}
	} else {
		if strings.ContainsAny(s, "/?#@ \t") {
			return bad("must be a domain name with an optional port, without scheme, path or query")
		}
		var err error
		if u, err = parseURLField("domain", "https://"+s+"/"); err != nil {
			if ie, ok := AsInputError(err); ok {
				return bad(ie.Reason) // raw, not the URL made of it
			}
			return nil, err
		}
		host := u.Hostname()
		if net.ParseIP(host) == nil && !strings.Contains(host, ".") && host != "localhost" {
			return bad("must be a fully qualified domain name such as example.com")
		}
	}
	// A site's domain is named without the final dot of a fully qualified
	// name ("example.com." is example.com).
	if h := u.Hostname(); strings.HasSuffix(h, ".") {
		h = strings.TrimSuffix(h, ".")
		if p := u.Port(); p != "" {
			u.Host = net.JoinHostPort(h, p)
		} else {
			u.Host = h
		}
		if u.Opaque != "" {
			u.Opaque = "//" + u.Host + opaquePath(u.Opaque)
		}
	}
	if err := CheckHostName("domain", u.Hostname()); err != nil {
		ie, _ := AsInputError(err)
		return bad(ie.Reason)
	}
	return u, nil
}

// RegistrableDomain returns the registrable domain (eTLD+1) of a host by the
// public suffix list: "www.example.co.uk" gives "example.co.uk". IP
// addresses, "localhost" and hosts that are themselves public suffixes are
// returned unchanged, so they only match themselves.
func RegistrableDomain(host string) string {
	h, err := normalizeHost(stripPort(host))
	if err != nil {
		return strings.ToLower(host)
	}
	if net.ParseIP(h) != nil {
		return h
	}
	d, err := publicsuffix.EffectiveTLDPlusOne(h)
	if err != nil {
		return h
	}
	return d
}

func stripPort(host string) string {
	if strings.IndexByte(host, ':') < 0 {
		// No port (SplitHostPort would fail, building its error).
		return strings.Trim(host, "[]")
	}
	if h, _, err := net.SplitHostPort(host); err == nil {
		return h
	}
	return strings.Trim(host, "[]")
}

// SameSite reports whether two hosts share a registrable domain
// ("blog.example.com" and "example.com" do; "notexample.com" and
// "example.com" do not).
func SameSite(a, b string) bool {
	return RegistrableDomain(a) == RegistrableDomain(b)
}

// HostInScope reports whether host belongs to a crawl rooted at root: the
// same host (ignoring a leading "www."), or with subdomains any host under the
// root's registrable domain. It compares whole labels, never string suffixes.
func HostInScope(host, root string, subdomains bool) bool {
	if host == root {
		return true // every link to the page's own host, without folding
	}
	h, r := strings.ToLower(stripPort(host)), strings.ToLower(stripPort(root))
	if h == r || strings.TrimPrefix(h, "www.") == strings.TrimPrefix(r, "www.") {
		return true
	}
	return subdomains && SameSite(h, r)
}

// NormalizeOptions controls [NormalizeURL].
type NormalizeOptions struct {
	// SortQuery sorts query parameters by name (stable for equal names), so
	// ?b=1&a=2 and ?a=2&b=1 are one URL. Off keeps their order.
	SortQuery bool
	// StripParams lists query parameter names to drop; a name ending in "*"
	// is a prefix ("utm_*").
	StripParams []string
	// KeepParams, when non-empty, keeps only the query parameters it names
	// (same matching as StripParams) and drops every other one.
	KeepParams []string
}

// NormalizeURL returns the canonical form of an absolute URL used for
// de-duplication. It folds:
//
//   - the scheme and host to lowercase, the host to its IDNA ASCII form;
//   - the scheme's default port (:80 for http, :443 for https) away;
//   - user information and the fragment away;
//   - dot segments ("/a/./b/../c" is "/a/c"), keeping a trailing slash, and
//     an empty path to "/";
//   - in the path, a percent-escape of a character that needs none (an
//     unreserved character or one of !$&'()*+,;=:@, so "%7E" and "~",
//     "%28" and "(") to the character, and the hex digits of every other
//     escape to uppercase ("%c3%a9" is "%C3%A9"); escaped slashes,
//     backslashes and percent signs stay escaped, and characters a browser
//     sends unescaped (| ^ [ ] and a lone %) stay as they are;
//   - an empty query ("/a?") away, and the query's parameters sorted or
//     stripped as opts says (the query is otherwise kept byte for byte).
//
// The result is still a URL a browser could request for the same
// resource: what NormalizeURL keeps is the WHATWG serialisation of
// [ResolveReference]. It does not validate the scheme; use [ParseURL] for
// user input.
func NormalizeURL(u *url.URL, opts *NormalizeOptions) *url.URL {
	if opts == nil {
		opts = &NormalizeOptions{}
	}
	n := *u
	if strings.HasPrefix(n.Opaque, "//") {
		// The authority form of ResolveReference: Path holds the path.
		n.Opaque = ""
	}
	n.User = nil
	n.Fragment, n.RawFragment = "", ""
	n.Scheme = strings.ToLower(n.Scheme)
	host := n.Hostname()
	if h, err := normalizeHost(host); err == nil {
		host = h
	}
	port := n.Port()
	if (n.Scheme == "http" && port == "80") || (n.Scheme == "https" && port == "443") {
		port = ""
	}
	if port != "" {
		n.Host = net.JoinHostPort(host, port)
	} else {
		n.Host = bracket(host)
	}
	p := cleanPath(foldEscapes(servedPath(u)))
	n.Path, n.RawPath = unescapeLenient(p), ""
	if n.EscapedPath() != p {
		n.RawPath = p
		if n.EscapedPath() != p {
			n.Opaque = "//" + n.Host + p
		}
	}
	n.RawQuery = normalizeQuery(n.RawQuery, opts)
	n.ForceQuery = false
	return &n
}

// servedPath is u's path as serialised: the path of an authority Opaque
// (see [ResolveReference]), else the escaped path.
func servedPath(u *url.URL) string {
	if strings.HasPrefix(u.Opaque, "//") {
		return opaquePath(u.Opaque)
	}
	return u.EscapedPath()
}

// foldEscapes decodes the percent-escapes of characters a path needs not
// escape (RFC 3986 unreserved characters and sub-delimiters, ":" and "@")
// and uppercases the hex digits of the others.
func foldEscapes(p string) string {
	if strings.IndexByte(p, '%') < 0 {
		return p
	}
	b := make([]byte, 0, len(p))
	for i := 0; i < len(p); i++ {
		if p[i] == '%' && i+2 < len(p) && isHex(p[i+1]) && isHex(p[i+2]) {
			c := unhex(p[i+1])<<4 | unhex(p[i+2])
			if pathSafe(c) {
				b = append(b, c)
			} else {
				b = append(b, '%', toUpperHex(p[i+1]), toUpperHex(p[i+2]))
			}
			i += 2
			continue
		}
		b = append(b, p[i])
	}
	return string(b)
}

func unhex(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	}
	return c - '0'
}

// pathSafe reports whether c stands for itself in a path: unreserved, a
// sub-delimiter, ":" or "@".
func pathSafe(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("-._~!$&'()*+,;=:@", c) >= 0
}

// cleanPath resolves dot segments, keeping a trailing slash, and makes an
// empty path "/".
func cleanPath(p string) string {
	if p == "" {
		return "/"
	}
	if !strings.Contains(p, "/.") && !strings.HasPrefix(p, ".") {
		return p
	}
	trailing := strings.HasSuffix(p, "/") || strings.HasSuffix(p, "/.") || strings.HasSuffix(p, "/..")
	p = path.Clean("/" + p)
	if trailing && p != "/" {
		p += "/"
	}
	return p
}

func toUpperHex(c byte) byte {
	if c >= 'a' && c <= 'f' {
		return c - 'a' + 'A'
	}
	return c
}

func normalizeQuery(q string, opts *NormalizeOptions) string {
	if q == "" {
		return ""
	}
	parts := strings.Split(q, "&")
	kept := parts[:0]
	for _, p := range parts {
		if p == "" {
			continue
		}
		name := p
		if i := strings.IndexByte(p, '='); i >= 0 {
			name = p[:i]
		}
		if un, err := url.QueryUnescape(name); err == nil {
			name = un
		}
		if matchParam(strings.ToLower(name), opts.StripParams) ||
			len(opts.KeepParams) > 0 && !matchParam(strings.ToLower(name), opts.KeepParams) {
			continue
		}
		kept = append(kept, p)
	}
	if opts.SortQuery {
		sort.SliceStable(kept, func(i, j int) bool { return paramName(kept[i]) < paramName(kept[j]) })
	}
	return strings.Join(kept, "&")
}

func paramName(p string) string {
	if i := strings.IndexByte(p, '='); i >= 0 {
		return p[:i]
	}
	return p
}

func matchParam(name string, patterns []string) bool {
	for _, pat := range patterns {
		pat = strings.ToLower(pat)
		if strings.HasSuffix(pat, "*") {
			if strings.HasPrefix(name, strings.TrimSuffix(pat, "*")) {
				return true
			}
		} else if name == pat {
			return true
		}
	}
	return false
}

// TrackingParams are the query parameters that only track campaigns; they
// make duplicate URLs of one page.
var TrackingParams = []string{"utm_*", "gclid", "fbclid", "msclkid", "dclid", "yclid", "mc_cid", "mc_eid"}
