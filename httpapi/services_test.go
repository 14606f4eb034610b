package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"testing"
	"time"

	"github.com/seokit/seokit/httpapi/service"
	"github.com/seokit/seokit/seo"
)

// TestServiceErrorsEnvelope: each error a service returns, wrapped or
// not, becomes its envelope in toAPIError, the one place: status, code,
// field, message and Retry-After as the API answered before the services
// returned their own errors.
func TestServiceErrorsEnvelope(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name                  string
		err                   error
		status                int
		code, field, msg, ret string
	}{
		{"field", &service.FieldError{Field: "keywords[]", Message: "at least one keywords[] parameter is required"},
			400, CodeInvalidRequest, "keywords[]", "at least one keywords[] parameter is required", ""},
		{"input", &seo.InputError{Field: "locale", Value: "xx", Reason: "is not a locale"},
			400, CodeInvalidRequest, "locale", `invalid locale: is not a locale (got "xx")`, ""},
		{"not found", &service.NotFoundError{Message: `no project "p1" (projectId)`},
			404, CodeNotFound, "", `no project "p1" (projectId)`, ""},
		{"bare not found", service.ErrNotFound, 404, CodeNotFound, "", "no such resource", ""},
		{"conflict", &service.ConflictError{Message: "this account has 3 projects, the most its plan allows; delete one first"},
			409, CodeConflict, "", "this account has 3 projects, the most its plan allows; delete one first", ""},
		{"limit", &service.LimitError{Message: "daily request limit of 2 reached; it resets at 00:00 UTC", RetryAfter: 90 * time.Second},
			429, CodeRateLimited, "", "daily request limit of 2 reached; it resets at 00:00 UTC", "90"},
		{"not configured", &service.NotConfiguredError{What: "rankings"},
			503, CodeUnavailable, "", "rankings are not configured on this server", "5"}, {"busy", busy("the server is running as many renderings as it can; retry shortly"),
			503, CodeUnavailable, "", "the server is running as many renderings as it can; retry shortly", "5"},
		{"busy memory", fmt.Errorf("httpapi: memory budget: %w: %w", seo.ErrUnavailable, busy("the server has no memory to spare for this operation now; retry shortly")),
			503, CodeUnavailable, "", "the server has no memory to spare for this operation now; retry shortly", "5"},
		{"busy, unknown retry", &service.BusyError{Message: "the server is busy"}, 503, CodeUnavailable, "", "the server is busy", "5"},
		{"busy, 1.2 s", &service.BusyError{Message: "the server is busy", RetryAfter: 1200 * time.Millisecond}, 503, CodeUnavailable, "", "the server is busy", "2"},
	}
	for _, tc := range tests {
		for _, wrapped := range []bool{false, true} {
			err := tc.err
			if wrapped {
				err = fmt.Errorf("service call: %w", err)
			}
			e, _ := toAPIError(err)
			if e.Status != tc.status || e.Code != tc.code || e.Field != tc.field || e.Message != tc.msg || retryAfter(e) != tc.ret {
				t.Errorf("%s (wrapped %v): %d %s field %q %q retry %q; want %d %s field %q %q retry %q", tc.name, wrapped,
					e.Status, e.Code, e.Field, e.Message, retryAfter(e), tc.status, tc.code, tc.field, tc.msg, tc.ret)
			}
		}
	}
}

// TestResearchServicesChargedOnce: GET /v1/keywords/suggest, /v1/rankings
// and /v1/reports answer the JSON of their service's value (the same bytes
// but the time it was made, cachedAt and generatedAt), and
// each costs one unit whichever surface calls: the API request's one (the
// service, told it is paid, charges nothing more), or the service's own
// when called directly without it.
func TestResearchServicesChargedOnce(t *testing.T) {
	a := newTestAPI(t, dataOptions(t))
	ctx := context.Background()
	used := func() int {
		t.Helper()
		today := time.Now().UTC().Truncate(24 * time.Hour)
		u, err := a.srv.Accounts().Usage(ctx, a.acct.ID, today, today)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, x := range u {
			n += x.Count
		}
		return n
	}
	tests := []struct {
		name, path string
		call       func(ctx context.Context) ([]byte, error)
	}{
		{"suggest", "/v1/keywords/suggest?query=oak+tables&locale=en-US&limit=10", func(ctx context.Context) ([]byte, error) {
			return a.srv.Keywords().SuggestJSON(ctx, a.acct.ID, nil, service.SuggestRequest{Query: "oak tables", Locale: "en-US", Limit: 10})
		}},
		{"rankings", "/v1/rankings?domain=example.com&keywords[]=oak+tables&keywords[]=oak+chairs", func(ctx context.Context) ([]byte, error) {
			v, err := a.srv.Rankings().Check(ctx, a.acct.ID, service.RankingsRequest{Domain: "example.com", Keywords: []string{"oak tables", "oak chairs"}})
			if err != nil {
				return nil, err
			}
			return json.Marshal(v)
		}},
		{"reports", "/v1/reports?domain=example.com&start=2026-01-01&end=2026-01-31", func(ctx context.Context) ([]byte, error) {
			v, err := a.srv.Reports().Build(ctx, a.acct.ID, service.ReportRequest{Domain: "example.com", Start: "2026-01-01", End: "2026-01-31"})
			if err != nil {
				return nil, err
			}
			return json.Marshal(v)
		}},
	}
	for _, tc := range tests {
		n0 := used()
		resp := a.call("GET", tc.path, a.key, "")
		wantStatus(t, resp, 200)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if n := used(); n != n0+1 {
			t.Errorf("%s: the API request counted %d units, want 1", tc.name, n-n0)
		}
		paid, err := tc.call(service.WithPaid(ctx, 1))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if n := used(); n != n0+1 {
			t.Errorf("%s: the paid service call counted %d more units, want 0", tc.name, n-n0-1)
		}
		if !sameJSON(t, body, paid) {
			t.Errorf("%s: the API answered\n%s\nthe service's value encodes as\n%s", tc.name, body, paid)
		}
		if _, err := tc.call(ctx); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if n := used(); n != n0+2 {
			t.Errorf("%s: the unpaid service call counted %d units, want 1", tc.name, n-n0-1)
		}
	}
}

// sameJSON reports whether two JSON objects are equal but for their
// top-level cachedAt and generatedAt, the times they were made.
func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y map[string]any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatalf("%v: %s", err, a)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	for _, k := range []string{"cachedAt", "generatedAt"} {
		delete(x, k)
		delete(y, k)
	}
	return reflect.DeepEqual(x, y)
}
