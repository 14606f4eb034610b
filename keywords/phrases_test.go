package keywords_test

import (
	"slices"
	"testing"

	"github.com/seokit/seokit/keywords"
)

// TestPhrases: runs of content words between function words and
// punctuation, connectors only inside, German phrases ending with a
// capitalised noun; a language without lists has none.
func TestPhrases(t *testing.T) {
	tests := []struct {
		lang, text string
		want, not  []string
	}{
		{"en", "We grow organic green tea. A cup of green tea, slowly brewed.",
			[]string{"organic green tea", "green tea", "cup of green tea"}, []string{"grow organic green tea", "cup of", "tea a cup", "slowly brewed"}},
		{"fr", "Le thé vert devient amer; l'infusion du thé vert bio. Temps d'infusion du thé.",
			[]string{"thé vert", "infusion du thé vert bio", "thé vert bio", "temps d'infusion du thé"}, []string{"thé vert devient", "l infusion", "l'infusion", "infusion du", "temps d infusion"}},
		{"de", "Lesen Sie, wie grüner Tee richtig aufgebrüht wird. Bio grüner Tee aus Japan.",
			[]string{"grüner tee", "bio grüner tee", "japan"}, []string{"grüner", "grüner tee richtig", "tee aus japan"}},
		{"xx", "green tea", nil, []string{"green tea"}},
	}
	for _, tc := range tests {
		got := keywords.Phrases(tc.lang, tc.text)
		for _, w := range tc.want {
			if !slices.Contains(got, w) {
				t.Errorf("%s %q: no %q in %q", tc.lang, tc.text, w, got)
			}
		}
		for _, n := range tc.not {
			if slices.Contains(got, n) {
				t.Errorf("%s %q: %q in %q", tc.lang, tc.text, n, got)
			}
		}
	}
}
