package rankingstest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/seokit/seokit/internal/providertest"
	"github.com/seokit/seokit/rankings"
	"github.com/seokit/seokit/seo"
)

// Answer names an answer of a Source's provider other than the results
// of SourceCase.Query, for SourceCase.With.
type Answer string

// Provider answers RunSource asks SourceCase.With for.
const (
	// Empty is the provider's documented "nothing found" answer: a
	// success with no organic results.
	Empty Answer = providertest.Empty
	// ServerError is an HTTP 5xx answer.
	ServerError Answer = providertest.ServerError
	// RateLimited is the provider's "slow down" or "out of quota" answer
	// (HTTP 429, or the provider's own status code for it).
	RateLimited Answer = providertest.RateLimited
	// Unauthorized is the provider rejecting the credentials (HTTP 401 or
	// 403).
	Unauthorized Answer = providertest.Unauthorized
	// Garbage is a success whose body is not in the provider's format
	// (an HTML error page).
	Garbage Answer = providertest.Garbage
	// Truncated is a success whose body is cut short.
	Truncated Answer = providertest.Truncated
	// Slow is an answer that arrives after the Source's timeout.
	Slow Answer = providertest.Slow
)

// SourceCase describes what RunSource asks a Source and its provider.
type SourceCase struct {
	// Query is a query whose leading organic results are known. Its
	// Locale and Device are ones the source supports.
	Query rankings.Query
	// Want is a prefix of the organic results expected for Query (compared
	// by Position and URL).
	Want []rankings.Result
	// ShallowDepth, when positive, is a Depth smaller than the number of
	// results Query finds: asking with it must return the results within
	// that depth (a source of averages, such as Search Console, is exempt
	// from the cut).
	ShallowDepth int
	// With returns a new Source whose provider gives answer a to every
	// request (for HTTP drivers, an httptest server answering the
	// provider's recorded fixture); nil, or a nil Source for an answer
	// the provider cannot give, skips that check.
	With func(t *testing.T, a Answer) rankings.Source
	// Requests, when set, counts the requests the tested Source has sent
	// to its provider: bad input must send none.
	Requests func() int
	// Secrets are credentials that no error message may contain.
	Secrets []string
}

// RunSource runs the Source conformance suite:
//
//   - Search: positions are 1-based and increasing, every result has a
//     URL and lies within SERP.Depth, the results start with c.Want,
//     SERP.Source is src.Name(), and a search with a Depth returns no
//     result beyond it (unless SERP.Average);
//   - Depth: a search with c.ShallowDepth returns the full search's
//     results within that depth;
//   - Empty: a provider that found nothing gives an empty SERP (not nil
//     Results) and no error;
//   - BadInput: an empty keyword, an unknown device and a negative depth
//     are *seo.InputError values naming "keyword", "device" and "depth",
//     and reach no provider;
//   - Failures: provider failures are errors wrapping seo.ErrUnavailable
//     (seo.ErrRateLimited for a rate limit), never an empty SERP, and
//     carry no credentials;
//   - Canceled: a cancelled context is an error;
//   - Concurrent: concurrent searches agree (run it with -race).
func RunSource(t *testing.T, src rankings.Source, c SourceCase) {
	ctx := context.Background()
	t.Run("Search", func(t *testing.T) {
		serp := search(t, src, c.Query)
		if len(serp.Results) < len(c.Want) {
			t.Fatalf("got %d results, want at least %d", len(serp.Results), len(c.Want))
		}
		for i, w := range c.Want {
			if g := serp.Results[i]; g.Position != w.Position || g.URL != w.URL {
				t.Errorf("Results[%d] = %d %s, want %d %s", i, g.Position, g.URL, w.Position, w.URL)
			}
		}
		if serp.Query.Keyword != "" && serp.Query.Keyword != c.Query.Keyword {
			t.Errorf("SERP.Query.Keyword = %q, want %q", serp.Query.Keyword, c.Query.Keyword)
		}
	})
	t.Run("Depth", func(t *testing.T) {
		if c.ShallowDepth <= 0 {
			t.Skip("no ShallowDepth given")
		}
		full := search(t, src, c.Query)
		q := c.Query
		q.Depth = c.ShallowDepth
		serp := search(t, src, q)
		if serp.Average {
			return
		}
		var want []rankings.Result
		for _, r := range full.Results {
			if r.Position <= q.Depth {
				want = append(want, r)
			}
		}
		if got, w := results(serp.Results), results(want); got != w {
			t.Errorf("Depth %d: results\n%s want the full search's within the depth:\n%s", q.Depth, got, w)
		}
		if serp.Depth > q.Depth {
			t.Errorf("SERP.Depth = %d, beyond the %d asked", serp.Depth, q.Depth)
		}
	})
	t.Run("Empty", func(t *testing.T) {
		e := with(t, c, Empty)
		serp := search(t, e, c.Query)
		if serp.Results == nil || len(serp.Results) != 0 {
			t.Errorf("Results = %#v, want an empty, non-nil list", serp.Results)
		}
	})
	t.Run("BadInput", func(t *testing.T) {
		before := 0
		if c.Requests != nil {
			before = c.Requests()
		}
		cases := []struct {
			name  string
			edit  func(q *rankings.Query)
			field string
		}{
			{"empty keyword", func(q *rankings.Query) { q.Keyword = " \t " }, "keyword"},
			{"unknown device", func(q *rankings.Query) { q.Device = "tablet" }, "device"},
			{"negative depth", func(q *rankings.Query) { q.Depth = -1 }, "depth"},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				q := c.Query
				tc.edit(&q)
				serp, err := src.Search(ctx, q)
				ie, ok := seo.AsInputError(err)
				if !ok || !errors.Is(err, seo.ErrInvalidInput) {
					t.Fatalf("Search(%+v) = %+v, %v; want an *seo.InputError", q, serp, err)
				}
				if ie.Field != tc.field {
					t.Errorf("Field = %q, want %q", ie.Field, tc.field)
				}
				if serp != nil {
					t.Errorf("bad input returned a SERP %+v", serp)
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
				serp, err := s.Search(ctx, c.Query)
				if err == nil || serp != nil {
					t.Fatalf("Search = %+v, %v; want an error and no SERP", serp, err)
				}
				providertest.CheckFailure(t, err, f.Is, c.Secrets)
			})
		}
	})
	t.Run("Canceled", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		serp, err := src.Search(cctx, c.Query)
		if err == nil || serp != nil {
			t.Fatalf("Search with a cancelled context = %+v, %v; want an error and no SERP", serp, err)
		}
	})
	t.Run("Concurrent", func(t *testing.T) {
		want := results(search(t, src, c.Query).Results)
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 2 {
					serp, err := src.Search(ctx, c.Query)
					if err != nil {
						errs <- err
						return
					}
					if got := results(serp.Results); got != want {
						errs <- fmt.Errorf("concurrent search got\n%s want\n%s", got, want)
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
func with(t *testing.T, c SourceCase, a Answer) rankings.Source {
	t.Helper()
	if c.With == nil {
		t.Skip("no SourceCase.With")
	}
	s := c.With(t, a)
	if s == nil {
		t.Skipf("the provider has no %s answer", a)
	}
	return s
}

// search runs q and checks the SERP's shape.
func search(t *testing.T, src rankings.Source, q rankings.Query) *rankings.SERP {
	t.Helper()
	serp, err := src.Search(context.Background(), q)
	if err != nil {
		t.Fatalf("Search(%+v): %v", q, err)
	}
	if serp == nil {
		t.Fatal("Search returned a nil SERP and no error")
	}
	if serp.Source != src.Name() || src.Name() == "" {
		t.Errorf("SERP.Source = %q, Name() = %q; want equal, non-empty", serp.Source, src.Name())
	}
	if serp.Depth < len(serp.Results) {
		t.Errorf("SERP.Depth = %d < %d results", serp.Depth, len(serp.Results))
	}
	prev := 0
	for i, r := range serp.Results {
		if r.Position <= prev {
			t.Errorf("Results[%d].Position = %d after %d; want 1-based increasing organic ranks", i, r.Position, prev)
		}
		prev = r.Position
		if r.URL == "" {
			t.Errorf("Results[%d] has no URL", i)
		}
		if r.Position > serp.Depth {
			t.Errorf("Results[%d].Position = %d beyond SERP.Depth %d", i, r.Position, serp.Depth)
		}
		if q.Depth > 0 && r.Position > q.Depth && !serp.Average {
			t.Errorf("Results[%d].Position = %d beyond the depth %d asked", i, r.Position, q.Depth)
		}
	}
	return serp
}

func results(rs []rankings.Result) string {
	var b strings.Builder
	for _, r := range rs {
		fmt.Fprintf(&b, "%d %s\n", r.Position, r.URL)
	}
	return b.String()
}
