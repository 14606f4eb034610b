package seo

import (
	"fmt"
	"net/http"
	"strings"

	"golang.org/x/net/http/httpguts"
)

// UserAgentPreset is a named user agent and the robots.txt product token
// that goes with it, so that a crawl as a search engine's crawler also
// obeys the robots.txt group written for that crawler.
type UserAgentPreset struct {
	// Name is the preset's name ("googlebot-smartphone").
	Name string `json:"name"`
	// UserAgent is the User-Agent header sent.
	UserAgent string `json:"userAgent"`
	// RobotsToken is the product token matched against robots.txt groups.
	RobotsToken string `json:"robotsToken"`
}

// UserAgentPresets are the user agents a crawl or an analysis may name
// instead of a string. The Google strings and tokens are those of
// https://developers.google.com/search/docs/crawling-indexing/overview-google-crawlers
// (the "W.X.Y.Z" Chrome version of Google's list written as a fixed
// version), the Bing ones those of
// https://www.bing.com/webmasters/help/which-crawlers-does-bing-use-8c184ec0.
// Only the preset sends a search engine's token; a custom user agent keeps
// seokit's token (RobotsToken) unless the caller sets one.
var UserAgentPresets = []UserAgentPreset{
	{Name: "seokit", UserAgent: DefaultUserAgent, RobotsToken: RobotsToken},
	{Name: "googlebot-smartphone", UserAgent: "Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.6478.126 Mobile Safari/537.36 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", RobotsToken: "Googlebot"},
	{Name: "googlebot-desktop", UserAgent: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Googlebot/2.1; +http://www.google.com/bot.html) Chrome/126.0.6478.126 Safari/537.36", RobotsToken: "Googlebot"},
	{Name: "bingbot", UserAgent: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm) Chrome/126.0.6478.126 Safari/537.36", RobotsToken: "bingbot"},
}

// MaxUserAgentLength caps a custom user agent, in bytes.
const MaxUserAgentLength = 512

// ResolveUserAgent turns a preset name or a custom user agent string into
// the User-Agent header and the robots.txt token: a preset gives its own,
// a custom string keeps RobotsToken, "" gives the seokit preset. A string
// with control characters, or longer than MaxUserAgentLength, is an
// *InputError for field "userAgent".
func ResolveUserAgent(s string) (ua, token string, err error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return DefaultUserAgent, RobotsToken, nil
	}
	for _, p := range UserAgentPresets {
		if strings.EqualFold(s, p.Name) {
			return p.UserAgent, p.RobotsToken, nil
		}
	}
	if len(s) > MaxUserAgentLength {
		return "", "", &InputError{Field: "userAgent", Value: s, Reason: fmt.Sprintf("longer than %d bytes", MaxUserAgentLength)}
	}
	if !httpguts.ValidHeaderFieldValue(s) {
		return "", "", &InputError{Field: "userAgent", Value: s, Reason: "contains control characters"}
	}
	return s, RobotsToken, nil
}

// Limits of custom request headers.
const (
	// MaxRequestHeaders caps the custom headers of a crawl or analysis.
	MaxRequestHeaders = 32
	// MaxRequestHeaderBytes caps one header's name and values together.
	MaxRequestHeaderBytes = 8 << 10
)

// forbiddenRequestHeaders are headers the fetcher or the transport owns:
// hop-by-hop headers (RFC 9110 section 7.6.1), framing and routing ones.
var forbiddenRequestHeaders = map[string]bool{
	"Host": true, "Content-Length": true, "Transfer-Encoding": true, "Connection": true,
	"Keep-Alive": true, "Proxy-Connection": true, "Proxy-Authenticate": true,
	"Proxy-Authorization": true, "Te": true, "Trailer": true, "Upgrade": true,
	"Accept-Encoding": true, "User-Agent": true, "Expect": true,
}

// ValidateRequestHeader checks custom request headers: at most
// MaxRequestHeaders, valid names and values of at most
// MaxRequestHeaderBytes, and none of the headers the fetcher sets itself
// (Host, Content-Length, hop-by-hop headers, Accept-Encoding; the user
// agent has its own option). The error is an *InputError whose Field is
// field+"."+name.
func ValidateRequestHeader(field string, h http.Header) error {
	if len(h) > MaxRequestHeaders {
		return &InputError{Field: field, Reason: fmt.Sprintf("more than %d headers", MaxRequestHeaders)}
	}
	for k, vs := range h {
		f := field + "." + k
		if !httpguts.ValidHeaderFieldName(k) {
			return &InputError{Field: f, Reason: "not a valid header name"}
		}
		if forbiddenRequestHeaders[http.CanonicalHeaderKey(k)] {
			return &InputError{Field: f, Reason: "set by the fetcher: hop-by-hop, framing and user-agent headers cannot be sent"}
		}
		n := len(k)
		for _, v := range vs {
			n += len(v)
			if !httpguts.ValidHeaderFieldValue(v) {
				return &InputError{Field: f, Reason: "value contains control characters"}
			}
		}
		if n > MaxRequestHeaderBytes {
			return &InputError{Field: f, Reason: fmt.Sprintf("longer than %d bytes", MaxRequestHeaderBytes)}
		}
	}
	return nil
}

// Redacted replaces a secret value in reports, logs and API answers.
const Redacted = "[redacted]"

// IsSecretHeader reports whether a header carries credentials: the
// Authorization and Cookie headers and every header whose name mentions
// auth, cookie, token, key, secret, session or password. The fetcher does
// not send such headers to another host than the one asked for, and
// seokit redacts their values wherever options are shown.
func IsSecretHeader(name string) bool {
	n := strings.ToLower(name)
	for _, s := range []string{"auth", "cookie", "token", "key", "secret", "session", "password", "passwd"} {
		if strings.Contains(n, s) {
			return true
		}
	}
	return false
}

// RedactHeader returns a copy of h whose secret headers (IsSecretHeader)
// have their values replaced by Redacted; nil stays nil.
func RedactHeader(h http.Header) http.Header {
	if h == nil {
		return nil
	}
	out := make(http.Header, len(h))
	for k, vs := range h {
		if IsSecretHeader(k) {
			out[k] = []string{Redacted}
			continue
		}
		out[k] = append([]string(nil), vs...)
	}
	return out
}
