package keywords_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/seokit/seokit/keywords"
	"github.com/seokit/seokit/seo"
)

// listSource answers every query with the same n phrases; the figures
// are arbitrary and only give the benchmark something to rank.
type listSource struct{ kws []keywords.Keyword }

func (l listSource) Name() string { return "bench" }
func (l listSource) Suggest(context.Context, string, seo.Locale, int) ([]keywords.Keyword, error) {
	return l.kws, nil
}
func (l listSource) Volumes(context.Context, []string, seo.Locale) ([]keywords.Keyword, error) {
	return nil, nil
}

func newListSource(n int) listSource {
	var l listSource
	for i := range n {
		v, d := 10*(n-i), i%101
		l.kws = append(l.kws, keywords.Keyword{Keyword: fmt.Sprintf("oak table %d", i), Volume: &v, Difficulty: &d,
			DifficultyMethod: "bench", Source: "bench", Estimated: true})
	}
	return l
}

// BenchmarkSuggestRepeated measures a repeated query of 50 suggestions:
// computed every time (memory cache off), served from memory as a copy
// (Suggest) and written from memory as JSON (SuggestJSON).
func BenchmarkSuggestRepeated(b *testing.B) {
	src := newListSource(50)
	ctx := context.Background()
	b.Run("no-memory", func(b *testing.B) {
		sg := keywords.NewSuggester([]keywords.Source{src}, &keywords.SuggesterOptions{MemoryCacheBytes: -1})
		b.ReportAllocs()
		for b.Loop() {
			if _, err := sg.Suggest(ctx, "oak table", enUS, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("memory-Suggest", func(b *testing.B) {
		sg := keywords.NewSuggester([]keywords.Source{src}, nil)
		b.ReportAllocs()
		for b.Loop() {
			if _, err := sg.Suggest(ctx, "oak table", enUS, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("memory-SuggestJSON", func(b *testing.B) {
		sg := keywords.NewSuggester([]keywords.Source{src}, nil)
		var buf []byte
		b.ReportAllocs()
		for b.Loop() {
			var err error
			if buf, err = sg.SuggestJSON(ctx, buf[:0], "oak table", enUS, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
}
