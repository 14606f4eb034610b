package analyzer

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html/atom"

	"github.com/seokit/seokit/seo"
)

func init() {
	register(Check{
		Area:  "title",
		Depth: Basic,
		IDs: []seo.CheckInfo{
			{ID: "title.missing", Severity: seo.Error, Scope: seo.ScopePage, Summary: "The page has no <title> element outside inline SVG.",
				Source: "Lighthouse document-title (https://developer.chrome.com/docs/lighthouse/seo/document-title); Google Search Central, Title links (https://developers.google.com/search/docs/appearance/title-link); Screaming Frog SEO Spider, SEOnaut, PSA"},
			{ID: "title.empty", Severity: seo.Error, Scope: seo.ScopePage, Summary: "The <title> element holds only white space.",
				Source: "Lighthouse document-title (https://developer.chrome.com/docs/lighthouse/seo/document-title); Google Search Central, Title links (https://developers.google.com/search/docs/appearance/title-link); Screaming Frog SEO Spider, SEOnaut, PSA"},
			{ID: "title.multiple", Severity: seo.Warning, Scope: seo.ScopePage, Summary: "The page has more than one <title> element.",
				Source: "HTML Standard, at most one title (https://html.spec.whatwg.org/multipage/semantics.html#the-title-element); Screaming Frog SEO Spider, SEOnaut"},
			{ID: "title.too_short", Severity: seo.Warning, Scope: seo.ScopePage, Summary: "The title is shorter than 30 characters.",
				Source:  "Google Search Central, Title links (https://developers.google.com/search/docs/appearance/title-link); Screaming Frog SEO Spider (30 characters)",
				Differs: "SEOnaut flags titles under 20 characters and PSA under 10; seokit uses Screaming Frog's 30."},
			{ID: "title.too_long", Severity: seo.Warning, Scope: seo.ScopePage, Summary: "The title is longer than 60 characters or wider than an estimated 580 px.",
				Source:  "Google Search Central, Title links (https://developers.google.com/search/docs/appearance/title-link); Screaming Frog SEO Spider and SEOnaut (60 characters)",
				Differs: "Google truncates by width, not characters; seokit also estimates the width and flags over 580 px, where Screaming Frog uses its own pixel limit and Yoast 600 px."},
			{ID: "title.same_as_h1", Severity: seo.Notice, Scope: seo.ScopePage, Summary: "The title repeats the first H1 word for word.",
				Source: "Screaming Frog SEO Spider (title same as H1)"},
			{ID: "title.boilerplate_only", Severity: seo.Warning, Scope: seo.ScopePage, Summary: "The title is only generic text such as \"Home\" or only the site name.",
				Source: "seokit's own rule, after Google Search Central, Title links (https://developers.google.com/search/docs/appearance/title-link) (avoid vague titles such as \"Home\")"},
			{ID: "title.outside_head", Severity: seo.Warning, Scope: seo.ScopePage, Summary: "A <title> element is in the body, where search engines ignore it.",
				Source: "HTML Standard, the head element (https://html.spec.whatwg.org/multipage/semantics.html#the-head-element); Screaming Frog SEO Spider"},
		},
		Run: checkTitle,
	})
	registerExtractor(extractTitle)
}

// extractTitle fills Report.Title from the first <title> element.
func extractTitle(p *Page) {
	titles := p.ByTag(atom.Title)
	if len(titles) == 0 {
		return
	}
	text := Collapse(TextContent(titles[0]))
	p.Report.Title = &Text{Text: text, Length: utf8.RuneCountInString(text), WidthPx: TitleWidth(text)}
}

func checkTitle(p *Page, r *Reporter) {
	titles := p.ByTag(atom.Title)
	th := p.Thresholds()
	if len(titles) == 0 {
		r.Add("title.missing", "the page has no <title> element", seo.Evidence{Element: "<title>"})
		return
	}
	if len(titles) > 1 {
		ev := seo.Measure("<title>", float64(len(titles)), 1)
		vals := make([]string, 0, len(titles))
		for _, t := range titles {
			vals = append(vals, Collapse(TextContent(t)))
		}
		ev.Value = strings.Join(vals, " | ")
		r.Add("title.multiple", "the page has more than one <title> element; search engines pick one unpredictably", ev)
	}
	for _, t := range titles {
		if !InHead(t) {
			r.Add("title.outside_head", "a <title> element sits in the body (or after the head was closed early) and is ignored",
				seo.Evidence{Element: "<title>", Value: Collapse(TextContent(t))})
		}
	}
	tx := p.Report.Title
	if tx == nil { // extractor disabled by a custom setup; measure here
		text := Collapse(TextContent(titles[0]))
		tx = &Text{Text: text, Length: utf8.RuneCountInString(text), WidthPx: TitleWidth(text)}
	}
	if tx.Text == "" {
		r.Add("title.empty", "the <title> element is empty", seo.Evidence{Element: "<title>"})
		return
	}
	if tx.Length < th.TitleMinChars {
		ev := seo.Measure("<title>", float64(tx.Length), float64(th.TitleMinChars))
		ev.Value = tx.Text
		r.Add("title.too_short", "the title is too short to describe the page", ev)
	}
	switch {
	case tx.Length > th.TitleMaxChars:
		ev := seo.Measure("<title>", float64(tx.Length), float64(th.TitleMaxChars))
		ev.Value = tx.Text
		ev.Detail = "characters; estimated width " + strconv.Itoa(tx.WidthPx) + " px"
		r.Add("title.too_long", "the title is longer than search results show and will be cut", ev)
	case tx.WidthPx > th.TitleMaxPixels:
		ev := seo.Measure("<title>", float64(tx.WidthPx), float64(th.TitleMaxPixels))
		ev.Value = tx.Text
		ev.Detail = "estimated width in px (20 px Arial-like glyph table)"
		r.Add("title.too_long", "the title is wider than search results show and will be cut", ev)
	}
	if h1 := p.ByTag(atom.H1); len(h1) > 0 {
		if h := Collapse(headingText(h1[0])); h != "" && strings.EqualFold(h, tx.Text) {
			r.Add("title.same_as_h1", "the title repeats the first H1; a title can target a different phrasing",
				seo.Evidence{Element: "<title>", Value: tx.Text, Detail: "first <h1>: " + h})
		}
	}
	if why := boilerplateTitle(tx.Text, p.URL.Hostname()); why != "" {
		r.Add("title.boilerplate_only", "the title is only generic text or the site name and says nothing about the page",
			seo.Evidence{Element: "<title>", Value: tx.Text, Detail: why})
	}
}

// genericTitles lists titles that say nothing about a page: default titles of
// editors and CMSs and bare section names, lowercased. The list was written
// by the seokit authors from common usage in each language (en, de, es, fr,
// it, nl, pt, ru, pl, sv, da, no, fi, cs, tr).
var genericTitles = lowerSet(
	// en
	"home", "homepage", "home page", "index", "untitled", "untitled document", "untitled page",
	"new page", "new document", "document", "page", "welcome", "default", "default page",
	"title", "my site", "my website", "test", "test page", "blank", "main", "start",
	"index.html", "index.htm", "index.php", "page title", "website",
	// de
	"startseite", "start seite", "willkommen", "neue seite", "unbenannt", "ohne titel",
	"unbenanntes dokument", "hauptseite", "seite", "dokument",
	// es
	"inicio", "página principal", "pagina principal", "bienvenido", "bienvenidos", "sin título",
	"sin titulo", "documento sin título", "nueva página", "nueva pagina", "portada",
	// fr
	"accueil", "page d'accueil", "page d’accueil", "bienvenue", "sans titre", "document sans titre",
	"nouvelle page",
	// it
	"pagina iniziale", "benvenuto", "benvenuti", "senza titolo", "documento senza titolo",
	"nuova pagina", "home page",
	// nl
	"startpagina", "welkom", "naamloos", "naamloos document", "nieuwe pagina", "hoofdpagina",
	// pt
	"início", "inicio", "página inicial", "pagina inicial", "bem-vindo", "bem vindo", "sem título",
	"sem titulo", "documento sem título", "nova página", "nova pagina",
	// ru
	"главная", "главная страница", "домашняя страница", "добро пожаловать", "без названия",
	"без имени", "новая страница", "документ без названия",
	// pl
	"strona główna", "strona glowna", "witamy", "bez tytułu", "nowa strona",
	// sv, da, no
	"startsida", "hem", "välkommen", "ny sida", "namnlös", "forside", "forsiden", "velkommen",
	"ny side", "unavngivet", "uten tittel", "hjem",
	// fi
	"etusivu", "tervetuloa", "nimetön", "uusi sivu",
	// cs
	"úvodní stránka", "uvodni stranka", "úvod", "vítejte", "bez názvu", "nová stránka",
	// tr
	"ana sayfa", "anasayfa", "hoş geldiniz", "başlıksız", "yeni sayfa",
)

func lowerSet(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// titleSeparators split "Home | Example" into its parts; a hyphen
// separates only with spaces around it (" - "), so "example-shop" stays whole.
const titleSeparators = "|–—:·•»«/"

// boilerplateTitle reports why a title is only boilerplate ("" when it is
// not): every part between separators is generic text or the site's name.
func boilerplateTitle(title, host string) string {
	site := siteNames(host)
	low := strings.ReplaceAll(strings.ToLower(title), " - ", " | ")
	parts := strings.FieldsFunc(low, func(r rune) bool { return strings.ContainsRune(titleSeparators, r) })
	generic, named := false, false
	for _, part := range parts {
		part = Collapse(part)
		switch {
		case part == "":
		case genericTitles[part]:
			generic = true
		case site[alnumFold(strings.TrimPrefix(part, "www."))]:
			named = true
		default:
			return ""
		}
	}
	switch {
	case generic && named:
		return "generic text and the site name only"
	case generic:
		return "generic text only"
	case named:
		return "the site name only"
	}
	return ""
}

// siteNames returns the forms of a host a site-name-only title may take,
// reduced to lowercase letters and digits: the host without "www.", the
// registrable domain and its label without the public suffix.
func siteNames(host string) map[string]bool {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	if host == "" {
		return nil
	}
	m := map[string]bool{}
	h := strings.TrimPrefix(host, "www.")
	m[alnumFold(h)] = true
	reg := seo.RegistrableDomain(h)
	m[alnumFold(reg)] = true
	if i := strings.IndexByte(reg, '.'); i > 0 {
		m[alnumFold(reg[:i])] = true
	}
	delete(m, "")
	return m
}

// alnumFold keeps only the letters and digits of s, lowercased.
func alnumFold(s string) string {
	var sb strings.Builder
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			sb.WriteRune(unicode.ToLower(r))
		}
	}
	return sb.String()
}

// titleGlyphWidths are advance widths in 1/1000 em for printable ASCII
// (0x20-0x7E), the metrics of Helvetica as published in Adobe's Core 14 AFM
// files, which Arial shares glyph for glyph. Search results set titles in
// about 20 px Arial, so a width is the sum of these times 20/1000. Real
// rendering differs (kerning, font substitution, hinting): TitleWidth is an
// estimate and is reported as one. The average Latin character comes to about
// 9.6 px, so 580 px holds about 60 characters.
var titleGlyphWidths = [95]uint16{
	278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278, // space ! " # $ % & ' ( ) * + , - . /
	556, 556, 556, 556, 556, 556, 556, 556, 556, 556, // 0-9
	278, 278, 584, 584, 584, 556, 1015, // : ; < = > ? @
	667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, // A-M
	722, 778, 667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, // N-Z
	278, 278, 278, 469, 556, 333, // [ \ ] ^ _ `
	556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, // a-m
	556, 556, 556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, // n-z
	334, 260, 334, 584, // { | } ~
}

// Widths for runes outside printable ASCII, in 1/1000 em: full-width
// (CJK, Hangul, full-width forms) take a whole em; other letters are taken
// as an average upper- or lowercase Latin letter.
const (
	glyphFullWidth = 1000
	glyphUpper     = 700
	glyphLower     = 540
	glyphOther     = 556
	titleFontPx    = 20
)

// TitleWidth estimates the width in pixels of s set in a 20 px Arial-like
// sans-serif font, the way search results show titles. It is an estimate
// from a per-character table, not a rendering.
func TitleWidth(s string) int {
	total := 0
	for _, r := range s {
		switch {
		case r >= 0x20 && r <= 0x7E:
			total += int(titleGlyphWidths[r-0x20])
		case r == 0xA0:
			total += 278
		case isFullWidth(r):
			total += glyphFullWidth
		case unicode.IsMark(r) || r == 0x200B || r == 0x200C || r == 0x200D || r == 0xFEFF:
			// combining marks and zero-width characters add nothing
		case unicode.IsUpper(r):
			total += glyphUpper
		case unicode.IsLetter(r):
			total += glyphLower
		default:
			total += glyphOther
		}
	}
	return (total*titleFontPx + 500) / 1000
}

// isFullWidth reports runes rendered a full em wide: CJK ideographs, kana,
// Hangul, CJK punctuation and full-width forms.
func isFullWidth(r rune) bool {
	switch {
	case r < 0x1100:
		return false
	case r >= 0x1100 && r <= 0x115F, // Hangul Jamo
		r >= 0x2E80 && r <= 0x303E, // CJK radicals, punctuation
		r >= 0x3041 && r <= 0x33FF, // kana, CJK compatibility
		r >= 0x3400 && r <= 0x4DBF, // CJK extension A
		r >= 0x4E00 && r <= 0x9FFF, // CJK unified ideographs
		r >= 0xA960 && r <= 0xA97F,
		r >= 0xAC00 && r <= 0xD7A3, // Hangul syllables
		r >= 0xF900 && r <= 0xFAFF,
		r >= 0xFE30 && r <= 0xFE4F,
		r >= 0xFF00 && r <= 0xFF60, // full-width forms
		r >= 0xFFE0 && r <= 0xFFE6,
		r >= 0x1F300 && r <= 0x1FAFF, // emoji
		r >= 0x20000 && r <= 0x3FFFD:
		return true
	}
	return false
}
