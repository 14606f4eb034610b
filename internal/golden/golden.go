// Package golden compares what a test produced with a file recorded
// earlier (testdata/golden/...), so that a change of behaviour shows as a
// readable diff. SEOKIT_UPDATE_GOLDEN=1 records the files anew.
package golden

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Update reports whether golden files are to be recorded anew
// (SEOKIT_UPDATE_GOLDEN=1).
func Update() bool { return os.Getenv("SEOKIT_UPDATE_GOLDEN") == "1" }

// Compare compares got with the file at path, or writes it there when
// Update. A difference fails t with the lines that differ; where, when not
// nil, names the part of the file the first difference is in (it gets the
// recorded lines and the index of the first differing one).
func Compare(t testing.TB, path, got string, where func(want []string, i int) string) {
	t.Helper()
	if Update() {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (record the golden files with SEOKIT_UPDATE_GOLDEN=1)", err)
	}
	d, i := Diff(string(want), got)
	if d == "" {
		return
	}
	in := ""
	if where != nil {
		if w := where(strings.Split(string(want), "\n"), i); w != "" {
			in = " (first difference in " + w + ")"
		}
	}
	t.Errorf("behaviour changed: %s differs from the recorded output%s:\n%s\nif intended, rerun with SEOKIT_UPDATE_GOLDEN=1", path, in, d)
}

// Diff describes how got differs from want: the differing lines when both
// have as many lines, else the lines from the first difference on, with a
// little context; "" when they are equal. It also returns the index of the
// first differing line (-1 when equal).
func Diff(want, got string) (string, int) {
	if want == got {
		return "", -1
	}
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	i := 0
	for i < len(w) && i < len(g) && w[i] == g[i] {
		i++
	}
	var b strings.Builder
	for k := max(0, i-3); k < i; k++ {
		fmt.Fprintf(&b, "   %5d  %s\n", k+1, w[k])
	}
	if len(w) == len(g) {
		shown := 0
		for k := i; k < len(w) && shown < 12; k++ {
			if w[k] != g[k] {
				fmt.Fprintf(&b, " - %5d  %s\n + %5d  %s\n", k+1, w[k], k+1, g[k])
				shown++
			}
		}
	} else {
		for k := i; k < min(len(w), i+8); k++ {
			fmt.Fprintf(&b, " - %5d  %s\n", k+1, w[k])
		}
		for k := i; k < min(len(g), i+8); k++ {
			fmt.Fprintf(&b, " + %5d  %s\n", k+1, g[k])
		}
	}
	fmt.Fprintf(&b, "(want %d lines, got %d)", len(w), len(g))
	return b.String(), i
}

// Mask replaces, in a decoded JSON value (maps, slices and scalars as
// encoding/json makes them), the non-null value of every object key in
// keys with "<key>", at any depth, and returns v: what varies between
// runs (times, IDs, rates) then compares equal.
func Mask(v any, keys map[string]bool) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if keys[k] && e != nil {
				x[k] = "<" + k + ">"
				continue
			}
			x[k] = Mask(e, keys)
		}
	case []any:
		for i, e := range x {
			x[i] = Mask(e, keys)
		}
	}
	return v
}
