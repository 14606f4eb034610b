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
	format := fs.String("format", "", "input format: text, markdown or html (default: detected)")
	title := fs.String("title", "", "the SEO title, if any")
	description := fs.String("description", "", "the meta description, if any")
	slug := fs.String("slug", "", "the URL slug, if any")
	asJSON := fs.Bool("json", false, "print the full report as JSON")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: cli optimize [flags] FILE   (FILE - reads standard input)")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return &exitError{code: 2, err: errors.New("optimize takes exactly one file")}
	}
	content, err := readInput(fs.Arg(0))
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	rep, err := optimizer.Optimize(ctx, optimizer.Request{
		Content: content, Format: *format, Title: *title, Description: *description, Slug: *slug,
		Keywords: keywords, Locale: *locale,
	})
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	if *asJSON {
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
	fmt.Fprintf(w, "SEO score %d/100 (%s)   readability %d/100 (%s)\n", rep.SEOScore, rep.SEORating, rep.ReadabilityScore, rep.ReadabilityRating)
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
	fmt.Fprintf(w, "%d words, %d sentences (%.1f words each), %d paragraphs, %d subheadings\n",
		st.Words, st.Sentences, st.AvgSentenceWords, st.Paragraphs, st.Subheadings)
	if rd := rep.Readability; rd.Formula != "" {
		fmt.Fprintf(w, "%s %.1f (%s)", rd.Formula, rd.Score, rd.Band)
		if rd.FleschKincaid != nil {
			fmt.Fprintf(w, ", Flesch-Kincaid grade %.1f", *rd.FleschKincaid)
		}
		fmt.Fprintln(w)
	}
	for _, k := range rep.Keyphrases {
		fmt.Fprintf(w, "keyphrase %q: %d uses, density %.2f%% (good: %d-%d uses), in introduction: %v\n",
			k.Phrase, k.Occurrences, k.Density, k.RecommendedMin, k.RecommendedMax, k.InIntroduction)
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
