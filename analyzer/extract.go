package analyzer

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/antchfx/htmlquery"
	"github.com/antchfx/xpath"
	"golang.org/x/net/html"

	"github.com/seokit/seokit/seo"
)

// Kinds of Extractor.
const (
	ExtractCSS   = "css"
	ExtractXPath = "xpath"
	ExtractRegex = "regex"
)

// Outputs of Extractor.
const (
	OutputText      = "text"
	OutputInnerHTML = "inner_html"
	OutputOuterHTML = "outer_html"
	OutputAttr      = "attr"
	OutputCount     = "count"
)

// Caps of custom extraction and search, which take input from the users of
// an API: a configuration over them is an error, a page over them is cut
// and says so.
const (
	// MaxExtractors and MaxSearchRules cap Options.Extract and
	// Options.Search.
	MaxExtractors  = 20
	MaxSearchRules = 20
	// MaxPatternLen caps an extractor's expression and a search rule's text
	// or pattern, in bytes.
	MaxPatternLen = 1000
	// DefaultMaxValues is the values kept per extractor when
	// Extractor.MaxValues is zero; MaxMaxValues is the most it may ask.
	DefaultMaxValues = 10
	MaxMaxValues     = 100
	// MaxValueChars caps one extracted value, in characters; a longer value
	// is cut and ends in "…".
	MaxValueChars = 1000
	// MaxMatchCount caps the matches a regular expression counts on one
	// page (Extraction.Count, SearchMatch.Occurrences); a count that
	// reaches it is reported with CountCapped set.
	MaxMatchCount = 100_000
	// XPathBudget caps the node moves of one XPath evaluation on one page;
	// an expression that needs more gets Extraction.Error instead of values.
	XPathBudget = 5_000_000
	// maxHas caps the :has() pseudo-classes of a CSS selector, each of
	// which adds a pass over the tree (see CSSBudget).
	maxHas = 2
)

// Extractor pulls named values out of every analysed page: a CSS selector
// (goquery), an XPath expression (on the same parsed tree) or a regular
// expression (on the raw body). Its JSON form is the API's
// options.extract item. Selectors and expressions query the markup as
// parsed, the content of <template> elements included, as a regex on the
// raw body does: unlike the page's links and checks, which leave out an
// inert template's content, an extractor can read data a page keeps in one.
type Extractor struct {
	// Name names the values in reports and CSV columns: at most 64
	// characters, unique within a configuration.
	Name string `json:"name"`
	// Kind is "css", "xpath" or "regex".
	Kind string `json:"type"`
	// Expr is the selector, XPath expression or regular expression (Go's
	// RE2 syntax, which matches in time linear in the input: no pattern
	// backtracks catastrophically). A regex with a capturing group yields
	// its first group, else the whole match.
	Expr string `json:"expr"`
	// Attr is the attribute whose value is extracted (css and xpath); it
	// makes "attr" the default Output.
	Attr string `json:"attr,omitempty"`
	// Output is "text" (default: the text, white space collapsed),
	// "inner_html", "outer_html", "attr" or "count" (no values, only the
	// count). A regex extractor takes "text" or "count". An XPath
	// expression that yields a string, number or boolean yields it as its
	// one value.
	Output string `json:"output,omitempty"`
	// MaxValues caps the values kept; zero means 10, at most 100. Count
	// stays exact.
	MaxValues int `json:"max,omitempty"`

	c *compiledExtractor
}

type compiledExtractor struct {
	src Extractor // the fields compiled, to notice a changed copy
	css *cssGroup
	// xpath holds compiled copies of the expression: an *xpath.Expr keeps
	// evaluation state, so concurrent analyses (a crawl's pages) each take
	// their own.
	xpath *sync.Pool
	re    *budgetRegex
}

// Extraction is the result of one Extractor on one page.
type Extraction struct {
	Name string `json:"name"`
	// Values are the first MaxValues values, in document order (empty for
	// the "count" output).
	Values []string `json:"values"`
	// Count counts every match; Omitted the values not kept.
	Count   int `json:"count"`
	Omitted int `json:"omitted,omitempty"`
	// CountCapped says Count stopped at MaxMatchCount.
	CountCapped bool `json:"countCapped,omitempty"`
	// Error says why the extractor gave no values on this page: a
	// selector, XPath evaluation or regex over its budget (CSSBudget,
	// XPathBudget, RegexBudget), or an analysis that ran out of time;
	// Values and Count are then empty.
	Error string `json:"error,omitempty"`
}

// ParseExtractor parses the command-line form of an extractor:
// "NAME=css:SELECTOR", "NAME=css:SELECTOR@ATTRIBUTE", "NAME=xpath:EXPR" or
// "NAME=regex:PATTERN". A selector's attribute follows its last "@", which
// must not sit inside brackets. The result is validated (Compile).
func ParseExtractor(s string) (Extractor, error) {
	name, rest, ok := strings.Cut(s, "=")
	kind, expr, ok2 := strings.Cut(rest, ":")
	if !ok || !ok2 {
		return Extractor{}, &seo.InputError{Field: "extract", Value: s,
			Reason: "must be NAME=css:SELECTOR, NAME=css:SELECTOR@ATTRIBUTE, NAME=xpath:EXPR or NAME=regex:PATTERN"}
	}
	e := Extractor{Name: strings.TrimSpace(name), Kind: strings.ToLower(strings.TrimSpace(kind)), Expr: expr}
	if e.Kind == ExtractCSS {
		if i := strings.LastIndexByte(expr, '@'); i >= 0 && !strings.ContainsAny(expr[i:], "]\"'") {
			e.Expr, e.Attr = expr[:i], strings.TrimSpace(expr[i+1:])
		}
	}
	if err := e.compile("extract"); err != nil {
		return Extractor{}, err
	}
	return e, nil
}

// CompileExtractors validates list and returns a copy whose entries carry
// their compiled selectors and patterns, so that analyses sharing it (the
// pages of a crawl) compile them once; Analyze compiles entries that are
// not. Errors are *seo.InputError naming the field "extract[i].expr",
// "extract[i].name" ... (the API prefixes "options.").
func CompileExtractors(list []Extractor) ([]Extractor, error) {
	if len(list) > MaxExtractors {
		return nil, &seo.InputError{Field: "extract", Value: strconv.Itoa(len(list)),
			Reason: fmt.Sprintf("at most %d extractors", MaxExtractors)}
	}
	if len(list) == 0 {
		return nil, nil
	}
	out := make([]Extractor, len(list))
	seen := make(map[string]bool, len(list))
	for i, e := range list {
		field := fmt.Sprintf("extract[%d]", i)
		if err := e.compile(field); err != nil {
			return nil, err
		}
		if seen[e.Name] {
			return nil, &seo.InputError{Field: field + ".name", Value: e.Name, Reason: "names another extractor too; names must be unique"}
		}
		seen[e.Name] = true
		out[i] = e
	}
	return out, nil
}

// compile validates e and fills e.c, unless it holds e's fields compiled.
func (e *Extractor) compile(field string) error {
	if e.c != nil && e.c.src == e.key() {
		return nil
	}
	bad := func(f, v, reason string) error {
		return &seo.InputError{Field: field + "." + f, Value: v, Reason: reason}
	}
	if err := checkName(e.Name); err != nil {
		return bad("name", e.Name, err.Error())
	}
	if e.Expr == "" {
		return bad("expr", "", "is empty")
	}
	if len(e.Expr) > MaxPatternLen {
		return bad("expr", "", fmt.Sprintf("is %d bytes long; at most %d", len(e.Expr), MaxPatternLen))
	}
	if e.MaxValues < 0 || e.MaxValues > MaxMaxValues {
		return bad("max", strconv.Itoa(e.MaxValues), fmt.Sprintf("must be from 1 to %d (0 or absent means %d)", MaxMaxValues, DefaultMaxValues))
	}
	switch e.Output {
	case "", OutputText, OutputInnerHTML, OutputOuterHTML, OutputAttr, OutputCount:
	default:
		return bad("output", e.Output, `must be "text", "inner_html", "outer_html", "attr" or "count"`)
	}
	if e.Output == OutputAttr && e.Attr == "" {
		return bad("attr", "", `is required by output "attr"`)
	}
	c := &compiledExtractor{src: e.key()}
	var err error
	switch e.Kind {
	case ExtractCSS:
		if strings.Count(e.Expr, ":has(") > maxHas {
			return bad("expr", e.Expr, fmt.Sprintf("uses :has() more than %d times", maxHas))
		}
		if c.css, err = compileCSS(e.Expr); err != nil {
			return bad("expr", e.Expr, err.Error())
		}
	case ExtractXPath:
		x, err := xpath.Compile(e.Expr)
		if err != nil {
			return bad("expr", e.Expr, "is not a valid XPath expression: "+err.Error())
		}
		expr := e.Expr
		c.xpath = &sync.Pool{New: func() any {
			x, _ := xpath.Compile(expr) // compiled once above without error
			return x
		}}
		c.xpath.Put(x)
	case ExtractRegex:
		if e.Attr != "" {
			return bad("attr", e.Attr, "applies to css and xpath extractors only")
		}
		if e.Output != "" && e.Output != OutputText && e.Output != OutputCount {
			return bad("output", e.Output, `a regex extractor yields "text" or "count"`)
		}
		if c.re, err = compileRegex(e.Expr); err != nil {
			return bad("expr", e.Expr, err.Error())
		}
	default:
		return bad("type", e.Kind, `must be "css", "xpath" or "regex"`)
	}
	e.c = c
	return nil
}

// key is e without its compiled form.
func (e *Extractor) key() Extractor {
	k := *e
	k.c = nil
	return k
}

// checkName validates the name of an extractor or search rule.
func checkName(name string) error {
	switch {
	case strings.TrimSpace(name) == "":
		return fmt.Errorf("is empty")
	case utf8.RuneCountInString(name) > 64:
		return fmt.Errorf("is longer than 64 characters")
	case strings.ContainsFunc(name, func(r rune) bool { return r < 0x20 || r == 0x7f || r == utf8.RuneError }):
		return fmt.Errorf("holds control characters")
	}
	return nil
}

// runExtractors fills p.Report.Extracted. Each extractor runs on a
// budget (CSSBudget, XPathBudget, RegexBudget) and stops when ctx ends;
// one that does not finish gets Extraction.Error.
func runExtractors(ctx context.Context, p *Page) {
	list := p.cfg.Extract
	if len(list) == 0 {
		return
	}
	out := make([]Extraction, len(list))
	for i := range list {
		e := &list[i]
		max := e.MaxValues
		if max == 0 {
			max = DefaultMaxValues
		}
		x := Extraction{Name: e.Name}
		switch {
		case ctx.Err() != nil:
			x.Error = "not run: " + matcherReason(ctx.Err())
		case e.Kind == ExtractCSS:
			nodes, err := matchCSS(ctx, p.Doc, e.c.css)
			if err != nil {
				x.Error = matcherReason(err)
				break
			}
			x.Count = len(nodes)
			if e.output() != OutputCount {
				for _, n := range nodes[:min(max, len(nodes))] {
					x.Values = append(x.Values, seo.ClipTo(nodeValue(n, e), MaxValueChars))
				}
			}
		case e.Kind == ExtractXPath:
			x.Values, x.Count, x.Error = evalXPath(ctx, p.Doc, e, max)
		case e.Kind == ExtractRegex:
			var err error
			x.Values, x.Count, x.CountCapped, err = matchRegex(ctx, e.c.re, p.Body, max, e.output() != OutputCount)
			if err != nil {
				x.Error = matcherReason(err)
			}
		}
		if x.Values == nil {
			x.Values = []string{}
		}
		if e.output() != OutputCount && x.Error == "" {
			x.Omitted = x.Count - len(x.Values)
		}
		out[i] = x
	}
	p.Report.Extracted = out
}

// output returns e's output with its default.
func (e *Extractor) output() string {
	switch {
	case e.Output != "":
		return e.Output
	case e.Attr != "":
		return OutputAttr
	}
	return OutputText
}

// nodeValue renders n as e's output asks.
func nodeValue(n *html.Node, e *Extractor) string {
	switch e.output() {
	case OutputAttr:
		v, _ := Attr(n, e.Attr)
		return v
	case OutputInnerHTML:
		var sb strings.Builder
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			_ = html.Render(&sb, c)
		}
		return sb.String()
	case OutputOuterHTML:
		var sb strings.Builder
		_ = html.Render(&sb, n)
		return sb.String()
	}
	if n.Type == html.TextNode {
		return Collapse(n.Data)
	}
	return Collapse(TextContent(n))
}

// matcherReason words the error of a matcher stopped by its budget or
// its context for Extraction.Error and SearchMatch.Error.
func matcherReason(err error) string {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return "stopped: the analysis ran out of time"
	case errors.Is(err, context.Canceled):
		return "stopped: the analysis was canceled"
	}
	return err.Error()
}

// matchRegex counts the matches of re in body, up to MaxMatchCount, and
// returns the first max values (the first group when re has one) when
// values is set; it fails when re is over RegexBudget on body or ctx
// ends.
func matchRegex(ctx context.Context, re *budgetRegex, body []byte, max int, values bool) ([]string, int, bool, error) {
	locs, err := re.findAll(ctx, body, MaxMatchCount)
	if err != nil {
		return nil, 0, false, err
	}
	var out []string
	if values {
		for _, l := range locs[:min(max, len(locs))] {
			s, e := l[0], l[1]
			if len(l) >= 4 && l[2] >= 0 {
				s, e = l[2], l[3]
			}
			out = append(out, seo.ClipTo(strings.ToValidUTF8(string(body[s:e]), "\uFFFD"), MaxValueChars))
		}
	}
	return out, len(locs), len(locs) == MaxMatchCount, nil
}

// evalXPath evaluates e on the tree under doc with a budget of node moves.
func evalXPath(ctx context.Context, doc *html.Node, e *Extractor, max int) (values []string, count int, errMsg string) {
	nav := &budgetNav{NodeNavigator: htmlquery.CreateXPathNavigator(doc), st: &navState{ctx: ctx, left: XPathBudget}}
	defer func() {
		if r := recover(); r != nil {
			values, count, errMsg = nil, 0, fmt.Sprint("xpath evaluation failed: ", r)
		}
	}()
	over := func() bool { return nav.st.left < 0 || nav.st.err != nil }
	x := e.c.xpath.Get().(*xpath.Expr)
	defer e.c.xpath.Put(x)
	switch v := x.Evaluate(nav).(type) {
	case *xpath.NodeIterator:
		for v.MoveNext() {
			count++
			if len(values) < max && e.output() != OutputCount {
				values = append(values, seo.ClipTo(navValue(v.Current(), e), MaxValueChars))
			}
		}
	case string:
		count, values = 1, []string{seo.ClipTo(Collapse(v), MaxValueChars)}
	case float64:
		count, values = 1, []string{strconv.FormatFloat(v, 'f', -1, 64)}
	case bool:
		count, values = 1, []string{strconv.FormatBool(v)}
	}
	if nav.st.err != nil {
		return nil, 0, matcherReason(nav.st.err)
	}
	if over() {
		return nil, 0, fmt.Sprintf("xpath evaluation stopped after %d node visits", XPathBudget)
	}
	if e.output() == OutputCount {
		values = nil
	}
	return values, count, ""
}

// navValue renders the node at nav.
func navValue(nav xpath.NodeNavigator, e *Extractor) string {
	bn, _ := nav.(*budgetNav)
	if bn == nil {
		return Collapse(nav.Value())
	}
	switch nav.NodeType() {
	case xpath.AttributeNode, xpath.TextNode, xpath.CommentNode:
		return Collapse(nav.Value())
	}
	return nodeValue(bn.Current(), e)
}

// budgetNav is an XPath navigator over an x/net/html tree that fails every
// move once its shared budget of moves is spent or its context ended, so
// that no expression (such as //*//*//* on a large page) walks the tree
// for long.
type budgetNav struct {
	*htmlquery.NodeNavigator
	st *navState // shared by the copies of one evaluation
}

// navState is the budget of one XPath evaluation.
type navState struct {
	ctx   context.Context
	left  int
	since int
	err   error // the context's, once it ended
}

func (n *budgetNav) spend() bool {
	st := n.st
	st.left--
	if st.since++; st.since >= cssCheckEvery {
		st.since = 0
		if err := st.ctx.Err(); err != nil && st.err == nil {
			st.err = err
		}
	}
	return st.left >= 0 && st.err == nil
}

func (n *budgetNav) Copy() xpath.NodeNavigator {
	return &budgetNav{NodeNavigator: n.NodeNavigator.Copy().(*htmlquery.NodeNavigator), st: n.st}
}
func (n *budgetNav) MoveToParent() bool { return n.spend() && n.NodeNavigator.MoveToParent() }
func (n *budgetNav) MoveToNextAttribute() bool {
	return n.spend() && n.NodeNavigator.MoveToNextAttribute()
}
func (n *budgetNav) MoveToChild() bool    { return n.spend() && n.NodeNavigator.MoveToChild() }
func (n *budgetNav) MoveToFirst() bool    { return n.spend() && n.NodeNavigator.MoveToFirst() }
func (n *budgetNav) MoveToNext() bool     { return n.spend() && n.NodeNavigator.MoveToNext() }
func (n *budgetNav) MoveToPrevious() bool { return n.spend() && n.NodeNavigator.MoveToPrevious() }
func (n *budgetNav) MoveTo(o xpath.NodeNavigator) bool {
	if b, ok := o.(*budgetNav); ok {
		o = b.NodeNavigator
	}
	return n.spend() && n.NodeNavigator.MoveTo(o)
}
