package httpapi

import (
	"context"
	"crypto/rand"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"runtime/debug"
	"strings"
	"time"

	"github.com/seokit/seokit/httpapi/auth"
	"github.com/seokit/seokit/httpapi/service"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/seo"
)

// chain wraps h in middleware, the first outermost.
func chain(h http.Handler, mw ...func(http.Handler) http.Handler) http.Handler {
	for i := len(mw) - 1; i >= 0; i-- {
		h = mw[i](h)
	}
	return h
}

type ctxKey int

const (
	keyRequestID ctxKey = iota
	keyPrincipal
	keyClientIP
	keyLogInfo
)

// requestID returns the request's ID ("" outside the middleware).
func requestID(ctx context.Context) string {
	id, _ := ctx.Value(keyRequestID).(string)
	return id
}

// principal returns the authenticated principal of the request.
func principal(ctx context.Context) *auth.Principal {
	p, _ := ctx.Value(keyPrincipal).(*auth.Principal)
	return p
}

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// randomID returns n random base62 characters: random bytes below 248
// (4 × 62) map uniformly, the rest are drawn again.
func randomID(n int) string {
	out := make([]byte, 0, n)
	var buf [64]byte
	for len(out) < n {
		rand.Read(buf[:]) // crypto/rand never fails on supported platforms
		for _, c := range buf {
			if c < 248 && len(out) < n {
				out = append(out, base62[c%62])
			}
		}
	}
	return string(out)
}

// requestIDMiddleware gives each request a random ID, sent back in
// X-Request-Id. An incoming X-Request-Id is not trusted.
func (s *Server) requestIDMiddleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := "req_" + randomID(20)
		w.Header().Set("X-Request-Id", id)
		ctx := context.WithValue(r.Context(), keyRequestID, id)
		ip := s.clientIP(r)
		ctx = context.WithValue(ctx, keyClientIP, ip)
		ctx = auth.WithClientAddr(ctx, ip) // for the token endpoints' throttle
		ctx = context.WithValue(ctx, keyLogInfo, &logInfo{})
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// recorder remembers the status and size of a response.
type recorder struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (r *recorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	n, err := r.ResponseWriter.Write(b)
	r.bytes += int64(n)
	return n, err
}

func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// recoverMiddleware turns a panic into a 500 envelope and logs the panic
// and its stack with the request ID; the response never shows them.
func (s *Server) recoverMiddleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &recorder{ResponseWriter: w}
		defer func() {
			v := recover()
			if v == nil {
				return
			}
			if v == http.ErrAbortHandler {
				panic(v)
			}
			s.log.ErrorContext(r.Context(), "panic", "request_id", requestID(r.Context()), "panic", v, "stack", string(debug.Stack()))
			if rec.status != 0 {
				return // too late for an error response
			}
			h := w.Header()
			for k := range h {
				if k != "X-Request-Id" && !strings.HasPrefix(k, "X-Ratelimit-") {
					h.Del(k)
				}
			}
			writeError(w, r, apiError(http.StatusInternalServerError, CodeInternal, "internal server error"))
		}()
		next.ServeHTTP(rec, r)
	})
}

// logInfo collects facts for the access log from inner handlers.
type logInfo struct {
	account string
}

// logMiddleware writes one access log line per request. Credential
// query parameters (auth.SecretParams) are redacted.
func (s *Server) logMiddleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &recorder{ResponseWriter: w}
		next.ServeHTTP(rec, r)
		status := rec.status
		if status == 0 {
			status = http.StatusOK
		}
		ctx := r.Context()
		if !s.log.Enabled(ctx, slog.LevelInfo) {
			return
		}
		// Attrs, not key-value pairs: nothing is boxed.
		attrs := [8]slog.Attr{
			slog.String("request_id", requestID(ctx)),
			slog.String("method", r.Method),
			slog.String("path", auth.RedactQuery(r.URL)),
			slog.Int("status", status),
			slog.Int64("bytes", rec.bytes),
			slog.Float64("duration_ms", float64(time.Since(start).Microseconds())/1000),
			slog.String("client_ip", clientIPOf(ctx)),
		}
		n := 7
		if li, _ := ctx.Value(keyLogInfo).(*logInfo); li != nil && li.account != "" {
			attrs[n] = slog.String("account", li.account)
			n++
		}
		s.log.LogAttrs(ctx, slog.LevelInfo, "request", attrs[:n]...)
	})
}

// Values of the headers securityMiddleware sets, full slices so that an
// append copies them.
var (
	hdrNosniff    = []string{"nosniff"}[:1:1]
	hdrNoStore    = []string{"no-store"}[:1:1]
	hdrNoReferrer = []string{"no-referrer"}[:1:1]
)

// securityMiddleware sets headers every response carries.
func (s *Server) securityMiddleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		// Shared values under canonical keys: no allocation per
		// response. A later Set replaces a slice, Add appends past its
		// capacity, so they are never written to.
		h["X-Content-Type-Options"] = hdrNosniff
		h["Cache-Control"] = hdrNoStore
		h["Referrer-Policy"] = hdrNoReferrer
		if r.TLS != nil || (s.fromTrustedProxy(r) && strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https")) {
			h.Set("Strict-Transport-Security", "max-age=31536000; includeSubDomains")
		}
		next.ServeHTTP(w, r)
	})
}

// httpsMiddleware refuses plain HTTP except from loopback peers or from a
// trusted proxy that says the client used HTTPS.
func (s *Server) httpsMiddleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.TLS == nil {
			peer, ok := peerAddr(r)
			switch {
			case ok && peer.IsLoopback():
			case s.fromTrustedProxy(r) && strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https"):
			default:
				writeError(w, r, apiError(http.StatusForbidden, CodeHTTPSRequired, "HTTPS is required"))
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// peerAddr is the address of the TCP peer.
func peerAddr(r *http.Request) (netip.Addr, bool) {
	ap, err := netip.ParseAddrPort(r.RemoteAddr)
	if err == nil {
		return ap.Addr().Unmap(), true
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	a, err := netip.ParseAddr(host)
	if err != nil {
		return netip.Addr{}, false
	}
	return a.Unmap(), true
}

func (s *Server) trusted(a netip.Addr) bool {
	for _, p := range s.opts.TrustedProxies {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

func (s *Server) fromTrustedProxy(r *http.Request) bool {
	a, ok := peerAddr(r)
	return ok && s.trusted(a)
}

// clientIP is the peer address, or, when the peer is a trusted proxy, the
// right-most X-Forwarded-For address that is not a trusted proxy. It is
// used for logs and the authentication-failure limiter, never for quotas.
func (s *Server) clientIP(r *http.Request) string {
	peer, ok := peerAddr(r)
	if !ok {
		return ""
	}
	if !s.trusted(peer) {
		return peer.String()
	}
	hops := r.Header.Values("X-Forwarded-For")
	var all []string
	for _, h := range hops {
		all = append(all, strings.Split(h, ",")...)
	}
	for i := len(all) - 1; i >= 0; i-- {
		a, err := netip.ParseAddr(strings.TrimSpace(all[i]))
		if err != nil {
			break
		}
		a = a.Unmap()
		if !s.trusted(a) {
			return a.String()
		}
	}
	return peer.String()
}

// ClientIP is the address of the client of r as clientIP computes it, for
// handlers served beside the API (the dashboard's sign-in throttle through
// auth.Options.ClientAddr).
func (s *Server) ClientIP(r *http.Request) string { return s.clientIP(r) }

func clientIPOf(ctx context.Context) string {
	ip, _ := ctx.Value(keyClientIP).(string)
	return ip
}

// protect authenticates the request, counts it against the account's
// daily limit, checks the route's permission and runs h.
func (s *Server) protect(scope, op string, h http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.opts.DisableAuth {
			p := &auth.Principal{AccountID: "anonymous", Permissions: []string{auth.ScopeRead, auth.ScopeWrite}}
			h(w, r.WithContext(context.WithValue(r.Context(), keyPrincipal, p)))
			return
		}
		p := s.authenticate(w, r)
		if p == nil {
			return
		}
		q, err := s.take(r.Context(), p.AccountID)
		if err != nil {
			if errors.Is(err, store.ErrNotFound) {
				w.Header().Set("WWW-Authenticate", `Bearer realm="seokit", error="invalid_token"`)
				writeError(w, r, apiError(http.StatusUnauthorized, CodeUnauthorized, "the token or API key is not valid"))
				return
			}
			if _, bad := seo.AsInputError(err); bad {
				// The server built the request from its own settings: a
				// bad one is a server bug, not the client's invalid input.
				s.log.ErrorContext(r.Context(), "rate limiter refused the server's request", "request_id", requestID(r.Context()), "err", err)
				writeError(w, r, apiError(http.StatusInternalServerError, CodeInternal, "internal server error"))
				return
			}
			// A store or limiter that cannot count answers 503 (fail closed).
			s.fail(w, r, err)
			return
		}
		q.setHeaders(w.Header())
		if e := q.refusal(); e != nil {
			writeError(w, r, e)
			return
		}
		if !p.Allowed(scope, op) {
			writeError(w, r, apiError(http.StatusForbidden, CodeForbidden, "this credential lacks the "+scope+" permission for "+op))
			return
		}
		// The request paid one unit: a service charging an action's cost
		// charges the rest (service.WithPaid).
		ctx := service.WithPaid(context.WithValue(r.Context(), keyPrincipal, p), 1)
		h(w, r.WithContext(ctx))
	})
}

// authenticate authenticates r as every protected route does: it returns
// the principal, or writes the refusal (401 with WWW-Authenticate, 429
// after too many failures, 503 when the store is down) and returns nil.
// The MCP endpoint authenticates with it too.
func (s *Server) authenticate(w http.ResponseWriter, r *http.Request) *auth.Principal {
	return s.authenticateFor(w, r, s.auth.Authenticate, func(code string) string {
		if code == "" {
			return `Bearer realm="seokit"`
		}
		return `Bearer realm="seokit", error="` + code + `"`
	})
}
