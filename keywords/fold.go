package keywords

import (
	"strings"
	"unicode"

	"github.com/blevesearch/snowballstem"
	"github.com/blevesearch/snowballstem/dutch"
	"github.com/blevesearch/snowballstem/english"
	"github.com/blevesearch/snowballstem/french"
	"github.com/blevesearch/snowballstem/german"
	"github.com/blevesearch/snowballstem/italian"
	"github.com/blevesearch/snowballstem/portuguese"
	"github.com/blevesearch/snowballstem/russian"
	"github.com/blevesearch/snowballstem/spanish"
	"golang.org/x/text/unicode/norm"
)

// stemmers are the Snowball stemmers by ISO 639-1 language code.
var stemmers = map[string]func(*snowballstem.Env) bool{
	"en": english.Stem, "de": german.Stem, "es": spanish.Stem, "fr": french.Stem,
	"it": italian.Stem, "nl": dutch.Stem, "pt": portuguese.Stem, "ru": russian.Stem,
}

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
	if fn, ok := stemmers[lang]; ok {
		env := snowballstem.NewEnv(word)
		fn(env)
		word = env.Current()
	}
	return stripMarks(word)
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

// stripMarks removes combining marks ("é" to "e") and writes ß as ss.
func stripMarks(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		return s
	}
	var b strings.Builder
	for _, r := range norm.NFD.String(s) {
		switch {
		case unicode.Is(unicode.Mn, r):
		case r == 'ß':
			b.WriteString("ss")
		default:
			b.WriteRune(r)
		}
	}
	return norm.NFC.String(b.String())
}
