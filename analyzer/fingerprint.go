package analyzer

import (
	"math/bits"
	"unicode"
	"unicode/utf8"
)

func init() {
	registerExtractor(func(p *Page) {
		if p.hasMainFP {
			p.Report.Fingerprint = p.mainFP
			return
		}
		p.Report.Fingerprint = FingerprintText(p.MainText)
	})
}

// FNV-1a 64-bit parameters, for the hashes that are not fingerprints
// (TemplateFingerprint).
const (
	fnvOffset64 = 14695981039346656037
	fnvPrime64  = 1099511628211
)

// ShingleSize is the number of consecutive words hashed together by the simhash.
const ShingleSize = 3

// Constants of the fingerprint hashes (those of wyhash).
const (
	fpK0 = 0xa0761d6478bd642f
	fpK1 = 0xe7037ed1a0b428db
	fpK2 = 0x8ebc6af09c88c6e3
	fpK3 = 0x589965cc75374cc3
	// fpTextSeed starts the text hash; fpTextMul, odd, chains word hashes
	// into it.
	fpTextSeed = 0x2d358dccaa6c78a5
	fpTextMul  = 0x9E3779B97F4A7C15
)

// lsb and msb have the lowest and the highest bit of every byte set.
const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// FingerprintText computes the fingerprint of a text whose words are
// separated by single spaces, as Page.MainText is; any white space
// separates words. Version is FingerprintVersion. TextHash hashes the
// sequence of lowercased words (0 for a text without words, so pages
// without text never count as duplicates of each other). SimHash is a
// 64-bit simhash over the text's 3-word shingles with uniform weights; a
// text of fewer than three words forms a single shingle. Case is ignored
// by both hashes.
//
// The text is read once and nothing is allocated: a word's bytes are
// scanned and hashed eight at a time (wordHash), the text hash chains the
// word hashes, and a shingle hash mixes the last three word hashes with
// one multiplication.
func FingerprintText(text string) Fingerprint {
	var s simState
	th := uint64(fpTextSeed)
	words := 0
	for i := 0; i < len(text); {
		if len(text)-i >= 8 {
			// Most words are ASCII, shorter than sixteen bytes and
			// followed by a space: one 8-byte load (two for a longer word)
			// finds the word's end, eight bytes tested at once for a byte
			// at most ' ' or not ASCII, and holds the bytes to hash.
			v := le64(text[i:])
			k := bits.TrailingZeros64(spaceOrHigh(v)) >> 3
			var wh uint64
			switch {
			case k == 0:
			case k < 8:
				if text[i+k] == ' ' {
					wh = wordHash8(v&(1<<(8*k)-1), k)
				}
			case len(text)-i >= 16:
				v2 := le64(text[i+8:])
				if k2 := bits.TrailingZeros64(spaceOrHigh(v2)) >> 3; k2 < 8 && text[i+8+k2] == ' ' {
					k += k2
					wh = mum(lowerASCII8(v2&(1<<(8*k2)-1))^uint64(k)<<56^fpK2, mum(lowerASCII8(v)^fpK0, fpK3^fpK1)^fpK1)
				}
			}
			// wh is 0 when the word is not such a word (or, once in 2^64
			// words, when its hash is 0: scanWord below hashes it again,
			// to the same value).
			if wh != 0 {
				th = (th ^ wh) * fpTextMul
				// s.word(wh, words), inlined.
				if words >= ShingleSize-1 {
					s.add(shingle3(s.prev1, s.prev2, wh))
					if s.batch == 15 {
						s.endBatch()
					}
				}
				s.prev1, s.prev2 = s.prev2, wh
				words++
				i += k + 1
				continue
			}
		}
		c := text[i]
		if c < utf8.RuneSelf {
			if asciiSpace[c] {
				i++
				continue
			}
		} else if r, size := utf8.DecodeRuneInString(text[i:]); unicode.IsSpace(r) {
			i += size
			continue
		}
		var wh uint64
		i, wh = scanWord(text, i)
		th = (th ^ wh) * fpTextMul
		s.word(wh, words)
		words++
	}
	return fingerprintOf(&s, th, words)
}

// fingerprintOf completes a fingerprint from the state after the last
// word: th chains the word hashes.
func fingerprintOf(s *simState, th uint64, words int) Fingerprint {
	if words == 0 {
		return Fingerprint{Version: FingerprintVersion}
	}
	shingles := words - (ShingleSize - 1)
	if shingles <= 0 {
		// Fewer words than a shingle: the missing words hash as 0.
		s.add(shingle3(0, s.prev1, s.prev2))
		shingles = 1
	}
	h := mum(th^fpK0, uint64(words)^fpK1)
	if h == 0 {
		h = 1 // 0 stands for no text
	}
	return Fingerprint{Version: FingerprintVersion, TextHash: h, SimHash: s.sum(shingles)}
}

// asciiSpace marks the ASCII white space (unicode.IsSpace).
var asciiSpace = [utf8.RuneSelf]bool{' ': true, '\t': true, '\n': true, '\v': true, '\f': true, '\r': true}

// wordHash hashes the lowercased UTF-8 bytes of word w (no white space
// in it), ascii saying w is all ASCII: eight bytes per multiplication (a
// wyhash-style step), the last zero to seven bytes with the length in a
// final one. Letters are lowercased as unicode.ToLower does, an invalid
// byte reads as U+FFFD, as a range loop reads it. FingerprintText and the
// main text's builder hash every word with it, so their fingerprints
// agree.
func wordHash(w string, ascii bool) uint64 {
	if ascii && len(w) < 8 {
		return wordHash8(loadTail(w, 0), len(w))
	}
	_, h := scanWord(w, 0)
	return h
}

// wordHash8 is wordHash of an ASCII word of n < 8 bytes, v (little-endian,
// zero above them).
func wordHash8(v uint64, n int) uint64 {
	return mum(lowerASCII8(v)^uint64(n)<<56^fpK2, fpK3^fpK1)
}

// scanWord reads the word at text[i:] up to the first white space (or the
// end) and returns that end and the word's hash (wordHash). A run of ASCII
// bytes is tested and lowercased eight bytes at a time; another character
// is decoded, lowercased and re-encoded. The lowercased bytes are gathered
// in acc and hashed eight at a time.
func scanWord(text string, i int) (end int, wh uint64) {
	h := uint64(fpK3)
	var acc uint64 // lowercased bytes not hashed yet, little-endian
	k, n := 0, 0   // bits in acc; lowercased bytes in all
	// push adds the m bytes of v (little-endian) to acc.
	push := func(v uint64, m int) {
		acc |= v << k
		if k += 8 * m; k >= 64 {
			h = mum(acc^fpK0, h^fpK1)
			k -= 64
			acc = v >> (8*m - k) // the bytes that did not fit; 0 when none
		}
		n += m
	}
	for i < len(text) {
		if len(text)-i >= 8 {
			v := le64(text[i:])
			special := spaceOrHigh(v)
			if special == 0 {
				push(lowerASCII8(v), 8)
				i += 8
				continue
			}
			if j := bits.TrailingZeros64(special) >> 3; j > 0 {
				push(lowerASCII8(v&(1<<(8*j)-1)), j)
				i += j
			}
		}
		c := text[i]
		if c < utf8.RuneSelf {
			if asciiSpace[c] {
				break
			}
			if c-'A' < 26 {
				c += 'a' - 'A'
			}
			push(uint64(c), 1)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		if unicode.IsSpace(r) {
			break
		}
		var buf [utf8.UTFMax]byte
		var enc []byte
		if lr := lowerRune(r); lr != r || size == 1 {
			enc = buf[:utf8.EncodeRune(buf[:], lr)] // an invalid byte as U+FFFD
		} else {
			enc = []byte(text[i : i+size])
		}
		var v uint64
		for b, e := range enc {
			v |= uint64(e) << (8 * b)
		}
		push(v, len(enc))
		i += size
	}
	return i, mum(acc^uint64(n)<<56^fpK2, h^fpK1)
}

// lowerRune is unicode.ToLower with the Latin-1 letters looked up first.
func lowerRune(r rune) rune {
	if r < 0x100 {
		if 'A' <= r && r <= 'Z' || 0xC0 <= r && r <= 0xDE && r != 0xD7 {
			return r + 0x20
		}
		return r
	}
	return unicode.ToLower(r)
}

// spaceOrHigh sets the high bit of each byte of v at most ' ' or not
// ASCII (every byte that can end a word of FingerprintText), and clears
// every other bit.
func spaceOrHigh(v uint64) uint64 {
	return (^(v&^msb + 0x5f*lsb) | v) & msb
}

// mum is the 128-bit product of a and b folded to 64 bits (wyhash's mix).
func mum(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi ^ lo
}

// lowerASCII8 lowercases the ASCII letters among the eight bytes of v,
// each below 0x80.
func lowerASCII8(v uint64) uint64 {
	ge := v + 0x3f*lsb // high bit set where a byte is >= 'A'
	gt := v + 0x25*lsb // high bit set where a byte is > 'Z'
	return v | (ge&^gt&msb)>>2
}

// le64 reads the first eight bytes of s, little-endian (one load).
func le64(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// le32 reads the first four bytes of s, little-endian (one load).
func le32(s string) uint64 {
	_ = s[3]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24
}

// loadTail reads s[i:], fewer than eight bytes, little-endian and padded
// with zero bytes, with at most two loads: the last eight bytes of s
// shifted when s has them, else two overlapping four-byte loads or three
// single bytes (wyhash's reads).
func loadTail(s string, i int) uint64 {
	r := len(s) - i
	switch {
	case r <= 0:
		return 0
	case len(s) >= 8:
		return le64(s[len(s)-8:]) >> (64 - 8*r)
	case r >= 4:
		return le32(s[i:]) | le32(s[len(s)-4:])<<(8*(r-4))
	default:
		return uint64(s[i]) | uint64(s[i+r>>1])<<(8*(r>>1)) | uint64(s[len(s)-1])<<(8*(r-1))
	}
}

// simState accumulates the simhash: for each of the 64 bit positions, how
// many shingle hashes have the bit set. Counting is bit-sliced: planes
// c[0..3] hold, for every position at once, a 4-bit binary count of the
// hashes added since the last batch ended, so adding a hash costs seven
// word operations instead of 64 counter increments; every 15 hashes the
// batch is added to byte lanes (lanes[j] holds, in its byte k, the count
// of position 8k+j), and the lanes go to counts before a byte can
// overflow.
type simState struct {
	// prev1 and prev2 are the hashes of the word before last and of the
	// last word (0 before there are such words).
	prev1, prev2 uint64
	c0, c1       uint64
	c2, c3       uint64
	batch        int // hashes in the planes, below 15
	batches      int // batches in lanes, below 17 (17 × 15 = 255)
	lanes        [8]uint64
	counts       [64]int
}

// word adds the hash of a text's next word, and the shingle it
// completes; before is the number of words before it. The loops over the
// words of a text inline it by hand.
func (s *simState) word(h uint64, before int) {
	if before >= ShingleSize-1 {
		s.add(shingle3(s.prev1, s.prev2, h))
		if s.batch == 15 {
			s.endBatch()
		}
	}
	s.prev1, s.prev2 = s.prev2, h
}

// add counts the bits of shingle hash h: a ripple-carry add of h's bits
// to the four planes.
func (s *simState) add(h uint64) {
	carry := s.c0 & h
	s.c0 ^= h
	carry2 := s.c1 & carry
	s.c1 ^= carry
	s.c3 ^= s.c2 & carry2
	s.c2 ^= carry2
	s.batch++
}

// endBatch adds the planes' counts, at most 15 each, to the byte lanes.
func (s *simState) endBatch() {
	c0, c1, c2, c3 := s.c0, s.c1, s.c2, s.c3
	l := &s.lanes
	l[0] += lane(c0, c1, c2, c3, 0)
	l[1] += lane(c0, c1, c2, c3, 1)
	l[2] += lane(c0, c1, c2, c3, 2)
	l[3] += lane(c0, c1, c2, c3, 3)
	l[4] += lane(c0, c1, c2, c3, 4)
	l[5] += lane(c0, c1, c2, c3, 5)
	l[6] += lane(c0, c1, c2, c3, 6)
	l[7] += lane(c0, c1, c2, c3, 7)
	s.c0, s.c1, s.c2, s.c3, s.batch = 0, 0, 0, 0, 0
	if s.batches++; s.batches == 17 {
		s.flush()
	}
}

// lane returns the counts of positions j, 8+j, ..., 56+j held in the
// planes c0..c3 (bit p of c[b] is bit b of position p's count), one per
// byte.
func lane(c0, c1, c2, c3 uint64, j uint) uint64 {
	return c0>>j&lsb | (c1>>j&lsb)<<1 | (c2>>j&lsb)<<2 | (c3>>j&lsb)<<3
}

// flush adds the byte lanes to counts.
func (s *simState) flush() {
	for j, l := range s.lanes {
		for k := 0; k < 8; k++ {
			s.counts[8*k+j] += int(l >> uint(8*k) & 0xff)
		}
		s.lanes[j] = 0
	}
	s.batches = 0
}

// sum sets each bit whose count of set bits exceeds half the shingles
// (uniform weights: +1 for a set bit, -1 for a clear one, positive total).
func (s *simState) sum(shingles int) uint64 {
	s.endBatch()
	s.flush()
	var sim uint64
	for b, c := range s.counts {
		if 2*c > shingles {
			sim |= 1 << uint(b)
		}
	}
	return sim
}

// shingle3 hashes the shingle of words a, b, c (their hashes, oldest
// first) with one multiplication: a and b rotated apart so that their
// order counts, c the other factor.
func shingle3(a, b, c uint64) uint64 {
	return mum(a^bits.RotateLeft64(b, 29)^fpK0, c^fpK2)
}

// HammingDistance returns the number of bits in which a and b differ; two
// simhashes at most 3 bits apart mark near-duplicate texts.
func HammingDistance(a, b uint64) int {
	return bits.OnesCount64(a ^ b)
}
