package httpapi

import (
	"errors"
	"net/http"
)

// Component is implemented by drivers that name themselves in outage
// messages and health checks ("Redis rate limiter", "Redis frontier",
// "River queue"); a driver without it is named by its role ("rate
// limiter", "crawl frontier", "job queue").
type Component interface {
	Component() string
}

// componentName is v's own name (Component) or else role.
func componentName(v any, role string) string {
	if c, ok := v.(Component); ok {
		if n := c.Component(); n != "" {
			return n
		}
	}
	return role
}

// outageError is a failure of one of the server's components (other than
// its store, the default): 503 answers name it instead of "database".
type outageError struct {
	component string
	err       error
}

func (e *outageError) Error() string { return "httpapi: " + e.component + ": " + e.err.Error() }
func (e *outageError) Unwrap() error { return e.err }

// outage wraps err, a failure of the component v in its role, so that the
// answer names the component; nil stays nil.
func outage(v any, role string, err error) error {
	if err == nil {
		return nil
	}
	return &outageError{component: componentName(v, role), err: err}
}

// outageAPIError is the 503 of an outage of a named component, nil when
// err is none.
func outageAPIError(err error) *Error {
	var oe *outageError
	if !errors.As(err, &oe) {
		return nil
	}
	return apiError(http.StatusServiceUnavailable, CodeUnavailable, "the service's "+oe.component+" is unavailable; retry shortly")
}
