package optimizer

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The README's own example: a score is never rated good while an error
// finding stands, and a text too short to rate is rated bad.
func TestRatingNeverGoodWithError(t *testing.T) {
	t.Parallel()
	title := "Coffee beans: how to choose them"
	desc := "Coffee beans from a good roaster make the best cup. Here is how to choose them, store them and grind them at home for a better cup."
	tests := []struct {
		name            string
		req             Request
		seoCappedBy     []string
		readCappedBy    []string
		seo, readRating Rating // ratings expected; "" for any
	}{
		{"readme example", Request{Content: "Green tea is ...", Keywords: []string{"green tea"}, Locale: "en-US"}, []string{IDContentEmpty}, nil, "bad", ""},
		{"japanese", Request{Content: "緑茶は日本の伝統的なお茶です。", Keywords: []string{"緑茶"}, Locale: "ja-JP"}, []string{IDContentEmpty}, nil, "bad", ""},
		{"secondary keyphrase not found", Request{Content: gen(400, 5, true), Keywords: []string{"coffee beans", "zorblax"}, Title: title, Description: desc}, []string{IDKeyphraseNotFound}, nil, "ok", "good"},
		{"no error", Request{Content: gen(400, 5, true), Keywords: []string{"coffee beans"}, Title: title, Description: desc}, nil, nil, "good", "good"},
		{"no keyphrase", Request{Content: gen(400, 5, true), Title: title, Description: desc}, []string{IDKeyphraseMissing}, nil, "ok", "good"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := optimize(t, tt.req)
			if (tt.seo != "" && r.SEORating != tt.seo) || (tt.readRating != "" && r.ReadabilityRating != tt.readRating) {
				t.Errorf("ratings seo %d %s, readability %d %s; want %s, %s", score(r.SEOScore), r.SEORating, score(r.ReadabilityScore), r.ReadabilityRating, tt.seo, tt.readRating)
			}
			if !slices.Equal(r.SEOCappedBy, tt.seoCappedBy) || !slices.Equal(r.ReadabilityCappedBy, tt.readCappedBy) {
				t.Errorf("capped by %v and %v, want %v and %v", r.SEOCappedBy, r.ReadabilityCappedBy, tt.seoCappedBy, tt.readCappedBy)
			}
			checkRatings(t, r)
		})
	}
}

// checkRatings fails when a rating is good while an error of its area
// stands.
func checkRatings(t *testing.T, r *Report) {
	t.Helper()
	for _, f := range r.Findings {
		if f.Severity.String() != "error" {
			continue
		}
		if r.SEORating == "good" || score(r.SEOScore) > capError {
			t.Errorf("SEO %d %s with error %s", score(r.SEOScore), r.SEORating, f.ID)
		}
		if (f.ID == IDContentEmpty || strings.HasPrefix(f.ID, "readability.")) && (r.ReadabilityRating == "good" || score(r.ReadabilityScore) > capError) {
			t.Errorf("readability %d %s with error %s", score(r.ReadabilityScore), r.ReadabilityRating, f.ID)
		}
	}
}

// A reading ease that was not computed is null with a reason, never 0.
func TestReadabilityNotComputed(t *testing.T) {
	t.Parallel()
	table := "<table><tr><td>" + strings.Repeat("Coffee grinders and kettles ", 5) + "</td></tr></table>"
	tests := []struct {
		name   string
		req    Request
		reason string
	}{
		{"unsupported language", Request{Content: strings.Repeat("Kawa jest gorąca. Lubię kawę rano. Kawa z mlekiem jest dobra. ", 3), Locale: "pl-PL"}, ReasonUnsupportedLanguage},
		{"too short", Request{Content: "Green tea is ...", Locale: "en-US"}, ReasonTooShort},
		{"empty", Request{Content: "", Locale: "de-DE"}, ReasonTooShort},
		{"no prose", Request{Content: table, Format: FormatHTML, Locale: "en-US"}, ReasonNoProse},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := optimize(t, tt.req)
			if r.Readability.Score != nil || r.Readability.Reason != tt.reason {
				t.Fatalf("readability %+v, want no score, reason %s", r.Readability, tt.reason)
			}
			b, err := json.Marshal(r.Readability)
			if err != nil {
				t.Fatal(err)
			}
			if want := fmt.Sprintf(`"score":null,"reason":%q`, tt.reason); !strings.Contains(string(b), want) {
				t.Errorf("JSON %s lacks %s", b, want)
			}
		})
	}
	r := optimize(t, Request{Content: gen(200, 0, false)})
	if r.Readability.Score == nil || r.Readability.Reason != "" {
		t.Errorf("English prose: readability %+v", r.Readability)
	}
}

// A readability score never stands on no checks or on the structural
// checks alone: it is null with a reason, and so is its rating.
func TestReadabilityScoreNotComputed(t *testing.T) {
	t.Parallel()
	table := "<table><tr><td>" + strings.Repeat("Coffee grinders and kettles ", 5) + "</td></tr></table>"
	tests := []struct {
		name   string
		req    Request
		reason string
	}{
		{"unsupported language", Request{Content: strings.Repeat("Zielona herbata jest zdrowa. Pije ją wiele osób rano. Herbata z cytryną jest dobra. ", 3), Keywords: []string{"zielona herbata"}, Locale: "pl-PL"}, ReasonUnsupportedLanguage},
		{"too short", Request{Content: "Green tea is ...", Locale: "en-US"}, ReasonTooShort},
		{"no check", Request{Content: table, Format: FormatHTML, Locale: "en-US"}, ReasonNoChecks},
		{"english prose", Request{Content: gen(200, 0, false)}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := optimize(t, tt.req)
			if r.ReadabilityReason != tt.reason || (r.ReadabilityScore == nil) != (tt.reason != "") || (r.ReadabilityRating == "") != (tt.reason != "") {
				t.Fatalf("readability score %d %q reason %q, want reason %q", score(r.ReadabilityScore), r.ReadabilityRating, r.ReadabilityReason, tt.reason)
			}
			b, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			want := fmt.Sprintf(`"readabilityScore":null,"readabilityRating":null,"readabilityReason":%q`, tt.reason)
			if tt.reason == "" {
				want = `"readabilityRating":"`
			}
			if !strings.Contains(string(b), want) {
				t.Errorf("JSON lacks %s", want)
			}
			if r.SEOScore == nil || r.SEOChecks == 0 || r.SEOChecks+r.ReadabilityChecks != len(r.Assessments) {
				t.Errorf("SEO score %d from %d checks, readability %d checks, %d assessments", score(r.SEOScore), r.SEOChecks, r.ReadabilityChecks, len(r.Assessments))
			}
		})
	}
}

// useRange in integers agrees with its definition over the adjusted
// density, and its range is never empty.
func TestUseRange(t *testing.T) {
	t.Parallel()
	for words := 1; words <= 3000; words++ {
		for n := 1; n <= 12; n++ {
			for _, exact := range []bool{false, true} {
				u := useRange(words, n, exact)
				if u.min < 1 || u.max < u.min || u.stuffing < u.max {
					t.Fatalf("useRange(%d, %d, %v) = %+v", words, n, exact, u)
				}
				if words < 100 {
					continue
				}
				upper := 3.5
				if exact {
					upper = 3
				}
				adj := func(uses int) float64 { return 100 * float64(uses) / float64(words) * (0.7 + float64(n)/3) }
				const eps = 1e-9
				if u.min > 1 && adj(u.min-1) >= 0.5-eps || adj(u.min) < 0.5-eps {
					t.Fatalf("useRange(%d, %d, %v) min %d: adjusted %.4f, %.4f", words, n, exact, u.min, adj(u.min-1), adj(u.min))
				}
				if u.max > 1 && adj(u.max) > upper+eps || adj(u.max+1) <= upper-eps {
					t.Fatalf("useRange(%d, %d, %v) max %d: adjusted %.4f, %.4f", words, n, exact, u.max, adj(u.max), adj(u.max+1))
				}
				if u.stuffing > u.max && adj(u.stuffing) > 4+eps || adj(u.stuffing+1) <= 4-eps {
					t.Fatalf("useRange(%d, %d, %v) stuffing %d: adjusted %.4f", words, n, exact, u.stuffing, adj(u.stuffing))
				}
			}
		}
	}
}

// In every language, the keyphrase summary (uses, density, recommended
// range, rating) and the density findings say the same thing.
func TestDensityVerdictAgrees(t *testing.T) {
	t.Parallel()
	langs := append(slices.Clone(Languages), "pl")
	for _, lang := range langs {
		base := sampleWords(t, lang)
		for _, size := range []int{30, 70, 160, len(base), 2 * len(base)} {
			var body []string
			for len(body) < size {
				body = append(body, base[:min(size-len(body), len(base))]...)
			}
			text := strings.Join(body, " ") + "."
			for _, kw := range []string{"zorblax", "zorblax quintel", `"zorblax quintel"`} {
				for _, uses := range []int{0, 1, 2, 3, 4, 5, 7, 9, 12} {
					content := text + "\n\n" + strings.Repeat("Zorblax quintel. ", uses)
					r := optimize(t, Request{Content: content, Keywords: []string{kw}, Locale: lang + localeRegion(lang)})
					name := fmt.Sprintf("%s %d words %s %d uses", lang, r.Stats.Words, kw, uses)
					checkDensity(t, name, r)
					checkRatings(t, r)
				}
			}
		}
	}
}

func localeRegion(lang string) string {
	if lang == "en" {
		return "-US"
	}
	return "-" + strings.ToUpper(lang)
}

// sampleWords are the body words of the language's sample text.
func sampleWords(t *testing.T, lang string) []string {
	t.Helper()
	if lang == "pl" {
		return strings.Fields(strings.Repeat("Kawa jest gorąca i lubię ją pić rano razem z przyjaciółmi w małej kawiarni. ", 20))
	}
	b, err := os.ReadFile(filepath.Join("testdata", "lang", lang+".md"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(line, "#") {
			out = append(out, strings.Fields(line)...)
		}
	}
	return out
}

func checkDensity(t *testing.T, name string, r *Report) {
	t.Helper()
	ids := map[string]string{DensityNotFound: IDKeyphraseNotFound, DensityLow: IDDensityLow, DensityHigh: IDDensityHigh, DensityStuffing: IDStuffing}
	for _, k := range r.Keyphrases {
		occ, lo, hi := k.Occurrences, k.RecommendedMin, k.RecommendedMax
		if lo < 1 || hi < lo {
			t.Errorf("%s: range %d-%d", name, lo, hi)
		}
		var want string
		switch {
		case occ == 0:
			want = DensityNotFound
		case occ < lo:
			want = DensityLow
		case occ <= hi:
			want = DensityGood
		default:
			if k.DensityRating != DensityHigh && k.DensityRating != DensityStuffing {
				t.Errorf("%s: %d uses over %d-%d rated %q", name, occ, lo, hi, k.DensityRating)
			}
			want = k.DensityRating
		}
		if k.DensityRating != want {
			t.Errorf("%s: %d uses, range %d-%d, rated %q; want %q", name, occ, lo, hi, k.DensityRating, want)
		}
		if d := math.Round(10000*float64(occ)/float64(r.Stats.Words)) / 100; d != k.Density {
			t.Errorf("%s: density %.2f, want %.2f", name, k.Density, d)
		}
		var got []string
		for _, f := range r.Findings {
			if f.Keyphrase != k.Phrase || !slices.Contains([]string{IDKeyphraseNotFound, IDDensityLow, IDDensityHigh, IDStuffing}, f.ID) {
				continue
			}
			got = append(got, f.ID)
			if f.ID != IDKeyphraseNotFound && !strings.Contains(f.Message, fmt.Sprintf("density %.2f%%", k.Density)) {
				t.Errorf("%s: finding %q does not quote the density %.2f%%", name, f.Message, k.Density)
			}
			if !strings.Contains(f.Message, fmt.Sprint(hi)) && !(hi == 1 && strings.Contains(f.Message, "once")) {
				t.Errorf("%s: finding %q does not give the range %d-%d", name, f.Message, lo, hi)
			}
		}
		var wantIDs []string
		if id, ok := ids[want]; ok {
			wantIDs = []string{id}
		}
		if !slices.Equal(got, wantIDs) {
			t.Errorf("%s: %d uses, range %d-%d: density findings %v, want %v", name, occ, lo, hi, got, wantIDs)
		}
	}
}

// The slug suggestion spells letters the way the language does without
// marks, and a slug so spelled reflects the keyphrase.
func TestSlugTransliteration(t *testing.T) {
	t.Parallel()
	tests := []struct {
		lang string
		in   []string
		want string
	}{
		{"de", []string{"grüner", "tee"}, "gruener-tee"},
		{"de", []string{"Straße", "Öl", "Übung"}, "strasse-oel-uebung"},
		{"fr", []string{"crème", "brûlée"}, "creme-brulee"},
		{"es", []string{"jalapeño", "niño"}, "jalapeno-nino"},
		{"en", []string{"don't", "café"}, "don-t-cafe"},
		{"da", []string{"rødgrød", "blåbær"}, "roedgroed-blaabaer"},
		{"sv", []string{"smörgåsbord"}, "smorgasbord"},
		{"pl", []string{"zażółć", "łódź"}, "zazolc-lodz"},
		{"ru", []string{"зелёный", "чай"}, "зеленый-чай"},
		{"ja", []string{"緑", "茶"}, "緑茶"},
	}
	for _, tt := range tests {
		if got := slugify(tt.lang, tt.in); got != tt.want {
			t.Errorf("slugify(%s, %q) = %q, want %q", tt.lang, tt.in, got, tt.want)
		}
	}
	text := strings.Repeat("Grüner Tee ist gesund und schmeckt am Morgen besonders gut. Wir kaufen ihn in einem kleinen Laden. ", 4)
	for _, slug := range []string{"", "gruener-tee", "gruner-tee", "/blog/grüner-tee/"} {
		r := optimize(t, Request{Content: text, Keywords: []string{"grüner Tee"}, Locale: "de-DE", Slug: slug})
		if r.Suggestions.Slug != "gruener-tee" {
			t.Errorf("suggested slug %q, want gruener-tee", r.Suggestions.Slug)
		}
		if slug == "" {
			continue
		}
		if in := r.Keyphrases[0].InSlug; in == nil || !*in {
			t.Errorf("slug %q: not reflecting the keyphrase", slug)
		}
		if f, ok := findingIDs(r)[IDNotInSlug]; ok {
			t.Errorf("slug %q: %s", slug, f.Message)
		}
	}
	r := optimize(t, Request{Content: text, Keywords: []string{"grüner Tee"}, Locale: "de-DE", Slug: "kaffee"})
	if f := findingIDs(r)[IDNotInSlug]; !strings.Contains(f.Message, `"gruener-tee"`) {
		t.Errorf("not_in_slug %q does not suggest gruener-tee", f.Message)
	}
}

// A title suggestion never repeats a keyphrase its base already starts
// with, and a cut title ends at a word with an ellipsis.
func TestTitleSuggestionNotDoubled(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("Green tea is great for a calm afternoon and a quiet evening with friends who visit. ")
	for range 60 {
		b.WriteString("We walk to the market and buy bread. ")
	}
	r := optimize(t, Request{Content: b.String(), Keywords: []string{"green tea"}, Locale: "en-US"})
	got := r.Suggestions.Title
	if strings.Count(strings.ToLower(got), "green tea") != 1 || !strings.HasPrefix(got, "Green tea is great") || !strings.HasSuffix(got, "…") || len([]rune(got)) > TitleMaxChars {
		t.Errorf("title suggestion %q", got)
	}
}

// A language written without spaces is not counted in words: no verdict
// counted in words, while the keyphrase's occurrences still count, and
// the description joins its sentences without a space.
func TestUnspacedLanguage(t *testing.T) {
	t.Parallel()
	ja := strings.Repeat("緑茶は日本の伝統的な飲み物で、毎日多くの人に飲まれています。茶葉の産地によって味や香りが大きく異なるのも魅力の一つです。", 3)
	r := optimize(t, Request{Content: ja, Keywords: []string{"緑茶"}, Locale: "ja-JP"})
	if r.Stats.WordsReason != ReasonNoWordBoundaries || r.Stats.Words != 0 || r.Stats.AvgSentenceCharacters == 0 {
		t.Errorf("stats %+v", r.Stats)
	}
	for _, f := range r.Findings {
		switch f.ID {
		case IDStuffing, IDDensityHigh, IDDensityLow, IDSentenceTooLong, IDParagraphTooLong, IDContentTooShort, IDConsecutiveOpenings:
			t.Errorf("finding counted in words: %s %s", f.ID, f.Message)
		}
	}
	k := r.Keyphrases[0]
	if k.Occurrences != 3 || k.DensityRating != "" || !k.InIntroduction {
		t.Errorf("keyphrase %+v", k)
	}
	if d := r.Suggestions.Description; strings.Contains(d, "。 ") || !strings.Contains(d, "。茶葉") {
		t.Errorf("description %q", d)
	}
}
