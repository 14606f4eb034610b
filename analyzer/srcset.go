package analyzer

import (
	"iter"
	"strconv"
	"strings"
)

// SrcsetCandidates yields the URLs of a srcset value's image candidates as
// the HTML Standard parses them
// (https://html.spec.whatwg.org/multipage/images.html#parsing-a-srcset-attribute):
// a URL runs to the next white space, commas included (CDNs write
// "w_300,h_200" in paths), and loses only its trailing commas; its
// descriptors run to the next comma outside parentheses. A candidate whose
// descriptors are invalid ("2x 3x", "big", "0w") is dropped, as browsers
// drop it: they never load it.
func SrcsetCandidates(s string) iter.Seq[string] {
	return func(yield func(string) bool) {
		i := 0
		for {
			for i < len(s) && (isHTMLSpace(s[i]) || s[i] == ',') {
				i++
			}
			if i >= len(s) {
				return
			}
			start := i
			for i < len(s) && !isHTMLSpace(s[i]) {
				i++
			}
			u := s[start:i]
			var d srcsetDescs
			if t := strings.TrimRight(u, ","); len(t) < len(u) {
				u = t // no descriptors
			} else {
				i = d.read(s, i)
			}
			if d.valid() && u != "" && !yield(u) {
				return
			}
		}
	}
}

// srcsetDescs checks a candidate's descriptors as they are read: at most
// one width ("300w", a positive integer) or one density ("1.5x", a
// non-negative number), and a height ("200h") only beside a width.
type srcsetDescs struct{ w, x, h, bad bool }

// read tokenizes the descriptors of a candidate starting at s[i:] up to
// the comma that ends the candidate (not one inside parentheses), checking
// each, and returns the index after that comma.
func (d *srcsetDescs) read(s string, i int) int {
	for i < len(s) && isHTMLSpace(s[i]) {
		i++
	}
	start, parens := i, false
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case parens:
			parens = c != ')'
		case c == '(':
			parens = true
		case c == ',':
			d.add(s[start:i])
			return i + 1
		case isHTMLSpace(c):
			d.add(s[start:i])
			start = i + 1
		}
	}
	d.add(s[start:])
	return len(s)
}

// add checks one descriptor ("" between two spaces is none).
func (d *srcsetDescs) add(desc string) {
	if desc == "" {
		return
	}
	v := desc[:len(desc)-1]
	switch desc[len(desc)-1] {
	case 'w':
		d.bad = d.bad || d.w || d.x || !positiveInt(v)
		d.w = true
	case 'x':
		d.bad = d.bad || d.w || d.x || d.h || !validFloat(v)
		if f, err := strconv.ParseFloat(v, 64); err != nil || f < 0 {
			d.bad = true
		}
		d.x = true
	case 'h':
		d.bad = d.bad || d.h || d.x || !positiveInt(v)
		d.h = true
	default:
		d.bad = true
	}
}

// valid reports whether the descriptors read make a candidate browsers
// keep.
func (d *srcsetDescs) valid() bool { return !d.bad && (!d.h || d.w) }

// positiveInt reports whether s is a valid non-negative integer (ASCII
// digits) above zero.
func positiveInt(s string) bool {
	return s != "" && allDigits(s) && strings.TrimLeft(s, "0") != ""
}

// validFloat reports whether s is a valid floating-point number by the HTML
// Standard
// (https://html.spec.whatwg.org/multipage/common-microsyntaxes.html#valid-floating-point-number):
// an optional "-", digits, a "." followed by digits, or both, then an
// optional exponent.
func validFloat(s string) bool {
	s = strings.TrimPrefix(s, "-")
	mant, exp, hasExp := s, "", false
	if j := strings.IndexAny(s, "eE"); j >= 0 {
		mant, exp, hasExp = s[:j], s[j+1:], true
	}
	ip, fp, hasDot := strings.Cut(mant, ".")
	if !allDigits(ip) || !allDigits(fp) || (ip == "" && fp == "") || (hasDot && fp == "") {
		return false
	}
	if !hasExp {
		return true
	}
	if exp != "" && (exp[0] == '+' || exp[0] == '-') {
		exp = exp[1:]
	}
	return exp != "" && allDigits(exp)
}
