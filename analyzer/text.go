package analyzer

import (
	"sync"
	"unicode"
	"unicode/utf8"
)

// textBuilder collects a page's main text, words separated by single
// spaces, and fingerprints it as it goes: each word is hashed while it is
// copied, so the text is not read a second time for FingerprintText, whose
// result fingerprint equals (TestMainTextFingerprint).
type textBuilder struct {
	buf   []byte
	words int
	// textHash is the FNV-1a hash of the lowercased text so far.
	textHash uint64
	sim      simState
	// ipsum says a word starts with "ipsum", "Ipsum" or "IPSUM", the
	// only places loremIndex can match in the text.
	ipsum bool
}

// maxPooledText is the largest buffer kept for reuse.
const maxPooledText = 1 << 20

var textPool = sync.Pool{New: func() any { return new(textBuilder) }}

// getTextBuilder returns an empty builder from the pool.
func getTextBuilder() *textBuilder {
	tb := textPool.Get().(*textBuilder)
	buf := tb.buf[:0]
	*tb = textBuilder{buf: buf, textHash: fnvOffset64}
	return tb
}

// putTextBuilder returns tb to the pool unless its buffer grew too large.
func putTextBuilder(tb *textBuilder) {
	if cap(tb.buf) <= maxPooledText {
		textPool.Put(tb)
	}
}

// fingerprint returns FingerprintText of the text built.
func (tb *textBuilder) fingerprint() Fingerprint {
	if tb.words == 0 {
		return Fingerprint{}
	}
	s := &tb.sim
	if s.shingles == 0 {
		// Fewer words than a shingle: hash what there is as one shingle.
		s.add(shingleHash(s.ring, s.words))
	}
	return Fingerprint{TextHash: tb.textHash, SimHash: s.sum()}
}

// appendWords appends the words of s and counts them. A word is a run of
// letters, digits, marks, apostrophes and inner hyphens; each Han, kana or
// Hangul character counts as a word, since those scripts do not use spaces.
// This runs over every text node of every page, so s is read once: each
// byte is classified and, when it belongs to a word, added to both hashes
// in the same step, the hashes kept in registers; a finished word is
// copied as one substring.
func (tb *textBuilder) appendWords(s string) {
	start := -1 // start of the current word in s, or -1
	// th and wh are the text and word hashes while a word is open: th
	// includes the space written before the word.
	var th, wh uint64
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch asciiClass[c] {
			case classWord:
				if start < 0 {
					start, th, wh = i, tb.spaced(), fnvOffset64
				}
				// The rest of a run of ASCII letters and digits, hashed
				// lowercased as it is read.
				for {
					if c-'A' < 26 {
						c += 'a' - 'A'
					}
					th = (th ^ uint64(c)) * fnvPrime64
					wh = (wh ^ uint64(c)) * fnvPrime64
					if i++; i == len(s) {
						break
					}
					if c = s[i]; c >= utf8.RuneSelf || asciiClass[c] != classWord {
						break
					}
				}
				continue
			case classJoin:
				// An inner apostrophe or hyphen stays in the word when a
				// letter or digit follows.
				if start >= 0 && i+1 < len(s) && isWordByte(s[i+1:]) {
					th = (th ^ uint64(c)) * fnvPrime64
					wh = (wh ^ uint64(c)) * fnvPrime64
					i++
					continue
				}
			}
			if start >= 0 {
				tb.endWord(s[start:i], th, wh)
				start = -1
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case isIdeograph(r):
			if start >= 0 {
				tb.endWord(s[start:i], th, wh)
			}
			th, wh = hashLowerRune(r, tb.spaced(), fnvOffset64)
			tb.endWord(s[i:i+size], th, wh)
			start = -1
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
			if start < 0 {
				start, th, wh = i, tb.spaced(), fnvOffset64
			}
			th, wh = hashLowerRune(r, th, wh)
		case r == '’' && start >= 0 && i+size < len(s) && isWordByte(s[i+size:]):
			th, wh = hashLowerRune(r, th, wh)
		default:
			if start >= 0 {
				tb.endWord(s[start:i], th, wh)
				start = -1
			}
		}
		i += size
	}
	if start >= 0 {
		tb.endWord(s[start:], th, wh)
	}
}

// spaced returns the text hash with the space that separates a next word
// from the text so far, when there is text.
func (tb *textBuilder) spaced() uint64 {
	if len(tb.buf) > 0 {
		return (tb.textHash ^ ' ') * fnvPrime64
	}
	return tb.textHash
}

// endWord appends the word w, space-separated, whose hashes th (the text
// hash through w, the separating space included) and wh (w's own hash,
// lowercased) were computed as it was read, the way FingerprintText reads
// the text.
func (tb *textBuilder) endWord(w string, th, wh uint64) {
	if len(tb.buf) > 0 {
		tb.buf = append(tb.buf, ' ')
	}
	tb.buf = append(tb.buf, w...)
	if len(w) >= 5 && w[0]|0x20 == 'i' && (w[:5] == "ipsum" || w[:5] == "Ipsum" || w[:5] == "IPSUM") {
		tb.ipsum = true
	}
	tb.textHash = th
	tb.words++
	tb.sim.word(wh)
}

// hashLowerRune adds the UTF-8 bytes of r lowercased to both hashes, as
// FingerprintText's non-ASCII path does. A byte that is not valid UTF-8
// decodes as U+FFFD, and is hashed as that, as a range loop over the
// word reads it.
func hashLowerRune(r rune, th, wh uint64) (uint64, uint64) {
	var buf [utf8.UTFMax]byte
	n := utf8.EncodeRune(buf[:], unicode.ToLower(r))
	for _, b := range buf[:n] {
		th = (th ^ uint64(b)) * fnvPrime64
		wh = (wh ^ uint64(b)) * fnvPrime64
	}
	return th, wh
}
