package seo

import (
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// RateLimitError is a data provider's refusal to answer for now: HTTP 429,
// a quota status in its answer, or HTTP 503 with a Retry-After. Every data
// driver (keywords, rankings and reports sources) returns it, so a caller
// can wait as long as the provider asked:
//
//	var rl *seo.RateLimitError
//	if errors.As(err, &rl) && rl.RetryAfter > 0 { ... }
//
// It wraps [ErrRateLimited], and [ErrUnavailable] too for an HTTP 503.
type RateLimitError struct {
	// Provider names the driver ("serpapi", "dataforseo", "searchconsole" ...).
	Provider string
	// Status is the HTTP status of the answer; 0 when the refusal came in
	// the body of a successful answer.
	Status int
	// Message is the provider's message, clipped.
	Message string
	// RetryAfter is how long the provider asked to wait (Retry-After header
	// or a delay in the answer); zero when it did not say.
	RetryAfter time.Duration
}

// Error returns "<provider>: rate limited by provider: <message> (retry after <wait>)".
func (e *RateLimitError) Error() string {
	msg := e.Provider + ": rate limited by provider"
	if e.Message != "" {
		msg += ": " + Clip(e.Message)
	}
	if e.RetryAfter > 0 {
		msg += fmt.Sprintf(" (retry after %s)", e.RetryAfter)
	}
	return msg
}

// Unwrap returns ErrRateLimited, and ErrUnavailable for an HTTP 503.
func (e *RateLimitError) Unwrap() []error {
	if e.Status == http.StatusServiceUnavailable {
		return []error{ErrRateLimited, ErrUnavailable}
	}
	return []error{ErrRateLimited}
}

// ProviderError is an error answer from a data provider's API: credentials
// rejected (HTTP 401, 403), a request the provider refused (other 4xx) or a
// failure on its side (5xx, or an error status in a successful answer's
// body). It wraps [ErrUnavailable], and Err when set, so errors.Is works as
// for any provider failure; errors.As gives the status, the provider's code
// and its message.
type ProviderError struct {
	// Provider names the driver ("googleads", "customsearch" ...).
	Provider string
	// Status is the HTTP status of the answer; 0 when the error came in the
	// body of a successful answer (DataForSEO task status codes).
	Status int
	// Code is the provider's own status or code ("PERMISSION_DENIED",
	// "40101"), if it gave one.
	Code string
	// Message is the provider's message, clipped.
	Message string
	// Err is a more precise cause, such as ErrNotFound, if any.
	Err error
}

// Error returns "<provider>: <what> (HTTP <status> <code>): <message>",
// where what is "credentials rejected", "payment required", "not found",
// "request rejected" or "provider error".
func (e *ProviderError) Error() string {
	what := "provider error"
	switch {
	case e.Status == http.StatusUnauthorized || e.Status == http.StatusForbidden:
		what = "credentials rejected"
	case e.Status == http.StatusPaymentRequired:
		what = "payment required"
	case e.Status == http.StatusNotFound:
		what = "not found"
	case e.Status >= 400 && e.Status < 500:
		what = "request rejected"
	}
	msg := e.Provider + ": " + what + " ("
	switch {
	case e.Status != 0 && e.Code != "":
		msg += "HTTP " + strconv.Itoa(e.Status) + " " + e.Code
	case e.Status != 0:
		msg += "HTTP " + strconv.Itoa(e.Status)
	default:
		msg += "status " + e.Code
	}
	msg += ")"
	if e.Message != "" {
		msg += ": " + Clip(e.Message)
	}
	return msg
}

// Unwrap returns ErrUnavailable and Err.
func (e *ProviderError) Unwrap() []error {
	if e.Err != nil {
		return []error{ErrUnavailable, e.Err}
	}
	return []error{ErrUnavailable}
}
