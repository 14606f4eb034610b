package analyzer

import (
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Allocation-free forms of the string idioms the checks repeat per element
// (strings.Fields over a lowered copy, Collapse of a concatenation). Each
// gives exactly the result of the idiom it replaces: ASCII input, the
// common case, is scanned in place, and anything else goes to the idiom
// itself (TestScanHelpersAgree).

// isASCIISpace reports whether c is white space for strings.Fields on
// ASCII input.
func isASCIISpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

// isASCII reports whether s has no byte over 0x7f.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// lowerASCIIEqual reports whether s equals the lowercase ASCII word lower
// ignoring ASCII case.
func lowerASCIIEqual[S string | []byte](s S, lower string) bool {
	if len(s) != len(lower) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// hasPrefixFold reports whether s starts with the lowercase ASCII prefix,
// ignoring ASCII case: strings.HasPrefix(strings.ToLower(s), prefix) for a
// prefix that no non-ASCII character lowers into (no k, no i).
func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && lowerASCIIEqual(s[:len(prefix)], prefix)
}

// fieldHasLower reports whether one of the fields of list (split at white
// space as strings.Fields does), lowered, equals the lowercase ASCII token:
// slices.Contains(strings.Fields(strings.ToLower(list)), token).
func fieldHasLower(list, token string) bool {
	if !isASCII(list) {
		for _, f := range strings.Fields(strings.ToLower(list)) {
			if f == token {
				return true
			}
		}
		return false
	}
	for i := 0; i < len(list); {
		for i < len(list) && isASCIISpace(list[i]) {
			i++
		}
		j := i
		for j < len(list) && !isASCIISpace(list[j]) {
			j++
		}
		if j > i && lowerASCIIEqual(list[i:j], token) {
			return true
		}
		i = j
	}
	return false
}

// spaceTokenLower reports whether the lowered list, split at spaces only,
// holds the lowercase ASCII token: strings.Contains(" "+strings.ToLower(list)+" ", " "+token+" ").
func spaceTokenLower(list, token string) bool {
	if !isASCII(list) {
		return strings.Contains(" "+strings.ToLower(list)+" ", " "+token+" ")
	}
	for i := 0; i <= len(list); {
		j := strings.IndexByte(list[i:], ' ')
		if j < 0 {
			j = len(list) - i
		}
		if lowerASCIIEqual(list[i:i+j], token) {
			return true
		}
		i += j + 1
	}
	return false
}

// withoutSpace returns s with its white space (as unicode.IsSpace has
// it) removed, as strings.Join(strings.Fields(s), "") does, without a copy
// when s holds none, as a non-ASCII href almost never does, and in one
// copy when it does.
func withoutSpace(s string) string {
	i := spaceIndex(s)
	if i < 0 {
		return s
	}
	b := make([]byte, 0, len(s))
	for i >= 0 {
		b = append(b, s[:i]...)
		_, w := utf8.DecodeRuneInString(s[i:])
		s = s[i+w:]
		i = spaceIndex(s)
	}
	return string(append(b, s...))
}

// spaceIndex returns the index of the first white space character of s,
// or -1.
func spaceIndex(s string) int {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if isASCIISpace(c) {
				return i
			}
			i++
			continue
		}
		r, w := utf8.DecodeRuneInString(s[i:])
		if unicode.IsSpace(r) {
			return i
		}
		i += w
	}
	return -1
}

// collapsedText returns Collapse(TextContent(n)) in one pass over the
// subtree, writing into the page's scratch buffer and copying out once; a
// single text child goes to Collapse, which copies only when it must.
func (p *Page) collapsedText(n *html.Node) string {
	if c := n.FirstChild; c == nil {
		return ""
	} else if c.NextSibling == nil && c.Type == html.TextNode {
		return Collapse(c.Data)
	}
	buf := p.scratch[:0]
	space := false // white space is pending before the next character
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch c.Type {
			case html.TextNode:
				buf, space = appendCollapsedState(buf, c.Data, space)
			case html.ElementNode:
				if c.DataAtom != atom.Script && c.DataAtom != atom.Style && !inertTemplate(c) {
					walk(c)
				}
			}
		}
	}
	walk(n)
	p.scratch = buf
	if len(buf) == 0 {
		return ""
	}
	return string(buf)
}

// allDigits reports whether s is made of ASCII digits only (or empty), as
// strings.Trim(s, "0123456789") == "" does.
func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// urlString returns u.String() for u, the URL the reference raw resolved
// to. For the URLs pages are mostly made of (an http(s) URL with a plain
// host and path, no user, fragment or escapes) it is raw itself when raw
// is written that way already (an absolute link), else one
// concatenation, without net/url's escaping pass; any other URL goes to
// u.String() (TestURLStringAgrees).
func urlString(u *url.URL, raw string) string {
	if u.Opaque != "" || u.User != nil || u.RawPath != "" || u.Fragment != "" || u.RawFragment != "" || u.OmitHost ||
		(u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || !plainURLPath(u.Path) || !plainURLHost(u.Host) {
		return u.String()
	}
	if u.ForceQuery || u.RawQuery != "" {
		if isJoin(raw, u.Scheme, "://", u.Host, u.Path, "?", u.RawQuery) {
			return raw
		}
		return u.Scheme + "://" + u.Host + u.Path + "?" + u.RawQuery
	}
	if isJoin(raw, u.Scheme, "://", u.Host, u.Path) {
		return raw
	}
	return u.Scheme + "://" + u.Host + u.Path
}

// isJoin reports whether s is the concatenation of parts, without
// building it.
func isJoin(s string, parts ...string) bool {
	for _, p := range parts {
		if !strings.HasPrefix(s, p) {
			return false
		}
		s = s[len(p):]
	}
	return s == ""
}

// plainURLPath reports whether p starts with a slash and holds only
// characters net/url writes as they are in a path.
func plainURLPath(p string) bool {
	if p == "" || p[0] != '/' {
		return false
	}
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '-', c == '_', c == '.', c == '~', c == '/':
		default:
			return false
		}
	}
	return true
}

// plainURLHost reports whether h holds only lowercase letters, digits,
// dots, hyphens and a port colon, which net/url writes as they are.
func plainURLHost(h string) bool {
	for i := 0; i < len(h); i++ {
		switch c := h[i]; {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9', c == '-', c == '.', c == ':':
		default:
			return false
		}
	}
	return true
}
