package keywords

import (
	"strings"
	"unicode"
)

// Noun-phrase chunking. A page's text is cut into runs of content words:
// punctuation, digits-only tokens and the language's function words
// (articles, pronouns, prepositions, conjunctions, auxiliaries and common
// verbs and adverbs) end a run. What remains between two boundaries is,
// in the languages listed, nearly always a noun phrase ("organic green
// tea", "thé vert bio", "grüner Tee"). A few connectors may join two
// content words inside a phrase ("cup of tea", "infusion de thé"); a
// phrase never starts or ends with one. Every phrase Phrases returns is a
// contiguous run of words of the text, lowercased.

// MaxPhraseWords is the most words of a phrase Phrases returns, connectors
// not counted.
const MaxPhraseWords = 4

// phraseLang holds one language's function words and connectors.
type phraseLang struct {
	stop       map[string]bool
	connectors map[string]bool
	// elisions are prefixes such as "l'" split off a word first.
	elisions []string
	// stopSuffix, when set, says whether a word is a function word by its
	// form (English adverbs in -ly).
	stopSuffix func(string) bool
	// nounCase: nouns are capitalised (German).
	nounCase bool
}

func set(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// phraseLangs are the languages Phrases knows. The lists are written for
// this package from each language's closed word classes.
var phraseLangs = map[string]phraseLang{
	"en": {stop: set(`a an the this that these those my your his her its our their me you he she it we they them us him i
		and or but nor so yet if then than because while although though whether as
		of to in on at by for with from into onto about above below over under between through during before after
		up down out off again further once here there when where why how what which who whom whose all any both each
		few more most other some such no not only own same too very just also can will shall may might must should would could
		is are was were be been being am do does did doing have has had having get gets got make makes made
		use uses used find see read learn buy shop order try know want need like new best top good great more less many much
		s t don't can't won't isn't aren't it's we're you're i'm let's via per vs etc yes ok one two three
		grow grows grew grown brew brews brewed keep keeps kept taste tastes tasted hold holds held stay stays
		add adds added bring brings become becomes became turn turns turned give gives gave take takes took
		look looks looked go goes went come comes came say says said tell tells offer offers offered
		help helps helped start starts started show shows showed call calls called sell sells sold ship ships shipped
		contain contains contained include includes included enjoy enjoys choose chooses drink drinks`),
		connectors: set(`of`), stopSuffix: func(w string) bool { return len(w) > 4 && strings.HasSuffix(w, "ly") }},
	"fr": {stop: set(`le la les un une des du de d au aux à a ce cet cette ces mon ma mes ton ta tes son sa ses notre nos votre vos leur leurs
		je tu il elle on nous vous ils elles me te se lui y en l qu que qui quoi dont où
		et ou mais donc or ni car si comme quand lorsque puis ensuite alors aussi
		dans par pour sur sous avec sans chez entre vers pendant depuis avant après contre selon
		est sont était étaient être été ai as avons avez ont avait avoir fait faire peut peuvent pouvez doit
		ne pas plus moins très trop bien tout tous toute toutes autre autres même mêmes chaque quel quelle quels quelles
		voici voilà ici là oui non c s n j m t découvrez achetez lisez voir acheter nouveau nouvelle nouveaux meilleur meilleure meilleurs
		devient deviennent devenir garde gardent garder reste restent rester cultivons cultive cultivent cultiver
		infuser boire buvez prenez utilisez offre offrent propose proposent contient contiennent donne donnent`),
		connectors: set(`de du des d`),
		elisions:   []string{"l'", "d'", "qu'", "j'", "n'", "s'", "c'", "m'", "t'", "jusqu'", "lorsqu'"}},
	"de": {stop: set(`der die das den dem des ein eine einen einem einer eines kein keine keinen keinem keiner
		mein meine dein deine sein seine ihr ihre unser unsere euer eure dies diese dieser dieses diesem diesen jener jene
		ich du er sie es wir ihr man mich dich sich uns euch ihm ihn ihnen
		und oder aber doch sondern denn wenn als ob weil dass damit während obwohl so auch noch nur schon sehr
		in im ins an am ans auf aus bei beim mit nach seit von vom vor zu zum zur über unter zwischen durch für gegen ohne um bis
		ist sind war waren sein gewesen bin bist hat haben hatte hatten habe wird werden wurde wurden kann können muss müssen soll sollen
		nicht kein alle alles jede jeder jedes mehr weniger viel viele hier dort da wie was wer wo wann warum welche welcher welches
		ja nein entdecken kaufen lesen sehen neu neue neuer neues beste besten bester
		bauen baut wird bleibt bleiben gibt geben macht machen kommt kommen trinken trinkt bieten bietet enthalten enthält`),
		connectors: set(``), nounCase: true},
	"es": {stop: set(`el la los las un una unos unas lo al del de a en y o u e ni pero sino que quien como cuando donde porque si
		mi mis tu tus su sus nuestro nuestra nuestros nuestras este esta estos estas ese esa esos esas
		yo tú él ella nosotros vosotros ellos ellas me te se le les nos os
		por para con sin sobre bajo entre hacia hasta desde durante ante tras según
		es son era eran ser sido está están estar ha han haber hay tiene tienen puede pueden hace hacer
		no muy más menos todo todos toda todas otro otros otra otras mismo cada qué cuál cómo dónde sí descubre compra lee nuevo nueva mejor`),
		connectors: set(`de del`)},
}

// PhraseLanguages lists the languages Phrases chunks.
var PhraseLanguages = []string{"de", "en", "es", "fr"}

// token is a word of a run; noun marks a capitalised German word, elided
// a French elision ("d'" of "d'infusion"), written joined to the next word.
type token struct {
	w      string
	noun   bool
	elided bool
}

// Phrases returns the noun phrases of text in lang, in the order they
// occur, repeats included: every contiguous run of 1 to MaxPhraseWords
// words inside a run of content words (see the package's chunking notes)
// that neither starts nor ends with a connector. In German, where nouns
// are capitalised, a run holds capitalised words and lowercase words with
// an adjective ending (-e, -er, -en, -es, -em), and a phrase ends with a
// capitalised word. A language Phrases does not know has none.
func Phrases(lang, text string) []string {
	pl, ok := phraseLangs[lang]
	if !ok {
		return nil
	}
	var out []string
	var run []token
	flush := func() {
		for i := range run {
			if pl.connectors[run[i].w] {
				continue
			}
			content := 0
			for j := i; j < len(run) && content < MaxPhraseWords; j++ {
				if pl.connectors[run[j].w] {
					continue
				}
				content++
				if pl.nounCase && !run[j].noun {
					continue
				}
				var b strings.Builder
				for k, t := range run[i : j+1] {
					if k > 0 && !run[i+k-1].elided {
						b.WriteByte(' ')
					}
					b.WriteString(t.w)
					if t.elided {
						b.WriteByte('\'')
					}
				}
				out = append(out, b.String())
			}
		}
		run = run[:0]
	}
	add := func(t token) {
		switch {
		case pl.connectors[t.w]:
			// A connector joins two content words: it stays only between them.
			if len(run) > 0 && !pl.connectors[run[len(run)-1].w] {
				run = append(run, t)
				return
			}
			flush()
		case pl.stop[t.w] || isNumber(t.w) || len([]rune(t.w)) < 2 || (pl.stopSuffix != nil && pl.stopSuffix(t.w)):
			flush()
		case pl.nounCase && !t.noun && !adjectiveDE(t.w):
			flush()
		default:
			run = append(run, t)
		}
	}
	for _, seg := range segments(text) {
		for _, raw := range strings.FieldsFunc(seg, func(r rune) bool { return !isWordRune(r) }) {
			noun := unicode.IsUpper([]rune(raw)[0])
			for _, w := range Words(raw) {
				for _, e := range pl.elisions {
					if strings.HasPrefix(w, e) && len(w) > len(e) {
						add(token{w: strings.TrimSuffix(e, "'"), elided: true})
						w = w[len(e):]
						break
					}
				}
				add(token{w: w, noun: noun})
			}
		}
		flush()
	}
	return out
}

// isWordRune reports whether r belongs to a word, as Words reads them.
func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '\'' || r == '’' || unicode.Is(unicode.Mn, r)
}

// adjectiveDE reports whether a lowercase German word has an attributive
// adjective's ending.
func adjectiveDE(w string) bool {
	for _, suf := range []string{"e", "er", "en", "es", "em"} {
		if strings.HasSuffix(w, suf) {
			return true
		}
	}
	return false
}

// segments cuts text at punctuation that ends a phrase (anything but
// letters, digits, marks, spaces, apostrophes and hyphens inside words).
func segments(text string) []string {
	return strings.FieldsFunc(text, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.IsSpace(r) && !unicode.Is(unicode.Mn, r) &&
			r != '\'' && r != '’' && r != '-'
	})
}

func isNumber(w string) bool {
	for _, r := range w {
		if !unicode.IsDigit(r) {
			return false
		}
	}
	return true
}
