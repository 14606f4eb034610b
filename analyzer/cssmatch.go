package analyzer

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/andybalholm/cascadia"
	"golang.org/x/net/html"
)

// CSS selectors come from the users of an API, and cascadia's matcher
// backtracks over combinators: a selector with k descendant or sibling
// combinators costs up to depth^k per element, which no deadline stops.
// seokit therefore compiles only compound selectors (one element's tests,
// such as "div.x[href]") with cascadia and runs the combinators, :not(),
// :has() and :haschild() itself, one pass over the elements in document
// order that remembers, for every element and every position of a
// selector, whether the selector's prefix matches there. Matching is then
// linear in elements times compounds, counted against CSSBudget and
// stopped by its context. The results are cascadia's.

// Caps of CSS selectors (Extractor.Expr of kind "css").
const (
	// CSSBudget caps the node visits of one CSS selector on one page: one
	// per element and compound of the selector, more for compounds whose
	// tests read more than the element (the text of :contains() and
	// :matches(), the siblings of :nth-child() and kin, the ancestors of
	// :lang(), the attributes of a "#=" regular expression). A selector
	// that needs more gets Extraction.Error instead of values.
	CSSBudget = 10_000_000
	// MaxCSSCompounds caps the compound selectors of one CSS expression,
	// those inside :not(), :has() and :haschild() included.
	MaxCSSCompounds = 32
	// MaxCSSNesting caps how deep :not(), :has() and :haschild() nest.
	MaxCSSNesting = 4
	// cssCheckEvery is how many node visits pass between two looks at
	// the context.
	cssCheckEvery = 4096
)

// errCSSBudget is the error of a selector over CSSBudget.
var errCSSBudget = fmt.Errorf("css selector stopped after %d node visits", CSSBudget)

// cssGroup is a compiled selector group: an element matches when one of
// its selectors matches.
type cssGroup struct {
	sels []cssComplex
}

// cssComplex is one selector: compounds joined by combinators.
type cssComplex struct {
	parts []cssCompound
	// combs[i] joins parts[i-1] and parts[i]: ' ', '>', '+' or '~';
	// combs[0] is unused.
	combs []byte
}

// cssCompound is one compound selector.
type cssCompound struct {
	// pre is the part before the first pseudo-class, tested before the
	// cost of an expensive pseudo-class is charged; nil when none.
	pre cascadia.Sel
	// sel is the compound without :not(), :has() and :haschild(); nil
	// matches every element.
	sel cascadia.Sel
	// cost says which of the element's surroundings sel reads.
	cost cssCost
	// not, has and hasChild are the groups of the compound's :not(),
	// :has() and :haschild().
	not, has, hasChild []*cssGroup
}

type cssCost uint8

const (
	costText     cssCost = 1 << iota // :contains, :matches (the subtree's text)
	costSiblings                     // :nth-*, :first-*, :last-*, :only-*
	costDepth                        // :lang (the ancestors)
	costAttrs                        // [a#=(re)] (attribute values)
)

// compileCSS compiles expr, a selector group cascadia accepts, into a
// budgeted matcher. Errors are the reason of an input error on the
// expression.
func compileCSS(expr string) (*cssGroup, error) {
	if _, err := cascadia.Compile(expr); err != nil {
		return nil, fmt.Errorf("is not a valid CSS selector: %w", err)
	}
	n := 0
	g, err := parseCSSGroup(expr, 0, &n)
	if err != nil {
		return nil, err
	}
	return g, nil
}

func parseCSSGroup(s string, depth int, count *int) (*cssGroup, error) {
	if depth > MaxCSSNesting {
		return nil, fmt.Errorf("nests :not(), :has() and :haschild() more than %d deep", MaxCSSNesting)
	}
	g := &cssGroup{}
	for _, one := range splitTop(s, ',') {
		cx, err := parseCSSComplex(strings.TrimSpace(one), depth, count)
		if err != nil {
			return nil, err
		}
		g.sels = append(g.sels, cx)
	}
	return g, nil
}

// parseCSSComplex splits one selector into compounds and combinators.
func parseCSSComplex(s string, depth int, count *int) (cssComplex, error) {
	var cx cssComplex
	comb := byte(0)
	start := -1
	flush := func(end int) error {
		if start < 0 {
			return nil
		}
		*count++
		if *count > MaxCSSCompounds {
			return fmt.Errorf("has more than %d compound selectors", MaxCSSCompounds)
		}
		c, err := parseCSSCompound(s[start:end], depth, count)
		if err != nil {
			return err
		}
		if len(cx.parts) > 0 && comb == 0 {
			comb = ' '
		}
		cx.parts = append(cx.parts, c)
		cx.combs = append(cx.combs, comb)
		comb, start = 0, -1
		return nil
	}
	sc := cssScanner{s: s}
	for sc.i < len(s) {
		ch := s[sc.i]
		if sc.top() && (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\f' || ch == '>' || ch == '+' || ch == '~') {
			if err := flush(sc.i); err != nil {
				return cx, err
			}
			if ch != ' ' && ch != '\t' && ch != '\n' && ch != '\r' && ch != '\f' {
				comb = ch
			}
			sc.i++
			continue
		}
		if start < 0 {
			start = sc.i
		}
		sc.step()
	}
	if err := flush(len(s)); err != nil {
		return cx, err
	}
	if len(cx.parts) == 0 {
		return cx, errors.New("is not a valid CSS selector: empty selector")
	}
	return cx, nil
}

// parseCSSCompound takes :not(), :has() and :haschild() out of a compound
// and compiles the rest with cascadia.
func parseCSSCompound(s string, depth int, count *int) (cssCompound, error) {
	var c cssCompound
	var rest strings.Builder
	sc := cssScanner{s: s}
	for sc.i < len(s) {
		if sc.top() && s[sc.i] == ':' && (sc.i+1 >= len(s) || s[sc.i+1] != ':') {
			name, argStart := pseudoName(s, sc.i+1)
			lname := strings.ToLower(name)
			if (lname == "not" || lname == "has" || lname == "haschild") && argStart < len(s) && s[argStart] == '(' {
				end := matchParen(s, argStart)
				if end < 0 {
					return c, errors.New("is not a valid CSS selector: unmatched '('")
				}
				g, err := parseCSSGroup(s[argStart+1:end], depth+1, count)
				if err != nil {
					return c, err
				}
				switch lname {
				case "not":
					c.not = append(c.not, g)
				case "has":
					c.has = append(c.has, g)
				default:
					c.hasChild = append(c.hasChild, g)
				}
				sc.i = end + 1
				continue
			}
		}
		from := sc.i
		sc.step()
		rest.WriteString(s[from:sc.i])
	}
	r := rest.String()
	if r != "" {
		sel, err := cascadia.Parse(r)
		if err != nil {
			return c, fmt.Errorf("is not a valid CSS selector: %w", err)
		}
		c.sel = sel
		low := strings.ToLower(r)
		if strings.Contains(low, ":contains") || strings.Contains(low, ":matches") {
			c.cost |= costText
		}
		if strings.Contains(low, "-child") || strings.Contains(low, "-of-type") {
			c.cost |= costSiblings
		}
		if strings.Contains(low, ":lang") {
			c.cost |= costDepth
		}
		if strings.Contains(low, "#=") {
			c.cost |= costAttrs
		}
		if c.cost != 0 {
			if i := firstPseudo(r); i > 0 && !strings.Contains(r[:i], "#=") {
				if pre, err := cascadia.Parse(r[:i]); err == nil {
					c.pre = pre
				}
			}
		}
	}
	return c, nil
}

// firstPseudo returns the index of the first ':' of s outside quotes,
// brackets and parentheses, -1 when none.
func firstPseudo(s string) int {
	sc := cssScanner{s: s}
	for sc.i < len(s) {
		if sc.top() && s[sc.i] == ':' {
			return sc.i
		}
		sc.step()
	}
	return -1
}

// pseudoName returns the identifier at s[i:] and the index after it.
func pseudoName(s string, i int) (string, int) {
	j := i
	for j < len(s) && (s[j] == '-' || s[j] == '_' || s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z' || s[j] >= '0' && s[j] <= '9') {
		j++
	}
	return s[i:j], j
}

// matchParen returns the index of the parenthesis closing the one at
// s[open], -1 when there is none.
func matchParen(s string, open int) int {
	sc := cssScanner{s: s, i: open}
	for sc.i < len(s) {
		sc.step()
		if sc.depth == 0 && sc.quote == 0 {
			return sc.i - 1
		}
	}
	return -1
}

// splitTop splits s at each sep outside quotes, brackets and parentheses.
func splitTop(s string, sep byte) []string {
	var out []string
	sc := cssScanner{s: s}
	from := 0
	for sc.i < len(s) {
		if sc.top() && s[sc.i] == sep {
			out = append(out, s[from:sc.i])
			sc.i++
			from = sc.i
			continue
		}
		sc.step()
	}
	return append(out, s[from:])
}

// cssScanner walks a selector a token at a time, tracking quotes,
// brackets, parentheses and escapes.
type cssScanner struct {
	s     string
	i     int
	depth int  // open brackets and parentheses
	quote byte // the open quote, 0 outside strings
}

// top reports whether the scanner is outside quotes, brackets and
// parentheses.
func (sc *cssScanner) top() bool { return sc.depth == 0 && sc.quote == 0 }

// step moves past one character, or one escape.
func (sc *cssScanner) step() {
	s := sc.s
	ch := s[sc.i]
	sc.i++
	switch {
	case ch == '\\':
		if sc.i < len(s) && isHex(s[sc.i]) {
			for k := 0; k < 6 && sc.i < len(s) && isHex(s[sc.i]); k++ {
				sc.i++
			}
			if sc.i < len(s) && (s[sc.i] == ' ' || s[sc.i] == '\t' || s[sc.i] == '\n') {
				sc.i++
			}
		} else if sc.i < len(s) {
			sc.i++
		}
	case sc.quote != 0:
		if ch == sc.quote {
			sc.quote = 0
		}
	case ch == '"' || ch == '\'':
		sc.quote = ch
	case ch == '[' || ch == '(':
		sc.depth++
	case ch == ']' || ch == ')':
		if sc.depth > 0 {
			sc.depth--
		}
	}
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// cssRun is one evaluation of a selector group on one tree. It holds
// every node of the tree, not only elements: cascadia tests text nodes
// and the document node too (":matches(x) span" is true of a span when
// the document's text holds x), and the results are its.
type cssRun struct {
	ctx context.Context
	// nodes lists the tree in document order, the document node first.
	nodes []*html.Node
	// parent is each node's parent; prev its previous sibling, adj the
	// one before it that is neither text nor a comment (the "+"
	// combinator's); -1 when none.
	parent, prev, adj []int32
	// out marks the nodes a match may return: the elements under the
	// root and the nodes inside them, as goquery's Find returns them.
	out []bool
	// siblings counts the children of each node's parent; depth is each
	// node's depth; text each node's subtree size in nodes plus its text
	// in bytes / 16 (filled when needed).
	siblings, depth, text []int32
	left, sinceCheck      int
	err                   error
}

// matchCSS returns the nodes under doc that g matches, in document order,
// as goquery's Find with the cascadia selector does, or an error when the
// selector needs more than CSSBudget node visits or ctx ends first.
func matchCSS(ctx context.Context, doc *html.Node, g *cssGroup) ([]*html.Node, error) {
	out, _, err := matchCSSVisits(ctx, doc, g, CSSBudget)
	return out, err
}

// matchCSSVisits is matchCSS with a budget, returning the node visits
// spent too.
func matchCSSVisits(ctx context.Context, doc *html.Node, g *cssGroup, budget int) ([]*html.Node, int, error) {
	r := &cssRun{ctx: ctx, left: budget}
	r.walk(doc)
	if r.err != nil {
		return nil, budget - r.left, r.err
	}
	m := r.group(g)
	if r.err != nil {
		return nil, budget - r.left, r.err
	}
	var out []*html.Node
	for i := range int32(len(r.nodes)) {
		if m.has(i) && r.out[i] {
			out = append(out, r.nodes[i])
		}
	}
	return out, budget - r.left, nil
}

// walk lists the nodes of the tree at doc in document order with their
// relations, one visit each.
func (r *cssRun) walk(doc *html.Node) {
	type frame struct {
		n      *html.Node
		parent int32
		out    bool
	}
	stack := []frame{{doc, -1, false}}
	var lastChild []int32 // by node: its latest child so far, -1 when none
	for len(stack) > 0 {
		f := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if !r.spend(1) {
			return
		}
		i := int32(len(r.nodes))
		r.nodes = append(r.nodes, f.n)
		r.parent = append(r.parent, f.parent)
		r.out = append(r.out, f.out)
		lastChild = append(lastChild, -1)
		r.siblings = append(r.siblings, 0) // children, for now
		prev, adj, depth := int32(-1), int32(-1), int32(0)
		if f.parent >= 0 {
			prev = lastChild[f.parent]
			lastChild[f.parent] = i
			r.siblings[f.parent]++
			depth = r.depth[f.parent] + 1
			for adj = prev; adj >= 0; adj = r.prev[adj] {
				if t := r.nodes[adj].Type; t != html.TextNode && t != html.CommentNode {
					break
				}
			}
		}
		r.prev = append(r.prev, prev)
		r.adj = append(r.adj, adj)
		r.depth = append(r.depth, depth)
		for c := f.n.LastChild; c != nil; c = c.PrevSibling {
			stack = append(stack, frame{c, i, f.out || (i == 0 && c.Type == html.ElementNode)})
		}
	}
	// r.siblings counts each node's children: turn it into the children
	// of each node's parent.
	kids := r.siblings
	r.siblings = make([]int32, len(r.nodes))
	for i, p := range r.parent {
		if p >= 0 {
			r.siblings[i] = kids[p]
		}
	}
}

// spend counts n node visits; false once the budget is spent or the
// context ended, with r.err saying which.
func (r *cssRun) spend(n int) bool {
	if r.err != nil {
		return false
	}
	r.left -= n
	if r.left < 0 {
		r.err = errCSSBudget
		return false
	}
	r.sinceCheck += n
	if r.sinceCheck >= cssCheckEvery {
		r.sinceCheck = 0
		if err := r.ctx.Err(); err != nil {
			r.err = err
			return false
		}
	}
	return true
}

// group evaluates g on every node.
func (r *cssRun) group(g *cssGroup) bitset {
	out := newBitset(len(r.nodes))
	for _, cx := range g.sels {
		m := r.complex(&cx)
		if r.err != nil {
			return out
		}
		for w := range m {
			out[w] |= m[w]
		}
	}
	return out
}

// complex evaluates one selector on every element: in document order, a
// parent and a previous sibling come before the element, so each
// position's match there is known.
func (r *cssRun) complex(cx *cssComplex) bitset {
	k, n := len(cx.parts), len(r.nodes)
	parts := make([]compoundEval, k)
	for j := range cx.parts {
		parts[j] = r.prepare(&cx.parts[j])
		if r.err != nil {
			return nil
		}
	}
	// match[j][i]: node i matches parts[0..j] as joined.
	// anc[j][i]: some ancestor of i matches parts[0..j].
	// sib[j][i]: some previous sibling of i matches parts[0..j].
	// Bit sets: a large page times the compounds stays a few megabytes.
	match := make([]bitset, k)
	anc := make([]bitset, k)
	sib := make([]bitset, k)
	for j := range k {
		match[j] = newBitset(n)
		if j+1 < k && cx.combs[j+1] == ' ' {
			anc[j] = newBitset(n)
		}
		if j+1 < k && cx.combs[j+1] == '~' {
			sib[j] = newBitset(n)
		}
	}
	for i := range n {
		p, s, a := r.parent[i], r.prev[i], r.adj[i]
		for j := range k {
			if !r.spend(1) {
				return nil
			}
			if anc[j] != nil && p >= 0 && (match[j].has(p) || anc[j].has(p)) {
				anc[j].set(int32(i))
			}
			if sib[j] != nil && s >= 0 && (match[j].has(s) || sib[j].has(s)) {
				sib[j].set(int32(i))
			}
			ok := true
			if j > 0 {
				switch cx.combs[j] {
				case ' ':
					ok = anc[j-1].has(int32(i))
				case '>':
					ok = p >= 0 && match[j-1].has(p)
				case '+':
					ok = a >= 0 && match[j-1].has(a)
				case '~':
					ok = sib[j-1].has(int32(i))
				}
			}
			if ok {
				ok = r.test(&parts[j], int32(i))
				if r.err != nil {
					return nil
				}
			}
			if ok {
				match[j].set(int32(i))
			}
		}
	}
	return match[k-1]
}

// bitset is a set of node indices.
type bitset []uint64

func newBitset(n int) bitset      { return make(bitset, (n+63)/64) }
func (b bitset) has(i int32) bool { return b[i>>6]&(1<<(i&63)) != 0 }
func (b bitset) set(i int32)      { b[i>>6] |= 1 << (i & 63) }

// compoundEval is a compound with its nested groups evaluated.
type compoundEval struct {
	c                  *cssCompound
	not, has, hasChild []bitset
}

// prepare evaluates the groups of c's :not(), :has() and :haschild() on
// every element, turning :has() into "some descendant matches" and
// :haschild() into "some child matches".
func (r *cssRun) prepare(c *cssCompound) compoundEval {
	e := compoundEval{c: c}
	for _, g := range c.not {
		e.not = append(e.not, r.group(g))
	}
	for _, g := range c.has {
		m := r.group(g)
		if r.err != nil {
			return e
		}
		// Children follow their parent in document order: going
		// backwards, every descendant is settled before its ancestor.
		d := newBitset(len(r.nodes))
		for i := int32(len(r.nodes) - 1); i >= 0; i-- {
			if p := r.parent[i]; p >= 0 && (m.has(i) || d.has(i)) {
				d.set(p)
			}
		}
		e.has = append(e.has, d)
	}
	for _, g := range c.hasChild {
		m := r.group(g)
		if r.err != nil {
			return e
		}
		d := newBitset(len(r.nodes))
		for i := range int32(len(r.nodes)) {
			if p := r.parent[i]; p >= 0 && m.has(i) {
				d.set(p)
			}
		}
		e.hasChild = append(e.hasChild, d)
	}
	if !r.spend(len(r.nodes) * (len(c.has) + len(c.hasChild))) {
		return e
	}
	return e
}

// test reports whether element i matches the compound e.
func (r *cssRun) test(e *compoundEval, i int32) bool {
	for _, m := range e.not {
		if m.has(i) {
			return false
		}
	}
	for _, m := range e.has {
		if !m.has(i) {
			return false
		}
	}
	for _, m := range e.hasChild {
		if !m.has(i) {
			return false
		}
	}
	c := e.c
	n := r.nodes[i]
	if c.sel == nil || len(e.not)+len(e.has)+len(e.hasChild) > 0 {
		// :not(), :has() and :haschild() test elements only.
		if n.Type != html.ElementNode {
			return false
		}
	}
	if c.sel == nil {
		return true
	}
	if c.cost != 0 {
		if c.pre != nil && !c.pre.Match(n) {
			return false
		}
		if !r.spend(r.cost(c.cost, i)) {
			return false
		}
	}
	return c.sel.Match(n)
}

// cost returns the node visits of testing element i against a compound
// that reads what cost says.
func (r *cssRun) cost(cost cssCost, i int32) int {
	v := 1
	if cost&costSiblings != 0 {
		v += int(r.siblings[i])
	}
	if cost&costDepth != 0 {
		v += int(r.depth[i])
	}
	if cost&costText != 0 {
		if r.text == nil {
			r.measureText()
		}
		v += int(r.text[i])
	}
	if cost&costAttrs != 0 {
		for _, a := range r.nodes[i].Attr {
			v += 1 + len(a.Val)/16
		}
	}
	return v
}

// measureText fills r.text: each node's subtree in nodes plus its text
// in bytes / 16, what cascadia reads to test its text. Children follow
// their parent in document order, so going backwards settles each
// subtree before its parent.
func (r *cssRun) measureText() {
	r.text = make([]int32, len(r.nodes))
	for i := len(r.nodes) - 1; i >= 0; i-- {
		v := int64(r.text[i]) + 1
		if n := r.nodes[i]; n.Type == html.TextNode {
			v += int64(len(n.Data)) / 16
		}
		v = min(v, 1<<30)
		r.text[i] = int32(v)
		if p := r.parent[i]; p >= 0 {
			r.text[p] = int32(min(int64(r.text[p])+v, 1<<30))
		}
	}
}
