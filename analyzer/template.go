package analyzer

import (
	"strconv"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

func init() {
	registerExtractor(func(p *Page) {
		p.Report.Template = TemplateFingerprint(p.BodyEl)
	})
}

// Template fingerprint limits.
const (
	// templateDepth is how many element levels below <body> the walk reads.
	templateDepth = 12
	// templateClasses is how many class tokens of an element count.
	templateClasses = 4
	// templateNodes caps the elements hashed.
	templateNodes = 2000
)

// templateLayout reports the elements a template skeleton keeps even
// without a class or id: the blocks a page layout is built of.
func templateLayout(a atom.Atom) bool {
	switch a {
	case atom.Div, atom.Header, atom.Nav, atom.Main, atom.Article, atom.Section, atom.Aside, atom.Footer, atom.Form:
		return true
	}
	return false
}

// templateList reports the containers whose items the skeleton ignores.
func templateList(a atom.Atom) bool {
	switch a {
	case atom.Ul, atom.Ol, atom.Dl, atom.Table, atom.Select, atom.Datalist:
		return true
	}
	return false
}

// templateSkip reports the elements the skeleton ignores with their
// content: nothing a visitor sees as layout.
func templateSkip(a atom.Atom) bool {
	switch a {
	case atom.Script, atom.Style, atom.Noscript, atom.Template, atom.Link, atom.Meta, atom.Svg, atom.Math:
		return true
	}
	return false
}

// TemplateFingerprint returns the template fingerprint of a document whose
// <body> element is body: 12 lowercase hex digits that pages built from the
// same page template share (two product pages of a shop) and pages of
// different templates do not (a product page, a category page, an
// article); "" when body is nil. The rule is in the package
// documentation (Template fingerprints).
func TemplateFingerprint(body *html.Node) string {
	if body == nil {
		return ""
	}
	t := templateHasher{h: fnvOffset64}
	t.mix(elementSignature(body))
	t.children(body, 1)
	return strconv.FormatUint(t.h>>16|1<<48, 16)[1:]
}

// templateHasher hashes a skeleton with FNV-1a.
type templateHasher struct {
	h     uint64
	nodes int
}

func (t *templateHasher) mix(v uint64) {
	for range 8 {
		t.h = (t.h ^ (v & 0xff)) * fnvPrime64
		v >>= 8
	}
}

// children hashes the skeleton of n's child elements at the given depth:
// each kept element's signature, then its own children between markers,
// consecutive elements of one signature once.
func (t *templateHasher) children(n *html.Node, depth int) {
	if depth > templateDepth {
		return
	}
	var last uint64
	for c := n.FirstChild; c != nil && t.nodes < templateNodes; c = c.NextSibling {
		if c.Type != html.ElementNode || c.Namespace != "" || templateSkip(c.DataAtom) {
			continue
		}
		if !templateLayout(c.DataAtom) && !hasClassOrID(c) {
			continue
		}
		sig := elementSignature(c)
		if sig == last {
			continue // a repeated sibling: one item of a list
		}
		last = sig
		t.nodes++
		t.mix(sig)
		if templateList(c.DataAtom) {
			continue
		}
		t.mix('(')
		t.children(c, depth+1)
		t.mix(')')
	}
}

// hasClassOrID reports whether n has a class or id attribute that is not
// blank.
func hasClassOrID(n *html.Node) bool {
	for _, a := range n.Attr {
		if a.Namespace == "" && (a.Key == "class" || a.Key == "id") && strings.TrimSpace(a.Val) != "" {
			return true
		}
	}
	return false
}

// elementSignature hashes the tag name, the id and the first
// templateClasses class tokens of n, with digits removed.
func elementSignature(n *html.Node) uint64 {
	h := sigString(fnvOffset64, '<', n.Data)
	for _, a := range n.Attr {
		if a.Namespace != "" {
			continue
		}
		switch a.Key {
		case "id":
			h = sigString(h, '#', strings.TrimSpace(a.Val))
		case "class":
			h = sigClasses(h, a.Val)
		}
	}
	return h
}

// sigString mixes prefix and the bytes of s other than digits into h.
func sigString(h uint64, prefix byte, s string) uint64 {
	h = (h ^ uint64(prefix)) * fnvPrime64
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < '0' || c > '9' {
			h = (h ^ uint64(c)) * fnvPrime64
		}
	}
	return h
}

// sigClasses mixes into h the first templateClasses class names of a
// class attribute that are not all digits. ASCII values, the common case,
// are split in place.
func sigClasses(h uint64, v string) uint64 {
	kept := 0
	if !isASCII(v) {
		for _, tok := range strings.Fields(v) {
			if kept == templateClasses {
				break
			}
			if allDigits(tok) {
				continue
			}
			kept++
			h = sigString(h, '.', tok)
		}
		return h
	}
	for i := 0; i < len(v) && kept < templateClasses; {
		for i < len(v) && isASCIISpace(v[i]) {
			i++
		}
		j := i
		for j < len(v) && !isASCIISpace(v[j]) {
			j++
		}
		tok := v[i:j]
		i = j
		if allDigits(tok) {
			continue
		}
		kept++
		h = sigString(h, '.', tok)
	}
	return h
}
