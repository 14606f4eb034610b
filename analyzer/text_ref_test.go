package analyzer

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// TestAppendWordsMatchesReference holds appendWords, which classifies
// ASCII bytes eight at a time and hashes words eight bytes at a time, to
// appendWordsRef, which classifies byte by byte and hashes a word from the
// hash's definition (wordHashRef): the same text, word count, lorem flag
// and both hashes, for texts of every kind of character, long words
// included, fed in one piece or in several text nodes.
func TestAppendWordsMatchesReference(t *testing.T) {
	t.Parallel()
	pieces := []string{"word", "Word", "WORD", "über", "CAFÉ", "日本語", "한국어", "カタカナ", " ", "  ", "\n", "\t", "\u00a0", "\u3000",
		".", ",", "'", "-", "’", "a1", "9", "\xc3", "\xff", "Σ", "ß", "İ", "ǅ", "x\u0301", "\u0301", "don't", "e-mail", "a-",
		"-b", "ipsum", "Ipsum", "IPSUM", "iPsum", "ipsumdolor", "x-ipsum", "lorem", "Straße", "Ωmega", "1-2", "it’s", "’s",
		"Donaudampfschifffahrtsgesellschaft", "ABCDEFGH", "abcdefg", "ABCDEFGHIJKLMNOPQ", "abcdefghij", "ABCDEFGHIJKLMNO", "Ipsumdolorsitam", "ÄÖÜ", "\u00e9t\u00e9", "ǅ", "\x80", "\xe2\x80",
		"@", "[", "`", "{", "Z", "z", "0", "9", "/", ":", "\x00", "\x1f"}
	rng := rand.New(rand.NewPCG(17, 19))
	for k := range 5000 {
		var nodes []string
		for range 1 + rng.IntN(4) {
			var sb strings.Builder
			for range rng.IntN(40) {
				sb.WriteString(pieces[rng.IntN(len(pieces))])
			}
			nodes = append(nodes, sb.String())
		}
		got, want := getTextBuilder(), getTextBuilder()
		for _, n := range nodes {
			got.appendWords(n)
			want.appendWordsRef(n)
		}
		if string(got.buf) != string(want.buf) || got.words != want.words || got.ipsum != want.ipsum ||
			got.textHash != want.textHash || got.fingerprint() != want.fingerprint() {
			t.Fatalf("case %d, nodes %q:\ngot  %q words %d ipsum %v %+v\nwant %q words %d ipsum %v %+v", k, nodes,
				got.buf, got.words, got.ipsum, got.fingerprint(), want.buf, want.words, want.ipsum, want.fingerprint())
		}
		putTextBuilder(got)
		putTextBuilder(want)
	}
}

// appendWordsRef is appendWords as it was before it hashed words while it
// classified their bytes, kept to prove text and hashes unchanged: it
// finds each word, then wordRef copies and hashes it.
func (tb *textBuilder) appendWordsRef(s string) {
	start := -1 // start of the current word in s, or -1
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch asciiClass[c] {
			case classWord:
				if start < 0 {
					start = i
				}
				i++
				continue
			case classJoin:
				// An inner apostrophe or hyphen stays in the word when a
				// letter or digit follows.
				if start >= 0 && i+1 < len(s) && isWordByte(s[i+1:]) {
					i++
					continue
				}
			}
			if start >= 0 {
				tb.wordRef(s[start:i])
				start = -1
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case isIdeograph(r):
			if start >= 0 {
				tb.wordRef(s[start:i])
			}
			tb.wordRef(s[i : i+size])
			start = -1
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
			if start < 0 {
				start = i
			}
		case r == '’' && start >= 0 && i+size < len(s) && isWordByte(s[i+size:]):
		default:
			if start >= 0 {
				tb.wordRef(s[start:i])
				start = -1
			}
		}
		i += size
	}
	if start >= 0 {
		tb.wordRef(s[start:])
	}
}

// wordRef appends one word, space-separated, and adds its hash, as
// wordHashRef computes it from the word's definition, to the text hash and
// the simhash.
func (tb *textBuilder) wordRef(w string) {
	if len(tb.buf) > 0 {
		tb.buf = append(tb.buf, ' ')
	}
	tb.buf = append(tb.buf, w...)
	if len(w) >= 5 && w[0]|0x20 == 'i' && (w[:5] == "ipsum" || w[:5] == "Ipsum" || w[:5] == "IPSUM") {
		tb.ipsum = true
	}
	wh := wordHashRef(w)
	tb.textHash = (tb.textHash ^ wh) * fpTextMul
	tb.sim.word(wh, tb.words)
	if tb.words++; tb.sim.batch == 15 {
		tb.sim.endBatch()
	}
}
