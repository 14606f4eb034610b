package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestOptimizeOutputAgrees: the text output never rates a score good
// next to an error, says when the reading ease was not computed, and its
// keyphrase line quotes the density and range its findings quote.
func TestOptimizeOutputAgrees(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	optimize := func(args ...string) string {
		var out, errOut bytes.Buffer
		if err := run(context.Background(), append([]string{"optimize"}, args...), &out, &errOut); err != nil {
			t.Fatalf("optimize %v: %v\n%s", args, err, errOut.String())
		}
		return out.String()
	}

	out := optimize("-keyword", "green tea", write("readme.txt", "Green tea is ..."))
	if first, _, _ := strings.Cut(out, "\n"); first != "SEO score 40/100 (bad, capped by content.empty)   readability not computed (too little text)" {
		t.Errorf("README example:\n%s", out)
	}
	if !strings.Contains(out, "reading ease: not computed (too little text)") {
		t.Errorf("README example, reading ease:\n%s", out)
	}

	out = optimize("-locale", "pl-PL", "-keyword", "kawa", write("pl.txt", strings.Repeat("Kawa jest gorąca i lubię ją pić rano z przyjaciółmi. ", 8)))
	if !strings.Contains(out, "reading ease: not computed (no reading-ease formula for this language)") {
		t.Errorf("Polish text:\n%s", out)
	}
	// No readability score stands on the structural checks alone.
	if first, _, _ := strings.Cut(out, "\n"); !strings.HasSuffix(first, "readability not computed (no full support for this language)") {
		t.Errorf("Polish text, scores: %s", first)
	}

	// Japanese is not counted in words: no density, no sentence length in
	// words, and the summary says so.
	ja := "緑茶は日本の伝統的な飲み物で、毎日多くの人に飲まれています。緑茶には健康に良い成分がたくさん含まれていると言われています。茶葉の産地によって味や香りが大きく異なるのも魅力の一つです。朝の一杯の緑茶は気分をすっきりさせてくれます。ぜひ自分に合ったお茶を探してみてください。"
	out = optimize("-locale", "ja-JP", "-keyword", "緑茶", write("ja.txt", ja))
	for _, want := range []string{"5 sentences (27.0 characters each)", "words not counted (the language has no spaces between words)", `keyphrase "緑茶": 3 uses, density not computed`} {
		if !strings.Contains(out, want) {
			t.Errorf("Japanese text lacks %q:\n%s", want, out)
		}
	}
	for _, bad := range []string{"keyphrase.", "sentence_too_long", "content.too_short", "。 "} {
		if strings.Contains(out, bad) {
			t.Errorf("Japanese text has %q:\n%s", bad, out)
		}
	}

	// 8 uses of a two-word keyphrase in 288 words: more than the range.
	var b strings.Builder
	for i := range 20 {
		b.WriteString("We walk to the market on a sunny morning and buy fresh bread. ")
		if i%5 == 0 || i%5 == 3 {
			b.WriteString("Green tea tastes best with it. ")
		}
	}
	out = optimize("-keyword", "green tea", write("en.txt", b.String()))
	line := regexp.MustCompile(`keyphrase "green tea": 8 uses in (\d+) words, density ([0-9.]+%) \(good: (\d+)-(\d+) uses\): ([a-z ]+), in introduction`).FindStringSubmatch(out)
	finding := regexp.MustCompile(`keyphrase\.density_high +"green tea" occurs 8 times in (\d+) words \(density ([0-9.]+%)\); use it (\d+) to (\d+) times`).FindStringSubmatch(out)
	if line == nil || finding == nil {
		t.Fatalf("no keyphrase line or no density_high finding:\n%s", out)
	}
	if line[5] != "too many" || finding[1] != line[1] || finding[2] != line[2] || finding[3] != line[3] || finding[4] != line[4] {
		t.Errorf("summary %q and finding %q disagree", line[0], finding[0])
	}
}
