package optimizer

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// benchKeywords are two keyphrases per language for the benchmarks.
var benchKeywords = map[string][]string{
	"en": {"brew coffee", "fresh beans"},
	"de": {"Kaffee kochen", "frische Bohnen"},
	"es": {"preparar café", "granos frescos"},
	"fr": {"préparer café", "grains frais"},
	"it": {"preparare caffè", "chicchi freschi"},
	"nl": {"koffie zetten", "verse bonen"},
	"pt": {"preparar café", "grãos frescos"},
	"ru": {"приготовить кофе", "свежие зёрна"},
}

var benchLocales = map[string]string{
	"en": "en-US", "de": "de-DE", "es": "es-ES", "fr": "fr-FR",
	"it": "it-IT", "nl": "nl-NL", "pt": "pt-BR", "ru": "ru-RU",
}

// benchText builds a text of at least n words from testdata/lang/<lang>.md:
// its sections are repeated with their sentences rotated deterministically
// and numbered headings, so no two sections are identical.
func benchText(tb testing.TB, lang string, n int) string {
	tb.Helper()
	b, err := os.ReadFile("testdata/lang/" + lang + ".md")
	if err != nil {
		tb.Fatal(err)
	}
	blocks := strings.Split(strings.TrimSpace(string(b)), "\n\n")
	var out strings.Builder
	words := 0
	for round := 0; words < n; round++ {
		for i, blk := range blocks {
			if round > 0 && i == 0 {
				continue
			}
			if strings.HasPrefix(blk, "#") {
				blk = fmt.Sprintf("%s %d", blk, round+1)
			} else if round > 0 {
				// Rotate the sentences of the paragraph.
				ss := strings.SplitAfter(blk, ". ")
				k := (round + i) % len(ss)
				rot := append(append([]string(nil), ss[k:]...), ss[:k]...)
				for j := range rot {
					rot[j] = strings.TrimSpace(rot[j])
				}
				blk = strings.Join(rot, " ")
			}
			out.WriteString(blk)
			out.WriteString("\n\n")
			words += len(strings.Fields(blk))
		}
	}
	return out.String()
}

func benchLang(b *testing.B, lang string) {
	text := benchText(b, lang, 1000)
	req := Request{Content: text, Keywords: benchKeywords[lang], Locale: benchLocales[lang],
		Title: "Coffee", Description: strings.Repeat("coffee ", 20)}
	ctx := context.Background()
	// Warm up: loads the shared models and word lists.
	r, err := Optimize(ctx, req)
	if err != nil {
		b.Fatal(err)
	}
	if lang == "en" && r.Stats.PassiveMethod != "pos" {
		b.Fatalf("English passive detection did not use the tagger: %q", r.Stats.PassiveMethod)
	}
	nw := r.Stats.Words + 0
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := Optimize(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(nw)*float64(b.N)/b.Elapsed().Seconds(), "words/s")
	limit := 3 * time.Millisecond
	if lang == "en" {
		limit = 15 * time.Millisecond
	}
	// The target as a ratio (below 1 meets it); on a shared machine the
	// absolute time drifts, so the figure is reported, not asserted.
	per := b.Elapsed() / time.Duration(b.N)
	b.ReportMetric(float64(per)/float64(limit), "of-target")
}

// BenchmarkOptimize analyses a 1,000-word text with two keyphrases in each
// supported language (English includes part-of-speech passive detection).
// Limits: en 15 ms/op, the others 3 ms/op.
func BenchmarkOptimize(b *testing.B) {
	for _, lang := range Languages {
		b.Run(lang, func(b *testing.B) { benchLang(b, lang) })
	}
}

// BenchmarkFirstCall measures the first English analysis of a fresh process
// (word lists and the part-of-speech model loaded): it runs this test binary
// again with TestHelperFirstCall and reads the time it reports. Limit 1.5 s.
func BenchmarkFirstCall(b *testing.B) {
	var total time.Duration
	for b.Loop() {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperFirstCall$", "-test.count=1")
		cmd.Env = append(os.Environ(), "SEOKIT_OPTIMIZER_FIRST_CALL=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			b.Fatalf("helper: %v\n%s", err, out)
		}
		_, after, ok := strings.Cut(string(out), "first-call-ns=")
		if !ok {
			b.Fatalf("helper printed no time:\n%s", out)
		}
		ns, err := strconv.ParseInt(strings.Fields(after)[0], 10, 64)
		if err != nil {
			b.Fatal(err)
		}
		total += time.Duration(ns)
	}
	per := total / time.Duration(b.N)
	b.ReportMetric(float64(per.Milliseconds()), "first-call-ms")
	b.ReportMetric(float64(per)/float64(1500*time.Millisecond), "of-target")
}

// TestHelperFirstCall is run by BenchmarkFirstCall in a fresh process.
func TestHelperFirstCall(t *testing.T) {
	if os.Getenv("SEOKIT_OPTIMIZER_FIRST_CALL") != "1" {
		t.Skip("run by BenchmarkFirstCall in a fresh process")
	}
	text := benchText(t, "en", 1000)
	start := time.Now()
	r, err := Optimize(context.Background(), Request{Content: text, Keywords: benchKeywords["en"], Locale: "en-US"})
	d := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	if r.Stats.PassiveMethod != "pos" {
		t.Fatalf("passive method %q, want pos", r.Stats.PassiveMethod)
	}
	fmt.Printf("first-call-ns=%d\n", d.Nanoseconds())
}
