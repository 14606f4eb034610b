package analyzer

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/seokit/seokit/seo"
	"golang.org/x/net/html/atom"
)

var contentIDs = []string{
	"content.thin", "content.lorem_ipsum", "content.soft_404", "content.lang_missing",
	"content.lang_invalid", "content.lang_mismatch", "content.duplicate_id", "content.charset_missing",
	"content.charset_late", "content.doctype_missing", "content.head_invalid_element", "content.js_shell",
}

// plainHTML is a Content-Type header without a charset parameter.
var plainHTML = http.Header{"Content-Type": {"text/html"}}

func TestContentChecks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, fixture string
		header        http.Header
		want          []string
	}{
		{"good page", "good.html", plainHTML, nil},
		{"thin indexable page", "thin.html", nil, []string{"content.thin"}},
		{"thin but noindex", "thin_noindex.html", nil, nil},
		{"lorem ipsum", "lorem.html", nil, []string{"content.lorem_ipsum"}},
		{"soft 404 by title", "soft404_title.html", nil, []string{"content.soft_404", "content.thin"}},
		{"soft 404 by german h1", "soft404_h1_de.html", nil, []string{"content.soft_404", "content.thin"}},
		{"soft 404 by spanish short text", "soft404_text_es.html", nil, []string{"content.soft_404", "content.thin"}},
		{"phrase in a long article", "soft404_long_text.html", nil, nil},
		{"lang missing", "lang_missing.html", nil, []string{"content.lang_missing"}},
		{"lang invalid", "lang_invalid.html", nil, []string{"content.lang_invalid"}},
		{"english text declared german", "lang_mismatch.html", nil, []string{"content.lang_mismatch"}},
		{"norwegian bokmal declared nb", "lang_nb.html", nil, nil},
		{"duplicate id", "duplicate_id.html", nil, []string{"content.duplicate_id"}},
		{"no charset anywhere", "charset_missing.html", plainHTML, []string{"content.charset_missing"}},
		{"charset in header only", "charset_missing.html", nil, nil},
		{"meta charset after 1024 bytes", "charset_late.html", plainHTML, []string{"content.charset_late"}},
		{"late meta but header charset", "charset_late.html", nil, nil},
		{"no doctype", "doctype_missing.html", nil, []string{"content.doctype_missing"}},
		{"legacy doctype", "doctype_legacy.html", nil, []string{"content.doctype_missing"}},
		{"utf-8 byte-order mark, no other charset", "bom.html", plainHTML, nil},
		{"xhtml mobile doctype after a comment", "doctype_mobile.html", nil, nil},
		{"img closes head", "head_invalid.html", nil, []string{"content.head_invalid_element"}},
		{"javascript shell", "js_shell.html", nil, []string{"content.js_shell", "content.thin"}},
		{"short page without app root", "js_shell_no_root.html", nil, []string{"content.thin"}},
		// The app root holds only the inert template a script stamps out:
		// browsers render it empty.
		{"javascript shell with a template", "js_shell_template.html", nil, []string{"content.js_shell", "content.thin"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rep := analyzeFixture(t, filepath.Join("content", tc.fixture), "", tc.header, nil)
			assertIDs(t, rep, tc.want, without(contentIDs, tc.want...))
		})
	}
}

// TestDoctypeModes holds content.doctype_missing to the HTML Standard's
// choice of quirks mode by doctype identifiers.
func TestDoctypeModes(t *testing.T) {
	t.Parallel()
	const rest = `<html lang="en"><head><meta charset="utf-8"><title>Harbour plan</title></head><body><h1>Plan</h1></body></html>`
	tests := []struct {
		name, doctype string
		quirks        bool
	}{
		{"html5", `<!DOCTYPE html>`, false},
		{"html5 upper case", `<!DOCTYPE HTML>`, false},
		{"about:legacy-compat", `<!DOCTYPE html SYSTEM "about:legacy-compat">`, false},
		{"html 4.01 strict", `<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 4.01//EN" "http://www.w3.org/TR/html4/strict.dtd">`, false},
		{"html 4.01 transitional with system id", `<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 4.01 Transitional//EN" "http://www.w3.org/TR/html4/loose.dtd">`, false},
		{"html 4.01 transitional without system id", `<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 4.01 Transitional//EN">`, true},
		{"xhtml 1.0 transitional", `<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">`, false},
		{"xhtml basic", `<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML Basic 1.1//EN" "http://www.w3.org/TR/xhtml-basic/xhtml-basic11.dtd">`, false},
		{"html 3.2", `<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 3.2 Final//EN">`, true},
		{"html 4.0 transitional", `<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 4.0 Transitional//EN" "http://www.w3.org/TR/REC-html40/loose.dtd">`, true},
		{"ibm xhtml system id", `<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" "http://www.ibm.com/data/dtd/v11/ibmxhtml1-transitional.dtd">`, true},
		{"public id html", `<!DOCTYPE html PUBLIC "HTML">`, true},
		{"not html", `<!DOCTYPE svg>`, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rep := analyzeString(t, tc.doctype+"\n"+rest, "", nil, nil)
			if got := finding(rep, "content.doctype_missing") != nil; got != tc.quirks {
				t.Errorf("content.doctype_missing reported = %v, want %v", got, tc.quirks)
			}
		})
	}
}

// TestByteOrderMark checks that a page starting with a UTF-8 byte-order
// mark is read as browsers read it: the Encoding Standard's decode strips
// the BOM before the tokenizer runs, so the doctype comes first and the
// head's tags stay in the head. Parsed with the BOM, the tree would start
// in quirks mode with an implied body holding the title, description and
// canonical.
func TestByteOrderMark(t *testing.T) {
	t.Parallel()
	rep := analyzeFixture(t, filepath.Join("content", "bom.html"), "", plainHTML, nil)
	assertIDs(t, rep, nil, []string{
		"content.doctype_missing", "content.charset_missing", "title.outside_head",
		"description.outside_head", "canonical.outside_head", "canonical.missing",
	})
	if rep.Title == nil || !strings.HasPrefix(rep.Title.Text, "Harbour plan") {
		t.Errorf("Title = %+v, want the head's title", rep.Title)
	}
}

func TestContentLangAttr(t *testing.T) {
	t.Parallel()
	const body = `<!DOCTYPE html><html%s><head><meta charset="utf-8"><title>Harbour plan: council debates new flats</title></head><body><h1>Plan</h1></body></html>`
	tests := []struct {
		name, attr string
		want       []string
	}{
		{"blank", ` lang=" "`, []string{"content.lang_missing"}},
		{"underscore", ` lang="en_US"`, []string{"content.lang_invalid"}},
		{"private use only", ` lang="x-klingon"`, []string{"content.lang_invalid"}},
		{"unknown language", ` lang="zz"`, []string{"content.lang_invalid"}},
		{"region and script", ` lang="zh-Hant-TW"`, nil},
		{"three-letter code", ` lang="gsw"`, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rep := analyzeString(t, strings.Replace(body, "%s", tc.attr, 1), "", nil, nil)
			assertIDs(t, rep, tc.want, without([]string{"content.lang_missing", "content.lang_invalid", "content.lang_mismatch"}, tc.want...))
		})
	}
}

func TestContentData(t *testing.T) {
	t.Parallel()
	rep := analyzeFixture(t, "content/good.html", "", nil, nil)
	if rep.DeclaredLang != "en-GB" || rep.Language != "en" {
		t.Errorf("DeclaredLang, Language = %q, %q; want en-GB, en", rep.DeclaredLang, rep.Language)
	}
	if rep.WordCount < 200 || rep.WordCount > 240 {
		t.Errorf("WordCount = %d, want about 221", rep.WordCount)
	}
	rep = analyzeFixture(t, "content/lang_mismatch.html", "", nil, nil)
	if f := finding(rep, "content.lang_mismatch"); f == nil || f.Evidence.Value != "de-DE" || !strings.Contains(f.Evidence.Detail, `"en"`) {
		t.Errorf("lang_mismatch evidence = %+v, want declared de-DE and detected en", f)
	}
	rep = analyzeFixture(t, "content/charset_late.html", "", plainHTML, nil)
	f := finding(rep, "content.charset_late")
	if f == nil || f.Evidence.Offset != 1079 || *f.Evidence.Threshold != 1024 {
		t.Errorf("charset_late evidence = %+v, want offset 1079 against 1024", f)
	}
	rep = analyzeFixture(t, "content/head_invalid.html", "", nil, nil)
	f = finding(rep, "content.head_invalid_element")
	if f == nil || f.Evidence.Element != "<img>" || f.Evidence.Line != 6 || !strings.Contains(f.Evidence.Detail, "2 later") {
		t.Errorf("head_invalid_element evidence = %+v, want <img> on line 6 with 2 later head tags", f)
	}
	rep = analyzeFixture(t, "content/duplicate_id.html", "", nil, nil)
	if f := finding(rep, "content.duplicate_id"); f == nil || f.Evidence.Value != "plan" || *f.Evidence.Measured != 2 {
		t.Errorf("duplicate_id evidence = %+v, want id plan used twice", f)
	}
}

// TestContentNot200 checks that error responses are not called thin or soft 404s.
func TestContentNot200(t *testing.T) {
	t.Parallel()
	body, err := os.ReadFile(filepath.Join("testdata", "content", "soft404_title.html"))
	if err != nil {
		t.Fatal(err)
	}
	resp := &seo.Response{URL: "https://example.com/gone", Status: 404, Body: body,
		Header: http.Header{"Content-Type": {"text/html; charset=utf-8"}}, ContentType: "text/html; charset=utf-8"}
	rep, err := AnalyzeResponse(context.Background(), resp, &Options{Depth: Complete})
	if err != nil {
		t.Fatal(err)
	}
	assertIDs(t, rep, nil, []string{"content.soft_404", "content.thin"})
}

// BenchmarkContentAreas analyses a large article with many headings, images
// and ids, for profiling the title, description, headings, content and
// images checks against the parse.
func BenchmarkContentAreas(b *testing.B) {
	en, err := os.ReadFile(filepath.Join("testdata", "content", "lang_en.txt"))
	if err != nil {
		b.Fatal(err)
	}
	var sb strings.Builder
	sb.WriteString(`<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Harbour plan: council debates new flats and parking</title><meta name="description" content="x"></head><body><h1>Plan</h1>`)
	for i := range 300 {
		sb.WriteString(`<section id="s` + strconv.Itoa(i) + `"><h2>Part <img src="/i.png" alt="icon"></h2><p>`)
		sb.Write(en)
		sb.WriteString(`</p><a href="/x"><img src="/img/` + strconv.Itoa(i) + `.jpg" alt="Harbour photo" width="640" height="480"></a></section>`)
	}
	sb.WriteString(`</body></html>`)
	doc := []byte(sb.String())
	opts := &Options{Depth: Complete}
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := AnalyzeHTML(context.Background(), "https://example.com/page", plainHTML, doc, opts); err != nil {
			b.Fatal(err)
		}
	}
}

// TestDoctypeNameCase: a doctype whose name is "HTML" in another case is
// the HTML doctype (the tokenizer lowercases names), so the page is parsed
// in no-quirks mode, where a <table> closes an open <p>; the body is not
// changed in place.
func TestDoctypeNameCase(t *testing.T) {
	cfg, _ := newConfig(&Options{})
	for _, tc := range []struct {
		doc         string
		tableInPara bool
	}{
		{"<!DOCTYPE html>", false},
		{"<!DOCTYPE HTML>", false},
		{"<!-- c -->\n<!doctype\tHtml >", false},
		{"<!DOCTYPEHTML>", false},
		{"<!DOCTYPE HTML PUBLIC \"-//W3C//DTD HTML 4.01//EN\" \"http://www.w3.org/TR/html4/strict.dtd\">", false},
		{"<!DOCTYPE HTMLX>", true},
		{"", true},
	} {
		body := []byte(tc.doc + "<title>t</title><p>a<table><tr><td>x</td></tr></table>")
		orig := string(body)
		p := newPage(&seo.Response{URL: "https://example.com/", Status: 200, Header: http.Header{"Content-Type": {"text/html"}}, Body: body}, cfg)
		tables := p.byTag.get(atom.Table)
		if len(tables) != 1 {
			t.Fatalf("%q: %d tables", tc.doc, len(tables))
		}
		if in := tables[0].Parent.DataAtom == atom.P; in != tc.tableInPara {
			t.Errorf("%q: table inside the <p> %v, want %v", tc.doc, in, tc.tableInPara)
		}
		if string(body) != orig {
			t.Errorf("%q: the body was changed", tc.doc)
		}
	}
}
