package analyzer

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"golang.org/x/text/language"

	"github.com/seokit/seokit/seo"
)

func init() {
	register(Check{
		Area:  "content",
		Depth: Standard,
		IDs: []seo.CheckInfo{
			{ID: "content.thin", Severity: seo.Warning, Scope: seo.ScopePage, Summary: "An indexable 200 page has fewer than 200 words of main text.",
				Source:  "Google Search Central, Creating helpful content (https://developers.google.com/search/docs/fundamentals/creating-helpful-content); Screaming Frog SEO Spider and SEOnaut (low content, 200 words)",
				Differs: "Google names no minimum word count and Yoast asks 300 words of a post; seokit uses 200 words of main text, as Screaming Frog and SEOnaut do, since it judges every kind of page."},
			{ID: "content.lorem_ipsum", Severity: seo.Warning, Scope: seo.ScopePage, Summary: "The text still contains \"lorem ipsum\" placeholder text.",
				Source: "Screaming Frog SEO Spider (Content tab, lorem ipsum placeholder)"},
			{ID: "content.soft_404", Severity: seo.Error, Scope: seo.ScopePage, Summary: "A 200 page reads like an error page (\"page not found\" in title, H1 or short text).",
				Source: "Google Search Central, soft 404 errors (https://developers.google.com/search/docs/crawling-indexing/http-network-errors#soft-404-errors); Screaming Frog SEO Spider"},
			{ID: "content.lang_missing", Severity: seo.Warning, Scope: seo.ScopePage, Summary: "The <html> element has no lang attribute, or it is blank.",
				Source:  "HTML Standard, the lang attribute (https://html.spec.whatwg.org/multipage/dom.html#the-lang-and-xml:lang-attributes); Lighthouse accessibility html-has-lang (axe); SEOnaut, PSA",
				Differs: "Google does not use the lang attribute to detect a page's language; seokit keeps the check for accessibility and tooling, as Lighthouse does outside its SEO category."},
			{ID: "content.lang_invalid", Severity: seo.Warning, Scope: seo.ScopePage, Summary: "The lang attribute is not a well-formed BCP 47 tag with a known language.",
				Source: "BCP 47 (RFC 5646, https://www.rfc-editor.org/rfc/rfc5646); Lighthouse accessibility html-lang-valid (axe); SEOnaut"},
			{ID: "content.lang_mismatch", Severity: seo.Notice, Scope: seo.ScopePage, Summary: "The language detected in the text differs from the declared lang.",
				Source: "seokit's own rule: the declared lang should match the text, as screen readers and translation tools rely on it"},
			{ID: "content.duplicate_id", Severity: seo.Notice, Scope: seo.ScopePage, Summary: "Several elements share one id value.",
				Source: "HTML Standard, unique id values (https://html.spec.whatwg.org/multipage/dom.html#the-id-attribute); SEOnaut"},
			{ID: "content.charset_missing", Severity: seo.Warning, Scope: seo.ScopePage, Summary: "Neither a byte-order mark, the Content-Type header nor a meta tag declares the character encoding.",
				Source: "Lighthouse charset (https://developer.chrome.com/docs/lighthouse/best-practices/charset); HTML Standard (https://html.spec.whatwg.org/multipage/semantics.html#charset); Encoding Standard, decode and BOM sniff (https://encoding.spec.whatwg.org/#decode)"},
			{ID: "content.charset_late", Severity: seo.Warning, Scope: seo.ScopePage, Summary: "The meta charset declaration starts after the first 1024 bytes.",
				Source: "HTML Standard, character encoding declaration within the first 1024 bytes (https://html.spec.whatwg.org/multipage/semantics.html#charset); Lighthouse charset (https://developer.chrome.com/docs/lighthouse/best-practices/charset)"},
			{ID: "content.doctype_missing", Severity: seo.Notice, Scope: seo.ScopePage, Summary: "The document does not start with <!DOCTYPE html>, so browsers use quirks mode.",
				Source: "Lighthouse doctype (https://developer.chrome.com/docs/lighthouse/best-practices/doctype); HTML Standard, the DOCTYPE (https://html.spec.whatwg.org/multipage/syntax.html#the-doctype)"},
			{ID: "content.head_invalid_element", Severity: seo.Warning, Scope: seo.ScopePage, Summary: "An element not allowed in <head> closes it early, moving later head tags into the body.",
				Source: "HTML Standard, the head element (https://html.spec.whatwg.org/multipage/semantics.html#the-head-element) and the parser's in-head rules; Screaming Frog SEO Spider"},
			{ID: "content.js_shell", Severity: seo.Notice, Scope: seo.ScopePage, Summary: "Almost no text, scripts and an empty app root: the content needs JavaScript to render.",
				Source:  "seokit's own rule, after Google Search Central, JavaScript SEO basics (https://developers.google.com/search/docs/crawling-indexing/javascript/javascript-seo-basics)",
				Differs: "seokit reads the HTML as served and does not render it; it flags the empty shell instead of judging the rendered text."},
		},
		Run: checkContent,
	})
	registerExtractor(extractContent)
}

// charsetLateOffset is the byte offset from which a meta charset counts as
// late: it must start within the first 1024 bytes.
const charsetLateOffset = 1024

// extractContent fills WordCount, DeclaredLang and Language.
func extractContent(p *Page) {
	p.Report.WordCount = p.Words
	if p.HTML != nil {
		if l, ok := Attr(p.HTML, "lang"); ok {
			p.Report.DeclaredLang = strings.TrimSpace(l)
		}
	}
	if code, ok := detectLanguage(p.MainText); ok {
		p.Report.Language = code
	}
}

func checkContent(p *Page, r *Reporter) {
	th := p.Thresholds()
	status := p.Response.Status

	if status == 200 && p.Report.Robots.Indexable && p.Words < th.ThinContentWords {
		ev := seo.Measure("main text", float64(p.Words), float64(th.ThinContentWords))
		ev.Detail = "words"
		r.Add("content.thin", "the page has little main text", ev)
	}
	if i := p.loremIndex(); i >= 0 {
		r.Add("content.lorem_ipsum", "the page contains lorem ipsum placeholder text",
			seo.Evidence{Element: "main text", Value: textAround(p.MainText, i, 80)})
	}
	if status == 200 {
		checkSoft404(p, r, th)
	}
	checkLang(p, r, th)
	checkDuplicateIDs(p, r)
	checkCharset(p, r)
	if !startsWithDoctype(p) {
		r.Add("content.doctype_missing", "the document does not start with <!DOCTYPE html>; browsers render it in quirks mode",
			seo.Evidence{Element: "<!DOCTYPE>", Value: headBytes(p.Body, 60)})
	}
	checkHeadInvalid(p, r)
	checkJSShell(p, r, th)
}

// notFoundPhrases are lowercase phrases of error pages, per language,
// written by the seokit authors. They are matched in the title, the first
// H1, and the main text of short pages.
var notFoundPhrases = []string{
	// en
	"page not found", "404 not found", "error 404", "404 error", "page cannot be found",
	"page could not be found", "page does not exist", "page doesn't exist", "page you requested could not be found",
	"page you are looking for", "page you're looking for", "nothing was found",
	// de
	"seite nicht gefunden", "seite wurde nicht gefunden", "seite konnte nicht gefunden werden",
	"seite existiert nicht", "fehler 404",
	// es
	"página no encontrada", "pagina no encontrada", "no se encontró la página", "no se ha encontrado la página",
	"la página no existe", "error 404",
	// fr
	"page introuvable", "page non trouvée", "page non trouvee", "cette page n'existe pas", "cette page n’existe pas", "erreur 404",
	// it
	"pagina non trovata", "pagina non esiste", "errore 404",
	// nl
	"pagina niet gevonden", "pagina bestaat niet", "fout 404",
	// pt
	"página não encontrada", "pagina nao encontrada", "página não existe", "erro 404",
	// ru
	"страница не найдена", "ошибка 404", "страница не существует",
	// pl
	"nie znaleziono strony", "strona nie została znaleziona", "strona nie istnieje", "błąd 404",
	// sv, da, no
	"sidan hittades inte", "sidan kunde inte hittas", "siden blev ikke fundet", "siden findes ikke",
	"siden ble ikke funnet", "siden finnes ikke",
	// fi, cs, tr
	"sivua ei löytynyt", "stránka nenalezena", "stránka nebyla nalezena", "sayfa bulunamadı",
}

func checkSoft404(p *Page, r *Reporter, th Thresholds) {
	match := func(where, text string) bool {
		if text == "" {
			return false
		}
		low := strings.ToLower(text)
		for _, ph := range notFoundPhrases {
			if strings.Contains(low, ph) {
				r.Add("content.soft_404", "the page answers 200 but reads like a \"not found\" page",
					seo.Evidence{Element: where, Value: text, Detail: "matched \"" + ph + "\""})
				return true
			}
		}
		return false
	}
	if t := p.Report.Title; t != nil && match("<title>", t.Text) {
		return
	}
	if h1 := p.ByTag(atom.H1); len(h1) > 0 && match("<h1>", headingText(h1[0])) {
		return
	}
	if p.Words < th.Soft404MaxWords {
		match("main text", p.MainText)
	}
}

// langKnownAliases maps declared languages the detector reports under
// another code.
var langKnownAliases = map[string]string{"nb": "no", "nn": "no"}

func checkLang(p *Page, r *Reporter, th Thresholds) {
	raw, ok := "", false
	if p.HTML != nil {
		raw, ok = Attr(p.HTML, "lang")
	}
	raw = strings.TrimSpace(raw)
	if !ok || raw == "" {
		r.Add("content.lang_missing", "the <html> element declares no language", seo.Evidence{Element: "<html lang>", Value: raw})
		return
	}
	base, why := parseLangTag(raw)
	if why != "" {
		r.Add("content.lang_invalid", "the lang attribute is not a valid language tag",
			seo.Evidence{Element: "<html lang>", Value: raw, Detail: why})
		return
	}
	if a, ok := langKnownAliases[base]; ok {
		base = a
	}
	if p.Words < th.LangDetectMinWords || !langKnown(base) {
		return
	}
	// extractContent sets Language only for a confident detection.
	if code := p.Report.Language; code != "" && code != base {
		ev := seo.Measure("<html lang>", float64(p.Words), float64(th.LangDetectMinWords))
		ev.Value = raw
		ev.Detail = "text reads as \"" + code + "\"; measured: words of main text"
		r.Add("content.lang_mismatch", "the text's language differs from the declared lang", ev)
	}
}

// parseLangTag checks a lang value and returns its primary language subtag,
// or why it is invalid.
func parseLangTag(raw string) (base, why string) {
	if strings.ContainsAny(raw, "_ ") {
		return "", "subtags must be separated by hyphens"
	}
	tag, err := language.Parse(raw)
	if err != nil {
		return "", err.Error()
	}
	b, conf := tag.Base()
	if conf == language.No || b.String() == "und" && !strings.EqualFold(strings.SplitN(raw, "-", 2)[0], "und") {
		return "", "no known primary language subtag"
	}
	return b.String(), ""
}

func checkDuplicateIDs(p *Page, r *Reporter) {
	// Sized once: the elements with an id bound the distinct ids.
	counts := make(map[string]int, len(p.idEls))
	var order []string
	for _, n := range p.idEls {
		id, ok := Attr(n, "id")
		if !ok || id == "" {
			continue
		}
		c := counts[id]
		if c == 1 {
			order = append(order, id)
		}
		counts[id] = c + 1
	}
	for _, id := range order {
		ev := seo.Measure("[id]", float64(counts[id]), 1)
		ev.Value = id
		r.Add("content.duplicate_id", "several elements share one id", ev)
	}
}

func checkCharset(p *Page, r *Reporter) {
	cs := p.Charset
	if cs.BOM != "" {
		return // a byte-order mark decides before the header and any meta
	}
	if cs.Header == "" && cs.Meta == "" {
		r.Add("content.charset_missing", "the character encoding is declared neither by a byte-order mark, in Content-Type nor in a meta tag",
			seo.Evidence{Element: "Content-Type", Value: p.Header.Get("Content-Type")})
		return
	}
	// A charset in the header decides; a late meta then does no harm.
	if cs.Header == "" && cs.Meta != "" && cs.MetaOffset >= charsetLateOffset {
		ev := seo.Measure("<meta charset>", float64(cs.MetaOffset), charsetLateOffset)
		ev.Value = cs.Meta
		ev.Offset = cs.MetaOffset
		ev.Line = byteLine(p.Body, cs.MetaOffset)
		ev.Detail = "byte offset of the declaration"
		r.Add("content.charset_late", "the meta charset comes too late; browsers may guess the encoding first", ev)
	}
}

// byteLine returns the 1-based line of byte offset off in b.
func byteLine(b []byte, off int) int {
	if off > len(b) {
		off = len(b)
	}
	return bytes.Count(b[:off], []byte{'\n'}) + 1
}

// startsWithDoctype reports whether the document starts, after white space,
// a byte-order mark, comments and XML processing instructions, with
// "<!DOCTYPE html" (any case) and the parser saw an html doctype.
func startsWithDoctype(p *Page) bool {
	b := bytes.TrimPrefix(p.Body, utf8BOM)
	for {
		b = bytes.TrimLeft(b, " \t\r\n\f")
		switch {
		case bytes.HasPrefix(b, []byte("<!--")):
			end := bytes.Index(b[4:], []byte("-->"))
			if end < 0 {
				return false
			}
			b = b[4+end+3:]
			continue
		case bytes.HasPrefix(b, []byte("<?")):
			end := bytes.IndexByte(b, '>')
			if end < 0 {
				return false
			}
			b = b[end+1:]
			continue
		}
		break
	}
	const dt = "<!doctype html"
	if len(b) <= len(dt) || !strings.EqualFold(string(b[:len(dt)]), dt) {
		return false
	}
	switch b[len(dt)] {
	case ' ', '\t', '\r', '\n', '\f', '>':
	default:
		return false
	}
	for c := p.Doc.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.DoctypeNode {
			return strings.EqualFold(c.Data, "html") && standardsDoctype(c)
		}
	}
	return false
}

// standardsDoctype reports whether an html doctype selects no-quirks or
// limited-quirks mode by its identifiers, as the HTML Standard's "initial"
// insertion mode decides
// (https://html.spec.whatwg.org/multipage/parsing.html#the-initial-insertion-mode):
// a list of legacy public identifiers (HTML 2.0 to 4.0, vendor DTDs),
// HTML 4.01 Transitional and Frameset without a system identifier, and one
// IBM system identifier select quirks mode; every other identifier, XHTML
// 1.x, XHTML Mobile or Basic included, does not.
func standardsDoctype(n *html.Node) bool {
	public, _ := Attr(n, "public")
	system, hasSystem := Attr(n, "system")
	public = strings.ToLower(public)
	switch public {
	case "-//w3o//dtd w3 html strict 3.0//en//", "-/w3c/dtd html 4.0 transitional/en", "html":
		return false
	}
	if strings.EqualFold(system, "http://www.ibm.com/data/dtd/v11/ibmxhtml1-transitional.dtd") {
		return false
	}
	if !hasSystem && (strings.HasPrefix(public, "-//w3c//dtd html 4.01 frameset//") ||
		strings.HasPrefix(public, "-//w3c//dtd html 4.01 transitional//")) {
		return false
	}
	for _, q := range quirksPublicPrefixes {
		if strings.HasPrefix(public, q) {
			return false
		}
	}
	return true
}

// quirksPublicPrefixes are the public identifier prefixes, lowercased, that
// select quirks mode (HTML Standard, the "initial" insertion mode).
var quirksPublicPrefixes = []string{
	"+//silmaril//dtd html pro v0r11 19970101//",
	"-//as//dtd html 3.0 aswedit + extensions//",
	"-//advasoft ltd//dtd html 3.0 aswedit + extensions//",
	"-//ietf//dtd html 2.0 level 1//",
	"-//ietf//dtd html 2.0 level 2//",
	"-//ietf//dtd html 2.0 strict level 1//",
	"-//ietf//dtd html 2.0 strict level 2//",
	"-//ietf//dtd html 2.0 strict//",
	"-//ietf//dtd html 2.0//",
	"-//ietf//dtd html 2.1e//",
	"-//ietf//dtd html 3.0//",
	"-//ietf//dtd html 3.2 final//",
	"-//ietf//dtd html 3.2//",
	"-//ietf//dtd html 3//",
	"-//ietf//dtd html level 0//",
	"-//ietf//dtd html level 1//",
	"-//ietf//dtd html level 2//",
	"-//ietf//dtd html level 3//",
	"-//ietf//dtd html strict level 0//",
	"-//ietf//dtd html strict level 1//",
	"-//ietf//dtd html strict level 2//",
	"-//ietf//dtd html strict level 3//",
	"-//ietf//dtd html strict//",
	"-//ietf//dtd html//",
	"-//metrius//dtd metrius presentational//",
	"-//microsoft//dtd internet explorer 2.0 html strict//",
	"-//microsoft//dtd internet explorer 2.0 html//",
	"-//microsoft//dtd internet explorer 2.0 tables//",
	"-//microsoft//dtd internet explorer 3.0 html strict//",
	"-//microsoft//dtd internet explorer 3.0 html//",
	"-//microsoft//dtd internet explorer 3.0 tables//",
	"-//netscape comm. corp.//dtd html//",
	"-//netscape comm. corp.//dtd strict html//",
	"-//o'reilly and associates//dtd html 2.0//",
	"-//o'reilly and associates//dtd html extended 1.0//",
	"-//o'reilly and associates//dtd html extended relaxed 1.0//",
	"-//sq//dtd html 2.0 hotmetal + extensions//",
	"-//softquad software//dtd hotmetal pro 6.0::19990601::extensions to html 4.0//",
	"-//softquad//dtd hotmetal pro 4.0::19971010::extensions to html 4.0//",
	"-//spyglass//dtd html 2.0 extended//",
	"-//sun microsystems corp.//dtd hotjava html//",
	"-//sun microsystems corp.//dtd hotjava strict html//",
	"-//w3c//dtd html 3 1995-03-24//",
	"-//w3c//dtd html 3.2 draft//",
	"-//w3c//dtd html 3.2 final//",
	"-//w3c//dtd html 3.2//",
	"-//w3c//dtd html 3.2s draft//",
	"-//w3c//dtd html 4.0 frameset//",
	"-//w3c//dtd html 4.0 transitional//",
	"-//w3c//dtd html experimental 19960712//",
	"-//w3c//dtd html experimental 970421//",
	"-//w3c//dtd w3 html//",
	"-//w3o//dtd w3 html 3.0//",
	"-//webtechs//dtd mozilla html 2.0//",
	"-//webtechs//dtd mozilla html//",
}

// headAllowed are the elements that may appear in <head> without closing it.
var headAllowed = map[string]bool{
	"html": true, "head": true, "meta": true, "link": true, "title": true, "script": true,
	"style": true, "base": true, "noscript": true, "template": true,
}

// checkHeadInvalid scans the source up to </head> (or <body>) for a start
// tag that the parser does not allow in the head: it closes the head there,
// and every later head tag lands in the body.
func checkHeadInvalid(p *Page, r *Reporter) {
	// The finding matters when head tags land in the body; the tree shows
	// that cheaply, so only then re-tokenize the head bytes to name the
	// element that closed the head.
	if !headTagInBody(p) {
		return
	}
	end := foldIndexBytes(p.Body, "</head")
	if b := foldIndexBytes(p.Body, "<body"); b >= 0 && (end < 0 || b < end) {
		end = b
	}
	if end < 0 || !headMayCloseEarly(p.Body[:end]) {
		return
	}
	bad, badOff, later, laterTags := scanHead(p.Body[:end], rawSkipMin)
	if bad == "" {
		return
	}
	ev := seo.Evidence{Element: "<" + bad + ">", Offset: badOff, Line: byteLine(p.Body, badOff)}
	ev.Value = headBytes(p.Body[badOff:], 120)
	if later > 0 {
		ev.Detail = strconv.Itoa(later) + " later head tag(s) land in the body: " + strings.Join(laterTags, ", ")
	}
	r.Add("content.head_invalid_element", "an element not allowed in <head> closes the head early", ev)
}

// rawSkipMin is the length of raw text (a script's or style's) from which
// scanHead finds its end itself instead of through the tokenizer.
const rawSkipMin = 1024

// scanHead tokenizes the raw head for checkHeadInvalid: the first start
// tag outside noscript that headAllowed lacks and its byte offset (-1 when
// none), then the count and first five names of the meta, link, title and
// base tags after it.
//
// The raw text of a script, style or other raw-text element is read by the
// tokenizer a byte at a time, and it is most of a head's bytes. Where its
// end is plain (rawTextEnd), a text of at least minSkip bytes is jumped
// over, and a new tokenizer goes on from its end tag: a tokenizer holds no
// state between tokens but the raw-text element it is in, so the tokens
// are those one tokenizer finds (TestScanHeadMatchesTokenizer).
func scanHead(head []byte, minSkip int) (bad string, badOff, later int, laterTags []string) {
	z := html.NewTokenizer(bytes.NewReader(head))
	off := 0
	noscript := 0
	badOff = -1
	for {
		tt := z.Next()
		raw := len(z.Raw())
		if tt == html.ErrorToken {
			break
		}
		var rawText []byte // the raw-text element this start tag opens
		switch tt {
		case html.StartTagToken, html.SelfClosingTagToken:
			// The name is compared in the tokenizer's buffer; only the
			// names kept are copied.
			name, _ := z.TagName()
			if rawTextElement(name) {
				rawText = name
			}
			switch {
			case noscript > 0:
			case string(name) == "noscript":
				if tt == html.StartTagToken {
					noscript++
				}
			case bad == "" && !headAllowed[string(name)]:
				bad, badOff = string(name), off
			case bad != "":
				switch string(name) {
				case "meta", "link", "title", "base":
					later++
					if len(laterTags) < 5 {
						laterTags = append(laterTags, string(name))
					}
				}
			}
		case html.EndTagToken:
			if name, _ := z.TagName(); noscript > 0 && string(name) == "noscript" {
				noscript--
			}
		}
		off += raw
		if rawText == nil {
			continue
		}
		n, plain := rawTextEnd(head[off:], rawText)
		switch {
		case !plain || n < minSkip:
		case n == len(head)-off:
			return // the text runs to the end: no tag follows
		default:
			off += n
			z = html.NewTokenizer(bytes.NewReader(head[off:]))
		}
	}
	return bad, badOff, later, laterTags
}

// rawTextElement reports whether the tokenizer reads the content of a start
// tag of this (lowercase) name as raw text up to its end tag. Plaintext,
// which runs to the end of the input, is left to the tokenizer.
func rawTextElement(name []byte) bool {
	switch string(name) {
	case "script", "style", "title", "textarea", "noscript", "iframe", "noembed", "noframes", "xmp":
		return true
	}
	return false
}

// rawTextEnd returns the length of the raw text of element name at the
// start of b, as the tokenizer reads it: up to the first "</" + name, in
// any ASCII case, followed by white space, '/' or '>', or to the end of b.
// plain is false for a script whose text holds "<!--" before that end
// tag, where the tokenizer's escaped states may run past it.
func rawTextEnd(b, name []byte) (n int, plain bool) {
	n = len(b)
	for i := 0; ; i += 2 {
		j := bytes.Index(b[i:], []byte("</"))
		if j < 0 {
			break
		}
		i += j
		if k := i + 2 + len(name); k < len(b) && lowerASCIIEqual(b[i+2:k], string(name)) && isEndTagDelim(b[k]) {
			n = i
			break
		}
	}
	if string(name) == "script" && bytes.Contains(b[:n], []byte("<!--")) {
		return n, false
	}
	return n, true
}

// isEndTagDelim reports whether c ends the name of a raw text's end tag.
func isEndTagDelim(c byte) bool {
	return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\f' || c == '/' || c == '>'
}

// headMayCloseEarly reports whether the raw head may hold a start tag
// that headAllowed lacks, by looking at every '<' followed by an ASCII
// letter, where the tokenizer starts each start tag, and at the name the
// tokenizer would read there (up to white space, '/' or '>', lowered).
// When every such name is allowed, no start tag the tokenizer finds can
// close the head, whatever is comment, script or noscript text; a false
// alarm (a "<div" inside a script) only costs the tokenizer's pass.
// TestHeadMayCloseEarly holds it to the tokenizer.
func headMayCloseEarly(head []byte) bool {
	for i := 0; ; {
		j := bytes.IndexByte(head[i:], '<')
		if j < 0 {
			return false
		}
		i += j + 1
		if i >= len(head) || !isASCIILetter(head[i]) {
			continue
		}
		k := i
		for k < len(head) {
			c := head[k]
			if c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\f' || c == '/' || c == '>' {
				break
			}
			k++
		}
		if !headAllowedName(head[i:k]) {
			return true
		}
		i = k
	}
}

// headAllowedName reports whether name, lowered, is in headAllowed.
func headAllowedName(name []byte) bool {
	if len(name) > len("noscript") {
		return false
	}
	var low [8]byte
	for i, c := range name {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		low[i] = c
	}
	return headAllowed[string(low[:len(name)])]
}

func isASCIILetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// headTagInBody reports whether a meta, title, base or canonical/alternate
// link sits outside the head.
func headTagInBody(p *Page) bool {
	for _, a := range []atom.Atom{atom.Meta, atom.Title, atom.Base, atom.Link} {
		for _, n := range p.ByTag(a) {
			if InHead(n) {
				continue
			}
			// Microdata metas and links, and stylesheets, belong in the body.
			if _, micro := Attr(n, "itemprop"); micro {
				continue
			}
			if rel, _ := Attr(n, "rel"); a == atom.Link && strings.Contains(strings.ToLower(rel), "stylesheet") {
				continue
			}
			return true
		}
	}
	return false
}

func checkJSShell(p *Page, r *Reporter, th Thresholds) {
	if p.Words >= th.JSShellMaxWords || len(p.ByTag(atom.Script)) == 0 || p.BodyEl == nil {
		return
	}
	root, _ := emptyMount(p)
	if root == nil {
		return
	}
	ev := seo.Measure("main text", float64(p.Words), float64(th.JSShellMaxWords))
	ev.Value = Outer(root)
	ev.Detail = strconv.Itoa(len(p.ByTag(atom.Script))) + " script(s), empty app root"
	r.Add("content.js_shell", "the page is an empty shell whose content needs JavaScript to render", ev)
}

// blankElement reports whether n has no element children and only
// white-space text; an inert template, which renders nothing, is no
// child (a mount point holding only the template a script stamps out is
// still empty).
func blankElement(n *html.Node) bool {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch c.Type {
		case html.ElementNode:
			if inertTemplate(c) {
				continue
			}
			return false
		case html.TextNode:
			if strings.TrimSpace(c.Data) != "" {
				return false
			}
		}
	}
	return true
}

// loremIndex returns loremIndex of the main text, without reading it when
// the extraction saw no word starting with "ipsum", "Ipsum" or "IPSUM"
// (where a match has to start, after "lorem ").
func (p *Page) loremIndex() int {
	if p.hasMainFP && !p.ipsum {
		return -1
	}
	return loremIndex(p.MainText)
}

// loremIndex returns the index of "lorem ipsum" in s, any case, or -1. It
// looks for "ipsum" with the fast substring search first.
func loremIndex(s string) int {
	const lorem = "lorem "
	for _, v := range [...]string{"ipsum", "Ipsum", "IPSUM"} {
		off := 0
		for {
			j := strings.Index(s[off:], v)
			if j < 0 {
				break
			}
			j += off
			if j >= len(lorem) && foldEqualASCII(s[j-len(lorem):j], lorem) {
				return j - len(lorem)
			}
			off = j + len(v)
		}
	}
	return -1
}

// foldIndex returns the index of the lowercase ASCII needle in s, ignoring
// ASCII case, or -1. It allocates nothing.
func foldIndex(s, needle string) int {
	n := len(needle)
	for i := 0; i+n <= len(s); i++ {
		if foldEqualASCII(s[i:i+n], needle) {
			return i
		}
	}
	return -1
}

// foldIndexBytes is foldIndex over bytes. A needle whose first byte has
// one case ("</head") is found by jumping from one occurrence of that byte
// to the next, as bytes.IndexByte does in vector steps, rather than by
// comparing at every offset.
func foldIndexBytes(b []byte, needle string) int {
	n := len(needle)
	if n == 0 {
		return 0
	}
	c0 := needle[0]
	oneCase := c0 < 'a' || c0 > 'z'
	for i := 0; i+n <= len(b); i++ {
		if oneCase {
			j := bytes.IndexByte(b[i:len(b)-n+1], c0)
			if j < 0 {
				return -1
			}
			i += j
		}
		if lowerASCIIEqual(b[i:i+n], needle) {
			return i
		}
	}
	return -1
}

func foldEqualASCII(a, b string) bool {
	for i := 0; i < len(b); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// textAround returns up to n bytes of s around index i, on rune boundaries.
func textAround(s string, i, n int) string {
	start, end := i-n/4, i+n
	if start < 0 {
		start = 0
	}
	if end > len(s) {
		end = len(s)
	}
	for start > 0 && !utf8.RuneStart(s[start]) {
		start--
	}
	for end < len(s) && !utf8.RuneStart(s[end]) {
		end++
	}
	return s[start:end]
}

// headBytes returns the first n bytes of b as text, cut on a rune boundary.
func headBytes(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	for n > 0 && !utf8.RuneStart(b[n]) {
		n--
	}
	return string(b[:n])
}
