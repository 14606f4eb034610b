package optimizer

import (
	"embed"
	"strings"
	"sync"

	"github.com/blevesearch/snowballstem"

	"github.com/seokit/seokit/internal/textfold"
)

//go:embed data/*.txt
var dataFS embed.FS

// Languages lists the language codes with full support, in the order the
// package documents them.
var Languages = []string{"en", "de", "es", "fr", "it", "nl", "pt", "ru"}

// formula computes a Flesch-style reading ease from words, sentences and
// syllables.
type formula struct {
	name string
	fn   func(w, s, y float64) float64
	// good and ok are the lower bounds of the green and orange bands.
	good, ok float64
}

// profile holds everything language-specific. The zero profile (code "")
// is used for any language without full support: it has no lists, no
// stemmer and no formula.
type profile struct {
	code         string
	stopwords    map[string]bool
	transitions  map[string][][]string // first word -> full phrases
	auxiliaries  map[string]bool
	participles  map[string]bool
	notPassive   map[string]bool
	abbreviation map[string]bool
	articles     map[string]bool
	stem         func(*snowballstem.Env) bool
	syllables    func(string) int
	flesch       *formula
	// maxSentence is the longest sentence, in words, before it counts as long.
	maxSentence int
	// complexSyllables is the syllable count from which a word is complex.
	complexSyllables int
}

func (p *profile) full() bool { return p.code != "" }

// unspaced reports whether a language is written without spaces between
// words, so that its words, as Unicode segments them (one per Han
// character), are not words: Japanese, Chinese, Thai, Lao, Khmer,
// Burmese and Tibetan.
func unspaced(lang string) bool {
	switch lang {
	case "ja", "zh", "th", "lo", "km", "my", "bo":
		return true
	}
	return false
}

var profiles = sync.OnceValue(loadProfiles)

func loadProfiles() map[string]*profile {
	m := make(map[string]*profile, len(Languages))
	for _, code := range Languages {
		b, err := dataFS.ReadFile("data/" + code + ".txt")
		if err != nil {
			panic("optimizer: missing embedded word list " + code) // build defect, caught by tests
		}
		sec := parseLists(string(b))
		p := &profile{
			code:             code,
			stopwords:        set(sec["stopwords"]),
			auxiliaries:      set(sec["auxiliaries"]),
			participles:      set(sec["participles"]),
			notPassive:       set(sec["not_passive"]),
			abbreviation:     set(sec["abbreviations"]),
			articles:         set(sec["articles"]),
			transitions:      map[string][][]string{},
			stem:             textfold.Stemmer(code),
			syllables:        syllableCounters[code],
			flesch:           formulas[code],
			maxSentence:      20,
			complexSyllables: 4,
		}
		for _, t := range sec["transitions"] {
			parts := strings.Fields(t)
			if len(parts) == 0 {
				continue
			}
			p.transitions[parts[0]] = append(p.transitions[parts[0]], parts)
		}
		switch code {
		case "es", "it", "pt":
			p.maxSentence = 25
		case "ru":
			p.maxSentence = 15
			p.complexSyllables = 5
		case "en":
			p.complexSyllables = 3
		}
		m[code] = p
	}
	return m
}

// defaultProfile is used for languages without full support.
var defaultProfile = &profile{maxSentence: 20, complexSyllables: 4, syllables: countVowelGroups}

func profileFor(lang string) *profile {
	if p, ok := profiles()[lang]; ok {
		return p
	}
	return defaultProfile
}

// parseLists reads the "[section]" format of the data files: entries are
// separated by commas or new lines, "#" starts a comment line. Entries are
// lowercased and their apostrophes normalised.
func parseLists(s string) map[string][]string {
	out := map[string][]string{}
	cur := ""
	for line := range strings.SplitSeq(s, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]") {
			cur = line[1 : len(line)-1]
			continue
		}
		for e := range strings.SplitSeq(line, ",") {
			e = strings.Join(strings.Fields(e), " ")
			if e != "" && cur != "" {
				out[cur] = append(out[cur], foldApostrophes(strings.ToLower(e)))
			}
		}
	}
	return out
}

func set(list []string) map[string]bool {
	m := make(map[string]bool, len(list))
	for _, w := range list {
		m[w] = true
	}
	return m
}

// Readability formulas per language (W words, S sentences, Y syllables).
// Bands: a score at or above good is easy enough, at or above ok is
// fairly difficult, below ok is difficult.
var formulas = map[string]*formula{
	"en": {"Flesch Reading Ease", func(w, s, y float64) float64 { return 206.835 - 1.015*w/s - 84.6*y/w }, 60, 50},
	"de": {"Amstad", func(w, s, y float64) float64 { return 180 - w/s - 58.5*y/w }, 60, 50},
	"es": {"Fernández Huerta", func(w, s, y float64) float64 { return 206.84 - 1.02*w/s - 60*y/w }, 60, 50},
	"fr": {"Kandel-Moles", func(w, s, y float64) float64 { return 207 - 1.015*w/s - 73.6*y/w }, 60, 50},
	"it": {"Flesch-Vacca", func(w, s, y float64) float64 { return 217 - 1.3*w/s - 60*y/w }, 60, 50},
	"nl": {"Douma", func(w, s, y float64) float64 { return 206.84 - 0.93*w/s - 77*y/w }, 60, 50},
	"pt": {"Flesch (Portuguese adaptation)", func(w, s, y float64) float64 { return 248.835 - 1.015*w/s - 84.6*y/w }, 60, 50},
	"ru": {"Oborneva", func(w, s, y float64) float64 { return 206.835 - 1.3*w/s - 60.1*y/w }, 50, 40},
}

// stemmer reuses one snowball environment; it is not safe for concurrent use.
type stemmer struct {
	p   *profile
	env *snowballstem.Env
}

func newStemmer(p *profile) *stemmer {
	return &stemmer{p: p, env: snowballstem.NewEnv("")}
}

// maxStemBytes is the longest word stemmed. A longer one is its own stem:
// no real word is that long, and the snowball stemmers take time
// quadratic in the word's length (German needs minutes for 10 MB).
const maxStemBytes = 64

// key returns the matching key of an already lowercased word: its stem
// (when the language has a stemmer and the word is at most maxStemBytes
// long) with diacritics removed.
func (s *stemmer) key(lower string) string {
	w := lower
	if s.p.stem != nil && len(w) <= maxStemBytes {
		s.env.SetCurrent(w)
		s.p.stem(s.env)
		w = s.env.Current()
	}
	return textfold.Diacritics(w)
}
