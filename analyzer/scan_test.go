package analyzer

import (
	"bytes"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/seokit/seokit/seo"
)

// TestScanHelpersAgree holds the allocation-free helpers to the string
// idioms they replace, over crafted and generated inputs: ASCII and not,
// every kind of white space, case, and the Kelvin sign and dotted capital
// I that lower into ASCII-looking text.
func TestScanHelpersAgree(t *testing.T) {
	t.Parallel()
	inputs := []string{"", " ", "nofollow", "NoFollow", " nofollow ", "a nofollow b", "nofollowx", "xnofollow", "no follow",
		"nofollow\tugc", "\vsponsored\f", "noopener noreferrer", "stylesheet", "alternate stylesheet", "stylesheet\tx",
		"STYLESHEET", "pre load", "preload", "modulepreload", "  ", "canonical", "CANONICAL amphtml", "\u00a0nofollow\u00a0",
		"nofollow\u2003ugc", "ＮＯＦＯＬＬＯＷ", "\u212aelvin", "\u0130con", "javascript:void(0)", "JavaScript:x", "java script:x",
		"mailto:a@b", "MAILTO:a@b", "file:///x", "\x80nofollow", "nofollow\xff", "a  b", " a", "a ", "a\n\nb"}
	alphabet := []string{"a", "N", "o", "f", "l", "w", " ", "\t", "\n", "\u00a0", "\u3000", "\u0085", "日", "é", "\u212a", "s", "u", "g", "c", "\xff", "1", "9"}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 20000 {
		var sb strings.Builder
		for range 1 + rng.IntN(12) {
			sb.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		inputs = append(inputs, sb.String())
	}
	tokens := []string{"nofollow", "ugc", "sponsored", "stylesheet", "preload", "a", "ag", "canonical", "noopener"}
	for _, s := range inputs {
		for _, tok := range tokens {
			if got, want := fieldHasLower(s, tok), slices.Contains(strings.Fields(strings.ToLower(s)), tok); got != want {
				t.Errorf("fieldHasLower(%q, %q) = %v, want %v", s, tok, got, want)
			}
			if got, want := spaceTokenLower(s, tok), strings.Contains(" "+strings.ToLower(s)+" ", " "+tok+" "); got != want {
				t.Errorf("spaceTokenLower(%q, %q) = %v, want %v", s, tok, got, want)
			}
			want := slices.ContainsFunc(strings.Fields(s), func(f string) bool { return strings.EqualFold(f, tok) })
			if got := cnRelHas(s, tok); got != want {
				t.Errorf("cnRelHas(%q, %q) = %v, want %v", s, tok, got, want)
			}
		}
		for _, pre := range []string{"mailto:", "file:", "javascript:"} {
			if got, want := hasPrefixFold(s, pre), strings.HasPrefix(strings.ToLower(s), pre); got != want {
				t.Errorf("hasPrefixFold(%q, %q) = %v, want %v", s, pre, got, want)
			}
		}
		if got, want := allDigits(s), strings.Trim(s, "0123456789") == ""; got != want {
			t.Errorf("allDigits(%q) = %v, want %v", s, got, want)
		}
		if got, want := withoutSpace(s), strings.Join(strings.Fields(s), ""); got != want {
			t.Errorf("withoutSpace(%q) = %q, want %q", s, got, want)
		}
		if got, want := relNofollow(s), slices.ContainsFunc(strings.Fields(strings.ToLower(s)), func(f string) bool {
			return f == "nofollow" || f == "ugc" || f == "sponsored"
		}); got != want {
			t.Errorf("relNofollow(%q) = %v, want %v", s, got, want)
		}
	}
}

// TestCollapsedTextAgrees holds Page.collapsedText to
// Collapse(TextContent(n)) on the links of crafted and generated markup.
func TestCollapsedTextAgrees(t *testing.T) {
	t.Parallel()
	docs := []string{`<a>x</a><a> x </a><a>a<b> b </b>c</a><a><script>s</script>t</a><a>  </a><a></a><a><style>x</style></a>`,
		"<a>\u00a0a\u2003b\u00a0</a><a>a<!-- c -->b</a><a>a<template>t</template> b</a><a>\xffa \xfe</a><a><img alt=x></a>",
		"<a>a\n\tb<span>\n</span>c</a><a><span> </span>x<span> </span></a><a>é é</a><a>a<br>b</a>"}
	parts := []string{"a", " ", "\n", "\u00a0", "é", "<b>", "</b>", "<script>x y</script>", "\u3000", "\xff", "  ", "<i> z </i>"}
	rng := rand.New(rand.NewPCG(7, 8))
	for range 300 {
		var sb strings.Builder
		for range 20 {
			sb.WriteString("<a>")
			for range rng.IntN(8) {
				sb.WriteString(parts[rng.IntN(len(parts))])
			}
			sb.WriteString("</a>")
		}
		docs = append(docs, sb.String())
	}
	links := 0
	for _, d := range docs {
		doc, err := html.Parse(strings.NewReader(d))
		if err != nil {
			t.Fatal(err)
		}
		p := &Page{}
		var walk func(n *html.Node)
		walk = func(n *html.Node) {
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				if c.Type == html.ElementNode && c.Data == "a" {
					links++
					if got, want := p.collapsedText(c), Collapse(TextContent(c)); got != want {
						t.Errorf("%q: collapsedText %q, want %q", d, got, want)
					}
				}
				walk(c)
			}
		}
		walk(doc)
	}
	if links < 1000 {
		t.Errorf("only %d links checked", links)
	}
}

// TestFoldIndexBytes holds foldIndexBytes to bytes.Index over the lowered
// text, for needles that start with a byte of one case and with a letter.
func TestFoldIndexBytes(t *testing.T) {
	t.Parallel()
	texts := []string{"", "<", "</head", "</HEAD>", "x</HeAd", "<</head", "</hea", "<body></head>", "a<b<body", "</head\xff</head",
		strings.Repeat("<x", 1000) + "</head>", "head", "HEAD", "xhEad"}
	rng := rand.New(rand.NewPCG(1, 1))
	for range 5000 {
		b := make([]byte, rng.IntN(20))
		for i := range b {
			b[i] = "<>/hHeEaAdDbBoOyY"[rng.IntN(17)]
		}
		texts = append(texts, string(b))
	}
	for _, s := range texts {
		for _, needle := range []string{"</head", "<body", "head", "<"} {
			if got, want := foldIndexBytes([]byte(s), needle), bytes.Index(bytes.ToLower([]byte(s)), []byte(needle)); got != want {
				t.Errorf("foldIndexBytes(%q, %q) = %d, want %d", s, needle, got, want)
			}
		}
	}
}

// elementSignatureRef is elementSignature as first written, with
// strings.FieldsSeq and strings.Trim, for TestElementSignatureAgrees.
func elementSignatureRef(n *html.Node) uint64 {
	h := uint64(fnvOffset64)
	str := func(prefix byte, s string) {
		h = (h ^ uint64(prefix)) * fnvPrime64
		for i := 0; i < len(s); i++ {
			if c := s[i]; c < '0' || c > '9' {
				h = (h ^ uint64(c)) * fnvPrime64
			}
		}
	}
	str('<', n.Data)
	for _, a := range n.Attr {
		if a.Namespace != "" {
			continue
		}
		switch a.Key {
		case "id":
			str('#', strings.TrimSpace(a.Val))
		case "class":
			kept := 0
			for tok := range strings.FieldsSeq(a.Val) {
				if kept == templateClasses {
					break
				}
				if strings.Trim(tok, "0123456789") == "" {
					continue
				}
				kept++
				str('.', tok)
			}
		}
	}
	return h
}

// TestElementSignatureAgrees holds elementSignature's in-place class
// splitting to the reference over generated class and id values.
func TestElementSignatureAgrees(t *testing.T) {
	t.Parallel()
	parts := []string{"a", "b1", "12", " ", "\t", "\n", "\u00a0", "é", "x-y", "0", "  ", "\u2003", "\xff", "Z"}
	rng := rand.New(rand.NewPCG(13, 14))
	for range 20000 {
		var class, id strings.Builder
		for range rng.IntN(14) {
			class.WriteString(parts[rng.IntN(len(parts))])
		}
		for range rng.IntN(4) {
			id.WriteString(parts[rng.IntN(len(parts))])
		}
		n := &html.Node{Type: html.ElementNode, Data: "div", Attr: []html.Attribute{{Key: "class", Val: class.String()}, {Key: "id", Val: id.String()}}}
		if got, want := elementSignature(n), elementSignatureRef(n); got != want {
			t.Errorf("class %q id %q: signature %x, reference %x", class.String(), id.String(), got, want)
		}
	}
}

// TestLinkAttrsAgree holds the facts collectLinks reads in its one pass
// over a link's attributes to what Attr reads for them one by one.
func TestLinkAttrsAgree(t *testing.T) {
	t.Parallel()
	attrs := []string{`href="/a"`, `href=""`, `rel="nofollow"`, `role="button"`, `role=" "`, `role=""`, `id="x"`, `id=""`, `id=" "`,
		`name="n"`, `name=" "`, `target="_blank"`, `target=" _BLANK "`, `target="_self"`, `ROLE="tab"`, `xlink:href="/b"`}
	rng := rand.New(rand.NewPCG(15, 16))
	var sb strings.Builder
	for range 2000 {
		sb.WriteString("<a")
		for range rng.IntN(5) {
			sb.WriteString(" " + attrs[rng.IntN(len(attrs))])
		}
		sb.WriteString(">x</a>")
	}
	sb.WriteString(`<svg><a href="/s" role="r" target="_blank">s</a></svg>`)
	cfg, err := newConfig(&Options{Depth: Complete})
	if err != nil {
		t.Fatal(err)
	}
	p := newPage(&seo.Response{URL: "https://example.com/", Status: 200, Header: http.Header{"Content-Type": {"text/html"}},
		Body: []byte(sb.String())}, cfg)
	if len(p.Links) < 2000 {
		t.Fatalf("%d links", len(p.Links))
	}
	for _, l := range p.Links {
		href, hasHref := Attr(l.Node, "href")
		rel, _ := Attr(l.Node, "rel")
		role, _ := Attr(l.Node, "role")
		id, _ := Attr(l.Node, "id")
		name, _ := Attr(l.Node, "name")
		target, _ := Attr(l.Node, "target")
		want := Link{Href: href, HasHref: hasHref, Rel: rel}
		if strings.TrimSpace(role) != "" {
			want.attrs |= linkHasRole
		}
		if id != "" {
			want.attrs |= linkHasID
		}
		if strings.TrimSpace(name) != "" {
			want.attrs |= linkHasName
		}
		if strings.EqualFold(strings.TrimSpace(target), "_blank") {
			want.attrs |= linkTargetBlank
		}
		if l.Href != want.Href || l.HasHref != want.HasHref || l.Rel != want.Rel || l.attrs != want.attrs {
			t.Errorf("%s: read %q %v %q %b, want %q %v %q %b", Outer(l.Node), l.Href, l.HasHref, l.Rel, l.attrs, want.Href, want.HasHref, want.Rel, want.attrs)
		}
	}
}

// TestURLStringAgrees holds urlString to url.URL.String over URLs resolved
// from crafted and generated references and the corpus's links.
func TestURLStringAgrees(t *testing.T) {
	t.Parallel()
	refs := []string{"/", "/a", "/a?", "/a?b=c", "https://example.com", "http://h:8080/x", "//cdn.example/a.js", "/a%20b", "/a b",
		"/a#f", "https://user@h/", "https://H/", "/é", "/a;b", "/a:b", "/a@b", "/*", "?q", "a/b", "https://127.0.0.1/x", "http://[::1]/",
		"mailto:x", "/a?é", "/a?%zz",
		"https://example.com/dir/x", "http://a.example:8080/", "http://a.example:8080/?", "http://a.example:8080/a?b", "HTTPS://example.com/a",
		"https://Example.com/a", "https://example.com/a/../b", "https://example.com:443/a", "https://example.com/a#", " https://example.com/a"}
	parts := []string{"/", "a", "B", "9", ".", "-", "_", "~", "?", "=", "&", "#", "%41", " ", "é", ":", "@", "//", "http://", "h.example"}
	rng := rand.New(rand.NewPCG(17, 18))
	for range 20000 {
		var sb strings.Builder
		for range 1 + rng.IntN(8) {
			sb.WriteString(parts[rng.IntN(len(parts))])
		}
		refs = append(refs, sb.String())
	}
	for _, base := range []string{"https://example.com/dir/page.html", "http://a.example:8080/"} {
		u, _ := url.Parse(base)
		p := &Page{URL: u}
		for _, ref := range refs {
			r := p.Resolve(ref)
			if r == nil {
				continue
			}
			if got, want := urlString(r, ref), r.String(); got != want {
				t.Errorf("%s + %q: urlString %q, String %q", base, ref, got, want)
			}
			if got, want := urlString(r, ""), r.String(); got != want {
				t.Errorf("%s + %q: urlString without the reference %q, String %q", base, ref, got, want)
			}
		}
	}
}

// TestTagTable holds the tag table, counted and then filled, to a map over
// hundreds of distinct atoms, past the point where it spills into its map,
// with foreign elements skipped.
func TestTagTable(t *testing.T) {
	t.Parallel()
	var tt tagTable
	want := map[atom.Atom][]*html.Node{}
	rng := rand.New(rand.NewPCG(19, 20))
	var atoms []atom.Atom
	for _, name := range strings.Fields("a b i p div span img link meta title head body html script style href src alt id class " +
		"table tr td th ul ol li nav main article section header footer aside form input button select option textarea label") {
		atoms = append(atoms, atom.Lookup([]byte(name)))
	}
	for i := range 400 {
		atoms = append(atoms, atom.Atom(uint32(i+1)<<8|3)) // values beyond real atoms: only distinctness matters
	}
	// Elements listed as the tree walk lists them; those marked foreign
	// (SVG and MathML) are neither counted nor filed.
	var els []*html.Node
	var skip []int32
	for i := range 20000 {
		a := atoms[rng.IntN(len(atoms))]
		n := &html.Node{DataAtom: a}
		els = append(els, n)
		if i%7 == 3 {
			skip = append(skip, int32(i))
			continue
		}
		tt.count(a, n)
		want[a] = append(want[a], n)
	}
	tt.fill(els, skip)
	if tt.more == nil {
		t.Error("the table never spilled into its map")
	}
	for _, a := range atoms {
		if got := tt.get(a); !slices.Equal(got, want[a]) {
			t.Errorf("atom %v: %d elements, want %d", a, len(got), len(want[a]))
		}
	}
	if got := tt.get(atom.Atom(0xffffff00)); got != nil {
		t.Errorf("an atom never added has %d elements", len(got))
	}
	// A list in a slot is capped at its length: appending to one copies
	// it and leaves the next tag's list as it was.
	for _, a := range atoms {
		if !tt.slot(a).taken {
			continue // a list of the map
		}
		got := tt.get(a)
		if len(got) != cap(got) {
			t.Errorf("atom %v: list of %d has room for %d", a, len(got), cap(got))
		}
	}
}

// TestIsCollapsed holds isCollapsed, which tests eight bytes at a time,
// to its definition: ASCII, and Collapse leaves it as it is (Fields
// joined by single spaces), on texts of up to 40 bytes, so that spaces and
// other bytes fall on every place of a load and across loads.
func TestIsCollapsed(t *testing.T) {
	t.Parallel()
	parts := []string{"a", "Bc", "def", "0123456", " ", " ", " ", "  ", "\t", "\n", "\v", "\f", "\r", "\x00", "\x08", "\x0e", "\x1f", "é", "\xff", "\u00a0", "\u0085", "~", "\x7f"}
	rng := rand.New(rand.NewPCG(23, 24))
	collapsed := 0
	for range 50000 {
		var sb strings.Builder
		for sb.Len() < 40 && rng.IntN(16) > 0 {
			sb.WriteString(parts[rng.IntN(len(parts))])
		}
		s := sb.String()
		ascii := true
		for i := range len(s) {
			ascii = ascii && s[i] < utf8.RuneSelf
		}
		want := ascii && strings.Join(strings.Fields(s), " ") == s
		if got := isCollapsed(s); got != want {
			t.Fatalf("isCollapsed(%q) = %v, want %v", s, got, want)
		}
		if want {
			collapsed++
		}
	}
	if collapsed < 5000 {
		t.Errorf("only %d texts were collapsed: the comparison proved little", collapsed)
	}
}

// TestCollapseAgrees holds Collapse to strings.Join(strings.Fields(s), " ")
// over generated text with every kind of white space and invalid UTF-8.
func TestCollapseAgrees(t *testing.T) {
	t.Parallel()
	parts := []string{"a", "B", " ", "  ", "\t", "\n", "\r\n", "\v", "\f", "\u00a0", "\u2003", "\u3000", "\u0085", "é", "\xff", "\xe2\x80", "字", "-"}
	rng := rand.New(rand.NewPCG(21, 22))
	for range 30000 {
		var sb strings.Builder
		for range rng.IntN(12) {
			sb.WriteString(parts[rng.IntN(len(parts))])
		}
		s := sb.String()
		if got, want := Collapse(s), strings.Join(strings.Fields(s), " "); got != want {
			t.Errorf("Collapse(%q) = %q, want %q", s, got, want)
		}
	}
}

// TestCollapseNoCopy checks that non-ASCII text already collapsed, or only
// wrapped in ASCII white space, comes back without a copy.
func TestCollapseNoCopy(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	for _, s := range []string{"日本語 テキスト", " Über uns\n", "Подробнее о компании"} {
		if n := testing.AllocsPerRun(10, func() { Collapse(s) }); n != 0 {
			t.Errorf("Collapse(%q) allocated %v times", s, n)
		}
	}
}

// TestOuterMatchesWhole holds Outer, which writes a start tag only up to
// the bytes seo.Clip can keep, to the whole tag clipped, over elements
// with long, multibyte and escaped attribute values cut around the limit.
func TestOuterMatchesWhole(t *testing.T) {
	t.Parallel()
	whole := func(n *html.Node) string {
		var sb strings.Builder
		sb.WriteByte('<')
		sb.WriteString(n.Data)
		for _, a := range n.Attr {
			sb.WriteString(" " + a.Key + `="` + html.EscapeString(a.Val) + `"`)
		}
		sb.WriteByte('>')
		return seo.Clip(sb.String())
	}
	// Four-byte runes put the limit where seo.Clip cuts.
	pieces := []string{"a", "é", "€", "𝄞", "&", "<", `"`, "'", " ", "\r", strings.Repeat("x", 97), strings.Repeat("é", 50),
		strings.Repeat("𝄞", 30), strings.Repeat("𝄞", 30), strings.Repeat("𝄞", 29) + "&"}
	rng := rand.New(rand.NewPCG(7, 8))
	for range 3000 {
		n := &html.Node{Type: html.ElementNode, Data: "img"}
		for range 1 + rng.IntN(4) {
			var v strings.Builder
			for range rng.IntN(60) {
				v.WriteString(pieces[rng.IntN(len(pieces))])
			}
			n.Attr = append(n.Attr, html.Attribute{Key: "data-" + strings.Repeat("k", rng.IntN(8)), Val: v.String()})
		}
		if got, want := Outer(n), whole(n); got != want {
			t.Fatalf("Outer(%q) =\n%q\nwant\n%q", n.Attr, got, want)
		}
	}
}

// TestOuterAllocs holds Outer to one allocation, the tag it returns, for
// an element whose attributes need no escaping, and to two for one whose
// tag seo.Clip cuts (the tag, then its clipped copy): its builder is
// sized once.
func TestOuterAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	for _, c := range []struct {
		n    *html.Node
		want float64
	}{
		{&html.Node{Type: html.ElementNode, Data: "a", Attr: []html.Attribute{{Key: "href", Val: "/p/1?page=2"}, {Key: "class", Val: "nav-link"}}}, 1},
		{&html.Node{Type: html.ElementNode, Data: "img", Attr: []html.Attribute{{Key: "srcset", Val: strings.Repeat("/i/a.png 2x, ", 100)}, {Key: "alt", Val: "x"}}}, 2},
	} {
		if a := testing.AllocsPerRun(100, func() { Outer(c.n) }); a != c.want {
			t.Errorf("Outer(<%s>) allocates %v times, want %v", c.n.Data, a, c.want)
		}
	}
}
