package service

import (
	"fmt"
	"net/http"
	"time"

	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/seo"
)

var (
	// ErrInvalid marks input the caller must fix; the error is an
	// *seo.InputError or a *FieldError naming the field
	// (errors.Is(err, ErrInvalid) holds).
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
	// ErrForbidden: the server's operator has not granted the account
	// what the action reaches (a Search Console property); the error is a
	// *ForbiddenError.
	ErrForbidden = errForbidden{}
	// ErrNotConfigured: the server lacks what the action needs (no SERP
	// tracker, no keyword suggester); the error is a *NotConfiguredError.
	ErrNotConfigured = errNotConfigured{}
)

// FieldError is input the caller must fix, worded for the user: it names
// the field and wraps ErrInvalid, as an *seo.InputError does.
type FieldError struct {
	// Field names the input as the API spells it ("keywords[]", "start").
	Field string
	// Message says what is wrong ("query is required").
	Message string
}

// Invalid returns a *FieldError.
func Invalid(field, msg string) error { return &FieldError{Field: field, Message: msg} }

func (e *FieldError) Error() string { return "service: invalid " + e.Field + ": " + e.Message }

// Unwrap returns ErrInvalid.
func (e *FieldError) Unwrap() error { return ErrInvalid }

// FieldName is the field at fault.
func (e *FieldError) FieldName() string { return e.Field }

// StatusCode is the HTTP status of the refusal: 400.
func (e *FieldError) StatusCode() int { return http.StatusBadRequest }

// PublicMessage is the message shown to the user.
func (e *FieldError) PublicMessage() string { return e.Message }

// NotFoundError is a resource the account does not have, with a message
// naming it ("no project \"p1\" (projectId)"). It wraps ErrNotFound.
type NotFoundError struct{ Message string }

func (e *NotFoundError) Error() string { return "service: " + e.Message }

// Unwrap returns ErrNotFound.
func (e *NotFoundError) Unwrap() error { return ErrNotFound }

// StatusCode is the HTTP status of the refusal: 404.
func (e *NotFoundError) StatusCode() int { return http.StatusNotFound }

// PublicMessage is the message shown to the user.
func (e *NotFoundError) PublicMessage() string { return e.Message }

// ConflictError is an action the resource's state or a count cap of the
// plan does not allow, with a message saying which ("this account has 3
// projects, the most its plan allows; delete one first"). It wraps
// ErrConflict.
type ConflictError struct{ Message string }

func (e *ConflictError) Error() string { return "service: " + e.Message }

// Unwrap returns ErrConflict.
func (e *ConflictError) Unwrap() error { return ErrConflict }

// StatusCode is the HTTP status of the refusal: 409.
func (e *ConflictError) StatusCode() int { return http.StatusConflict }

// PublicMessage is the message shown to the user.
func (e *ConflictError) PublicMessage() string { return e.Message }

// ForbiddenError is an action the account is not granted, with a message
// naming what and how the server's operator grants it ("this account may
// not inspect the Search Console property sc-domain:example.com; ...").
// It wraps ErrForbidden.
type ForbiddenError struct{ Message string }

func (e *ForbiddenError) Error() string { return "service: " + e.Message }

// Unwrap returns ErrForbidden.
func (e *ForbiddenError) Unwrap() error { return ErrForbidden }

// StatusCode is the HTTP status of the refusal: 403.
func (e *ForbiddenError) StatusCode() int { return http.StatusForbidden }

// PublicMessage is the message shown to the user.
func (e *ForbiddenError) PublicMessage() string { return e.Message }

type errForbidden struct{}

func (errForbidden) Error() string { return "service: forbidden" }

type errNotConfigured struct{}

func (errNotConfigured) Error() string { return "service: not configured" }

// NotConfiguredError is an action the server cannot serve because what it
// needs is not configured. It wraps ErrNotConfigured.
type NotConfiguredError struct {
	// What names the missing feature, plural: "rankings", "reports",
	// "keyword suggestions".
	What string
}

func (e *NotConfiguredError) Error() string { return "service: " + e.PublicMessage() }

// Unwrap returns ErrNotConfigured.
func (e *NotConfiguredError) Unwrap() error { return ErrNotConfigured }

// StatusCode is the HTTP status of the refusal: 503.
func (e *NotConfiguredError) StatusCode() int { return http.StatusServiceUnavailable }

// PublicMessage is the message shown to the user.
func (e *NotConfiguredError) PublicMessage() string {
	return e.What + " are not configured on this server"
}

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

type errBusy struct{}

func (errBusy) Error() string { return "service: server busy" }

// ErrBusy: the server is running as much of the work as it can, or has no
// memory to spare for it; the error is a *BusyError.
var ErrBusy = errBusy{}

// BusyError is an action refused because the server is saturated: its
// slots for the kind of work are taken or its memory budget cannot admit
// the work now. It wraps ErrBusy.
type BusyError struct {
	// Message says what is saturated, for the user ("the server is
	// running as many renderings as it can; retry shortly").
	Message string
	// RetryAfter is when the action may succeed again; zero when unknown.
	RetryAfter time.Duration
}

func (e *BusyError) Error() string { return "service: " + e.Message }

// Unwrap returns ErrBusy.
func (e *BusyError) Unwrap() error { return ErrBusy }

// StatusCode is the HTTP status of the refusal: 503.
func (e *BusyError) StatusCode() int { return http.StatusServiceUnavailable }

// PublicMessage is the message shown to the user.
func (e *BusyError) PublicMessage() string { return e.Message }

// TooLargeError is an action that needs more memory than the server's
// whole memory budget: as the server is configured it can never be
// admitted, so it is refused at once and not as busy, whose Retry-After
// would have the client retry for ever.
type TooLargeError struct {
	// Need is the action's estimate and Budget the whole budget, in bytes.
	Need, Budget int64
}

func (e *TooLargeError) Error() string { return "service: " + e.PublicMessage() }

// StatusCode is the HTTP status of the refusal: 409, the resource (a
// report too large, say) being in a state this server cannot act on.
func (e *TooLargeError) StatusCode() int { return http.StatusConflict }

// PublicMessage is the message shown to the user.
func (e *TooLargeError) PublicMessage() string {
	return fmt.Sprintf("this needs about %d MiB of memory, more than this server's whole memory budget of %d MiB; "+
		"it cannot succeed on a retry (a report can still be downloaded whole, and paged, without decoding it)", (e.Need+1<<20-1)>>20, e.Budget>>20)
}
