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
			ok := true
			if t := strings.TrimRight(u, ","); len(t) < len(u) {
				u = t // no descriptors
			} else {
				var descs []string
				descs, i = srcsetDescriptors(s, i)
				ok = srcsetDescriptorsValid(descs)
			}
			if ok && u != "" && !yield(u) {
				return
			}
		}
	}
}

// srcsetDescriptors tokenizes the descriptors of a candidate starting at
// s[i:] up to the comma that ends the candidate (not one inside
// parentheses), returning them and the index after that comma.
func srcsetDescriptors(s string, i int) ([]string, int) {
	var descs []string
	for i < len(s) && isHTMLSpace(s[i]) {
		i++
	}
	start, parens := i, false
	flush := func(end int) {
		if end > start {
			descs = append(descs, s[start:end])
		}
	}
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case parens:
			parens = c != ')'
		case c == '(':
			parens = true
		case c == ',':
			flush(i)
			return descs, i + 1
		case isHTMLSpace(c):
			flush(i)
			start = i + 1
		}
	}
	flush(len(s))
	return descs, len(s)
}

// srcsetDescriptorsValid reports whether a candidate's descriptors are
// valid: at most one width ("300w", a positive integer) or one density
// ("1.5x", a non-negative number), and a height ("200h") only beside a
// width.
func srcsetDescriptorsValid(descs []string) bool {
	var w, x, h bool
	for _, d := range descs {
		v := d[:len(d)-1]
		switch d[len(d)-1] {
		case 'w':
			if w || x || !positiveInt(v) {
				return false
			}
			w = true
		case 'x':
			if w || x || h || !validFloat(v) {
				return false
			}
			if f, err := strconv.ParseFloat(v, 64); err != nil || f < 0 {
				return false
			}
			x = true
		case 'h':
			if h || x || !positiveInt(v) {
				return false
			}
			h = true
		default:
			return false
		}
	}
	return !h || w
}

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
