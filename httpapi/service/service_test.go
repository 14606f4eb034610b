package service_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/seokit/seokit/httpapi/service"
	"github.com/seokit/seokit/seo"
)

// TestParseTarget: a site request's domain or url is parsed into one
// Target, its start URL and host; bad input names the field it came from.
func TestParseTarget(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, domain, url string
		field, start      string // "" start: an error naming field
	}{
		{"domain", "Example.COM", "", "domain", "https://example.com/"},
		{"domain with port", "example.com:8443", "", "domain", "https://example.com:8443/"},
		{"url", "", "https://example.com/blog/", "url", "https://example.com/blog/"},
		{"url without path", "", "https://example.com", "url", "https://example.com/"},
		{"both", "example.com", "https://example.com/", "url", ""},
		{"empty", "", "", "domain", ""},
		{"domain with scheme", "https://example.com", "", "domain", ""},
		{"domain with path", "example.com/blog", "", "domain", ""},
		{"url not http", "", "ftp://example.com/", "url", ""},
		{"url host label too long", "", "https://" + strings.Repeat("a", 64) + ".com/", "url", ""},
		{"domain label too long", strings.Repeat("a", 64) + ".com", "", "domain", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := service.ParseTarget(tc.domain, tc.url)
			if tc.start == "" {
				ie, ok := seo.AsInputError(err)
				if !ok || ie.Field != tc.field || !errors.Is(err, service.ErrInvalid) {
					t.Fatalf("ParseTarget(%q, %q) = %+v, %v; want an input error naming %q", tc.domain, tc.url, got, err, tc.field)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseTarget(%q, %q): %v", tc.domain, tc.url, err)
			}
			if got.URL.String() != tc.start || got.Field != tc.field || got.Host() != got.URL.Host {
				t.Errorf("ParseTarget(%q, %q) = %s from %s, want %s from %s", tc.domain, tc.url, got.URL, got.Field, tc.start, tc.field)
			}
			if raw := tc.domain + tc.url; got.Raw != raw {
				t.Errorf("Raw = %q, want %q", got.Raw, raw)
			}
		})
	}
}

// TestDue: an action is charged its cost less what the request paid,
// never less than nothing.
func TestDue(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, tc := range []struct{ paid, cost, due int }{
		{0, 1, 1}, {0, 5, 5}, {1, 1, 0}, {1, 5, 4}, {3, 1, 0},
	} {
		c := ctx
		if tc.paid > 0 {
			c = service.WithPaid(ctx, tc.paid)
		}
		if got := service.Due(c, tc.cost); got != tc.due || service.Paid(c) != tc.paid {
			t.Errorf("paid %d, cost %d: Due = %d, Paid = %d; want %d, %d", tc.paid, tc.cost, got, service.Paid(c), tc.due, tc.paid)
		}
	}
}

// TestLimitError: a refusal by a limit is ErrLimit, a 429 with its
// message.
func TestLimitError(t *testing.T) {
	t.Parallel()
	var err error = &service.LimitError{Message: "daily request limit of 2 reached", RetryAfter: time.Minute}
	wrapped := errors.Join(errors.New("context"), err)
	var le *service.LimitError
	if !errors.Is(wrapped, service.ErrLimit) || !errors.As(wrapped, &le) || le.StatusCode() != 429 || le.PublicMessage() != "daily request limit of 2 reached" {
		t.Fatalf("LimitError: Is %v, As %v %+v", errors.Is(wrapped, service.ErrLimit), errors.As(wrapped, &le), le)
	}
	if errors.Is(errors.New("other"), service.ErrLimit) {
		t.Fatal("any error is ErrLimit")
	}
}
