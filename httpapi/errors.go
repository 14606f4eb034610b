package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/seokit/seokit/httpapi/service"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/render"
	"github.com/seokit/seokit/seo"
)

// Error codes of the envelope. Each code always comes with the same HTTP
// status, listed in doc.go.
const (
	CodeInvalidRequest       = "invalid_request"       // 400
	CodeUnauthorized         = "unauthorized"          // 401
	CodeForbidden            = "forbidden"             // 403
	CodeHTTPSRequired        = "https_required"        // 403
	CodeNotFound             = "not_found"             // 404
	CodeMethodNotAllowed     = "method_not_allowed"    // 405
	CodeConflict             = "conflict"              // 409
	CodeRateLimited          = "rate_limited"          // 429
	CodeInternal             = "internal"              // 500
	CodeUnavailable          = "unavailable"           // 503
	CodeUpstreamRateLimited  = "upstream_rate_limited" // 503
	CodeRenderingUnavailable = "rendering_unavailable" // 503
)

// Error is the body of every /v1 error response, inside {"error": ...}.
type Error struct {
	// Code is a stable machine-readable code (see the Code constants).
	Code string `json:"code"`
	// Message is a human-readable description; it never contains internals.
	Message string `json:"message"`
	// Status repeats the HTTP status code.
	Status int `json:"status"`
	// Field names the input at fault for invalid_request, as the API spells
	// it: "url", "options.maxPages", "keywords[2]", "Content-Type", "body".
	Field string `json:"field,omitempty"`
	// RequestID is the X-Request-Id of the request, for support.
	RequestID string `json:"requestId,omitempty"`

	// retryAfter, when set, is the Retry-After of the answer in seconds.
	retryAfter string
}

// StatusCode returns the HTTP status of the answer, for callers outside
// the API (the dashboard) that show the refusal.
func (e *Error) StatusCode() int { return e.Status }

// FieldName is the request field the error is about, "" for none.
func (e *Error) FieldName() string { return e.Field }

// PublicMessage returns the message shown to the client.
func (e *Error) PublicMessage() string { return e.Message }

// Error returns the message.
func (e *Error) Error() string { return "httpapi: " + e.Code + ": " + e.Message }

// envelope is the wire form of an error.
type envelope struct {
	Error *Error `json:"error"`
}

// apiError builds an *Error.
func apiError(status int, code, msg string) *Error {
	return &Error{Code: code, Message: msg, Status: status}
}

// invalid is input the caller must fix, naming field: a
// *service.FieldError, a 400 invalid_request on the API.
func invalid(field, msg string) error {
	return &service.FieldError{Field: field, Message: msg}
}

// notFound is a resource the account does not have: a
// *service.NotFoundError, a 404 not_found on the API.
func notFound(msg string) error {
	return &service.NotFoundError{Message: msg}
}

// conflict is an action the resource's state or a plan's count cap
// refuses: a *service.ConflictError, a 409 conflict on the API.
func conflict(msg string) error {
	return &service.ConflictError{Message: msg}
}

// invalidError is the envelope of a 400 naming field.
func invalidError(field, msg string) *Error {
	e := apiError(http.StatusBadRequest, CodeInvalidRequest, msg)
	e.Field = field
	return e
}

// inputMessage renders an InputError without the package prefix.
func inputMessage(ie *seo.InputError) string {
	return strings.TrimPrefix(ie.Error(), "seo: ")
}

// toAPIError maps a library or store error to the envelope. It returns the
// error and, for 5xx errors, whether the cause should be logged.
func toAPIError(err error) (e *Error, logIt bool) {
	var ae *Error
	if errors.As(err, &ae) {
		return ae, ae.Status >= 500
	}
	var le *service.LimitError
	if errors.As(err, &le) {
		e := apiError(http.StatusTooManyRequests, CodeRateLimited, le.Message)
		if le.RetryAfter > 0 {
			e.retryAfter = strconv.FormatInt(max(int64(le.RetryAfter.Seconds()+0.999), 1), 10)
		}
		return e, false
	}
	var tl *service.TooLargeError
	if errors.As(err, &tl) {
		return apiError(tl.StatusCode(), CodeConflict, tl.PublicMessage()), false
	}
	var be *service.BusyError
	if errors.As(err, &be) {
		e := apiError(http.StatusServiceUnavailable, CodeUnavailable, be.Message)
		if be.RetryAfter > 0 {
			e.retryAfter = strconv.FormatInt(max(int64(be.RetryAfter.Seconds()+0.999), 1), 10)
		}
		return e, true
	}
	var fe *service.FieldError
	if errors.As(err, &fe) {
		return invalidError(fe.Field, fe.Message), false
	}
	var nf *service.NotFoundError
	if errors.As(err, &nf) {
		return apiError(http.StatusNotFound, CodeNotFound, nf.Message), false
	}
	var ce *service.ConflictError
	if errors.As(err, &ce) {
		return apiError(http.StatusConflict, CodeConflict, ce.Message), false
	}
	var fb *service.ForbiddenError
	if errors.As(err, &fb) {
		return apiError(http.StatusForbidden, CodeForbidden, fb.Message), false
	}
	var nc *service.NotConfiguredError
	if errors.As(err, &nc) {
		return apiError(http.StatusServiceUnavailable, CodeUnavailable, nc.PublicMessage()), true
	}
	if ie, ok := seo.AsInputError(err); ok {
		return invalidError(ie.Field, inputMessage(ie)), false
	}
	if e := outageAPIError(err); e != nil {
		return e, true
	}
	switch {
	case errors.Is(err, seo.ErrInvalidInput):
		return apiError(http.StatusBadRequest, CodeInvalidRequest, "the request is not valid"), false
	case errors.Is(err, store.ErrNotFound), errors.Is(err, seo.ErrNotFound):
		return apiError(http.StatusNotFound, CodeNotFound, "no such resource"), false
	case errors.Is(err, store.ErrConflict):
		return apiError(http.StatusConflict, CodeConflict, "the resource is in a state that does not allow this"), false
	case errors.Is(err, store.ErrLimitReached):
		return apiError(http.StatusConflict, CodeConflict, "the account has the most of these its plan allows; delete one first"), false
	case errors.Is(err, store.ErrUnavailable):
		return apiError(http.StatusServiceUnavailable, CodeUnavailable, "the service's database is unavailable; retry shortly"), true
	case errors.Is(err, render.ErrUnavailable): // before seo.ErrUnavailable, which it wraps
		return renderingUnavailable(), true
	case errors.Is(err, seo.ErrRateLimited):
		return apiError(http.StatusServiceUnavailable, CodeUpstreamRateLimited, "a data provider is limiting requests; retry later"), true
	case errors.Is(err, seo.ErrUnavailable):
		return apiError(http.StatusServiceUnavailable, CodeUnavailable, "a data provider is unavailable; retry later"), true
	case errors.Is(err, context.DeadlineExceeded):
		return apiError(http.StatusServiceUnavailable, CodeUnavailable, "the operation timed out; retry later"), true
	}
	return apiError(http.StatusInternalServerError, CodeInternal, "internal server error"), true
}

// retryAfter is the Retry-After sent with e, in seconds: the error's own,
// else one for 503 answers.
func retryAfter(e *Error) string {
	if e.retryAfter != "" {
		return e.retryAfter
	}
	switch e.Code {
	case CodeUpstreamRateLimited:
		return "60"
	case CodeUnavailable:
		return "5"
	}
	return ""
}

// writeJSON writes v with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		b = []byte(`{"error":{"code":"internal","message":"internal server error","status":500}}`)
	}
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(b)+1))
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}

// writeError writes the envelope for e, with the request ID of r.
func writeError(w http.ResponseWriter, r *http.Request, e *Error) {
	drainBody(w, r)
	c := *e
	c.RequestID = requestID(r.Context())
	if ra := retryAfter(&c); ra != "" && w.Header().Get("Retry-After") == "" {
		w.Header().Set("Retry-After", ra)
	}
	writeJSON(w, c.Status, envelope{Error: &c})
}

// fail maps err and writes it, logging 5xx causes with the request ID.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	e, logIt := toAPIError(err)
	if logIt {
		s.log.ErrorContext(r.Context(), "request failed", "request_id", requestID(r.Context()), "code", e.Code, "err", err)
	}
	writeError(w, r, e)
}

// Bounds of drainBody.
const (
	// maxDrainBytes is the most of a refused request's body read before
	// the answer: more than the largest body the API accepts
	// (DefaultOptimizeMaxBodyBytes).
	maxDrainBytes = 16 << 20
	// drainTime bounds the reading.
	drainTime = 3 * time.Second
)

// drainBody reads what is left of the request body (at most maxDrainBytes,
// for at most drainTime) before an error answer. An answer sent before the
// body is read (a 429 of the daily limit, an admission refusal) otherwise
// reaches clients that send the whole body before reading, without
// Expect: 100-continue (Python's urllib), as a connection reset: Go's server
// closes the connection with more than 256 KiB unread, and the client's
// write fails before it reads the answer. A body longer than the bounds,
// or one behind Expect: 100-continue (whose client waits for the answer
// and has sent nothing), is not read, and the connection closes after the
// answer.
func drainBody(w http.ResponseWriter, r *http.Request) {
	if r == nil || r.Body == nil || r.Body == http.NoBody || r.ContentLength == 0 || r.ProtoMajor != 1 {
		return
	}
	if r.Header.Get("Expect") != "" {
		return // the server sends no 100 Continue for a body never read
	}
	if r.ContentLength > maxDrainBytes {
		w.Header().Set("Connection", "close")
		return
	}
	rc := http.NewResponseController(w)
	rc.SetReadDeadline(time.Now().Add(drainTime)) // not every writer supports it; the byte cap holds
	n, err := io.CopyN(io.Discard, r.Body, maxDrainBytes+1)
	rc.SetReadDeadline(time.Time{})
	if err != io.EOF || n > maxDrainBytes {
		w.Header().Set("Connection", "close")
	}
}
