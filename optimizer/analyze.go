package optimizer

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/clipperhouse/uax29/v2/sentences"
	"github.com/clipperhouse/uax29/v2/words"
	"github.com/seokit/seokit/seo"
)

// analysis carries one request through the checks.
type analysis struct {
	cancel  *canceler
	req     Request
	content string
	p       *profile
	d       *doc
	ps      parsed
	r       *Report
	title   string
	desc    string

	findings    []Finding
	assessments []Assessment

	// bodySents are the sentences of every block but headings, in order.
	bodySents []int32
	// index maps a matching key to the body token indices that have it.
	index map[string][]int32
	// sentBody[s] is the position of sentence s in bodySents, or -1.
	sentBody []int32
	// unspaced is true for a language written without spaces between
	// words: nothing is counted in words.
	unspaced bool
}

func run(ctx context.Context, req Request, loc seo.Locale) (*Report, error) {
	c := &canceler{ctx: ctx}
	p := profileFor(loc.Language)
	format := req.Format
	if format == FormatAuto {
		format = detectFormat(req.Content)
	}
	var ps parsed
	switch format {
	case FormatHTML:
		ps = parseHTML(c, req.Content)
	case FormatMarkdown:
		ps = parseMarkdown(c, req.Content)
	default:
		ps = parseText(c, req.Content)
	}
	if c.check() {
		return nil, fmt.Errorf("optimizer: %w", c.err)
	}
	d := newDoc(p, c)
	if d.segment(ps.blocks, ps.pieces); c.check() {
		return nil, fmt.Errorf("optimizer: %w", c.err)
	}
	a := &analysis{cancel: c, req: req, content: req.Content, p: p, d: d, ps: ps, title: req.Title, desc: req.Description, unspaced: unspaced(loc.Language)}
	if a.title == "" {
		a.title = ps.title
	}
	if a.desc == "" {
		a.desc = ps.desc
	}
	a.r = &Report{
		Locale:    loc.String(),
		Language:  loc.Language,
		Supported: p.full(),
		Format:    format,
		Detected:  detectLanguage(d),
	}
	if !p.full() {
		a.r.Skipped = []string{"stemming (keyphrases match exact word forms)", "stopwords", "reading-ease formula", "passive voice", "transition words", "complex words", "abbreviation-aware sentence splitting"}
	}
	if a.unspaced {
		a.r.Skipped = append(a.r.Skipped, "counts in words (no spaces between words): keyphrase density, sentence, paragraph, section and text length")
	}
	// Each step returns early once the context is done.
	for _, step := range []func(){a.classify, a.language, a.readability, a.keyphrases, a.meta, a.suggest} {
		if step(); c.check() {
			return nil, fmt.Errorf("optimizer: %w", c.err)
		}
	}
	a.finish()
	return a.r, nil
}

func (a *analysis) kind(si int) blockKind { return a.d.blocks[a.d.sents[si].block].kind }

// classify fills the body sentence list and the raw counts.
func (a *analysis) classify() {
	d, st := a.d, &a.r.Stats
	a.sentBody = make([]int32, len(d.sents))
	for i := range d.sents {
		if a.cancel.done() {
			return
		}
		a.sentBody[i] = -1
		if a.kind(i) != kindHeading {
			a.sentBody[i] = int32(len(a.bodySents))
			a.bodySents = append(a.bodySents, int32(i))
		}
	}
	for _, b := range d.blocks {
		switch b.kind {
		case kindHeading:
			st.Headings++
			if b.level >= 2 {
				st.Subheadings++
			}
			continue
		case kindParagraph:
			st.Paragraphs++
		case kindListItem:
			st.ListItems++
		case kindTableCell:
			st.TableCells++
		case kindQuote:
			st.Quotes++
		}
		st.Characters += utf8.RuneCountInString(strings.TrimSpace(b.text))
		st.Words += int(b.w1 - b.w0)
		st.Sentences += int(b.s1 - b.s0)
		for ti := int(b.w0); ti < int(b.w1); ti++ {
			if a.cancel.done() {
				return
			}
			t := d.word(ti)
			st.Letters += int(t.letters)
			st.Syllables += int(t.syl)
		}
	}
	st.Images = len(a.ps.images)
	st.Links = len(a.ps.links)
	if st.Sentences > 0 {
		st.AvgSentenceWords = round2(float64(st.Words) / float64(st.Sentences))
	}
	if st.Words > 0 {
		st.AvgWordSyllables = round2(float64(st.Syllables) / float64(st.Words))
	}
	st.ReadingTimeMinutes = round2(float64(st.Words) / 200)
	if st.Sentences > 0 {
		st.AvgSentenceCharacters = round2(float64(st.Characters) / float64(st.Sentences))
	}
	if a.unspaced {
		st.WordsReason = ReasonNoWordBoundaries
		st.Words, st.Syllables, st.AvgSentenceWords, st.AvgWordSyllables, st.ReadingTimeMinutes = 0, 0, 0, 0, 0
	}
}

// spanList collects at most MaxSpans spans and counts them all.
type spanList struct {
	spans []Span
	total int
}

func (l *spanList) add(s Span) {
	l.total++
	if len(l.spans) < MaxSpans {
		l.spans = append(l.spans, s)
	}
}

// oneSpan is a list of one span.
func oneSpan(s Span) *spanList { return &spanList{spans: []Span{s}, total: 1} }

// finding records a finding with the spans of sl, if any; a list cut at
// MaxSpans is noted in Truncated.
func (a *analysis) finding(id, kp, msg string, ev seo.Evidence, sl *spanList) {
	f := Finding{
		Finding:   seo.Finding{ID: id, Severity: severityOf[id], Message: msg, Evidence: ev},
		Keyphrase: kp,
	}
	if sl != nil && len(sl.spans) > 0 {
		f.Spans = sl.spans
		f.Evidence.Offset = sl.spans[0].Start
		f.Truncated.Note("spans", sl.total, len(sl.spans))
	}
	a.findings = append(a.findings, f)
}

func (a *analysis) assess(area, id, kp string, score int) {
	a.assessments = append(a.assessments, Assessment{ID: id, Area: area, Keyphrase: kp, Score: score})
}

func (a *analysis) language() {
	det := a.r.Detected
	if det.Language != "" && det.Language != a.r.Language {
		a.finding(IDLanguageMismatch, "", fmt.Sprintf("the text looks like %s but the locale %s is %s; analyse it with the text's own locale", langName(det.Language), a.r.Locale, langName(a.r.Language)),
			seo.Evidence{Element: "locale", Value: a.r.Locale, Detail: "detected " + det.Language}, nil)
	}
	if !a.p.full() {
		a.finding(IDLanguageUnsupported, "", fmt.Sprintf("%s has no full support: skipped %s", langName(a.r.Language), strings.Join(a.r.Skipped, ", ")),
			seo.Evidence{Element: "locale", Value: a.r.Locale}, nil)
	}
}

func langName(code string) string {
	names := map[string]string{"en": "English", "de": "German", "es": "Spanish", "fr": "French", "it": "Italian", "nl": "Dutch", "pt": "Portuguese", "ru": "Russian"}
	if n, ok := names[code]; ok {
		return n
	}
	return "language " + code
}

func (a *analysis) sentSpan(si int) Span {
	return a.d.sentSpan(si)
}

func (a *analysis) blockSpan(b *block) Span {
	if b.s1 == b.s0 {
		o := b.orig(a.d.pieces, 0)
		return Span{o, o}
	}
	return Span{a.d.sentSpan(int(b.s0)).Start, a.d.sentSpan(int(b.s1) - 1).End}
}

// readability runs the readability checks, in order; a step that sees
// the analysis canceled ends them.
func (a *analysis) readability() {
	st := &a.r.Stats
	if st.Letters < 50 {
		a.finding(IDContentEmpty, "", fmt.Sprintf("the text has only %d letters in words; write at least a few sentences (50 characters)", st.Letters),
			seo.Measure("content", float64(st.Letters), 50), nil)
		a.assess("readability", IDContentEmpty, "", 3)
	}
	prose, ok := a.proseSentences()
	if !ok {
		return
	}
	if a.unspaced {
		if !a.p.full() {
			a.r.Readability.Reason = ReasonUnsupportedLanguage
		}
		return
	}
	if !a.sentenceLength(prose) || !a.paragraphsAndSections() || !a.consecutiveOpenings(prose) {
		return
	}
	if !a.p.full() {
		a.r.Readability.Reason = ReasonUnsupportedLanguage
		return
	}
	if !a.passiveAndTransitions(prose) {
		return
	}
	a.readingEase()
}

// proseSentences returns the sentences of paragraphs (not of lists,
// tables, quotes or headings), and false when the analysis was canceled.
func (a *analysis) proseSentences() ([]int32, bool) {
	var prose []int32
	for i := range a.d.sents {
		if a.cancel.done() {
			return nil, false
		}
		if a.kind(i) == kindParagraph {
			prose = append(prose, int32(i))
		}
	}
	return prose, true
}

// sentenceLength: at most 25% of the prose sentences are long. It returns
// false when the analysis was canceled.
func (a *analysis) sentenceLength(prose []int32) bool {
	d, p, st := a.d, a.p, &a.r.Stats
	if len(prose) == 0 {
		return true
	}
	var long spanList
	for _, si32 := range prose {
		if a.cancel.done() {
			return false
		}
		si := int(si32)
		n := int(d.sents[si].w1 - d.sents[si].w0)
		st.MaxSentenceWords = max(st.MaxSentenceWords, n)
		if n > p.maxSentence {
			long.add(a.sentSpan(si))
		}
	}
	st.LongSentences = long.total
	pct := percent(long.total, len(prose))
	st.LongSentencePercent = pct
	score := band(pct <= 25, pct <= 30)
	a.assess("readability", IDSentenceTooLong, "", score)
	if score < 9 {
		a.finding(IDSentenceTooLong, "", fmt.Sprintf("%.1f%% of the sentences have more than %d words (at most 25%% is recommended); split the long ones", pct, p.maxSentence),
			seo.Measure("sentences", pct, 25), &long)
	}
	return true
}

// paragraphsAndSections: paragraphs of at most 150 words, and subheadings
// so that no section exceeds 300. It returns false when the analysis was
// canceled.
func (a *analysis) paragraphsAndSections() bool {
	d, st := a.d, &a.r.Stats
	var longParas, longSections spanList
	maxSection, sectionWords, sectionStart := 0, 0, -1
	endSection := func(last int) {
		if sectionWords > 300 && sectionStart >= 0 {
			longSections.add(Span{a.blockSpan(&d.blocks[sectionStart]).Start, a.blockSpan(&d.blocks[last]).End})
		}
		maxSection = max(maxSection, sectionWords)
		sectionWords, sectionStart = 0, -1
	}
	for bi := range d.blocks {
		if a.cancel.done() {
			return false
		}
		b := &d.blocks[bi]
		if b.kind == kindHeading {
			if bi > 0 {
				endSection(bi - 1)
			}
			continue
		}
		if sectionStart < 0 {
			sectionStart = bi
		}
		n := int(b.w1 - b.w0)
		sectionWords += n
		if b.kind == kindParagraph {
			st.MaxParagraphWords = max(st.MaxParagraphWords, n)
			if n > 150 {
				longParas.add(a.blockSpan(b))
			}
		}
	}
	if len(d.blocks) > 0 {
		endSection(len(d.blocks) - 1)
	}
	st.MaxSectionWords = maxSection
	if st.Paragraphs > 0 {
		score := band(st.MaxParagraphWords <= 150, st.MaxParagraphWords <= 200)
		a.assess("readability", IDParagraphTooLong, "", score)
		if score < 9 {
			a.finding(IDParagraphTooLong, "", fmt.Sprintf("%d paragraphs have more than 150 words (the longest has %d); break them up", longParas.total, st.MaxParagraphWords),
				seo.Measure("paragraph", float64(st.MaxParagraphWords), 150), &longParas)
		}
	}
	if st.Words > 300 && st.Subheadings == 0 {
		a.assess("readability", IDNoSubheadings, "", 2)
		a.finding(IDNoSubheadings, "", fmt.Sprintf("the text has %d words and no subheading; add subheadings so that no section exceeds 300 words", st.Words),
			seo.Measure("content", float64(st.Words), 300), nil)
	} else if st.Subheadings > 0 {
		score := band(maxSection <= 300, maxSection <= 350)
		a.assess("readability", IDSectionTooLong, "", score)
		if score < 9 {
			a.finding(IDSectionTooLong, "", fmt.Sprintf("%d sections have more than 300 words (the longest has %d); add subheadings", longSections.total, maxSection),
				seo.Measure("section", float64(maxSection), 300), &longSections)
		}
	}
	return true
}

// consecutiveOpenings: no 3 prose sentences in a row start with the same
// word. It returns false when the analysis was canceled.
func (a *analysis) consecutiveOpenings(prose []int32) bool {
	d, st := a.d, &a.r.Stats
	if len(prose) == 0 {
		return true
	}
	var runs spanList
	prevKey, runLen, runStart := "", 0, 0
	prevBlockKind := -1
	for k, si32 := range prose {
		if a.cancel.done() {
			return false
		}
		si := int(si32)
		key := a.opening(si)
		contiguous := k > 0 && int(prose[k-1]) == si-1 && prevBlockKind == int(a.kind(si))
		if contiguous && key != "" && key == prevKey {
			runLen++
		} else {
			if runLen >= 3 {
				runs.add(Span{d.sentSpan(runStart).Start, d.sentSpan(int(prose[k-1])).End})
			}
			runLen, runStart = 1, si
		}
		prevKey, prevBlockKind = key, int(a.kind(si))
		st.MaxConsecutiveOpener = max(st.MaxConsecutiveOpener, runLen)
	}
	if runLen >= 3 {
		runs.add(Span{d.sentSpan(runStart).Start, d.sentSpan(int(prose[len(prose)-1])).End})
	}
	score := 9
	if runs.total > 0 {
		score = 3
		a.finding(IDConsecutiveOpenings, "", fmt.Sprintf("%d times, 3 or more sentences in a row start with the same word; vary the openings", runs.total),
			seo.Measure("sentences", float64(st.MaxConsecutiveOpener), 2), &runs)
	}
	a.assess("readability", IDConsecutiveOpenings, "", score)
	return true
}

// passiveAndTransitions: at most 10% of the prose sentences in the passive
// voice, and 30% or more with a transition word. It returns false when the
// analysis was canceled.
func (a *analysis) passiveAndTransitions(prose []int32) bool {
	st := &a.r.Stats
	if len(prose) == 0 {
		return true
	}
	pd := &passiveDetector{d: a.d, content: a.content}
	var passive spanList
	trans := 0
	for _, si32 := range prose {
		si := int(si32)
		if a.cancel.done() {
			return false
		}
		if pd.sentence(si) {
			passive.add(a.sentSpan(si))
		}
		if a.hasTransition(si) {
			trans++
		}
	}
	st.PassiveMethod = "rules"
	if pd.usedPOS {
		st.PassiveMethod = "pos"
	}
	st.PassiveSentences = passive.total
	pct := percent(passive.total, len(prose))
	st.PassivePercent = pct
	score := band(pct <= 10, pct <= 15)
	a.assess("readability", IDPassiveVoice, "", score)
	if score < 9 {
		a.finding(IDPassiveVoice, "", fmt.Sprintf("%.1f%% of the sentences are in the passive voice (at most 10%% is recommended); prefer active verbs", pct),
			seo.Measure("sentences", pct, 10), &passive)
	}
	st.TransitionSentences = trans
	tp := percent(trans, len(prose))
	st.TransitionPercent = tp
	if st.Words > 200 {
		score := band(tp >= 30, tp >= 20)
		a.assess("readability", IDFewTransitions, "", score)
		if score < 9 {
			a.finding(IDFewTransitions, "", fmt.Sprintf("only %.1f%% of the sentences contain a transition word (30%% or more is recommended); link your sentences", tp),
				seo.Measure("sentences", tp, 30), nil)
		}
	}
	return true
}

// readableCounts are the counts of the readable blocks (paragraphs,
// quotes, list items) the formulas take.
type readableCounts struct {
	words, sentences, syllables, letters, chars, complex, poly int
	complexSpans                                               spanList
}

// countReadable counts the readable blocks' words, sentences, syllables,
// letters, characters, complex and polysyllabic words. It returns false
// when the analysis was canceled.
func (a *analysis) countReadable() (readableCounts, bool) {
	d, p := a.d, a.p
	var c readableCounts
	for bi := range d.blocks {
		b := &d.blocks[bi]
		if b.kind != kindParagraph && b.kind != kindQuote && b.kind != kindListItem {
			continue
		}
		c.sentences += int(b.s1 - b.s0)
		for ti := int(b.w0); ti < int(b.w1); ti++ {
			if a.cancel.done() {
				return c, false
			}
			t := d.word(ti)
			c.words++
			c.syllables += int(t.syl)
			c.letters += int(t.letters)
			c.chars += int(t.runes)
			if t.syl >= 3 {
				c.poly++
			}
			if int(t.syl) >= p.complexSyllables && !(p.code == "en" && ti != int(d.sents[d.toks[ti].sent].w0) && startsUpper(t.surface)) {
				c.complex++
				c.complexSpans.add(d.tokSpan(ti))
			}
		}
	}
	return c, true
}

// readingEase: complex words, the language's reading-ease formula and its
// band, and the English grade levels, over the readable blocks.
func (a *analysis) readingEase() {
	p, st := a.p, &a.r.Stats
	c, ok := a.countReadable()
	if !ok {
		return
	}
	w, s, y := c.words, c.sentences, c.syllables
	rd := &a.r.Readability
	switch {
	case st.Letters < 50:
		rd.Reason = ReasonTooShort
		return
	case w == 0 || s == 0:
		rd.Reason = ReasonNoProse
		return
	}
	st.ComplexWords = c.complex
	cp := percent(c.complex, w)
	st.ComplexWordPercent = cp
	if w >= 50 {
		score := band(cp <= 15, false)
		if score < 9 {
			score = 6
			a.finding(IDComplexWords, "", fmt.Sprintf("%.1f%% of the words have %d or more syllables (at most 15%% is recommended); use simpler words where you can", cp, p.complexSyllables),
				seo.Measure("words", cp, 15), &c.complexSpans)
		}
		a.assess("readability", IDComplexWords, "", score)
	}
	f := p.flesch
	W, S, Y := float64(w), float64(s), float64(y)
	rd.Formula = f.name
	ease := round2(clamp(f.fn(W, S, Y), 0, 100))
	rd.Score = &ease
	switch {
	case ease >= f.good:
		rd.Band = "easy"
	case ease >= f.ok:
		rd.Band = "fairly difficult"
	default:
		rd.Band = "difficult"
	}
	if w >= 50 {
		score := band(ease >= f.good, ease >= f.ok)
		a.assess("readability", IDHardToRead, "", score)
		if score < 9 {
			a.finding(IDHardToRead, "", fmt.Sprintf("the %s score is %.1f (%s); %.0f or more reads easily: use shorter sentences and words", f.name, ease, rd.Band, f.good),
				seo.Measure("content", ease, f.good), nil)
		}
	}
	if p.code == "en" {
		g := grades(W, S, Y, float64(c.letters), float64(c.chars), float64(c.poly))
		rd.FleschKincaid, rd.GunningFog, rd.SMOG, rd.ColemanLiau, rd.ARI = &g[0], &g[1], &g[2], &g[3], &g[4]
	}
}

// grades returns the English grade levels Flesch-Kincaid, Gunning Fog,
// SMOG, Coleman-Liau and ARI (W words, S sentences, Y syllables, L letters,
// C characters, P words of 3 or more syllables).
func grades(W, S, Y, L, C, P float64) [5]float64 {
	return [5]float64{
		round2(0.39*W/S + 11.8*Y/W - 15.59),
		round2(0.4 * (W/S + 100*P/W)),
		round2(1.043*math.Sqrt(P*30/S) + 3.1291),
		round2(0.0588*(100*L/W) - 0.296*(100*S/W) - 15.8),
		round2(4.71*C/W + 0.5*W/S - 21.43),
	}
}

func startsUpper(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsUpper(r)
}

// opening is the first word of a sentence, or its first two when the first
// is an article or determiner.
func (a *analysis) opening(si int) string {
	s := a.d.sents[si]
	t := a.d.word(int(s.w0))
	if a.p.articles[t.core] && s.w1-s.w0 > 1 {
		return t.core + " " + a.d.word(int(s.w0)+1).core
	}
	return t.core
}

func (a *analysis) hasTransition(si int) bool {
	s := a.d.sents[si]
	d := a.d
	for i := int(s.w0); i < int(s.w1); i++ {
		t := d.word(i)
		phrases := a.p.transitions[t.lower]
		if phrases == nil && t.core != t.lower {
			phrases = a.p.transitions[t.core]
		}
	next:
		for _, ph := range phrases {
			if i+len(ph) > int(s.w1) {
				continue
			}
			for k := 1; k < len(ph); k++ {
				if d.word(i+k).lower != ph[k] {
					continue next
				}
			}
			return true
		}
	}
	return false
}

// band maps a good/ok test to Yoast's 9/6/3.
func band(good, ok bool) int {
	switch {
	case good:
		return 9
	case ok:
		return 6
	}
	return 3
}

func percent(n, total int) float64 {
	if total == 0 {
		return 0
	}
	return round2(100 * float64(n) / float64(total))
}

func round2(f float64) float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0
	}
	return math.Round(f*100) / 100
}

func clamp(f, lo, hi float64) float64 { return math.Max(lo, math.Min(hi, f)) }

// meta checks the title and description lengths and the text length.
func (a *analysis) meta() {
	st := &a.r.Stats
	n := st.Words
	score := 9
	switch {
	case a.unspaced:
		score = -1 // not counted in words
	case n >= 300:
	case n >= 250:
		score = 6
	case n >= 200:
		score = 3
	default:
		score = 0 // Yoast: -10 and -20, counted as 0
	}
	if score >= 0 {
		a.assess("seo", IDContentTooShort, "", score)
	}
	if score >= 0 && score < 9 && st.Letters >= 50 {
		a.finding(IDContentTooShort, "", fmt.Sprintf("the text has %d words; at least 300 are recommended", n), seo.Measure("content", float64(n), 300), nil)
	}
	if a.title != "" {
		l := utf8.RuneCountInString(a.title)
		s := band(l <= 60, false)
		a.assess("seo", IDTitleTooLong, "", s)
		if s < 9 {
			a.finding(IDTitleTooLong, "", fmt.Sprintf("the title has %d characters; keep it within 60 so results do not cut it", l), seo.Evidence{Element: "title", Value: seo.Clip(a.title), Measured: ptr(float64(l)), Threshold: ptr(60)}, nil)
		}
	}
	if a.desc != "" {
		l := utf8.RuneCountInString(a.desc)
		s := 9
		switch {
		case l <= 120:
			s = 6
			a.finding(IDDescriptionTooShort, "", fmt.Sprintf("the meta description has %d characters; use 121 to 155", l), seo.Evidence{Element: "description", Value: seo.Clip(a.desc), Measured: ptr(float64(l)), Threshold: ptr(120)}, nil)
		case l > 155:
			s = 6
			a.finding(IDDescriptionTooLong, "", fmt.Sprintf("the meta description has %d characters; keep it within 155 so results do not cut it", l), seo.Evidence{Element: "description", Value: seo.Clip(a.desc), Measured: ptr(float64(l)), Threshold: ptr(155)}, nil)
		}
		id := IDDescriptionTooLong
		if l <= 120 {
			id = IDDescriptionTooShort
		}
		a.assess("seo", id, "", s)
	}
}

func ptr(f float64) *float64 { return &f }

// finish computes the scores, sorts the findings and fills the tips.
func (a *analysis) finish() {
	r := a.r
	r.Assessments = a.assessments
	if r.Assessments == nil {
		r.Assessments = []Assessment{}
	}
	// SEO: shared assessments count once each; the keyphrase assessments of
	// every keyphrase are averaged so that all keyphrases together weigh as
	// much as one.
	kpSum := map[string]float64{}
	kpN := map[string]float64{}
	var shared, sharedN float64
	var readSum, readN float64
	for _, as := range a.assessments {
		v := float64(min(max(as.Score, 0), 9))
		switch {
		case as.Area == "readability":
			readSum += v
			readN++
		case as.Keyphrase != "" || strings.HasPrefix(as.ID, "keyphrase."):
			kpSum[as.Keyphrase] += v
			kpN[as.Keyphrase]++
		default:
			shared += v
			sharedN++
		}
	}
	num, den := shared, 9*sharedN
	if k := float64(len(kpN)); k > 0 {
		for key := range kpN {
			num += kpSum[key] / k
			den += 9 * kpN[key] / k
		}
	}
	r.SEOChecks, r.ReadabilityChecks = len(a.assessments)-int(readN), int(readN)
	if den > 0 {
		s, by := capScore(int(math.Round(100*num/den)), a.findings, "seo")
		r.SEOScore, r.SEOCappedBy, r.SEORating = &s, by, rating(s)
	} else {
		r.SEOReason = ReasonNoChecks
	}
	// No readability score stands on the structural checks alone (an
	// unsupported language), on too little text or on no check at all.
	switch {
	case !a.p.full():
		r.ReadabilityReason = ReasonUnsupportedLanguage
	case r.Stats.Letters < 50:
		r.ReadabilityReason = ReasonTooShort
	case readN == 0:
		r.ReadabilityReason = ReasonNoChecks
	default:
		s, by := capScore(int(math.Round(100*readSum/(9*readN))), a.findings, "readability")
		r.ReadabilityScore, r.ReadabilityCappedBy, r.ReadabilityRating = &s, by, rating(s)
	}
	sort.SliceStable(a.findings, func(i, j int) bool { return a.findings[i].Severity > a.findings[j].Severity })
	for i := range a.findings {
		f := &a.findings[i].Finding
		f.Count = f.Occurrences()
		f.Priority = seo.Priority(f.Severity, 0, false)
	}
	r.Findings = a.findings
	if r.Findings == nil {
		r.Findings = []Finding{}
	}
	seen := map[string]bool{}
	for _, f := range r.Findings {
		if tip, ok := tips[f.ID]; ok && !seen[f.ID] {
			seen[f.ID] = true
			r.Suggestions.Tips = append(r.Suggestions.Tips, tip)
		}
	}
	if len(r.Findings) > MaxFindings {
		r.Truncated.Note("findings", len(r.Findings), MaxFindings)
		r.Findings = r.Findings[:MaxFindings:MaxFindings]
	}
	if r.Keyphrases == nil {
		r.Keyphrases = []Keyphrase{}
	}
}

// Score caps: while an error finding of its area stands, a score is at
// most capError (rated "ok" at best); content.empty, too little text to
// rate, caps both scores at capEmpty (rated "bad").
const (
	capError = 70
	capEmpty = 40
)

// capScore applies the score caps of area ("seo" or "readability") to
// score, and returns the IDs of the errors that lowered it. Every error
// caps the SEO score; content.empty and the readability errors cap the
// readability score.
func capScore(score int, findings []Finding, area string) (int, []string) {
	limit := score
	var by []string
	for _, f := range findings {
		if f.Severity != seo.Error {
			continue
		}
		c := capError
		switch {
		case f.ID == IDContentEmpty:
			c = capEmpty
		case area == "readability" && !strings.HasPrefix(f.ID, "readability."):
			continue
		}
		if c < score && !slices.Contains(by, f.ID) {
			by = append(by, f.ID)
			limit = min(limit, c)
		}
	}
	return limit, by
}

// body tokens of a string (title, description, alt text...), with the
// language's word data.
func (a *analysis) tokensOf(s string) []*word { return a.appendTokens(nil, s) }

// appendTokens appends the words of s to out.
func (a *analysis) appendTokens(out []*word, s string) []*word {
	it := words.FromString(s)
	for it.Next() {
		w := it.Value()
		if isWordToken(w) {
			out = append(out, a.d.wordInfo(w))
		}
	}
	return out
}

// sentencesOf splits a short text such as a description into sentences.
func sentencesOf(s string) []string {
	var out []string
	it := sentences.FromString(s)
	for it.Next() {
		if t := strings.TrimSpace(it.Value()); t != "" {
			out = append(out, t)
		}
	}
	return out
}
