package analyzer

import (
	"testing"

	"golang.org/x/net/html/atom"
)

// skipTextRef and chromeRef are the sets skipsText answers from: the
// elements whose text is never main text, and the page furniture left
// out when the page has no <main> or single <article>.
var (
	skipTextRef = map[atom.Atom]bool{
		atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Template: true,
		atom.Svg: true, atom.Math: true, atom.Iframe: true, atom.Object: true,
		atom.Select: true, atom.Textarea: true, atom.Button: true, atom.Head: true,
	}
	chromeRef = map[atom.Atom]bool{atom.Nav: true, atom.Header: true, atom.Footer: true, atom.Aside: true}
)

// allAtoms lists every atom the html/atom package defines, found by
// decoding each offset and length of its name table and keeping those
// that Lookup maps back to themselves.
func allAtoms() []atom.Atom {
	var as []atom.Atom
	for off := uint32(0); off < 1<<14; off++ {
		for n := uint32(1); n < 32; n++ {
			a := atom.Atom(off<<8 | n)
			if s := a.String(); s != "" && atom.Lookup([]byte(s)) == a {
				as = append(as, a)
			}
		}
	}
	return as
}

// TestSkipsTextMatchesSets holds skipsText's switch to the sets over every
// atom and the zero atom of an unknown tag, with and without page chrome.
func TestSkipsTextMatchesSets(t *testing.T) {
	t.Parallel()
	as := append(allAtoms(), 0)
	if len(as) < 300 {
		t.Fatalf("found %d atoms; the atom table was not decoded", len(as))
	}
	for _, a := range as {
		for _, drop := range []bool{false, true} {
			want := skipTextRef[a] || (drop && chromeRef[a])
			if got := skipsText(a, drop); got != want {
				t.Errorf("skipsText(%v, %v) = %v, want %v", a, drop, got, want)
			}
		}
	}
}
