package analyzer

import (
	"bytes"
	"context"
	"fmt"
	"regexp/syntax"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/seokit/seokit/seo"
)

// Places a SearchRule looks in.
const (
	SearchHTML = "html" // the raw body
	SearchText = "text" // the main text (Page.MainText)
)

// SearchRule is a "contains" or "does not contain" test run on every
// analysed page. Its JSON form is the API's options.search item.
type SearchRule struct {
	// Name names the rule in reports and CSV columns: at most 64
	// characters, unique within a configuration.
	Name string `json:"name"`
	// Contains is true for a rule met when the page contains Text or
	// Regex, false for one met when it does not.
	Contains bool `json:"contains"`
	// Text is searched for literally (case-sensitive); Regex is a regular
	// expression (RE2 syntax, linear-time; "(?i)" ignores case). Exactly
	// one is set.
	Text  string `json:"text,omitempty"`
	Regex string `json:"regex,omitempty"`
	// In is "html" (default: the raw body) or "text" (the main text, white
	// space collapsed).
	In string `json:"in,omitempty"`

	re *budgetRegex
	// lit counts the matches of a Regex that is one literal (with or
	// without "(?i)") without the regexp machine.
	lit *literal
}

// SearchMatch is the outcome of one SearchRule on one page.
type SearchMatch struct {
	Name string `json:"name"`
	// Matched says the rule is met: the page contains the text (a
	// "contains" rule) or does not (a "does not contain" rule).
	Matched bool `json:"matched"`
	// Occurrences counts the occurrences found, up to MaxMatchCount.
	Occurrences int `json:"occurrences"`
	// Error says why the rule was not decided on this page (a regex over
	// RegexBudget, an analysis out of time); Matched and Occurrences are
	// then false and zero and mean nothing.
	Error string `json:"error,omitempty"`
}

// ParseSearchRule parses the command-line form of a search rule:
// "NAME=contains:TEXT", "NAME=!contains:TEXT", "NAME=regex:PATTERN" or
// "NAME=!regex:PATTERN", searching the raw HTML; "text-contains",
// "!text-contains", "text-regex" and "!text-regex" search the main text.
func ParseSearchRule(s string) (SearchRule, error) {
	name, rest, ok := strings.Cut(s, "=")
	op, arg, ok2 := strings.Cut(rest, ":")
	if !ok || !ok2 {
		return SearchRule{}, &seo.InputError{Field: "search", Value: s,
			Reason: "must be NAME=contains:TEXT, NAME=!contains:TEXT, NAME=regex:PATTERN or NAME=!regex:PATTERN (text-contains, text-regex search the main text)"}
	}
	r := SearchRule{Name: strings.TrimSpace(name), Contains: true, In: SearchHTML}
	op = strings.TrimSpace(op)
	if strings.HasPrefix(op, "!") {
		r.Contains, op = false, op[1:]
	}
	if strings.HasPrefix(op, "text-") {
		r.In, op = SearchText, op[len("text-"):]
	}
	switch op {
	case "contains":
		r.Text = arg
	case "regex":
		r.Regex = arg
	default:
		return SearchRule{}, &seo.InputError{Field: "search", Value: s, Reason: `the operator must be contains, regex, text-contains or text-regex, optionally preceded by "!"`}
	}
	if err := r.compile("search"); err != nil {
		return SearchRule{}, err
	}
	return r, nil
}

// CompileSearchRules validates list and returns a copy whose regular
// expressions are compiled, as CompileExtractors does; errors name the field
// "search[i].regex" ....
func CompileSearchRules(list []SearchRule) ([]SearchRule, error) {
	if len(list) > MaxSearchRules {
		return nil, &seo.InputError{Field: "search", Value: strconv.Itoa(len(list)),
			Reason: fmt.Sprintf("at most %d search rules", MaxSearchRules)}
	}
	if len(list) == 0 {
		return nil, nil
	}
	out := make([]SearchRule, len(list))
	seen := make(map[string]bool, len(list))
	for i, r := range list {
		field := fmt.Sprintf("search[%d]", i)
		if err := r.compile(field); err != nil {
			return nil, err
		}
		if seen[r.Name] {
			return nil, &seo.InputError{Field: field + ".name", Value: r.Name, Reason: "names another search rule too; names must be unique"}
		}
		seen[r.Name] = true
		out[i] = r
	}
	return out, nil
}

func (r *SearchRule) compile(field string) error {
	bad := func(f, v, reason string) error {
		return &seo.InputError{Field: field + "." + f, Value: v, Reason: reason}
	}
	if err := checkName(r.Name); err != nil {
		return bad("name", r.Name, err.Error())
	}
	switch r.In {
	case "", SearchHTML, SearchText:
	default:
		return bad("in", r.In, `must be "html" or "text"`)
	}
	switch {
	case (r.Text == "") == (r.Regex == ""):
		return bad("text", "", "give exactly one of text and regex")
	case len(r.Text) > MaxPatternLen:
		return bad("text", "", fmt.Sprintf("is %d bytes long; at most %d", len(r.Text), MaxPatternLen))
	case len(r.Regex) > MaxPatternLen:
		return bad("regex", "", fmt.Sprintf("is %d bytes long; at most %d", len(r.Regex), MaxPatternLen))
	}
	if r.Regex != "" && (r.re == nil || r.re.re.String() != r.Regex) {
		re, err := compileRegex(r.Regex)
		if err != nil {
			return bad("regex", r.Regex, err.Error())
		}
		r.re, r.lit = re, literalOf(r.Regex)
	}
	return nil
}

// runSearch fills p.Report.Search. A regex runs on RegexBudget and stops
// when ctx ends; its rule then gets SearchMatch.Error.
func runSearch(ctx context.Context, p *Page) {
	list := p.cfg.Search
	if len(list) == 0 {
		return
	}
	out := make([]SearchMatch, len(list))
	var text []byte
	for i := range list {
		r := &list[i]
		hay := p.Body
		if r.In == SearchText {
			if text == nil {
				text = []byte(p.MainText)
			}
			hay = text
		}
		if err := ctx.Err(); err != nil {
			out[i] = SearchMatch{Name: r.Name, Error: "not run: " + matcherReason(err)}
			continue
		}
		n := 0
		if r.lit != nil {
			n = r.lit.count(hay)
		} else if r.re != nil {
			locs, err := r.re.findAll(ctx, hay, MaxMatchCount)
			if err != nil {
				out[i] = SearchMatch{Name: r.Name, Error: matcherReason(err)}
				continue
			}
			n = len(locs)
		} else {
			n = countBytes(hay, []byte(r.Text))
		}
		out[i] = SearchMatch{Name: r.Name, Matched: (n > 0) == r.Contains, Occurrences: n}
	}
	p.Report.Search = out
}

// countBytes counts the non-overlapping occurrences of sep in b, up to
// MaxMatchCount.
func countBytes(b, sep []byte) int {
	n := 0
	for n < MaxMatchCount {
		i := bytes.Index(b, sep)
		if i < 0 {
			break
		}
		n++
		b = b[i+len(sep):]
	}
	return n
}

// literal is a regular expression that matches one literal string,
// case-sensitively or as "(?i)" does (each rune matching the runes of its
// unicode.SimpleFold orbit), counted with byte searches instead of the
// regexp machine, which scans a page for "(?i)lorem ipsum" many times more
// slowly.
type literal struct {
	text  []byte   // the literal, when it matches case-sensitively
	runes [][]rune // else each rune's orbit, in order
	first []byte   // and the first bytes of the first rune's orbit
}

// literalOf returns the literal matcher of expr, nil when expr is not a
// plain literal.
func literalOf(expr string) *literal {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil
	}
	re = re.Simplify()
	if re.Op != syntax.OpLiteral || len(re.Rune) == 0 {
		return nil
	}
	if re.Flags&syntax.FoldCase == 0 {
		return &literal{text: []byte(string(re.Rune))}
	}
	l := &literal{}
	for i, r := range re.Rune {
		if r == utf8.RuneError {
			return nil // invalid bytes of the body decode to it
		}
		orbit := []rune{r}
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			orbit = append(orbit, f)
		}
		l.runes = append(l.runes, orbit)
		if i == 0 {
			for _, o := range orbit {
				l.first = append(l.first, string(o)[0])
			}
		}
	}
	return l
}

// count counts the non-overlapping matches of l in b, leftmost first, up
// to MaxMatchCount, as regexp's FindAllIndex does.
func (l *literal) count(b []byte) int {
	if l.text != nil {
		return countBytes(b, l.text)
	}
	// next[j] is the next index of l.first[j] at or after pos; -1 when
	// there is none, -2 before the first search.
	var buf [4]int
	next := buf[:0]
	for range l.first {
		next = append(next, -2)
	}
	n, pos := 0, 0
	for n < MaxMatchCount {
		at := -1
		for j, c := range l.first {
			if next[j] != -1 && next[j] < pos {
				if i := bytes.IndexByte(b[pos:], c); i >= 0 {
					next[j] = pos + i
				} else {
					next[j] = -1
				}
			}
			if next[j] >= 0 && (at < 0 || next[j] < at) {
				at = next[j]
			}
		}
		if at < 0 {
			break
		}
		if end, ok := l.matchAt(b, at); ok {
			n, pos = n+1, end
		} else {
			pos = at + 1
		}
	}
	return n
}

// matchAt reports whether l matches b at i, and where the match ends.
func (l *literal) matchAt(b []byte, i int) (int, bool) {
	for _, orbit := range l.runes {
		if i >= len(b) {
			return 0, false
		}
		r, w := rune(b[i]), 1
		if r >= utf8.RuneSelf {
			r, w = utf8.DecodeRune(b[i:])
		}
		found := false
		for _, o := range orbit {
			if o == r {
				found = true
				break
			}
		}
		if !found {
			return 0, false
		}
		i += w
	}
	return i, true
}
