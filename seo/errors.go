package seo

import (
	"errors"
	"fmt"
)

// Sentinel errors shared by every seokit package. Test for them with errors.Is.
var (
	// ErrInvalidInput marks input a caller must fix; [InputError] wraps it.
	ErrInvalidInput = errors.New("seo: invalid input")
	// ErrNotFound means a requested record does not exist.
	ErrNotFound = errors.New("seo: not found")
	// ErrForbiddenAddress means a URL's host is, or resolves to, an address
	// the safe fetcher refuses (loopback, private, link-local, metadata ...).
	ErrForbiddenAddress = errors.New("seo: forbidden address")
	// ErrTooManyRedirects means a fetch followed more redirects than allowed.
	ErrTooManyRedirects = errors.New("seo: too many redirects")
	// ErrRedirectLoop means a redirect led back to a URL already in its chain.
	ErrRedirectLoop = errors.New("seo: redirect loop")
	// ErrTooLarge means a body or document exceeded its size cap.
	ErrTooLarge = errors.New("seo: too large")
	// ErrUnsupported means an operation or value is valid but not supported here.
	ErrUnsupported = errors.New("seo: unsupported")
	// ErrUnavailable means an upstream service or data source failed; retrying may help.
	ErrUnavailable = errors.New("seo: unavailable")
	// ErrRateLimited means an upstream service or quota refused the request for now.
	ErrRateLimited = errors.New("seo: rate limited")
)

// InputError reports one bad input field. It wraps [ErrInvalidInput] (and
// Err, when set), so errors.Is(err, ErrInvalidInput) holds.
type InputError struct {
	// Field names the input at fault as the API spells it ("url", "options.depth", "locale").
	Field string
	// Value is the offending value, clipped.
	Value string
	// Reason says what is wrong, in lowercase.
	Reason string
	// Err is an underlying cause such as ErrForbiddenAddress, if any.
	Err error
}

// Error returns "seo: invalid <field>: <reason>".
func (e *InputError) Error() string {
	msg := fmt.Sprintf("seo: invalid %s: %s", e.Field, e.Reason)
	if e.Value != "" {
		msg += fmt.Sprintf(" (got %q)", Clip(e.Value))
	}
	return msg
}

// Unwrap returns ErrInvalidInput and the underlying cause.
func (e *InputError) Unwrap() []error {
	if e.Err != nil {
		return []error{ErrInvalidInput, e.Err}
	}
	return []error{ErrInvalidInput}
}

// WithField returns a copy of the error naming another field, for callers
// that nest input (a URL validated as "url" reported as "callbackUrl").
func (e *InputError) WithField(field string) *InputError {
	c := *e
	c.Field = field
	return &c
}

// AsInputError returns the InputError in err's chain, if any.
func AsInputError(err error) (*InputError, bool) {
	var ie *InputError
	ok := errors.As(err, &ie)
	return ie, ok
}
