package analyzer

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// TestAppendWordsMatchesReference holds appendWords, which hashes words
// as it classifies their bytes, to appendWordsRef, the two-pass version it
// replaced: the same text, word count, lorem flag and both hashes, for
// texts of every kind of character, fed in one piece or in several text
// nodes.
func TestAppendWordsMatchesReference(t *testing.T) {
	t.Parallel()
	pieces := []string{"word", "Word", "WORD", "über", "CAFÉ", "日本語", "한국어", "カタカナ", " ", "  ", "\n", "\t", "\u00a0", "\u3000",
		".", ",", "'", "-", "’", "a1", "9", "\xc3", "\xff", "Σ", "ß", "İ", "ǅ", "x\u0301", "\u0301", "don't", "e-mail", "a-",
		"-b", "ipsum", "Ipsum", "IPSUM", "iPsum", "ipsumdolor", "x-ipsum", "lorem", "Straße", "Ωmega", "1-2", "it’s", "’s"}
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

// wordRef appends one word, space-separated, and adds it to both hashes the
// way FingerprintText reads it: lowercased, the separating space in the
// text hash only.
func (tb *textBuilder) wordRef(w string) {
	th := tb.textHash
	if len(tb.buf) > 0 {
		tb.buf = append(tb.buf, ' ')
		th = (th ^ ' ') * fnvPrime64
	}
	tb.buf = append(tb.buf, w...)
	if len(w) >= 5 && w[0]|0x20 == 'i' && (w[:5] == "ipsum" || w[:5] == "Ipsum" || w[:5] == "IPSUM") {
		tb.ipsum = true
	}
	wh := uint64(fnvOffset64)
	for i := 0; i < len(w); i++ {
		c := w[i]
		if c >= utf8.RuneSelf {
			th, wh = hashLowerRunes(w[i:], th, wh)
			break
		}
		if c-'A' < 26 {
			c += 'a' - 'A'
		}
		th = (th ^ uint64(c)) * fnvPrime64
		wh = (wh ^ uint64(c)) * fnvPrime64
	}
	tb.textHash = th
	tb.words++
	tb.sim.word(wh)
}

// hashLowerRunes adds the lowercased runes of w (a word: no white space)
// to both hashes, as FingerprintText's non-ASCII path does.
func hashLowerRunes(w string, th, wh uint64) (uint64, uint64) {
	var buf [utf8.UTFMax]byte
	for _, r := range w {
		n := utf8.EncodeRune(buf[:], unicode.ToLower(r))
		for _, b := range buf[:n] {
			th = (th ^ uint64(b)) * fnvPrime64
			wh = (wh ^ uint64(b)) * fnvPrime64
		}
	}
	return th, wh
}
