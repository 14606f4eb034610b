package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/seokit/seokit/analyzer"
	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/seo"
)

func runAnalyze(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("analyze", flag.ContinueOnError)
	fs.SetOutput(stderr)
	depth := fs.String("depth", "standard", "checks to run: basic, standard or complete")
	links := fs.Bool("links", false, "fetch every link, image, canonical and hreflang target (link checks)")
	mobile := fs.Bool("mobile", false, "fetch the page again as a smartphone and compare (mobile parity)")
	asJSON := fs.Bool("json", false, "print the full report as JSON")
	allowPrivate := fs.Bool("allow-private", false, "allow loopback and private network addresses (intranet audits)")
	failOn := fs.String("fail-on", "error", "exit 1 when a finding has this severity or higher: error, warning, notice or none")
	disable := fs.String("disable", "", "comma-separated check IDs or areas to turn off")
	timeout := fs.Duration("timeout", 60*time.Second, "time limit for the whole analysis")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: cli analyze [flags] URL")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return &exitError{code: 2, err: errors.New("analyze takes exactly one URL")}
	}
	threshold, err := parseFailOn(*failOn)
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	rep, err := analyzer.Analyze(ctx, fs.Arg(0), &analyzer.Options{
		Depth:         analyzer.Depth(*depth),
		CheckLinks:    *links,
		AnalyzeMobile: *mobile,
		AllowPrivate:  *allowPrivate,
		Disable:       splitList(*disable),
	})
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	if *asJSON {
		if err := writeJSON(stdout, rep); err != nil {
			return err
		}
	} else {
		printReport(stdout, rep)
	}
	if rep.Error != "" {
		return &exitError{code: 2, err: fmt.Errorf("could not fetch %s: %s", rep.URL, rep.Error)}
	}
	if threshold > 0 {
		for _, f := range rep.Findings {
			if f.Severity >= threshold {
				return errFindings
			}
		}
	}
	return nil
}

func parseFailOn(s string) (seo.Severity, error) {
	if s == "none" || s == "" {
		return 0, nil
	}
	sev, err := seo.ParseSeverity(s)
	if err != nil {
		return 0, fmt.Errorf("-fail-on must be error, warning, notice or none, not %q", s)
	}
	return sev, nil
}

// printReport writes the report for people: the verdict first, then
// findings by severity with their evidence, then the page facts.
func printReport(w io.Writer, rep *analyzer.Report) {
	fmt.Fprintf(w, "%s\n", clean(rep.URL))
	if rep.FinalURL != "" && rep.FinalURL != rep.URL {
		fmt.Fprintf(w, "  -> %s\n", clean(rep.FinalURL))
	}
	status := fmt.Sprint(rep.Status)
	if rep.Status == 0 {
		status = "no response"
	}
	fmt.Fprintf(w, "status %s, %d ms, %s\n\n", status, rep.Timings.Total.Milliseconds(), byteSize(rep.Sizes.HTML))
	c := seo.PageScore(rep.Findings).Counts
	score := "No score (" + rep.ScoreReason + ")"
	if rep.Score != nil {
		score = fmt.Sprintf("Score %d/100", rep.Score.Value)
	}
	fmt.Fprintf(w, "%s   %d errors, %d warnings, %d notices (distinct check IDs)\n", score, c.Errors, c.Warnings, c.Notices)
	if line := truncatedSummary(rep.Truncated); line != "" {
		fmt.Fprintln(w, line)
	}

	for _, sev := range []seo.Severity{seo.Error, seo.Warning, seo.Notice} {
		var group []seo.Finding
		for _, f := range rep.Findings {
			if f.Severity == sev {
				group = append(group, f)
			}
		}
		if len(group) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s (%d)\n", strings.ToUpper(sev.String()+"s"), len(group))
		for _, f := range group {
			fmt.Fprintf(w, "  %-38s %s\n", clean(f.ID), clean(f.Message))
			if ev := evidenceLine(f.Evidence); ev != "" {
				fmt.Fprintf(w, "  %-38s %s\n", "", ev)
			}
		}
	}
	printMore(w, "  ", rep.Truncated["findings"])
	if rep.Error != "" {
		fmt.Fprintf(w, "\nfetch error: %s\n", clean(rep.Error))
		return
	}
	fmt.Fprintln(w, "\nPage")
	if rep.Title != nil {
		fmt.Fprintf(w, "  title        %q (%d chars, ~%d px)\n", rep.Title.Text, rep.Title.Length, rep.Title.WidthPx)
	}
	if rep.Description != nil {
		fmt.Fprintf(w, "  description  %q (%d chars)\n", seo.Clip(rep.Description.Text), rep.Description.Length)
	}
	for _, h := range rep.Headings {
		if h.Level == 1 {
			fmt.Fprintf(w, "  h1           %q\n", h.Text)
			break
		}
	}
	lang := clean(rep.DeclaredLang)
	if rep.Language != "" {
		lang += " (text looks " + clean(rep.Language) + ")"
	}
	fmt.Fprintf(w, "  words        %d, lang %s\n", rep.WordCount, lang)
	fmt.Fprintf(w, "  links        %d internal, %d external, %d nofollow\n", rep.Links.Internal, rep.Links.External, rep.Links.Nofollow)
	fmt.Fprintf(w, "  images       %d, %d without alt\n", rep.Images.Total, rep.Images.WithoutAlt)
	for _, c := range rep.Canonical {
		fmt.Fprintf(w, "  canonical    %s (%s)\n", clean(c.URL), clean(c.Source))
	}
	fmt.Fprintf(w, "  indexable    %v\n", rep.Robots.Indexable)
	if len(rep.StructuredData) > 0 {
		var types []string
		for _, it := range rep.StructuredData {
			types = append(types, it.Types...)
		}
		sort.Strings(types)
		fmt.Fprintf(w, "  structured   %s\n", clean(strings.Join(types, ", ")))
	}
}

func evidenceLine(ev seo.Evidence) string {
	var parts []string
	if ev.Element != "" {
		parts = append(parts, ev.Element)
	}
	if ev.Value != "" {
		parts = append(parts, fmt.Sprintf("%q", ev.Value))
	}
	if ev.Measured != nil && ev.Threshold != nil {
		parts = append(parts, fmt.Sprintf("%g (limit %g)", *ev.Measured, *ev.Threshold))
	}
	if len(ev.URLs) > 0 {
		more := ""
		if len(ev.URLs) > 3 {
			more = fmt.Sprintf(" and %d more", len(ev.URLs)-3)
		}
		parts = append(parts, strings.Join(ev.URLs[:min(3, len(ev.URLs))], " ")+more)
	}
	if ev.Detail != "" && len(parts) < 2 {
		parts = append(parts, ev.Detail)
	}
	return clean(strings.Join(parts, "  "))
}

func byteSize(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

func runChecks(w io.Writer) error {
	for _, c := range append(analyzer.Catalog(), crawler.Catalog()...) {
		fmt.Fprintf(w, "%-48s %-8s %-7s %s\n", c.ID, c.Severity, c.Scope, c.Summary)
	}
	return nil
}
