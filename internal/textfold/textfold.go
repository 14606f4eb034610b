// Package textfold holds the text folding that seokit's keyword and
// content matching share: the Snowball stemmers by language and the
// removal of diacritics.
package textfold

import (
	"strings"
	"unicode"
	"unicode/utf8"

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

// Stemmer returns the Snowball stemmer of an ISO 639-1 language code, or
// nil when seokit has none for it.
func Stemmer(lang string) func(*snowballstem.Env) bool { return stemmers[lang] }

// Diacritics removes combining marks ("é" to "e", "ё" to "е") and writes ß
// as ss, so that matching ignores accents. ASCII text, and Cyrillic
// without marks, is returned as it is.
func Diacritics(s string) string {
	if !hasMarks(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
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

// hasMarks reports whether s may change under Diacritics: it has a rune
// outside ASCII and outside the Cyrillic letters without diacritics.
func hasMarks(s string) bool {
	for _, r := range s {
		if r >= utf8.RuneSelf && (r < 0x410 || r > 0x44F || r == 'й' || r == 'Й') {
			return true
		}
	}
	return false
}
