package analyzer

import (
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

// TestFingerprintTextHashIsWordSequence shows TextHash a hash of the
// sequence of lowercased words: white space and case do not count, the
// words and their order do.
func TestFingerprintTextHashIsWordSequence(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a, b string
		same bool
	}{
		{"The Quick brown FOX", "the quick brown fox", true},
		{"the quick  brown\tfox\n", " the\u00a0quick brown\u3000fox", true},
		{"ÜBER straße", "über STRASSE", false}, // ToLower keeps ß
		{"Über Straße", "über straße", true},
		{"the quick brown fox", "quick the brown fox", false},
		{"ab c", "a bc", false},
		{"abcdefgh ijk", "abcdefghijk", false},
		{"abcdefgh", "abcdefgh\x00", false},
	}
	for _, tc := range tests {
		fa, fb := FingerprintText(tc.a), FingerprintText(tc.b)
		if (fa.TextHash == fb.TextHash) != tc.same {
			t.Errorf("TextHash(%q) == TextHash(%q) is %v, want %v", tc.a, tc.b, fa.TextHash == fb.TextHash, tc.same)
		}
		if fa.Version != FingerprintVersion || fa.TextHash == 0 {
			t.Errorf("FingerprintText(%q) = %+v, want version %d and a text hash", tc.a, fa, FingerprintVersion)
		}
	}
}

func TestFingerprintEmpty(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", "   ", "\u00a0\n"} {
		if fp := FingerprintText(s); fp != (Fingerprint{Version: FingerprintVersion}) {
			t.Errorf("FingerprintText(%q) = %+v, want zero hashes of version %d", s, fp, FingerprintVersion)
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
