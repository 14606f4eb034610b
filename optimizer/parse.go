package optimizer

import (
	"sort"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// blockKind says what a block of text is.
type blockKind uint8

const (
	kindParagraph blockKind = iota
	kindHeading
	kindListItem
	kindTableCell
	kindQuote
	kindCaption
)

// piece maps a position of a block's cleaned text back to the content.
type piece struct{ clean, orig int }

// block is one unit of text: a paragraph, a heading, a list item... It
// is kept small (48 bytes): a text may have hundreds of thousands.
type block struct {
	text string
	// off is the content offset of text when it is one run of the content
	// (p0 == p1); otherwise pieces[p0:p1] of the parse map text offsets to
	// content offsets, sorted by clean.
	off, p0, p1 int32
	s0, s1      int32 // sentence range, set by segmentation
	w0, w1      int32 // token range, set by segmentation
	kind        blockKind
	level       uint8 // heading level 1-6
}

// orig returns the content offset of byte i of block b's text; pieces
// are the parse's.
func (b *block) orig(pieces []piece, i int) int {
	ps := pieces[b.p0:b.p1]
	if len(ps) == 0 {
		return int(b.off) + i
	}
	k := sort.Search(len(ps), func(j int) bool { return ps[j].clean > i }) - 1
	if k < 0 {
		k = 0
	}
	return ps[k].orig + i - ps[k].clean
}

// builder accumulates a block's text with its offset map. While the text
// is one run of src it is not copied: the block's text is then a
// substring of the content.
type builder struct {
	src    string // the content
	sb     strings.Builder
	lo, hi int  // the text is src[lo:hi] while copied is false
	n      int  // length of the text
	copied bool // the text is in sb
	// pieces are the offset maps of every block taken so far, then of
	// this one from p0.
	pieces []piece
	p0     int
	last   int // content offset just after the last write, -1 if none
}

func newBuilder(src string) builder { return builder{src: src, last: -1} }

func (b *builder) add(s string, orig int) {
	if s == "" {
		return
	}
	if b.n == 0 || orig != b.last {
		b.pieces = append(b.pieces, piece{b.n, orig})
	}
	inSrc := orig >= 0 && orig+len(s) <= len(b.src) && b.src[orig:orig+len(s)] == s
	switch {
	case b.copied:
		b.sb.WriteString(s)
	case b.n == 0 && inSrc:
		b.lo, b.hi = orig, orig+len(s)
	case orig == b.hi && inSrc:
		b.hi += len(s)
	default:
		b.copied = true
		b.sb.WriteString(b.src[b.lo:b.hi])
		b.sb.WriteString(s)
	}
	b.n += len(s)
	b.last = orig + len(s)
}

func (b *builder) text() string {
	if b.copied {
		return b.sb.String()
	}
	return b.src[b.lo:b.hi]
}

// space adds one separating space (mapped to the content offset at).
func (b *builder) space(at int) {
	if b.n == 0 {
		return
	}
	if s := b.text(); s[len(s)-1] == ' ' {
		return
	}
	b.add(" ", at)
	b.last = -1
}

func (b *builder) empty() bool { return strings.TrimSpace(b.text()) == "" }

func (b *builder) take(kind blockKind, level int) block {
	blk := block{kind: kind, level: uint8(level), text: b.text(), p0: int32(b.p0), p1: int32(len(b.pieces))}
	if blk.p1-blk.p0 == 1 && b.pieces[b.p0].clean == 0 {
		blk.off, blk.p1 = int32(b.pieces[b.p0].orig), blk.p0
		b.pieces = b.pieces[:b.p0]
	}
	b.p0 = len(b.pieces)
	b.sb = strings.Builder{}
	b.n, b.lo, b.hi, b.copied = 0, 0, 0, false
	b.last = -1
	return blk
}

// image is an image's alternative text.
type image struct {
	alt    string
	offset int
}

// link is a hyperlink's anchor text and target.
type link struct {
	anchor, href string
	offset       int
}

// parsed is the content split into blocks.
type parsed struct {
	format      string
	blocks      []block
	pieces      []piece // the blocks' offset maps
	images      []image
	links       []link
	title, desc string // from an HTML head, if any
}

var htmlMarkers = []string{"<p>", "<p ", "<h1", "<h2", "<h3", "<div", "<br", "<ul", "<ol", "<li", "<a href", "<img", "<html", "<body", "<article", "<section", "<table", "<strong", "<em>", "<span", "<!doctype"}

// detectFormat guesses "html", "markdown" or "text".
func detectFormat(s string) string {
	head := s
	if len(head) > 64<<10 {
		head = head[:64<<10]
	}
	for i := strings.IndexByte(head, '<'); i >= 0; {
		rest := head[i:]
		for _, tag := range htmlMarkers {
			if len(rest) >= len(tag) && strings.EqualFold(rest[:len(tag)], tag) {
				return "html"
			}
		}
		j := strings.IndexByte(rest[1:], '<')
		if j < 0 {
			break
		}
		i += j + 1
	}
	md := 0
	for line := range strings.SplitSeq(head, "\n") {
		t := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(t, "#") && strings.HasPrefix(strings.TrimLeft(t, "#"), " "):
			md += 2
		case strings.HasPrefix(t, "```"), strings.HasPrefix(t, "> "):
			md += 2
		case strings.HasPrefix(t, "|") && strings.HasSuffix(t, "|"):
			md++
		}
		if strings.Contains(t, "](") || strings.Contains(t, "**") {
			md++
		}
	}
	if md >= 2 {
		return "markdown"
	}
	return "text"
}

// parseText splits plain text into paragraphs at blank lines. A line that
// starts with a list marker is a list item; a short single-line paragraph
// with no closing punctuation that is followed by more text is a heading.
// It stops early when c is done.
func parseText(c *canceler, s string) parsed {
	p := parsed{format: "text", blocks: make([]block, 0, strings.Count(s, "\n\n")+1)}
	b := newBuilder(s)
	kind := kindParagraph
	lines := 0
	flush := func() {
		if b.empty() {
			b.take(kind, 0)
			kind, lines = kindParagraph, 0
			return
		}
		p.blocks = append(p.blocks, b.take(kind, 0))
		kind, lines = kindParagraph, 0
	}
	off := 0
	for off <= len(s) && !c.done() {
		end := strings.IndexByte(s[off:], '\n')
		if end < 0 {
			end = len(s) - off
		}
		line := s[off : off+end]
		lineStart := off
		off += end + 1
		t := strings.TrimSpace(line)
		if t == "" {
			flush()
			continue
		}
		lead := strings.Index(line, t)
		if m := listMarker(t); m > 0 {
			flush()
			b.add(t[m:], lineStart+lead+m)
			kind = kindListItem
			flush()
			continue
		}
		b.space(lineStart)
		b.add(t, lineStart+lead)
		lines++
	}
	flush()
	// Headings: short lines without final punctuation, followed by a block.
	for i := range p.blocks {
		if c.done() {
			break
		}
		blk := &p.blocks[i]
		if blk.kind != kindParagraph || i == len(p.blocks)-1 {
			continue
		}
		t := strings.TrimSpace(blk.text)
		if fewFields(t, 10) && !strings.ContainsAny(t[len(t)-1:], ".!?:;,…\"'»)") && !strings.Contains(t, ". ") && len(p.blocks[i+1].text) > len(t) {
			blk.kind, blk.level = kindHeading, 2
		}
	}
	return p
}

// fewFields reports whether s has at most n fields.
func fewFields(s string, n int) bool {
	for range strings.FieldsSeq(s) {
		if n--; n < 0 {
			return false
		}
	}
	return true
}

// listMarker returns the length of a list marker ("- ", "* ", "• ", "1. ",
// "1) ") at the start of t, or 0.
func listMarker(t string) int {
	for _, m := range []string{"- ", "* ", "+ ", "• ", "– "} {
		if strings.HasPrefix(t, m) {
			return len(m)
		}
	}
	i := 0
	for i < len(t) && i < 4 && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	if i > 0 && i+1 < len(t) && (t[i] == '.' || t[i] == ')') && t[i+1] == ' ' {
		return i + 2
	}
	return 0
}

// parseMarkdown reads the common Markdown blocks: ATX and setext headings,
// lists, block quotes, tables and fenced code (skipped); inline links,
// images and emphasis are reduced to their text. It stops early when c is
// done.
func parseMarkdown(c *canceler, s string) parsed {
	p := parsed{format: "markdown", blocks: make([]block, 0, strings.Count(s, "\n\n")+1)}
	b := newBuilder(s)
	kind := kindParagraph
	flush := func() {
		if !b.empty() {
			p.blocks = append(p.blocks, b.take(kind, 0))
		} else {
			b.take(kind, 0)
		}
		kind = kindParagraph
	}
	fence := ""
	off := 0
	for off <= len(s) && !c.done() {
		end := strings.IndexByte(s[off:], '\n')
		if end < 0 {
			end = len(s) - off
		}
		line := strings.TrimRight(s[off:off+end], "\r")
		lineStart := off
		off += end + 1
		t := strings.TrimSpace(line)
		lead := strings.Index(line, t)
		if fence != "" {
			if strings.HasPrefix(t, fence) {
				fence = ""
			}
			continue
		}
		switch {
		case strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~"):
			flush()
			fence = t[:3]
			continue
		case t == "":
			flush()
			continue
		case strings.HasPrefix(t, "#"):
			lvl := len(t) - len(strings.TrimLeft(t, "#"))
			rest := t[lvl:]
			if lvl <= 6 && (rest == "" || rest[0] == ' ') {
				flush()
				body := strings.TrimSpace(strings.TrimRight(rest, "#"))
				at := lineStart + lead + lvl + strings.Index(rest, body)
				inlineMarkdown(&b, &p, body, at)
				if !b.empty() {
					p.blocks = append(p.blocks, b.take(kindHeading, lvl))
				}
				continue
			}
		case isRule(t):
			if kind == kindParagraph && !b.empty() && t[0] != '*' {
				// Setext heading underline.
				lvl := 2
				if t[0] == '=' {
					lvl = 1
				}
				p.blocks = append(p.blocks, b.take(kindHeading, lvl))
				continue
			}
			flush()
			continue
		case strings.HasPrefix(t, ">"):
			if kind != kindQuote {
				flush()
			}
			kind = kindQuote
			body := strings.TrimSpace(strings.TrimPrefix(t, ">"))
			b.space(lineStart)
			inlineMarkdown(&b, &p, body, lineStart+strings.Index(line, body))
			continue
		case strings.HasPrefix(t, "|"):
			flush()
			if strings.Trim(t, "|-: ") == "" {
				continue // separator row
			}
			cellOff := lineStart + lead
			for cell := range strings.SplitSeq(t, "|") {
				c := strings.TrimSpace(cell)
				if c != "" {
					inlineMarkdown(&b, &p, c, cellOff+strings.Index(cell, c))
					if !b.empty() {
						p.blocks = append(p.blocks, b.take(kindTableCell, 0))
					}
				}
				cellOff += len(cell) + 1
			}
			continue
		}
		if m := listMarker(t); m > 0 {
			flush()
			kind = kindListItem
			inlineMarkdown(&b, &p, t[m:], lineStart+lead+m)
			continue
		}
		if kind == kindQuote {
			flush()
		}
		b.space(lineStart)
		inlineMarkdown(&b, &p, t, lineStart+lead)
	}
	flush()
	p.pieces = b.pieces
	return p
}

func isRule(t string) bool {
	if len(t) < 3 {
		return false
	}
	c := t[0]
	if c != '-' && c != '=' && c != '*' && c != '_' {
		return false
	}
	for i := 0; i < len(t); i++ {
		if t[i] != c && t[i] != ' ' {
			return false
		}
	}
	return true
}

// inlineMarkdown adds the text of one line of Markdown to b, dropping
// emphasis markers and link targets and recording links and images.
func inlineMarkdown(b *builder, p *parsed, s string, at int) {
	i, start := 0, 0
	emit := func(to int) {
		if to > start {
			b.add(s[start:to], at+start)
		}
	}
	for i < len(s) {
		c := s[i]
		switch {
		case c == '!' && i+1 < len(s) && s[i+1] == '[':
			if txt, href, n := mdLink(s[i+1:]); n > 0 {
				emit(i)
				p.images = append(p.images, image{alt: txt, offset: at + i})
				_ = href
				i += 1 + n
				start = i
				continue
			}
		case c == '[':
			if txt, href, n := mdLink(s[i:]); n > 0 {
				emit(i)
				p.links = append(p.links, link{anchor: txt, href: href, offset: at + i + 1})
				b.add(txt, at+i+1)
				i += n
				start = i
				continue
			}
		case c == '*' || c == '`' || (c == '_' && (i == 0 || i == len(s)-1 || s[i-1] == ' ' || s[i+1] == ' ' || s[i+1] == '_' || s[i-1] == '_')) || c == '~' && i+1 < len(s) && s[i+1] == '~':
			emit(i)
			i++
			start = i
			continue
		}
		i++
	}
	emit(len(s))
}

// mdLink parses "[text](target)" at the start of s; n is its length.
func mdLink(s string) (text, href string, n int) {
	depth := 0
	// Links longer than 2 KB are not looked for, which keeps a line full
	// of unmatched brackets linear.
	for i := 0; i < len(s) && i < 2048; i++ {
		switch s[i] {
		case '[':
			depth++
		case ']':
			depth--
			if depth == 0 {
				if i+1 < len(s) && s[i+1] == '(' {
					if j := strings.IndexByte(s[i+2:min(len(s), i+2+2048)], ')'); j >= 0 {
						href = strings.TrimSpace(s[i+2 : i+2+j])
						if k := strings.IndexByte(href, ' '); k >= 0 {
							href = href[:k]
						}
						return s[1:i], href, i + 3 + j
					}
				}
				return "", "", 0
			}
		}
	}
	return "", "", 0
}

// parseHTML walks the HTML tokens once. Block elements start new blocks;
// script, style, code and the like are skipped; the head's title and meta
// description are kept for when the request does not give them. It stops
// early when c is done.
func parseHTML(c *canceler, s string) parsed {
	p := parsed{format: "html"}
	z := html.NewTokenizer(strings.NewReader(s))
	b := newBuilder(s)
	kind, level := kindParagraph, 0
	skip := 0 // depth inside skipped elements
	itemDepth, cellDepth := 0, 0
	quote := 0 // depth inside blockquote
	inTitle := false
	var title strings.Builder
	var anchor *link
	var anchorText strings.Builder
	flush := func() {
		if !b.empty() {
			k := kind
			if quote > 0 && k == kindParagraph {
				k = kindQuote
			}
			p.blocks = append(p.blocks, b.take(k, level))
		} else {
			b.take(kind, 0)
		}
		kind, level = kindParagraph, 0
		// Inside a list item or a table cell, a nested <p> or <div> stays
		// part of the item or cell.
		switch {
		case cellDepth > 0:
			kind = kindTableCell
		case itemDepth > 0:
			kind = kindListItem
		}
	}
	pos := 0
	for {
		tt := z.Next()
		if c.done() {
			tt = html.ErrorToken
		}
		raw := string(z.Raw()) // copied: Text and TagAttr may change it
		start := pos
		pos += len(raw)
		switch tt {
		case html.ErrorToken:
			flush()
			p.title = strings.TrimSpace(title.String())
			p.pieces = b.pieces
			return p
		case html.TextToken:
			if skip > 0 {
				continue
			}
			txt := html.UnescapeString(raw)
			if inTitle {
				title.WriteString(txt)
				continue
			}
			if anchor != nil {
				anchorText.WriteString(txt)
			}
			if strings.TrimSpace(txt) == "" {
				b.space(start)
				continue
			}
			// Decode entities run by run so that every word keeps its exact
			// offset in the content.
			decodeRuns(raw, start, func(run string, orig int) {
				addWords(&b, run, orig)
			})
		case html.StartTagToken, html.SelfClosingTagToken, html.EndTagToken:
			name, hasAttr := z.TagName()
			a := atom.Lookup(name)
			var attrs map[string]string
			if hasAttr && (a == atom.Img || a == atom.A || a == atom.Meta) {
				attrs = map[string]string{}
				for {
					k, v, more := z.TagAttr()
					attrs[string(k)] = string(v)
					if !more {
						break
					}
				}
			}
			end := tt == html.EndTagToken
			switch a {
			case atom.Script, atom.Style, atom.Noscript, atom.Template, atom.Svg, atom.Pre, atom.Iframe, atom.Object, atom.Nav, atom.Select, atom.Textarea, atom.Button:
				if tt == html.SelfClosingTagToken {
					continue
				}
				if end {
					if skip > 0 {
						skip--
					}
				} else {
					skip++
				}
			case atom.Title:
				inTitle = !end && tt != html.SelfClosingTagToken
			case atom.Meta:
				if strings.EqualFold(attrs["name"], "description") {
					p.desc = strings.TrimSpace(attrs["content"])
				}
			case atom.Img:
				if skip == 0 {
					p.images = append(p.images, image{alt: strings.TrimSpace(attrs["alt"]), offset: start})
				}
			case atom.A:
				if skip > 0 {
					continue
				}
				if end {
					if anchor != nil {
						anchor.anchor = strings.Join(strings.Fields(anchorText.String()), " ")
						p.links = append(p.links, *anchor)
						anchor = nil
					}
				} else if tt == html.StartTagToken {
					anchor = &link{href: attrs["href"], offset: pos}
					anchorText.Reset()
				}
			case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
				flush()
				if !end {
					kind, level = kindHeading, int(name[1]-'0')
				}
			case atom.Li, atom.Dt, atom.Dd:
				if end {
					itemDepth = max(itemDepth-1, 0)
				} else if tt == html.StartTagToken {
					itemDepth++
				}
				flush()
			case atom.Td, atom.Th:
				if end {
					cellDepth = max(cellDepth-1, 0)
				} else if tt == html.StartTagToken {
					cellDepth++
				}
				flush()
			case atom.Figcaption, atom.Caption:
				flush()
				if !end {
					kind = kindCaption
				}
			case atom.Blockquote:
				flush()
				if end {
					if quote > 0 {
						quote--
					}
				} else {
					quote++
				}
			case atom.Br:
				b.space(start)
			case atom.P, atom.Div, atom.Section, atom.Article, atom.Main, atom.Header, atom.Footer, atom.Aside,
				atom.Ul, atom.Ol, atom.Dl, atom.Table, atom.Tr, atom.Figure, atom.Body, atom.Head, atom.Html,
				atom.Hr, atom.Form, atom.Details, atom.Summary, atom.Address:
				if kind == kindParagraph || end || a == atom.P {
					flush()
				}
			}
		}
	}
}

// decodeRuns calls fn for each run of raw HTML text, with character
// references decoded; orig is the run's offset in the content.
func decodeRuns(raw string, base int, fn func(run string, orig int)) {
	i := 0
	for i < len(raw) {
		j := strings.IndexByte(raw[i:], '&')
		if j < 0 {
			fn(raw[i:], base+i)
			return
		}
		if j > 0 {
			fn(raw[i:i+j], base+i)
		}
		i += j
		k := strings.IndexByte(raw[i:min(len(raw), i+40)], ';')
		if k < 0 {
			fn("&", base+i)
			i++
			continue
		}
		dec := html.UnescapeString(raw[i : i+k+1])
		if dec == "\u00a0" {
			dec = " "
		}
		fn(dec, base+i)
		i += k + 1
	}
}

// addWords adds the words of s to b, collapsing white space; orig is the
// content offset of s.
func addWords(b *builder, s string, orig int) {
	i := 0
	for i < len(s) {
		if isSpace(s[i]) {
			b.space(orig + i)
			for i < len(s) && isSpace(s[i]) {
				i++
			}
			continue
		}
		j := i
		for j < len(s) && !isSpace(s[j]) {
			j++
		}
		b.add(s[i:j], orig+i)
		i = j
	}
}

func isSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f' }
