package keywords_test

import (
	"context"
	"fmt"

	"github.com/seokit/seokit/keywords"
	"github.com/seokit/seokit/seo"
)

// table is a tiny in-memory Source for the example.
type table map[string]int

func (t table) Name() string { return "example" }

func (t table) Suggest(ctx context.Context, seed string, loc seo.Locale, limit int) ([]keywords.Keyword, error) {
	var out []keywords.Keyword
	for _, p := range []string{"running shoes", "trail running shoes", "Running Shoe"} {
		v := t[p]
		out = append(out, keywords.Keyword{Keyword: p, Volume: &v, Source: t.Name()})
	}
	return out, nil
}

func (t table) Volumes(ctx context.Context, kws []string, loc seo.Locale) ([]keywords.Keyword, error) {
	return nil, nil
}

func ExampleSuggester_Suggest() {
	src := table{"running shoes": 90500, "trail running shoes": 40500, "Running Shoe": 100}
	sg := keywords.NewSuggester([]keywords.Source{src}, nil)
	loc, _ := seo.ParseLocale("en-US")
	res, err := sg.Suggest(context.Background(), "running shoes", loc, &keywords.SuggestOptions{Limit: 10})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, k := range res.Suggestions {
		fmt.Println(k.Keyword, *k.Volume, k.Source)
	}
	// Output:
	// running shoes 90500 example
	// trail running shoes 40500 example
}

func ExampleFoldKey() {
	fmt.Println(keywords.FoldKey("en", "Running Shoes"))
	fmt.Println(keywords.FoldKey("de", "Laufschuhe für Damen"))
	// Output:
	// run shoe
	// laufschuh fur dam
}
