package analyzer

import (
	"math/bits"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/seokit/seokit/seo"
)

// fingerprintTextRef is FingerprintText as first written, byte by byte and
// word by word: TestFingerprintTextMatchesReference holds the fast one to
// the same hashes, which stored crawls compare across versions.
func fingerprintTextRef(text string) Fingerprint {
	var s refSimState
	textHash := uint64(fnvOffset64)
	wordHash := uint64(fnvOffset64)
	inWord, nonSpace := false, false
	var buf [utf8.UTFMax]byte
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf {
			i++
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			textHash = (textHash ^ uint64(c)) * fnvPrime64
			if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
				if inWord {
					s.word(wordHash)
					wordHash, inWord = fnvOffset64, false
				}
				continue
			}
			nonSpace, inWord = true, true
			wordHash = (wordHash ^ uint64(c)) * fnvPrime64
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
		s.add(refShingleHash(s.ring, s.words))
	}
	return Fingerprint{TextHash: textHash, SimHash: s.sum()}
}

// refSimState accumulates the simhash. Bit counts are kept in byte lanes:
// lanes[j] holds, in its byte k, how many shingle hashes had bit 8k+j set,
// so adding a hash costs 8 operations instead of 64. Lanes are flushed into
// counts before a byte can overflow.
type refSimState struct {
	ring     [ShingleSize]uint64
	words    int
	shingles int
	pending  int
	lanes    [8]uint64
	counts   [64]int
}

func (s *refSimState) word(h uint64) {
	copy(s.ring[:], s.ring[1:])
	s.ring[ShingleSize-1] = h
	s.words++
	if s.words >= ShingleSize {
		s.add(refShingleHash(s.ring, ShingleSize))
	}
}

func (s *refSimState) add(h uint64) {
	const ones = 0x0101010101010101
	for j := range s.lanes {
		s.lanes[j] += (h >> uint(j)) & ones
	}
	s.shingles++
	if s.pending++; s.pending == 255 {
		s.flush()
	}
}

func (s *refSimState) flush() {
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
func (s *refSimState) sum() uint64 {
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
func refShingleHash(ring [ShingleSize]uint64, words int) uint64 {
	n := min(words, ShingleSize)
	h := uint64(n)
	// ring holds the last words oldest first, right-aligned.
	for _, w := range ring[ShingleSize-n:] {
		h = bits.RotateLeft64(h, 23) ^ w
		h *= 0x9E3779B97F4A7C15
	}
	h ^= h >> 30
	h *= 0xBF58476D1CE4E5B9
	h ^= h >> 27
	h *= 0x94D049BB133111EB
	h ^= h >> 31
	return h
}

// TestFingerprintTextMatchesReference compares FingerprintText with the
// reference on generated texts (ASCII, accented, CJK, every kind of white
// space, short and long) and on the main text of every corpus page.
func TestFingerprintTextMatchesReference(t *testing.T) {
	t.Parallel()
	texts := []string{"", " ", "a", "A b", "a  b\tc\nd\re\ff\vg", " lead trail ", "ÜBER Café Straße", "日本語のテキスト です",
		"x\u00a0y\u2003z", "it's a well-known fact", "--", "a\xffb", "Ǆ ǅ ǆ", "İstanbul ıi"}
	pieces := []string{"word", "Word", "WORD", "über", "café", "日本", " ", "  ", "\t", "\n", "\u00a0", "\u3000", ".", "'", "-", "a1", "\xc3", "Σ", "ß"}
	rng := rand.New(rand.NewPCG(7, 11))
	for range 2000 {
		var sb strings.Builder
		for range rng.IntN(60) {
			sb.WriteString(pieces[rng.IntN(len(pieces))])
		}
		texts = append(texts, sb.String())
	}
	for seed := range uint64(20) {
		texts = append(texts, syntheticText(seed, int(seed)*300))
	}
	if os.Getenv("SEOKIT_CORPUS") != "" {
		cfg, err := newConfig(&Options{})
		if err != nil {
			t.Fatal(err)
		}
		_, pages := corpusPages(t)
		for _, body := range pages {
			pg := newPage(&seo.Response{URL: "https://example.com/", Status: 200, Header: corpusHeader, Body: body}, cfg)
			texts = append(texts, pg.MainText)
			if want := fingerprintTextRef(pg.MainText); !pg.hasMainFP || pg.mainFP != want {
				t.Errorf("main text of %.60q: fingerprint while extracted %+v (%v), reference %+v", pg.MainText, pg.mainFP, pg.hasMainFP, want)
			}
		}
	}
	for _, s := range texts {
		if got, want := FingerprintText(s), fingerprintTextRef(s); got != want {
			t.Errorf("FingerprintText(%.60q) = %+v, reference %+v", s, got, want)
		}
	}
}

// TestMainTextFingerprint holds the fingerprint computed while the main
// text is extracted to the reference's of the extracted text, on generated
// pages of every kind of text (the corpus's are compared above).
func TestMainTextFingerprint(t *testing.T) {
	t.Parallel()
	cfg, err := newConfig(&Options{})
	if err != nil {
		t.Fatal(err)
	}
	pieces := []string{"word", "Word", "WORD", "über", "CAFÉ", "日本語", " ", "\n", "\u00a0", ".", "'", "-", "’", "a1", "\xc3", "Σ",
		"ß", "</p><p>", "<b>", "</b>", "<script>x y</script>", "<nav>menu</nav>", "&amp;", "İ", "don't", "e-mail", "x\u0301",
		"lorem ", "Lorem ", "LOREM ", "ipsum", "Ipsum", "IPSUM", "iPsum", "ipsumdolor", "x-ipsum"}
	rng := rand.New(rand.NewPCG(3, 5))
	lorem := 0
	for k := range 500 {
		var sb strings.Builder
		sb.WriteString("<!DOCTYPE html><html><head><title>t</title></head><body><p>")
		for range rng.IntN(80) {
			sb.WriteString(pieces[rng.IntN(len(pieces))])
		}
		pg := newPage(&seo.Response{URL: "https://example.com/", Status: 200, Header: corpusHeader, Body: []byte(sb.String())}, cfg)
		want := fingerprintTextRef(pg.MainText)
		if !pg.hasMainFP || pg.mainFP != want {
			t.Fatalf("page %d, main text %q: fingerprint while extracted %+v, reference %+v", k, pg.MainText, pg.mainFP, want)
		}
		if got := FingerprintText(pg.MainText); got != want {
			t.Fatalf("page %d: FingerprintText %+v, reference %+v", k, got, want)
		}
		if got, want := pg.loremIndex(), loremIndex(pg.MainText); got != want {
			t.Fatalf("page %d, main text %q: lorem ipsum at %d, by a scan of the text %d", k, pg.MainText, got, want)
		}
		if loremIndex(pg.MainText) >= 0 {
			lorem++
		}
	}
	if lorem == 0 {
		t.Error("no generated page held lorem ipsum: the comparison of loremIndex proved nothing")
	}
	t.Logf("%d of 500 generated pages held lorem ipsum", lorem)
}
