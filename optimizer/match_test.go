package optimizer

import (
	"math"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestKeyphraseMatching(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, locale, content, keyphrase string
		want                             int
	}{
		{"word forms via stems", "en-US", "She bikes to work. Biking is fun. A bike is cheap.", "bike", 3},
		{"any order in one sentence", "en-US", "Beans of good coffee. Coffee and tea. Beans and rice.", "coffee beans", 1},
		{"function words dropped", "en-US", "We decorate every room. Rooms are hard to decorate.", "how to decorate a room", 2},
		{"quoted is exact and ordered", "en-US", "Coffee beans are here. Beans of coffee. Coffee bean.", `"coffee beans"`, 1},
		{"case folded", "en-US", "COFFEE BEANS rule.", "coffee beans", 1},
		{"curly apostrophe", "en-US", "Don’t panic. Don't panic.", "don't panic", 2},
		{"diacritics folded", "fr-FR", "Le café est chaud. Le cafe est froid.", "café", 2},
		{"french elision", "fr-FR", "L'homme marche. Un homme court.", "homme", 2},
		{"german word forms", "de-DE", "Der Kaffee ist heiß. Des Kaffees Duft.", "Kaffee", 2},
		{"russian word forms", "ru-RU", "Кофе горячий. Я люблю кофе. Вода холодная.", "кофе", 2},
		{"two matches in one sentence", "en-US", "Coffee beans and more coffee beans.", "coffee beans", 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := optimize(t, Request{Content: c.content, Keywords: []string{c.keyphrase}, Locale: c.locale})
			if got := r.Keyphrases[0].Occurrences; got != c.want {
				t.Errorf("occurrences %d, want %d (forms %v)", got, c.want, r.Keyphrases[0].Forms)
			}
		})
	}
}

func TestDensity(t *testing.T) {
	t.Parallel()
	content := gen(400, 8, true)
	r := optimize(t, Request{Content: content, Keywords: []string{"coffee beans"}})
	k := r.Keyphrases[0]
	words := float64(r.Stats.Words)
	wantDensity := math.Round(100*100*float64(k.Occurrences)/words) / 100
	if k.Density != wantDensity {
		t.Errorf("density %v, want %v", k.Density, wantDensity)
	}
	// Two content words: factor 0.7 + 2/3.
	if want := math.Round(k.Density*(0.7+2.0/3)*100) / 100; math.Abs(k.AdjustedDensity-want) > 0.011 {
		t.Errorf("adjusted density %v, want %v", k.AdjustedDensity, want)
	}
	if k.RecommendedMin < 1 || k.RecommendedMax < k.RecommendedMin {
		t.Errorf("recommended %d-%d", k.RecommendedMin, k.RecommendedMax)
	}
	if k.LongestGap == 0 || k.GapRatio <= 0 || k.GapRatio >= 0.3 {
		t.Errorf("gap %d ratio %v", k.LongestGap, k.GapRatio)
	}
}

func TestFormats(t *testing.T) {
	t.Parallel()
	html := `<!doctype html><html><head><title>Coffee beans guide</title>
<meta name="description" content="All about coffee beans."><style>p{color:red}</style></head>
<body><h1>Coffee beans</h1><p>Coffee beans are seeds. We roast them &amp; grind them.</p>
<h2>Kinds</h2><ul><li>Arabica beans taste sweet and are grown on high farms all over the world in many countries today</li><li>Robusta</li></ul>
<table><tr><td>Price</td><td>Ten dollars for one very large bag of roasted coffee beans from the farm</td></tr></table>
<blockquote><p>Coffee is life.</p></blockquote>
<p>See <a href="/beans">coffee beans</a> and <img src="a.jpg" alt="Roasted coffee beans"></p>
<pre>code here is skipped</pre><script>var x = "coffee beans";</script></body></html>`
	md := "# Coffee beans\n\nCoffee beans are *seeds*. We roast **them**.\n\n## Kinds\n\n- Arabica beans taste sweet\n- Robusta\n\n| Kind | Price |\n|---|---|\n| Arabica | Ten |\n\n> Coffee is life.\n\n```\ncode is skipped\n```\n\nSee [coffee beans](/beans) and ![Roasted coffee beans](a.jpg)\n"
	text := "Coffee beans\n\nCoffee beans are seeds. We roast them.\n\n- Arabica beans taste sweet\n- Robusta\n"
	cases := []struct {
		name, content, format string
		check                 func(t *testing.T, r *Report)
	}{
		{"html", html, "html", func(t *testing.T, r *Report) {
			st := r.Stats
			if st.Headings != 2 || st.ListItems != 2 || st.TableCells != 2 || st.Quotes != 1 || st.Images != 1 || st.Links != 1 {
				t.Errorf("structure %+v", st)
			}
			k := r.Keyphrases[0]
			if k.InTitle == nil || !*k.InTitle || k.InDescription == nil || *k.InDescription != 1 || k.AltMatched != 1 || k.CompetingLinks != 1 {
				t.Errorf("keyphrase %+v", k)
			}
			// Lists and table cells are not sentences: the long list item and cell are not "long sentences".
			if st.LongSentences != 0 {
				t.Errorf("long sentences %d", st.LongSentences)
			}
		}},
		{"markdown", md, "markdown", func(t *testing.T, r *Report) {
			st := r.Stats
			if st.Headings != 2 || st.Subheadings != 1 || st.ListItems != 2 || st.TableCells != 4 || st.Quotes != 1 || st.Images != 1 || st.Links != 1 {
				t.Errorf("structure %+v", st)
			}
			if r.Keyphrases[0].CompetingLinks != 1 || r.Keyphrases[0].AltMatched != 1 {
				t.Errorf("keyphrase %+v", r.Keyphrases[0])
			}
		}},
		{"text", text, "text", func(t *testing.T, r *Report) {
			st := r.Stats
			if st.Headings != 1 || st.ListItems != 2 || st.Paragraphs != 1 || st.Sentences != 4 {
				t.Errorf("structure %+v", st)
			}
		}},
	}
	cases = append(cases, struct {
		name, content, format string
		check                 func(t *testing.T, r *Report)
	}{"html nested blocks", "<ul><li><p>One item here.</p><p>Second part.</p></li></ul><table><tr><td><div>Cell text.</div></td></tr></table><p>Body.</p>", "html", func(t *testing.T, r *Report) {
		if st := r.Stats; st.ListItems != 2 || st.TableCells != 1 || st.Paragraphs != 1 {
			t.Errorf("structure %+v", st)
		}
	}})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := optimize(t, Request{Content: c.content, Keywords: []string{"coffee beans"}})
			if r.Format != c.format {
				t.Fatalf("format %q, want %q", r.Format, c.format)
			}
			c.check(t, r)
			// The same with the format given.
			r2 := optimize(t, Request{Content: c.content, Keywords: []string{"coffee beans"}, Format: c.format})
			if r2.Stats != r.Stats {
				t.Errorf("given format changed the stats")
			}
		})
	}
}

func TestAbbreviations(t *testing.T) {
	t.Parallel()
	cases := []struct {
		locale, text string
		want         int
	}{
		{"en-US", "Dr. Smith met Mr. Jones at 5 p.m. today. They talked.", 2},
		{"en-US", "I like tea, e.g. green tea. You like coffee.", 2},
		{"de-DE", "Das ist z.B. ein Test. Am 3. Mai regnet es.", 2},
		{"fr-FR", "M. Dupont est là. Il attend.", 2},
		{"es-ES", "La Sra. García llegó. Ella espera.", 2},
	}
	for _, c := range cases {
		t.Run(c.text, func(t *testing.T) {
			r := optimize(t, Request{Content: c.text, Locale: c.locale})
			if r.Stats.Sentences != c.want {
				t.Errorf("%d sentences, want %d", r.Stats.Sentences, c.want)
			}
		})
	}
}

func TestSuggestions(t *testing.T) {
	t.Parallel()
	content := "# A long guide to everything you could ever want to know about roasting\n\n" +
		gen(80, 0, false) + "\n\n" + strings.Repeat("Some filler words come first here, ", 3) +
		"and good coffee beans from a farm matter a lot, " + strings.Repeat("and this sentence keeps going for a long while ", 3) + "until it ends.\n\n" + gen(300, 0, true)
	r := optimize(t, Request{Content: content, Keywords: []string{"coffee beans"}})
	s := r.Suggestions
	if n := utf8.RuneCountInString(s.Title); n == 0 || n > TitleMaxChars || !strings.Contains(strings.ToLower(s.Title), "coffee beans") {
		t.Errorf("title %q (%d chars)", s.Title, n)
	}
	if n := utf8.RuneCountInString(s.Description); n == 0 || n > DescriptionMaxChars || !strings.Contains(strings.ToLower(s.Description), "coffee beans") {
		t.Errorf("description %q (%d chars)", s.Description, n)
	}
	if s.Slug != "coffee-beans" {
		t.Errorf("slug %q", s.Slug)
	}
	if len(s.Tips) == 0 {
		t.Error("no tips")
	}
}

// TestScoreRule recomputes both scores from the assessments.
func TestScoreRule(t *testing.T) {
	t.Parallel()
	r := optimize(t, Request{Content: gen(400, 8, true), Keywords: []string{"coffee beans", "green tea"}, Title: "Coffee beans at home"})
	var read, readN float64
	shared, sharedN := 0.0, 0.0
	kp := map[string][2]float64{}
	for _, a := range r.Assessments {
		v := float64(min(max(a.Score, 0), 9))
		switch {
		case a.Area == "readability":
			read += v
			readN++
		case a.Keyphrase != "":
			e := kp[a.Keyphrase]
			kp[a.Keyphrase] = [2]float64{e[0] + v, e[1] + 1}
		default:
			shared += v
			sharedN++
		}
	}
	num, den := shared, 9*sharedN
	for _, e := range kp {
		num += e[0] / 2
		den += 9 * e[1] / 2
	}
	// The absent keyphrase is an error, which caps the SEO score at 70.
	want := int(math.Round(100 * num / den))
	if want <= capError || !slices.Equal(r.SEOCappedBy, []string{IDKeyphraseNotFound}) {
		t.Errorf("uncapped SEO score %d, capped by %v", want, r.SEOCappedBy)
	}
	if score(r.SEOScore) != capError {
		t.Errorf("SEO score %d, want %d", score(r.SEOScore), capError)
	}
	if want := int(math.Round(100 * read / (9 * readN))); score(r.ReadabilityScore) != want {
		t.Errorf("readability score %d, want %d", score(r.ReadabilityScore), want)
	}
	if score(r.SEOScore) <= 0 || score(r.SEOScore) > 100 || score(r.ReadabilityScore) <= 0 {
		t.Errorf("scores %d %d", score(r.SEOScore), score(r.ReadabilityScore))
	}
	// The green-tea keyphrase is absent, so the score must be below that of
	// coffee beans alone.
	r1 := optimize(t, Request{Content: gen(400, 8, true), Keywords: []string{"coffee beans"}, Title: "Coffee beans at home"})
	if score(r1.SEOScore) <= score(r.SEOScore) {
		t.Errorf("score with a missing keyphrase %d not below %d", score(r.SEOScore), score(r1.SEOScore))
	}
}

func TestCatalog(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, c := range Catalog() {
		if seen[c.ID] || c.Summary == "" || c.Severity == 0 || c.Scope != ScopeContent {
			t.Errorf("bad catalogue entry %+v", c)
		}
		seen[c.ID] = true
		if _, ok := tips[c.ID]; !ok && c.ID != IDLanguageUnsupported {
			t.Errorf("no tip for %s", c.ID)
		}
	}
}
