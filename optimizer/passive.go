package optimizer

import (
	"strings"
	"unicode/utf8"
)

// Passive voice detection, per sentence. Precision is preferred over
// recall: a sentence is marked only on a clear pattern.
//
//   - en: a form of "be" or "get" followed, after at most three adverbs, by a
//     word the prose tagger marks as a past participle (VBN). Candidates are
//     found by a cheap scan first and only a window of about seven words is
//     tagged. After maxPOSWindows windows in one request the rule-based
//     check (auxiliary + -ed or irregular participle) is used instead.
//   - de, nl: a form of werden/worden in the sentence and a participle (ge-
//     prefix, -iert, inseparable prefix + -t, or a listed participle) at the
//     end of a clause, or just before a final auxiliary.
//   - fr, es, it, pt: a form of être/ser/essere/venire followed, after
//     fillers (function words, adverbs in -ment/-mente, "été", "stato"), by a
//     participle ending (-é, -ado, -ato, ...) or a listed irregular participle,
//     minus the participles of verbs conjugated with être/essere (fr, it) and
//     reflexive forms (fr).
//   - ru: a short passive participle (-ан, -ен, -ён, -ыт and their -а, -о,
//     -ы forms), minus a list of look-alike nouns and adverbs.
const maxPOSWindows = 2000

// passiveDetector keeps the per-request tagging budget.
type passiveDetector struct {
	d       *doc
	content string
	windows int
	usedPOS bool
}

func (pd *passiveDetector) sentence(si int) bool {
	d := pd.d
	toks := d.sentWords(si)
	switch d.p.code {
	case "en":
		return pd.english(toks)
	case "de", "nl":
		return pd.germanic(toks)
	case "fr", "es", "it", "pt":
		return pd.romance(toks)
	case "ru":
		return pd.russian(toks)
	}
	return false
}

func (pd *passiveDetector) english(toks sentWords) bool {
	p := pd.d.p
	for i := range toks.n {
		if !p.auxiliaries[toks.at(i).lower] {
			continue
		}
		// Cheap pre-filter: a participle-like word within four words.
		cand := false
		for j := i + 1; j < toks.n && j <= i+4; j++ {
			w := toks.at(j).lower
			if p.participles[w] || (len(w) > 3 && (strings.HasSuffix(w, "ed") || strings.HasSuffix(w, "en") || strings.HasSuffix(w, "wn"))) {
				cand = true
				break
			}
		}
		if !cand {
			continue
		}
		if pd.windows < maxPOSWindows {
			pd.windows++
			lo, hi := max(0, i-2), min(toks.n, i+6)
			parts := make([]string, 0, hi-lo)
			for j := lo; j < hi; j++ {
				parts = append(parts, toks.at(j).surface)
			}
			if passive, ok := posPassive(strings.Join(parts, " "), toks.at(i).surface); ok {
				pd.usedPOS = true
				if passive {
					return true
				}
				continue
			}
		}
		if englishRulePassive(p, toks, i) {
			return true
		}
	}
	return false
}

// englishRulePassive is the fallback without tags: auxiliary, adverbs in
// -ly or "not"/"never"/"been"/"being", then -ed or an irregular participle.
func englishRulePassive(p *profile, toks sentWords, i int) bool {
	for j := i + 1; j < toks.n && j <= i+4; j++ {
		w := toks.at(j).lower
		if p.participles[w] || (len(w) > 4 && strings.HasSuffix(w, "ed")) {
			return true
		}
		if strings.HasSuffix(w, "ly") || w == "not" || w == "never" || w == "been" || w == "being" || w == "also" {
			continue
		}
		return false
	}
	return false
}

func (pd *passiveDetector) germanic(toks sentWords) bool {
	p := pd.d.p
	hasAux := false
	for i := range toks.n {
		if p.auxiliaries[toks.at(i).lower] {
			hasAux = true
			break
		}
	}
	if !hasAux {
		return false
	}
	for k := range toks.n {
		w := toks.at(k).lower
		if !germanicParticiple(p, w) {
			continue
		}
		if pd.clauseEnd(toks, k) {
			return true
		}
		if k+1 < toks.n && (p.auxiliaries[toks.at(k+1).lower] || toks.at(k+1).lower == "sein" || toks.at(k+1).lower == "zijn") && pd.clauseEnd(toks, k+1) {
			return true
		}
	}
	return false
}

var (
	deInseparable = []string{"be", "ver", "er", "ent", "zer", "emp", "miss", "über", "unter", "hinter", "ont", "her"}
	deSeparable   = []string{"an", "auf", "aus", "ein", "mit", "vor", "zu", "ab", "bei", "nach", "weg", "zurück", "fest", "dar", "um", "aan", "op", "uit", "in", "mee", "voor", "af", "bij", "na", "terug", "vast", "door"}
)

func germanicParticiple(p *profile, w string) bool {
	if p.notPassive[w] || p.auxiliaries[w] || p.stopwords[w] {
		return false
	}
	if p.participles[w] {
		return true
	}
	n := utf8.RuneCountInString(w)
	if n < 5 {
		return false
	}
	endT := strings.HasSuffix(w, "t") || (p.code == "nl" && strings.HasSuffix(w, "d"))
	endEn := strings.HasSuffix(w, "en")
	if p.code == "de" && strings.HasSuffix(w, "iert") {
		return true
	}
	if strings.HasPrefix(w, "ge") && (endT || endEn) {
		return true
	}
	for _, sep := range deSeparable {
		if strings.HasPrefix(w, sep+"ge") && len(w) > len(sep)+4 && (endT || endEn) {
			return true
		}
	}
	if endT && n >= 6 {
		for _, pre := range deInseparable {
			if strings.HasPrefix(w, pre) && !strings.HasSuffix(w, "st") {
				return true
			}
		}
	}
	return false
}

// clauseEnd reports whether token k of toks ends a clause: it is the last
// word of the sentence or punctuation follows it.
func (pd *passiveDetector) clauseEnd(toks sentWords, k int) bool {
	if k == toks.n-1 {
		return true
	}
	end := pd.d.tokSpan(toks.w0 + k).End
	for i := end; i < len(pd.content) && i < end+8; i++ {
		switch pd.content[i] {
		case ' ', '\t', '\n', '\r', '*', '_', '"', '\'', ')':
			continue
		case ',', ';', ':', '.', '!', '?', '<':
			return true
		}
		return false
	}
	return false
}

var romanceEndings = map[string][]string{
	"fr": {"é", "ée", "és", "ées", "uit", "uite", "uits", "uites", "is", "ise", "ises", "ie", "ies"},
	"es": {"ado", "ada", "ados", "adas", "ido", "ida", "idos", "idas", "ído", "ída"},
	"pt": {"ado", "ada", "ados", "adas", "ido", "ida", "idos", "idas", "ído", "ída", "ídos", "ídas"},
	"it": {"ato", "ata", "ati", "ate", "uto", "uta", "uti", "ute", "ito", "ita", "iti", "ite", "tto", "tta", "tti", "tte"},
}

func (pd *passiveDetector) romance(toks sentWords) bool {
	p := pd.d.p
	for i := range toks.n {
		aux := toks.at(i)
		if !p.auxiliaries[aux.core] {
			continue
		}
		if p.code == "fr" {
			if aux.core != aux.lower && (strings.HasPrefix(aux.lower, "s'") || strings.HasPrefix(aux.lower, "m'") || strings.HasPrefix(aux.lower, "t'")) {
				continue // reflexive: "s'est levé"
			}
			if i > 0 {
				switch toks.at(i - 1).lower {
				case "se", "me", "te", "nous", "vous":
					continue
				}
			}
		}
		for j := i + 1; j < toks.n && j <= i+4; j++ {
			w := toks.at(j).core
			if p.notPassive[w] {
				if p.auxiliaries[w] {
					continue // "été", "stato": look further
				}
				break
			}
			if p.participles[w] {
				return true
			}
			if p.stopwords[w] || p.auxiliaries[w] || strings.HasSuffix(w, "ment") || strings.HasSuffix(w, "mente") {
				continue
			}
			if utf8.RuneCountInString(w) >= 4 {
				for _, e := range romanceEndings[p.code] {
					if strings.HasSuffix(w, e) {
						return true
					}
				}
			}
			break
		}
	}
	return false
}

var ruEndings = []struct {
	suffix string
	min    int
}{
	{"ан", 5}, {"ана", 6}, {"ано", 6}, {"аны", 6},
	{"ян", 5}, {"яна", 6}, {"яно", 6}, {"яны", 6},
	{"ен", 6}, {"ён", 5}, {"ена", 7}, {"ено", 7}, {"ены", 7}, {"ёна", 6}, {"ёно", 6}, {"ёны", 6},
	{"ыт", 5}, {"ыта", 6}, {"ыто", 6}, {"ыты", 6},
}

func (pd *passiveDetector) russian(toks sentWords) bool {
	p := pd.d.p
	for i := range toks.n {
		w := toks.at(i).lower
		if p.notPassive[w] || p.stopwords[w] {
			continue
		}
		n := utf8.RuneCountInString(w)
		for _, e := range ruEndings {
			if n >= e.min && strings.HasSuffix(w, e.suffix) {
				return true
			}
		}
	}
	return false
}
