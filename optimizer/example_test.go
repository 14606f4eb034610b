package optimizer_test

import (
	"context"
	"fmt"

	"github.com/seokit/seokit/optimizer"
)

func ExampleOptimize() {
	text := `# Brewing coffee at home

Brewing coffee at home is easy. Fresh beans and clean water make the best cup.
However, the grind matters too. A coarse grind suits a French press.`
	r, err := optimizer.Optimize(context.Background(), optimizer.Request{
		Content:  text,
		Keywords: []string{"brew coffee"},
		Locale:   "en-US",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	k := r.Keyphrases[0]
	fmt.Println(r.Format, r.Detected.Language, r.Stats.Words, r.Stats.Sentences)
	fmt.Println(k.Occurrences, k.Forms, k.InIntroduction)
	fmt.Println(r.Suggestions.Slug)
	// Output:
	// markdown en 27 4
	// 1 [brewing coffee] true
	// brew-coffee
}

func ExampleOptimize_badLocale() {
	_, err := optimizer.Optimize(context.Background(), optimizer.Request{Content: "Hello.", Locale: "english"})
	fmt.Println(err)
	// Output:
	// seo: invalid locale: must have the form xx-XX, a two-letter language and a two-letter region, such as en-US (got "english")
}
