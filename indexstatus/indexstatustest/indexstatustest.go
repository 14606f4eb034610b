// Package indexstatustest is the conformance suite of indexstatus.Inspector
// drivers: RunInspector asks a driver and its (fake) provider for a known
// answer, partial answers, bad input, every provider failure, slow answers
// ended by the caller's context, cancellation and concurrent calls, and
// checks that each inspection costs exactly one provider request (the unit
// the run charges against quotas).
package indexstatustest

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/seokit/seokit/indexstatus"
	"github.com/seokit/seokit/internal/providertest"
	"github.com/seokit/seokit/seo"
)

// Answer names an answer of the provider, for Case.With.
type Answer string

// Provider answers RunInspector asks Case.With for.
const (
	// Partial is a success that leaves optional fields out (no last crawl
	// time, no Google canonical, no sitemaps).
	Partial Answer = "partial"
	// NoResult is a success without an indexStatusResult.
	NoResult Answer = "no result"
	// ServerError, RateLimited, Unauthorized, Garbage, Truncated and Slow
	// are the failures of providertest.
	ServerError  Answer = providertest.ServerError
	RateLimited  Answer = providertest.RateLimited
	Unauthorized Answer = providertest.Unauthorized
	Garbage      Answer = providertest.Garbage
	Truncated    Answer = providertest.Truncated
	Slow         Answer = providertest.Slow
)

// Case describes what RunInspector asks an Inspector.
type Case struct {
	// Property and URL are a property and a URL under it the provider
	// knows; Outside is a URL of another site.
	Property, URL, Outside string
	// Want, when set, is the expected inspection of URL.
	Want *indexstatus.Inspection
	// With returns a new inspector whose provider gives answer a to every
	// request; nil, or a nil inspector, skips that check.
	With func(t *testing.T, a Answer) indexstatus.Inspector
	// Requests counts the requests the tested inspector has sent.
	Requests func() int
	// Secrets are credentials no error may contain.
	Secrets []string
}

// RunInspector runs the conformance suite on ins.
func RunInspector(t *testing.T, ins indexstatus.Inspector, c Case) {
	ctx := context.Background()
	if ins.Name() == "" {
		t.Error("Name() is empty")
	}
	t.Run("Inspect", func(t *testing.T) {
		before := c.Requests()
		in, err := ins.Inspect(ctx, c.Property, c.URL)
		if err != nil {
			t.Fatalf("Inspect: %v", err)
		}
		if n := c.Requests() - before; n != 1 {
			t.Errorf("one inspection sent %d requests, want 1: the cost counted per inspection would be wrong", n)
		}
		if c.Want != nil {
			if got, want := jsonOf(in), jsonOf(c.Want); got != want {
				t.Errorf("Inspect =\n%s\nwant\n%s", got, want)
			}
		}
		if in.URL == "" {
			t.Error("Inspection.URL is empty")
		}
	})
	t.Run("Partial", func(t *testing.T) {
		p := with(t, c, Partial)
		in, err := p.Inspect(ctx, c.Property, c.URL)
		if err != nil {
			t.Fatalf("Inspect with a partial answer: %v", err)
		}
		if in.LastCrawl != nil || in.GoogleCanonical != "" || len(in.Sitemaps) != 0 {
			t.Errorf("partial answer gave %s; want absent fields absent (nil, empty), never guessed", jsonOf(in))
		}
		if in.Verdict == "" && in.Coverage == "" {
			t.Errorf("partial answer lost the fields it had: %s", jsonOf(in))
		}
	})
	t.Run("NoResult", func(t *testing.T) {
		p := with(t, c, NoResult)
		in, err := p.Inspect(ctx, c.Property, c.URL)
		if err == nil || in != nil {
			t.Fatalf("Inspect without indexStatusResult = %+v, %v; want an error", in, err)
		}
		providertest.CheckFailure(t, err, seo.ErrUnavailable, c.Secrets)
	})
	t.Run("BadInput", func(t *testing.T) {
		before := c.Requests()
		for _, tc := range []struct{ name, property, url, field string }{
			{"empty property", "", c.URL, "property"},
			{"bad property", "example", c.URL, "property"},
			{"empty url", c.Property, "", "url"},
			{"relative url", c.Property, "/page", "url"},
			{"url outside the property", c.Property, c.Outside, "url"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				in, err := ins.Inspect(ctx, tc.property, tc.url)
				ie, ok := seo.AsInputError(err)
				if !ok || in != nil {
					t.Fatalf("Inspect(%q, %q) = %+v, %v; want an *seo.InputError", tc.property, tc.url, in, err)
				}
				if ie.Field != tc.field {
					t.Errorf("Field = %q, want %q", ie.Field, tc.field)
				}
			})
		}
		if n := c.Requests() - before; n != 0 {
			t.Errorf("bad input sent %d requests to the provider", n)
		}
	})
	t.Run("Failures", func(t *testing.T) {
		for _, f := range providertest.Failures {
			t.Run(f.Answer, func(t *testing.T) {
				s := with(t, c, Answer(f.Answer))
				cctx := ctx
				if Answer(f.Answer) == Slow {
					// The provider answers only when the request ends: the
					// caller's deadline must end the call.
					var cancel context.CancelFunc
					cctx, cancel = context.WithTimeout(ctx, 50*time.Millisecond)
					defer cancel()
				}
				in, err := s.Inspect(cctx, c.Property, c.URL)
				if err == nil || in != nil {
					t.Fatalf("Inspect = %+v, %v; want an error and no inspection", in, err)
				}
				providertest.CheckFailure(t, err, f.Is, c.Secrets)
				if Answer(f.Answer) == Slow && !errors.Is(err, context.DeadlineExceeded) {
					t.Errorf("slow answer error %q does not wrap context.DeadlineExceeded", err)
				}
			})
		}
	})
	t.Run("Canceled", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		in, err := ins.Inspect(cctx, c.Property, c.URL)
		if err == nil || in != nil {
			t.Fatalf("Inspect with a cancelled context = %+v, %v; want an error", in, err)
		}
		if !errors.Is(err, context.Canceled) {
			t.Errorf("error %q does not wrap context.Canceled", err)
		}
	})
	t.Run("Concurrent", func(t *testing.T) {
		first, err := ins.Inspect(ctx, c.Property, c.URL)
		if err != nil {
			t.Fatal(err)
		}
		want := jsonOf(first)
		var wg sync.WaitGroup
		errs := make(chan string, 8)
		for range 8 {
			wg.Go(func() {
				in, err := ins.Inspect(ctx, c.Property, c.URL)
				if err != nil {
					errs <- err.Error()
				} else if got := jsonOf(in); got != want {
					errs <- "concurrent Inspect got " + got
				}
			})
		}
		wg.Wait()
		close(errs)
		for e := range errs {
			t.Error(e)
		}
	})
}

func with(t *testing.T, c Case, a Answer) indexstatus.Inspector {
	t.Helper()
	if c.With == nil {
		t.Skip("no Case.With")
	}
	s := c.With(t, a)
	if s == nil {
		t.Skipf("the provider has no %s answer", a)
	}
	return s
}

func jsonOf(v any) string {
	b, _ := json.MarshalIndent(v, "", "  ")
	return string(b)
}

// CheckRateLimited reports on t unless err is a provider quota refusal.
func CheckRateLimited(t *testing.T, err error) {
	t.Helper()
	providertest.CheckFailure(t, err, seo.ErrRateLimited, nil)
}
