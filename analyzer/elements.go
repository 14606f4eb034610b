package analyzer

import (
	"bytes"
	"io"
	"strconv"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/seokit/seokit/seo"
)

// The element budget bounds the parsed tree, whose nodes are most of an
// analysis' memory on dense pages: a document with more than
// Options.MaxElements elements is parsed only up to its first element over
// the budget, and the rest is tokenized once, without a tree, to count
// what the report counts.

func init() {
	// Reported by analyze itself, at every depth, when the tree was cut:
	// the report is then partial, which is why it is a warning of its own.
	// The DOM size rule stays performance.dom_too_large (a notice at
	// Complete depth over Thresholds.MaxDOMElements, 1500, after SEOnaut
	// and Lighthouse's dom-size audit, which warns over about 800 body
	// elements and errs over about 1,400); it counts the whole document.
	declare(seo.CheckInfo{ID: "content.document_too_large", Severity: seo.Warning, Scope: seo.ScopePage,
		Summary: "The document has more elements than the analysis parses; the rest was counted, not checked.",
		Source:  "seokit's own rule: the analysis parses a bounded number of elements and says when a report is partial"})
	declare(seo.CheckInfo{ID: "content.nesting_too_deep", Severity: seo.Warning, Scope: seo.ScopePage,
		Summary: "Elements are nested deeper than 512 levels (usually unclosed tags); browsers attach deeper elements to the 512th level, and the analysis checks the document up to the first such element.",
		Source:  "Chromium's HTML parser, kMaximumHTMLParserDOMTreeDepth = 512 (https://source.chromium.org/chromium/chromium/src/+/main:third_party/blink/renderer/core/html/parser/html_construction_site.cc); golang.org/x/net/html rejects HTML nested deeper than 512 elements (https://pkg.go.dev/golang.org/x/net/html#Parse)"})
}

// elementCut returns the byte offset of the start tag of the first element
// of body over max elements, or -1 when body holds at most max elements,
// with the tag state at that offset. The offset is a token boundary
// outside raw text, so the prefix before it parses as the document's start
// and the tail tokenizes from a clean state.
func elementCut(body []byte, max int) (int, tagState) {
	// Every start tag begins with '<': a body with no more of them than
	// max cannot exceed the budget. This skips the scan for real pages.
	if bytes.Count(body, []byte{'<'}) <= max {
		return -1, tagState{}
	}
	n := 0
	return scanTags(body, func(int) bool { n++; return n > max })
}

// scanTags tokenizes body and returns the byte offset of the first start
// tag for which stop (given the tag's offset) is true, with the tag state
// there, or -1 when there is none.
func scanTags(body []byte, stop func(off int) bool) (int, tagState) {
	z := html.NewTokenizer(bytes.NewReader(body))
	var st tagState
	off := 0
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			return -1, st
		case html.StartTagToken, html.SelfClosingTagToken:
			if stop(off) {
				return off, st
			}
			name, hasAttr := z.TagName()
			st.start(z, atom.Lookup(name), hasAttr, tt == html.SelfClosingTagToken)
		case html.EndTagToken:
			name, _ := z.TagName()
			st.end(atom.Lookup(name))
		}
		off += len(z.Raw())
	}
}

// MaxNesting is the deepest nesting of elements the HTML parser builds:
// golang.org/x/net/html refuses a document nested deeper, and Chromium's
// parser (kMaximumHTMLParserDOMTreeDepth) attaches deeper elements to the
// 512th level. A page nested deeper is parsed up to its first start tag
// the parser cannot place, and the rest is counted like the tail past
// Options.MaxElements (content.nesting_too_deep).
const MaxNesting = 512

// parseNested parses body, which x/net/html refused as nested deeper than
// MaxNesting: it finds the start tag the parser stopped at by feeding it
// one byte at a time (only such pages pay for it) and parses the body up
// to that tag. It returns the tree and the offset of the cut, or a nil
// tree when no prefix parses.
func parseNested(body []byte) (*html.Node, int) {
	for range 4 {
		r := &oneByteReader{b: body}
		if _, err := html.Parse(r); err == nil {
			break
		}
		cut := bytes.LastIndexByte(body[:r.n], '<')
		if cut <= 0 {
			break
		}
		// The stop is mid-tag or, for an element the parser implies while
		// reading text, the tag after that text: parse the prefix before
		// it, and step back once more if that still fails.
		body = body[:cut]
		if doc, err := html.Parse(bytes.NewReader(body)); err == nil {
			return doc, cut
		}
	}
	return nil, -1
}

// oneByteReader reads b one byte per Read, so the bytes it gave out are
// exactly those the tokenizer consumed.
type oneByteReader struct {
	b []byte
	n int
}

func (r *oneByteReader) Read(p []byte) (int, error) {
	if r.n >= len(r.b) {
		return 0, io.EOF
	}
	if len(p) == 0 {
		return 0, nil
	}
	p[0] = r.b[r.n]
	r.n++
	return 1, nil
}

// tagState follows, in a token stream, the nesting the tree builder
// decides in the common cases. Elements inside svg and math are foreign
// (not links, images or headings) until the closing tag or an HTML tag
// that breaks out of foreign content; integration points (an svg
// foreignObject) are not followed. Elements inside an inert <template>
// are not part of the document (inertTemplate) until its closing tag; a
// <template shadowrootmode=open|closed> counts as a shadow root here
// without the tree's checks of its parent, which a token stream does not
// have.
type tagState struct {
	foreign int // open svg and math elements
	inert   int // open <template> elements from the outermost inert one
}

// start follows a start tag a, whose attributes z reads next when hasAttr
// (only a template's are), and reports whether the element is foreign.
func (s *tagState) start(z *html.Tokenizer, a atom.Atom, hasAttr, selfClosing bool) bool {
	switch {
	case a == atom.Svg || a == atom.Math:
		if !selfClosing {
			s.foreign++
		}
		return true
	case s.foreign > 0 && breaksOut[a]:
		s.foreign = 0
	}
	if s.foreign > 0 {
		return true
	}
	if a == atom.Template && (s.inert > 0 || !shadowRootTag(z, hasAttr)) {
		// An HTML element: a self-closing flag does not close it.
		s.inert++
	}
	return false
}

// end follows a closing tag a.
func (s *tagState) end(a atom.Atom) {
	switch {
	case a == atom.Template && s.inert > 0:
		// It closes the template and any svg or math left open in it (an
		// svg or math start tag inside inert content opens foreign content
		// inside the innermost template).
		s.foreign, s.inert = 0, s.inert-1
	case s.foreign > 0 && (a == atom.Svg || a == atom.Math):
		s.foreign--
	}
}

// shadowRootTag reports whether the template start tag whose attributes z
// reads next has the shadowrootmode of a shadow root (shadowModeValue),
// reading the first of the name as the parser does.
func shadowRootTag(z *html.Tokenizer, hasAttr bool) bool {
	for more := hasAttr; more; {
		var k, v []byte
		k, v, more = z.TagAttr()
		if string(k) == "shadowrootmode" {
			return shadowModeValue(v)
		}
	}
	return false
}

// breaksOut lists the HTML start tags that close open svg and math
// elements (the HTML standard's rules for parsing tokens in foreign
// content).
var breaksOut = func() map[atom.Atom]bool {
	m := map[atom.Atom]bool{}
	for _, a := range []atom.Atom{atom.B, atom.Big, atom.Blockquote, atom.Body, atom.Br, atom.Center,
		atom.Code, atom.Dd, atom.Div, atom.Dl, atom.Dt, atom.Em, atom.Embed, atom.H1, atom.H2, atom.H3,
		atom.H4, atom.H5, atom.H6, atom.Head, atom.Hr, atom.I, atom.Img, atom.Li, atom.Listing, atom.Menu,
		atom.Meta, atom.Nobr, atom.Ol, atom.P, atom.Pre, atom.Ruby, atom.S, atom.Small, atom.Span,
		atom.Strong, atom.Strike, atom.Sub, atom.Sup, atom.Table, atom.Tt, atom.U, atom.Ul, atom.Var} {
		m[a] = true
	}
	return m
}()

// tailCounts are the counts of the part of a document left out of the tree.
type tailCounts struct {
	// elements counts the elements as the tree holds them: those inside
	// an inert template left out, like the start tags of html, head and
	// body; tags counts every start tag, as the element budget does.
	elements, tags int
	// Links with an http(s) target, as extractLinks counts them.
	internal, external, nofollow int
	images, imagesWithoutAlt     int
	headings                     int
}

// scanTail counts the elements, links, images and headings of tail, the
// part of the body after the element budget, with the page's base URL; st
// is the tag state where tail starts. Start tags of html, head and body
// add no element (the tree has them already), elements inside svg and
// math count as elements only, and those inside an inert template not at
// all, as in the tree.
func (p *Page) scanTail(tail []byte, st tagState) *tailCounts {
	c := &tailCounts{}
	pageHost := p.URL.Hostname()
	z := html.NewTokenizer(bytes.NewReader(tail))
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			return c
		case html.EndTagToken:
			name, _ := z.TagName()
			st.end(atom.Lookup(name))
			continue
		case html.StartTagToken, html.SelfClosingTagToken:
		default:
			continue
		}
		c.tags++
		name, hasAttr := z.TagName()
		a := atom.Lookup(name)
		if st.inert > 0 {
			st.start(z, a, hasAttr, tt == html.SelfClosingTagToken)
			continue
		}
		if st.start(z, a, hasAttr, tt == html.SelfClosingTagToken) || a == atom.Template {
			c.elements++ // a foreign element, or a template, whose attributes start read
			continue
		}
		if a == atom.Html || a == atom.Head || a == atom.Body {
			continue
		}
		c.elements++
		switch a {
		case atom.A:
			var href, rel []byte
			hasHref := false
			for more := hasAttr; more; {
				var k, v []byte
				k, v, more = z.TagAttr()
				switch string(k) {
				case "href":
					if !hasHref {
						href, hasHref = v, true
					}
				case "rel":
					if rel == nil {
						rel = v
					}
				}
			}
			if !hasHref {
				continue
			}
			u, _ := p.linkTarget(string(href))
			if u == nil {
				continue
			}
			if seo.HostInScope(u.Hostname(), pageHost, false) {
				c.internal++
			} else {
				c.external++
			}
			if relNofollow(string(rel)) {
				c.nofollow++
			}
		case atom.Img, atom.Image: // the parser reads <image> as <img>
			c.images++
			alt := false
			for more := hasAttr; more && !alt; {
				var k []byte
				k, _, more = z.TagAttr()
				alt = string(k) == "alt"
			}
			if !alt {
				c.imagesWithoutAlt++
			}
		case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
			c.headings++
		}
	}
}

// noteDocumentCut records a cut tree in Report.Truncated["document"] and,
// for a document that gets the content checks, reports
// content.document_too_large.
func noteDocumentCut(p *Page, r *Reporter, document bool) {
	if p.tail == nil {
		return
	}
	parsed := len(p.Elements)
	total := parsed + p.tail.elements
	p.Report.Truncated.Note("document", total, parsed)
	if !document {
		return
	}
	if p.tooDeep {
		ev := seo.Measure("nesting", MaxNesting+1, MaxNesting)
		ev.Detail = "the first " + strconv.Itoa(parsed) + " elements were checked; links, images and headings were counted in all " + strconv.Itoa(total)
		r.Add("content.nesting_too_deep", "elements are nested deeper than "+strconv.Itoa(MaxNesting)+" levels, usually from unclosed tags", ev)
	}
	// The budget counts start tags, those in templates included (the
	// parser builds their content), so the finding measures them too:
	// only a document the budget cut has more than MaxElements.
	tags := p.parsedTags + p.tail.tags
	if tags <= p.cfg.MaxElements {
		return
	}
	ev := seo.Measure("elements", float64(tags), float64(p.cfg.MaxElements))
	ev.Detail = "the first " + strconv.Itoa(parsed) + " elements were checked; links, images and headings were counted in all " + strconv.Itoa(total)
	r.Add("content.document_too_large", "the document has "+strconv.Itoa(tags)+" elements, more than the analysis parses", ev)
}
