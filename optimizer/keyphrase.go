package optimizer

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/clipperhouse/uax29/v2/words"
	"github.com/seokit/seokit/internal/textfold"
	"github.com/seokit/seokit/seo"
)

// kphrase is a parsed keyphrase.
type kphrase struct {
	phrase string   // as given, quotes removed
	exact  bool     // quoted: exact, ordered matching
	keys   []string // distinct content keys (non-exact), in phrase order
	seq    []string // exact: folded words in order
	seqKey []string // exact: keys of seq, for the index
	words  []string // content words as lowercased
	fnOnly bool
}

func (a *analysis) parseKeyphrase(raw string) kphrase {
	s := strings.TrimSpace(raw)
	k := kphrase{}
	for _, q := range [][2]string{{`"`, `"`}, {"“", "”"}, {"„", "“"}, {"«", "»"}} {
		if len(s) >= len(q[0])+len(q[1]) && strings.HasPrefix(s, q[0]) && strings.HasSuffix(s, q[1]) {
			s = strings.TrimSpace(s[len(q[0]) : len(s)-len(q[1])])
			k.exact = true
			break
		}
	}
	k.phrase = s
	// Without spaces between words, the words of a keyphrase are its
	// characters: only the phrase as written is a match.
	k.exact = k.exact || a.unspaced
	toks := a.tokensOf(s)
	if k.exact {
		for _, t := range toks {
			k.seq = append(k.seq, textfold.Diacritics(t.core))
			k.seqKey = append(k.seqKey, t.key)
			k.words = append(k.words, t.lower)
		}
		k.keys = dedupe(k.seqKey)
		return k
	}
	var content []*word
	for _, t := range toks {
		if !t.stop {
			content = append(content, t)
		}
	}
	if len(content) == 0 {
		k.fnOnly = true
		content = toks
	}
	for _, t := range content {
		k.words = append(k.words, t.lower)
		k.keys = append(k.keys, t.key)
	}
	k.keys = dedupe(k.keys)
	return k
}

func dedupe(in []string) []string {
	out := in[:0:0]
	seen := map[string]bool{}
	for _, s := range in {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// buildIndex maps each key of the keyphrases to the indices of the body
// tokens that have it. Only the keyphrases' keys are indexed, so the index
// holds at most one entry per body token.
func (a *analysis) buildIndex(ks []kphrase) {
	a.index = map[string][]int32{}
	for i := range ks {
		for _, key := range ks[i].keys {
			a.index[key] = nil
		}
		for _, key := range ks[i].seqKey {
			a.index[key] = nil
		}
	}
	for i := range a.d.toks {
		if a.cancel.done() {
			return
		}
		if a.sentBody[a.d.toks[i].sent] < 0 {
			continue
		}
		key := a.d.word(i).key
		if l, ok := a.index[key]; ok {
			a.index[key] = append(l, int32(i))
		}
	}
}

// occurrence is a match in one sentence; its matched tokens are
// toks[t0:t1] of the list matchBody returns with it.
type occurrence struct {
	sent   int32 // sentence index
	count  int32
	t0, t1 int32
}

// matchBody finds the keyphrase in the body sentences: the occurrences,
// in sentence order, and the tokens they matched.
func (a *analysis) matchBody(k *kphrase) ([]occurrence, []int32) {
	if len(k.keys) == 0 {
		return nil, nil
	}
	if k.exact {
		return a.matchExact(k)
	}
	lists := make([][]int32, len(k.keys))
	for i, key := range k.keys {
		lists[i] = a.index[key]
		if len(lists[i]) == 0 {
			return nil, nil
		}
	}
	sort.Slice(lists, func(i, j int) bool { return len(lists[i]) < len(lists[j]) })
	var out []occurrence
	var toks []int32
	first := lists[0]
	for i := 0; i < len(first); {
		si := a.d.toks[first[i]].sent
		s := a.d.sents[si]
		j := i
		for j < len(first) && a.d.toks[first[j]].sent == si {
			j++
		}
		count := j - i
		t0 := len(toks)
		toks = append(toks, first[i:j]...)
		for _, l := range lists[1:] {
			lo := sort.Search(len(l), func(x int) bool { return l[x] >= s.w0 })
			hi := sort.Search(len(l), func(x int) bool { return l[x] >= s.w1 })
			count = min(count, hi-lo)
			if count == 0 {
				break
			}
			toks = append(toks, l[lo:hi]...)
		}
		if count > 0 {
			out = append(out, occurrence{sent: si, count: int32(count), t0: int32(t0), t1: int32(len(toks))})
		} else {
			toks = toks[:t0]
		}
		i = j
	}
	return out, toks
}

func (a *analysis) matchExact(k *kphrase) ([]occurrence, []int32) {
	var out []occurrence
	var toks []int32
	n := len(k.seq)
	for _, pos := range a.index[k.seqKey[0]] {
		p := int(pos)
		si := a.d.toks[p].sent
		s := a.d.sents[si]
		if p+n > int(s.w1) {
			continue
		}
		ok := true
		for x := 0; x < n; x++ {
			if textfold.Diacritics(a.d.word(p+x).core) != k.seq[x] {
				ok = false
				break
			}
		}
		if !ok {
			continue
		}
		t0 := len(toks)
		for x := 0; x < n; x++ {
			toks = append(toks, int32(p+x))
		}
		if l := len(out); l > 0 && out[l-1].sent == si {
			out[l-1].count++
			out[l-1].t1 = int32(len(toks))
		} else {
			out = append(out, occurrence{sent: si, count: 1, t0: int32(t0), t1: int32(len(toks))})
		}
	}
	return out, toks
}

// matchTokens matches the keyphrase against a short text's tokens: share
// is the fraction of keys present, count the number of matches.
func matchTokens(k *kphrase, toks []*word) (share float64, count int) {
	if len(k.keys) == 0 {
		return 0, 0
	}
	if k.exact {
		n := len(k.seq)
		for i := 0; i+n <= len(toks); i++ {
			ok := true
			for x := 0; x < n; x++ {
				if textfold.Diacritics(toks[i+x].core) != k.seq[x] {
					ok = false
					break
				}
			}
			if ok {
				count++
			}
		}
		if count > 0 {
			return 1, count
		}
		present := 0
		for _, key := range k.keys {
			for _, t := range toks {
				if t.key == key {
					present++
					break
				}
			}
		}
		return float64(present) / float64(len(k.keys)) * 0.99, 0
	}
	present := 0
	count = math.MaxInt
	for _, key := range k.keys {
		c := 0
		for _, t := range toks {
			if t.key == key {
				c++
			}
		}
		if c > 0 {
			present++
		}
		count = min(count, c)
	}
	return float64(present) / float64(len(k.keys)), count
}

// keyphrases runs the keyphrase checks for every keyphrase.
func (a *analysis) keyphrases() {
	if len(a.req.Keywords) == 0 {
		a.assess("seo", IDKeyphraseMissing, "", 0)
		a.finding(IDKeyphraseMissing, "", "no keyphrase was given; set the phrase you want this text to rank for", seo.Evidence{Element: "keywords"}, nil)
		return
	}
	t := a.keyphraseTexts()
	ks := make([]kphrase, len(a.req.Keywords))
	for i, raw := range a.req.Keywords {
		ks[i] = a.parseKeyphrase(raw)
	}
	a.buildIndex(ks)
	if !a.introKeys(t) {
		return
	}
	seenKeys := map[string]string{}
	for i := range ks {
		if a.cancel.done() {
			return
		}
		k := ks[i]
		kr := a.keyphrase(&k, t)
		a.competing(&kr, &k, i, seenKeys)
		a.r.Keyphrases = append(a.r.Keyphrases, kr)
	}
}

// keyphraseTexts are the short texts every keyphrase is looked for in,
// tokenised once for all of them.
type keyphraseTexts struct {
	title         []*word
	descSents     [][]*word
	subheads      textList
	subheadBlocks []int32 // the blocks of the H2 and H3 subheadings
	altGroups     []textGroup
	anchorGroups  []textGroup
	nAlts         int
	nAnchors      int
	slug          []*word
	intro         int // the first paragraph's block, -1 when none
	// introKeys are the keyphrases' keys that the first paragraph has
	// (filled by introKeys once the index is built).
	introKeys map[string]bool
}

// keyphraseTexts tokenises the title, the meta description's sentences,
// the subheadings, the images' alt texts, the links' anchors and the slug,
// and finds the first paragraph.
func (a *analysis) keyphraseTexts() *keyphraseTexts {
	t := &keyphraseTexts{title: a.tokensOf(a.title), intro: -1, introKeys: map[string]bool{}}
	for _, s := range sentencesOf(a.desc) {
		t.descSents = append(t.descSents, a.tokensOf(s))
	}
	for bi := range a.d.blocks {
		b := &a.d.blocks[bi]
		if b.kind == kindHeading && (b.level == 2 || b.level == 3) {
			t.subheads.words = a.appendTokens(t.subheads.words, b.text)
			t.subheads.ends = append(t.subheads.ends, int32(len(t.subheads.words)))
			t.subheadBlocks = append(t.subheadBlocks, int32(bi))
		}
	}
	alts := make([][]*word, len(a.ps.images))
	for i, im := range a.ps.images {
		alts[i] = a.tokensOf(im.alt)
	}
	anchors := make([][]*word, len(a.ps.links))
	for i, l := range a.ps.links {
		anchors[i] = a.tokensOf(l.anchor)
	}
	t.altGroups, t.anchorGroups = groupTexts(alts), groupTexts(anchors)
	t.nAlts, t.nAnchors = len(alts), len(anchors)
	t.slug = a.tokensOf(slugWords(a.req.Slug))
	for bi := range a.d.blocks {
		if b := &a.d.blocks[bi]; b.kind == kindParagraph && b.w1 > b.w0 {
			t.intro = bi
			break
		}
	}
	return t
}

// introKeys fills t.introKeys from the first paragraph's words (the index
// must be built). It returns false when the analysis was canceled.
func (a *analysis) introKeys(t *keyphraseTexts) bool {
	if t.intro < 0 {
		return true
	}
	for ti := int(a.d.blocks[t.intro].w0); ti < int(a.d.blocks[t.intro].w1); ti++ {
		if a.cancel.done() {
			return false
		}
		if key := a.d.word(ti).key; !t.introKeys[key] {
			if _, ok := a.index[key]; ok {
				t.introKeys[key] = true
			}
		}
	}
	return true
}

// competing marks keyphrase i as competing with an earlier one of the same
// set of keys; seenKeys maps each set seen to its first phrase.
func (a *analysis) competing(kr *Keyphrase, k *kphrase, i int, seenKeys map[string]string) {
	if len(k.keys) == 0 {
		return
	}
	sorted := append([]string(nil), k.keys...)
	sort.Strings(sorted)
	sig := strings.Join(sorted, "\x00")
	if other, ok := seenKeys[sig]; ok {
		kr.CompetesWith = append(kr.CompetesWith, other)
		a.finding(IDCompeting, k.phrase, fmt.Sprintf("the keyphrases %q and %q target the same words; keep one, or choose a distinct phrase", other, k.phrase),
			seo.Evidence{Element: "keywords", Value: k.phrase, Detail: fmt.Sprintf("keywords[%d]", i)}, nil)
	} else {
		seenKeys[sig] = k.phrase
	}
}

// keyphraseRun is one keyphrase's checks over one text: each step reads
// the text and fills kr, adding findings and assessments.
type keyphraseRun struct {
	a     *analysis
	k     *kphrase
	t     *keyphraseTexts
	kr    Keyphrase
	id    string
	occ   []occurrence // the body's sentences with the keyphrase
	spans spanList     // where it occurs
}

func (c *keyphraseRun) ev(el string) seo.Evidence {
	return seo.Evidence{Element: el, Value: seo.Clip(c.k.phrase)}
}

// keyphrase runs the checks of one keyphrase, in order; a step that sees
// the analysis canceled ends them.
func (a *analysis) keyphrase(k *kphrase, t *keyphraseTexts) Keyphrase {
	c := &keyphraseRun{a: a, k: k, t: t, id: k.phrase, kr: Keyphrase{Phrase: k.phrase, Exact: k.exact, Words: k.words}}
	if c.kr.Words == nil {
		c.kr.Words = []string{}
	}
	c.length()
	c.occurrences()
	c.density()
	c.introduction()
	c.title()
	c.description()
	if !c.subheadings() || !c.alts() {
		return c.kr
	}
	c.slug()
	if !c.distribution() {
		return c.kr
	}
	c.competingLinks()
	return c.kr
}

// length: a keyphrase of function words only, or of too many content
// words.
func (c *keyphraseRun) length() {
	k, n := c.k, len(c.k.keys)
	if k.fnOnly {
		c.a.finding(IDKeyphraseFunctionWords, c.id, fmt.Sprintf("the keyphrase %q has only function words; add the words that carry its meaning", k.phrase), c.ev("keywords"), nil)
	} else if !k.exact {
		s := band(n <= 4, n <= 8)
		c.a.assess("seo", IDKeyphraseTooLong, c.id, s)
		if s < 9 {
			c.a.finding(IDKeyphraseTooLong, c.id, fmt.Sprintf("the keyphrase %q has %d content words; 1 to 4 are recommended", k.phrase, n), c.ev("keywords"), nil)
		}
	}
}

// occurrences finds the keyphrase in the body: uses, forms, spans, the
// densest window of 100 words and sentences that repeat it.
func (c *keyphraseRun) occurrences() {
	a, k, kr, d := c.a, c.k, &c.kr, c.a.d
	occ, occToks := a.matchBody(k)
	c.occ = occ
	forms := map[string]bool{}
	var positions []int32
	for _, o := range occ {
		kr.Occurrences += int(o.count)
		kr.MaxPerSentence = max(kr.MaxPerSentence, int(o.count))
		ot := occToks[o.t0:o.t1]
		slices.Sort(ot)
		for _, ti := range ot {
			if len(forms) < 20 {
				forms[d.word(int(ti)).lower] = true
			}
			c.spans.add(d.tokSpan(int(ti)))
		}
		for n := int32(0); n < o.count; n++ {
			positions = append(positions, ot[0])
		}
	}
	kr.Spans = c.spans.spans
	kr.Truncated.Note("spans", c.spans.total, len(c.spans.spans))
	for f := range forms {
		kr.Forms = append(kr.Forms, f)
	}
	sort.Strings(kr.Forms)
	// Densest window of 100 words.
	for i, j := 0, 0; j < len(positions) && !a.unspaced; j++ {
		for positions[j]-positions[i] >= 100 {
			i++
		}
		kr.MaxPer100Words = max(kr.MaxPer100Words, j-i+1)
	}
	if kr.MaxPerSentence >= 3 {
		var rep spanList
		for _, o := range occ {
			if o.count >= 3 {
				rep.add(a.sentSpan(int(o.sent)))
			}
		}
		kr.StuffingSignals = append(kr.StuffingSignals, fmt.Sprintf("used %d times in one sentence", kr.MaxPerSentence))
		a.finding(IDRepeatedInSentence, c.id, fmt.Sprintf("a sentence uses %q %d times; once per sentence reads naturally", k.phrase, kr.MaxPerSentence), c.ev("content"), &rep)
	}
}

// density rates the uses against the text's length: the range of uses and
// the verdict come from useRange, so the summary, the finding and the
// assessment cannot disagree.
func (c *keyphraseRun) density() {
	a, k, kr, id := c.a, c.k, &c.kr, c.id
	n := len(k.keys)
	words := a.r.Stats.Words
	if words <= 0 || len(k.keys) == 0 {
		return
	}
	occN := kr.Occurrences
	factor := 0.7 + float64(max(n, 1))/3
	kr.Density = round2(100 * float64(occN) / float64(words))
	kr.AdjustedDensity = round2(kr.Density * factor)
	u := useRange(words, n, k.exact || !a.p.full())
	kr.RecommendedMin, kr.RecommendedMax = u.min, u.max
	kr.DensityRating = u.rate(occN)
	score := 9
	inWords := fmt.Sprintf("%q occurs %d times in %d words (density %.2f%%)", k.phrase, occN, words, kr.Density)
	switch kr.DensityRating {
	case DensityNotFound:
		score = 4
		a.finding(IDKeyphraseNotFound, id, fmt.Sprintf("the keyphrase %q does not occur in the text; use it %s", k.phrase, u.advice()), c.ev("content"), nil)
	case DensityLow:
		score = 4
		a.finding(IDDensityLow, id, fmt.Sprintf("%s; use it %s", inWords, u.advice()), seo.Measure("content", float64(occN), float64(u.min)), &c.spans)
	case DensityHigh:
		score = -10
		a.finding(IDDensityHigh, id, fmt.Sprintf("%s; use it %s", inWords, u.advice()), seo.Measure("content", float64(occN), float64(u.max)), &c.spans)
	case DensityStuffing:
		score = -50
		kr.StuffingSignals = append(kr.StuffingSignals, fmt.Sprintf("%d uses in %d words, more than %d", occN, words, u.stuffing))
		a.finding(IDStuffing, id, fmt.Sprintf("%s: that is keyword stuffing; use it %s", inWords, u.advice()), seo.Measure("content", float64(occN), float64(u.max)), &c.spans)
	}
	a.assess("seo", "keyphrase.density", id, score)
}

// introduction: the first paragraph uses the keyphrase in one sentence.
func (c *keyphraseRun) introduction() {
	a, k, kr, id, t := c.a, c.k, &c.kr, c.id, c.t
	if t.intro < 0 || len(k.keys) == 0 {
		return
	}
	b := &a.d.blocks[t.intro]
	for _, o := range c.occ {
		if o.sent >= b.s0 && o.sent < b.s1 {
			kr.InIntroduction = true
			break
		}
	}
	score := 9
	if !kr.InIntroduction {
		all := true
		for _, key := range k.keys {
			if !t.introKeys[key] {
				all = false
				break
			}
		}
		if all && !k.exact {
			score = 6
			a.finding(IDIntroductionSplit, id, fmt.Sprintf("the first paragraph has the words of %q only across sentences; use them together in one sentence", k.phrase), c.ev("content"), oneSpan(a.blockSpan(b)))
		} else {
			score = 3
			a.finding(IDNotInIntroduction, id, fmt.Sprintf("the first paragraph does not use %q; mention it early", k.phrase), c.ev("content"), oneSpan(a.blockSpan(b)))
		}
	}
	a.assess("seo", IDNotInIntroduction, id, score)
}

// title: the title has the keyphrase, as one phrase at its start.
func (c *keyphraseRun) title() {
	a, k, kr, id, titleToks := c.a, c.k, &c.kr, c.id, c.t.title
	if a.title == "" || len(k.keys) == 0 {
		return
	}
	share, count := matchTokens(k, titleToks)
	in := share >= 1
	kr.InTitle = &in
	atStart := false
	phrase := count > 0 && k.exact
	if !k.exact && in {
		var content []*word
		for _, t := range titleToks {
			if !t.stop {
				content = append(content, t)
			}
		}
		for i := 0; i+len(k.keys) <= len(content); i++ {
			ok := true
			for x, key := range k.keys {
				if content[i+x].key != key {
					ok = false
					break
				}
			}
			if ok {
				phrase = true
				atStart = i == 0
				break
			}
		}
	} else if k.exact && phrase {
		atStart = len(titleToks) >= len(k.seq) && textfold.Diacritics(titleToks[0].core) == k.seq[0]
		if !atStart {
			for i, t := range titleToks {
				if !t.stop {
					atStart = textfold.Diacritics(titleToks[i].core) == k.seq[0]
					break
				}
			}
		}
	}
	kr.TitleAtStart = &atStart
	score := 9
	switch {
	case !in:
		score = 2
		a.finding(IDNotInTitle, id, fmt.Sprintf("the title does not contain %q; put it in, near the start", k.phrase), seo.Evidence{Element: "title", Value: seo.Clip(a.title)}, nil)
	case !phrase || !atStart:
		score = 6
		a.finding(IDTitleNotAtStart, id, fmt.Sprintf("the title contains %q but not as one phrase at its start; move it to the beginning", k.phrase), seo.Evidence{Element: "title", Value: seo.Clip(a.title)}, nil)
	}
	a.assess("seo", IDNotInTitle, id, score)
}

// description: the meta description uses the keyphrase once or twice.
func (c *keyphraseRun) description() {
	a, k, kr, id := c.a, c.k, &c.kr, c.id
	if a.desc == "" || len(k.keys) == 0 {
		return
	}
	m := 0
	for _, s := range c.t.descSents {
		if share, _ := matchTokens(k, s); share >= 1 {
			m++
		}
	}
	kr.InDescription = &m
	score := 9
	switch {
	case m == 0:
		score = 3
		a.finding(IDNotInDescription, id, fmt.Sprintf("the meta description does not use %q; include it once", k.phrase), seo.Evidence{Element: "description", Value: seo.Clip(a.desc)}, nil)
	case m > 2:
		score = 3
		kr.StuffingSignals = append(kr.StuffingSignals, fmt.Sprintf("used in %d sentences of the meta description", m))
		a.finding(IDDescriptionOverused, id, fmt.Sprintf("%d sentences of the meta description use %q; once or twice is enough", m, k.phrase), seo.Evidence{Element: "description", Value: seo.Clip(a.desc)}, nil)
	}
	a.assess("seo", IDNotInDescription, id, score)
}

// subheadings: 30% to 75% of the H2 and H3 subheadings reflect the
// keyphrase. It returns false when the analysis was canceled.
func (c *keyphraseRun) subheadings() bool {
	a, k, kr, id, t := c.a, c.k, &c.kr, c.id, c.t
	kr.Subheadings = len(t.subheadBlocks)
	if len(t.subheadBlocks) == 0 || len(k.keys) == 0 {
		return true
	}
	need := 1.0
	if a.p.full() && !k.exact && len(k.keys) > 1 {
		need = 0.5
	}
	var unmatched spanList
	for i, bi := range t.subheadBlocks {
		if a.cancel.done() {
			return false
		}
		h := t.subheads.at(i)
		if share, _ := matchTokens(k, h); share >= need {
			kr.SubheadingsMatched++
		} else {
			unmatched.add(a.blockSpan(&a.d.blocks[bi]))
		}
	}
	pct := percent(kr.SubheadingsMatched, len(t.subheadBlocks))
	score := 9
	switch {
	case len(t.subheadBlocks) == 1 && kr.SubheadingsMatched == 1:
	case pct < 30:
		score = 3
		a.finding(IDNotInSubheadings, id, fmt.Sprintf("%d of %d H2/H3 subheadings reflect %q; use it (or its words) in 30%% to 75%% of them", kr.SubheadingsMatched, len(t.subheadBlocks), k.phrase), seo.Measure("subheadings", pct, 30), &unmatched)
	case pct > 75:
		score = 3
		kr.StuffingSignals = append(kr.StuffingSignals, fmt.Sprintf("in %.0f%% of the subheadings", pct))
		a.finding(IDSubheadingsOverused, id, fmt.Sprintf("%d of %d H2/H3 subheadings reflect %q; vary them, 75%% at most", kr.SubheadingsMatched, len(t.subheadBlocks), k.phrase), seo.Measure("subheadings", pct, 75), nil)
	}
	a.assess("seo", IDNotInSubheadings, id, score)
	return true
}

// alts: the images' alt texts describe the relevant images with the
// keyphrase, without overusing it. It returns false when the analysis was
// canceled.
func (c *keyphraseRun) alts() bool {
	a, k, kr, id, nAlts := c.a, c.k, &c.kr, c.id, c.t.nAlts
	kr.Images = nAlts
	if nAlts == 0 || len(k.keys) == 0 {
		return true
	}
	for _, g := range c.t.altGroups {
		if a.cancel.done() {
			return false
		}
		if share, _ := matchTokens(k, g.toks); share >= 0.5 {
			kr.AltMatched += len(g.idx)
		}
	}
	pct := percent(kr.AltMatched, nAlts)
	score := 9
	switch {
	case nAlts < 5 && kr.AltMatched == 0, nAlts >= 5 && pct < 30:
		score = 6
		a.finding(IDNotInAlt, id, fmt.Sprintf("%d of %d images have %q in their alt text; describe the relevant ones with it", kr.AltMatched, nAlts, k.phrase), seo.Measure("img alt", pct, 30), nil)
	case nAlts >= 5 && pct > 75:
		score = 6
		kr.StuffingSignals = append(kr.StuffingSignals, fmt.Sprintf("in %.0f%% of the image alt texts", pct))
		a.finding(IDAltOverused, id, fmt.Sprintf("%d of %d images have %q in their alt text; describe each image as it is", kr.AltMatched, nAlts, k.phrase), seo.Measure("img alt", pct, 75), nil)
	}
	a.assess("seo", IDNotInAlt, id, score)
	return true
}

// slug: the URL slug has the keyphrase.
func (c *keyphraseRun) slug() {
	a, k, kr, id := c.a, c.k, &c.kr, c.id
	if a.req.Slug == "" || len(k.keys) == 0 {
		return
	}
	in := a.inSlug(k, c.t.slug)
	kr.InSlug = &in
	score := 9
	if !in {
		score = 6
		a.finding(IDNotInSlug, id, fmt.Sprintf("the slug does not contain %q; try %q", k.phrase, slugify(a.r.Language, k.words)), seo.Evidence{Element: "slug", Value: seo.Clip(a.req.Slug)}, nil)
	}
	a.assess("seo", IDNotInSlug, id, score)
}

// distribution: the longest run of body sentences without the keyphrase.
// It returns false when the analysis was canceled.
func (c *keyphraseRun) distribution() bool {
	a, k, kr, id, occ := c.a, c.k, &c.kr, c.id, c.occ
	total := len(a.bodySents)
	if total == 0 || kr.Occurrences == 0 {
		return true
	}
	gap, best, bestEnd := 0, 0, -1
	oi := 0
	for pos, si32 := range a.bodySents {
		if a.cancel.done() {
			return false
		}
		si := int(si32)
		if oi < len(occ) && int(occ[oi].sent) == si {
			oi++
			gap = 0
			continue
		}
		gap++
		if gap > best {
			best, bestEnd = gap, pos
		}
	}
	kr.LongestGap = best
	kr.GapRatio = round2(float64(best) / float64(total))
	score := 9
	if total >= 15 {
		switch {
		case kr.GapRatio > 0.5:
			score = 1
		case kr.GapRatio >= 0.3:
			score = 6
		}
	}
	if score < 9 {
		sp := Span{a.d.sentSpan(int(a.bodySents[bestEnd-best+1])).Start, a.d.sentSpan(int(a.bodySents[bestEnd])).End}
		a.finding(IDPoorDistribution, id, fmt.Sprintf("%d sentences in a row (%.0f%% of the text) do not use %q; spread it through the text", best, 100*kr.GapRatio, k.phrase), seo.Measure("content", kr.GapRatio, 0.3), oneSpan(sp))
	}
	a.assess("seo", IDPoorDistribution, id, score)
	return true
}

// competingLinks: links whose anchor text is the keyphrase and nothing
// more tell search engines another page is about it. It returns false
// when the analysis was canceled.
func (c *keyphraseRun) competingLinks() bool {
	a, k, kr, id := c.a, c.k, &c.kr, c.id
	if c.t.nAnchors == 0 || len(k.keys) == 0 {
		return true
	}
	var where spanList
	for _, g := range c.t.anchorGroups {
		if a.cancel.done() {
			return false
		}
		anc := g.toks
		share, _ := matchTokens(k, anc)
		if share < 1 {
			continue
		}
		extra := false
		for _, t := range anc {
			if !t.stop && !contains(k.keys, t.key) {
				extra = true
				break
			}
		}
		if !extra {
			kr.CompetingLinks += len(g.idx)
			for _, i := range g.idx {
				o := a.ps.links[i].offset
				where.add(Span{o, o + len(a.ps.links[i].anchor)})
			}
		}
	}
	score := 8
	if kr.CompetingLinks > 0 {
		score = 2
		kr.StuffingSignals = append(kr.StuffingSignals, fmt.Sprintf("%d links use it as anchor text", kr.CompetingLinks))
		a.finding(IDCompetingLinks, id, fmt.Sprintf("%d links have %q as their anchor text, which tells search engines another page is about it; reword the anchors", kr.CompetingLinks, k.phrase), c.ev("a"), &where)
	}
	a.assess("seo", IDCompetingLinks, id, score)
	return true
}

// Density ratings of Keyphrase.DensityRating.
const (
	DensityGood     = "good"
	DensityNotFound = "not_found"
	DensityLow      = "low"
	DensityHigh     = "high"
	DensityStuffing = "stuffing"
)

// uses is the density rule of one keyphrase in one text, in numbers of
// uses: min to max uses are good, more than stuffing are keyword stuffing.
// min is at least 1 and max at least min.
type uses struct {
	min, max, stuffing int
}

// useRange is the one place the density rule lives (Yoast's, see the
// package documentation): a text of fewer than 51 words takes 1 use (2 are
// too many, 3 stuffing), one of fewer than 100 words 1 or 2 (3 too many, 4
// stuffing); a longer one takes the uses whose adjusted density
// 100 × uses / words × (0.7 + n/3), n content words, is from 0.5% to 3.5%
// (3% for an exact keyphrase or without word forms), and over 4% is
// stuffing. One use is never too many: a keyphrase so long that one use
// passes the bounds is rated good once.
func useRange(words, n int, exactForms bool) uses {
	switch {
	case words < 51:
		return uses{1, 1, 2}
	case words < 100:
		return uses{1, 2, 3}
	}
	// 100 × factor = 10 × (21 + 10n) / 3, so the bounds b × words / (100 ×
	// factor) are computed in integers as 3 × (10b) × words / (100 × d).
	d := int64(21 + 10*max(n, 1))
	w := int64(words)
	upper := int64(35)
	if exactForms {
		upper = 30
	}
	u := uses{
		min: int((15*w + 100*d - 1) / (100 * d)),
		max: int(3 * upper * w / (100 * d)),
	}
	u.stuffing = int(120 * w / (100 * d))
	u.min = max(u.min, 1)
	u.max = max(u.max, u.min)
	u.stuffing = max(u.stuffing, u.max)
	return u
}

// rate rates a number of uses.
func (u uses) rate(n int) string {
	switch {
	case n == 0:
		return DensityNotFound
	case n < u.min:
		return DensityLow
	case n <= u.max:
		return DensityGood
	case n <= u.stuffing:
		return DensityHigh
	}
	return DensityStuffing
}

// advice says how often to use the keyphrase: "once", "3 times", "2 to 6
// times".
func (u uses) advice() string {
	switch {
	case u.min == u.max && u.max == 1:
		return "once"
	case u.min == u.max:
		return fmt.Sprintf("%d times", u.max)
	}
	return fmt.Sprintf("%d to %d times", u.min, u.max)
}

// textList holds the words of many short texts in one array: text i is
// words[ends[i-1]:ends[i]].
type textList struct {
	words []*word
	ends  []int32
}

func (l *textList) at(i int) []*word {
	start := int32(0)
	if i > 0 {
		start = l.ends[i-1]
	}
	return l.words[start:l.ends[i]]
}

// textGroup is a set of identical short texts (alt texts, anchors).
type textGroup struct {
	toks []*word
	idx  []int // positions of the texts, in order
}

// groupTexts merges identical short texts, so that a keyphrase is compared
// once with each distinct text.
func groupTexts(texts [][]*word) []textGroup {
	var out []textGroup
	at := map[string]int{}
	var b strings.Builder
	for i, toks := range texts {
		b.Reset()
		for _, t := range toks {
			b.WriteString(t.core)
			b.WriteByte(0)
		}
		sig := b.String()
		if g, ok := at[sig]; ok {
			out[g].idx = append(out[g].idx, i)
			continue
		}
		at[sig] = len(out)
		out = append(out, textGroup{toks: toks, idx: []int{i}})
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// slugWords turns a slug or URL into words: the last path segment, with
// hyphens, underscores and dots as spaces.
func slugWords(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, "?#"); i >= 0 {
		s = s[:i]
	}
	s = strings.TrimRight(s, "/")
	if i := strings.LastIndexByte(s, '/'); i >= 0 {
		s = s[i+1:]
	}
	return strings.NewReplacer("-", " ", "_", " ", ".", " ", "+", " ").Replace(s)
}

// slugify builds a slug for language lang from words: lowercase, written
// in ASCII the way the language does when its letters lose their marks
// (transliterate), joined by hyphens; runs of ideographs and kana stay
// together, as such scripts put no space between words.
func slugify(lang string, ws []string) string {
	var b strings.Builder
	prevIdeo := false
	for _, w := range ws {
		it := words.FromString(transliterate(lang, strings.ReplaceAll(strings.ToLower(w), "'", " ")))
		for it.Next() {
			v := it.Value()
			if !isWordToken(v) {
				continue
			}
			ideo := isIdeographic(v)
			if b.Len() > 0 && !(ideo && prevIdeo) {
				b.WriteByte('-')
			}
			b.WriteString(v)
			prevIdeo = ideo
		}
	}
	return b.String()
}

// isIdeographic reports whether a word is written in Han, Hiragana or
// Katakana.
func isIdeographic(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana)
}

// inSlug reports whether the slug's words reflect the keyphrase: all its
// words, or more than half of them for a keyphrase of 3 or more words.
// A slug written with the language's transliteration (gruener-tee for
// "grüner Tee") counts too.
func (a *analysis) inSlug(k *kphrase, slug []*word) bool {
	has := func(k *kphrase) bool {
		share, _ := matchTokens(k, slug)
		return share >= 1 || (len(k.keys) > 2 && share > 0.5)
	}
	if has(k) {
		return true
	}
	plain := strings.Join(k.words, " ")
	alt := strings.ReplaceAll(slugify(a.r.Language, k.words), "-", " ")
	if alt == "" || alt == textfold.Diacritics(plain) {
		return false
	}
	t := a.parseKeyphrase(alt)
	return has(&t)
}
