// Command cli runs seokit from the command line.
//
//	go run ./examples/cli analyze [flags] URL
//	go run ./examples/cli crawl [flags] DOMAIN
//	go run ./examples/cli optimize -locale en-US -keyword "..." FILE
//	go run ./examples/cli checks
//
// Exit codes: 0 success; 1 findings at or above the -fail-on severity;
// 2 usage error or the page/site could not be fetched.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
)

const usage = `usage:
  cli analyze [flags] URL      analyse one page
  cli crawl [flags] DOMAIN     crawl a site (a domain with optional port, or a start URL)
  cli optimize [flags] FILE    score a text for keyphrases and a locale
  cli diff OLD.json NEW.json   compare two site reports (text, JSON, Markdown or HTML);
                               -fail-on-new SEVERITY fails a pipeline on new findings
  cli checks [-v]              list every check ID with its severity and scope
                               (-v: the rule's source and how seokit differs from it)
  cli ai-crawlers DOMAIN       robots.txt, firewall probe and /llms.txt for AI crawlers
  cli logs [flags] FILE...     access logs: search and AI bots verified, by day, URL and class;
                               -crawl REPORT.json joins them with a crawl
  cli index -crawl REPORT.json index status of a crawl's sample from Search Console URL
                               Inspection, within its quotas, joined with the crawl
  cli crux URL                 field Web Vitals from the Chrome UX Report (-origin, -history,
                               -crawl REPORT.json for the lab values beside them)
  cli keywords suggest QUERY   keyword ideas from the local keyword table
  cli keywords import FILE     import a Keyword Planner, Search Console or Semrush CSV
  cli rankings check KEYWORD.. check positions now with a SERP provider
  cli rankings track [KEYWORD] track keywords or import a Search Console export
  cli report -domain DOMAIN    performance report over a date range (text, JSON or HTML),
                               with measured traffic from -traffic searchconsole or ga4
  cli mcp [-tools]             MCP server over stdio for a local agent, over the data file
                               (-tools: print the tool list)

Every command writes text by default and takes -format for the rest
(json everywhere, csv and html where the command writes them; -json is the
older spelling of -format json). analyze and crawl exit 1 when a finding is
an error (-fail-on error, the default; -fail-on none never does).

Run "cli analyze -h", "cli crawl -h", "cli optimize -h", "cli keywords suggest -h",
"cli rankings track -h", "cli report -h", "cli logs -h" ... for the flags. The keywords, rankings
and report commands share one data file, the one examples/server reads with
-data-db: seokit-data.db in the working directory, unless SEOKIT_DATA_DB or -db
names another (an SQLite path or a postgres:// DSN).
`

// exitError carries an exit code out of a command.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }

// Unwrap returns the error carried, so that "-h" (flag.ErrHelp) is not
// reported as a failure.
func (e *exitError) Unwrap() error { return e.err }

func main() {
	prog = filepath.Base(os.Args[0])
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	if err == nil {
		return
	}
	code := 2
	var ee *exitError
	if errors.As(err, &ee) {
		code = ee.code
	}
	printError(os.Stderr, err)
	os.Exit(code)
}

// printError writes err for people, escaped (it may quote fetched or
// imported text), unless it is errFindings or the answer to -h.
func printError(w io.Writer, err error) {
	if err != errFindings && !errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(w, prog+":", clean(err.Error()))
	}
}

// errFindings signals exit code 1 without a message (the report said it all).
var errFindings = &exitError{code: 1, err: errors.New("findings at or above the -fail-on severity")}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, progText(usage))
		return &exitError{code: 2, err: errors.New("no command given")}
	}
	switch args[0] {
	case "analyze":
		return runAnalyze(ctx, args[1:], stdout, stderr)
	case "crawl":
		return runCrawl(ctx, args[1:], stdout, stderr)
	case "optimize":
		return runOptimize(ctx, args[1:], stdout, stderr)
	case "diff":
		return runDiff(ctx, args[1:], stdout, stderr)
	case "checks":
		return runChecks(args[1:], stdout, stderr)
	case "ai-crawlers":
		return runAICrawlers(ctx, args[1:], stdout, stderr)
	case "logs":
		return runLogs(ctx, args[1:], stdout, stderr)
	case "index":
		return runIndex(ctx, args[1:], stdout, stderr)
	case "crux":
		return runCrux(ctx, args[1:], stdout, stderr)
	case "keywords":
		return runKeywords(ctx, args[1:], stdout, stderr)
	case "rankings":
		return runRankings(ctx, args[1:], stdout, stderr)
	case "report":
		return runReport(ctx, args[1:], stdout, stderr)
	case "mcp":
		return runMCP(ctx, args[1:], stdout, stderr)
	case "-h", "--help", "help":
		fmt.Fprint(stdout, progText(usage))
		return nil
	}
	fmt.Fprint(stderr, progText(usage))
	return &exitError{code: 2, err: fmt.Errorf("unknown command %q", args[0])}
}

// parseFlags parses a subcommand's flags; flags may follow the argument too.
func parseFlags(fs *flag.FlagSet, args []string) error {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return &exitError{code: 2, err: err}
		}
		if fs.NArg() == 0 {
			break
		}
		positional = append(positional, fs.Arg(0))
		args = fs.Args()[1:]
	}
	return fs.Parse(append([]string{"--"}, positional...))
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
