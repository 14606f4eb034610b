package analyzer

import (
	"bytes"
	"encoding/binary"
	"net/http"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/htmlindex"

	"github.com/seokit/seokit/seo"
)

// Page is a fetched document parsed once, with the indexes every check
// reads. Checks must treat it as read-only; they run concurrently with
// link and mobile fetches.
type Page struct {
	// URL is the final URL after redirects; Base resolves relative references
	// (the <base href> when present, else URL).
	URL  *url.URL
	Base *url.URL
	// urlRes and baseRes resolve references against URL and Base by the
	// WHATWG URL Standard, each parsed once.
	urlRes, baseRes *seo.BaseURL
	// queryEnc is the legacy encoding the document was decoded from, in
	// which browsers encode the queries of its URLs (seo.EncodeQuery);
	// nil for a UTF-8 document.
	queryEnc encoding.Encoding
	// Response is the fetch result (synthetic for AnalyzeHTML).
	Response *seo.Response
	Header   http.Header
	// Body is the document as served (decompressed, not transcoded).
	Body []byte
	// IsHTML is true when the body is an HTML document.
	IsHTML bool

	// Doc is the parsed tree; HTML, Head and BodyEl its main elements (nil
	// when absent, which the parser never leaves for HTML input).
	Doc, HTML, Head, BodyEl *html.Node

	// Elements lists every element in document order, the html, head and
	// body elements the parser implies included, the content of inert
	// <template> elements excluded (it is not part of the document in
	// browsers; see inertTemplate). A document over
	// Options.MaxElements is parsed up to its first element over the
	// budget only (see ElementCount).
	Elements []*html.Node
	byTag    tagTable
	// Declared charset facts, read before transcoding.
	Charset Charset

	// MainText is the visible main text (scripts, styles, navigation and page
	// chrome removed), words separated by single spaces; Words counts its words.
	MainText string
	Words    int
	// mainFP is FingerprintText(MainText), computed as the text was
	// extracted (hasMainFP).
	mainFP    Fingerprint
	hasMainFP bool
	// ipsum says a word of MainText starts with "ipsum", "Ipsum" or
	// "IPSUM" (set with mainFP).
	ipsum bool

	// Links are the <a> elements with their resolved targets, in order.
	Links []Link
	// Resources are the subresources the page loads (scripts, styles, images,
	// frames, media, preloads).
	Resources []Resource

	// RobotsTxt is robots.txt's verdict on URL (nil when not consulted).
	RobotsTxt *bool

	// Report is being filled: extractors write page data to it, checks read it.
	Report *Report

	cfg *config
	// render is the rendering of the page and its raw view, for the
	// render and vitals checks; nil when the page was not rendered.
	render *renderState
	// jsonld holds the JSON-LD blocks decoded by the structured-data
	// extractor, for its check.
	jsonld []sdBlock
	// tailBody is the body past Options.MaxElements until index counts it
	// into tail; tail is nil when the whole document was parsed.
	tailBody []byte
	tailTags tagState
	tail     *tailCounts
	// parsedTags is the number of start tags parsed into the tree when
	// tail is set: with tail.tags, the document's elements as the element
	// budget counts them, the content of templates included.
	parsedTags int
	// tagHint is the number of '<' in the parsed body.
	tagHint int
	// tooDeep says the document was cut at its first element nested
	// deeper than MaxNesting (the tail holds the rest).
	tooDeep bool
	// scratch is a buffer reused while the page is indexed (collapsedText).
	scratch []byte
	// idEls lists, in document order, the elements with an id attribute
	// and the <a> elements with a name attribute (fragment targets);
	// sdEls those with an itemscope, typeof or vocab attribute (microdata
	// and RDFa). Both come from the one walk of index, so the checks
	// reading them do not scan every element's attributes again.
	idEls, sdEls []*html.Node
	// headingEls lists the h1-h6 elements (headingLevel > 0) in document
	// order.
	headingEls []*html.Node
}

// Charset records how the document declares its encoding.
type Charset struct {
	// Header is the charset parameter of Content-Type, Meta that of a meta
	// charset or http-equiv; MetaOffset is the meta's byte offset (-1 if none).
	Header, Meta string
	MetaOffset   int
	// Name is the encoding used to decode the document.
	Name string
	// BOM is the encoding a byte-order mark at the start of the body names
	// ("utf-8", "utf-16be", "utf-16le"), or "". Browsers decode by the
	// BOM whatever Header and Meta say (Encoding Standard, BOM sniff).
	BOM string
}

// Link is one <a> element of the page.
type Link struct {
	Node *html.Node
	// Href is the raw attribute; HasHref says the attribute exists.
	Href    string
	HasHref bool
	// URL is Href resolved against the base; nil when it does not parse or
	// is not http(s). Unparseable says it did not parse.
	URL         *url.URL
	Unparseable bool
	// Text is the link's visible text, whitespace collapsed.
	Text string
	Rel  string
	// Internal is true when URL is on the page's host (or its site, for
	// subdomain-scoped analyses); Nofollow when rel has nofollow, ugc or sponsored.
	Internal bool
	Nofollow bool
	// ClickListener says the renderer found a click-type event listener on
	// the element, a script's included (render.ClickAttr); false on pages
	// not rendered. It is read for <a> elements without href only.
	ClickListener bool
	// attrs holds the linkHas* facts of the element's other attributes,
	// read in the same pass as href and rel so the link checks do not
	// visit the element's attributes again.
	attrs uint8
}

// Facts of an <a> element's attributes (Link.attrs).
const (
	linkHasRole     = 1 << iota // a role attribute that is not blank
	linkHasID                   // an id attribute that is not empty
	linkHasName                 // a name attribute that is not blank
	linkTargetBlank             // target="_blank", case and space aside
)

// Resource is one subresource reference.
type Resource struct {
	Node *html.Node
	// Kind is "script", "stylesheet", "image", "iframe", "media", "font",
	// "preload" or "other".
	Kind string
	// Raw is the attribute value; URL is it resolved (nil if unparseable).
	Raw string
	URL *url.URL
}

// ByTag returns the HTML elements with the given tag in document order
// (elements in SVG or MathML are excluded).
func (p *Page) ByTag(a atom.Atom) []*html.Node { return p.byTag.get(a) }

// tagTable lists elements by tag: open addressing over a fixed array, as a
// page has a few dozen distinct tags, so filing an element costs no map
// operation. Tags past three quarters of the slots (a hostile page can
// use hundreds of atom names as tags) go to a map.
//
// The table is built in two passes over the elements: count tallies each
// tag as the tree walk meets it, then fill files the elements into one
// array cut into per-tag lists of the counted sizes, so a page's lists
// cost one allocation instead of a growing slice per tag.
type tagTable struct {
	slots [tagSlots]tagSlot
	used  int
	more  map[atom.Atom][]*html.Node
}

const tagSlots = 128

type tagSlot struct {
	a     atom.Atom
	taken bool
	n     int // elements counted, before fill
	list  []*html.Node
}

// slot returns a's slot, or the empty slot where a would go.
func (t *tagTable) slot(a atom.Atom) *tagSlot {
	i := uint32(a) * 2654435761 >> 25 // Fibonacci hashing onto 128 slots
	for {
		s := &t.slots[i%tagSlots]
		if !s.taken || s.a == a {
			return s
		}
		i++
	}
}

// count tallies element n of tag a; elements of a tag past the slots are
// filed in the map at once.
func (t *tagTable) count(a atom.Atom, n *html.Node) {
	s := t.slot(a)
	if !s.taken {
		if t.used >= tagSlots*3/4 {
			if t.more == nil {
				t.more = map[atom.Atom][]*html.Node{}
			}
			t.more[a] = append(t.more[a], n)
			return
		}
		s.a, s.taken = a, true
		t.used++
	}
	s.n++
}

// fill files els, the elements counted in the order count met them but
// for those whose indexes are listed in skip (ascending), under their
// tags. Each list is capped at its length, so a caller's append copies.
func (t *tagTable) fill(els []*html.Node, skip []int32) {
	total := 0
	for i := range t.slots {
		total += t.slots[i].n
	}
	backing := make([]*html.Node, total)
	off := 0
	for i := range t.slots {
		if s := &t.slots[i]; s.n > 0 {
			s.list = backing[off : off : off+s.n]
			off += s.n
		}
	}
	k := 0
	for i, n := range els {
		if k < len(skip) && int(skip[k]) == i {
			k++
			continue
		}
		// A tag the map holds has no slot taken: its elements are filed.
		if s := t.slot(n.DataAtom); s.taken {
			s.list = append(s.list, n)
		}
	}
}

func (t *tagTable) get(a atom.Atom) []*html.Node {
	if s := t.slot(a); s.taken {
		return s.list
	}
	return t.more[a]
}

// Thresholds returns the thresholds in force.
func (p *Page) Thresholds() Thresholds { return p.cfg.th }

// Depth returns the analysis depth.
func (p *Page) Depth() Depth { return p.cfg.Depth }

// Resolve resolves a reference against the page's base URL by the WHATWG
// URL Standard, as browsers do; it returns nil for references that do not
// parse.
//
// In a document of a legacy encoding the query is encoded in that
// encoding, as browsers encode it (seo.EncodeQuery).
func (p *Page) Resolve(ref string) *url.URL {
	u, err := p.baseResolver().Resolve(seo.EncodeQuery(ref, p.queryEnc))
	if err != nil {
		return nil
	}
	return u
}

// baseResolver and urlResolver resolve against Base and URL.
func (p *Page) baseResolver() *seo.BaseURL {
	if p.baseRes == nil {
		return p.urlResolver()
	}
	return p.baseRes
}

func (p *Page) urlResolver() *seo.BaseURL {
	if p.urlRes == nil {
		// A Page built by hand; newPage sets it.
		b, _ := seo.NewBaseURL(p.URL)
		return b
	}
	return p.urlRes
}

// isWebURL reports whether u is an absolute http(s) URL with a host.
func isWebURL(u *url.URL) bool {
	return u != nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// resolveWeb resolves ref against base and returns it when it is an
// absolute http(s) URL, else nil. Link headers resolve against the page URL,
// markup against the base URL.
func resolveWeb(base *seo.BaseURL, ref string) *url.URL {
	if strings.TrimSpace(ref) == "" {
		return nil
	}
	if u, err := base.Resolve(ref); err == nil && isWebURL(u) {
		return u
	}
	return nil
}

// newPage decodes and parses the body once and builds the indexes.
func newPage(resp *seo.Response, cfg *config) *Page {
	u, err := seo.ParseHref(resp.URL)
	if err != nil || u.Host == "" {
		u = &url.URL{Scheme: "http", Host: "invalid", Path: "/"}
	}
	p := &Page{URL: u, Base: u, Response: resp, Header: resp.Header, Body: resp.Body, cfg: cfg}
	p.urlRes, _ = seo.NewBaseURL(u)
	if p.Header == nil {
		p.Header = http.Header{}
	}
	p.Report = &Report{}
	p.IsHTML = isHTML(resp)
	p.Charset.MetaOffset = -1
	if !p.IsHTML {
		return p
	}
	p.Doc = p.parse()
	p.index()
	return p
}

// isHTML decides whether the response is an HTML document: by Content-Type
// when it names a type, else by sniffing.
func isHTML(resp *seo.Response) bool {
	ct := resp.ContentType
	if ct == "" && resp.Header != nil {
		ct = resp.Header.Get("Content-Type")
	}
	mt := strings.ToLower(strings.TrimSpace(strings.SplitN(ct, ";", 2)[0]))
	switch mt {
	case "text/html", "application/xhtml+xml":
		return true
	case "", "text/plain", "application/octet-stream":
		return LooksLikeHTML(resp.Body)
	}
	return false
}

// LooksLikeHTML sniffs the start of a body for an HTML document.
func LooksLikeHTML(b []byte) bool {
	if len(b) > 512 {
		b = b[:512]
	}
	return strings.HasPrefix(http.DetectContentType(b), "text/html")
}

// parse transcodes the body to UTF-8 when it declares another encoding and
// parses it.
func (p *Page) parse() *html.Node {
	body := p.Body
	ct := p.Header.Get("Content-Type")
	if i := strings.Index(strings.ToLower(ct), "charset="); i >= 0 {
		p.Charset.Header = strings.Trim(strings.TrimSpace(ct[i+len("charset="):]), `"'`)
	}
	p.Charset.Meta, p.Charset.MetaOffset = metaCharset(body)
	p.Charset.BOM = bomEncoding(body)
	enc, name, _ := charset.DetermineEncoding(body, ct)
	p.Charset.Name = name
	switch {
	case name == "windows-1252" && asciiOnly(body):
		// An ASCII body reads the same in UTF-8 and needs no decoding;
		// its non-ASCII characters come from character references
		// (&eacute;), which browsers encode in windows-1252 in a query,
		// unless a <meta charset> past the first 1024 bytes, which the
		// prescan misses and browsers still switch to, says UTF-8.
		if !namesUTF8(p.Charset.Meta) {
			p.queryEnc = urlEncoding(name)
		}
	case name != "utf-8" && (name != "windows-1252" || !utf8.Valid(body)):
		// A windows-1252 body that is valid UTF-8 is read as UTF-8: a
		// UTF-8 page mislabelled. Its queries stay UTF-8, the bytes a
		// browser sends for its raw characters (which it reads as
		// windows-1252 and encodes back).
		if dec, err := enc.NewDecoder().Bytes(body); err == nil {
			body = dec
			p.queryEnc = urlEncoding(name)
		}
	}
	// The Encoding Standard's decode removes the byte-order mark, so the
	// tokenizer never sees it; x/net/html would read it as text, which
	// starts the body (and quirks mode) before the doctype and the head.
	// A UTF-16 body decoded above may still start with it, now in UTF-8.
	body = bytes.TrimPrefix(body, utf8BOM)
	body = lowerDoctypeName(body)
	// Every start tag begins with '<': their count sizes the element list
	// once, and a body with no more of them than MaxElements cannot
	// exceed the budget.
	p.tagHint = bytes.Count(body, []byte{'<'})
	if p.tagHint > p.cfg.MaxElements {
		if cut, fs := elementCut(body, p.cfg.MaxElements); cut >= 0 {
			body, p.tailBody, p.tailTags = body[:cut], body[cut:], fs
			p.parsedTags = p.cfg.MaxElements // the cut is at the first tag over
		}
	}
	doc, err := html.Parse(bytes.NewReader(body))
	if err != nil {
		// A bytes.Reader has no errors: the parser refused nesting deeper
		// than MaxNesting.
		doc, cut := parseNested(body)
		if doc == nil {
			return &html.Node{Type: html.DocumentNode}
		}
		tags := 0
		_, fs := scanTags(body[:cut], func(int) bool { tags++; return false })
		p.tailBody = append(body[cut:len(body):len(body)], p.tailBody...)
		p.tailTags, p.parsedTags, p.tooDeep = fs, tags, true
		return doc
	}
	return doc
}

// lowerDoctypeName returns body with the name of a doctype near its start
// lowercased when it is "html" in other case ("<!DOCTYPE HTML>"), in a
// copy, else body itself. HTML's tokenizer lowercases a doctype's name
// before tree construction compares it with "html"
// (https://html.spec.whatwg.org/multipage/parsing.html#doctype-name-state);
// golang.org/x/net/html compares the name as written, so such a page was
// parsed in quirks mode, where a <table> stays inside an open <p>. Only
// the first 1024 bytes are searched: a doctype comes first, after white
// space and comments, or is ignored.
func lowerDoctypeName(body []byte) []byte {
	head := body[:min(len(body), 1024)]
	i := indexFold(head, "<!doctype")
	if i < 0 {
		return body
	}
	i += len("<!doctype")
	for i < len(head) && isHTMLSpace(head[i]) {
		i++
	}
	if len(head)-i < 5 || !bytes.EqualFold(head[i:i+4], []byte("html")) || string(head[i:i+4]) == "html" ||
		!(isHTMLSpace(head[i+4]) || head[i+4] == '>') {
		return body
	}
	b := bytes.Clone(body)
	copy(b[i:], "html")
	return b
}

// utf8BOM is the byte-order mark U+FEFF in UTF-8.
var utf8BOM = []byte("\xef\xbb\xbf")

// bomEncoding returns the encoding a byte-order mark at the start of b
// names, or "" (Encoding Standard, BOM sniff).
func bomEncoding(b []byte) string {
	switch {
	case bytes.HasPrefix(b, utf8BOM):
		return "utf-8"
	case bytes.HasPrefix(b, []byte("\xfe\xff")):
		return "utf-16be"
	case bytes.HasPrefix(b, []byte("\xff\xfe")):
		return "utf-16le"
	}
	return ""
}

// asciiOnly reports whether b has no byte over 0x7f, reading eight bytes
// at a time.
func asciiOnly(b []byte) bool {
	for len(b) >= 8 {
		if binary.LittleEndian.Uint64(b)&0x8080808080808080 != 0 {
			return false
		}
		b = b[8:]
	}
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// namesUTF8 reports whether label is a label of UTF-8 ("utf-8", "UTF8",
// "unicode-1-1-utf-8" ...).
func namesUTF8(label string) bool {
	enc, err := htmlindex.Get(strings.TrimSpace(label))
	if err != nil {
		return false
	}
	name, _ := htmlindex.Name(enc)
	return name == "utf-8"
}

// urlEncoding returns the encoding the URLs of a document decoded from the
// encoding named name encode their queries in, for seo.EncodeQuery: that
// encoding, or nil (UTF-8) for UTF-16 and the replacement encoding, whose
// documents' URLs are UTF-8
// (https://encoding.spec.whatwg.org/#get-an-output-encoding). It is looked
// up by name because the parser's encodings write the characters they
// cannot encode as character references instead of failing.
func urlEncoding(name string) encoding.Encoding {
	switch name {
	case "utf-8", "utf-16le", "utf-16be", "replacement":
		return nil
	}
	enc, err := htmlindex.Get(name)
	if err != nil {
		return nil
	}
	return enc
}

// metaCharset finds a <meta charset> or http-equiv content-type charset in
// the first 64 KiB, returning its value and byte offset. It scans tags
// without lowering the whole prefix: this runs on every page.
func metaCharset(b []byte) (string, int) {
	if len(b) > 64<<10 {
		b = b[:64<<10]
	}
	for off := 0; ; {
		i := bytes.IndexByte(b[off:], '<')
		if i < 0 {
			return "", -1
		}
		start := off + i
		off = start + 1
		if len(b)-start < 6 || !lowerASCIIEqual(b[start+1:start+5], "meta") {
			continue
		}
		end := bytes.IndexByte(b[start:], '>')
		if end < 0 {
			return "", -1
		}
		tag := b[start : start+end]
		if j := indexFold(tag, "charset="); j >= 0 {
			v := bytes.TrimLeft(tag[j+len("charset="):], `"' `)
			if k := bytes.IndexAny(v, "\"' ;/>"); k >= 0 {
				v = v[:k]
			}
			if len(v) > 0 {
				return strings.ToLower(string(v)), start
			}
		}
		off = start + end
	}
}

// indexFold returns the index of the lowercase ASCII word s in b, ignoring case.
func indexFold(b []byte, s string) int {
	for i := 0; i+len(s) <= len(b); i++ {
		if b[i]|0x20 == s[0] && lowerASCIIEqual(b[i:i+len(s)], s) {
			return i
		}
	}
	return -1
}

// skipsText reports whether the text of an element of tag a is left out
// of the main text: never for script, style, form controls and the like;
// page furniture (nav, header, footer, aside) too when dropChrome is set,
// as for a page with no <main> or single <article>. A switch, as it runs
// for every element under the main text's root. The content of an inert
// template is left out by inertTemplate, not by tag: a template that is a
// declarative shadow root is rendered text.
func skipsText(a atom.Atom, dropChrome bool) bool {
	switch a {
	case atom.Script, atom.Style, atom.Noscript,
		atom.Svg, atom.Math, atom.Iframe, atom.Object,
		atom.Select, atom.Textarea, atom.Button, atom.Head:
		return true
	case atom.Nav, atom.Header, atom.Footer, atom.Aside:
		return dropChrome
	}
	return false
}

// index walks the tree once, collecting elements by tag, links, resources
// and the base URL, then extracts the main text. It does not enter an
// inert template (inertTemplate): the <template> element is in Elements,
// its content is not.
func (p *Page) index() {
	// About half the '<' of a page open an element (the rest close one);
	// the list grows at most once from there.
	p.Elements = make([]*html.Node, 0, min(p.tagHint/2, p.cfg.MaxElements)+8)
	var mains, articles []*html.Node
	// The elements of the tags that can load a resource, in document
	// order, for collectResources, which resolves them once the walk has
	// found the base URL.
	var resEls []*html.Node
	var foreignAt []int32 // indexes in Elements of SVG and MathML elements
	baseFound := false    // a <base href> was met
	var walk func(n *html.Node, foreign bool)
	walk = func(n *html.Node, foreign bool) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			inForeign := foreign || c.Namespace != ""
			if inForeign {
				foreignAt = append(foreignAt, int32(len(p.Elements)))
			}
			p.Elements = append(p.Elements, c)
			p.indexAttrs(c)
			if headingLevel(c) > 0 {
				p.headingEls = append(p.headingEls, c)
			}
			if !inForeign {
				p.byTag.count(c.DataAtom, c)
				switch c.DataAtom {
				case atom.Html:
					p.HTML = c
				case atom.Head:
					if p.Head == nil {
						p.Head = c
					}
				case atom.Body:
					if p.BodyEl == nil {
						p.BodyEl = c
					}
				case atom.Main:
					mains = append(mains, c)
				case atom.Article:
					articles = append(articles, c)
				case atom.Script, atom.Img, atom.Iframe, atom.Frame, atom.Audio, atom.Video, atom.Source, atom.Track,
					atom.Embed, atom.Object, atom.Link:
					resEls = append(resEls, c)
				case atom.Base:
					if h, ok := Attr(c, "href"); ok && !baseFound && !inTemplate(c) {
						// HTML: the first <base href> in the document sets
						// the base, wherever it is, resolved against the
						// document's URL; one that does not parse leaves
						// the document's URL, and no later one counts
						// (https://html.spec.whatwg.org/multipage/urls-and-fetching.html#document-base-url,
						// https://html.spec.whatwg.org/multipage/semantics.html#set-the-frozen-base-url).
						baseFound = true
						if b, err := p.urlResolver().ResolveBase(seo.EncodeQuery(h, p.queryEnc)); err == nil {
							p.Base, p.baseRes = b.URL(), b
						}
					}
				}
			}
			if !inertTemplate(c) {
				walk(c, inForeign)
			}
		}
	}
	walk(p.Doc, false)
	p.byTag.fill(p.Elements, foreignAt)
	p.collectLinks()
	p.collectResources(resEls)
	if p.tailBody != nil {
		p.tail = p.scanTail(p.tailBody, p.tailTags)
		p.tailBody = nil
	}

	root := p.BodyEl
	dropChrome := true
	switch {
	case len(mains) > 0:
		root, dropChrome = mains[0], false
	case len(articles) == 1:
		root, dropChrome = articles[0], false
	}
	if root != nil {
		tb := getTextBuilder()
		appendText(tb, root, dropChrome)
		p.Words = tb.words
		// The text is copied out once at its size; the builder's buffer
		// goes back to the pool.
		p.MainText = string(tb.buf)
		p.mainFP, p.hasMainFP, p.ipsum = tb.fingerprint(), true, tb.ipsum
		putTextBuilder(tb)
	}
}

// inertTemplate reports whether n is an HTML <template> element whose
// content is inert: browsers parse that content into a separate
// DocumentFragment, not into the document, so its links are not links,
// its images and scripts do not load, and its headings, title, meta and
// JSON-LD are not the page's
// (https://html.spec.whatwg.org/multipage/scripting.html#the-template-element).
// golang.org/x/net/html keeps the content as the element's children: every
// walk of the tree skips them with this one rule. A declarative shadow root
// (shadowRoot) is rendered, so its content is the page's. The tag is
// compared first, as this runs for every element of every page.
func inertTemplate(n *html.Node) bool {
	return n.DataAtom == atom.Template && n.Type == html.ElementNode && n.Namespace == "" && !shadowRoot(n)
}

// shadowRoot reports whether the HTML <template> n is a declarative shadow
// root: the parser attaches its content to the parent element as a shadow
// root, which is rendered, instead of keeping it as an inert template.
// HTML's tree construction does so for a <template> whose shadowrootmode
// is "open" or "closed" (an enumerated attribute, ASCII case-insensitive;
// the legacy shadowroot attribute no longer counts) when the parent can
// host a shadow root and hosts none yet: a later one in the same parent,
// or one in an element that cannot host one (<head>, <ul>, <a> ...), stays
// an inert template
// (https://html.spec.whatwg.org/multipage/scripting.html#attr-template-shadowrootmode,
// https://html.spec.whatwg.org/multipage/parsing.html#parsing-main-inhead, "A start tag whose tag name is template",
// https://dom.spec.whatwg.org/#dom-element-attachshadow).
func shadowRoot(n *html.Node) bool {
	if !shadowRootMode(n) {
		return false
	}
	host := n.Parent
	if host == nil || host.Type != html.ElementNode || host.Namespace != "" || !shadowHost(host) {
		return false
	}
	for s := n.PrevSibling; s != nil; s = s.PrevSibling {
		if s.DataAtom == atom.Template && s.Type == html.ElementNode && s.Namespace == "" && shadowRootMode(s) {
			return false // the host has its shadow root already
		}
	}
	return true
}

// shadowRootMode reports whether the <template> n asks for a shadow root:
// its shadowrootmode attribute is "open" or "closed", ASCII
// case-insensitive.
func shadowRootMode(n *html.Node) bool {
	v, ok := Attr(n, "shadowrootmode")
	return ok && shadowModeValue(v)
}

// shadowModeValue reports whether v is a state of shadowrootmode ("open"
// or "closed", ASCII case-insensitive: strings.EqualFold would also take
// "cloſed", with a long s).
func shadowModeValue[S string | []byte](v S) bool {
	return lowerASCIIEqual(v, "open") || lowerASCIIEqual(v, "closed")
}

// shadowHost reports whether the HTML element n can host a shadow root: a
// valid custom element name or one of the elements attachShadow accepts
// (https://dom.spec.whatwg.org/#valid-shadow-host-name).
func shadowHost(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Article, atom.Aside, atom.Blockquote, atom.Body, atom.Div, atom.Footer,
		atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.Header, atom.Main,
		atom.Nav, atom.P, atom.Section, atom.Span:
		return true
	}
	// Not by atom alone: a few custom element names (accept-charset,
	// http-equiv) are attribute names the atom table holds.
	return customElementName(n.Data)
}

// customElementName reports whether name, as the parser lowercased it, is
// a valid custom element name: a lowercase ASCII letter first, a hyphen,
// no ASCII character outside [-._0-9a-z], and none of the names SVG and
// MathML reserve (https://html.spec.whatwg.org/multipage/custom-elements.html#valid-custom-element-name).
func customElementName(name string) bool {
	if name == "" || name[0] < 'a' || name[0] > 'z' || !strings.Contains(name, "-") {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c < utf8.RuneSelf && c != '-' && c != '.' && c != '_' && (c < '0' || c > '9') && (c < 'a' || c > 'z') {
			return false
		}
	}
	switch name {
	case "annotation-xml", "color-profile", "font-face", "font-face-src",
		"font-face-uri", "font-face-format", "font-face-name", "missing-glyph":
		return false
	}
	return true
}

// inTemplate reports whether n is inside a <template>, inert or a shadow
// root: neither is the document tree, so a <base> there sets no base URL
// (https://html.spec.whatwg.org/multipage/urls-and-fetching.html#document-base-url
// reads the first base element "in the document", not in a shadow tree).
// The index walk never enters an inert template; this runs only for the
// rare <base> element.
func inTemplate(n *html.Node) bool {
	for a := n.Parent; a != nil; a = a.Parent {
		if a.Type == html.ElementNode && a.DataAtom == atom.Template && a.Namespace == "" {
			return true
		}
	}
	return false
}

// indexAttrs files n under idEls and sdEls by its attributes.
func (p *Page) indexAttrs(n *html.Node) {
	id, sd := false, false
	for i := range n.Attr {
		a := &n.Attr[i]
		if a.Namespace != "" {
			continue
		}
		switch a.Key {
		case "id":
			id = true
		case "name":
			id = id || n.DataAtom == atom.A
		case "itemscope", "typeof", "vocab":
			sd = true
		}
	}
	if id {
		p.idEls = append(p.idEls, n)
	}
	if sd {
		p.sdEls = append(p.sdEls, n)
	}
}

// ElementCount is the number of element nodes, as a DOM size measure. It
// includes the elements past Options.MaxElements, which are counted but
// not in Elements.
func (p *Page) ElementCount() int {
	if p.tail != nil {
		return len(p.Elements) + p.tail.elements
	}
	return len(p.Elements)
}

// appendText writes the visible text under n into tb, words separated by
// single spaces.
func appendText(tb *textBuilder, n *html.Node, dropChrome bool) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch c.Type {
		case html.TextNode:
			tb.appendWords(c.Data)
		case html.ElementNode:
			if skipsText(c.DataAtom, dropChrome) || c.Namespace != "" || inertTemplate(c) {
				continue
			}
			if _, hidden := Attr(c, "hidden"); hidden {
				continue
			}
			appendText(tb, c, dropChrome)
		}
	}
}

const (
	classOther = iota
	classWord  // ASCII letter or digit
	classJoin  // apostrophe or hyphen, inside a word only
)

// asciiClass classifies ASCII bytes for textBuilder.appendWords.
var asciiClass = func() (t [utf8.RuneSelf]uint8) {
	for c := range t {
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
			t[c] = classWord
		case c == '\'' || c == '-':
			t[c] = classJoin
		}
	}
	return t
}()

// isWordByte reports whether s starts with a letter or digit.
func isWordByte(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

func isIdeograph(r rune) bool {
	return r >= 0x2E80 && (unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) ||
		unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r))
}

func (p *Page) collectLinks() {
	pageHost := p.URL.Hostname()
	anchors := p.ByTag(atom.A)
	p.Links = make([]Link, 0, len(anchors))
	for _, a := range anchors {
		l := Link{Node: a}
		var seen uint8 // the attributes met, as Attr takes the first of a name
		const seenRel, seenRole, seenID, seenName, seenTarget = 1, 2, 4, 8, 16
		for i := range a.Attr {
			at := &a.Attr[i]
			if at.Namespace != "" {
				continue
			}
			switch at.Key {
			case "href":
				if !l.HasHref {
					l.Href, l.HasHref = at.Val, true
				}
			case "rel":
				if seen&seenRel == 0 {
					l.Rel, seen = at.Val, seen|seenRel
				}
			case "role":
				if seen&seenRole == 0 && strings.TrimSpace(at.Val) != "" {
					l.attrs |= linkHasRole
				}
				seen |= seenRole
			case "id":
				if seen&seenID == 0 && at.Val != "" {
					l.attrs |= linkHasID
				}
				seen |= seenID
			case "name":
				if seen&seenName == 0 && strings.TrimSpace(at.Val) != "" {
					l.attrs |= linkHasName
				}
				seen |= seenName
			case "target":
				if seen&seenTarget == 0 && strings.EqualFold(strings.TrimSpace(at.Val), "_blank") {
					l.attrs |= linkTargetBlank
				}
				seen |= seenTarget
			}
		}
		l.Text = p.collapsedText(a)
		if l.HasHref {
			l.URL, l.Unparseable = p.linkTarget(l.Href)
			if l.URL != nil {
				l.Internal = seo.HostInScope(l.URL.Hostname(), pageHost, false)
			}
		}
		l.Nofollow = relNofollow(l.Rel)
		p.Links = append(p.Links, l)
	}
}

// linkTarget resolves a link's href: the http(s) URL without fragment, or
// nil (unparseable tells a reference that does not parse).
func (p *Page) linkTarget(href string) (u *url.URL, unparseable bool) {
	u = p.Resolve(href)
	if !isWebURL(u) {
		return nil, u == nil
	}
	u.Fragment, u.RawFragment = "", ""
	return u, false
}

// relNofollow reports whether a rel attribute holds nofollow, ugc or
// sponsored.
func relNofollow(rel string) bool {
	return rel != "" && (fieldHasLower(rel, "nofollow") || fieldHasLower(rel, "ugc") || fieldHasLower(rel, "sponsored"))
}

// collectResources fills Resources from els, the HTML elements (none in
// SVG or MathML) whose tags can load a resource, in document order.
func (p *Page) collectResources(els []*html.Node) {
	// Sized from the tags that load something whatever their attributes
	// (most <link> elements are no resource: stylesheets grow it).
	n := len(els) - len(p.ByTag(atom.Link))
	p.Resources = make([]Resource, 0, n)
	add := func(n *html.Node, kind, attr string) {
		if v, ok := Attr(n, attr); ok && strings.TrimSpace(v) != "" {
			p.Resources = append(p.Resources, Resource{Node: n, Kind: kind, Raw: v, URL: p.Resolve(v)})
		}
	}
	for _, n := range els {
		switch n.DataAtom {
		case atom.Script:
			add(n, "script", "src")
		case atom.Img:
			add(n, "image", "src")
		case atom.Iframe, atom.Frame:
			add(n, "iframe", "src")
		case atom.Audio, atom.Video, atom.Source, atom.Track, atom.Embed:
			add(n, "media", "src")
		case atom.Object:
			add(n, "media", "data")
		case atom.Link:
			rel, _ := Attr(n, "rel")
			switch {
			case spaceTokenLower(rel, "stylesheet"):
				add(n, "stylesheet", "href")
			case spaceTokenLower(rel, "preload") || spaceTokenLower(rel, "modulepreload"):
				as, _ := Attr(n, "as")
				kind := "preload"
				if strings.EqualFold(as, "font") {
					kind = "font"
				}
				add(n, kind, "href")
			}
		}
	}
}

// Attr returns the value of an element's attribute (names are
// case-insensitive in HTML; the parser lowercases them) and whether it exists.
func Attr(n *html.Node, name string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == name && a.Namespace == "" {
			return a.Val, true
		}
	}
	return "", false
}

// TextContent returns the text of the nodes under n, skipping scripts,
// styles and the content of inert templates, without collapsing
// whitespace.
func TextContent(n *html.Node) string {
	if c := n.FirstChild; c != nil && c.NextSibling == nil && c.Type == html.TextNode {
		return c.Data // the common case, without a copy
	}
	var sb strings.Builder
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch c.Type {
			case html.TextNode:
				sb.WriteString(c.Data)
			case html.ElementNode:
				if c.DataAtom != atom.Script && c.DataAtom != atom.Style && !inertTemplate(c) {
					walk(c)
				}
			}
		}
	}
	walk(n)
	return sb.String()
}

// Collapse trims s and replaces each run of white space with one space.
func Collapse(s string) string {
	if isCollapsed(s) {
		return s
	}
	// Text wrapped in white space ("\n  Home\n") collapses to a part of
	// itself: no copy, nor for non-ASCII text that needs none.
	if t := trimASCIISpace(s); isCollapsed(t) || !isASCII(t) && isCollapsedUnicode(t) {
		return t
	}
	// strings.Join(strings.Fields(s), " ") in one pass and one copy.
	b := appendCollapsed(make([]byte, 0, len(s)), s, false)
	if len(b) == 0 {
		return ""
	}
	return string(b)
}

// appendCollapsed appends s to b with each run of white space (as
// unicode.IsSpace has it) made one space and none at the start of b;
// space says white space is pending from text before s. It returns b and
// leaves trailing white space pending, not written: the caller's next
// call passes it on.
func appendCollapsed(b []byte, s string, space bool) []byte {
	b, _ = appendCollapsedState(b, s, space)
	return b
}

// appendCollapsedState is appendCollapsed that also returns whether white
// space is pending after s.
func appendCollapsedState(b []byte, s string, space bool) ([]byte, bool) {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r' {
				space = true
			} else {
				if space && len(b) > 0 {
					b = append(b, ' ')
				}
				space = false
				b = append(b, c)
			}
			i++
			continue
		}
		r, w := utf8.DecodeRuneInString(s[i:])
		if unicode.IsSpace(r) {
			space = true
		} else {
			if space && len(b) > 0 {
				b = append(b, ' ')
			}
			space = false
			b = append(b, s[i:i+w]...)
		}
		i += w
	}
	return b, space
}

// trimASCIISpace trims ASCII white space from both ends of s.
func trimASCIISpace(s string) string {
	i, j := 0, len(s)
	for i < j && isASCIISpace(s[i]) {
		i++
	}
	for j > i && isASCIISpace(s[j-1]) {
		j--
	}
	return s[i:j]
}

// isCollapsed reports whether s is ASCII with no white space other than
// single inner spaces, so that Collapse(s) == s without allocating. It
// tests eight bytes at a time, loads seven bytes apart so that two
// spaces in a row are always in one load.
func isCollapsed(s string) bool {
	n := len(s)
	switch {
	case n == 0:
		return true
	case s[0] == ' ' || s[n-1] == ' ':
		return false
	case n < 8:
		// The zero bytes loadTail pads with are neither space nor
		// white space.
		return collapsed8(loadTail(s, 0))
	}
	for i := 0; n-i > 8; i += 7 {
		if !collapsed8(le64(s[i:])) {
			return false
		}
	}
	return collapsed8(le64(s[n-8:]))
}

// isCollapsedUnicode reports whether s has no white space (as
// unicode.IsSpace has it) but single spaces between other characters, so
// that Collapse(s) == s, reading its runes one by one.
func isCollapsedUnicode(s string) bool {
	space := true // at the start, as after a space: none may come first
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c == ' ' {
				if space {
					return false
				}
				space = true
			} else if isASCIISpace(c) {
				return false
			} else {
				space = false
			}
			i++
			continue
		}
		r, w := utf8.DecodeRuneInString(s[i:])
		if unicode.IsSpace(r) {
			return false
		}
		space = false
		i += w
	}
	return !space || s == ""
}

// collapsed8 reports whether the eight bytes of v are ASCII, none of them
// white space but ' ', and no two spaces in a row.
func collapsed8(v uint64) bool {
	x := v ^ ' '*lsb
	space := ^(x&^msb + 0x7f*lsb | x) & msb // the bytes that are ' '
	y := v &^ msb
	ctrl := (y + 0x77*lsb) &^ (y + 0x72*lsb) // '\t' <= y <= '\r'
	return (v|ctrl|space&(space>>8))&msb == 0
}

// Length counts the Unicode characters of s after collapsing white space,
// the rule every length threshold uses.
func Length(s string) int { return utf8.RuneCountInString(Collapse(s)) }

// InHead reports whether n sits in <head>. An element the parser moved into
// <body> (because it appeared there, or after the head was closed early by
// an element not allowed in it) is not in the head, as crawlers see it.
func InHead(n *html.Node) bool {
	for a := n.Parent; a != nil; a = a.Parent {
		if a.Type == html.ElementNode && a.Namespace == "" {
			switch a.DataAtom {
			case atom.Head:
				return true
			case atom.Body:
				return false
			}
		}
	}
	return false
}

// Outer renders a short form of an element's start tag for evidence, e.g.
// `<link rel="canonical" href="/x">`.
func Outer(n *html.Node) string {
	// seo.Clip keeps MaxEvidenceValue runes, at most four bytes each: the
	// tag is written up to that many bytes and one more, which clips to
	// what the whole tag would (a page's long srcset, style and data-
	// attributes are not copied and escaped only to be cut).
	const limit = 4*seo.MaxEvidenceValue + 1
	// The builder is sized once for the tag as written unescaped (up to
	// the limit and a value's worth past it), instead of growing from
	// eight bytes four or five times: evidence names an element for
	// many findings of a page.
	size := len(n.Data) + 2
	for _, a := range n.Attr {
		if size >= limit {
			break
		}
		size += len(a.Key) + len(a.Val) + 4
	}
	var sb strings.Builder
	sb.Grow(min(size, 2*limit))
	sb.WriteByte('<')
	sb.WriteString(n.Data)
	for _, a := range n.Attr {
		if sb.Len() >= limit {
			break
		}
		sb.WriteByte(' ')
		sb.WriteString(a.Key)
		sb.WriteString(`="`)
		// Escaping a prefix of the value writes a prefix of its escape.
		v := a.Val
		if room := max(limit-sb.Len(), 0); len(v) > room {
			v = v[:room]
		}
		sb.WriteString(html.EscapeString(v))
		sb.WriteByte('"')
	}
	sb.WriteByte('>')
	return seo.Clip(sb.String())
}
