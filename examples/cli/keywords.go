package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/keywords"
	"github.com/seokit/seokit/keywords/crawled"
	"github.com/seokit/seokit/keywords/local"
	"github.com/seokit/seokit/seo"
)

// The keywords, rankings and report commands share one data file (the
// keyword table and the ranking history live side by side): the one
// examples/server reads with -data-db, so that what the CLI imports the
// server serves.
const (
	// dataDBEnv names the data file in the environment, as for the server.
	dataDBEnv = "SEOKIT_DATA_DB"
	// defaultDataDB is the data file when neither -db nor dataDBEnv is set.
	defaultDataDB = "seokit-data.db"
)

// defaultDB is the default of the -db flags: $SEOKIT_DATA_DB, else
// seokit-data.db in the working directory.
func defaultDB() string {
	if v := strings.TrimSpace(getenv(dataDBEnv)); v != "" {
		return v
	}
	return defaultDataDB
}

// describeData names the data file for people: an SQLite path made
// absolute, so that it can be compared with the server's, or a postgres://
// DSN without its password.
func describeData(path string) string {
	if strings.HasPrefix(path, "postgres://") || strings.HasPrefix(path, "postgresql://") || path == ":memory:" {
		return redactDSN(path)
	}
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return path
}

// noteData says on stderr which data file a command reads and writes, the
// one examples/server must name with -data-db to serve the same data.
func noteData(stderr io.Writer, path string) {
	fmt.Fprintf(stderr, "data file: %s (-db, %s; examples/server -data-db)\n", clean(describeData(path)), dataDBEnv)
}

// redactDSN hides the password of a postgres:// DSN in messages.
func redactDSN(dsn string) string {
	if !strings.HasPrefix(dsn, "postgres://") && !strings.HasPrefix(dsn, "postgresql://") {
		return dsn
	}
	u, err := url.Parse(dsn)
	if err != nil {
		return "postgres://(unparsable DSN)"
	}
	return u.Redacted()
}

// dbUsage is the help text of the -db flags.
const dbUsage = "data file: SQLite path or postgres:// DSN of the keyword table and ranking history, shared with examples/server -data-db (env " + dataDBEnv + ")"

const keywordsUsage = `usage:
  cli keywords suggest [flags] QUERY   keyword ideas from the local keyword table (and -site's pages)
  cli keywords import [flags] FILE     import a Keyword Planner, Search Console or Semrush CSV

Run "cli keywords suggest -h" or "cli keywords import -h" for the flags.
`

func runKeywords(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, progText(keywordsUsage))
		return &exitError{code: 2, err: errors.New("keywords: no subcommand given")}
	}
	switch args[0] {
	case "suggest":
		return runKeywordsSuggest(ctx, args[1:], stdout, stderr)
	case "import":
		return runKeywordsImport(ctx, args[1:], stdout, stderr)
	case "-h", "--help", "help":
		fmt.Fprint(stdout, progText(keywordsUsage))
		return nil
	}
	fmt.Fprint(stderr, progText(keywordsUsage))
	return &exitError{code: 2, err: fmt.Errorf("keywords: unknown subcommand %q", args[0])}
}

// usageErr wraps a bad-input error as exit code 2.
func usageErr(err error) error { return &exitError{code: 2, err: err} }

func parseLocaleFlag(s string) (seo.Locale, error) {
	loc, err := seo.ParseLocale(s)
	if err != nil {
		return loc, usageErr(fmt.Errorf("-locale: %w", err))
	}
	return loc, nil
}

func openKeywords(ctx context.Context, path string) (*local.Store, error) {
	if strings.TrimSpace(path) == "" {
		return nil, usageErr(errors.New("-db: is empty"))
	}
	st, err := local.Open(ctx, path, nil)
	if err != nil {
		return nil, usageErr(fmt.Errorf("open keyword table %s: %w", redactDSN(path), err))
	}
	return st, nil
}

func runKeywordsSuggest(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("keywords suggest", flag.ContinueOnError)
	fs.SetOutput(stderr)
	locale := fs.String("locale", "en-US", "language and region, xx-XX")
	db := fs.String("db", defaultDB(), dbUsage)
	limit := fs.Int("limit", keywords.DefaultLimit, fmt.Sprintf("most suggestions, 1 to %d", keywords.MaxLimit))
	out := addOutputFlags(fs, "text", "json")
	site := fs.String("site", "", "also suggest the noun phrases of this site's pages: crawl it (at most -site-pages pages) and list the phrases containing the query, with the pages they are on")
	sitePages := fs.Int("site-pages", 100, "most pages crawled for -site")
	allowPrivate := fs.Bool("allow-private", false, "allow -site on loopback and private network addresses")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: "+prog+" keywords suggest [flags] QUERY")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	format, err := out.resolve()
	if err != nil {
		return err
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return usageErr(errors.New("keywords suggest takes a query"))
	}
	query := strings.Join(fs.Args(), " ")
	loc, err := parseLocaleFlag(*locale)
	if err != nil {
		return err
	}
	if *sitePages < 1 {
		return usageErr(errors.New("-site-pages must be at least 1"))
	}
	noteData(stderr, *db)
	st, err := openKeywords(ctx, *db)
	if err != nil {
		return err
	}
	defer st.Close()
	sources := []keywords.Source{st}
	if *site != "" {
		sp, _, err := crawled.Crawl(ctx, *site, &crawled.Options{
			Crawler: &crawler.Options{MaxPages: *sitePages, AllowPrivate: *allowPrivate},
			Phrases: &keywords.SitePhrasesOptions{Language: loc.Language}})
		if err != nil {
			return usageErr(fmt.Errorf("-site: %w", err))
		}
		sources = append(sources, sp)
	}
	res, err := keywords.NewSuggester(sources, nil).Suggest(ctx, query, loc, &keywords.SuggestOptions{Limit: *limit})
	if err != nil {
		return usageErr(err)
	}
	if format == "json" {
		return writeJSON(stdout, res)
	}
	printSuggestions(stdout, res)
	return nil
}

func printSuggestions(w io.Writer, res *keywords.Suggestions) {
	fmt.Fprintf(w, "%d suggestions for %q (%s) from %s\n", len(res.Suggestions), res.Query, res.Locale, clean(strings.Join(res.Sources, ", ")))
	if len(res.Failed) > 0 {
		fmt.Fprintf(w, "failed sources: %s (partial answer)\n", clean(strings.Join(res.Failed, ", ")))
	}
	if len(res.Suggestions) == 0 {
		fmt.Fprintln(w, "No suggestions: import a Keyword Planner, Search Console or Semrush export with \""+prog+" keywords import FILE\", or add -site with your site to list the phrases its pages use.")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "KEYWORD\tVOLUME\tDIFFICULTY\tSOURCE\tWHY\tNOTE")
	for _, k := range res.Suggestions {
		var note []string
		if k.Expansion {
			note = append(note, "expansion")
		}
		if k.Estimated {
			note = append(note, "estimated")
		}
		if k.DifficultyMethod != "" && k.Difficulty != nil {
			note = append(note, "difficulty: "+k.DifficultyMethod)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", clean(k.Keyword), intOr(k.Volume, "unknown"), intOr(k.Difficulty, "-"), clean(k.Source), clean(k.Why), clean(strings.Join(note, ", ")))
	}
	tw.Flush()
}

func intOr(p *int, none string) string {
	if p == nil {
		return none
	}
	return fmt.Sprint(*p)
}

func runKeywordsImport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("keywords import", flag.ContinueOnError)
	fs.SetOutput(stderr)
	db := fs.String("db", defaultDB(), dbUsage)
	input := fs.String("input-format", "auto", "file format: auto, keyword-planner, search-console or semrush")
	locale := fs.String("locale", "en-US", "language and region of the keywords, xx-XX")
	out := addOutputFlags(fs, "text", "json")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: "+prog+" keywords import [flags] FILE")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return usageErr(errors.New("keywords import takes exactly one file"))
	}
	if in := out.inputAlias(stderr, "auto", string(local.KeywordPlanner), string(local.SearchConsole), string(local.Semrush)); in != "" {
		*input = in
	}
	format, err := out.resolve()
	if err != nil {
		return err
	}
	var f local.Format
	switch *input {
	case "auto", "":
	case string(local.KeywordPlanner), string(local.SearchConsole), string(local.Semrush):
		f = local.Format(*input)
	default:
		return usageErr(fmt.Errorf("-input-format: unknown format %q (auto, keyword-planner, search-console or semrush)", *input))
	}
	loc, err := parseLocaleFlag(*locale)
	if err != nil {
		return err
	}
	in, err := os.Open(fs.Arg(0))
	if err != nil {
		return usageErr(err)
	}
	defer in.Close()
	noteData(stderr, *db)
	st, err := openKeywords(ctx, *db)
	if err != nil {
		return err
	}
	defer st.Close()
	rep, err := st.Import(ctx, in, f, loc)
	if err != nil {
		return usageErr(fmt.Errorf("import %s: %w", fs.Arg(0), err))
	}
	if format == "json" {
		return writeJSON(stdout, rep)
	}
	fmt.Fprintf(stdout, "%s: %s format, %d keywords imported, %d lines skipped\n", clean(fs.Arg(0)), clean(string(rep.Format)), rep.Imported, rep.Skipped)
	for _, le := range rep.Errors {
		fmt.Fprintf(stdout, "  %s\n", clean(fmt.Sprint(le)))
	}
	if n := rep.Skipped - len(rep.Errors); n > 0 && len(rep.Errors) > 0 {
		fmt.Fprintf(stdout, "  ... and %d more bad lines\n", n)
	}
	return nil
}
