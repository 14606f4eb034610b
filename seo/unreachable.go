package seo

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"strings"
	"syscall"
)

// ErrUnreachable means a host gave no response at all: its name did not
// resolve, the connection was refused or reset, the TLS handshake failed or
// the wait timed out. [Unreachable.Err] wraps it.
var ErrUnreachable = errors.New("seo: unreachable")

// Kinds of [Unreachable]: how a fetch that got no response failed.
const (
	UnreachableDNS        = "dns"
	UnreachableConnection = "connection"
	UnreachableTLS        = "tls"
	UnreachableTimeout    = "timeout"
	// UnreachableOther is any other failure without a response (a
	// malformed answer, a redirect loop before the first response).
	UnreachableOther = "other"
)

// Unreachable says why a URL got no response: the URL, the kind of failure
// (UnreachableDNS, UnreachableConnection, UnreachableTLS, UnreachableTimeout
// or UnreachableOther) and the fetcher's error text.
type Unreachable struct {
	URL   string `json:"url"`
	Kind  string `json:"kind"`
	Error string `json:"error"`
}

// Err returns the failure as an error wrapping [ErrUnreachable], for callers
// that test it with errors.Is.
func (u *Unreachable) Err() error {
	return &unreachableError{u: *u}
}

type unreachableError struct{ u Unreachable }

func (e *unreachableError) Error() string {
	return "seo: " + e.u.URL + " unreachable (" + e.u.Kind + "): " + e.u.Error
}

func (e *unreachableError) Unwrap() error { return ErrUnreachable }

// NewUnreachable describes a fetch of rawURL that failed with err and got no
// response; nil when err is nil or says something other than a network
// failure: a refused address (ErrForbiddenAddress), bad input or the
// caller's own cancellation.
func NewUnreachable(rawURL string, err error) *Unreachable {
	kind := UnreachableKind(err)
	if kind == "" {
		return nil
	}
	return &Unreachable{URL: rawURL, Kind: kind, Error: Clip(err.Error())}
}

// UnreachableKind classifies a fetch error that got no response:
// UnreachableDNS, UnreachableConnection, UnreachableTLS, UnreachableTimeout
// or UnreachableOther. It returns "" for nil, for a refused address
// (ErrForbiddenAddress), for bad input (ErrInvalidInput) and for a
// cancellation (context.Canceled), which say nothing about the host.
func UnreachableKind(err error) string {
	if err == nil || errors.Is(err, ErrForbiddenAddress) || errors.Is(err, ErrInvalidInput) || errors.Is(err, context.Canceled) {
		return ""
	}
	var (
		dnsErr  *net.DNSError
		recErr  tls.RecordHeaderError
		alert   tls.AlertError
		certErr *tls.CertificateVerificationError
		unknown x509.UnknownAuthorityError
		host    x509.HostnameError
		inval   x509.CertificateInvalidError
		netErr  net.Error
	)
	switch {
	case errors.As(err, &dnsErr):
		if dnsErr.IsTimeout {
			return UnreachableTimeout
		}
		return UnreachableDNS
	case errors.As(err, &recErr), errors.As(err, &alert), errors.As(err, &certErr),
		errors.As(err, &unknown), errors.As(err, &host), errors.As(err, &inval):
		return UnreachableTLS
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, syscall.ETIMEDOUT):
		return UnreachableTimeout
	case errors.As(err, &netErr) && netErr.Timeout():
		return UnreachableTimeout
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH),
		errors.Is(err, syscall.ECONNABORTED), errors.Is(err, syscall.EPIPE):
		return UnreachableConnection
	}
	msg := err.Error()
	switch {
	case strings.Contains(msg, "tls: "), strings.Contains(msg, "x509: "), strings.Contains(msg, "HTTP response to HTTPS client"):
		return UnreachableTLS
	case strings.Contains(msg, "no such host"), strings.Contains(msg, "no addresses"):
		return UnreachableDNS
	case strings.Contains(msg, "connection refused"), strings.Contains(msg, "connection reset"),
		strings.Contains(msg, "EOF"):
		return UnreachableConnection
	}
	var op *net.OpError
	if errors.As(err, &op) {
		return UnreachableConnection
	}
	return UnreachableOther
}
