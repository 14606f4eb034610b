package analyzer

import (
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/seokit/seokit/seo"

	"golang.org/x/net/html"
)

func TestLinksFixtures(t *testing.T) {
	t.Parallel()
	all := []string{"links.uncrawlable", "links.placeholder_href", "links.non_descriptive_text", "links.empty_text", "links.internal_nofollow",
		"links.to_http", "links.to_private_host", "links.unsafe_target_blank", "links.too_many", "links.dead_end", "links.broken_fragment"}
	tests := []struct {
		name, file string
		want       []string
	}{
		{"bad", "links/bad.html", []string{"links.uncrawlable", "links.placeholder_href", "links.non_descriptive_text", "links.empty_text", "links.internal_nofollow",
			"links.to_http", "links.to_private_host", "links.broken_fragment"}},
		// target=_blank implies noopener: only rel="opener" on a
		// cross-origin link (the last one) is reported.
		{"new tabs", "links/target_blank.html", []string{"links.unsafe_target_blank"}},
		{"good", "links/good.html", nil},
		{"dead end", "links/deadend.html", []string{"links.dead_end"}},
		// A refresh elsewhere is a way out (search engines follow it as a
		// redirect); one that reloads the page is not.
		{"refresh elsewhere", "links/deadend_refresh.html", nil},
		{"refresh reloading", "links/deadend_reload.html", []string{"links.dead_end"}},
		{"too many", "links/many.html", []string{"links.too_many"}},
		// The javascript:, placeholder, fragment and http links are in
		// inert templates: no finding (TestLinksTemplateContent).
		{"templates", "links/template.html", nil},
		// The HTML Standard matches a fragment as written, then
		// percent-decoded, against the ids of the page.
		{"percent-encoded fragments", "links/fragment_encoded.html", nil},
		// A #fragment href resolves against the base URL: here it names
		// another document; only the link to the page itself is checked.
		{"fragments under a base", "links/fragment_base.html", []string{"links.broken_fragment"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rep := analyzeFixture(t, tc.file, "", nil, nil)
			var absent []string
			for _, id := range all {
				if !lkContains(tc.want, id) {
					absent = append(absent, id)
				}
			}
			assertIDs(t, rep, tc.want, absent)
		})
	}
}

func lkContains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func TestLinksFindingDetails(t *testing.T) {
	t.Parallel()
	rep := analyzeFixture(t, "links/bad.html", "", nil, nil)
	if n := len(evidence(rep, "links.uncrawlable")); n != 3 {
		t.Errorf("links.uncrawlable reported %d times, want 3 (javascript:, onclick, no href with target)", n)
	}
	if n := len(evidence(rep, "links.placeholder_href")); n != 2 {
		t.Errorf("links.placeholder_href reported %d times, want 2 (empty, #)", n)
	}
	if f := finding(rep, "links.broken_fragment"); f == nil || f.Evidence.Value != "#missing-section" {
		t.Errorf("broken_fragment evidence = %+v", f)
	}
	rep = analyzeFixture(t, "links/fragment_base.html", "", nil, nil)
	if f := finding(rep, "links.broken_fragment"); f == nil || f.Occurrences() != 1 || f.Evidence.Value != "#pricing-table" {
		t.Errorf("broken_fragment under a base = %+v, want #pricing-table alone", f)
	}
	rep = analyzeFixture(t, "links/nofollow_self.html", "", nil, nil)
	if f := finding(rep, "links.internal_nofollow"); f == nil || f.Occurrences() != 1 || f.Evidence.URLs[0] != "https://example.com/archive" {
		t.Errorf("internal_nofollow = %+v, want the link to /archive alone, not those to the page itself", f)
	}
	rep = analyzeFixture(t, "links/bad.html", "", nil, nil)
	if f := finding(rep, "links.to_private_host"); f == nil || f.Evidence.Value != "192.168.1.10" {
		t.Errorf("to_private_host evidence = %+v", f)
	}
	rep = analyzeFixture(t, "links/many.html", "", nil, nil)
	if f := finding(rep, "links.too_many"); f == nil || *f.Evidence.Measured != 101 || *f.Evidence.Threshold != 100 {
		t.Errorf("too_many evidence = %+v", f)
	}
	rep = analyzeFixture(t, "links/many.html", "", nil, &Options{Depth: Complete, Thresholds: Thresholds{MaxLinks: 200}})
	assertIDs(t, rep, nil, []string{"links.too_many"})
}

func TestLinksPageData(t *testing.T) {
	t.Parallel()
	rep := analyzeFixture(t, "links/good.html", "", nil, nil)
	l := rep.Links
	// Internal: a, b, img, c, page#section, #anchor, #top, #section; external: other.org/e.
	if l.Internal != 8 || l.External != 1 || l.Nofollow != 1 {
		t.Errorf("counts internal=%d external=%d nofollow=%d, want 8 1 1", l.Internal, l.External, l.Nofollow)
	}
	if len(l.List) != 9 {
		t.Fatalf("list has %d links, want 9: %+v", len(l.List), l.List)
	}
	first := l.List[0]
	if first.URL != "https://example.com/a" || first.Text != "Our pricing plans" || !first.Internal {
		t.Errorf("first link = %+v", first)
	}
	if sp := l.List[3]; sp.Rel != "sponsored" || sp.URL != "https://example.com/c" {
		t.Errorf("fourth link = %+v", sp)
	}
}

// TestLinksTemplateContent pins that the content of an inert <template>
// is not part of the page, as in browsers: its links, image, heading,
// JSON-LD, meta robots and canonical produce no link, page data or
// finding. Only the first declarative shadow root of an element that can
// host one (shadowrootmode open or closed, any case) is content; the
// legacy shadowroot attribute, a shadow root in a <ul>, a second one in
// the same host and one inside an inert template stay inert.
func TestLinksTemplateContent(t *testing.T) {
	t.Parallel()
	rep := analyzeFixture(t, "links/template.html", "", nil, nil)
	var urls []string
	for _, l := range rep.Links.List {
		urls = append(urls, l.URL)
	}
	want := []string{"https://example.com/pricing", "https://example.com/from-shadow-root", "https://example.com/from-first-closed"}
	if !slices.Equal(urls, want) {
		t.Errorf("links = %q, want %q", urls, want)
	}
	if l := rep.Links; l.Internal != 3 || l.External != 0 {
		t.Errorf("counts internal=%d external=%d, want 3 0", l.Internal, l.External)
	}
	if rep.Images.Total != 0 {
		t.Errorf("images = %+v, want none", rep.Images)
	}
	if len(rep.Headings) != 1 || rep.Headings[0].Text != "Links in templates" {
		t.Errorf("headings = %+v, want the one H1 outside templates", rep.Headings)
	}
	if len(rep.StructuredData) != 0 {
		t.Errorf("structured data = %+v, want none", rep.StructuredData)
	}
	if !rep.Robots.Indexable || len(rep.Robots.Directives) != 0 {
		t.Errorf("robots = %+v, want indexable without directives", rep.Robots)
	}
	if len(rep.Canonical) != 1 || rep.Canonical[0].URL != "https://example.com/page" {
		t.Errorf("canonical = %+v, want the one outside the template", rep.Canonical)
	}
	assertIDs(t, rep, nil, []string{"images.alt_missing", "headings.h1_multiple", "structured_data.jsonld_parse_error",
		"indexability.noindex_meta", "canonical.conflicting", "links.uncrawlable", "links.placeholder_href",
		"links.broken_fragment", "links.to_http", "links.dead_end"})
	body, err := os.ReadFile(filepath.Join("testdata", "links", "template.html"))
	if err != nil {
		t.Fatal(err)
	}
	cfg, _ := newConfig(&Options{Depth: Complete})
	p := newPage(&seo.Response{URL: "https://example.com/page", Status: 200, Header: http.Header{"Content-Type": {"text/html"}}, Body: body}, cfg)
	if !strings.Contains(p.MainText, "Shadow root pricing") || strings.Contains(p.MainText, "Template") {
		t.Errorf("main text %q: want the shadow root's text and none of the templates'", p.MainText)
	}
	for _, n := range p.Elements {
		for a := n.Parent; a != nil; a = a.Parent {
			if inertTemplate(a) {
				t.Errorf("Elements holds a <%s> inside an inert template", n.Data)
			}
		}
	}
}

// TestInertTemplateRule pins which <template> elements are inert: all
// but the first with shadowrootmode "open" or "closed" (ASCII
// case-insensitive) in an element that can host a shadow root.
func TestInertTemplateRule(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, doc string
		inert     bool
	}{
		{"plain", `<div><template id=t></template></div>`, true},
		{"open", `<div><template id=t shadowrootmode=open></template></div>`, false},
		{"closed, upper case", `<span><template id=t shadowrootmode=CLOSED></template></span>`, false},
		{"long s is not ASCII s", "<div><template id=t shadowrootmode=\"clo\u017fed\"></template></div>", true},
		{"other value", `<div><template id=t shadowrootmode=none></template></div>`, true},
		{"legacy shadowroot", `<div><template id=t shadowroot=open></template></div>`, true},
		{"custom element host", `<my-card><template id=t shadowrootmode=open></template></my-card>`, false},
		{"custom name that is an atom", `<http-equiv><template id=t shadowrootmode=open></template></http-equiv>`, false},
		{"reserved name", `<font-face><template id=t shadowrootmode=open></template></font-face>`, true},
		{"no hyphen", `<card><template id=t shadowrootmode=open></template></card>`, true},
		{"ul cannot host", `<ul><template id=t shadowrootmode=open></template></ul>`, true},
		{"a cannot host", `<a href=/><template id=t shadowrootmode=open></template></a>`, true},
		{"head cannot host", `<head><template id=t shadowrootmode=open></template></head>`, true},
		{"second in a host", `<div><template shadowrootmode=closed></template><template id=t shadowrootmode=open></template></div>`, true},
		{"after an inert one", `<div><template></template><template id=t shadowrootmode=open></template></div>`, false},
		{"svg template", `<svg><template id=t></template></svg>`, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			doc, err := html.Parse(strings.NewReader(tc.doc))
			if err != nil {
				t.Fatal(err)
			}
			var tmpl *html.Node
			var find func(n *html.Node)
			find = func(n *html.Node) {
				for c := n.FirstChild; c != nil && tmpl == nil; c = c.NextSibling {
					if id, _ := Attr(c, "id"); c.Data == "template" && id == "t" {
						tmpl = c
					}
					find(c)
				}
			}
			find(doc)
			if tmpl == nil {
				t.Fatal("no template with id t")
			}
			if got := inertTemplate(tmpl); got != tc.inert {
				t.Errorf("inertTemplate = %v, want %v", got, tc.inert)
			}
		})
	}
}

func TestLinksPrivateHost(t *testing.T) {
	t.Parallel()
	tests := []struct {
		host string
		want bool
	}{
		{"localhost", true}, {"app.localhost", true}, {"printer.local", true}, {"db.internal", true},
		{"127.0.0.1", true}, {"10.1.2.3", true}, {"172.16.0.1", true}, {"169.254.1.1", true},
		{"[::1]", true}, {"fd00::1", true}, {"fe80::1", true}, {"0.0.0.0", true},
		{"8.8.8.8", false}, {"example.com", false}, {"localhost.example.com", false}, {"172.32.0.1", false},
	}
	for _, tc := range tests {
		t.Run(tc.host, func(t *testing.T) {
			if got := lkPrivateHost(tc.host); got != tc.want {
				t.Errorf("lkPrivateHost(%q) = %v, want %v", tc.host, got, tc.want)
			}
		})
	}
}

func TestLinksGenericTextLanguages(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, text string
		want       bool
	}{
		{"en", "Read more »", true}, {"de", "Klicke hier", true}, {"es", "Leer más", true}, {"fr", "En savoir plus", true},
		{"it", "Clicca qui", true}, {"nl", "Klik hier", true}, {"pt", "Clique aqui", true}, {"ru", "Подробнее", true},
		{"sv", "Läs mer", true}, {"en Lighthouse", "information", true}, {"trailing ellipsis", "Mehr…", true},
		{"descriptive", "Pricing for teams", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			doc := `<html><head><title>t</title></head><body><a href="/x">` + tc.text + `</a></body></html>`
			rep := analyzeString(t, doc, "", http.Header{"Content-Type": {"text/html"}}, nil)
			if got := finding(rep, "links.non_descriptive_text") != nil; got != tc.want {
				t.Errorf("non_descriptive_text for %q = %v, want %v", tc.text, got, tc.want)
			}
		})
	}
}

// TestLinksCrawlableRules pins the rules shared with Lighthouse's
// crawlable-anchors audit and Google's link guidance, and the deliberate
// differences (every javascript: href fails; empty and bare # hrefs are a
// notice of their own).
func TestLinksCrawlableRules(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, a string
		want    string // check ID, or "" for a crawlable link
	}{
		{"path", `<a href="/pricing">Pricing</a>`, ""},
		{"fragment", `<a href="#section">Section</a>`, ""},
		{"mailto", `<a href="mailto:info@example.com">Mail</a>`, ""},
		{"tel", `<a href="tel:+4930123">Call</a>`, ""},
		{"role", `<a role="button" href="#">Menu</a>`, ""},
		{"role with javascript", `<a role="button" href="javascript:void(0)">Menu</a>`, ""},
		{"id target", `<a id="intro"></a>`, ""},
		{"id with empty href", `<a id="intro" href="">Intro</a>`, ""},
		{"name target", `<a name="intro"></a>`, ""},
		{"current page placeholder", `<a aria-current="page">Pricing</a>`, ""},
		{"empty href", `<a href="">Pricing</a>`, "links.placeholder_href"},
		{"bare #", `<a href="#">Menu</a>`, "links.placeholder_href"},
		{"bare # with space", `<a href=" # ">Menu</a>`, "links.placeholder_href"},
		{"no href is a placeholder", `<a class="nav-search-close">Close</a>`, ""},
		{"no href, role", `<a role="button" onclick="go()">Menu</a>`, ""},
		{"no href, click handler", `<a onclick="go('/pricing')">Pricing</a>`, "links.uncrawlable"},
		{"no href, mousedown handler", `<a onmousedown="go('/pricing')">Pricing</a>`, "links.uncrawlable"},
		{"no href, touchstart handler", `<a ontouchstart="go('/pricing')">Pricing</a>`, "links.uncrawlable"},
		{"no href, hover handler", `<a onmouseover="tip()">Pricing</a>`, ""},
		{"no href, focus handler", `<a onfocus="prefetch()">Pricing</a>`, ""},
		{"no href, target", `<a class="share" target="_blank">Share</a>`, "links.uncrawlable"},
		{"no href, rel", `<a rel="next">Next</a>`, "links.uncrawlable"},
		{"no href, download", `<a download>Report</a>`, "links.uncrawlable"},
		{"no href, referrerpolicy", `<a referrerpolicy="no-referrer">Out</a>`, "links.uncrawlable"},
		{"javascript void", `<a href="javascript:void(0)">Menu</a>`, "links.uncrawlable"},
		{"javascript void spaced", `<a href="javascript: void 0;">Menu</a>`, "links.uncrawlable"},
		{"javascript semicolon", `<a href="javascript:;">Menu</a>`, "links.uncrawlable"},
		{"javascript navigation", `<a href="javascript:goTo('products')">Products</a>`, "links.uncrawlable"},
		{"file", `<a href="file:///C:/docs/a.html">Docs</a>`, "links.uncrawlable"},
		{"file with name", `<a name="docs" href="file:///C:/docs/a.html">Docs</a>`, "links.uncrawlable"},
		{"unparseable", `<a href="http://[::1">Broken</a>`, "links.uncrawlable"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			doc := `<html><head><title>t</title></head><body>` + tc.a + `</body></html>`
			rep := analyzeString(t, doc, "", nil, nil)
			var want, absent []string
			for _, id := range []string{"links.uncrawlable", "links.placeholder_href"} {
				if id == tc.want {
					want = append(want, id)
				} else {
					absent = append(absent, id)
				}
			}
			assertIDs(t, rep, want, absent)
		})
	}
}

// TestLinksGenericTextSkipped: like Lighthouse's link-text, links to the
// page itself and nofollow links are not judged on their text.
func TestLinksGenericTextSkipped(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, a string }{
		{"fragment", `<a href="#footer">More</a>`},
		{"same page with fragment", `<a href="https://example.com/page#footer">Read more</a>`},
		{"empty href", `<a href="">Read more</a>`},
		{"nofollow", `<a href="/x" rel="nofollow">click here</a>`},
		{"mailto", `<a href="mailto:a@example.com">here</a>`},
		{"javascript", `<a href="javascript:more()">more</a>`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			doc := `<html><head><title>t</title></head><body>` + tc.a + `</body></html>`
			rep := analyzeString(t, doc, "", nil, nil)
			assertIDs(t, rep, nil, []string{"links.non_descriptive_text"})
		})
	}
}

// TestTargetBlankOnlyOpener: of the new-tab links of the fixture, only the
// cross-origin one with rel="opener" is reported.
func TestTargetBlankOnlyOpener(t *testing.T) {
	t.Parallel()
	rep := analyzeFixture(t, "links/target_blank.html", "", nil, nil)
	f := finding(rep, "links.unsafe_target_blank")
	if f == nil || f.Occurrences() != 1 || f.Evidence.Value != "https://other.org/e" {
		t.Fatalf("links.unsafe_target_blank: %+v", f)
	}
}

// TestLkGenericTextMatchesNormText holds lkGenericText's allocation-free
// path to the lookup of lkNormText it stands for, on the generic texts
// themselves, cased, spaced and punctuated at random, and on other texts.
func TestLkGenericTextMatchesNormText(t *testing.T) {
	var texts []string
	for g := range lkGenericTexts {
		texts = append(texts, g)
	}
	slices.Sort(texts)
	extra := []string{" ", "  ", "\t", "\n", "\r\n", ".", "…", "»", "-", "—", "(", ")", "!", "x", "É", "é", "\u00a0", "\xff", ":",
		"→›«", "\u3000", "подробнее о компании", "詳細", "İ", "\u212a"}
	rng := rand.New(rand.NewPCG(5, 8))
	hits, cases := 0, 0
	for range 20000 {
		var sb strings.Builder
		for range rng.IntN(3) {
			sb.WriteString(extra[rng.IntN(len(extra))])
		}
		g := []byte(texts[rng.IntN(len(texts))])
		for i := range g {
			if rng.IntN(4) == 0 && 'a' <= g[i] && g[i] <= 'z' {
				g[i] -= 'a' - 'A'
			}
		}
		for _, w := range strings.Split(string(g), " ") {
			sb.WriteString(w)
			sb.WriteString([]string{" ", "  ", "\t", " \n "}[rng.IntN(4)])
		}
		for range rng.IntN(3) {
			sb.WriteString(extra[rng.IntN(len(extra))])
		}
		s := sb.String()
		if rng.IntN(3) == 0 {
			s = s[:rng.IntN(len(s)+1)]
		}
		want := lkGenericTexts[lkNormText(s)]
		if got := lkGenericText(s); got != want {
			t.Fatalf("lkGenericText(%q) = %v, lookup of lkNormText %q: %v", s, got, lkNormText(s), want)
		}
		cases++
		if want {
			hits++
		}
	}
	if hits < cases/10 {
		t.Errorf("only %d of %d texts were generic: the comparison proved little", hits, cases)
	}
	// Around the count of letters and digits that rules a text out: each
	// generic text with one letter or digit more, in a word of its own or
	// not, and with punctuation, space and non-ASCII letters that add none.
	for _, g := range texts {
		for _, s := range []string{g + "s", g + " 1", "x " + g, "(" + g + ")", " " + g + " …", g + " é", strings.ToUpper(g) + "!",
			"— " + g + " »", "\u00a0" + g + "\u3000→", g + "ё", "«" + g + "»" + strings.Repeat(" ", 70)} {
			if got, want := lkGenericText(s), lkGenericTexts[lkNormText(s)]; got != want {
				t.Fatalf("lkGenericText(%q) = %v, lookup of lkNormText %q: %v", s, got, lkNormText(s), want)
			}
		}
	}
	if n := testing.AllocsPerRun(100, func() { lkGenericText("  Read\tMORE ... ") }); n != 0 && !raceEnabled {
		t.Errorf("lkGenericText of an ASCII text allocated %v times", n)
	}
}

// TestAnchorTargetsScanMatchesSet holds the search of the elements with an
// id, which links.broken_fragment makes for a page of few fragment links,
// to the set of every id and <a name> it builds for many.
func TestAnchorTargetsScanMatchesSet(t *testing.T) {
	t.Parallel()
	body := `<!DOCTYPE html><html><head><title>t</title></head><body>
<div id="intro">x</div><a name="old-anchor">y</a><p name="not-a-target">z</p><span id="">e</span>
<svg><g id="icon"></g></svg><a id="both" name="named">w</a><div id="dup"></div><div id="dup"></div>
<math><mi xlink:href="#x" id="m1"></mi></math><p>text</p></body></html>`
	cfg, _ := newConfig(&Options{Depth: Complete})
	resp := &seo.Response{URL: "https://example.com/", Status: 200, Header: http.Header{"Content-Type": {"text/html"}}, Body: []byte(body)}
	p := newPage(resp, cfg)
	scan := newAnchorTargets(p, 1)
	set := newAnchorTargets(p, anchorScanMax+1)
	if scan.ids != nil || set.ids == nil {
		t.Fatalf("scan mode %v, set mode %v", scan.ids == nil, set.ids != nil)
	}
	for _, c := range []struct {
		frag string
		want bool
	}{{"intro", true}, {"old-anchor", true}, {"not-a-target", false}, {"", true}, {"icon", true},
		{"both", true}, {"named", true}, {"dup", true}, {"m1", true}, {"missing", false}, {"Intro", false}} {
		if got := scan.has(c.frag); got != c.want {
			t.Errorf("scan: has(%q) = %v, want %v", c.frag, got, c.want)
		}
		if got := set.has(c.frag); got != c.want {
			t.Errorf("set: has(%q) = %v, want %v", c.frag, got, c.want)
		}
	}
}
