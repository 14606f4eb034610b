package optimizer

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/seokit/seokit/internal/textfold"
)

// Suggestion limits, in characters.
const (
	TitleMaxChars       = 60
	DescriptionMaxChars = 155
)

// suggest builds the title, description and slug suggestions for the
// primary keyphrase, and the prominent words.
func (a *analysis) suggest() {
	a.prominent()
	if len(a.r.Keyphrases) == 0 || len(a.req.Keywords) == 0 {
		return
	}
	k := a.parseKeyphrase(a.req.Keywords[0])
	if len(k.keys) == 0 {
		return
	}
	kp := k.phrase
	sg := &a.r.Suggestions
	sg.Slug = slugify(a.r.Language, k.words)

	// Title: the given title, the first heading or the first sentence, if
	// it has the keyphrase and fits; otherwise the keyphrase followed by it.
	var cands []string
	if a.title != "" {
		cands = append(cands, a.title)
	}
	for bi := range a.d.blocks {
		if a.d.blocks[bi].kind == kindHeading {
			cands = append(cands, strings.TrimSpace(a.d.blocks[bi].text))
			break
		}
	}
	if len(a.bodySents) > 0 {
		cands = append(cands, clipBytes(a.sentText(int(a.bodySents[0])), suggestMaxBytes))
	}
	for _, c := range cands {
		if utf8.RuneCountInString(c) > TitleMaxChars {
			continue
		}
		if share, _ := matchTokens(&k, a.tokensOf(c)); share >= 1 {
			sg.Title = c
			break
		}
	}
	if sg.Title == "" {
		base := ""
		if len(cands) > 0 {
			base = strings.TrimRight(cands[0], ".!?:;, ")
		}
		// The keyphrase leads unless the base already starts with it.
		t := capitalize(kp)
		if n, lead := len(a.tokensOf(kp)), a.tokensOf(base); n > 0 && len(lead) >= n {
			if share, _ := matchTokens(&k, lead[:n]); share >= 1 {
				t = ""
			}
		}
		switch {
		case t == "":
			t = base
		case base != "":
			t += ": " + base
		}
		sg.Title = cut(t, TitleMaxChars, true)
	}

	// Description: the first body sentence with the keyphrase, cut around
	// it to fit; otherwise the keyphrase followed by the first sentence.
	// Only the body sentences with a word of the keyphrase's first key
	// can have it: the index lists those words, in order.
	last := -1
	for _, ti := range a.index[k.keys[0]] {
		if a.cancel.done() {
			return
		}
		si := int(a.d.toks[ti].sent)
		if si == last {
			continue
		}
		last = si
		pos := int(a.sentBody[si])
		s := clipBytes(a.sentText(si), suggestMaxBytes)
		if share, _ := matchTokens(&k, a.tokensOf(s)); share < 1 {
			continue
		}
		desc := fitAround(s, &k, DescriptionMaxChars)
		// Add the following sentences of the same block while they fit.
		for _, next32 := range a.bodySents[pos+1:] {
			next := int(next32)
			if desc != s || a.d.sents[next].block != a.d.sents[si].block {
				break
			}
			more := joinSentences(s, clipBytes(a.sentText(next), suggestMaxBytes))
			if utf8.RuneCountInString(more) > DescriptionMaxChars {
				break
			}
			s, desc = more, more
		}
		sg.Description = desc
		break
	}
	if sg.Description == "" {
		d := capitalize(kp)
		if len(a.bodySents) > 0 {
			d += ": " + clipBytes(a.sentText(int(a.bodySents[0])), suggestMaxBytes)
		}
		sg.Description = cut(d, DescriptionMaxChars, true)
	}
}

// suggestMaxBytes bounds the text of a sentence read for a suggestion:
// titles and descriptions are built from its start, and a longer sentence
// (no real one is) would only cost time and memory.
const suggestMaxBytes = 4096

// clipBytes returns s cut to at most n bytes at a character boundary.
func clipBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// sentText is a sentence's text as it appears in its block.
func (a *analysis) sentText(si int) string {
	s := a.d.sents[si]
	return strings.TrimSpace(a.d.blocks[s.block].text[s.cs:s.ce])
}

// fitAround cuts sentence s to at most n characters keeping the
// keyphrase's words inside: the earliest window of whole words that has
// them all, with ellipses where text was cut.
func fitAround(s string, k *kphrase, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	ws := strings.Fields(s)
	for start := 0; start < len(ws); start++ {
		var b strings.Builder
		if start > 0 {
			b.WriteString("…")
		}
		for i := start; i < len(ws); i++ {
			next := ws[i]
			if i > start {
				next = " " + next
			}
			if utf8.RuneCountInString(b.String())+utf8.RuneCountInString(next)+1 > n {
				break
			}
			b.WriteString(next)
		}
		out := strings.TrimRight(b.String(), ",;: ") + "…"
		if containsAllWords(out, k) {
			return out
		}
	}
	return cut(s, n, true)
}

// containsAllWords reports whether every word of the keyphrase occurs in s
// by lowercased, diacritic-folded prefix of its stem key.
func containsAllWords(s string, k *kphrase) bool {
	low := textfold.Diacritics(strings.ToLower(foldApostrophes(s)))
	for _, key := range k.keys {
		if !strings.Contains(low, key) {
			return false
		}
	}
	return true
}

// cut shortens s to at most n characters at a word boundary, adding an
// ellipsis when ellipsis is true and something was cut.
func cut(s string, n int, ellipsis bool) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	limit := n
	if ellipsis {
		limit--
	}
	var b strings.Builder
	for w := range strings.FieldsSeq(s) {
		add := w
		if b.Len() > 0 {
			add = " " + w
		}
		if utf8.RuneCountInString(b.String())+utf8.RuneCountInString(add) > limit {
			break
		}
		b.WriteString(add)
	}
	out := b.String()
	if out == "" {
		out = s
		for i := range s {
			if limit == 0 {
				out = s[:i]
				break
			}
			limit--
		}
	}
	out = strings.TrimRight(out, ",;:-– ")
	if ellipsis {
		out += "…"
	}
	return out
}

func capitalize(s string) string {
	r, size := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError {
		return s
	}
	return string(unicode.ToUpper(r)) + s[size:]
}

// prominent lists the ten most frequent content words of the body (by
// stem, at least twice), as their most frequent written form. At most
// vocabCap stems are counted: in a text with more, stems first seen after
// that many are left out.
func (a *analysis) prominent() {
	if len(a.d.toks) == 0 || !a.p.full() {
		return
	}
	type form struct {
		core  string
		count int
	}
	type entry struct {
		count int
		forms []form // at most 8
	}
	m := map[string]*entry{}
	for i := range a.d.toks {
		if a.cancel.done() {
			return
		}
		if a.sentBody[a.d.toks[i].sent] < 0 {
			continue
		}
		t := a.d.word(i)
		if t.stop || t.letters < 3 {
			continue
		}
		e := m[t.key]
		if e == nil {
			if len(m) >= vocabCap {
				continue
			}
			e = &entry{}
			m[t.key] = e
		}
		e.count++
		if len(e.forms) < 8 {
			k := 0
			for k < len(e.forms) && e.forms[k].core != t.core {
				k++
			}
			if k == len(e.forms) {
				e.forms = append(e.forms, form{core: t.core})
			}
			e.forms[k].count++
		}
	}
	var out []WordCount
	for _, e := range m {
		if e.count < 2 {
			continue
		}
		best, bc := "", 0
		for _, f := range e.forms {
			if f.count > bc || (f.count == bc && f.core < best) {
				best, bc = f.core, f.count
			}
		}
		out = append(out, WordCount{Word: best, Count: e.count})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].Word < out[j].Word
	})
	if len(out) > 10 {
		out = out[:10]
	}
	a.r.ProminentWords = out
}

// tips are short actions, one per finding ID.
var tips = map[string]string{
	IDContentEmpty:           "Write the text: a few sentences at least.",
	IDContentTooShort:        "Expand the text to 300 words or more.",
	IDLanguageMismatch:       "Use the locale of the language the text is written in.",
	IDTitleTooLong:           "Shorten the title to 60 characters; see the suggested title.",
	IDDescriptionTooShort:    "Lengthen the meta description to 121-155 characters; see the suggested description.",
	IDDescriptionTooLong:     "Shorten the meta description to 155 characters; see the suggested description.",
	IDKeyphraseMissing:       "Set a keyphrase.",
	IDKeyphraseFunctionWords: "Add content words to the keyphrase.",
	IDKeyphraseTooLong:       "Shorten the keyphrase to four content words or fewer.",
	IDKeyphraseNotFound:      "Use the keyphrase in the text.",
	IDDensityLow:             "Use the keyphrase a few more times.",
	IDDensityHigh:            "Use the keyphrase a little less.",
	IDStuffing:               "Remove repetitions of the keyphrase; write for readers.",
	IDRepeatedInSentence:     "Use the keyphrase at most once per sentence.",
	IDNotInTitle:             "Put the keyphrase in the title; see the suggested title.",
	IDTitleNotAtStart:        "Move the keyphrase to the start of the title.",
	IDNotInIntroduction:      "Mention the keyphrase in the first paragraph.",
	IDIntroductionSplit:      "Use the keyphrase's words together in one sentence of the first paragraph.",
	IDNotInDescription:       "Put the keyphrase in the meta description; see the suggested description.",
	IDDescriptionOverused:    "Use the keyphrase at most twice in the meta description.",
	IDNotInSubheadings:       "Use the keyphrase in some subheadings.",
	IDSubheadingsOverused:    "Vary the subheadings.",
	IDNotInAlt:               "Describe a relevant image with the keyphrase in its alt text.",
	IDAltOverused:            "Describe each image as it is rather than with the keyphrase.",
	IDNotInSlug:              "Put the keyphrase in the slug; see the suggested slug.",
	IDPoorDistribution:       "Spread the keyphrase through the text.",
	IDCompetingLinks:         "Reword link anchors that repeat the keyphrase.",
	IDCompeting:              "Give each keyphrase distinct words.",
	IDSentenceTooLong:        "Split long sentences.",
	IDParagraphTooLong:       "Break long paragraphs up.",
	IDSectionTooLong:         "Add subheadings to long sections.",
	IDNoSubheadings:          "Add subheadings.",
	IDPassiveVoice:           "Rewrite passive sentences in the active voice.",
	IDFewTransitions:         "Link sentences with transition words.",
	IDConsecutiveOpenings:    "Vary how consecutive sentences begin.",
	IDComplexWords:           "Replace complex words with simpler ones.",
	IDHardToRead:             "Use shorter sentences and words.",
}

// joinSentences joins two sentences with a space, or with none after a
// sentence of a script written without spaces (Han, Hiragana, Katakana,
// CJK punctuation such as 。).
func joinSentences(s, next string) string {
	r, _ := utf8.DecodeLastRuneInString(s)
	if unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana) || (r >= 0x3000 && r <= 0x303F) || (r >= 0xFF01 && r <= 0xFF65) {
		return s + next
	}
	return s + " " + next
}
