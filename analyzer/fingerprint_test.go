package analyzer

import (
	"hash/fnv"
	"math/rand/v2"
	"strings"
	"testing"
)

// syntheticText returns n words drawn from a fixed vocabulary with a seeded
// generator, so the same seed always yields the same text.
func syntheticText(seed uint64, n int) string {
	vocab := strings.Fields(`search engine page site crawl index link title
		description heading content word text rank query domain audit report
		canonical robots sitemap redirect status mobile image speed score
		keyword market product price review guide story river mountain green
		blue quiet loud early late north south east west summer winter über
		café naïve résumé`)
	rng := rand.New(rand.NewPCG(seed, seed^0x5eed))
	words := make([]string, n)
	for i := range words {
		words[i] = vocab[rng.IntN(len(vocab))]
	}
	return strings.Join(words, " ")
}

func TestFingerprintText(t *testing.T) {
	t.Parallel()
	long := syntheticText(1, 1500)
	words := strings.Fields(long)
	edited := append([]string(nil), words...)
	edited[700] = "replacement"
	editedText := strings.Join(edited, " ")

	tests := []struct {
		name    string
		a, b    string
		sameTxt bool
		maxBits int // inclusive bound on the simhash distance; -1 to skip
		minBits int // inclusive lower bound
	}{
		{name: "identical", a: long, b: long, sameTxt: true, maxBits: 0},
		{name: "case ignored", a: "Hello Big World Again", b: "hello big world again", sameTxt: true, maxBits: 0},
		{name: "non-ASCII case ignored", a: "ÜBER Café Straße", b: "über café straße", sameTxt: true, maxBits: 0},
		{name: "one word edited in a long text", a: long, b: editedText, maxBits: 3},
		{name: "unrelated texts", a: long, b: syntheticText(2, 1500), maxBits: 64, minBits: 12},
		{name: "short texts differ", a: "red apple", b: "green pear", maxBits: 64, minBits: 8},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fa, fb := FingerprintText(tc.a), FingerprintText(tc.b)
			if (fa.TextHash == fb.TextHash) != tc.sameTxt {
				t.Errorf("TextHash equal = %v, want %v", fa.TextHash == fb.TextHash, tc.sameTxt)
			}
			d := HammingDistance(fa.SimHash, fb.SimHash)
			if d > tc.maxBits || d < tc.minBits {
				t.Errorf("simhash distance %d, want in [%d, %d]", d, tc.minBits, tc.maxBits)
			}
		})
	}
}

func TestFingerprintTextHashIsFNV1a(t *testing.T) {
	t.Parallel()
	text := "The Quick brown FOX jumps"
	h := fnv.New64a()
	h.Write([]byte(strings.ToLower(text)))
	if got, want := FingerprintText(text).TextHash, h.Sum64(); got != want {
		t.Errorf("TextHash = %x, want FNV-1a %x", got, want)
	}
}

func TestFingerprintEmpty(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", "   "} {
		if fp := FingerprintText(s); fp != (Fingerprint{}) {
			t.Errorf("FingerprintText(%q) = %+v, want zero", s, fp)
		}
	}
}

func TestFingerprintExtractor(t *testing.T) {
	t.Parallel()
	body := "<html><head><title>T</title></head><body><main><p>" + syntheticText(3, 200) + "</p></main></body></html>"
	rep := analyzeString(t, body, "", nil, nil)
	if rep.Fingerprint.TextHash == 0 || rep.Fingerprint.SimHash == 0 {
		t.Fatalf("fingerprint not filled: %+v", rep.Fingerprint)
	}
	again := analyzeString(t, strings.Replace(body, "<title>T</title>", "<title>Other</title>", 1), "https://example.com/other", nil, nil)
	if again.Fingerprint != rep.Fingerprint {
		t.Errorf("same main text gave different fingerprints: %+v vs %+v", rep.Fingerprint, again.Fingerprint)
	}
}

func TestHammingDistance(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		a, b uint64
		want int
	}{
		{"equal", 0xdeadbeef, 0xdeadbeef, 0},
		{"one bit", 0, 1 << 63, 1},
		{"all bits", 0, ^uint64(0), 64},
		{"three bits", 0b1011, 0b0000, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := HammingDistance(tc.a, tc.b); got != tc.want {
				t.Errorf("HammingDistance = %d, want %d", got, tc.want)
			}
		})
	}
}

func TestFingerprintTextAllocs(t *testing.T) {
	text := syntheticText(4, 2000)
	if n := testing.AllocsPerRun(20, func() { FingerprintText(text) }); n != 0 {
		t.Errorf("FingerprintText allocates %v times per call, want 0", n)
	}
}

func BenchmarkFingerprintText(b *testing.B) {
	text := syntheticText(5, 2000)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		FingerprintText(text)
	}
}
