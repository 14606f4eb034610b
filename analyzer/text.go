package analyzer

import (
	"encoding/binary"
	"math/bits"
	"slices"
	"sync"
	"unicode"
	"unicode/utf8"
)

// textBuilder collects a page's main text, words separated by single
// spaces, and fingerprints it as it goes: each word is hashed as it is
// copied, with the hash FingerprintText uses, so the text is not read a
// second time and the fingerprints agree (TestMainTextFingerprint).
type textBuilder struct {
	buf   []byte
	words int
	// textHash chains the hashes of the words so far (see FingerprintText).
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
	*tb = textBuilder{buf: buf, textHash: fpTextSeed}
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
	return fingerprintOf(&tb.sim, tb.textHash, tb.words)
}

// appendWords appends the words of s and counts them. A word is a run of
// letters, digits, marks, apostrophes and inner hyphens; each Han, kana or
// Hangul character counts as a word, since those scripts do not use spaces.
// This runs over every text node of every page: a run of ASCII letters
// and digits is classified eight bytes at a time (alnumRun), and a
// finished word is copied as one substring and hashed by endWord.
func (tb *textBuilder) appendWords(s string) {
	start := -1 // start of the current word in s, or -1
	ascii := true
	for i := 0; i < len(s); {
		if start < 0 {
			if i = tb.shortWords(s, i); i == len(s) {
				break
			}
		}
		c := s[i]
		if c < utf8.RuneSelf {
			switch asciiClass[c] {
			case classWord:
				if start < 0 {
					start, ascii = i, true
				}
				i += alnumRun(s, i)
				continue
			case classJoin:
				// An inner apostrophe or hyphen stays in the word when a
				// letter or digit follows.
				if start >= 0 && i+1 < len(s) && isWordByteAt(s, i+1) {
					i++
					continue
				}
			}
			if start >= 0 {
				tb.endWord(s[start:i], ascii)
				start = -1
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case isIdeograph(r):
			if start >= 0 {
				tb.endWord(s[start:i], ascii)
			}
			tb.endWord(s[i:i+size], false)
			start = -1
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
			if start < 0 {
				start = i
			}
			ascii = false
		case r == '’' && start >= 0 && i+size < len(s) && isWordByteAt(s, i+size):
			ascii = false
		default:
			if start >= 0 {
				tb.endWord(s[start:i], ascii)
				start = -1
			}
		}
		i += size
	}
	if start >= 0 {
		tb.endWord(s[start:], ascii)
	}
}

// shortWords adds the words of s from i on while they are ASCII letters
// and digits, fewer than sixteen, each followed by a byte that is neither
// a word byte nor an apostrophe or hyphen (most words of a text), skipping
// the ASCII bytes between them, and returns where it stopped: at the end
// of s, at a word it leaves to appendWords, or near the end (a word must
// have its eight or sixteen bytes to load). An 8-byte load classifies
// eight bytes at once and holds the bytes to copy and hash, a second one
// when the word is longer; no function is called but for the rare growth
// of the buffer and end of a batch of shingles.
func (tb *textBuilder) shortWords(s string, i int) int {
	// A word and its separating space take the bytes of s it ends: room
	// for them all and the 16 bytes a store may write past the end.
	if len(s)-i < 8 {
		return i
	}
	tb.buf = slices.Grow(tb.buf, len(s)-i+17)
	// The builder's state is held in locals for the loop and written back
	// once: kept in the builder, every word would load and store each
	// field through memory, a store-to-load round trip on every chain.
	buf, n := tb.buf[:cap(tb.buf)], len(tb.buf)
	th, words, ipsum := tb.textHash, tb.words, tb.ipsum
	sim := &tb.sim
	c0, c1, c2, c3, batch := sim.c0, sim.c1, sim.c2, sim.c3, sim.batch
	prev1, prev2 := sim.prev1, sim.prev2
	for len(s)-i >= 8 {
		v := le64(s[i:])
		am := alnumMask(v)
		k := bits.TrailingZeros64(^am&msb) >> 3
		if k == 0 {
			// ASCII bytes that are not letters or digits, outside a word:
			// skipped up to a letter, a digit or a non-ASCII byte.
			j := bits.TrailingZeros64((am|v)&msb) >> 3
			if j == 0 {
				break // a non-ASCII character: appendWords decodes it
			}
			i += j
			continue
		}
		out := buf[n : n+17]
		var wh uint64
		if k < 8 {
			// The byte after the word, in v already.
			if c := byte(v >> (8 * k)); c >= utf8.RuneSelf || c == '\'' || c == '-' {
				break // the word may go on
			}
			m := uint64(1)<<(8*k) - 1
			v &= m
			// wordHash8(v, k): the letters and digits of a word are
			// lowercased by setting their 0x20 bit, which digits and
			// lowercase letters have (a shift and a mask fewer than
			// lowerASCII8).
			wh = mum((v|0x20*lsb&m)^uint64(k)<<56^fpK2, fpK3^fpK1)
			// The separating space and the word: one 8-byte store.
			if n > 0 {
				binary.LittleEndian.PutUint64(out, v<<8|' ')
				n++
			} else {
				binary.LittleEndian.PutUint64(out, v)
			}
		} else {
			// Eight letters or digits: the next eight bytes end the word,
			// or appendWords reads it.
			if len(s)-i < 16 {
				break
			}
			v2 := le64(s[i+8:])
			k2 := bits.TrailingZeros64(^alnumMask(v2)&msb) >> 3
			if k2 == 8 {
				break
			}
			if c := byte(v2 >> (8 * k2)); c >= utf8.RuneSelf || c == '\'' || c == '-' {
				break
			}
			m2 := uint64(1)<<(8*k2) - 1
			v2 &= m2
			k += k2
			// wordHash of a word of two chunks, the second partial,
			// lowercased as above.
			wh = mum((v2|0x20*lsb&m2)^uint64(k)<<56^fpK2, mum((v|0x20*lsb)^fpK0, fpK3^fpK1)^fpK1)
			if n > 0 {
				out[0] = ' '
				out = out[1:]
				n++
			}
			binary.LittleEndian.PutUint64(out, v)
			binary.LittleEndian.PutUint64(out[8:], v2)
		}
		if byte(v)|0x20 == 'i' && k >= 5 {
			if w := string(buf[n : n+5]); w == "ipsum" || w == "Ipsum" || w == "IPSUM" {
				ipsum = true
			}
		}
		n += k
		th = (th ^ wh) * fpTextMul
		// simState.word and add, inlined.
		if words >= ShingleSize-1 {
			h := shingle3(prev1, prev2, wh)
			carry := c0 & h
			c0 ^= h
			carry2 := c1 & carry
			c1 ^= carry
			c3 ^= c2 & carry2
			c2 ^= carry2
			if batch++; batch == 15 {
				sim.c0, sim.c1, sim.c2, sim.c3, sim.batch = c0, c1, c2, c3, batch
				sim.endBatch()
				c0, c1, c2, c3, batch = 0, 0, 0, 0, 0
			}
		}
		prev1, prev2 = prev2, wh
		words++
		i += k + 1 // s[i+k] ends the word and is no word byte
	}
	tb.buf = buf[:n]
	tb.textHash, tb.words, tb.ipsum = th, words, ipsum
	sim.c0, sim.c1, sim.c2, sim.c3, sim.batch = c0, c1, c2, c3, batch
	sim.prev1, sim.prev2 = prev1, prev2
	return i
}

// alnumRun returns the length of the run of ASCII letters and digits at
// s[i:], testing eight bytes at a time.
func alnumRun(s string, i int) int {
	n := i
	for ; len(s)-n >= 8; n += 8 {
		if m := alnumMask(le64(s[n:])); m != msb {
			return n - i + bits.TrailingZeros64(^m&msb)>>3
		}
	}
	// The zero bytes loadTail pads with are not letters.
	return n - i + bits.TrailingZeros64(^alnumMask(loadTail(s, n))&msb)>>3
}

// alnumMask sets the high bit of each byte of v that is an ASCII letter or
// digit, and clears every other bit.
func alnumMask(v uint64) uint64 {
	y := v &^ msb // below 0x80 each, so no sum below carries across bytes
	l := y | 0x20*lsb
	letter := (l + 0x1f*lsb) &^ (l + 0x05*lsb) // 'a' <= l <= 'z'
	digit := (y + 0x50*lsb) &^ (y + 0x46*lsb)  // '0' <= y <= '9'
	return (letter | digit) &^ v & msb
}

// isWordByteAt reports whether s[i:] starts with a letter or digit.
func isWordByteAt(s string, i int) bool {
	if c := s[i]; c < utf8.RuneSelf {
		return asciiClass[c] == classWord
	}
	return isWordByte(s[i:])
}

// endWord appends the word w, space-separated, and adds it to the
// fingerprint; ascii says w is all ASCII.
func (tb *textBuilder) endWord(w string, ascii bool) {
	tb.addWord(w, wordHash(w, ascii))
}

// addWord appends the word w, space-separated, and adds its hash wh
// (wordHash) to the fingerprint.
func (tb *textBuilder) addWord(w string, wh uint64) {
	if len(tb.buf) > 0 {
		tb.buf = append(tb.buf, ' ')
	}
	tb.buf = append(tb.buf, w...)
	if len(w) >= 5 && w[0]|0x20 == 'i' && (w[:5] == "ipsum" || w[:5] == "Ipsum" || w[:5] == "IPSUM") {
		tb.ipsum = true
	}
	tb.textHash = (tb.textHash ^ wh) * fpTextMul
	tb.sim.word(wh, tb.words)
	if tb.words++; tb.sim.batch == 15 {
		tb.sim.endBatch()
	}
}
