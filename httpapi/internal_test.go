package httpapi

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/seo"
)

func TestToAPIError(t *testing.T) {
	tests := []struct {
		name   string
		err    error
		status int
		code   string
		field  string
	}{
		{"input error", fmt.Errorf("wrap: %w", &seo.InputError{Field: "locale", Reason: "bad"}), 400, CodeInvalidRequest, "locale"},
		{"bare invalid input", seo.ErrInvalidInput, 400, CodeInvalidRequest, ""},
		{"store not found", fmt.Errorf("x: %w", store.ErrNotFound), 404, CodeNotFound, ""},
		{"conflict", store.ErrConflict, 409, CodeConflict, ""},
		{"store down", fmt.Errorf("x: %w", store.ErrUnavailable), 503, CodeUnavailable, ""},
		{"provider rate limit", fmt.Errorf("dataforseo: %w", seo.ErrRateLimited), 503, CodeUpstreamRateLimited, ""},
		{"provider down", fmt.Errorf("dataforseo: %w", seo.ErrUnavailable), 503, CodeUnavailable, ""},
		{"timeout", context.DeadlineExceeded, 503, CodeUnavailable, ""},
		{"bug", errors.New("nil map"), 500, CodeInternal, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, _ := toAPIError(tc.err)
			if e.Status != tc.status || e.Code != tc.code || e.Field != tc.field {
				t.Errorf("got %+v", e)
			}
			if tc.code == CodeInternal && e.Message != "internal server error" {
				t.Errorf("internal message leaks: %q", e.Message)
			}
		})
	}
}

func TestClientIP(t *testing.T) {
	s := &Server{opts: Options{TrustedProxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}}}
	tests := []struct {
		name, remote, xff, want string
	}{
		{"direct peer ignores XFF", "203.0.113.5:1000", "1.2.3.4", "203.0.113.5"},
		{"trusted proxy", "10.0.0.2:1000", "198.51.100.9", "198.51.100.9"},
		{"spoofed left entries ignored", "10.0.0.2:1000", "1.2.3.4, 198.51.100.9", "198.51.100.9"},
		{"chain of proxies", "10.0.0.2:1000", "198.51.100.9, 10.1.1.1", "198.51.100.9"},
		{"garbage XFF", "10.0.0.2:1000", "nonsense", "10.0.0.2"},
		{"no XFF", "10.0.0.2:1000", "", "10.0.0.2"},
		{"IPv6 peer", "[2001:db8::1]:1000", "", "2001:db8::1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/", nil)
			r.RemoteAddr = tc.remote
			if tc.xff != "" {
				r.Header.Set("X-Forwarded-For", tc.xff)
			}
			if got := s.clientIP(r); got != tc.want {
				t.Errorf("clientIP = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestRandomID(t *testing.T) {
	seen := map[string]bool{}
	counts := map[rune]int{}
	for range 2000 {
		id := randomID(20)
		if len(id) != 20 || seen[id] {
			t.Fatalf("randomID(20) = %q (len %d, repeated %v)", id, len(id), seen[id])
		}
		seen[id] = true
		for _, c := range id {
			if !strings.ContainsRune(base62, c) {
				t.Fatalf("randomID(20) = %q has %q, not base62", id, c)
			}
			counts[c]++
		}
	}
	// 40,000 characters over 62 symbols: about 645 each; a map of bytes
	// without the rejection step would still pass, but a broken mapping
	// (say, only digits) would not.
	if len(counts) != 62 {
		t.Fatalf("randomID used %d of 62 symbols", len(counts))
	}
	for c, n := range counts {
		if n < 450 || n > 850 {
			t.Fatalf("symbol %q drawn %d times of 40,000, want about 645", c, n)
		}
	}
}
