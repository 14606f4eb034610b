package seo_test

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"os"
	"syscall"
	"testing"

	"github.com/seokit/seokit/seo"
)

func TestUnreachableKind(t *testing.T) {
	t.Parallel()
	wrap := func(err error) error { return fmt.Errorf("seo: fetch https://example.com/: %w", err) }
	opErr := func(err error) error { return &net.OpError{Op: "dial", Net: "tcp", Err: err} }
	cases := []struct {
		name string
		err  error
		want string
	}{
		{"nil", nil, ""},
		{"no such host", wrap(&net.DNSError{Err: "no such host", Name: "shop.invalid", IsNotFound: true}), seo.UnreachableDNS},
		{"dns timeout", wrap(&net.DNSError{Err: "i/o timeout", Name: "slow.example", IsTimeout: true}), seo.UnreachableTimeout},
		{"refused", wrap(opErr(os.NewSyscallError("connect", syscall.ECONNREFUSED))), seo.UnreachableConnection},
		{"reset", wrap(opErr(os.NewSyscallError("read", syscall.ECONNRESET))), seo.UnreachableConnection},
		{"tls record", wrap(tls.RecordHeaderError{Msg: "first record does not look like a TLS handshake"}), seo.UnreachableTLS},
		{"tls alert", wrap(tls.AlertError(40)), seo.UnreachableTLS},
		{"deadline", wrap(context.DeadlineExceeded), seo.UnreachableTimeout},
		{"canceled", wrap(context.Canceled), ""},
		{"refused address", wrap(seo.ErrForbiddenAddress), ""},
		{"bad input", &seo.InputError{Field: "url", Reason: "is empty"}, ""},
		{"other", errors.New("malformed HTTP response"), seo.UnreachableOther},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := seo.UnreachableKind(c.err); got != c.want {
				t.Errorf("UnreachableKind(%v) = %q, want %q", c.err, got, c.want)
			}
			un := seo.NewUnreachable("https://example.com/", c.err)
			if (un == nil) != (c.want == "") {
				t.Fatalf("NewUnreachable = %+v", un)
			}
			if un != nil && !errors.Is(un.Err(), seo.ErrUnreachable) {
				t.Errorf("%v does not wrap ErrUnreachable", un.Err())
			}
		})
	}
}
