// Package providertest holds what the conformance suites of the data
// driver interfaces (rankingstest, reportstest, keywordstest) share: the
// provider answers a suite asks a driver's fake provider to give, and the
// check of the error each failure must produce.
package providertest

import (
	"errors"
	"strings"
	"testing"

	"github.com/seokit/seokit/seo"
)

// Names of the provider answers. Each suite exports them as constants of
// its own Answer type.
const (
	Empty        = "empty"
	ServerError  = "server error"
	RateLimited  = "rate limited"
	Unauthorized = "unauthorized"
	Garbage      = "garbage"
	Truncated    = "truncated"
	Slow         = "slow"
)

// Failures are the answers that must fail a call, with the sentinel error
// the failure wraps.
var Failures = []struct {
	Answer string
	Is     error
}{
	{ServerError, seo.ErrUnavailable},
	{RateLimited, seo.ErrRateLimited},
	{Unauthorized, seo.ErrUnavailable},
	{Garbage, seo.ErrUnavailable},
	{Truncated, seo.ErrUnavailable},
	{Slow, seo.ErrUnavailable},
}

// CheckFailure reports on t unless err wraps is (and, for
// seo.ErrUnavailable, is not a rate limit), is not bad input, and carries
// none of secrets.
func CheckFailure(t *testing.T, err, is error, secrets []string) {
	t.Helper()
	if !errors.Is(err, is) {
		t.Errorf("error %q does not wrap %v", err, is)
	}
	if is == seo.ErrUnavailable && errors.Is(err, seo.ErrRateLimited) {
		t.Errorf("error %q is a rate limit", err)
	}
	if errors.Is(err, seo.ErrInvalidInput) {
		t.Errorf("a provider failure is bad input: %v", err)
	}
	for _, s := range secrets {
		if s != "" && strings.Contains(err.Error(), s) {
			t.Errorf("error %q carries a credential", err)
		}
	}
}
