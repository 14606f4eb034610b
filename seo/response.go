package seo

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Request is one fetch of the safe fetcher.
type Request struct {
	// URL is the absolute http(s) URL to fetch.
	URL string
	// Method defaults to GET.
	Method string
	// UserAgent overrides the fetcher's user agent for this request.
	UserAgent string
	// Header adds request headers.
	Header http.Header
	// NoFollow returns the first response without following redirects.
	NoFollow bool
	// DiscardBody reads and counts the body without keeping it (link checks).
	DiscardBody bool
	// MaxBodyBytes overrides the fetcher's body cap for this request.
	MaxBodyBytes int64
	// Buffer, when its capacity holds the body, is where Fetch reads it:
	// Response.Body is then Buffer[:n]. A caller that reuses one buffer
	// for many fetches (a crawler's per-page buffer) saves allocating a
	// body per page; it must be done with the Response first. A body that
	// does not fit ends in a new slice as without it (Buffer's bytes may
	// then hold its start).
	Buffer []byte
}

// Response is what the safe fetcher records of one fetch, redirects followed.
type Response struct {
	// RequestedURL is the URL asked for; URL is the final one after redirects.
	RequestedURL string `json:"url"`
	URL          string `json:"finalUrl"`
	// Status is the final response's status code.
	Status int `json:"status"`
	// Header is the final response's header.
	Header http.Header `json:"-"`
	// Body is the decompressed body, at most the cap; Truncated says it was cut.
	Body      []byte `json:"-"`
	Truncated bool   `json:"truncated"`
	// Redirects lists each hop in order.
	Redirects []Redirect `json:"redirects,omitempty"`
	// Timings of the final request.
	Timings Timings `json:"timings"`
	// TransferredBytes counts body bytes on the wire (compressed) of the final
	// response; BodyBytes the decompressed bytes read (whole body, even when
	// not kept).
	TransferredBytes int64 `json:"transferredBytes"`
	BodyBytes        int64 `json:"bodyBytes"`
	// ContentType and ContentEncoding as served.
	ContentType     string `json:"contentType,omitempty"`
	ContentEncoding string `json:"contentEncoding,omitempty"`
	// AcceptedEncoding is the Accept-Encoding the request offered.
	AcceptedEncoding string `json:"-"`
	// TLS describes the final connection when it used TLS.
	TLS *TLSInfo `json:"tls,omitempty"`
	// FetchedAt is when the final request started.
	FetchedAt time.Time `json:"fetchedAt"`
}

// Redirect is one redirect hop: the URL that answered, its status and Location.
type Redirect struct {
	URL      string `json:"url"`
	Status   int    `json:"status"`
	Location string `json:"location"`
}

// Timings are the phases of the final request. DNS, Connect and TLS are zero
// when a pooled connection was reused.
type Timings struct {
	DNS     time.Duration `json:"dnsMs"`
	Connect time.Duration `json:"connectMs"`
	TLS     time.Duration `json:"tlsMs"`
	TTFB    time.Duration `json:"ttfbMs"`
	Total   time.Duration `json:"totalMs"`
}

// TLSInfo describes a TLS connection and the verification of its certificate.
// The safe fetcher completes handshakes with untrusted certificates so that an
// audit can report them; Verified says whether the chain and name checked out.
type TLSInfo struct {
	Version          string    `json:"version"`
	CipherSuite      string    `json:"cipherSuite,omitempty"`
	ServerName       string    `json:"serverName,omitempty"`
	Issuer           string    `json:"issuer,omitempty"`
	Subject          string    `json:"subject,omitempty"`
	DNSNames         []string  `json:"dnsNames,omitempty"`
	NotBefore        time.Time `json:"notBefore"`
	NotAfter         time.Time `json:"notAfter"`
	Verified         bool      `json:"verified"`
	HostnameMismatch bool      `json:"hostnameMismatch,omitempty"`
	Untrusted        bool      `json:"untrusted,omitempty"`
	Expired          bool      `json:"expired,omitempty"`
	VerifyError      string    `json:"verifyError,omitempty"`
}

// MarshalJSON writes the timings as whole milliseconds, as the field names say.
func (t Timings) MarshalJSON() ([]byte, error) {
	ms := func(d time.Duration) int64 { return d.Milliseconds() }
	return json.Marshal(struct {
		DNS     int64 `json:"dnsMs"`
		Connect int64 `json:"connectMs"`
		TLS     int64 `json:"tlsMs"`
		TTFB    int64 `json:"ttfbMs"`
		Total   int64 `json:"totalMs"`
	}{ms(t.DNS), ms(t.Connect), ms(t.TLS), ms(t.TTFB), ms(t.Total)})
}

// UnmarshalJSON reads the millisecond form written by MarshalJSON.
func (t *Timings) UnmarshalJSON(b []byte) error {
	var v struct{ DNSMs, ConnectMs, TLSMs, TTFBMs, TotalMs int64 }
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	d := func(ms int64) time.Duration { return time.Duration(ms) * time.Millisecond }
	*t = Timings{d(v.DNSMs), d(v.ConnectMs), d(v.TLSMs), d(v.TTFBMs), d(v.TotalMs)}
	return nil
}

// Defaults of the safe fetcher.
const (
	// DefaultMaxBodyBytes is the body cap after decompression: 15 MB, the
	// amount of an HTML file Google indexes.
	DefaultMaxBodyBytes = 15 << 20
	// DefaultMaxRedirects is the number of redirects followed.
	DefaultMaxRedirects = 10
	// DefaultUserAgent identifies seokit's desktop fetches.
	DefaultUserAgent = "Mozilla/5.0 (compatible; seokit/1.0; +https://github.com/seokit/seokit)"
	// MobileUserAgent is a smartphone user agent, in the form Googlebot
	// Smartphone uses, for mobile parity fetches.
	MobileUserAgent = "Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36 (compatible; seokit/1.0; +https://github.com/seokit/seokit)"
	// RobotsToken is the product token seokit matches in robots.txt groups.
	RobotsToken = "seokit"
)

// maxRetryAfter bounds a Retry-After delay so that a huge value cannot
// overflow a time.Duration.
const maxRetryAfter = 366 * 24 * time.Hour

// Sleep waits for d, or until ctx ends and returns its error: the wait of
// a retry or a pacing, which a canceled caller must not sit out.
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// ParseRetryAfter reads a Retry-After header value (RFC 9110 section
// 10.2.3): delay seconds or an HTTP date, as a wait from now. A date in the
// past is a zero wait; an empty, negative or unreadable value is not ok.
// Waits are capped at 366 days.
func ParseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n < 0 {
			return 0, false
		}
		return min(time.Duration(min(n, int64(maxRetryAfter/time.Second)))*time.Second, maxRetryAfter), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return min(max(t.Sub(now), 0), maxRetryAfter), true
	}
	return 0, false
}
