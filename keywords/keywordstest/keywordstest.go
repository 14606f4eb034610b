// Package keywordstest holds the conformance suites every keywords.Source
// and keywords.Cache driver runs in its tests.
package keywordstest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/seokit/seokit/internal/providertest"
	"github.com/seokit/seokit/keywords"
	"github.com/seokit/seokit/seo"
)

// Case describes the data a source under test holds.
type Case struct {
	// Seed is a phrase the source has suggestions for.
	Seed string
	// Locale is the locale of Seed and Known.
	Locale seo.Locale
	// Known are phrases the source has a volume for.
	Known []string
	// Sources are the values Keyword.Source may take; empty means only
	// the source's Name.
	Sources []string
	// With returns a new source whose provider gives the failure a to
	// every request (for HTTP drivers, an httptest server answering the
	// provider's recorded fixture); nil, or a nil source for an answer
	// the provider cannot give, skips that check.
	With func(t *testing.T, a Answer) keywords.Source
	// Secrets are credentials that no error message may contain.
	Secrets []string
}

// Answer names a failure of a source's provider, for Case.With.
type Answer string

// Provider failures RunSource asks Case.With for. Each must fail Suggest
// and Volumes with an error wrapping seo.ErrUnavailable (seo.ErrRateLimited
// for RateLimited).
const (
	// ServerError is an HTTP 5xx answer.
	ServerError Answer = providertest.ServerError
	// RateLimited is the provider's "slow down" or "out of quota" answer
	// (HTTP 429, or the provider's own status code for it).
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

// unknownPhrase is a phrase no source knows.
const unknownPhrase = "qzxv wplkj nonexistent phrase 7319"

// RunSource checks that src behaves as a keywords.Source: bounded,
// well-formed answers named after their source, errors for bad input and
// cancelled contexts, no volumes for phrases it does not know, and
// provider failures (with Case.With) that are errors wrapping
// seo.ErrUnavailable or seo.ErrRateLimited, without credentials in them.
func RunSource(t *testing.T, src keywords.Source, c Case) {
	t.Helper()
	allowed := c.Sources
	if len(allowed) == 0 {
		allowed = []string{src.Name()}
	}
	ctx := context.Background()

	t.Run("Name", func(t *testing.T) {
		if src.Name() == "" {
			t.Fatal("Name() is empty")
		}
	})

	t.Run("SuggestWellFormed", func(t *testing.T) {
		for _, limit := range []int{1, 5, 50} {
			kws, err := src.Suggest(ctx, c.Seed, c.Locale, limit)
			if err != nil {
				t.Fatalf("Suggest(%q, limit %d): %v", c.Seed, limit, err)
			}
			if len(kws) == 0 {
				t.Fatalf("Suggest(%q, limit %d) returned nothing", c.Seed, limit)
			}
			if len(kws) > limit {
				t.Errorf("Suggest(limit %d) returned %d entries", limit, len(kws))
			}
			for _, k := range kws {
				checkKeyword(t, k, allowed)
			}
		}
	})

	t.Run("SuggestBadInput", func(t *testing.T) {
		cases := []struct {
			name  string
			seed  string
			loc   seo.Locale
			limit int
			field string
		}{
			{"empty seed", "", c.Locale, 10, "query"},
			{"blank seed", "   \t ", c.Locale, 10, "query"},
			{"overlong seed", strings.Repeat("word ", 60), c.Locale, 10, "query"},
			{"zero locale", c.Seed, seo.Locale{}, 10, "locale"},
			{"unknown locale", c.Seed, seo.Locale{Language: "qq", Region: "ZZ"}, 10, "locale"},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				_, err := src.Suggest(ctx, tc.seed, tc.loc, tc.limit)
				ie, ok := seo.AsInputError(err)
				if !ok {
					t.Fatalf("Suggest(%q, %v) = %v, want *seo.InputError", tc.seed, tc.loc, err)
				}
				if ie.Field != tc.field {
					t.Errorf("field %q, want %q", ie.Field, tc.field)
				}
			})
		}
	})

	t.Run("SuggestCancelled", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if _, err := src.Suggest(cctx, c.Seed, c.Locale, 10); err == nil {
			t.Fatal("Suggest with a cancelled context returned no error")
		}
	})

	t.Run("Volumes", func(t *testing.T) {
		ask := append(slices.Clone(c.Known), unknownPhrase)
		kws, err := src.Volumes(ctx, ask, c.Locale)
		if err != nil {
			t.Fatalf("Volumes: %v", err)
		}
		got := map[string]keywords.Keyword{}
		for _, k := range kws {
			checkKeyword(t, k, allowed)
			got[keywords.FoldKey(c.Locale.Language, k.Keyword)] = k
		}
		for _, want := range c.Known {
			k, ok := got[keywords.FoldKey(c.Locale.Language, want)]
			if !ok {
				t.Errorf("Volumes left out known keyword %q", want)
				continue
			}
			if k.Volume == nil {
				t.Errorf("Volumes(%q) has no volume", want)
			}
		}
		if k, ok := got[keywords.FoldKey(c.Locale.Language, unknownPhrase)]; ok {
			t.Errorf("Volumes invented an entry for an unknown phrase: %+v", k)
		}
		if len(kws) > len(ask) {
			t.Errorf("Volumes returned %d entries for %d keywords", len(kws), len(ask))
		}
	})

	t.Run("VolumesUnknownOnly", func(t *testing.T) {
		kws, err := src.Volumes(ctx, []string{unknownPhrase}, c.Locale)
		if err != nil {
			t.Fatalf("Volumes: %v", err)
		}
		if len(kws) != 0 {
			t.Errorf("Volumes(unknown) = %+v, want nothing", kws)
		}
	})

	t.Run("VolumesTooMany", func(t *testing.T) {
		many := make([]string, keywords.MaxVolumeKeywords+1)
		for i := range many {
			many[i] = fmt.Sprintf("keyword %d", i)
		}
		_, err := src.Volumes(ctx, many, c.Locale)
		ie, ok := seo.AsInputError(err)
		if !ok || ie.Field != "keywords" {
			t.Fatalf("Volumes(%d keywords) = %v, want an input error for \"keywords\"", len(many), err)
		}
	})

	t.Run("VolumesCancelled", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if _, err := src.Volumes(cctx, c.Known, c.Locale); err == nil {
			t.Fatal("Volumes with a cancelled context returned no error")
		}
	})

	t.Run("Failures", func(t *testing.T) {
		if c.With == nil {
			t.Skip("no Case.With")
		}
		for _, f := range providertest.Failures {
			t.Run(f.Answer, func(t *testing.T) {
				s := c.With(t, Answer(f.Answer))
				if s == nil {
					t.Skipf("the provider has no %s answer", f.Answer)
				}
				kws, err := s.Suggest(ctx, c.Seed, c.Locale, 10)
				if err == nil || kws != nil {
					t.Fatalf("Suggest = %+v, %v; want an error and no keywords", kws, err)
				}
				providertest.CheckFailure(t, err, f.Is, c.Secrets)
				kws, err = s.Volumes(ctx, c.Known, c.Locale)
				if err == nil || kws != nil {
					t.Fatalf("Volumes = %+v, %v; want an error and no keywords", kws, err)
				}
				providertest.CheckFailure(t, err, f.Is, c.Secrets)
			})
		}
	})

	t.Run("ExpansionsCarryNoInventedVolume", func(t *testing.T) {
		kws, err := src.Suggest(ctx, unknownPhrase, c.Locale, 50)
		if err != nil {
			if errors.Is(err, seo.ErrInvalidInput) {
				t.Fatalf("Suggest(unknown phrase): %v", err)
			}
			t.Skipf("source has no answer for an unknown phrase: %v", err)
		}
		var exps []string
		for _, k := range kws {
			if k.Expansion && k.Volume != nil {
				exps = append(exps, k.Keyword)
			}
		}
		if len(exps) == 0 {
			return
		}
		known, err := src.Volumes(ctx, exps, c.Locale)
		if err != nil {
			t.Fatalf("Volumes: %v", err)
		}
		if len(known) != len(exps) {
			t.Errorf("expansions %q carry volumes that Volumes does not know", exps)
		}
	})
}

func checkKeyword(t *testing.T, k keywords.Keyword, allowed []string) {
	t.Helper()
	if strings.TrimSpace(k.Keyword) == "" {
		t.Errorf("empty phrase: %+v", k)
	}
	if !slices.Contains(allowed, k.Source) {
		t.Errorf("%q: Source %q, want one of %q", k.Keyword, k.Source, allowed)
	}
	if k.Volume != nil && *k.Volume < 0 {
		t.Errorf("%q: negative volume %d", k.Keyword, *k.Volume)
	}
	if k.Difficulty != nil {
		if *k.Difficulty < 0 || *k.Difficulty > 100 {
			t.Errorf("%q: difficulty %d outside 0-100", k.Keyword, *k.Difficulty)
		}
		if k.DifficultyMethod == "" {
			t.Errorf("%q: difficulty without a method", k.Keyword)
		}
	}
	if k.PaidCompetition != nil && (*k.PaidCompetition < 0 || *k.PaidCompetition > 100) {
		t.Errorf("%q: paid competition %d outside 0-100", k.Keyword, *k.PaidCompetition)
	}
	if k.Expansion && k.Volume == nil && k.Difficulty != nil {
		t.Errorf("%q: expansion without volume has a difficulty", k.Keyword)
	}
}

// RunCache checks that c behaves as a keywords.Cache: answers come back
// with their time, misses wrap seo.ErrNotFound, and answers computed with
// a smaller limit or for another locale do not count.
func RunCache(t *testing.T, c keywords.Cache) {
	t.Helper()
	ctx := context.Background()
	en := seo.Locale{Language: "en", Region: "US"}
	de := seo.Locale{Language: "de", Region: "DE"}
	v := 880
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	ans := &keywords.Suggestions{
		Query: "Trail Running", Locale: en.String(),
		Suggestions: []keywords.Keyword{{Keyword: "trail running", Volume: &v, Source: "test"}},
		Sources:     []string{"test"},
	}

	t.Run("Miss", func(t *testing.T) {
		_, err := c.GetSuggestions(ctx, "never stored phrase", en, 10)
		if !errors.Is(err, seo.ErrNotFound) {
			t.Fatalf("GetSuggestions(miss) = %v, want seo.ErrNotFound", err)
		}
	})
	t.Run("RoundTrip", func(t *testing.T) {
		if err := c.PutSuggestions(ctx, ans, 20, at); err != nil {
			t.Fatalf("PutSuggestions: %v", err)
		}
		got, err := c.GetSuggestions(ctx, "trail  running", en, 20)
		if err != nil {
			t.Fatalf("GetSuggestions: %v", err)
		}
		if !got.CachedAt.Equal(at) {
			t.Errorf("CachedAt %v, want %v", got.CachedAt, at)
		}
		if len(got.Suggestions) != 1 || got.Suggestions[0].Keyword != "trail running" || got.Suggestions[0].Volume == nil || *got.Suggestions[0].Volume != v {
			t.Errorf("suggestions %+v, want the stored one", got.Suggestions)
		}
		if got.Locale != en.String() {
			t.Errorf("locale %q", got.Locale)
		}
	})
	t.Run("SmallerLimitStored", func(t *testing.T) {
		if _, err := c.GetSuggestions(ctx, "trail running", en, 21); !errors.Is(err, seo.ErrNotFound) {
			t.Fatalf("GetSuggestions(limit 21 after a limit 20 answer) = %v, want seo.ErrNotFound", err)
		}
	})
	t.Run("OtherLocale", func(t *testing.T) {
		if _, err := c.GetSuggestions(ctx, "trail running", de, 10); !errors.Is(err, seo.ErrNotFound) {
			t.Fatalf("GetSuggestions(other locale) = %v, want seo.ErrNotFound", err)
		}
	})
	t.Run("Replace", func(t *testing.T) {
		later := at.Add(time.Hour)
		repl := *ans
		repl.Suggestions = nil
		if err := c.PutSuggestions(ctx, &repl, 20, later); err != nil {
			t.Fatalf("PutSuggestions: %v", err)
		}
		got, err := c.GetSuggestions(ctx, "trail running", en, 20)
		if err != nil {
			t.Fatalf("GetSuggestions: %v", err)
		}
		if !got.CachedAt.Equal(later) || len(got.Suggestions) != 0 {
			t.Errorf("got %v with %d suggestions, want the replacement", got.CachedAt, len(got.Suggestions))
		}
	})
}
