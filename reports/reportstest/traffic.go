package reportstest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/seokit/seokit/internal/providertest"
	"github.com/seokit/seokit/reports"
	"github.com/seokit/seokit/seo"
)

// Answer names an answer of a TrafficSource's provider other than the
// traffic of TrafficCase, for TrafficCase.With.
type Answer string

// Provider answers RunTrafficSource asks TrafficCase.With for.
const (
	// Empty is a success with no data for the range.
	Empty Answer = providertest.Empty
	// ServerError is an HTTP 5xx answer.
	ServerError Answer = providertest.ServerError
	// RateLimited is the provider's "slow down" or "out of quota" answer
	// (HTTP 429, RESOURCE_EXHAUSTED).
	RateLimited Answer = providertest.RateLimited
	// Unauthorized is the provider rejecting the credentials (HTTP 401 or
	// 403).
	Unauthorized Answer = providertest.Unauthorized
	// Garbage is a success whose body is not in the provider's format.
	Garbage Answer = providertest.Garbage
	// Truncated is a success whose body is cut short.
	Truncated Answer = providertest.Truncated
	// Slow is an answer that arrives after the source's timeout.
	Slow Answer = providertest.Slow
)

// TrafficCase describes what RunTrafficSource asks a TrafficSource and
// its provider.
type TrafficCase struct {
	// Domain is a domain the source measures; Start and End the UTC days
	// of a range it has data for.
	Domain     string
	Start, End time.Time
	// Want, when set, is the traffic expected for Domain over the range
	// (its Source is the source's Name).
	Want *reports.Traffic
	// With returns a new source whose provider gives answer a to every
	// request; nil, or a nil source for an answer the provider cannot
	// give, skips that check.
	With func(t *testing.T, a Answer) reports.TrafficSource
	// Requests, when set, counts the requests the tested source has sent
	// to its provider: bad input must send none.
	Requests func() int
	// Secrets are credentials that no error message may contain.
	Secrets []string
}

// RunTrafficSource runs the TrafficSource conformance suite; see the
// package documentation.
func RunTrafficSource(t *testing.T, src reports.TrafficSource, c TrafficCase) {
	ctx := context.Background()
	t.Run("Traffic", func(t *testing.T) {
		tr := traffic(t, src, c.Domain, c.Start, c.End)
		if c.Want != nil {
			if got, want := jsonOf(tr), jsonOf(c.Want); got != want {
				t.Errorf("Traffic =\n%s\nwant\n%s", got, want)
			}
		}
		if len(tr.Daily) == 0 {
			t.Error("Traffic has no days; TrafficCase needs a range with data")
		}
	})
	t.Run("Empty", func(t *testing.T) {
		e := with(t, c, Empty)
		tr := traffic(t, e, c.Domain, c.Start, c.End)
		if tr.Clicks != nil || tr.Impressions != nil || tr.CTR != nil || tr.Sessions != nil || len(tr.Daily) != 0 {
			t.Errorf("Traffic without data = %s, want no figures (nil, never 0)", jsonOf(tr))
		}
	})
	t.Run("BadInput", func(t *testing.T) {
		before := 0
		if c.Requests != nil {
			before = c.Requests()
		}
		cases := []struct {
			name       string
			domain     string
			start, end time.Time
			field      string
		}{
			{"empty domain", "", c.Start, c.End, "domain"},
			{"domain with scheme", "https://" + c.Domain, c.Start, c.End, "domain"},
			{"start after end", c.Domain, c.End.AddDate(0, 0, 1), c.End, "start"},
			{"missing start", c.Domain, time.Time{}, c.End, "start"},
			{"missing end", c.Domain, c.Start, time.Time{}, "end"},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				tr, err := src.Traffic(ctx, tc.domain, tc.start, tc.end)
				ie, ok := seo.AsInputError(err)
				if !ok || !errors.Is(err, seo.ErrInvalidInput) {
					t.Fatalf("Traffic(%q, %v, %v) = %+v, %v; want an *seo.InputError", tc.domain, tc.start, tc.end, tr, err)
				}
				if ie.Field != tc.field {
					t.Errorf("Field = %q, want %q", ie.Field, tc.field)
				}
				if tr != nil {
					t.Errorf("bad input returned traffic %+v", tr)
				}
			})
		}
		if c.Requests != nil {
			if n := c.Requests() - before; n != 0 {
				t.Errorf("bad input sent %d requests to the provider", n)
			}
		}
	})
	t.Run("Failures", func(t *testing.T) {
		for _, f := range providertest.Failures {
			t.Run(f.Answer, func(t *testing.T) {
				s := with(t, c, Answer(f.Answer))
				tr, err := s.Traffic(ctx, c.Domain, c.Start, c.End)
				if err == nil || tr != nil {
					t.Fatalf("Traffic = %+v, %v; want an error and no traffic", tr, err)
				}
				providertest.CheckFailure(t, err, f.Is, c.Secrets)
			})
		}
	})
	t.Run("Canceled", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		tr, err := src.Traffic(cctx, c.Domain, c.Start, c.End)
		if err == nil || tr != nil {
			t.Fatalf("Traffic with a cancelled context = %+v, %v; want an error and no traffic", tr, err)
		}
	})
	t.Run("Concurrent", func(t *testing.T) {
		want := jsonOf(traffic(t, src, c.Domain, c.Start, c.End))
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 2 {
					tr, err := src.Traffic(ctx, c.Domain, c.Start, c.End)
					if err != nil {
						errs <- err
						return
					}
					if got := jsonOf(tr); got != want {
						errs <- fmt.Errorf("concurrent Traffic got\n%s want\n%s", got, want)
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
	})
}

// with returns c.With(t, a), skipping t when there is none.
func with(t *testing.T, c TrafficCase, a Answer) reports.TrafficSource {
	t.Helper()
	if c.With == nil {
		t.Skip("no TrafficCase.With")
	}
	s := c.With(t, a)
	if s == nil {
		t.Skipf("the provider has no %s answer", a)
	}
	return s
}

// traffic asks src and checks the answer's shape: its source, its days and
// its totals.
func traffic(t *testing.T, src reports.TrafficSource, domain string, start, end time.Time) *reports.Traffic {
	t.Helper()
	tr, err := src.Traffic(context.Background(), domain, start, end)
	if err != nil {
		t.Fatalf("Traffic(%q, %v, %v): %v", domain, start, end, err)
	}
	if tr == nil {
		t.Fatal("Traffic returned nil and no error")
	}
	if tr.Source != src.Name() || src.Name() == "" {
		t.Errorf("Traffic.Source = %q, Name() = %q; want equal, non-empty", tr.Source, src.Name())
	}
	first, last := start.UTC().Format(time.DateOnly), end.UTC().Format(time.DateOnly)
	var clicks, impr, sessions int
	prev := ""
	for i, d := range tr.Daily {
		if _, err := time.Parse(time.DateOnly, d.Date); err != nil {
			t.Errorf("Daily[%d].Date = %q, not YYYY-MM-DD", i, d.Date)
		}
		if d.Date <= prev {
			t.Errorf("Daily[%d].Date = %s after %s; want ascending days without repeats", i, d.Date, prev)
		}
		prev = d.Date
		if d.Date < first || d.Date > last {
			t.Errorf("Daily[%d].Date = %s outside %s..%s", i, d.Date, first, last)
		}
		clicks += day(t, i, "clicks", d.Clicks, tr.Clicks)
		impr += day(t, i, "impressions", d.Impressions, tr.Impressions)
		sessions += day(t, i, "sessions", d.Sessions, tr.Sessions)
	}
	total(t, "Clicks", tr.Clicks, clicks)
	total(t, "Impressions", tr.Impressions, impr)
	total(t, "Sessions", tr.Sessions, sessions)
	switch {
	case tr.CTR != nil && (tr.Clicks == nil || tr.Impressions == nil || *tr.Impressions == 0):
		t.Errorf("CTR %v without clicks and impressions", *tr.CTR)
	case tr.CTR != nil && math.Abs(*tr.CTR-float64(*tr.Clicks)/float64(*tr.Impressions)) > 1e-9:
		t.Errorf("CTR = %v, want clicks / impressions = %d / %d", *tr.CTR, *tr.Clicks, *tr.Impressions)
	case tr.CTR == nil && tr.Clicks != nil && tr.Impressions != nil && *tr.Impressions > 0:
		t.Errorf("CTR is missing for %d clicks of %d impressions", *tr.Clicks, *tr.Impressions)
	}
	return tr
}

// day returns a day's figure, checking it is measured only when its total
// is and is not negative.
func day(t *testing.T, i int, name string, v, total *int) int {
	t.Helper()
	if v == nil {
		return 0
	}
	if total == nil {
		t.Errorf("Daily[%d] has %s but the total has none", i, name)
	}
	if *v < 0 {
		t.Errorf("Daily[%d] has %d %s", i, *v, name)
	}
	return *v
}

func total(t *testing.T, name string, v *int, sum int) {
	t.Helper()
	if v != nil && *v != sum {
		t.Errorf("%s = %d, want the sum of the days %d", name, *v, sum)
	}
}

func jsonOf(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return err.Error()
	}
	return string(b)
}
