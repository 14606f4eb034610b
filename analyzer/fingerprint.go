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

// FNV-1a 64-bit parameters.
const (
	fnvOffset64 = 14695981039346656037
	fnvPrime64  = 1099511628211
)

// ShingleSize is the number of consecutive words hashed together by the simhash.
const ShingleSize = 3

// FingerprintText computes the fingerprint of a text whose words are
// separated by single spaces, as Page.MainText is. TextHash is the 64-bit
// FNV-1a hash of the lowercased text (0 for an empty text, so pages without
// text never count as duplicates of each other). SimHash is a 64-bit simhash
// over the text's 3-word shingles with uniform weights; a text of fewer than
// three words forms a single shingle. Case is ignored by both hashes.
//
// The text is read once and nothing is allocated: word hashes are computed
// while the text hash is, a run of ASCII word bytes in one tight loop with
// both hashes in registers, and shingle hashes combine the last three word
// hashes.
func FingerprintText(text string) Fingerprint {
	var s simState
	textHash := uint64(fnvOffset64)
	wordHash := uint64(fnvOffset64)
	inWord, nonSpace := false, false
	var buf [utf8.UTFMax]byte
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf {
			if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
				i++
				textHash = (textHash ^ uint64(c)) * fnvPrime64
				if inWord {
					s.word(wordHash)
					wordHash, inWord = fnvOffset64, false
				}
				continue
			}
			// A run of ASCII word bytes, lowercased as they are hashed.
			th, wh := textHash, wordHash
			for ; i < len(text); i++ {
				c := text[i]
				if c >= utf8.RuneSelf || c == ' ' || c == '\t' || c == '\n' || c == '\r' {
					break
				}
				if c-'A' < 26 {
					c += 'a' - 'A'
				}
				th = (th ^ uint64(c)) * fnvPrime64
				wh = (wh ^ uint64(c)) * fnvPrime64
			}
			textHash, wordHash = th, wh
			nonSpace, inWord = true, true
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		i += size
		r = unicode.ToLower(r)
		n := utf8.EncodeRune(buf[:], r)
		space := unicode.IsSpace(r)
		if space && inWord {
			s.word(wordHash)
			wordHash, inWord = fnvOffset64, false
		}
		for _, b := range buf[:n] {
			textHash = (textHash ^ uint64(b)) * fnvPrime64
			if !space {
				wordHash = (wordHash ^ uint64(b)) * fnvPrime64
			}
		}
		if !space {
			nonSpace, inWord = true, true
		}
	}
	if inWord {
		s.word(wordHash)
	}
	if !nonSpace {
		return Fingerprint{}
	}
	if s.shingles == 0 {
		// Fewer words than a shingle: hash what there is as one shingle.
		s.add(shingleHash(s.ring, s.words))
	}
	return Fingerprint{TextHash: textHash, SimHash: s.sum()}
}

// simState accumulates the simhash. Bit counts are kept in byte lanes:
// lanes[j] holds, in its byte k, how many shingle hashes had bit 8k+j set,
// so adding a hash costs 8 operations instead of 64. Lanes are flushed into
// counts before a byte can overflow.
type simState struct {
	ring     [ShingleSize]uint64
	words    int
	shingles int
	pending  int
	lanes    [8]uint64
	counts   [64]int
}

func (s *simState) word(h uint64) {
	s.ring[0], s.ring[1], s.ring[2] = s.ring[1], s.ring[2], h
	s.words++
	if s.words >= ShingleSize {
		s.add(shingle3(s.ring[0], s.ring[1], h))
	}
}

func (s *simState) add(h uint64) {
	const ones = 0x0101010101010101
	l := &s.lanes
	l[0] += h & ones
	l[1] += h >> 1 & ones
	l[2] += h >> 2 & ones
	l[3] += h >> 3 & ones
	l[4] += h >> 4 & ones
	l[5] += h >> 5 & ones
	l[6] += h >> 6 & ones
	l[7] += h >> 7 & ones
	s.shingles++
	if s.pending++; s.pending == 255 {
		s.flush()
	}
}

func (s *simState) flush() {
	for j, l := range s.lanes {
		for k := 0; k < 8; k++ {
			s.counts[8*k+j] += int(l >> uint(8*k) & 0xff)
		}
		s.lanes[j] = 0
	}
	s.pending = 0
}

// sum sets each bit whose count of set bits exceeds half the shingles
// (uniform weights: +1 for a set bit, -1 for a clear one, positive total).
func (s *simState) sum() uint64 {
	s.flush()
	var sim uint64
	for b, c := range s.counts {
		if 2*c > s.shingles {
			sim |= 1 << uint(b)
		}
	}
	return sim
}

// shingleHash combines the hashes of the last min(words, ShingleSize) words,
// oldest first, and mixes the result (the splitmix64 finaliser) so that every
// bit of the shingle hash depends on every word.
func shingleHash(ring [ShingleSize]uint64, words int) uint64 {
	n := min(words, ShingleSize)
	h := uint64(n)
	// ring holds the last words oldest first, right-aligned.
	for _, w := range ring[ShingleSize-n:] {
		h = bits.RotateLeft64(h, 23) ^ w
		h *= 0x9E3779B97F4A7C15
	}
	return mix64(h)
}

// shingle3 is shingleHash of a full shingle of words a, b, c, unrolled.
func shingle3(a, b, c uint64) uint64 {
	h := (bits.RotateLeft64(ShingleSize, 23) ^ a) * 0x9E3779B97F4A7C15
	h = (bits.RotateLeft64(h, 23) ^ b) * 0x9E3779B97F4A7C15
	h = (bits.RotateLeft64(h, 23) ^ c) * 0x9E3779B97F4A7C15
	return mix64(h)
}

// mix64 is the splitmix64 finaliser.
func mix64(h uint64) uint64 {
	h ^= h >> 30
	h *= 0xBF58476D1CE4E5B9
	h ^= h >> 27
	h *= 0x94D049BB133111EB
	h ^= h >> 31
	return h
}

// HammingDistance returns the number of bits in which a and b differ; two
// simhashes at most 3 bits apart mark near-duplicate texts.
func HammingDistance(a, b uint64) int {
	return bits.OnesCount64(a ^ b)
}
