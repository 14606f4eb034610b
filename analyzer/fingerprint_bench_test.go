package analyzer

import (
	"bytes"
	"fmt"
	"hash/fnv"
	"math/bits"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
)

// v1TextBuilder is textBuilder of fingerprint version 1, which classified
// and hashed the text byte by byte with FNV-1a, kept as the baseline of
// BenchmarkMainTextVsV1 (TestV1TextBuilder holds it to version 1).
type v1TextBuilder struct {
	buf      []byte
	words    int
	textHash uint64
	sim      v1SimState
	ipsum    bool
}

func newV1TextBuilder() *v1TextBuilder { return &v1TextBuilder{textHash: fnvOffset64} }

func (tb *v1TextBuilder) fingerprint() Fingerprint {
	if tb.words == 0 {
		return Fingerprint{Version: 1}
	}
	s := &tb.sim
	if s.shingles == 0 {
		s.add(v1ShingleHash(s.ring, s.words))
	}
	return Fingerprint{Version: 1, TextHash: tb.textHash, SimHash: s.sum()}
}

// v1AppendText is appendText feeding a v1TextBuilder.
func v1AppendText(tb *v1TextBuilder, n *html.Node, dropChrome bool) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch c.Type {
		case html.TextNode:
			tb.appendWords(c.Data)
		case html.ElementNode:
			if skipTextRef[c.DataAtom] || (dropChrome && chromeRef[c.DataAtom]) || c.Namespace != "" || inertTemplate(c) {
				continue
			}
			if _, hidden := Attr(c, "hidden"); hidden {
				continue
			}
			v1AppendText(tb, c, dropChrome)
		}
	}
}

func (tb *v1TextBuilder) appendWords(s string) {
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
			th, wh = v1HashLowerRune(r, tb.spaced(), fnvOffset64)
			tb.endWord(s[i:i+size], th, wh)
			start = -1
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
			if start < 0 {
				start, th, wh = i, tb.spaced(), fnvOffset64
			}
			th, wh = v1HashLowerRune(r, th, wh)
		case r == '’' && start >= 0 && i+size < len(s) && isWordByte(s[i+size:]):
			th, wh = v1HashLowerRune(r, th, wh)
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

func (tb *v1TextBuilder) spaced() uint64 {
	if len(tb.buf) > 0 {
		return (tb.textHash ^ ' ') * fnvPrime64
	}
	return tb.textHash
}

func (tb *v1TextBuilder) endWord(w string, th, wh uint64) {
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

func v1HashLowerRune(r rune, th, wh uint64) (uint64, uint64) {
	var buf [utf8.UTFMax]byte
	n := utf8.EncodeRune(buf[:], unicode.ToLower(r))
	for _, b := range buf[:n] {
		th = (th ^ uint64(b)) * fnvPrime64
		wh = (wh ^ uint64(b)) * fnvPrime64
	}
	return th, wh
}

// fingerprintTextV1 is FingerprintText of version 1 (FNV-1a byte by byte,
// shingles mixed with three multiplications and the splitmix64
// finaliser), kept as the baseline of BenchmarkFingerprintTextVsV1.
func fingerprintTextV1(text string) Fingerprint {
	var s v1SimState
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
		return Fingerprint{Version: 1}
	}
	if s.shingles == 0 {
		// Fewer words than a shingle: hash what there is as one shingle.
		s.add(v1ShingleHash(s.ring, s.words))
	}
	return Fingerprint{Version: 1, TextHash: textHash, SimHash: s.sum()}
}

// v1SimState accumulates the simhash. Bit counts are kept in byte lanes:
// lanes[j] holds, in its byte k, how many shingle hashes had bit 8k+j set,
// so adding a hash costs 8 operations instead of 64. Lanes are flushed into
// counts before a byte can overflow.
type v1SimState struct {
	ring     [ShingleSize]uint64
	words    int
	shingles int
	pending  int
	lanes    [8]uint64
	counts   [64]int
}

func (s *v1SimState) word(h uint64) {
	s.ring[0], s.ring[1], s.ring[2] = s.ring[1], s.ring[2], h
	s.words++
	if s.words >= ShingleSize {
		s.add(v1Shingle3(s.ring[0], s.ring[1], h))
	}
}

func (s *v1SimState) add(h uint64) {
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

func (s *v1SimState) flush() {
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
func (s *v1SimState) sum() uint64 {
	s.flush()
	var sim uint64
	for b, c := range s.counts {
		if 2*c > s.shingles {
			sim |= 1 << uint(b)
		}
	}
	return sim
}

func v1ShingleHash(ring [ShingleSize]uint64, words int) uint64 {
	n := min(words, ShingleSize)
	h := uint64(n)
	// ring holds the last words oldest first, right-aligned.
	for _, w := range ring[ShingleSize-n:] {
		h = bits.RotateLeft64(h, 23) ^ w
		h *= 0x9E3779B97F4A7C15
	}
	return v1Mix64(h)
}

func v1Shingle3(a, b, c uint64) uint64 {
	h := (bits.RotateLeft64(ShingleSize, 23) ^ a) * 0x9E3779B97F4A7C15
	h = (bits.RotateLeft64(h, 23) ^ b) * 0x9E3779B97F4A7C15
	h = (bits.RotateLeft64(h, 23) ^ c) * 0x9E3779B97F4A7C15
	return v1Mix64(h)
}

func v1Mix64(h uint64) uint64 {
	h ^= h >> 30
	h *= 0xBF58476D1CE4E5B9
	h ^= h >> 27
	h *= 0x94D049BB133111EB
	h ^= h >> 31
	return h
}

// TestV1Baseline holds the baselines of the benchmarks to version 1: the
// text hash is FNV-1a of the lowercased text, and the v1 builder's
// fingerprint is fingerprintTextV1 of the text it builds.
func TestV1Baseline(t *testing.T) {
	t.Parallel()
	text := "The Quick brown FOX jumps"
	h := fnv.New64a()
	h.Write([]byte(strings.ToLower(text)))
	if got, want := fingerprintTextV1(text).TextHash, h.Sum64(); got != want {
		t.Errorf("version 1 TextHash = %x, want FNV-1a %x", got, want)
	}
	for k, body := range benchPages(t, 20) {
		tb := newV1TextBuilder()
		v1AppendText(tb, body, true)
		if got, want := tb.fingerprint(), fingerprintTextV1(string(tb.buf)); got != want || tb.words == 0 {
			t.Fatalf("page %d: v1 builder %+v (%d words), fingerprintTextV1 %+v", k, got, tb.words, want)
		}
		tb2 := getTextBuilder()
		appendText(tb2, body, true)
		if string(tb2.buf) != string(tb.buf) || tb2.words != tb.words || tb2.ipsum != tb.ipsum {
			t.Fatalf("page %d: the text differs from version 1's", k)
		}
		putTextBuilder(tb2)
	}
}

// proseWords is the vocabulary of benchPages' generated prose: common
// English words, as a crawled site's text mostly has, and a few accented
// and long ones.
var proseWords = strings.Fields(`the a of and to in is was for on that with as by at from this be are or it
	an which have not has had were but their more been one all also its new when after there can would who so
	page site crawl search engine index link title content article category review guide news report data
	market price product service customer support design system network server browser mobile desktop video
	image photo music travel food health sport science history city country world people time year day week
	team game player match season club league result score record story idea plan project work study school
	learn teach book author reader writer paper letter word language voice light water fire earth air stone
	information development international performance über café naïve résumé`)

// benchPages returns the bodies of the corpus pages (SEOKIT_CORPUS), or of
// n generated pages laid out as a crawled site's articles: a navigation
// bar, a heading, paragraphs of 60 to 120 words of proseWords with
// sentences of about twelve words, a list of links, all indented as
// markup usually is.
func benchPages(tb testing.TB, n int) []*html.Node {
	var docs [][]byte
	if os.Getenv("SEOKIT_CORPUS") != "" {
		_, docs = corpusPages(tb)
	} else {
		rng := rand.New(rand.NewPCG(uint64(n), 1))
		para := func(sb *strings.Builder) {
			nw := 60 + rng.IntN(60)
			for j := range nw {
				w := proseWords[rng.IntN(len(proseWords))]
				if j == 0 {
					w = strings.ToUpper(w[:1]) + w[1:]
				}
				sb.WriteString(w)
				switch {
				case j == nw-1:
					sb.WriteByte('.')
				case rng.IntN(12) == 0:
					sb.WriteString(". ")
				case rng.IntN(20) == 0:
					sb.WriteString(", ")
				default:
					sb.WriteByte(' ')
				}
			}
		}
		for k := range n {
			var sb strings.Builder
			fmt.Fprintf(&sb, "<!DOCTYPE html><html><head><title>Article %d</title></head><body>\n  <nav><a href=\"/\">Home</a> <a href=\"/c\">Category</a></nav>\n  <main>\n    <h1>Article %d of the site</h1>\n", k, k)
			for range 4 + rng.IntN(12) {
				sb.WriteString("    <p>")
				para(&sb)
				sb.WriteString("</p>\n")
			}
			sb.WriteString("    <ul>\n")
			for r := range 5 {
				fmt.Fprintf(&sb, "      <li><a href=\"/a/%d\">Related article %d</a></li>\n", r, r)
			}
			sb.WriteString("    </ul>\n  </main>\n</body></html>")
			docs = append(docs, []byte(sb.String()))
		}
	}
	var bodies []*html.Node
	for _, d := range docs {
		doc, err := html.Parse(bytes.NewReader(d))
		if err != nil {
			tb.Fatal(err)
		}
		if body := findBody(doc); body != nil {
			bodies = append(bodies, body)
		}
	}
	return bodies
}

// alternate times a and b in alternated rounds, each round calling one of
// them reps times, and returns the median CPU time in nanoseconds of a
// call of each: the thread's CPU time, which a busy machine does not
// inflate as it does wall time, and alternated rounds, so that both see
// the same machine state and a disturbed round moves neither median much.
func alternate(rounds, reps int, a, b func()) (na, nb float64) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var ta, tb []float64
	for r := range 2 * rounds {
		f := a
		if r%2 == 1 {
			f = b
		}
		start := threadCPU()
		for range reps {
			f()
		}
		d := float64(threadCPU()-start) / float64(reps)
		if r%2 == 0 {
			ta = append(ta, d)
		} else {
			tb = append(tb, d)
		}
	}
	slices.Sort(ta)
	slices.Sort(tb)
	return ta[len(ta)/2], tb[len(tb)/2]
}

func BenchmarkFingerprintText(b *testing.B) {
	text := syntheticText(5, 2000)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		FingerprintText(text)
	}
}

// BenchmarkFingerprintTextVsV1 times FingerprintText and version 1's on
// the same text in alternated rounds and prints both throughputs and
// their ratio.
func BenchmarkFingerprintTextVsV1(b *testing.B) {
	text := syntheticText(5, 2000)
	var v2, v1 float64
	for b.Loop() {
		v2, v1 = alternate(41, 100, func() { FingerprintText(text) }, func() { fingerprintTextV1(text) })
	}
	mb := func(ns float64) float64 { return float64(len(text)) / ns * 1e3 }
	b.ReportMetric(mb(v2), "MB/s")
	b.ReportMetric(mb(v1), "v1-MB/s")
	b.ReportMetric(v1/v2, "x-v1")
	fmt.Printf("fingerprint: %.0f MB/s, version 1 %.0f MB/s on the same %d-byte text: %.2fx (CPU time, medians of alternated rounds)\n",
		mb(v2), mb(v1), len(text), v1/v2)
}

// BenchmarkMainTextVsV1 times the main-text extraction with its
// fingerprint (appendText over a page body, then the fingerprint) against
// version 1's on the same pages (the corpus with SEOKIT_CORPUS, else
// generated ones) in alternated rounds, and prints the bytes of text per
// second of each and their ratio.
func BenchmarkMainTextVsV1(b *testing.B) {
	bodies := benchPages(b, 50)
	textBytes := 0
	run := func() {
		for _, body := range bodies {
			tb := getTextBuilder()
			appendText(tb, body, true)
			textBytes += len(tb.buf)
			tb.fingerprint()
			putTextBuilder(tb)
		}
	}
	run()
	perRun := textBytes
	v1buf := newV1TextBuilder()
	runV1 := func() {
		for _, body := range bodies {
			buf := v1buf.buf[:0]
			*v1buf = v1TextBuilder{buf: buf, textHash: fnvOffset64}
			v1AppendText(v1buf, body, true)
			v1buf.fingerprint()
		}
	}
	var v2, v1 float64
	for b.Loop() {
		v2, v1 = alternate(21, 1, run, runV1)
	}
	mb := func(ns float64) float64 { return float64(perRun) / ns * 1e3 }
	b.ReportMetric(mb(v2), "MB/s")
	b.ReportMetric(mb(v1), "v1-MB/s")
	b.ReportMetric(v1/v2, "x-v1")
	fmt.Printf("main text: %.0f MB/s of text, version 1 %.0f MB/s on the same %d pages (%d bytes of text): %.2fx (CPU time, medians of alternated rounds)\n",
		mb(v2), mb(v1), len(bodies), perRun, v1/v2)
}
