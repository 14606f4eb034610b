package crawled_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/keywords"
	"github.com/seokit/seokit/keywords/crawled"
	"github.com/seokit/seokit/keywords/local"
	"github.com/seokit/seokit/seo"
)

// page is one page of a test site: its path, title, headings and body
// paragraphs; every page links to every other.
type page struct {
	path, title string
	h           []string
	body        []string
}

var sites = []struct {
	lang, locale, query string
	pages               []page
	// gsc is a Search Console export imported for the site; "" for none.
	gsc string
	// templates are the template forms of issue 25 that must not appear.
	templates []string
}{
	{lang: "en", locale: "en-US", query: "green tea", pages: []page{
		{"/", "Organic green tea from Uji", []string{"Our green tea", "Matcha green tea powder"},
			[]string{"We grow organic green tea on family farms in Uji.", "Our matcha green tea powder is stone ground.", "Read how to brew green tea at the right water temperature."}},
		{"/brew", "How to brew green tea", []string{"Water temperature for green tea", "Steeping time"},
			[]string{"Green tea tastes bitter when the water is too hot.", "Use a kyusu teapot and a short steeping time.", "Cold brew green tea keeps its sweetness."}},
		{"/health", "Green tea caffeine and health", []string{"Caffeine in green tea"},
			[]string{"A cup of green tea holds less caffeine than a cup of coffee.", "Green tea catechins are antioxidants."}},
	}, gsc: "Top queries,Clicks,Impressions,CTR,Position\n" +
		"green tea caffeine,12,4100,0.29%,11.4\n" +
		"organic green tea,40,900,4.44%,3.2\n" +
		"matcha green tea benefits,2,1500,0.13%,17.9\n",
		templates: []string{"can green tea", "who green tea", "does green tea", "green tea 2026", "best green tea", "green tea near me"}},
	{lang: "fr", locale: "fr-FR", query: "thé vert", pages: []page{
		{"/", "Thé vert bio du Japon", []string{"Notre thé vert", "Thé vert matcha en poudre"},
			[]string{"Nous cultivons un thé vert bio dans la région d'Uji.", "Le thé vert matcha en poudre est moulu à la meule.", "Découvrez la température de l'eau pour infuser le thé vert."}},
		{"/infusion", "Infusion du thé vert", []string{"Température de l'eau", "Temps d'infusion du thé vert"},
			[]string{"Le thé vert devient amer quand l'eau est trop chaude.", "Une théière en fonte garde la chaleur.", "Le thé vert glacé garde sa douceur."}},
	}, templates: []string{"peut-on thé vert", "comment thé vert", "meilleur thé vert", "thé vert pas cher", "thé vert 2026"}},
	{lang: "de", locale: "de-DE", query: "grüner tee", pages: []page{
		{"/", "Bio grüner Tee aus Japan", []string{"Unser grüner Tee", "Matcha Pulver"},
			[]string{"Wir bauen grünen Tee in Uji an.", "Unser Matcha Pulver wird mit Steinmühlen gemahlen.", "Lesen Sie, wie grüner Tee richtig aufgebrüht wird."}},
		{"/zubereitung", "Grüner Tee Zubereitung", []string{"Wassertemperatur für grünen Tee", "Ziehzeit"},
			[]string{"Grüner Tee wird bitter, wenn das Wasser zu heiß ist.", "Eine kurze Ziehzeit bewahrt das Aroma.", "Kalt aufgegossener grüner Tee bleibt süß."}},
	}, templates: []string{"beste grüner tee", "wie grüner tee", "grüner tee 2026", "grüner tee kostenlos", "günstige grüner tee"}},
}

func serve(t *testing.T, lang string, pages []page) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	for _, p := range pages {
		var b strings.Builder
		fmt.Fprintf(&b, "<!doctype html><html lang=%q><head><title>%s</title><meta name=description content=%q></head><body><main>", lang, p.title, p.body[0])
		for i, h := range p.h {
			fmt.Fprintf(&b, "<h%d>%s</h%d>", min(i+1, 2), h, min(i+1, 2))
		}
		for _, s := range p.body {
			fmt.Fprintf(&b, "<p>%s</p>", s)
		}
		for _, o := range pages {
			fmt.Fprintf(&b, `<a href="%s">%s</a> `, o.path, o.title)
		}
		b.WriteString("</main></body></html>")
		body := b.String()
		pat := "GET " + p.path
		if p.path == "/" {
			pat += "{$}"
		}
		mux.HandleFunc(pat, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, body)
		})
	}
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// words returns text as its normalised words between spaces, apostrophes
// splitting words as the chunker splits elisions.
func words(text string) string {
	return " " + keywords.NormalizePhrase(strings.ReplaceAll(text, "'", " ")) + " "
}

// TestIdeasFromACrawledSite crawls a local site in English, French and
// German, with a Search Console export imported for the English one, and
// prints the ideas for a query: each idea is a phrase of the site's text
// (source "site") or of the imported data (source "search-console"), says
// why, and none is a template form ("can green tea", "peut-on thé vert",
// "beste grüner tee"). The English striking-distance queries (positions
// 8-20) come before the other ideas that are not the query itself.
func TestIdeasFromACrawledSite(t *testing.T) {
	for _, site := range sites {
		t.Run(site.lang, func(t *testing.T) {
			ctx := context.Background()
			srv := serve(t, site.lang, site.pages)
			sp, rep, err := crawled.Crawl(ctx, srv.URL, &crawled.Options{Crawler: &crawler.Options{AllowPrivate: true, PerHostRate: -1, MaxPages: 20}})
			if err != nil {
				t.Fatal(err)
			}
			if got := len(rep.Pages); got != len(site.pages) {
				t.Fatalf("crawled %d pages, want %d", got, len(site.pages))
			}
			var text strings.Builder
			for _, p := range site.pages {
				text.WriteString(p.title + " . " + strings.Join(p.h, " . ") + " . " + strings.Join(p.body, " . ") + " . ")
			}
			siteText := words(text.String())
			loc, err := seo.ParseLocale(site.locale)
			if err != nil {
				t.Fatal(err)
			}
			sources := []keywords.Source{sp}
			imported := map[string]bool{}
			if site.gsc != "" {
				st, err := local.Open(ctx, filepath.Join(t.TempDir(), "kw.db"), nil)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { st.Close() })
				if _, err := st.Import(ctx, strings.NewReader(site.gsc), local.SearchConsole, loc); err != nil {
					t.Fatal(err)
				}
				for _, line := range strings.Split(site.gsc, "\n")[1:] {
					if q, _, ok := strings.Cut(line, ","); ok {
						imported[q] = true
					}
				}
				sources = append(sources, st)
			}
			res, err := keywords.NewSuggester(sources, &keywords.SuggesterOptions{MemoryCacheBytes: -1}).Suggest(ctx, site.query, loc, &keywords.SuggestOptions{Limit: 30})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Suggestions) < 5 {
				t.Fatalf("%d ideas for %q, want at least 5: %+v", len(res.Suggestions), site.query, res.Suggestions)
			}
			t.Logf("%d ideas for %q (%s) from %v:", len(res.Suggestions), site.query, res.Locale, res.Sources)
			striking, others := -1, -1
			for i, k := range res.Suggestions {
				t.Logf("  %-34q %-15s %s", k.Keyword, k.Source, k.Why)
				if k.Why == "" || k.Expansion {
					t.Errorf("%q: no reason, or generated", k.Keyword)
				}
				switch k.Source {
				case keywords.SiteSourceName:
					if !strings.Contains(siteText, words(k.Keyword)) {
						t.Errorf("site idea %q does not occur in the site's text", k.Keyword)
					}
				case string(local.SearchConsole):
					if !imported[k.Keyword] {
						t.Errorf("imported idea %q is not in the export", k.Keyword)
					}
				default:
					t.Errorf("%q: source %q", k.Keyword, k.Source)
				}
				if keywords.FoldKey(loc.Language, k.Keyword) == keywords.FoldKey(loc.Language, site.query) {
					continue
				}
				if keywords.StrikingDistance(&k) {
					striking = i
				} else if others < 0 {
					others = i
				}
				for _, tpl := range site.templates {
					if keywords.NormalizePhrase(k.Keyword) == keywords.NormalizePhrase(tpl) {
						t.Errorf("template form %q among the ideas", k.Keyword)
					}
				}
			}
			if site.gsc != "" && (striking < 0 || striking > others) {
				t.Errorf("striking-distance queries (last at %d) do not come before the other ideas (first at %d)", striking, others)
			}
		})
	}
}
