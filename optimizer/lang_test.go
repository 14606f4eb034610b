package optimizer

import (
	"context"
	"math"
	"strings"
	"testing"
)

func TestFormulas(t *testing.T) {
	t.Parallel()
	// W = 100 words, S = 5 sentences, Y = 150 syllables: ASL 20, ASW 1.5.
	want := map[string]float64{
		"en": 206.835 - 1.015*20 - 84.6*1.5, // 59.635
		"de": 180 - 20 - 58.5*1.5,           // 72.25
		"es": 206.84 - 1.02*20 - 60*1.5,     // 96.44
		"fr": 207 - 1.015*20 - 73.6*1.5,     // 76.3
		"it": 217 - 1.3*20 - 60*1.5,         // 101
		"nl": 206.84 - 0.93*20 - 77*1.5,     // 72.74
		"pt": 248.835 - 1.015*20 - 84.6*1.5, // 101.635
		"ru": 206.835 - 1.3*20 - 60.1*1.5,   // 90.685
	}
	hand := map[string]float64{"en": 59.635, "de": 72.25, "es": 96.44, "fr": 76.3, "it": 101, "nl": 72.74, "pt": 101.635, "ru": 90.685}
	for _, lang := range Languages {
		t.Run(lang, func(t *testing.T) {
			got := formulas[lang].fn(100, 5, 150)
			if math.Abs(got-hand[lang]) > 1e-9 || math.Abs(want[lang]-hand[lang]) > 1e-9 {
				t.Errorf("%s: got %v, hand-computed %v", lang, got, hand[lang])
			}
		})
	}
}

func TestGrades(t *testing.T) {
	t.Parallel()
	// W 100, S 5, Y 150, L 450, C 470, P 10.
	g := grades(100, 5, 150, 450, 470, 10)
	want := [5]float64{
		9.91,  // FK: 0.39·20 + 11.8·1.5 − 15.59
		12,    // Fog: 0.4·(20 + 10)
		11.21, // SMOG: 1.043·√60 + 3.1291 = 11.2082
		9.18,  // CLI: 0.0588·450 − 0.296·5 − 15.8
		10.71, // ARI: 4.71·4.7 + 0.5·20 − 21.43 = 10.707
	}
	names := []string{"Flesch-Kincaid", "Gunning Fog", "SMOG", "Coleman-Liau", "ARI"}
	for i := range want {
		if math.Abs(g[i]-want[i]) > 0.005 {
			t.Errorf("%s = %v, want %v", names[i], g[i], want[i])
		}
	}
}

// TestReadabilityEndToEnd checks the counts behind the formula on a text
// whose words and syllables were counted by hand.
func TestReadabilityEndToEnd(t *testing.T) {
	t.Parallel()
	// el-e-phants re-mem-ber lo-ca-tions. beau-ti-ful an-i-mals wan-der slow-ly.
	text := "Elephants remember locations. Beautiful animals wander slowly."
	r := optimize(t, Request{Content: text, Locale: "en-GB"})
	st := r.Stats
	if st.Words != 7 || st.Sentences != 2 || st.Syllables != 19 {
		t.Fatalf("words %d sentences %d syllables %d, want 7 2 19", st.Words, st.Sentences, st.Syllables)
	}
	// Flesch = 206.835 − 1.015·3.5 − 84.6·19/7 = −26.35, clamped to 0.
	if sc := r.Readability.Score; sc == nil || *sc != 0 || r.Readability.Formula != "Flesch Reading Ease" {
		t.Errorf("readability %+v", r.Readability)
	}
	// FK grade = 0.39·3.5 + 11.8·19/7 − 15.59 = 1.365 + 32.0286 − 15.59 = 17.8036.
	if fk := r.Readability.FleschKincaid; fk == nil || math.Abs(*fk-17.80) > 0.006 {
		t.Errorf("Flesch-Kincaid %v, want 17.80", *fk)
	}
}

func TestSyllables(t *testing.T) {
	t.Parallel()
	ref := map[string]map[string]int{
		"en": {"cat": 1, "table": 2, "make": 1, "makes": 1, "jumped": 1, "wanted": 2, "boxes": 2, "simple": 2, "coffee": 2, "water": 2, "elephant": 3, "beautiful": 3, "the": 1, "people": 2, "business": 2},
		"de": {"haus": 1, "kaffee": 2, "bohnen": 2, "wasser": 2, "gewohnheiten": 4, "mühle": 2, "einfach": 2},
		"es": {"casa": 2, "café": 2, "agua": 2, "día": 2, "país": 2, "leer": 2, "poeta": 3, "tiempo": 2, "granos": 2},
		"fr": {"café": 2, "maison": 2, "eau": 1, "grains": 1, "table": 1, "moulin": 2, "chaude": 1, "pensent": 1},
		"it": {"casa": 2, "caffè": 2, "acqua": 2, "ciao": 2, "giorno": 2, "poeta": 3, "chicchi": 2},
		"nl": {"koffie": 2, "water": 2, "bijvoorbeeld": 3, "tijd": 1, "ruïne": 3},
		"pt": {"café": 2, "pão": 1, "mãe": 1, "água": 2, "grãos": 1, "tempo": 2},
		"ru": {"кофе": 2, "вода": 2, "молоко": 3, "время": 2, "здравствуйте": 3},
	}
	for lang, words := range ref {
		for w, n := range words {
			if got := syllableCounters[lang](w); got != n {
				t.Errorf("%s %q: %d syllables, want %d", lang, w, got, n)
			}
		}
	}
}

// passiveOf runs the passive detector on one sentence.
func passiveOf(t *testing.T, lang, s string) bool {
	t.Helper()
	c := &canceler{ctx: context.Background()}
	d := newDoc(profileFor(lang), c)
	ps := parseText(c, s)
	if d.segment(ps.blocks, ps.pieces); len(d.sents) == 0 {
		t.Fatalf("segment %q: no sentence", s)
	}
	pd := &passiveDetector{d: d, content: s}
	return pd.sentence(0)
}

func TestPassive(t *testing.T) {
	t.Parallel()
	cases := []struct {
		lang, sentence string
		want           bool
	}{
		{"en", "The house was built in 1900.", true},
		{"en", "The letters were quickly written by hand.", true},
		{"en", "The bread was eaten by the children.", true},
		{"en", "We built the house in 1900.", false},
		{"en", "She is happy with the result.", false},
		{"en", "He was running to the station.", false},
		{"de", "Das Haus wurde 1900 gebaut.", true},
		{"de", "Die Bohnen werden von kleinen Röstereien geröstet.", true},
		{"de", "Wir werden morgen gehen.", false},
		{"de", "Er baut ein Haus.", false},
		{"nl", "Het huis wordt door hem gebouwd.", true},
		{"nl", "Hij bouwt een huis.", false},
		{"fr", "La maison est construite par mon père.", true},
		{"fr", "Le gâteau est préparé par le chef.", true},
		{"fr", "Elle est allée au marché.", false},
		{"fr", "Il s'est levé tôt.", false},
		{"es", "La casa fue construida en 1900.", true},
		{"es", "El libro es interesante.", false},
		{"it", "La casa è stata costruita nel 1900.", true},
		{"it", "La lettera viene scritta a mano.", true},
		{"it", "Maria è andata a Roma.", false},
		{"pt", "O livro foi escrito por ele.", true},
		{"pt", "A casa é grande.", false},
		{"ru", "Дом построен в 1900 году.", true},
		{"ru", "Страна большая.", false},
		{"ru", "Я читаю книгу.", false},
	}
	for _, c := range cases {
		t.Run(c.lang+"/"+c.sentence, func(t *testing.T) {
			if got := passiveOf(t, c.lang, c.sentence); got != c.want {
				t.Errorf("passive(%q) = %v, want %v", c.sentence, got, c.want)
			}
		})
	}
}

// TestAllLanguages analyses the sample text of each supported language.
func TestAllLanguages(t *testing.T) {
	t.Parallel()
	formula := map[string]string{"en": "Flesch Reading Ease", "de": "Amstad", "es": "Fernández Huerta", "fr": "Kandel-Moles",
		"it": "Flesch-Vacca", "nl": "Douma", "pt": "Flesch (Portuguese adaptation)", "ru": "Oborneva"}
	for _, lang := range Languages {
		t.Run(lang, func(t *testing.T) {
			text := benchText(t, lang, 150)
			r := optimize(t, Request{Content: text, Keywords: benchKeywords[lang], Locale: benchLocales[lang]})
			if !r.Supported || r.Language != lang || len(r.Skipped) != 0 {
				t.Errorf("support: %v %q %v", r.Supported, r.Language, r.Skipped)
			}
			if r.Detected.Language != lang {
				t.Errorf("detected %+v, want %s", r.Detected, lang)
			}
			if r.Readability.Formula != formula[lang] || r.Readability.Score == nil || *r.Readability.Score <= 0 || *r.Readability.Score > 100 {
				t.Errorf("readability %+v", r.Readability)
			}
			if r.Stats.Subheadings != 3 || r.Stats.Paragraphs != 4 {
				t.Errorf("structure: %d subheadings, %d paragraphs", r.Stats.Subheadings, r.Stats.Paragraphs)
			}
			if r.Stats.PassiveSentences == 0 {
				t.Errorf("no passive sentence found")
			}
			if r.Stats.TransitionSentences == 0 {
				t.Errorf("no transition word found")
			}
			for _, k := range r.Keyphrases {
				if k.Occurrences == 0 {
					t.Errorf("keyphrase %q not found", k.Phrase)
				}
			}
			if findingIDs(r)[IDLanguageMismatch].ID != "" {
				t.Errorf("mismatch reported for %s text", lang)
			}
		})
	}
}

func TestLanguageMismatch(t *testing.T) {
	t.Parallel()
	r := optimize(t, Request{Content: benchText(t, "fr", 200), Keywords: []string{"café"}, Locale: "de-DE"})
	if r.Detected.Language != "fr" {
		t.Fatalf("detected %+v", r.Detected)
	}
	f, ok := findingIDs(r)[IDLanguageMismatch]
	if !ok || f.Evidence.Detail != "detected fr" {
		t.Errorf("mismatch finding %+v", f)
	}
}

func TestUnsupportedLocale(t *testing.T) {
	t.Parallel()
	text := "Kawa jest gorąca. Lubię kawę rano. Kawa z mlekiem jest dobra."
	r := optimize(t, Request{Content: text, Keywords: []string{"kawa"}, Locale: "pl-PL"})
	if r.Supported || len(r.Skipped) == 0 || r.Readability.Formula != "" {
		t.Errorf("unsupported locale: supported %v skipped %v formula %q", r.Supported, r.Skipped, r.Readability.Formula)
	}
	if r.Keyphrases[0].Occurrences != 2 { // exact word forms only: "Kawa" twice, not "kawę"
		t.Errorf("occurrences %d, want 2", r.Keyphrases[0].Occurrences)
	}
	if r.Stats.Words != 11 || r.Stats.Sentences != 3 {
		t.Errorf("stats %+v", r.Stats)
	}
}

func TestStemKeyLongWords(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("kaffeemaschinen", 5) // 75 bytes
	tests := []struct {
		lang, word, want string
	}{
		{"de", "kaffeemaschinen", "kaffeemaschin"},
		{"de", long, long},
		{"de", "über" + long, "uber" + long},
		{"en", "brewing", "brew"},
		{"en", strings.Repeat("brewing", 10), strings.Repeat("brewing", 10)},
	}
	for _, tt := range tests {
		if got := newStemmer(profileFor(tt.lang)).key(tt.word); got != tt.want {
			t.Errorf("%s key(%q) = %q, want %q", tt.lang, tt.word, got, tt.want)
		}
	}
}
