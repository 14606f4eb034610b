package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/seokit/seokit/optimizer"
	"github.com/seokit/seokit/seo"
)

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ", ") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }

func runOptimize(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("optimize", flag.ContinueOnError)
	fs.SetOutput(stderr)
	locale := fs.String("locale", "en-US", "language and region of the text, xx-XX")
	var keywords stringList
	fs.Var(&keywords, "keyword", `target keyphrase, primary first (repeatable; "in quotes" for exact match)`)
	input := fs.String("input-format", "", "input format: text, markdown or html (default: detected)")
	title := fs.String("title", "", "the SEO title, if any")
	description := fs.String("description", "", "the meta description, if any")
	slug := fs.String("slug", "", "the URL slug, if any")
	out := addOutputFlags(fs, "text", "json")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: "+prog+" optimize [flags] FILE   (FILE - reads standard input)")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return &exitError{code: 2, err: errors.New("optimize takes exactly one file")}
	}
	if in := out.inputAlias(stderr, "markdown", "html"); in != "" {
		*input = in
	}
	format, err := out.resolve()
	if err != nil {
		return err
	}
	content, err := readInput(fs.Arg(0))
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	rep, err := optimizer.Optimize(ctx, optimizer.Request{
		Content: content, Format: *input, Title: *title, Description: *description, Slug: *slug,
		Keywords: keywords, Locale: *locale,
	})
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	if format == "json" {
		return writeJSON(stdout, rep)
	}
	printContentReport(stdout, rep)
	return nil
}

// readInput reads a file, or standard input for "-", up to the optimiser's size limit.
func readInput(name string) (string, error) {
	r := io.Reader(os.Stdin)
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return "", err
		}
		defer f.Close()
		r = f
	}
	b, err := io.ReadAll(io.LimitReader(r, optimizer.MaxContentBytes+1))
	if err != nil {
		return "", err
	}
	return string(b), nil
}

func printContentReport(w io.Writer, rep *optimizer.Report) {
	fmt.Fprintf(w, "SEO %s   readability %s\n", scoreLine(rep.SEOScore, rep.SEORating, rep.SEOCappedBy, rep.SEOReason),
		scoreLine(rep.ReadabilityScore, rep.ReadabilityRating, rep.ReadabilityCappedBy, rep.ReadabilityReason))
	if line := truncatedSummary(rep.Truncated); line != "" {
		fmt.Fprintln(w, line)
	}
	detected := rep.Detected.Language
	if detected == "" {
		detected = "unsure"
	}
	fmt.Fprintf(w, "locale %s, text looks %s; %s\n", rep.Locale, detected, rep.Format)
	if len(rep.Skipped) > 0 {
		fmt.Fprintf(w, "not supported for this language: %s\n", strings.Join(rep.Skipped, ", "))
	}
	st := rep.Stats
	if st.WordsReason != "" {
		fmt.Fprintf(w, "%d characters, %d sentences (%.1f characters each), %d paragraphs, %d subheadings; words not counted (%s)\n",
			st.Characters, st.Sentences, st.AvgSentenceCharacters, st.Paragraphs, st.Subheadings, notComputed[st.WordsReason])
	} else {
		fmt.Fprintf(w, "%d words, %d sentences (%.1f words each), %d paragraphs, %d subheadings\n",
			st.Words, st.Sentences, st.AvgSentenceWords, st.Paragraphs, st.Subheadings)
	}
	if rd := rep.Readability; rd.Score != nil {
		fmt.Fprintf(w, "%s %.1f (%s)", rd.Formula, *rd.Score, rd.Band)
		if rd.FleschKincaid != nil {
			fmt.Fprintf(w, ", Flesch-Kincaid grade %.1f", *rd.FleschKincaid)
		}
		fmt.Fprintln(w)
	} else {
		fmt.Fprintf(w, "reading ease: not computed (%s)\n", notComputed[rd.Reason])
	}
	for _, k := range rep.Keyphrases {
		uses := useSummary(k, st.Words)
		if st.WordsReason != "" {
			uses = plural(k.Occurrences, "use") + ", density not computed"
		}
		fmt.Fprintf(w, "keyphrase %q: %s, in introduction: %v\n", k.Phrase, uses, k.InIntroduction)
	}
	for _, sev := range []seo.Severity{seo.Error, seo.Warning, seo.Notice} {
		first := true
		for _, f := range rep.Findings {
			if f.Severity != sev {
				continue
			}
			if first {
				fmt.Fprintf(w, "\n%s\n", strings.ToUpper(sev.String()+"s"))
				first = false
			}
			fmt.Fprintf(w, "  %-36s %s\n", clean(f.ID), clean(f.Message))
		}
	}
	printMore(w, "  ", rep.Truncated["findings"])
	s := rep.Suggestions
	if s.Title != "" || s.Description != "" {
		fmt.Fprintln(w, "\nSuggestions")
		if s.Title != "" {
			fmt.Fprintf(w, "  title        %s\n", clean(s.Title))
		}
		if s.Description != "" {
			fmt.Fprintf(w, "  description  %s\n", clean(s.Description))
		}
		if s.Slug != "" {
			fmt.Fprintf(w, "  slug         %s\n", clean(s.Slug))
		}
	}
}

// scoreLine is a score with its rating, or "not computed" with the reason.
func scoreLine(score *int, rating optimizer.Rating, capped []string, reason string) string {
	if score == nil {
		why := notComputed[reason]
		if reason == optimizer.ReasonUnsupportedLanguage {
			why = "no full support for this language"
		}
		return "not computed (" + why + ")"
	}
	return fmt.Sprintf("score %d/100 (%s%s)", *score, rating, cappedBy(capped))
}

// notComputed says why a metric was not computed, by its reason code.
var notComputed = map[string]string{
	optimizer.ReasonUnsupportedLanguage: "no reading-ease formula for this language",
	optimizer.ReasonTooShort:            "too little text",
	optimizer.ReasonNoProse:             "no paragraphs to read",
	optimizer.ReasonNoChecks:            "no check could run",
	optimizer.ReasonNoWordBoundaries:    "the language has no spaces between words",
	"":                                  "unknown reason",
}

// cappedBy notes the errors that capped a score.
func cappedBy(ids []string) string {
	if len(ids) == 0 {
		return ""
	}
	return ", capped by " + strings.Join(ids, ", ")
}

// useSummary is a keyphrase's uses, density and recommended range with the
// report's rating of them, as its findings state them.
func useSummary(k optimizer.Keyphrase, words int) string {
	s := fmt.Sprintf("%s in %d words, density %.2f%%", plural(k.Occurrences, "use"), words, k.Density)
	if k.DensityRating == "" {
		return s
	}
	good := fmt.Sprintf("%d-%d uses", k.RecommendedMin, k.RecommendedMax)
	if k.RecommendedMin == k.RecommendedMax {
		good = plural(k.RecommendedMin, "use")
	}
	verdict := map[string]string{
		optimizer.DensityGood:     "good",
		optimizer.DensityNotFound: "not found",
		optimizer.DensityLow:      "too few",
		optimizer.DensityHigh:     "too many",
		optimizer.DensityStuffing: "keyword stuffing",
	}[k.DensityRating]
	return fmt.Sprintf("%s (good: %s): %s", s, good, verdict)
}

// plural is n and the noun, with an s unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
