package keywords

import (
	"strings"
	"unicode"

	"github.com/blevesearch/snowballstem"
	"golang.org/x/text/unicode/norm"

	"github.com/seokit/seokit/internal/textfold"
)

var apostrophes = strings.NewReplacer("’", "'", "‘", "'", "ʼ", "'", "´", "'", "`", "'")

// Words splits a phrase into lowercase, Unicode-normalised (NFKC) words.
// Anything that is not a letter, a digit or an apostrophe inside a word
// separates words.
func Words(phrase string) []string {
	s := strings.ToLower(norm.NFKC.String(apostrophes.Replace(phrase)))
	f := strings.FieldsFunc(s, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\'' && !unicode.Is(unicode.Mn, r)
	})
	out := f[:0]
	for _, w := range f {
		if w = strings.Trim(w, "'"); w != "" {
			out = append(out, w)
		}
	}
	return out
}

// NormalizePhrase returns the phrase's words joined by single spaces: the
// form used for exact and prefix matching.
func NormalizePhrase(phrase string) string { return strings.Join(Words(phrase), " ") }

// Stem returns the Snowball stem of a lowercase word in lang with its
// diacritics removed; languages without a stemmer only lose diacritics.
func Stem(lang, word string) string {
	if fn := textfold.Stemmer(lang); fn != nil {
		env := snowballstem.NewEnv(word)
		fn(env)
		word = env.Current()
	}
	return textfold.Diacritics(word)
}

// Stems returns the stems of the phrase's words, in order.
func Stems(lang, phrase string) []string {
	w := Words(phrase)
	for i := range w {
		w[i] = Stem(lang, w[i])
	}
	return w
}

// FoldKey returns the key under which phrases count as duplicates: the
// stems of its words (lowercased, NFKC-normalised, without diacritics)
// joined by spaces. "Running Shoes" and "running shoe" share a key in
// English.
func FoldKey(lang, phrase string) string { return strings.Join(Stems(lang, phrase), " ") }

// FoldCase returns the form under which data sources and reports match a
// keyword to its metrics: lowercase, its words separated by single
// spaces. Unlike FoldKey it keeps punctuation, diacritics and word forms.
func FoldCase(s string) string {
	if isFolded(s) {
		return s
	}
	return strings.ToLower(strings.Join(strings.Fields(s), " "))
}

// isFolded reports whether s is lowercase ASCII with single inner spaces.
func isFolded(s string) bool {
	if s == "" || s[0] == ' ' || s[len(s)-1] == ' ' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 || ('A' <= c && c <= 'Z') || (c < ' ') || (c == ' ' && s[i-1] == ' ') {
			return false
		}
	}
	return true
}
