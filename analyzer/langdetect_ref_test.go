package analyzer

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// TestLangDetectMatchesReference holds detectLanguage, which reads a short
// ASCII word and the byte after it from one load, to detectLanguageRef,
// which reads byte by byte: the same guess and confidence for texts of
// every kind of character, as main texts (words and single spaces) and
// as raw text with punctuation, around the word and letter limits too.
func TestLangDetectMatchesReference(t *testing.T) {
	t.Parallel()
	var texts []string
	names, _ := filepath.Glob(filepath.Join("testdata", "content", "lang_*.txt"))
	for _, name := range names {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		texts = append(texts, string(b), strings.Repeat(string(b), 40), strings.Join(strings.Fields(string(b)), " "))
	}
	if len(texts) == 0 {
		t.Fatal("no language samples in testdata/content")
	}
	pieces := []string{"the", "The", "THE", "of", "und", "der", "Die", "la", "les", "être", "für", "über", "é", "是", "한국어",
		"カタカナ", "Σ", "и", "не", "x\u0301", "\u0301", " ", " ", " ", "  ", "\n", ".", ",", "'", "-", "’", "1", "a1", "9z",
		"Donaudampfschifffahrtsgesellschaft", "abcdefg", "abcdefgh", "ABCDEFGHIJKLMNOP", "@", "[", "`", "{", "\x00", "\xff", "\xc3",
		strings.Repeat("a", 70), "ijzer", "nicht", "también", "sobre"}
	rng := rand.New(rand.NewPCG(3, 5))
	for range 3000 {
		var sb strings.Builder
		n := rng.IntN(60)
		if rng.IntN(10) == 0 {
			n = 1000 + rng.IntN(1200) // past langDetectMaxWords
		}
		for range n {
			sb.WriteString(pieces[rng.IntN(len(pieces))])
			if rng.IntN(3) > 0 {
				sb.WriteByte(' ')
			}
		}
		texts = append(texts, sb.String())
	}
	// Long words up to near langDetectMaxLetters, then short stop words:
	// whether the guess is confident turns on where the letters run out.
	for n := 745; n < 765; n++ {
		texts = append(texts, strings.Repeat("abcdefghijklmnopqrstuvwxyz ", n)+strings.Repeat("the of and his has ", 200))
	}
	texts = append(texts, strings.Repeat("abcdefg ", 3000), strings.Repeat("abcdefghijklmnopqrstuvwxyz ", 900), "", "a", "abcdefgh")
	for _, text := range texts {
		gotCode, gotConf := detectLanguage(text)
		wantCode, wantConf := detectLanguageRef(text)
		if gotCode != wantCode || gotConf != wantConf {
			t.Fatalf("detectLanguage(%.80q...) = %q, %v; reference %q, %v", text, gotCode, gotConf, wantCode, wantConf)
		}
	}
}

// detectLanguageRef is detectLanguage reading the text byte by byte, as
// it did before its one-load path for short ASCII words.
func detectLanguageRef(text string) (code string, confident bool) {
	var scripts [scCount]int
	var scores [len(langStopwords)]float64
	var distinct [len(langStopwords)]int
	var seen [langMaxWords]bool
	var buf [64]byte
	w := buf[:0]
	words, letters := 0, 0
	overflow := false

	flush := func() {
		if len(w) == 0 && !overflow {
			return
		}
		words++
		if !overflow && len(w) <= langMaxWordLen && langWordMaybe(w) {
			if e, ok := langLookup(w); ok {
				bits := e.langs
				first := !seen[e.id]
				seen[e.id] = true
				k := 0
				for b := bits; b != 0; b &= b - 1 {
					k++
				}
				inc := 1 / float64(k)
				for i := range scores {
					if bits&(1<<i) != 0 {
						scores[i] += inc
						if first {
							distinct[i]++
						}
					}
				}
			}
		}
		w = w[:0]
		overflow = false
	}

	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf { // ASCII fast path
			i++
			switch {
			case 'a' <= c && c <= 'z':
			case 'A' <= c && c <= 'Z':
				c += 'a' - 'A'
			default:
				flush()
				if words >= langDetectMaxWords || letters >= langDetectMaxLetters {
					i = len(text)
				}
				continue
			}
			scripts[scLatin]++
			letters++
			if len(w) < cap(w) {
				w = append(w, c)
			} else {
				overflow = true
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		i += size
		letter := unicode.IsLetter(r)
		if !letter && !unicode.IsMark(r) {
			flush()
			if words >= langDetectMaxWords || letters >= langDetectMaxLetters {
				break
			}
			continue
		}
		if letter {
			scripts[scriptOf(r)]++
			letters++
		}
		if len(w)+utf8.UTFMax > cap(w) {
			overflow = true // far longer than any stop word
			continue
		}
		w = utf8.AppendRune(w, unicode.ToLower(r))
	}
	flush()
	if letters == 0 {
		return "", false
	}

	best := 0
	for i := range scripts {
		if scripts[i] > scripts[best] {
			best = i
		}
	}
	if best != scLatin && best != scCyrillic {
		return scriptLanguage(&scripts, best, letters)
	}

	first, second := -1, -1
	for i := range scores {
		switch {
		case first < 0 || scores[i] > scores[first]:
			first, second = i, first
		case second < 0 || scores[i] > scores[second]:
			second = i
		}
	}
	if scores[first] == 0 {
		return "", false
	}
	top := scores[first]
	confident = top >= langMinHits && distinct[first] >= langMinDistinct &&
		top >= langMinShare*float64(words) &&
		top >= langMargin*scores[second]
	return langStopwords[first].code, confident
}
