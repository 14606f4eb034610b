package seo_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/seokit/seokit/seo"
)

func TestProviderErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		err   error
		text  string
		is    []error
		isNot []error
	}{
		{"rate limit", &seo.RateLimitError{Provider: "serpapi", Status: 429, Message: "out of searches", RetryAfter: time.Minute},
			"serpapi: rate limited by provider: out of searches (retry after 1m0s)", []error{seo.ErrRateLimited}, []error{seo.ErrUnavailable}},
		{"rate limit in a body", &seo.RateLimitError{Provider: "dataforseo", Message: "40202 Rate-limit per minute exceeded."},
			"dataforseo: rate limited by provider: 40202 Rate-limit per minute exceeded.", []error{seo.ErrRateLimited}, []error{seo.ErrUnavailable}},
		{"503 with retry-after", &seo.RateLimitError{Provider: "p", Status: 503, RetryAfter: 5 * time.Second},
			"p: rate limited by provider (retry after 5s)", []error{seo.ErrRateLimited, seo.ErrUnavailable}, nil},
		{"credentials", &seo.ProviderError{Provider: "googleads", Status: 401, Code: "UNAUTHENTICATED", Message: "bad token"},
			"googleads: credentials rejected (HTTP 401 UNAUTHENTICATED): bad token", []error{seo.ErrUnavailable}, []error{seo.ErrRateLimited, seo.ErrNotFound}},
		{"payment", &seo.ProviderError{Provider: "dataforseo", Status: 402},
			"dataforseo: payment required (HTTP 402)", []error{seo.ErrUnavailable}, nil},
		{"not found", &seo.ProviderError{Provider: "ga4", Status: 404, Err: seo.ErrNotFound},
			"ga4: not found (HTTP 404)", []error{seo.ErrUnavailable, seo.ErrNotFound}, nil},
		{"rejected", &seo.ProviderError{Provider: "p", Status: 400, Message: "bad"},
			"p: request rejected (HTTP 400): bad", []error{seo.ErrUnavailable}, []error{seo.ErrInvalidInput}},
		{"server", &seo.ProviderError{Provider: "p", Status: 500, Code: "INTERNAL"},
			"p: provider error (HTTP 500 INTERNAL)", []error{seo.ErrUnavailable}, nil},
		{"status in a body", &seo.ProviderError{Provider: "dataforseo", Code: "40101", Message: "Internal SE Server Error."},
			"dataforseo: provider error (status 40101): Internal SE Server Error.", []error{seo.ErrUnavailable}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.err.Error(); got != tt.text {
				t.Errorf("Error() = %q, want %q", got, tt.text)
			}
			wrapped := fmt.Errorf("caller: %w", tt.err)
			for _, w := range tt.is {
				if !errors.Is(wrapped, w) {
					t.Errorf("%v does not wrap %v", tt.err, w)
				}
			}
			for _, w := range tt.isNot {
				if errors.Is(wrapped, w) {
					t.Errorf("%v wraps %v", tt.err, w)
				}
			}
		})
	}
}

func ExampleRateLimitError() {
	// A keywords, rankings or reports driver answered this:
	err := fmt.Errorf("rankings: check: %w", &seo.RateLimitError{Provider: "serpapi", Status: 429, RetryAfter: 30 * time.Second})

	var rl *seo.RateLimitError
	if errors.As(err, &rl) {
		fmt.Println(rl.Provider, "asks to wait", rl.RetryAfter)
	}
	fmt.Println(errors.Is(err, seo.ErrRateLimited))
	// Output:
	// serpapi asks to wait 30s
	// true
}
