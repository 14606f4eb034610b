package analyzer

import (
	"encoding/binary"
	"math/bits"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/seokit/seokit/seo"
)

// fingerprintTextRef is FingerprintText from its definition, with none of
// its shortcuts: the words split by unicode.IsSpace, each lowercased rune
// by rune into a new string and hashed by wordHashRef, the text hash
// chaining the word hashes, and the simhash counting each of the 64 bits
// of every shingle hash.
func fingerprintTextRef(text string) Fingerprint {
	words := strings.FieldsFunc(text, unicode.IsSpace)
	if len(words) == 0 {
		return Fingerprint{Version: FingerprintVersion}
	}
	th := uint64(fpTextSeed)
	hs := make([]uint64, len(words))
	for k, w := range words {
		hs[k] = wordHashRef(w)
		th = (th ^ hs[k]) * fpTextMul
	}
	th = refMum(th^fpK0, uint64(len(words))^fpK1)
	if th == 0 {
		th = 1
	}
	if len(hs) < ShingleSize {
		// The missing words of the one shingle hash as 0.
		hs = append(make([]uint64, ShingleSize-len(hs)), hs...)
	}
	var counts [64]int
	shingles := 0
	for k := ShingleSize - 1; k < len(hs); k++ {
		h := refMum(hs[k-2]^bits.RotateLeft64(hs[k-1], 29)^fpK0, hs[k]^fpK2)
		for b := range 64 {
			counts[b] += int(h >> b & 1)
		}
		shingles++
	}
	var sim uint64
	for b, c := range counts {
		if 2*c > shingles {
			sim |= 1 << b
		}
	}
	return Fingerprint{Version: FingerprintVersion, TextHash: th, SimHash: sim}
}

// wordHashRef is wordHash from its definition: the word lowercased rune by
// rune (an invalid byte as U+FFFD), then hashed eight bytes per step, the
// last zero to seven bytes padded with zeros and the length in the top
// byte.
func wordHashRef(w string) uint64 {
	var b []byte
	for _, r := range w {
		b = utf8.AppendRune(b, unicode.ToLower(r))
	}
	h := uint64(fpK3)
	i := 0
	for ; len(b)-i >= 8; i += 8 {
		h = refMum(binary.LittleEndian.Uint64(b[i:])^fpK0, h^fpK1)
	}
	var tail [8]byte
	copy(tail[:], b[i:])
	return refMum(binary.LittleEndian.Uint64(tail[:])^uint64(len(b))<<56^fpK2, h^fpK1)
}

// refMum is mum with the 128-bit product written out in 32-bit halves.
func refMum(a, b uint64) uint64 {
	a0, a1, b0, b1 := a&0xffffffff, a>>32, b&0xffffffff, b>>32
	lo := a0 * b0
	mid1, mid2 := a0*b1, a1*b0
	hi := a1 * b1
	carry := (lo>>32 + mid1&0xffffffff + mid2&0xffffffff) >> 32
	hi += mid1>>32 + mid2>>32 + carry
	return hi ^ a*b
}

// TestFingerprintTextMatchesReference compares FingerprintText with the
// reference on generated texts (ASCII, accented, CJK, every kind of white
// space, invalid UTF-8, control characters, short and long words and
// texts) and on the main text of every corpus page.
func TestFingerprintTextMatchesReference(t *testing.T) {
	t.Parallel()
	texts := []string{"", " ", "a", "A b", "a  b\tc\nd\re\ff\vg", " lead trail ", "ÜBER Café Straße", "日本語のテキスト です",
		"x\u00a0y\u2003z", "it's a well-known fact", "--", "a\xffb", "Ǆ ǅ ǆ", "İstanbul ıi"}
	pieces := []string{"word", "Word", "WORD", "über", "café", "日本", " ", "  ", "\t", "\n", "\u00a0", "\u3000", ".", "'", "-", "a1", "\xc3", "Σ", "ß",
		"\v", "\f", "\u0085", "\u2028", "\x00", "\x1f", "\x7f", "@[`{", "AZaz09", "ABCDEFGH", "Donaudampfschifffahrtsgesellschaft", "ÄÖÜẞ", "İ", "\xff\xfe",
		"\xe2\x80", "x\u0301", "’", "ǅ"}
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
