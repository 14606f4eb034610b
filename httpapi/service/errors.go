package service

import (
	"net/http"
	"time"

	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/seo"
)

var (
	// ErrInvalid marks input the caller must fix; the error is an
	// *seo.InputError naming the field (errors.Is(err, ErrInvalid) holds).
	ErrInvalid = seo.ErrInvalidInput
	// ErrNotFound: no such resource for the account (another account's
	// resources are not found either).
	ErrNotFound = store.ErrNotFound
	// ErrConflict: the resource is in a state that does not allow the
	// action (a finished job canceled).
	ErrConflict = store.ErrConflict
	// ErrLimit: a limit of the account's plan or its daily quota refuses
	// the action; the error is a *LimitError.
	ErrLimit = errLimit{}
)

type errLimit struct{}

func (errLimit) Error() string { return "service: limit reached" }

// LimitError is an action refused by a limit: the plan's cap of
// concurrent site analyses or the account's daily quota. It wraps
// ErrLimit.
type LimitError struct {
	// Message says which limit, for the user ("daily request limit of 100
	// reached; it resets at 00:00 UTC").
	Message string
	// RetryAfter is when the action may succeed again; zero when unknown.
	RetryAfter time.Duration
}

func (e *LimitError) Error() string { return "service: " + e.Message }

// Unwrap returns ErrLimit.
func (e *LimitError) Unwrap() error { return ErrLimit }

// StatusCode is the HTTP status of the refusal: 429.
func (e *LimitError) StatusCode() int { return http.StatusTooManyRequests }

// PublicMessage is the message shown to the user.
func (e *LimitError) PublicMessage() string { return e.Message }
