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
