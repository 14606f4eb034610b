package analyzer

import (
	"bytes"
	"math/rand/v2"
	"os"
	"slices"
	"testing"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// skipTextRef and chromeRef are the sets skipsText answers from: the
// elements whose text is never main text, and the page furniture left
// out when the page has no <main> or single <article>.
var (
	skipTextRef = map[atom.Atom]bool{
		atom.Script: true, atom.Style: true, atom.Noscript: true,
		atom.Svg: true, atom.Math: true, atom.Iframe: true, atom.Object: true,
		atom.Select: true, atom.Textarea: true, atom.Button: true, atom.Head: true,
	}
	chromeRef = map[atom.Atom]bool{atom.Nav: true, atom.Header: true, atom.Footer: true, atom.Aside: true}
)

// allAtoms lists every atom the html/atom package defines, found by
// decoding each offset and length of its name table and keeping those
// that Lookup maps back to themselves.
func allAtoms() []atom.Atom {
	var as []atom.Atom
	for off := uint32(0); off < 1<<14; off++ {
		for n := uint32(1); n < 32; n++ {
			a := atom.Atom(off<<8 | n)
			if s := a.String(); s != "" && atom.Lookup([]byte(s)) == a {
				as = append(as, a)
			}
		}
	}
	return as
}

// TestSkipsTextMatchesSets holds skipsText's switch to the sets over every
// atom and the zero atom of an unknown tag, with and without page chrome.
func TestSkipsTextMatchesSets(t *testing.T) {
	t.Parallel()
	as := append(allAtoms(), 0)
	if len(as) < 300 {
		t.Fatalf("found %d atoms; the atom table was not decoded", len(as))
	}
	for _, a := range as {
		for _, drop := range []bool{false, true} {
			want := skipTextRef[a] || (drop && chromeRef[a])
			if got := skipsText(a, drop); got != want {
				t.Errorf("skipsText(%v, %v) = %v, want %v", a, drop, got, want)
			}
		}
	}
}

// firstBadHeadTagRef is the first start tag outside headAllowed that the
// tokenizer finds in head, outside noscript, as checkHeadInvalid reads it.
func firstBadHeadTagRef(head []byte) string {
	z := html.NewTokenizer(bytes.NewReader(head))
	noscript := 0
	for {
		switch tt := z.Next(); tt {
		case html.ErrorToken:
			return ""
		case html.StartTagToken, html.SelfClosingTagToken:
			name, _ := z.TagName()
			switch {
			case noscript > 0:
			case string(name) == "noscript":
				if tt == html.StartTagToken {
					noscript++
				}
			case !headAllowed[string(name)]:
				return string(name)
			}
		case html.EndTagToken:
			if name, _ := z.TagName(); noscript > 0 && string(name) == "noscript" {
				noscript--
			}
		}
	}
}

// TestHeadMayCloseEarly holds the raw pre-check of checkHeadInvalid to the
// tokenizer: over generated heads of tags, comments, scripts, noscript,
// odd case, NUL and non-ASCII names, and over the corpus's heads, a head
// the pre-check passes has no start tag that closes it; and the pre-check
// passes a fair share of them, so it is no check that always says "maybe".
func TestHeadMayCloseEarly(t *testing.T) {
	t.Parallel()
	pieces := []string{"<meta charset=x>", "<DIV>", "<script>", "</script>", "<!--", "-->", "<noscript>", "</noscript>",
		"<a", " ", "/", ">", "<", "x", "<Title>", "</title>", "<img src=a>", "<\x00", "<b\tc>", "<linkx>", "<LINK/>", "<meta/",
		"\n", "<template>", "</template>", "<style>", "</style>", "<svg>", "<\xc3\xbf", "<p", "<?x>", "<!doctype html>",
		"<html>", "<head>", "<base href=/>", "<NOSCRIPT>", "<meta\fname=a>", "<textarea>", "<iframe>", "<title", "'", `"`,
		"<meta content='<div>'>", "<script>var a='<span>';</script>", "<!-- <p> -->", "<noscript><img></noscript>"}
	rng := rand.New(rand.NewPCG(23, 29))
	passed, total := 0, 0
	check := func(head []byte) {
		total++
		if headMayCloseEarly(head) {
			return
		}
		passed++
		if bad := firstBadHeadTagRef(head); bad != "" {
			t.Errorf("headMayCloseEarly(%q) = false, but the tokenizer finds <%s>", head, bad)
		}
	}
	for range 20000 {
		var b []byte
		for range rng.IntN(10) {
			b = append(b, pieces[rng.IntN(len(pieces))]...)
		}
		check(b)
	}
	if passed < total/20 {
		t.Errorf("the pre-check passed %d heads of %d", passed, total)
	}
	if dir := os.Getenv("SEOKIT_CORPUS"); dir != "" {
		_, pages := corpusPages(t)
		for _, body := range pages {
			if end := foldIndexBytes(body, "</head"); end >= 0 {
				check(body[:end])
			}
		}
	}
	t.Logf("the pre-check passed %d heads of %d", passed, total)
}

// scanHeadRef is scanHead as one tokenizer reads the whole head, the way
// checkHeadInvalid read it before raw texts were jumped over.
func scanHeadRef(head []byte) (bad string, badOff, later int, laterTags []string) {
	z := html.NewTokenizer(bytes.NewReader(head))
	off, noscript := 0, 0
	badOff = -1
	for {
		tt := z.Next()
		raw := len(z.Raw())
		if tt == html.ErrorToken {
			break
		}
		switch tt {
		case html.StartTagToken, html.SelfClosingTagToken:
			name, _ := z.TagName()
			switch {
			case noscript > 0:
			case string(name) == "noscript":
				if tt == html.StartTagToken {
					noscript++
				}
			case bad == "" && !headAllowed[string(name)]:
				bad, badOff = string(name), off
			case bad != "":
				switch string(name) {
				case "meta", "link", "title", "base":
					later++
					if len(laterTags) < 5 {
						laterTags = append(laterTags, string(name))
					}
				}
			}
		case html.EndTagToken:
			if name, _ := z.TagName(); noscript > 0 && string(name) == "noscript" {
				noscript--
			}
		}
		off += raw
	}
	return bad, badOff, later, laterTags
}

// TestScanHeadMatchesTokenizer holds scanHead, which jumps over raw texts,
// to one tokenizer reading the whole head: the same first disallowed tag,
// offset, later head tags and names, jumping over every raw text (minSkip
// 0) and over long ones, for generated heads of scripts, styles, titles,
// noscript and textarea whose texts hold near-miss end tags, end tags in
// other cases or without their '>', script comments ("<!--") that keep an
// end tag from ending the script, and texts cut by the end of the input;
// and for the corpus's heads.
func TestScanHeadMatchesTokenizer(t *testing.T) {
	t.Parallel()
	opens := []string{"<script>", "<SCRIPT type=x>", "<script/>", "<style>", "<Style media='a>b'>", "<title>", "<noscript>",
		"<textarea>", "<iframe>", "<xmp>", "<noembed>", "<noframes>", "<scripts>", "<div>", "<meta name=a>", "<link rel=x>",
		"<base href=/>", "<title/>", "<p>", "<img src=a>", "<!-- x -->", "</noscript>", "<plaintext>"}
	texts := []string{"var a = 1;", "</scrip", "</script", "</scriptx>", "</SCRIPT>", "</script >", "</script/", "</Script\t",
		"</style>", "</STYLE\n", "</title>", "</noscript>", "</textarea>", "</iframe>", "</xmp>", "</noembed>", "</noframes>",
		"<!--", "-->", "<script>", "<!-", "<div>", "<meta>", "<", "</", "x", " ", "\n", "'", `"`, "<!--<script>", "</script>-->",
		"<\x00", "é", "</scr</script>"}
	rng := rand.New(rand.NewPCG(31, 37))
	for k := range 8000 {
		var b []byte
		for range 1 + rng.IntN(8) {
			b = append(b, opens[rng.IntN(len(opens))]...)
			for range rng.IntN(6) {
				b = append(b, texts[rng.IntN(len(texts))]...)
			}
			if k%3 == 0 {
				b = append(b, bytes.Repeat([]byte("x = 1; "), rng.IntN(200))...)
			}
		}
		compareScanHead(t, b)
	}
	if os.Getenv("SEOKIT_CORPUS") != "" {
		_, pages := corpusPages(t)
		for _, body := range pages {
			if end := foldIndexBytes(body, "</head"); end >= 0 {
				compareScanHead(t, body[:end])
			}
			compareScanHead(t, body[:min(len(body), 200<<10)])
		}
	}
}

func compareScanHead(t *testing.T, head []byte) {
	t.Helper()
	bad, off, later, tags := scanHeadRef(head)
	for _, minSkip := range []int{0, rawSkipMin} {
		b, o, l, ts := scanHead(head, minSkip)
		if b != bad || o != off || l != later || !slices.Equal(ts, tags) {
			t.Fatalf("scanHead(%q, %d) = %q %d %d %q, the tokenizer finds %q %d %d %q", head, minSkip, b, o, l, ts, bad, off, later, tags)
		}
	}
}

// TestLangLookupMatchesMap holds the stop-word table to the map it is
// built from: every stop word, every stop word with one byte changed, cut
// or lengthened (by a zero byte too), and random words of ASCII and
// non-ASCII letters and zero bytes.
func TestLangLookupMatchesMap(t *testing.T) {
	t.Parallel()
	if 2*langWordCount > langTableSize {
		t.Fatalf("%d stop words fill more than half of the %d slots", langWordCount, langTableSize)
	}
	check := func(w []byte) {
		t.Helper()
		want, wok := langWordIndex[string(w)]
		if got, ok := langLookup(w); ok != wok || got != want {
			t.Fatalf("langLookup(%q) = %v %v, the map has %v %v", w, got, ok, want, wok)
		}
	}
	rng := rand.New(rand.NewPCG(41, 43))
	found := 0
	for w := range langWordIndex {
		b := []byte(w)
		check(b)
		if _, ok := langLookup(b); ok {
			found++
		}
		check(b[:len(b)-1])
		check(append(slices.Clone(b), 'e'))
		c := slices.Clone(b)
		c[rng.IntN(len(c))] ^= byte(1 + rng.IntN(255))
		check(c)
	}
	if found != langWordCount {
		t.Fatalf("found %d stop words of %d", found, langWordCount)
	}
	for w := range langWordIndex {
		check(append([]byte(w), 0)) // a zero byte packs as the padding does
		check(append([]byte{0}, w...))
	}
	letters := []string{"a", "e", "s", "t", "n", "é", "ü", "и", "е", "ç", "ß", "o", "d", "r", "\x00"}
	for range 50000 {
		var b []byte
		for range 1 + rng.IntN(9) {
			b = append(b, letters[rng.IntN(len(letters))]...)
		}
		check(b)
	}
}
