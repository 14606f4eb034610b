package seo

import (
	"bufio"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Defaults of [FetcherOptions] besides those in response.go.
const (
	// DefaultConnectTimeout bounds one TCP connect and one TLS handshake.
	DefaultConnectTimeout = 5 * time.Second
	// DefaultFetchTimeout bounds a whole fetch: redirects, headers and body.
	DefaultFetchTimeout = 10 * time.Second
	// DefaultMaxHeaderBytes caps the response headers of one response.
	DefaultMaxHeaderBytes = 1 << 20
	// DefaultMaxConnsPerHost caps the connections open to one host.
	DefaultMaxConnsPerHost = 8
	// acceptEncoding is what the fetcher offers and decodes itself.
	acceptEncoding = "gzip, deflate"
	// drainLimit is how much of a redirect body is read to reuse its connection.
	drainLimit = 64 << 10
)

// DefaultAllowedPorts are the ports a fetch may connect to unless
// FetcherOptions.AllowedPorts or AllowPrivate says otherwise.
var DefaultAllowedPorts = []int{80, 443, 8080, 8443}

// Resolver resolves host names to addresses. *net.Resolver implements it;
// tests inject fakes.
type Resolver interface {
	LookupIPAddr(ctx context.Context, host string) ([]net.IPAddr, error)
}

// FetcherOptions configure a [Fetcher]. A nil *FetcherOptions, and every zero
// field, means the documented default.
type FetcherOptions struct {
	// AllowPrivate allows loopback, private, link-local and other non-public
	// addresses, names such as localhost and *.internal, and any port, for
	// intranet audits and tests. Cloud metadata endpoints (169.254.169.254,
	// fd00:ec2::254, 100.100.100.200, metadata.google.internal), unspecified
	// and multicast addresses, and every IPv6 transition encoding (NAT64,
	// 6to4, Teredo, ISATAP, IPv4-compatible, IPv4-translated) of a metadata
	// or loopback IPv4 address stay refused.
	AllowPrivate bool
	// AllowAddrs lists address ranges allowed even though they are not
	// public (for example 10.1.0.0/16 for one intranet, or 127.0.0.1/32 for a
	// test server); unlike AllowPrivate it leaves every other range refused
	// and does not open other ports. The addresses AllowPrivate never allows
	// stay refused even inside these ranges.
	AllowAddrs []netip.Prefix
	// AllowedPorts are the ports a fetch may connect to; zero means
	// DefaultAllowedPorts. AllowPrivate allows every port.
	AllowedPorts []int
	// UserAgent is sent with each request; zero means DefaultUserAgent.
	UserAgent string
	// ConnectTimeout bounds each TCP connect and TLS handshake; zero means
	// DefaultConnectTimeout.
	ConnectTimeout time.Duration
	// Timeout bounds a whole fetch including redirects and the body; zero
	// means DefaultFetchTimeout.
	Timeout time.Duration
	// MaxBodyBytes caps the body after decompression; zero means
	// DefaultMaxBodyBytes.
	MaxBodyBytes int64
	// MaxRedirects is the number of redirects followed; zero means
	// DefaultMaxRedirects.
	MaxRedirects int
	// MaxHeaderBytes caps the response headers; zero means
	// DefaultMaxHeaderBytes.
	MaxHeaderBytes int64
	// Resolver resolves host names; zero means net.DefaultResolver.
	Resolver Resolver
	// MaxConnsPerHost caps connections per host; zero means
	// DefaultMaxConnsPerHost.
	MaxConnsPerHost int
	// TLSRoots are the certificate authorities trusted when verifying a
	// server's certificate; zero means the system roots.
	TLSRoots *x509.CertPool
}

// Fetcher is the safe HTTP fetcher used for every URL a user supplies. Its
// defences against server-side request forgery and resource exhaustion are:
//
//   - Addresses are checked when a connection is made, not only when a URL is
//     accepted: its dialer resolves the host through the Resolver, refuses
//     names such as localhost and *.internal, keeps only public addresses
//     (see [IsPublicAddr]) and dials one of them; a net.Dialer Control hook
//     then checks the address and port actually connected to. DNS rebinding
//     and redirects to private hosts are therefore refused too.
//   - Only the allowed ports are dialled, and no proxy is ever used (a proxy
//     would hide the target from the dial checks), whatever HTTP_PROXY says.
//   - Redirects are followed by hand, at most MaxRedirects, http and https
//     only, without credentials, each hop recorded; loops are detected.
//   - The fetch as a whole, each connect and handshake, and the wait for
//     headers are bounded in time; headers are capped in size; the body is
//     capped after decompression, so a compression bomb stops at the cap.
//
// TLS handshakes complete even when the certificate does not verify, so that
// an audit can report an untrusted, expired or mismatched certificate; the
// fetcher verifies the chain itself and records the outcome in
// Response.TLS. A Fetcher is safe for concurrent use.
type Fetcher struct {
	allowPrivate   bool
	allowAddrs     []netip.Prefix
	ports          map[int]bool
	userAgent      string
	connectTimeout time.Duration
	timeout        time.Duration
	maxBody        int64
	maxRedirects   int
	resolver       Resolver
	roots          *x509.CertPool
	dialer         *net.Dialer
	transport      *http.Transport
	client         *http.Client
}

// NewFetcher returns a safe fetcher; opts may be nil.
func NewFetcher(opts *FetcherOptions) *Fetcher {
	var o FetcherOptions
	if opts != nil {
		o = *opts
	}
	f := &Fetcher{
		allowPrivate:   o.AllowPrivate,
		allowAddrs:     append([]netip.Prefix(nil), o.AllowAddrs...),
		ports:          map[int]bool{},
		userAgent:      o.UserAgent,
		connectTimeout: o.ConnectTimeout,
		timeout:        o.Timeout,
		maxBody:        o.MaxBodyBytes,
		maxRedirects:   o.MaxRedirects,
		resolver:       o.Resolver,
		roots:          o.TLSRoots,
	}
	ports := o.AllowedPorts
	if len(ports) == 0 {
		ports = DefaultAllowedPorts
	}
	for _, p := range ports {
		f.ports[p] = true
	}
	if f.userAgent == "" {
		f.userAgent = DefaultUserAgent
	}
	if f.connectTimeout <= 0 {
		f.connectTimeout = DefaultConnectTimeout
	}
	if f.timeout <= 0 {
		f.timeout = DefaultFetchTimeout
	}
	if f.maxBody <= 0 {
		f.maxBody = DefaultMaxBodyBytes
	}
	if f.maxRedirects <= 0 {
		f.maxRedirects = DefaultMaxRedirects
	}
	if f.resolver == nil {
		f.resolver = net.DefaultResolver
	}
	maxHeader := o.MaxHeaderBytes
	if maxHeader <= 0 {
		maxHeader = DefaultMaxHeaderBytes
	}
	maxConns := o.MaxConnsPerHost
	if maxConns <= 0 {
		maxConns = DefaultMaxConnsPerHost
	}
	f.dialer = &net.Dialer{Timeout: f.connectTimeout, KeepAlive: 30 * time.Second, Control: f.control}
	f.transport = &http.Transport{
		Proxy:       nil, // never: a proxy would be dialled instead of the target
		DialContext: f.dialContext,
		// Verification is done after the handshake (see verifyTLS) so that
		// audits can report bad certificates instead of failing.
		TLSClientConfig:        &tls.Config{InsecureSkipVerify: true}, //nolint:gosec // verified by verifyTLS
		TLSHandshakeTimeout:    f.connectTimeout,
		ResponseHeaderTimeout:  f.timeout,
		ExpectContinueTimeout:  time.Second,
		MaxResponseHeaderBytes: maxHeader,
		MaxIdleConns:           100,
		MaxIdleConnsPerHost:    maxConns,
		MaxConnsPerHost:        maxConns,
		IdleConnTimeout:        90 * time.Second,
		DisableCompression:     true, // the fetcher offers and decodes encodings itself
		ForceAttemptHTTP2:      true,
	}
	f.client = &http.Client{
		Transport:     f.transport,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	return f
}

// Client returns an http.Client that shares the fetcher's guarded transport
// and does not follow redirects, for callers that need a plain client. Its
// Timeout is the fetcher's.
func (f *Fetcher) Client() *http.Client {
	c := *f.client
	c.Timeout = f.timeout
	return &c
}

// AllowPrivateHint ends the reasons of refusals that -allow-private (the
// CLI's and the server's flag; Options.AllowPrivate in the packages)
// lifts, so the person refused learns how to audit an intranet or local
// server on purpose.
const AllowPrivateHint = "; the CLI and the server allow it with -allow-private"

// addrRefusal says why ip is refused: cloud metadata addresses always are,
// other non-public ones unless private addresses are allowed.
func addrRefusal(ip netip.Addr) string {
	if why := alwaysRefused(ip); why != "" {
		return why
	}
	return "is not a public address" + AllowPrivateHint
}

// forbidden returns an error wrapping ErrForbiddenAddress.
func forbidden(what, reason string) error {
	return fmt.Errorf("%w: %s %s", ErrForbiddenAddress, what, reason)
}

func (f *Fetcher) portAllowed(port int) bool {
	return f.allowPrivate || f.ports[port]
}

func (f *Fetcher) addrAllowed(ip netip.Addr) bool {
	ip = ip.WithZone("")
	if alwaysRefused(ip) != "" {
		return false
	}
	for _, p := range f.allowAddrs {
		if p.Contains(ip) || p.Contains(ip.Unmap()) {
			return true
		}
	}
	return f.allowPrivate || IsPublicAddr(ip)
}

func (f *Fetcher) nameAllowed(host string) bool {
	if isMetadataName(host) {
		return false
	}
	return f.allowPrivate || !forbiddenHostName(host)
}

// control is the dialer's last guard: it sees the address actually
// connected to.
func (f *Fetcher) control(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return forbidden(address, "is not an IP address and port")
	}
	if !f.addrAllowed(ap.Addr()) {
		return forbidden(ap.Addr().String(), addrRefusal(ap.Addr()))
	}
	if !f.portAllowed(int(ap.Port())) {
		return forbidden("port "+strconv.Itoa(int(ap.Port())), "is not allowed"+AllowPrivateHint)
	}
	return nil
}

// DialContext dials addr ("host:port") as the fetcher's own requests do:
// the host is resolved through the Resolver, refused names, addresses and
// ports give an error wrapping ErrForbiddenAddress, and the address actually
// connected to is checked again. It lets other clients, such as a browser's
// proxy, go out only where the fetcher may.
func (f *Fetcher) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	return f.dialContext(ctx, network, addr)
}

// dialContext resolves the host itself, keeps only allowed addresses and
// dials one of them.
func (f *Fetcher) dialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	host, portStr, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	port, err := strconv.Atoi(portStr)
	if err != nil || !f.portAllowed(port) {
		return nil, forbidden("port "+portStr, "is not allowed"+AllowPrivateHint)
	}
	ips, err := f.resolve(ctx, host)
	if err != nil {
		return nil, err
	}
	var firstErr error
	for _, ip := range ips {
		conn, err := f.dialer.DialContext(ctx, network, netip.AddrPortFrom(ip, uint16(port)).String())
		if err == nil {
			return conn, nil
		}
		if firstErr == nil {
			firstErr = err
		}
		if ctx.Err() != nil {
			break
		}
	}
	return nil, firstErr
}

// resolve returns the allowed addresses of host, or an error wrapping
// ErrForbiddenAddress when the host is refused by name or has none.
func (f *Fetcher) resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	h := strings.TrimSuffix(strings.ToLower(strings.Trim(host, "[]")), ".")
	if ip, ok := hostAddr(h); ok {
		if !f.addrAllowed(ip) {
			return nil, forbidden(ip.String(), addrRefusal(ip))
		}
		return []netip.Addr{ip.WithZone("")}, nil
	}
	if !f.nameAllowed(h) {
		if isMetadataName(h) {
			return nil, forbidden("host "+h, "is a cloud metadata endpoint and is always refused")
		}
		return nil, forbidden("host "+h, "is not allowed"+AllowPrivateHint)
	}
	trace := httptrace.ContextClientTrace(ctx)
	if trace != nil && trace.DNSStart != nil {
		trace.DNSStart(httptrace.DNSStartInfo{Host: h})
	}
	addrs, err := f.resolver.LookupIPAddr(ctx, h)
	if trace != nil && trace.DNSDone != nil {
		trace.DNSDone(httptrace.DNSDoneInfo{Addrs: addrs, Err: err})
	}
	if err != nil {
		return nil, err
	}
	var ips []netip.Addr
	var refused string
	metadata := true
	for _, a := range addrs {
		ip, ok := netip.AddrFromSlice(a.IP)
		if !ok {
			continue
		}
		ip = ip.Unmap()
		if f.addrAllowed(ip) {
			ips = append(ips, ip)
		} else {
			metadata = metadata && alwaysRefused(ip) != ""
			if refused == "" {
				refused = ip.String()
			}
		}
	}
	if len(ips) == 0 {
		if refused == "" {
			return nil, fmt.Errorf("lookup %s: no addresses", h)
		}
		why := "resolves only to refused addresses such as " + refused
		if metadata {
			why += ", which " + alwaysRefused(netip.MustParseAddr(refused))
		} else {
			why += AllowPrivateHint
		}
		return nil, forbidden("host "+h, why)
	}
	return ips, nil
}

// CheckURL validates a user-supplied URL as [ParseURL] does and checks its
// destination: a port that is not allowed, or a host that is, or resolves
// only to, refused addresses gives an *InputError for the field "url"
// wrapping ErrForbiddenAddress. A failed lookup is returned as is. The check
// is advisory (answers may change); the fetcher checks again at dial time.
func (f *Fetcher) CheckURL(ctx context.Context, raw string) (*url.URL, error) {
	u, err := f.checkURL(ctx, raw)
	if err != nil {
		if _, ok := AsInputError(err); !ok {
			err = fmt.Errorf("seo: check %s: %w", Clip(raw), err)
		}
		return nil, err
	}
	return u, nil
}

// checkURL is CheckURL without the context on errors other than input errors.
func (f *Fetcher) checkURL(ctx context.Context, raw string) (*url.URL, error) {
	u, err := ParseURL(raw)
	if err != nil {
		return nil, err
	}
	refuse := func(reason string) (*url.URL, error) {
		return nil, &InputError{Field: "url", Value: raw, Reason: reason, Err: ErrForbiddenAddress}
	}
	port := u.Port()
	if port == "" {
		port = "80"
		if u.Scheme == "https" {
			port = "443"
		}
	}
	if n, _ := strconv.Atoi(port); !f.portAllowed(n) {
		return refuse("port " + port + " is not allowed" + AllowPrivateHint)
	}
	host := u.Hostname()
	if f.allowPrivate && len(f.allowAddrs) == 0 {
		// Only metadata endpoints are refused; check literals and names
		// here and leave resolved addresses to the dialer.
		if ip, ok := hostAddr(host); ok && !f.addrAllowed(ip) {
			return refuse("address " + ip.String() + " " + addrRefusal(ip))
		}
		if !f.nameAllowed(host) {
			return refuse("host " + host + " is not allowed")
		}
		return u, nil
	}
	if _, err := f.resolve(ctx, host); err != nil {
		if errors.Is(err, ErrForbiddenAddress) {
			return refuse(strings.TrimPrefix(err.Error(), ErrForbiddenAddress.Error()+": "))
		}
		return nil, err
	}
	return u, nil
}

// Fetch fetches req.URL, following redirects unless req.NoFollow, and reads
// the body up to the cap (decompressed), setting Truncated when it was cut.
// Input problems are *InputError for the field "url". On a redirect loop or
// too many redirects it returns the partial Response (Redirects filled,
// Status the last redirect's) with an error wrapping ErrRedirectLoop or
// ErrTooManyRedirects; when reading the body fails it returns the Response
// with what was read and the error.
func (f *Fetcher) Fetch(ctx context.Context, req *Request) (*Response, error) {
	resp, body, err := f.Open(ctx, req)
	if err != nil {
		return resp, err
	}
	defer body.Close()
	switch cl, clErr := strconv.ParseInt(resp.Header.Get("Content-Length"), 10, 64); {
	case req.DiscardBody:
		_, err = io.Copy(io.Discard, body)
	case clErr == nil && cl > 0 && resp.ContentEncoding == "" && cl <= f.bodyCap(req):
		var buf *bytes.Buffer
		if int64(cap(req.Buffer)) >= cl+bytes.MinRead {
			// Room for the body and the read that finds its end.
			buf = bytes.NewBuffer(req.Buffer[:0])
		} else {
			buf = &bytes.Buffer{}
			buf.Grow(int(cl) + 1)
		}
		_, err = io.Copy(buf, body)
		resp.Body = buf.Bytes()
	default:
		// Of unknown length: read into pooled chunks and copied once at
		// its size (into req.Buffer when it fits), not grown by doubling
		// (which leaves about the body's size again as garbage on every
		// page).
		resp.Body, err = readChunked(body, req.Buffer)
	}
	if errors.Is(err, ErrTooLarge) {
		resp.Truncated, err = true, nil
	}
	body.Close()
	resp.Timings.Total = time.Since(resp.FetchedAt)
	if err != nil {
		return resp, fmt.Errorf("seo: fetch %s: read body: %w", resp.URL, err)
	}
	return resp, nil
}

// bodyChunk is the size of the pooled chunks readChunked reads into.
const bodyChunk = 32 << 10

var chunkPool = sync.Pool{New: func() any { return new([bodyChunk]byte) }}

// readChunked reads r to its end as io.ReadAll does (what was read is
// returned with any error but io.EOF), and returns the bytes in one slice
// of their size. It reads into into's room first, so that a body that
// fits is read in place, not copied; the rest of a body that does not
// goes into pooled chunks, and the whole is copied once into a new slice.
func readChunked(r io.Reader, into []byte) ([]byte, error) {
	head := into[:cap(into)]
	total := 0
	for total < len(head) {
		n, err := r.Read(head[total:])
		total += n
		if err != nil {
			if err == io.EOF {
				err = nil
			}
			return head[:total], err
		}
	}
	var chunks []*[bodyChunk]byte
	defer func() {
		for _, c := range chunks {
			chunkPool.Put(c)
		}
	}()
	fill := 0 // bytes in the last chunk
	var err error
	for {
		if len(chunks) == 0 || fill == bodyChunk {
			chunks = append(chunks, chunkPool.Get().(*[bodyChunk]byte))
			fill = 0
		}
		var n int
		n, err = r.Read(chunks[len(chunks)-1][fill:])
		fill += n
		total += n
		if err != nil {
			if err == io.EOF {
				err = nil
			}
			break
		}
	}
	if total == len(head) {
		return head, err // it fitted exactly
	}
	out := make([]byte, total)
	off := copy(out, head)
	for _, c := range chunks {
		off += copy(out[off:], c[:min(bodyChunk, total-off)])
	}
	return out, err
}

func (f *Fetcher) bodyCap(req *Request) int64 {
	if req.MaxBodyBytes > 0 {
		return req.MaxBodyBytes
	}
	return f.maxBody
}

// Open fetches like Fetch but returns the body as a stream instead of reading it:
// resp.Body is nil, the reader yields the decompressed body capped at the body cap
// (reading past the cap returns an error wrapping ErrTooLarge), and the caller must Close it.
// Timings.Total then covers the headers only. The fetcher's Timeout still
// bounds the whole fetch, reading included; TransferredBytes and BodyBytes
// grow as the stream is read.
func (f *Fetcher) Open(ctx context.Context, req *Request) (*Response, io.ReadCloser, error) {
	if req == nil {
		return nil, nil, &InputError{Field: "url", Reason: "is empty"}
	}
	u, err := f.checkURL(ctx, req.URL)
	if err != nil {
		if _, ok := AsInputError(err); ok {
			return nil, nil, err
		}
		return nil, nil, fmt.Errorf("seo: fetch %s: %w", Clip(req.URL), err)
	}
	cancel := context.CancelFunc(func() {})
	if d, ok := ctx.Deadline(); !ok || time.Until(d) > f.timeout {
		// A caller's deadline that comes first (a crawler's per-request
		// timeout) bounds the fetch already: no second timer.
		ctx, cancel = context.WithTimeout(ctx, f.timeout)
	}
	resp, hr, err := f.follow(ctx, req, u)
	if err != nil {
		cancel()
		return resp, nil, err
	}
	return resp, f.newBody(resp, hr, req, cancel), nil
}

// follow makes the requests of a redirect chain and returns the final
// response with its body open.
func (f *Fetcher) follow(ctx context.Context, req *Request, u *url.URL) (*Response, *http.Response, error) {
	resp := &Response{RequestedURL: u.String(), AcceptedEncoding: acceptEncoding}
	method := strings.ToUpper(req.Method)
	if method == "" {
		method = http.MethodGet
	}
	// The chain's URLs in normal form, to detect a loop: made at the
	// first redirect, as most fetches have none.
	var seen map[string]bool
	origin := u.Host
	cur := u
	for {
		hr, tr, err := f.do(ctx, method, cur, req, cur.Host != origin)
		if err != nil {
			if len(resp.Redirects) > 0 {
				return nil, nil, fmt.Errorf("seo: fetch %s: redirect to %s: %w", u.Redacted(), cur.Redacted(), err)
			}
			return nil, nil, fmt.Errorf("seo: fetch %s: %w", u.Redacted(), err)
		}
		resp.URL = resp.RequestedURL
		if cur != u {
			resp.URL = cur.String()
		}
		resp.Status = hr.StatusCode
		resp.Header = hr.Header
		resp.ContentType = hr.Header.Get("Content-Type")
		resp.ContentEncoding = hr.Header.Get("Content-Encoding")
		resp.FetchedAt = tr.start
		resp.Timings = tr.timings()
		loc := hr.Header.Get("Location")
		if req.NoFollow || !isRedirect(hr.StatusCode) || loc == "" {
			if hr.TLS != nil {
				resp.TLS = f.verifyTLS(hr.TLS, cur.Hostname())
			}
			return resp, hr, nil
		}
		_, _ = io.CopyN(io.Discard, hr.Body, drainLimit)
		hr.Body.Close()
		resp.Redirects = append(resp.Redirects, Redirect{URL: resp.URL, Status: hr.StatusCode, Location: loc})
		next, err := ResolveReference(cur, loc)
		if err != nil {
			return nil, nil, fmt.Errorf("seo: fetch %s: redirect to invalid location %q", cur.Redacted(), Clip(loc))
		}
		next.Fragment, next.RawFragment = "", ""
		switch {
		case next.Scheme != "http" && next.Scheme != "https":
			return nil, nil, fmt.Errorf("seo: fetch %s: redirect to scheme %q: %w", cur.Redacted(), next.Scheme, ErrUnsupported)
		case next.User != nil:
			return nil, nil, fmt.Errorf("seo: fetch %s: redirect to a URL with credentials: %w", cur.Redacted(), ErrUnsupported)
		case next.Host == "":
			return nil, nil, fmt.Errorf("seo: fetch %s: redirect to a URL without host %q", cur.Redacted(), Clip(loc))
		}
		if len(resp.Redirects) > f.maxRedirects {
			return resp, nil, fmt.Errorf("seo: fetch %s: %w (more than %d)", u.Redacted(), ErrTooManyRedirects, f.maxRedirects)
		}
		if seen == nil {
			seen = map[string]bool{}
		}
		seen[NormalizeURL(cur, nil).String()] = true
		if seen[NormalizeURL(next, nil).String()] {
			return resp, nil, fmt.Errorf("seo: fetch %s: %w back to %s", u.Redacted(), ErrRedirectLoop, next.Redacted())
		}
		if hr.StatusCode == http.StatusSeeOther && method != http.MethodHead {
			method = http.MethodGet
		}
		cur = next
	}
}

func isRedirect(status int) bool {
	switch status {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther,
		http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		return true
	}
	return false
}

// hopTrace records the phases of one request through httptrace.
type hopTrace struct {
	mu                      sync.Mutex
	start                   time.Time
	dnsStart, dnsDone       time.Time
	connStart, connDone     time.Time
	tlsStart, tlsDone       time.Time
	firstByte, headersReady time.Time
}

func (t *hopTrace) set(p *time.Time, keepFirst bool) {
	t.mu.Lock()
	if !keepFirst || p.IsZero() {
		*p = time.Now()
	}
	t.mu.Unlock()
}

func (t *hopTrace) clientTrace() *httptrace.ClientTrace {
	return &httptrace.ClientTrace{
		DNSStart:             func(httptrace.DNSStartInfo) { t.set(&t.dnsStart, true) },
		DNSDone:              func(httptrace.DNSDoneInfo) { t.set(&t.dnsDone, false) },
		ConnectStart:         func(string, string) { t.set(&t.connStart, true) },
		ConnectDone:          func(string, string, error) { t.set(&t.connDone, false) },
		TLSHandshakeStart:    func() { t.set(&t.tlsStart, true) },
		TLSHandshakeDone:     func(tls.ConnectionState, error) { t.set(&t.tlsDone, false) },
		GotFirstResponseByte: func() { t.set(&t.firstByte, true) },
	}
}

func (t *hopTrace) timings() Timings {
	t.mu.Lock()
	defer t.mu.Unlock()
	span := func(a, b time.Time) time.Duration {
		if a.IsZero() || b.IsZero() || b.Before(a) {
			return 0
		}
		return b.Sub(a)
	}
	return Timings{
		DNS:     span(t.dnsStart, t.dnsDone),
		Connect: span(t.connStart, t.connDone),
		TLS:     span(t.tlsStart, t.tlsDone),
		TTFB:    span(t.start, t.firstByte),
		Total:   span(t.start, t.headersReady),
	}
}

// do makes one request, not following redirects.
func (f *Fetcher) do(ctx context.Context, method string, u *url.URL, req *Request, crossHost bool) (*http.Response, *hopTrace, error) {
	tr := &hopTrace{start: time.Now()}
	// The request is built from u itself, not from its string: net/url
	// would refuse or re-encode a path a browser sends as it is (a lone %).
	hreq, err := http.NewRequestWithContext(httptrace.WithClientTrace(ctx, tr.clientTrace()), method, "", nil)
	if err != nil {
		return nil, nil, err
	}
	hreq.URL = wireURL(u)
	hreq.Host = u.Host
	for k, vs := range req.Header {
		if crossHost && isCredentialHeader(k) {
			continue
		}
		hreq.Header[http.CanonicalHeaderKey(k)] = append([]string(nil), vs...)
	}
	ua := req.UserAgent
	if ua == "" {
		ua = f.userAgent
	}
	hreq.Header.Set("User-Agent", ua)
	hreq.Header.Set("Accept-Encoding", acceptEncoding)
	if hreq.Header.Get("Accept") == "" {
		hreq.Header.Set("Accept", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8")
	}
	hr, err := f.client.Do(hreq)
	if err != nil {
		return nil, nil, unwrapURLError(err)
	}
	tr.set(&tr.headersReady, false)
	return hr, tr, nil
}

// isCredentialHeader reports whether a header must not follow a redirect
// to another host: Authorization, Cookie and any header IsSecretHeader
// names (X-Api-Key, X-Auth-Token ...).
func isCredentialHeader(k string) bool {
	return IsSecretHeader(k)
}

// unwrapURLError drops the *url.Error layer, whose message repeats the URL.
func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// verifyTLS checks the peer's chain against the roots and the host name and
// describes the connection.
func (f *Fetcher) verifyTLS(cs *tls.ConnectionState, host string) *TLSInfo {
	info := &TLSInfo{
		Version:     tls.VersionName(cs.Version),
		CipherSuite: tls.CipherSuiteName(cs.CipherSuite),
		ServerName:  host,
	}
	if len(cs.PeerCertificates) == 0 {
		info.Untrusted, info.VerifyError = true, "no certificate presented"
		return info
	}
	leaf := cs.PeerCertificates[0]
	info.Issuer = leaf.Issuer.String()
	info.Subject = leaf.Subject.String()
	info.DNSNames = leaf.DNSNames
	info.NotBefore, info.NotAfter = leaf.NotBefore, leaf.NotAfter
	inter := x509.NewCertPool()
	for _, c := range cs.PeerCertificates[1:] {
		inter.AddCert(c)
	}
	now := time.Now()
	_, err := leaf.Verify(x509.VerifyOptions{DNSName: host, Roots: f.roots, Intermediates: inter, CurrentTime: now})
	if err == nil {
		info.Verified = true
		return info
	}
	info.VerifyError = err.Error()
	info.Expired = now.After(leaf.NotAfter) || now.Before(leaf.NotBefore)
	info.HostnameMismatch = leaf.VerifyHostname(host) != nil
	// Trust is judged apart from time and name: verify the chain at a
	// moment the leaf was valid, without a name.
	at := now
	if info.Expired {
		at = leaf.NotBefore.Add(leaf.NotAfter.Sub(leaf.NotBefore) / 2)
	}
	_, terr := leaf.Verify(x509.VerifyOptions{Roots: f.roots, Intermediates: inter, CurrentTime: at})
	info.Untrusted = terr != nil
	return info
}

// body is the stream Open returns: wire bytes counted, decoded, capped.
type body struct {
	resp    *Response
	hr      *http.Response
	cancel  context.CancelFunc
	max     int64
	wire    countingReader
	src     io.Reader // decoder, set on first Read
	closer  io.Closer
	n       int64
	err     error
	started bool
	discard bool // Request.DiscardBody
	once    sync.Once
}

func (f *Fetcher) newBody(resp *Response, hr *http.Response, req *Request, cancel context.CancelFunc) *body {
	b := &body{resp: resp, hr: hr, cancel: cancel, max: f.bodyCap(req), discard: req.DiscardBody}
	b.wire = countingReader{r: hr.Body, n: &resp.TransferredBytes}
	return b
}

type countingReader struct {
	r io.Reader
	n *int64
}

func (c countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	*c.n += int64(n)
	return n, err
}

// decoder returns a reader decoding the content encoding as served.
func (b *body) decoder() (io.Reader, error) {
	switch strings.ToLower(strings.TrimSpace(b.resp.ContentEncoding)) {
	case "gzip", "x-gzip":
		zr, err := gzip.NewReader(b.wire)
		if err != nil {
			return nil, err
		}
		b.closer = zr
		return zr, nil
	case "deflate":
		br := bufio.NewReader(b.wire)
		h, err := br.Peek(2)
		if err != nil {
			return nil, err
		}
		// RFC 9110 deflate is zlib-wrapped; some servers send raw deflate.
		if h[0]&0x0f == 8 && (uint16(h[0])<<8|uint16(h[1]))%31 == 0 {
			zr, err := zlib.NewReader(br)
			if err != nil {
				return nil, err
			}
			b.closer = zr
			return zr, nil
		}
		fr := flate.NewReader(br)
		b.closer = fr
		return fr, nil
	case "br", "zstd", "compress", "x-compress":
		// Codings the fetcher did not ask for (acceptEncoding) and cannot
		// decode: read as they are, the compressed bytes were analysed as
		// the page (a binary page without title, links or text) and the
		// answer looked fine. A body read only to be discarded, or none
		// (a HEAD), needs no decoding.
		if b.discard {
			return b.wire, nil
		}
		br := bufio.NewReader(b.wire)
		if _, err := br.Peek(1); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("%w content coding, not asked for (Accept-Encoding: %s)", ErrUnsupported, acceptEncoding)
	}
	// No coding (or "identity"), or a value that names none (a charset
	// or a media type sent by mistake over a plain body).
	return b.wire, nil
}

// Read yields at most max decoded bytes; past them it returns an error
// wrapping ErrTooLarge.
func (b *body) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	if !b.started {
		b.started = true
		src, err := b.decoder()
		if err != nil {
			if err == io.EOF {
				b.err = io.EOF
			} else {
				b.err = fmt.Errorf("decode %s body: %w", b.resp.ContentEncoding, err)
			}
			return 0, b.err
		}
		b.src = src
	}
	if b.n >= b.max {
		var one [1]byte
		k, err := io.ReadFull(b.src, one[:])
		switch {
		case k > 0:
			b.err = fmt.Errorf("seo: body of %s exceeds %d bytes: %w", b.resp.URL, b.max, ErrTooLarge)
		case err == io.EOF || err == io.ErrUnexpectedEOF:
			b.err = io.EOF
		default:
			b.err = err
		}
		return 0, b.err
	}
	if rest := b.max - b.n; int64(len(p)) > rest {
		p = p[:rest]
	}
	k, err := b.src.Read(p)
	b.n += int64(k)
	b.resp.BodyBytes = b.n
	if err != nil {
		b.err = err
	}
	return k, err
}

// Close releases the connection and the fetch's deadline.
func (b *body) Close() error {
	var err error
	b.once.Do(func() {
		if b.closer != nil {
			b.closer.Close()
		}
		err = b.hr.Body.Close()
		b.cancel()
	})
	return err
}

// ProbeTLS makes one TLS handshake with hostport ("host:443"; the port
// defaults to 443) through the guarded dialer, offering versions from TLS 1.0
// up to maxVersion and every cipher suite, and reports whether it succeeded.
// It is meant to detect servers that still accept TLS 1.0 or 1.1. A refused
// address or a failed connection is an error; a refused handshake is false.
func (f *Fetcher) ProbeTLS(ctx context.Context, hostport string, maxVersion uint16) (bool, error) {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		host, port = strings.Trim(hostport, "[]"), "443"
	}
	addr := net.JoinHostPort(host, port)
	ctx, cancel := context.WithTimeout(ctx, f.connectTimeout)
	defer cancel()
	conn, err := f.dialContext(ctx, "tcp", addr)
	if err != nil {
		return false, fmt.Errorf("seo: probe tls %s: %w", addr, err)
	}
	defer conn.Close()
	var suites []uint16
	for _, s := range tls.CipherSuites() {
		suites = append(suites, s.ID)
	}
	for _, s := range tls.InsecureCipherSuites() {
		suites = append(suites, s.ID)
	}
	cfg := &tls.Config{
		InsecureSkipVerify: true, //nolint:gosec // only the protocol version is probed
		MinVersion:         tls.VersionTLS10,
		MaxVersion:         maxVersion,
		CipherSuites:       suites,
	}
	if _, ok := hostAddr(host); !ok {
		cfg.ServerName = host
	}
	tc := tls.Client(conn, cfg)
	if err := tc.HandshakeContext(ctx); err != nil {
		if ctx.Err() != nil {
			return false, fmt.Errorf("seo: probe tls %s: %w", addr, ctx.Err())
		}
		return false, nil
	}
	return true, nil
}
