package optimizer

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/clipperhouse/uax29/v2/sentences"
	"github.com/clipperhouse/uax29/v2/words"
)

// word is the language data of one distinct written form.
type word struct {
	surface string // the word as written
	lower   string // lowercased, apostrophes folded
	core    string // lower without clitics (l', 's)
	key     string // stem with diacritics folded, for matching
	syl     int16
	letters int16
	runes   int16
	stop    bool
}

// token is one word of the content. It is kept small (12 bytes): a 10 MiB
// text has up to a few million of them. Its language data is in the doc's
// vocabulary or, for a form beyond vocabCap, in the doc's rare list.
type token struct {
	bs   int32 // byte offset in its block's text
	w    int32 // index in doc.vocab, or -1-i for rare form i (doc.rareForm)
	sent int32
}

// rareForm is the language data of one token whose form did not fit in
// the vocabulary, computed once when the token is read (20 bytes). Its
// lowercase forms are derived again on use: that is cheap, unlike the
// stem and the syllables.
type rareForm struct {
	n int32 // length of the surface form in bytes
	// The key is surface[k0:k1] when it is a substring of the surface
	// form, else doc.rareKeys[-1-k0].
	k0, k1              int32
	syl, letters, runes int16
	stop                bool
}

// sentence is one sentence of a block (20 bytes).
type sentence struct {
	cs, ce int32 // offsets of its trimmed text in the block's text
	w0, w1 int32 // token range
	block  int32
}

// sentSpan returns the content offsets of sentence si.
func (d *doc) sentSpan(si int) Span {
	s := d.sents[si]
	b := &d.blocks[s.block]
	return Span{b.orig(d.pieces, int(s.cs)), b.orig(d.pieces, int(s.ce)-1) + 1}
}

// vocabCap bounds the distinct written forms whose language data a doc
// keeps (about 120 bytes each); the tokens of rarer forms keep theirs in
// the doc's rare list (20 bytes each), so no form is analysed twice by the
// same token.
const vocabCap = 1 << 16

// doc is the segmented content.
type doc struct {
	p      *profile
	blocks []block
	pieces []piece // the blocks' offset maps
	sents  []sentence
	toks   []token
	st     *stemmer
	cancel *canceler
	vocab  []word
	ids    map[string]int32 // surface form -> index in vocab
	// rare holds the data of the tokens whose form is not in vocab, in
	// chunks of rareChunk: a list grown by copying would hold its old and
	// new arrays at once.
	rare  [][]rareForm
	nRare int32
	// rareKeys are the keys of rare forms that are not a substring of
	// their surface form.
	rareKeys []string
}

func newDoc(p *profile, c *canceler) *doc {
	return &doc{p: p, st: newStemmer(p), cancel: c, ids: map[string]int32{}}
}

// newWord computes the language data of a surface form.
func (d *doc) newWord(surface string) word {
	t := word{surface: surface}
	// A "word" longer than maxWordBytes is not language: its forms and
	// syllables are read from its first maxWordBytes, so that one 10 MiB
	// run of letters costs no more than a long word (its length in runes
	// and letters still counts in full).
	t.lower = lowerWord(prefix(surface, maxWordBytes))
	t.core = stripClitics(d.p.code, t.lower)
	t.key = d.st.key(t.core)
	t.stop = d.p.stopwords[t.core] || d.p.stopwords[t.lower]
	n, rn := 0, 0
	counted := t.core
	if len(surface) > maxWordBytes {
		counted = surface
	}
	for _, r := range counted {
		rn++
		if r < utf8.RuneSelf {
			if ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') {
				n++
			}
		} else if unicode.IsLetter(r) {
			n++
		}
	}
	t.runes = int16(min(rn, 1<<14))
	t.letters = int16(min(n, 1<<14))
	if n > 0 {
		t.syl = int16(min(d.p.syllables(t.core), 1<<14))
	}
	return t
}

// maxWordBytes is the longest word whose forms are computed in full; see
// newWord.
const maxWordBytes = 1024

// prefix returns s cut to at most n bytes at a rune boundary.
func prefix(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// intern returns the vocabulary index of a surface form, adding it while
// the vocabulary has room, or -1.
func (d *doc) intern(surface string) int32 {
	if id, ok := d.ids[surface]; ok {
		return id
	}
	if len(d.vocab) >= vocabCap {
		return -1
	}
	id := int32(len(d.vocab))
	d.vocab = append(d.vocab, d.newWord(surface))
	d.ids[surface] = id
	return id
}

// addRare records the language data of a token of surface form w that is
// not in the vocabulary and returns its token.w.
func (d *doc) addRare(w string) int32 {
	t := d.newWord(w)
	r := rareForm{n: int32(len(w)), syl: t.syl, letters: t.letters, runes: t.runes, stop: t.stop}
	if i := strings.Index(w, t.key); i >= 0 {
		r.k0, r.k1 = int32(i), int32(i+len(t.key))
	} else {
		r.k0 = int32(-1 - len(d.rareKeys))
		d.rareKeys = append(d.rareKeys, t.key)
	}
	if d.nRare%rareChunk == 0 {
		d.rare = append(d.rare, make([]rareForm, 0, rareChunk))
	}
	d.rare[len(d.rare)-1] = append(d.rare[len(d.rare)-1], r)
	d.nRare++
	return -d.nRare
}

// rareChunk is the number of rare forms per chunk of doc.rare (80 KB).
const rareChunk = 4096

// rareForm returns the data of the token whose token.w is w < 0.
func (d *doc) rareForm(w int32) *rareForm {
	i := -1 - w
	return &d.rare[i/rareChunk][i%rareChunk]
}

// wordInfo returns the language data of a surface form.
func (d *doc) wordInfo(surface string) *word {
	if id := d.intern(surface); id >= 0 {
		return &d.vocab[id]
	}
	w := d.newWord(surface)
	return &w
}

// word returns the language data of token i. It is returned by value so
// that the data of a form not in the vocabulary is not left on the heap.
func (d *doc) word(i int) word {
	t := d.toks[i]
	if t.w >= 0 {
		return d.vocab[t.w]
	}
	r := d.rareForm(t.w)
	surface := d.tokBlock(i).text[t.bs : t.bs+r.n]
	w := word{surface: surface, syl: r.syl, letters: r.letters, runes: r.runes, stop: r.stop}
	w.lower = lowerWord(surface)
	w.core = stripClitics(d.p.code, w.lower)
	if r.k0 >= 0 {
		w.key = surface[r.k0:r.k1]
	} else {
		w.key = d.rareKeys[-1-r.k0]
	}
	return w
}

// sentWords are the tokens [w0, w0+n) of a sentence.
type sentWords struct {
	d     *doc
	w0, n int
}

func (d *doc) sentWords(si int) sentWords {
	s := d.sents[si]
	return sentWords{d: d, w0: int(s.w0), n: int(s.w1 - s.w0)}
}

func (s sentWords) at(i int) word { return s.d.word(s.w0 + i) }

// tokBlock returns the block of token i.
func (d *doc) tokBlock(i int) *block { return &d.blocks[d.sents[d.toks[i].sent].block] }

// surface returns token i as written.
func (d *doc) surface(i int) string {
	t := d.toks[i]
	if t.w >= 0 {
		return d.vocab[t.w].surface
	}
	return d.tokBlock(i).text[t.bs : t.bs+d.rareForm(t.w).n]
}

// tokSpan returns the content offsets of token i.
func (d *doc) tokSpan(i int) Span {
	t := d.toks[i]
	b := d.tokBlock(i)
	n := len(d.surface(i))
	return Span{b.orig(d.pieces, int(t.bs)), b.orig(d.pieces, int(t.bs)+n-1) + 1}
}

// segment splits every block into sentences and words. The doc takes
// blocks and pieces over: it fills the blocks' ranges in place. It stops
// early when the doc's context is done.
func (d *doc) segment(blocks []block, pieces []piece) {
	words, sents := 0, len(blocks)
	for i := range blocks {
		w, s := estimateUnits(blocks[i].text)
		words += w
		sents += s
	}
	d.toks = make([]token, 0, words+16)
	d.sents = make([]sentence, 0, sents+4)
	d.blocks, d.pieces = blocks, pieces
	for bi := range blocks {
		if d.cancel.done() {
			return
		}
		blk := &blocks[bi]
		blk.s0, blk.w0 = int32(len(d.sents)), int32(len(d.toks))
		if blk.kind == kindHeading || blk.kind == kindTableCell || blk.kind == kindCaption {
			// Not prose: one unit, never split into sentences.
			d.addSentence(bi, blk, 0, len(blk.text))
		} else {
			d.splitSentences(bi, blk)
		}
		blk.s1, blk.w1 = int32(len(d.sents)), int32(len(d.toks))
	}
}

// estimateUnits estimates the words and sentence ends of s cheaply, so
// that the token and sentence lists are allocated once at about their
// size rather than grown (growing holds the old and the new list at once).
// A word starts where a letter or digit (ASCII, or a two-byte character
// such as Latin with diacritics, Greek or Cyrillic) follows anything else;
// every character of three bytes or more (CJK, kana ...) may be a word.
func estimateUnits(s string) (words, sents int) {
	in := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 0xE0:
			words++
			in = false
			if c == 0xE3 && i+2 < len(s) && s[i+1] == 0x80 && s[i+2] == 0x82 { // 。
				sents++
			}
		case c >= 0xC0, '0' <= c && c <= '9', 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
			if !in {
				words++
				in = true
			}
		case c >= 0x80: // continuation byte
		default:
			in = false
			if c == '.' || c == '!' || c == '?' {
				sents++
			}
		}
	}
	return words, sents
}

// splitSentences uses the Unicode sentence boundaries, then joins back
// breaks that follow an abbreviation, an initial or (German) an ordinal,
// and breaks followed by a lowercase letter.
func (d *doc) splitSentences(bi int, blk *block) {
	it := sentences.FromString(blk.text)
	start := -1
	end := 0
	for it.Next() && !d.cancel.done() {
		s, e := it.Start(), it.End()
		if start < 0 {
			start = s
		}
		end = e
		seg := blk.text[start:end]
		if e < len(blk.text) && d.joinNext(strings.TrimSpace(seg), blk.text[e:]) {
			continue
		}
		d.addSentence(bi, blk, start, end)
		start = -1
	}
	if start >= 0 {
		d.addSentence(bi, blk, start, end)
	}
}

func (d *doc) joinNext(seg, next string) bool {
	next = strings.TrimLeft(next, " \t\"'“”‘’«»(")
	if next == "" {
		return false
	}
	r, _ := utf8.DecodeRuneInString(next)
	if unicode.IsLower(r) {
		return true
	}
	if !strings.HasSuffix(seg, ".") {
		return false
	}
	body := seg[:len(seg)-1]
	i := strings.LastIndexAny(body, " \t(\"'“«")
	last := body[i+1:]
	if last == "" {
		return false
	}
	if d.p.code == "de" && len(last) <= 2 && last[0] >= '0' && last[0] <= '9' {
		return true // ordinal: "am 3. Mai"
	}
	if utf8.RuneCountInString(last) == 1 {
		lr, _ := utf8.DecodeRuneInString(last)
		return unicode.IsUpper(lr) // an initial: "J. Smith"
	}
	return d.p.abbreviation[lowerWord(last)]
}

// addSentence records text[s:e] of block bi as a sentence and its words.
func (d *doc) addSentence(bi int, blk *block, s, e int) {
	seg := blk.text[s:e]
	trimmed := strings.TrimSpace(seg)
	if trimmed == "" {
		return
	}
	lead := strings.Index(seg, trimmed)
	sn := sentence{cs: int32(s + lead), ce: int32(s + lead + len(trimmed)), block: int32(bi), w0: int32(len(d.toks))}
	idx := int32(len(d.sents))
	it := words.FromString(seg)
	for it.Next() && !d.cancel.done() {
		w := it.Value()
		if !isWordToken(w) {
			continue
		}
		id := d.intern(w)
		if id < 0 {
			id = d.addRare(w)
		}
		d.toks = append(d.toks, token{bs: int32(s + it.Start()), w: id, sent: idx})
	}
	sn.w1 = int32(len(d.toks))
	if sn.w1 == sn.w0 {
		return // no words: an emoji line or punctuation
	}
	d.sents = append(d.sents, sn)
}

func isWordToken(w string) bool {
	c := w[0]
	if c < utf8.RuneSelf {
		return ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9') || (c == '\'' && len(w) > 1 && hasWordChar(w))
	}
	return hasWordChar(w)
}
