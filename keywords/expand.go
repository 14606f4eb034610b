package keywords

import (
	"strconv"
	"strings"
)

// expansionSet holds the question words and modifier templates of one
// language. A template's "%s" is replaced by the query; "%y" by a year.
type expansionSet struct {
	questions []string
	modifiers []string
}

// expansionSets are written for this package: common question words and
// shopping/learning modifiers of each language.
var expansionSets = map[string]expansionSet{
	"en": {
		questions: []string{"how", "what", "why", "can", "is", "where", "when", "which", "who", "are", "does"},
		modifiers: []string{"best %s", "cheap %s", "%s near me", "%s for beginners", "%s vs", "%s %y", "free %s", "%s online", "%s review"},
	},
	"de": {
		questions: []string{"wie", "was", "warum", "kann", "ist", "wo", "wann", "welche", "wer"},
		modifiers: []string{"beste %s", "günstige %s", "%s in der nähe", "%s für anfänger", "%s vs", "%s %y", "%s kostenlos", "%s online", "%s test"},
	},
	"es": {
		questions: []string{"cómo", "qué", "por qué", "puedo", "es", "dónde", "cuándo", "cuál", "quién"},
		modifiers: []string{"mejor %s", "%s barato", "%s cerca de mí", "%s para principiantes", "%s vs", "%s %y", "%s gratis", "%s online"},
	},
	"fr": {
		questions: []string{"comment", "quoi", "pourquoi", "peut-on", "est-ce que", "où", "quand", "quel", "qui"},
		modifiers: []string{"meilleur %s", "%s pas cher", "%s près de chez moi", "%s pour débutants", "%s vs", "%s %y", "%s gratuit", "%s en ligne"},
	},
	"it": {
		questions: []string{"come", "cosa", "perché", "si può", "è", "dove", "quando", "quale", "chi"},
		modifiers: []string{"miglior %s", "%s economico", "%s vicino a me", "%s per principianti", "%s vs", "%s %y", "%s gratis", "%s online"},
	},
	"nl": {
		questions: []string{"hoe", "wat", "waarom", "kan", "is", "waar", "wanneer", "welke", "wie"},
		modifiers: []string{"beste %s", "goedkope %s", "%s in de buurt", "%s voor beginners", "%s vs", "%s %y", "%s gratis", "%s online"},
	},
	"pt": {
		questions: []string{"como", "o que", "por que", "pode", "é", "onde", "quando", "qual", "quem"},
		modifiers: []string{"melhor %s", "%s barato", "%s perto de mim", "%s para iniciantes", "%s vs", "%s %y", "%s grátis", "%s online"},
	},
	"ru": {
		questions: []string{"как", "что", "почему", "можно ли", "это", "где", "когда", "какой", "кто"},
		modifiers: []string{"лучший %s", "%s дешево", "%s рядом", "%s для начинающих", "%s vs", "%s %y", "%s бесплатно", "%s онлайн"},
	},
}

// ExpansionLanguages lists the languages Expand knows templates for.
var ExpansionLanguages = []string{"de", "en", "es", "fr", "it", "nl", "pt", "ru"}

// Expand returns question and modifier expansions of query in lang
// ("how running shoes", "best running shoes", "running shoes 2026" ...),
// with year used by the year modifier. Phrases are normalised; a language
// without templates has no expansions. The phrases carry no figures: a
// source marks them Expansion and leaves Volume nil unless it knows them.
func Expand(query, lang string, year int) []string {
	set, ok := expansionSets[lang]
	q := NormalizePhrase(query)
	if !ok || q == "" {
		return nil
	}
	out := make([]string, 0, len(set.questions)+len(set.modifiers))
	for _, w := range set.questions {
		out = append(out, w+" "+q)
	}
	for _, m := range set.modifiers {
		p := strings.ReplaceAll(m, "%s", q)
		p = strings.ReplaceAll(p, "%y", strconv.Itoa(year))
		out = append(out, p)
	}
	return out
}
