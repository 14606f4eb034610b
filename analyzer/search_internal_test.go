package analyzer

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

// TestLiteralCountMatchesRegexp checks that the byte search of a literal
// rule counts what regexp's FindAllIndex counts, case folding (the Kelvin
// sign folds to k, ſ to s) and invalid UTF-8 included.
func TestLiteralCountMatchesRegexp(t *testing.T) {
	t.Parallel()
	exprs := []string{`(?i)lorem ipsum`, `(?i)k`, `(?i)sS`, `(?i)straße`, `(?i)aa`, `lorem`, `(?i)é`, `(?i)Ω`}
	bodies := []string{
		"", "Lorem Ipsum lorem ipsum LOREM IPSUM", "loreM ipſum", "\u212a k K", "sſSs",
		"STRASSE straße STRAẞE", "aaaaa", "\xe2\x82lorem\xffipsum \xff", "É é e\u0301", "ω Ω Ω",
	}
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"l", "L", "o", "r", "e", "m", " ", "i", "p", "s", "S", "ſ", "u", "M", "k", "\u212a", "a", "\xff", "é", "É", "ß", "t"}
	for range 300 {
		var sb strings.Builder
		for range rng.IntN(60) {
			sb.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		bodies = append(bodies, sb.String())
	}
	for _, expr := range exprs {
		l := literalOf(expr)
		if l == nil {
			t.Fatalf("%q: not taken as a literal", expr)
		}
		re := regexp.MustCompile(expr)
		for _, b := range bodies {
			if got, want := l.count([]byte(b)), len(re.FindAllIndex([]byte(b), MaxMatchCount)); got != want {
				t.Errorf("%q in %q: %d matches, regexp finds %d", expr, b, got, want)
			}
		}
	}
	for _, expr := range []string{`lorem|ipsum`, `(?i)a(?-i)b`, `a+`, `^a`, `\bword\b`} {
		if literalOf(expr) != nil {
			t.Errorf("%q taken as a literal", expr)
		}
	}
}

func BenchmarkSearchFoldLiteral(b *testing.B) {
	body := []byte(strings.Repeat("<p>Some text of a generated page, with lorem words and Ipsum. </p>\n", 300))
	re := regexp.MustCompile(`(?i)lorem ipsum`)
	l := literalOf(re.String())
	b.Run("regexp", func(b *testing.B) {
		for b.Loop() {
			re.FindAllIndex(body, MaxMatchCount)
		}
	})
	b.Run("literal", func(b *testing.B) {
		for b.Loop() {
			l.count(body)
		}
	})
}
