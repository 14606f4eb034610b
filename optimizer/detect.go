package optimizer

import (
	"math/bits"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Language detection: the tokens of (at most) the first detectMaxWords
// words are looked up in the stopword list of every supported language. A
// stopword listed for k languages adds 1/k to each. The best language wins
// when it has at least detectMinHits points, at least detectMinShare of the
// words read, and detectMargin times the runner-up's points. Otherwise the
// language is reported as "" (unknown), which never raises a mismatch.
const (
	detectMaxWords = 3000
	detectMinHits  = 3
	detectMinShare = 0.08
	detectMargin   = 1.5
)

// Detection is the language the text appears to be written in.
type Detection struct {
	// Language is a code of Languages, or "" when no language was recognised
	// with confidence.
	Language string `json:"language"`
	// Confidence is the winner's share of the stopword points, 0-1.
	Confidence float64 `json:"confidence"`
}

// stopwordLangs maps a stopword to the bit set of the languages (by index
// in Languages) that list it.
var stopwordLangs = sync.OnceValue(func() map[string]uint16 {
	m := map[string]uint16{}
	all := profiles()
	for i, code := range Languages {
		for w := range all[code].stopwords {
			m[w] |= 1 << i
		}
	}
	return m
})

func detectLanguage(d *doc) Detection {
	sw := stopwordLangs()
	var score [16]float64
	n := 0
	for i := range d.toks {
		if n == detectMaxWords {
			break
		}
		w := d.word(i).lower
		if r, _ := utf8.DecodeRuneInString(w); !unicode.IsLetter(r) {
			continue
		}
		n++
		set := sw[w]
		if set == 0 {
			continue
		}
		k := float64(bits.OnesCount16(set))
		for l := range Languages {
			if set&(1<<l) != 0 {
				score[l] += 1 / k
			}
		}
	}
	best, second, total := 0, 0.0, 0.0
	for l := range Languages {
		total += score[l]
		if score[l] > score[best] {
			best = l
		}
	}
	for l := range Languages {
		if l != best {
			second = max(second, score[l])
		}
	}
	top := score[best]
	if n == 0 || top < detectMinHits || top < detectMinShare*float64(n) || top < detectMargin*second {
		return Detection{}
	}
	return Detection{Language: Languages[best], Confidence: round2(top / total)}
}
