package keywords_test

import (
	"strings"
	"testing"

	"github.com/seokit/seokit/keywords"
)

// FoldCase replaces the three copies the data sources and reports had
// (lowercase, then white space runs as one space): the table holds the
// inputs where a fast path or a Unicode rule could tell them apart.
func TestFoldCase(t *testing.T) {
	t.Parallel()
	cases := []struct{ in, want string }{
		{"", ""},
		{"running shoes", "running shoes"},
		{"Running  Shoes", "running shoes"},
		{"  running\tshoes\n", "running shoes"},
		{"running shoes ", "running shoes"},
		{"a\x00b", "a\x00b"},
		{"Straße Café", "straße café"},
		{"a\u00a0b", "a b"}, // no-break space is white space
		{"ÉCOLE", "école"},
		{"c++ vs c#", "c++ vs c#"},
	}
	for _, tc := range cases {
		if got := keywords.FoldCase(tc.in); got != tc.want {
			t.Errorf("FoldCase(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if old := strings.ToLower(strings.Join(strings.Fields(tc.in), " ")); old != tc.want {
			t.Errorf("%q: the former fold gives %q, FoldCase %q", tc.in, old, tc.want)
		}
	}
}
