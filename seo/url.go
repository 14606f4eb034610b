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
// host, no user information, at most MaxURLLength bytes. The host is
// converted to its ASCII (IDNA) form and lowercased. Errors are *InputError
// for the field "url".
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
	u, err := url.Parse(s)
	if err != nil {
		return bad("does not parse as a URL")
	}
	if !u.IsAbs() {
		return bad("must be an absolute URL starting with http:// or https://")
	}
	u.Scheme = strings.ToLower(u.Scheme)
	if u.Scheme != "http" && u.Scheme != "https" {
		return bad("scheme " + u.Scheme + " is not allowed; use http or https")
	}
	if u.Opaque != "" || u.Host == "" {
		return bad("has no host")
	}
	if u.User != nil {
		return bad("must not contain a user name or password")
	}
	host, err := normalizeHost(u.Hostname())
	if err != nil {
		return bad(err.Error())
	}
	// The DNS's lengths; a final dot (a fully qualified name) is no label.
	if err := CheckHostName(field, strings.TrimSuffix(host, ".")); err != nil {
		ie, _ := AsInputError(err)
		return bad(ie.Reason)
	}
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return bad("has an invalid port")
		}
		u.Host = net.JoinHostPort(host, p)
	} else {
		u.Host = bracket(host)
	}
	return u, nil
}

type hostError string

func (e hostError) Error() string { return string(e) }

// normalizeHost lowercases a host and converts an internationalised name to
// ASCII. IP literals are returned in canonical form without brackets.
func normalizeHost(h string) (string, error) {
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
// de-duplication: lowercase scheme and host, IDNA host, default port dropped,
// fragment dropped, dot segments resolved, empty path as "/", percent-encoding
// made uniform, and the query optionally sorted or stripped. It does not
// validate the scheme; use [ParseURL] for user input.
func NormalizeURL(u *url.URL, opts *NormalizeOptions) *url.URL {
	if opts == nil {
		opts = &NormalizeOptions{}
	}
	n := *u
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
	// Decode the path so that equivalent encodings (%7E and ~) meet, and let
	// url.URL re-encode it; an encoded slash changes the path's meaning, so
	// such paths keep their escaped form with uppercase hex.
	if strings.Contains(strings.ToLower(n.RawPath), "%2f") {
		n.RawPath = upperHex(cleanPath(n.RawPath))
		if dec, err := url.PathUnescape(n.RawPath); err == nil {
			n.Path = dec
		}
	} else {
		n.Path, n.RawPath = cleanPath(n.Path), ""
	}
	n.RawQuery = normalizeQuery(n.RawQuery, opts)
	n.ForceQuery = false
	return &n
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

// upperHex uppercases the hex digits of percent-escapes.
func upperHex(s string) string {
	b := []byte(s)
	for i := 0; i+2 < len(b); i++ {
		if b[i] == '%' {
			b[i+1], b[i+2] = toUpperHex(b[i+1]), toUpperHex(b[i+2])
			i += 2
		}
	}
	return string(b)
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
