package analyzer

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"regexp/syntax"
	"unicode/utf8"
)

// Regular expressions are RE2, so their time is linear in the text, but
// the factor is the size of the compiled program: a pattern such as
// (?:\w?){999} runs a thousand threads over every byte, minutes on a
// 15 MB page, and Go's regexp cannot be interrupted. seokit caps the
// program and runs every search a rune at a time through a reader that
// counts the runes against a budget and watches the context.

// Caps of user regular expressions (regex extractors, search rules,
// segments).
const (
	// MaxRegexInsts caps the compiled program of one regular expression,
	// in instructions; a larger one is refused as input.
	MaxRegexInsts = 2000
	// RegexBudget caps the work of one regular expression on one text:
	// the runes its searches read (a search skips to the pattern's literal
	// prefix, when it has one, without reading) times the program's
	// instructions plus one. A regex over it gets Extraction.Error
	// (SearchMatch.Error) instead of a result.
	RegexBudget = 50_000_000
	// regexCheckEvery is how many runes pass between two looks at the
	// context.
	regexCheckEvery = 16 << 10
)

// errRegexCanceled and errRegexBudget stop a regex read by its context
// or its budget.
var (
	errRegexCanceled = errors.New("regex canceled")
	errRegexBudget   = errors.New("regex over budget")
)

// CompileRegexp compiles a user regular expression as the analyzer's
// matchers do: RE2 syntax, a program of at most MaxRegexInsts
// instructions. It returns the program's size, the factor of its work
// (bytes times instructions) that budgets weigh. Errors read as the
// reason of an input error ("is not a valid regular expression: ...").
func CompileRegexp(expr string) (*regexp.Regexp, int, error) {
	b, err := compileRegex(expr)
	if err != nil {
		return nil, 0, err
	}
	return b.re, b.insts, nil
}

// budgetRegex is a compiled user regex with what its budget needs.
type budgetRegex struct {
	re    *regexp.Regexp
	insts int
	// tail is `\A(?s:.)(?s:.*?)(re)`: run from the rune before a position,
	// it finds re's first match from that position with the rune before
	// it as context, as regexp's own search for successive matches does.
	tail *regexp.Regexp
}

// compileRegex compiles expr and checks its size; the error is the
// reason of an input error.
func compileRegex(expr string) (*budgetRegex, error) {
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, fmt.Errorf("is not a valid regular expression: %w", err)
	}
	parsed, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil, fmt.Errorf("is not a valid regular expression: %w", err)
	}
	prog, err := syntax.Compile(parsed.Simplify())
	if err != nil {
		return nil, fmt.Errorf("is not a valid regular expression: %w", err)
	}
	if len(prog.Inst) > MaxRegexInsts {
		return nil, fmt.Errorf("compiles to %d instructions; at most %d (fewer repetitions or alternatives)", len(prog.Inst), MaxRegexInsts)
	}
	tail, err := regexp.Compile(`\A(?s:.)(?s:.*?)(` + expr + `)`)
	if err != nil {
		return nil, fmt.Errorf("is not a valid regular expression: %w", err)
	}
	return &budgetRegex{re: re, insts: len(prog.Inst), tail: tail}, nil
}

// regexBudget is RegexBudget, lowered by tests.
var regexBudget int64 = RegexBudget

// findAll returns the submatch indices of the first max successive
// matches of b in text, as regexp's FindAllSubmatchIndex does, or an
// error when the work is over RegexBudget or ctx ends first. Every search
// reads text a rune at a time (after skipping to the pattern's literal
// prefix, when it has one), so the runes read, which bound the work, are
// counted, and the context is watched while regexp runs.
func (b *budgetRegex) findAll(ctx context.Context, text []byte, max int) ([][]int, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	prefix, _ := b.re.LiteralPrefix()
	rd := &ctxReader{ctx: ctx, text: text, left: regexBudget / int64(b.insts+1)}
	var out [][]int
	for pos, prevEnd := 0, -1; len(out) < max && pos <= len(text); {
		from := pos
		if prefix != "" {
			i := bytes.Index(text[pos:], []byte(prefix))
			if i < 0 {
				break
			}
			from = pos + i
		}
		m, err := b.next(rd, from)
		if err != nil {
			return nil, err
		}
		if m == nil {
			break
		}
		accept := true
		if m[1] == pos {
			if m[0] == prevEnd {
				accept = false // no empty match right after a match
			}
			if pos < len(text) {
				_, size := utf8.DecodeRune(text[pos:])
				pos += size
			} else {
				pos++
			}
		} else {
			pos = m[1]
		}
		prevEnd = m[1]
		if accept {
			out = append(out, m)
		}
	}
	return out, nil
}

// next finds the first match at or after pos, reading text a rune at a
// time.
func (b *budgetRegex) next(rd *ctxReader, pos int) (m []int, err error) {
	defer func() {
		if r := recover(); r != nil {
			switch r {
			case errRegexCanceled:
				m, err = nil, rd.ctx.Err()
			case errRegexBudget:
				m, err = nil, fmt.Errorf("regex stopped after reading %d runes with a %d-instruction pattern (budget %d runes × instructions)", rd.n, b.insts, regexBudget)
			default:
				panic(r)
			}
		}
	}()
	if pos == 0 {
		rd.reset(0)
		return b.re.FindReaderSubmatchIndex(rd), nil
	}
	_, size := utf8.DecodeLastRune(rd.text[:pos])
	start := pos - size
	rd.reset(start)
	t := b.tail.FindReaderSubmatchIndex(rd)
	if t == nil {
		return nil, nil
	}
	m = t[2:] // tail's own group 1 is re's whole match
	for i := range m {
		if m[i] >= 0 {
			m[i] += start
		}
	}
	return m, nil
}

// ctxReader reads text from a position a rune at a time and panics with
// errRegexCanceled once its context ends, or errRegexBudget once it read
// left runes, which is how a search inside regexp stops.
type ctxReader struct {
	ctx   context.Context
	text  []byte
	i     int
	n     int64 // runes read
	left  int64 // runes it may read
	since int
}

func (r *ctxReader) reset(at int) { r.i = at }

func (r *ctxReader) ReadRune() (rune, int, error) {
	if r.i >= len(r.text) {
		return 0, 0, io.EOF
	}
	r.n++
	if r.n > r.left {
		panic(errRegexBudget)
	}
	if r.since++; r.since >= regexCheckEvery {
		r.since = 0
		if r.ctx.Err() != nil {
			panic(errRegexCanceled)
		}
	}
	c, size := utf8.DecodeRune(r.text[r.i:])
	r.i += size
	return c, size, nil
}
