package analyzer

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/andybalholm/cascadia"
	"golang.org/x/net/html"
)

// nestedDivs is n nested divs with a span.x in the innermost, after a p.
func nestedDivs(n int) string {
	return "<!doctype html><html><body><p>intro</p>" + strings.Repeat(`<div class="d">`, n) +
		`<span class="x">deep</span>` + strings.Repeat("</div>", n) + "</body></html>"
}

// siblingDivs is a p then n sibling divs.
func siblingDivs(n int) string {
	var sb strings.Builder
	sb.WriteString("<!doctype html><html><body><p>intro</p>")
	for i := range n {
		fmt.Fprintf(&sb, `<div class="s%d">%d</div><!-- c -->text`, i%3, i)
	}
	sb.WriteString("</body></html>")
	return sb.String()
}

func parseDoc(t *testing.T, s string) *html.Node {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(s))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// cascadiaMatches is what goquery and cascadia select, the reference.
func cascadiaMatches(doc *html.Node, expr string) []*html.Node {
	return goquery.NewDocumentFromNode(doc).FindMatcher(cascadia.MustCompile(expr)).Nodes
}

// TestCSSSameAsCascadia compares the budgeted matcher with cascadia's on
// selectors of every kind, on pages small enough for cascadia.
func TestCSSSameAsCascadia(t *testing.T) {
	t.Parallel()
	shop, err := os.ReadFile("testdata/extract/shop.html")
	if err != nil {
		t.Fatal(err)
	}
	docs := map[string]string{
		"shop":     string(shop),
		"nested":   nestedDivs(12),
		"siblings": siblingDivs(30),
		"mixed": `<html lang="fr"><body><ul><li>a</li><li class="x">b<ul><li>c</li><li lang="en">d</li></ul></li><li>e</li></ul>
<table><tr><td>1</td><td>2</td></tr></table><div id="a1"><p>one</p><p title="t, u">two (2)</p><p title="a:b">two</p><span>s</span><p>three</p></div>
<section><h2>Title</h2><p>Para <a href="/x">x</a></p><p><a href="https://e.com/">e</a></p></section><div class="a b"></div></body></html>`,
	}
	sels := []string{
		"p", "*", "div span", "div > span", "p + div", "p ~ div", "body > div > div", ".product .price",
		".product:nth-of-type(3) .price", "span.price b", "main > div.product + div.product > span.sku",
		"li li", "ul > li:first-child", "li:last-child", "li:nth-child(2n+1)", "ul li:only-child", "li ~ li",
		"li + li + li", ":not(p)", "div :not(span)", "*:not(p div div)", "li:not(.x) > ul", "p:not(:first-child)",
		"div:has(p)", "div:has(> p)", "section:has(a[href^=https])", ":haschild(td) td", "ul:has(li li)",
		"li:has(li[lang=en])", `p:contains("two")`, `p:containsown(one)`, `:matches(^t)`, `li:lang(en)`, `li:lang(fr)`,
		"[title='t, u']", `p[title="t, u"], span`, "h2, p a, td + td", "div.a.b", "#a1 > p:nth-of-type(2)",
		"div div div div div div span.x", "p div div div span.x", "p ~ div ~ div ~ div", "div ~ div + div ~ div.s1",
		"*:not(p div div div)", "div.d:not(:has(span))", ":root > body", "html :empty", "a[href]:not([href^=http])",
		"td:nth-last-child(1)", "li:nth-of-type(odd)", "div[class~=b]", `[href*=e\.]`, "span.x:only-of-type",
		"ul :not(li > ul) > li", "body > *:has(:contains(b))",
	}
	for dname, d := range docs {
		doc := parseDoc(t, d)
		for _, s := range sels {
			if _, err := cascadia.Compile(s); err != nil {
				continue // not a selector cascadia takes
			}
			g, err := compileCSS(s)
			if err != nil {
				t.Errorf("%s: compile: %v", s, err)
				continue
			}
			got, err := matchCSS(context.Background(), doc, g)
			if err != nil {
				t.Errorf("%s on %s: %v", s, dname, err)
				continue
			}
			want := cascadiaMatches(doc, s)
			if !sameNodes(got, want) {
				t.Errorf("%s on %s: got %d nodes %v, cascadia %d %v", s, dname, len(got), tags(got), len(want), tags(want))
			}
		}
	}
}

func sameNodes(a, b []*html.Node) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func tags(ns []*html.Node) []string {
	var out []string
	for _, n := range ns[:min(len(ns), 8)] {
		out = append(out, n.Data)
	}
	return out
}

// TestCSSBombs runs the selectors that make cascadia backtrack for
// minutes on the pages that trigger them. The work is bounded by the
// elements times the compounds of the selector (node visits, counted by
// the matcher), not by the depth to the power of the combinators.
func TestCSSBombs(t *testing.T) {
	t.Parallel()
	deep := "p" + strings.Repeat(" div", 20) + " span.x"
	cases := []struct {
		name, page, expr string
		want             int // matches
	}{
		{"descendants on 500 nested divs", nestedDivs(500), deep, 0},
		{"descendants that match", nestedDivs(500), "body" + strings.Repeat(" div", 20) + " span.x", 1},
		{"siblings on 200 divs", siblingDivs(200), "p ~ div ~ div ~ div ~ div", 197},
		{"siblings on 1,000 divs", siblingDivs(1000), "p ~ div ~ div ~ div ~ div", 997},
		{"negated descendants at depth 40", nestedDivs(40), "*:not(p div div div div div div div div div)", 45},
		{"nested has", nestedDivs(500), "div:has(div:has(span.x))", 499},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g, err := compileCSS(c.expr)
			if err != nil {
				t.Fatal(err)
			}
			compounds := countCompounds(g)
			doc := parseDoc(t, c.page)
			nodes := countNodes(doc)
			got, visits, err := matchCSSVisits(context.Background(), doc, g, CSSBudget)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != c.want {
				t.Errorf("%d matches, want %d", len(got), c.want)
			}
			// One visit to list each node, one per node and compound,
			// and one per node for each :has().
			bound := nodes * (1 + 2*compounds)
			t.Logf("%s: %d nodes, %d compounds, %d node visits (bound %d)", c.expr, nodes, compounds, visits, bound)
			if visits > bound {
				t.Errorf("%d node visits, more than %d", visits, bound)
			}
		})
	}
}

func countNodes(n *html.Node) int {
	c := 1
	for k := n.FirstChild; k != nil; k = k.NextSibling {
		c += countNodes(k)
	}
	return c
}

func countCompounds(g *cssGroup) int {
	n := 0
	for _, cx := range g.sels {
		for _, p := range cx.parts {
			n++
			for _, list := range [][]*cssGroup{p.not, p.has, p.hasChild} {
				for _, sub := range list {
					n += countCompounds(sub)
				}
			}
		}
	}
	return n
}

// TestCSSBudget shows a selector over its budget failing with the
// budget's error after spending it, whatever the machine's speed.
func TestCSSBudget(t *testing.T) {
	t.Parallel()
	// :contains reads the text of every candidate's subtree: on 500
	// nested divs that is about 500²/2 node visits.
	doc := parseDoc(t, nestedDivs(500))
	g, err := compileCSS("div:contains(deep)")
	if err != nil {
		t.Fatal(err)
	}
	const budget = 50_000
	_, visits, err := matchCSSVisits(context.Background(), doc, g, budget)
	if !errors.Is(err, errCSSBudget) {
		t.Fatalf("err %v, want the budget's", err)
	}
	// The last test charged may overshoot by one subtree.
	t.Logf("stopped after %d node visits (budget %d)", visits, budget)
	if visits > budget+countNodes(doc) {
		t.Errorf("spent %d node visits, budget %d", visits, budget)
	}
	// The same selector on a page it can afford answers as cascadia.
	small := parseDoc(t, nestedDivs(100))
	got, err := matchCSS(context.Background(), small, g)
	if err != nil || !sameNodes(got, cascadiaMatches(small, "div:contains(deep)")) {
		t.Errorf("small page: %d nodes, %v", len(got), err)
	}
}

// countingCtx is a context whose Err reports cancellation from its n-th
// call on, so a test stops a matcher at a known point of its work.
type countingCtx struct {
	context.Context
	calls, after atomic.Int64
}

func (c *countingCtx) Err() error {
	if c.calls.Add(1) >= c.after.Load() {
		return context.Canceled
	}
	return nil
}

// TestMatchersHonourContext cancels each kind of matcher in the middle of
// its work: it stops at its next look at the context, with the context's
// error.
func TestMatchersHonourContext(t *testing.T) {
	t.Parallel()
	doc := parseDoc(t, siblingDivs(5000))
	g, err := compileCSS("p ~ div ~ div ~ div ~ div")
	if err != nil {
		t.Fatal(err)
	}
	ctx := &countingCtx{Context: context.Background()}
	ctx.after.Store(3)
	_, visits, err := matchCSSVisits(ctx, doc, g, CSSBudget)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("css: err %v, want canceled", err)
	}
	if visits > 3*cssCheckEvery+1 {
		t.Errorf("css: %d node visits after cancellation at the third look (every %d)", visits, cssCheckEvery)
	}

	re, err := compileRegex(`(?:\w?){100}z`)
	if err != nil {
		t.Fatal(err)
	}
	text := []byte(strings.Repeat("abcdefgh ", 10_000))
	rctx := &countingCtx{Context: context.Background()}
	rctx.after.Store(2)
	_, err = re.findAll(rctx, text, MaxMatchCount)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("regex: err %v, want canceled", err)
	}
	if n := rctx.calls.Load(); n > 3 {
		t.Errorf("regex: looked at the context %d times after it ended", n-2)
	}

	xctx := &countingCtx{Context: context.Background()}
	xctx.after.Store(2)
	e := Extractor{Name: "x", Kind: ExtractXPath, Expr: "//div//div//div"}
	if err := e.compile("x"); err != nil {
		t.Fatal(err)
	}
	_, _, msg := evalXPath(xctx, parseDoc(t, nestedDivs(300)), &e, 10)
	if !strings.Contains(msg, "canceled") {
		t.Errorf("xpath: error %q, want a cancellation", msg)
	}
}

// TestRegexSameAsRegexp compares the budgeted regex search, which reads
// a rune at a time, with regexp's own search for successive matches,
// including anchors, word boundaries, empty matches and invalid UTF-8.
func TestRegexSameAsRegexp(t *testing.T) {
	t.Parallel()
	texts := []string{
		"", "abc", "a\nb\nc\n", "foo bar  baz\tfoo", "ééa\xffb\xfe", "aaa", "<h1>One</h1> <h1>Two</h1>",
		strings.Repeat("price: 12 € ", 50),
	}
	pats := []string{
		`a*`, `x*`, `^`, `$`, `(?m)^\w`, `\b\w+\b`, `\B`, `^a`, `(?m)$`, `\A.`, `.\z`, `<h1>(.*?)</h1>`,
		`(?i)FOO`, `é`, `[^\x00-\x7f]`, `(\d+) €`, `b|`, `(a)(b)?`, `price`, `\s+`,
	}
	for _, s := range texts {
		for _, p := range pats {
			b, err := compileRegex(p)
			if err != nil {
				t.Fatal(err)
			}
			got, err := b.findAll(context.Background(), []byte(s), MaxMatchCount)
			if err != nil {
				t.Fatal(err)
			}
			want := b.re.FindAllSubmatchIndex([]byte(s), MaxMatchCount)
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%q in %q: got %v, regexp %v", p, s, got, want)
			}
		}
	}
}

// TestRegexBudget shows a regex stopped once its searches have read the
// runes its budget allows, whether one search reads much (a large
// program) or many searches each read to the end of the text.
func TestRegexBudget(t *testing.T) {
	defer func(old int64) { regexBudget = old }(regexBudget)
	regexBudget = 2_000_000
	re, err := compileRegex(`(?:\w?){990}z`)
	if err != nil {
		t.Fatal(err)
	}
	text := []byte(strings.Repeat("word ", 10_000))
	_, err = re.findAll(context.Background(), text, MaxMatchCount)
	if err == nil || !strings.Contains(err.Error(), "budget") {
		t.Errorf("err %v, want the budget's", err)
	}
	t.Log(err)
	if _, err := compileRegex(`(?:\w?){1000}(?:\d?){1000}`); err == nil {
		t.Error("a program over MaxRegexInsts compiled")
	}
	// Successive matches that each read to the end of the text read
	// len(text) runes per match: the count stops them.
	greedy, err := compileRegex(`a(?:.*z)?`)
	if err != nil {
		t.Fatal(err)
	}
	long := []byte(strings.Repeat("a", 20_000)) // 20,000² / 2 runes
	_, err = greedy.findAll(context.Background(), long, MaxMatchCount)
	if err == nil || !strings.Contains(err.Error(), "budget") {
		t.Errorf("err %v, want the budget's", err)
	}
	t.Log(err)
	// A pattern with a literal prefix reads only from each occurrence.
	h1, err := compileRegex(`<h1>(.*?)</h1>`)
	if err != nil {
		t.Fatal(err)
	}
	page := []byte(strings.Repeat("<p>filler text</p>", 200_000) + "<h1>Title</h1>")
	locs, err := h1.findAll(context.Background(), page, MaxMatchCount)
	if err != nil || len(locs) != 1 {
		t.Errorf("h1 on %d bytes: %v, %v", len(page), locs, err)
	}
}

// TestAnalysisReportsBudgetErrors runs matchers over their budgets
// through a whole analysis: each gets its error in the report, the
// others their values, and the analysis completes.
func TestAnalysisReportsBudgetErrors(t *testing.T) {
	defer func(old int64) { regexBudget = old }(regexBudget)
	regexBudget = 1_000_000
	page := siblingDivs(20_000)
	rep := analyzeString(t, page, "", nil, &Options{Depth: Basic,
		Extract: []Extractor{
			{Name: "nth", Kind: ExtractCSS, Expr: "div:nth-child(2n)"},
			{Name: "bomb", Kind: ExtractRegex, Expr: `(?:\w?){100}z`},
			{Name: "ok", Kind: ExtractCSS, Expr: "p ~ div.s1 + div", Output: OutputCount},
		},
		Search: []SearchRule{{Name: "bomb", Contains: true, Regex: `(?:\w?){100}z`}, {Name: "ok", Contains: true, Text: "intro"}},
	})
	x := rep.Extracted
	if len(x) != 3 || !strings.Contains(x[0].Error, "node visits") || !strings.Contains(x[1].Error, "budget") || x[2].Error != "" || x[2].Count != 6666 {
		t.Errorf("extracted %+v", x)
	}
	s := rep.Search
	if len(s) != 2 || !strings.Contains(s[0].Error, "budget") || s[0].Matched || s[1].Error != "" || !s[1].Matched {
		t.Errorf("search %+v", s)
	}
}
