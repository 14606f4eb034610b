package golden_test

import (
	"strings"
	"testing"

	"github.com/seokit/seokit/internal/golden"
)

func TestDiff(t *testing.T) {
	for _, tc := range []struct {
		name, want, got string
		first           int
		has             []string
	}{
		{"equal", "a\nb", "a\nb", -1, nil},
		{"one line changed", "a\nb\nc", "a\nB\nc", 1, []string{" -     2  b", " +     2  B", "(want 3 lines, got 3)"}},
		{"line added", "a\nb", "a\nx\nb", 1, []string{" -     2  b", " +     2  x", " +     3  b", "(want 2 lines, got 3)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, i := golden.Diff(tc.want, tc.got)
			if i != tc.first || (tc.has == nil) != (d == "") {
				t.Fatalf("Diff: first %d, diff %q; want first %d", i, d, tc.first)
			}
			for _, h := range tc.has {
				if !strings.Contains(d, h) {
					t.Errorf("diff %q lacks %q", d, h)
				}
			}
		})
	}
}

func TestMask(t *testing.T) {
	v := map[string]any{"at": "2026-01-01", "n": 1.0, "none": nil,
		"list": []any{map[string]any{"at": "x", "keep": "y"}}}
	golden.Mask(v, map[string]bool{"at": true, "none": true})
	inner := v["list"].([]any)[0].(map[string]any)
	if v["at"] != "<at>" || v["n"] != 1.0 || v["none"] != nil || inner["at"] != "<at>" || inner["keep"] != "y" {
		t.Errorf("Mask: %v", v)
	}
}
