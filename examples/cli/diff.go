package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/seokit/seokit/crawler/compare"
	"github.com/seokit/seokit/seo"
)

// runDiff compares two site reports written by `crawl -format json`.
func runDiff(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("diff", flag.ContinueOnError)
	fs.SetOutput(stderr)
	format := fs.String("format", "text", "output: text, json, markdown (for a pull-request comment) or html")
	out := fs.String("o", "", "write the output to this file instead of standard output")
	failOnNew := fs.String("fail-on-new", "none", "exit 1 when a finding of this severity or higher is new or on more pages: error, warning, notice or none")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: "+prog+" diff [flags] OLD.json NEW.json")
		fmt.Fprintln(stderr, "Compares two site reports written by `"+prog+" crawl -format json` (or the API's site report).")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 2 {
		fs.Usage()
		return &exitError{code: 2, err: errors.New("diff takes two report files: OLD.json NEW.json")}
	}
	threshold, err := parseFailOnNew(*failOnNew)
	if err != nil {
		return err
	}
	d, err := compare.Sites(ctx, compare.File(fs.Arg(0)), compare.File(fs.Arg(1)), nil)
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	return writeDiff(d, *format, *out, threshold, stdout)
}

// writeDiff writes d in format to the file out (or stdout) and returns
// errFindings when a finding at or above threshold is new or on more
// pages.
func writeDiff(d *compare.Diff, format, out string, threshold seo.Severity, stdout io.Writer) error {
	write := func(w io.Writer) error {
		switch format {
		case "text":
			return d.WriteText(w)
		case "markdown", "md":
			return d.WriteMarkdown(w)
		case "html":
			return d.WriteHTML(w)
		case "json":
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			return enc.Encode(d)
		}
		return fmt.Errorf("-format %q: want text, json, markdown or html", format)
	}
	var err error
	if out == "" {
		err = write(stdout)
	} else {
		var f *os.File
		if f, err = os.Create(out); err == nil {
			err = errors.Join(write(f), f.Close())
		}
	}
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	if threshold != 0 && d.NewFindings(threshold) > 0 {
		return errFindings
	}
	return nil
}

// parseFailOnNew parses the -fail-on-new flag.
func parseFailOnNew(s string) (seo.Severity, error) {
	if s == "none" || s == "" {
		return 0, nil
	}
	sev, err := seo.ParseSeverity(s)
	if err != nil {
		return 0, &exitError{code: 2, err: fmt.Errorf("-fail-on-new must be error, warning, notice or none, not %q", s)}
	}
	return sev, nil
}
