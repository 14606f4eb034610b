package httpapi

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/seokit/seokit/httpapi/ratelimit"
	"github.com/seokit/seokit/httpapi/store"
)

// downLimiter is a rate limiter whose backend does not answer.
type downLimiter struct{}

func (d downLimiter) Take(context.Context, ratelimit.Request) (ratelimit.Result, error) {
	return ratelimit.Result{}, fmt.Errorf("limiter: take: %w: dial tcp 127.0.0.1:6379: connection refused", store.ErrUnavailable)
}

func (d downLimiter) Usage(context.Context, string, time.Time, time.Time) ([]store.Usage, error) {
	return nil, fmt.Errorf("limiter: usage: %w", store.ErrUnavailable)
}

// namedDownLimiter names itself as the Redis driver does.
type namedDownLimiter struct{ downLimiter }

func (namedDownLimiter) Component() string { return "Redis rate limiter" }

// downQueue is a job queue whose backend refuses every job.
type downQueue struct{}

func (downQueue) Start(context.Context, RunFunc) error { return nil }
func (downQueue) Enqueue(context.Context, *store.Job) error {
	return errors.New("insert: connection refused")
}
func (downQueue) Stop(context.Context) error { return nil }
func (downQueue) Component() string          { return "job queue (River on PostgreSQL)" }

// TestOutageNamesComponent checks that a 503 names the component that
// failed, not the database whatever failed.
func TestOutageNamesComponent(t *testing.T) {
	for _, tc := range []struct {
		name    string
		opts    Options
		method  string
		path    string
		body    string
		want    string
		notWant string
	}{
		{"redis rate limiter", Options{Limiter: namedDownLimiter{}}, "GET", "/v1/analyze/site", "", "Redis rate limiter is unavailable", "database"},
		{"unnamed rate limiter", Options{Limiter: downLimiter{}}, "GET", "/v1/analyze/site", "", "rate limiter is unavailable", "database"},
		{"queue", Options{Queue: downQueue{}, AllowPrivate: true}, "POST", "/v1/analyze/site", `{"domain":"127.0.0.1:8080"}`, "job queue (River on PostgreSQL) is unavailable", "provider"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := tc.opts
			a := newTestAPI(t, &o)
			e := apiErr(t, a.call(tc.method, tc.path, a.key, tc.body), 503, CodeUnavailable)
			if !strings.Contains(e.Message, tc.want) || strings.Contains(e.Message, tc.notWant) {
				t.Errorf("message %q, want it to name %q", e.Message, tc.want)
			}
		})
	}
	// The store's own outage still says database.
	e, _ := toAPIError(fmt.Errorf("sqlstore: %w", store.ErrUnavailable))
	if !strings.Contains(e.Message, "database") {
		t.Errorf("store outage message %q, want it to name the database", e.Message)
	}
}

// TestAllowPrivateRefusesMetadataEncodings checks that a server run with
// AllowPrivate (the server's -allow-private) still refuses the IPv6
// transition encodings of the cloud metadata addresses, naming the field,
// for page and site analyses.
func TestAllowPrivateRefusesMetadataEncodings(t *testing.T) {
	a := newTestAPI(t, &Options{AllowPrivate: true, Queue: idleQueue{}})
	for _, host := range []string{
		"[64:ff9b::a9fe:a9fe]", "[64:ff9b::169.254.169.254]", "[64:ff9b:1::a9fe:a9fe]",
		"[2002:a9fe:a9fe::1]", "[::169.254.169.254]", "[64:ff9b::6464:64c8]",
		"[::ffff:0:a9fe:a9fe]", "[2001:0:4136:e378:8000:63bf:5601:5601]", "[fe80::5efe:a9fe:a9fe]",
	} {
		t.Run(host, func(t *testing.T) {
			for _, tc := range []struct{ path, body, field string }{
				{"/v1/analyze/page", `{"url":"http://` + host + `/latest/meta-data/"}`, "url"},
				{"/v1/analyze/site", `{"url":"http://` + host + `/latest/meta-data/"}`, "url"},
				{"/v1/analyze/site", `{"domain":"` + host + `"}`, "domain"},
			} {
				e := apiErr(t, a.call("POST", tc.path, a.key, tc.body), 400, CodeInvalidRequest)
				if e.Field != tc.field || !strings.Contains(e.Message, "always refused") {
					t.Errorf("%s %s: field %q message %q, want %q refused always", tc.path, tc.body, e.Field, e.Message, tc.field)
				}
			}
		})
	}
}
