package optimizer

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/seokit/seokit/internal/textfold"
)

// foldApostrophes maps the apostrophe look-alikes (’ ‘ ʼ ´ ` ′) to '.
func foldApostrophes(s string) string {
	if !strings.ContainsAny(s, "’‘ʼ´`′") {
		return s
	}
	return apostropheReplacer.Replace(s)
}

var apostropheReplacer = strings.NewReplacer("’", "'", "‘", "'", "ʼ", "'", "´", "'", "`", "'", "′", "'")

// lowerWord lowercases a word and folds its apostrophes.
func lowerWord(s string) string {
	lower := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf || ('A' <= c && c <= 'Z') || c == '`' {
			lower = false
			break
		}
	}
	if lower {
		return s
	}
	return foldApostrophes(strings.ToLower(s))
}

// stripClitics removes what apostrophes attach to a word's core: the elided
// article or pronoun before it in French and Italian (l'homme, dell'anno)
// and the possessive or plural 's after it (John's, auto's).
func stripClitics(lang, w string) string {
	i := strings.IndexByte(w, '\'')
	if i < 0 {
		return w
	}
	switch lang {
	case "fr", "it", "pt", "es":
		if i > 0 && i <= 6 && i < len(w)-1 {
			return w[i+1:]
		}
	}
	if strings.HasSuffix(w, "'s") && len(w) > 2 {
		return w[:len(w)-2]
	}
	return strings.TrimRight(w, "'")
}

// hasWordChar reports whether a token has a letter or a digit, which makes
// it a word (emoji and punctuation are not).
func hasWordChar(s string) bool {
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return true
		}
	}
	return false
}

// transliterate writes a lowercase text's letters the way its language
// spells them without marks, for slugs: German ä ö ü ß as ae oe ue ss,
// Danish and Norwegian æ ø å as ae oe aa; Russian keeps its Cyrillic
// letters (й too) and writes ё as е; any other language folds diacritics
// (é as e) and writes the letters that have no mark to drop in ASCII (æ as
// ae, ø as o, ł as l).
func transliterate(lang, s string) string {
	switch lang {
	case "ru", "uk", "be", "bg", "sr", "mk":
		return strings.ReplaceAll(s, "ё", "е")
	}
	if r, ok := slugLetters[lang]; ok {
		s = r.Replace(s)
	}
	return textfold.Diacritics(slugFold.Replace(s))
}

var (
	nordicLetters = strings.NewReplacer("æ", "ae", "ø", "oe", "å", "aa")
	slugLetters   = map[string]*strings.Replacer{
		"de": strings.NewReplacer("ä", "ae", "ö", "oe", "ü", "ue", "ß", "ss"),
		"da": nordicLetters,
		"nb": nordicLetters,
		"nn": nordicLetters,
		"no": nordicLetters,
	}
	slugFold = strings.NewReplacer("æ", "ae", "œ", "oe", "ø", "o", "ł", "l", "đ", "d", "ð", "d", "þ", "th", "ı", "i", "ß", "ss")
)
