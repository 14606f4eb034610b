package analyzer

import (
	"math/bits"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Language detection for content.lang_mismatch and Report.Language.
//
// Method: one pass over at most the first langDetectMaxWords words (and
// langDetectMaxLetters letters) of the text. Every letter is counted by
// script. When Latin or Cyrillic letters dominate, each word is looked up in
// a table of common function words; a word listed for k languages adds 1/k
// to each of them, so words shared by close languages (Danish and Norwegian,
// Spanish and Portuguese) do not decide between them. Other scripts name
// their language directly (Greek, Hebrew, Thai, Georgian, Armenian, Hangul;
// Japanese when kana are mixed with Han, Chinese for Han alone).
//
// Confidence rule, word lists: the best language must have a weighted score
// of at least langMinHits, that score must be at least langMinShare of the
// words read, it must come from at least langMinDistinct different stop
// words (so one repeated word decides nothing), and it must be at least
// langMargin times the runner-up's.
// Script rule: the script must hold at least langMinScriptLetters letters
// and langMinScriptShare of all letters; Arabic and Devanagari scripts are
// never confident because several languages share them.
//
// The stop-word lists below were written by the seokit authors from the
// common function words (articles, pronouns, prepositions, conjunctions,
// auxiliaries) of each language; they are not copied from any other list.

const (
	langDetectMaxWords    = 1000
	langDetectMaxLetters  = 20000
	langMinHits           = 8.0
	langMinDistinct       = 5
	langMinShare          = 0.12
	langMargin            = 1.4
	langMinScriptLetters  = 40
	langMinScriptShare    = 0.6
	langKanaShareJapanese = 0.05
)

// langStopwords lists, per ISO 639-1 code, common function words.
var langStopwords = [...]struct{ code, words string }{
	{"en", "the of and to in is was for that with as on are be by this it at from or an have has had not but which they you he she we his her their its were been will would can could there all if more about who what when so no one our your also into than them then these those do does did only other some such may should"},
	{"de", "der die das und ist nicht ein eine einen einem einer eines zu den dem des mit sich auf für von im sie es auch als an werden wird wurde aus er hat haben nach bei um noch wie über so zum zur wir ich oder aber vor durch kann sind war nur diese dieser dieses wenn wo man sein ihre ihr doch schon unter mehr sehr bis können"},
	{"es", "el la de que y en los las del se por un una con no para es al lo como más pero sus le su ya o este esta fue han ha muy sin sobre también entre cuando todo ser son dos hay desde porque donde nos uno les eso ni otros otra hasta está están"},
	{"fr", "le la les de des du et est un une que qui dans pour pas sur au aux avec ce cette ces il elle ils nous vous sont ont par plus se ne ou mais comme tout été être son sa ses leur leurs où aussi très sans sous entre fait peut dont même bien"},
	{"it", "il lo la le gli i di del della dei delle degli e è che un una per non con da in nel nella sono come più ma anche al alla ha hanno questo questa si ci se o essere suo sua loro tutto molto dove quando perché tra fra stato"},
	{"nl", "de het een en van is dat op te in voor niet met zijn die er aan als ook door bij naar om uit maar dan wordt worden nog wel kan hij zij ze we wij ik je jij u heeft hebben was waren of deze dit geen meer zo tot al over onder"},
	{"pt", "o a os as de do da dos das e que em no na nos nas um uma para com não por mais como mas ao se seu sua é foi são ser está também muito pela pelo já ou quando onde isso este esta entre sem até ele ela eles nós você"},
	{"pl", "i w na z się nie do to że jest jak o co ale od po za tak dla przez są być czy tylko jego jej ich ten ta te tym może już jako który która które przy także bardzo gdy oraz lub tego było był była będzie mnie"},
	{"sv", "och att det som en ett är av för på med inte den till har de om var jag men så han hon vi ni kan eller från vid sig nu man ska skulle när också efter under mycket bara där vad detta dessa alla hade blir blev andra sina sitt sin utan"},
	{"da", "og at det som en et er af for på med ikke den til har de om var jeg men så han hun vi kan eller fra ved sig nu man skal skulle når også efter under meget bare hvor hvad denne disse alle havde bliver blev andre sine sit sin uden nogle nogen end"},
	{"no", "og at det som en et er av for på med ikke den til har de om var jeg men så han hun vi kan eller fra ved seg nå man skal skulle når også etter under mye bare hvor hva denne disse alle hadde blir ble andre sine sitt sin uten noen enn ikkje eg"},
	{"fi", "ja on ei se että oli hän ovat olla mutta kun myös tai jos niin kuin ole sen mitä joka jotka tämä tämän nämä he me te minä sinä vain jo vielä sekä koska kanssa mukaan ennen jälkeen siitä sitä hänen heidän kaikki voi voidaan"},
	{"cs", "a je se na v že to s z do o i by jsou jako pro ale jak jeho její jejich tak už nebo být byl byla bylo když které který která také podle jen již při mezi před po jsem jsme tento tato toto více velmi ani než"},
	{"tr", "ve bir bu da de için ile olarak çok daha gibi en ne var olan ama ancak sonra kadar her şey ya veya mi mı değil ise diye şu o ben sen biz siz onlar göre oldu olduğu"},
	{"ru", "и в не на что с по это он она они как а к но из у за от же для то о так все был была было бы ли только его ее её их мы вы я уже или если когда нет при чтобы даже есть может еще ещё также"},
	{"uk", "і в не на що з по це він вона вони як а до але із у за від же для то про так все був була було би чи тільки його її їх ми ви я вже або якщо коли немає при щоб навіть є може ще також"},
	{"bg", "и в не на че с по това той тя те като а към но от за се да е са ще би ли само неговата неговия го я ги ние вие аз вече или ако когато няма при дори има може още също"},
}

// langWord is a stop word's entry: the bit set of the languages of
// langStopwords that list it, and its number among all stop words.
type langWord struct {
	langs uint32
	id    uint16
}

// langWordIndex maps a lowercase stop word to its entry; langWordCount is
// the number of distinct stop words.
var langWordIndex, langWordCount = func() (map[string]langWord, int) {
	m := make(map[string]langWord, 1500)
	for i, l := range langStopwords {
		for _, w := range strings.Fields(l.words) {
			e, ok := m[w]
			if !ok {
				e.id = uint16(len(m))
			}
			e.langs |= 1 << i
			m[w] = e
		}
	}
	return m, len(m)
}()

// langMaxWordLen is the byte length of the longest stop word; longer words
// are not looked up.
var langMaxWordLen = func() int {
	n := 0
	for w := range langWordIndex {
		n = max(n, len(w))
	}
	return n
}()

// langTable holds the stop words of up to eight bytes, each packed into
// the uint64 of its bytes (little-endian, zero-padded, one-to-one for
// words without a zero byte, as stop words are), by open addressing: detectLanguage
// looks up every candidate word, and a multiply and a probe or two are
// cheaper than hashing a string into the map. Longer words go to the map.
var langTable = func() *[langTableSize]langSlot {
	var t [langTableSize]langSlot
	for w, e := range langWordIndex {
		if len(w) > 8 {
			continue
		}
		k, _ := langPack([]byte(w))
		i := langSlotOf(k)
		for t[i].key != 0 {
			i = (i + 1) & (langTableSize - 1)
		}
		t[i] = langSlot{key: k, e: e}
	}
	return &t
}()

// langTableSize is a power of two past twice the number of stop words.
const langTableSize = 4096

type langSlot struct {
	key uint64
	e   langWord
}

// langPack packs a word of up to eight bytes into a uint64; ok is false
// when the word has a zero byte, which the packing cannot tell from the
// padding.
func langPack(w []byte) (k uint64, ok bool) {
	for i, c := range w {
		if c == 0 {
			return 0, false
		}
		k |= uint64(c) << (8 * i)
	}
	return k, true
}

func langSlotOf(k uint64) uint64 { return k * 0x9E3779B97F4A7C15 >> (64 - 12) }

// langLookup is langWordIndex[string(w)].
func langLookup(w []byte) (langWord, bool) {
	k, packed := uint64(0), false
	if len(w) <= 8 && len(w) > 0 {
		k, packed = langPack(w)
	}
	if !packed {
		e, ok := langWordIndex[string(w)]
		return e, ok
	}
	return langLookupPacked(k)
}

// langLookupPacked looks up in langTable the word of one to eight bytes,
// none zero, packed into k (langPack).
func langLookupPacked(k uint64) (langWord, bool) {
	for i := langSlotOf(k); ; i = (i + 1) & (langTableSize - 1) {
		s := &langTable[i]
		if s.key == k {
			return s.e, true
		}
		if s.key == 0 {
			return langWord{}, false
		}
	}
}

// langWordFilter has, for each first byte of a stop word, the bit of
// langFilterBit of each such word: a word whose bit is clear is no stop
// word, and the map is not consulted for it (about half the words of a
// text).
var langWordFilter = func() (f [256]uint64) {
	for w := range langWordIndex {
		f[w[0]] |= langFilterBit(w)
	}
	return f
}()

// langFilterBit is one bit of 64 chosen by a word's length and last byte.
func langFilterBit[S string | []byte](w S) uint64 {
	return 1 << ((uint(len(w))*7 + uint(w[len(w)-1])) & 63)
}

// langWordMaybe reports whether w may be a stop word.
func langWordMaybe(w []byte) bool {
	return len(w) > 0 && langWordFilter[w[0]]&langFilterBit(w) != 0
}

// alphaMask sets the high bit of each byte of v that is an ASCII letter,
// and clears every other bit.
func alphaMask(v uint64) uint64 {
	// Below 0x80 each, so no sum below carries across bytes; 'a' <= l <= 'z'.
	l := v&^msb | 0x20*lsb
	return (l + 0x1f*lsb) &^ (l + 0x05*lsb) &^ v & msb
}

// langShare holds 1/k for a stop word of k languages, the score it adds
// to each (a lookup instead of a division per stop word met).
var langShare = func() (t [33]float64) {
	for k := 1; k < len(t); k++ {
		t[k] = 1 / float64(k)
	}
	return t
}()

// langMaxWords bounds langWordCount so detectLanguage can mark the words it
// has seen in a fixed array.
const langMaxWords = 2048

// langKnown reports whether the detector can recognise a language (by word
// list or script), so a declared language outside this set is never called
// a mismatch.
func langKnown(code string) bool {
	for _, l := range langStopwords {
		if l.code == code {
			return true
		}
	}
	switch code {
	case "el", "he", "th", "ka", "hy", "ja", "ko", "zh":
		return true
	}
	return false
}

// script classes counted by the detector.
const (
	scLatin = iota
	scCyrillic
	scGreek
	scHebrew
	scArabic
	scDevanagari
	scThai
	scGeorgian
	scArmenian
	scHangul
	scKana
	scHan
	scOther
	scCount
)

func scriptOf(r rune) int {
	switch {
	case r < 0x250 || (r >= 0x1E00 && r <= 0x1EFF):
		return scLatin
	case r >= 0x370 && r <= 0x3FF || r >= 0x1F00 && r <= 0x1FFF:
		return scGreek
	case r >= 0x400 && r <= 0x52F:
		return scCyrillic
	case r >= 0x530 && r <= 0x58F:
		return scArmenian
	case r >= 0x590 && r <= 0x5FF:
		return scHebrew
	case r >= 0x600 && r <= 0x6FF || r >= 0x750 && r <= 0x77F:
		return scArabic
	case r >= 0x900 && r <= 0x97F:
		return scDevanagari
	case r >= 0xE00 && r <= 0xE7F:
		return scThai
	case r >= 0x10A0 && r <= 0x10FF:
		return scGeorgian
	case r >= 0x1100 && r <= 0x11FF || r >= 0xAC00 && r <= 0xD7AF || r >= 0x3130 && r <= 0x318F:
		return scHangul
	case r >= 0x3040 && r <= 0x30FF:
		return scKana
	case r >= 0x3400 && r <= 0x4DBF || r >= 0x4E00 && r <= 0x9FFF || r >= 0xF900 && r <= 0xFAFF:
		return scHan
	}
	return scOther
}

// detectLanguage guesses the language of text and says whether the guess is
// confident by the rule documented above. It returns "" when it has no
// guess. It is linear in the text read and allocates nothing per word.
func detectLanguage(text string) (code string, confident bool) {
	var scripts [scCount]int
	var scores [len(langStopwords)]float64
	var distinct [len(langStopwords)]int
	var seen [langMaxWords]bool
	var buf [64]byte
	w := buf[:0]
	words, letters := 0, 0
	overflow := false

	// hit scores stop word e for each of its languages.
	hit := func(e langWord) {
		first := !seen[e.id]
		seen[e.id] = true
		inc := langShare[bits.OnesCount32(e.langs)]
		for b := e.langs; b != 0; b &= b - 1 {
			i := bits.TrailingZeros32(b)
			scores[i] += inc
			if first {
				distinct[i]++
			}
		}
	}
	flush := func() {
		if len(w) == 0 && !overflow {
			return
		}
		words++
		if !overflow && len(w) <= langMaxWordLen && langWordMaybe(w) {
			if e, ok := langLookup(w); ok {
				hit(e)
			}
		}
		w = w[:0]
		overflow = false
	}

	for i := 0; i < len(text); {
		if len(w) == 0 && !overflow && len(text)-i >= 8 {
			// Most words are ASCII letters, fewer than eight, followed
			// by an ASCII byte that is no letter (a space in a main
			// text): one load holds the word, lowercased and packed as
			// langTable keys it, and the byte that ends it, which
			// flushes nothing more, as the word is counted here.
			v := le64(text[i:])
			if v&msb == 0 {
				if k := bits.TrailingZeros64(^alphaMask(v)&msb) >> 3; k < 8 {
					if k > 0 {
						key := lowerASCII8(v & (1<<(8*k) - 1))
						scripts[scLatin] += k
						letters += k
						words++
						if k <= langMaxWordLen && langWordFilter[byte(key)]&(1<<((uint(k)*7+uint(key>>(8*(k-1))))&63)) != 0 {
							if e, ok := langLookupPacked(key); ok {
								hit(e)
							}
						}
					}
					i += k + 1
					if words >= langDetectMaxWords || letters >= langDetectMaxLetters {
						break
					}
					continue
				}
			}
		}
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

// scriptLanguage names the language of a text dominated by a script other
// than Latin or Cyrillic.
func scriptLanguage(scripts *[scCount]int, best, letters int) (string, bool) {
	n := scripts[best]
	strong := n >= langMinScriptLetters && float64(n) >= langMinScriptShare*float64(letters)
	switch best {
	case scGreek:
		return "el", strong
	case scHebrew:
		return "he", strong
	case scThai:
		return "th", strong
	case scGeorgian:
		return "ka", strong
	case scArmenian:
		return "hy", strong
	case scArabic:
		return "ar", false
	case scDevanagari:
		return "hi", false
	case scHangul:
		return "ko", strong
	case scKana, scHan:
		cjk := scripts[scKana] + scripts[scHan]
		strong = cjk >= langMinScriptLetters && float64(cjk) >= langMinScriptShare*float64(letters)
		kana := float64(scripts[scKana]) / float64(cjk)
		switch {
		case kana >= langKanaShareJapanese:
			return "ja", strong
		case scripts[scKana] == 0:
			return "zh", strong
		default:
			return "zh", false
		}
	}
	return "", false
}

func init() {
	if langWordCount > langMaxWords {
		panic("analyzer: too many language stop words")
	}
}
