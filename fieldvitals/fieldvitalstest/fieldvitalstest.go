// Package fieldvitalstest is the conformance suite of fieldvitals.Source
// drivers: RunSource asks a driver and its (fake) provider for a URL and
// an origin record, a record and a history with partial data, "no data"
// (which must be the insufficient_data state, never zeros), bad input,
// every provider failure, slow answers ended by the caller's context,
// cancellation and concurrent calls, and checks each call costs exactly
// one provider request.
package fieldvitalstest

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/seokit/seokit/fieldvitals"
	"github.com/seokit/seokit/internal/providertest"
	"github.com/seokit/seokit/seo"
)

// Answer names an answer of the provider, for Case.With.
type Answer string

// Provider answers RunSource asks Case.With for.
const (
	// NoData is the provider's "no data" for the URL or origin (CrUX 404).
	NoData Answer = "no data"
	// Partial is a success in which some metrics are missing (INP and
	// TTFB), and history periods without values.
	Partial      Answer = "partial"
	ServerError  Answer = providertest.ServerError
	RateLimited  Answer = providertest.RateLimited
	Unauthorized Answer = providertest.Unauthorized
	Garbage      Answer = providertest.Garbage
	Truncated    Answer = providertest.Truncated
	Slow         Answer = providertest.Slow
)

// Case describes what RunSource asks.
type Case struct {
	// URL and Origin are a URL and an origin the provider has data for.
	URL, Origin string
	// Want, when set, is the expected record of URL on phones.
	Want *fieldvitals.Record
	// With returns a new source whose provider gives answer a.
	With func(t *testing.T, a Answer) fieldvitals.Source
	// Requests counts the requests the tested source has sent.
	Requests func() int
	// Secrets are credentials no error may contain.
	Secrets []string
}

// RunSource runs the conformance suite on src.
func RunSource(t *testing.T, src fieldvitals.Source, c Case) {
	ctx := context.Background()
	if src.Name() == "" {
		t.Error("Name() is empty")
	}
	t.Run("Record", func(t *testing.T) {
		before := c.Requests()
		r, err := src.Record(ctx, fieldvitals.Query{URL: c.URL, FormFactor: fieldvitals.Phone})
		if err != nil {
			t.Fatal(err)
		}
		if n := c.Requests() - before; n != 1 {
			t.Errorf("one record cost %d requests, want 1", n)
		}
		checkRecord(t, r)
		if c.Want != nil {
			if got, want := jsonOf(r), jsonOf(c.Want); got != want {
				t.Errorf("Record =\n%s\nwant\n%s", got, want)
			}
		}
	})
	t.Run("Origin", func(t *testing.T) {
		r, err := src.Record(ctx, fieldvitals.Query{Origin: c.Origin})
		if err != nil {
			t.Fatal(err)
		}
		checkRecord(t, r)
		if r.Status != fieldvitals.StatusOK || r.Query.Origin == "" {
			t.Errorf("origin record %s", jsonOf(r))
		}
	})
	t.Run("History", func(t *testing.T) {
		h, err := src.History(ctx, fieldvitals.Query{Origin: c.Origin, FormFactor: fieldvitals.Desktop})
		if err != nil {
			t.Fatal(err)
		}
		if h.Status != fieldvitals.StatusOK || len(h.Periods) == 0 || len(h.Metrics) == 0 {
			t.Fatalf("History = %s; want periods and metrics", jsonOf(h))
		}
		for _, s := range h.Metrics {
			if len(s.P75) != len(h.Periods) {
				t.Errorf("%s has %d values for %d periods", s.Name, len(s.P75), len(h.Periods))
			}
		}
	})
	t.Run("NoData", func(t *testing.T) {
		s := with(t, c, NoData)
		r, err := s.Record(ctx, fieldvitals.Query{URL: c.URL})
		if err != nil {
			t.Fatalf("no data must be a state, not an error: %v", err)
		}
		if r.Status != fieldvitals.StatusInsufficient || r.Period != nil || len(r.Metrics) != 0 {
			t.Errorf("no-data record = %s; want insufficient_data with no figures (never zeros)", jsonOf(r))
		}
		h, err := s.History(ctx, fieldvitals.Query{URL: c.URL})
		if err != nil {
			t.Fatalf("History without data: %v", err)
		}
		if h.Status != fieldvitals.StatusInsufficient || len(h.Metrics) != 0 {
			t.Errorf("no-data history = %s", jsonOf(h))
		}
	})
	t.Run("Partial", func(t *testing.T) {
		s := with(t, c, Partial)
		r, err := s.Record(ctx, fieldvitals.Query{URL: c.URL})
		if err != nil {
			t.Fatal(err)
		}
		checkRecord(t, r)
		missing, present := 0, 0
		for _, m := range r.Metrics {
			if m.Status == fieldvitals.StatusInsufficient {
				missing++
			} else {
				present++
			}
		}
		if missing == 0 || present == 0 {
			t.Errorf("partial record = %s; want some metrics insufficient_data (no p75) and some with data", jsonOf(r))
		}
		h, err := s.History(ctx, fieldvitals.Query{URL: c.URL})
		if err != nil {
			t.Fatal(err)
		}
		gaps := 0
		for _, sr := range h.Metrics {
			for _, v := range sr.P75 {
				if v == nil {
					gaps++
				}
			}
		}
		if gaps == 0 {
			t.Errorf("partial history has no gaps (nil values): %s", jsonOf(h))
		}
	})
	t.Run("BadInput", func(t *testing.T) {
		before := c.Requests()
		for _, tc := range []struct {
			name  string
			q     fieldvitals.Query
			field string
		}{
			{"nothing", fieldvitals.Query{}, "url"},
			{"both", fieldvitals.Query{URL: c.URL, Origin: c.Origin}, "origin"},
			{"relative url", fieldvitals.Query{URL: "/page"}, "url"},
			{"origin with path", fieldvitals.Query{Origin: c.Origin + "/page"}, "origin"},
			{"form factor", fieldvitals.Query{URL: c.URL, FormFactor: "WATCH"}, "formFactor"},
		} {
			r, err := src.Record(ctx, tc.q)
			ie, ok := seo.AsInputError(err)
			if !ok || r != nil || ie.Field != tc.field {
				t.Errorf("%s: Record = %v, %v; want an *seo.InputError for %q", tc.name, r, err, tc.field)
			}
			h, err := src.History(ctx, tc.q)
			if ie, ok := seo.AsInputError(err); !ok || h != nil || ie.Field != tc.field {
				t.Errorf("%s: History = %v, %v; want an *seo.InputError for %q", tc.name, h, err, tc.field)
			}
		}
		if n := c.Requests() - before; n != 0 {
			t.Errorf("bad input sent %d requests", n)
		}
	})
	t.Run("Failures", func(t *testing.T) {
		for _, f := range providertest.Failures {
			t.Run(f.Answer, func(t *testing.T) {
				s := with(t, c, Answer(f.Answer))
				cctx := ctx
				if Answer(f.Answer) == Slow {
					var cancel context.CancelFunc
					cctx, cancel = context.WithTimeout(ctx, 50*time.Millisecond)
					defer cancel()
				}
				r, err := s.Record(cctx, fieldvitals.Query{URL: c.URL})
				if err == nil || r != nil {
					t.Fatalf("Record = %v, %v; want an error", r, err)
				}
				providertest.CheckFailure(t, err, f.Is, c.Secrets)
				if Answer(f.Answer) == Slow && !errors.Is(err, context.DeadlineExceeded) {
					t.Errorf("slow answer error %q does not wrap context.DeadlineExceeded", err)
				}
				h, err := s.History(cctx, fieldvitals.Query{URL: c.URL})
				if err == nil || h != nil {
					t.Fatalf("History = %v, %v; want an error", h, err)
				}
			})
		}
	})
	t.Run("Canceled", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if r, err := src.Record(cctx, fieldvitals.Query{URL: c.URL}); err == nil || r != nil || !errors.Is(err, context.Canceled) {
			t.Errorf("Record with a cancelled context = %v, %v", r, err)
		}
	})
	t.Run("Concurrent", func(t *testing.T) {
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		for range 8 {
			wg.Go(func() {
				if _, err := src.Record(ctx, fieldvitals.Query{Origin: c.Origin}); err != nil {
					errs <- err
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
	})
}

// checkRecord checks a record's shape: metrics in order, figures only with
// data, ratings that match the p75.
func checkRecord(t *testing.T, r *fieldvitals.Record) {
	t.Helper()
	if r.Status != fieldvitals.StatusOK {
		t.Fatalf("record status %q, want ok: %s", r.Status, jsonOf(r))
	}
	if r.Period == nil || r.Period.First > r.Period.Last {
		t.Errorf("record period %+v", r.Period)
	}
	if len(r.Metrics) != len(fieldvitals.Metrics) {
		t.Fatalf("%d metrics, want %d (each with a status)", len(r.Metrics), len(fieldvitals.Metrics))
	}
	for i, m := range r.Metrics {
		if m.Name != fieldvitals.Metrics[i] {
			t.Errorf("metric %d is %q, want %q", i, m.Name, fieldvitals.Metrics[i])
		}
		switch m.Status {
		case fieldvitals.StatusOK:
			if m.P75 == nil || m.Rating != fieldvitals.Rate(m.Name, *m.P75) || len(m.Histogram) == 0 {
				t.Errorf("metric %s: %s", m.Name, jsonOf(m))
			}
			sum := 0.0
			for _, b := range m.Histogram {
				sum += b.Density
			}
			if sum < 0.98 || sum > 1.02 {
				t.Errorf("metric %s densities sum to %.3f", m.Name, sum)
			}
		case fieldvitals.StatusInsufficient:
			if m.P75 != nil || m.Rating != "" || len(m.Histogram) != 0 {
				t.Errorf("metric %s without data has figures: %s", m.Name, jsonOf(m))
			}
		default:
			t.Errorf("metric %s status %q", m.Name, m.Status)
		}
	}
}

func with(t *testing.T, c Case, a Answer) fieldvitals.Source {
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
