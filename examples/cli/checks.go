package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"

	"github.com/seokit/seokit/analyzer"
	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/indexstatus"
	"github.com/seokit/seokit/logs"
)

// runChecks lists the page and site checks: one line each, with -v the
// standard or tool each rule follows and how seokit deliberately differs
// from it, with -format json the catalogue as a JSON array.
func runChecks(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("checks", flag.ContinueOnError)
	fs.SetOutput(stderr)
	verbose := fs.Bool("v", false, "also print each rule's source and how seokit differs from Lighthouse, Yoast or Screaming Frog")
	out := addOutputFlags(fs, "text", "json")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	format, err := out.resolve()
	if err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return &exitError{code: 2, err: fmt.Errorf("checks takes no arguments, got %q", fs.Arg(0))}
	}
	checks := append(append(append(analyzer.Catalog(), crawler.Catalog()...), logs.Catalog()...), indexstatus.Catalog()...)
	if format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(checks)
	}
	for _, c := range checks {
		fmt.Fprintf(stdout, "%-48s %-8s %-7s %s\n", c.ID, c.Severity, c.Scope, c.Summary)
		if !*verbose {
			continue
		}
		if c.Source != "" {
			fmt.Fprintf(stdout, "    source:  %s\n", c.Source)
		}
		if c.Differs != "" {
			fmt.Fprintf(stdout, "    differs: %s\n", c.Differs)
		}
	}
	if *verbose {
		printAITokens(stdout)
	}
	return nil
}
