package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/seokit/seokit/rankings"
	"github.com/seokit/seokit/rankings/customsearch"
	"github.com/seokit/seokit/rankings/dataforseo"
	"github.com/seokit/seokit/rankings/serpapi"
	"github.com/seokit/seokit/reports"
	"github.com/seokit/seokit/seo"
)

const rankingsUsage = `usage:
  cli rankings check -domain DOMAIN [flags] KEYWORD...   check positions now with a SERP provider
  cli rankings track -domain DOMAIN [flags] [KEYWORD...] track keywords, or import a Search Console export

Provider credentials come from the environment:
  dataforseo     DATAFORSEO_LOGIN, DATAFORSEO_PASSWORD
  serpapi        SERPAPI_KEY
  customsearch   GOOGLE_CSE_KEY, GOOGLE_CSE_CX
DATAFORSEO_BASE_URL, SERPAPI_BASE_URL and GOOGLE_CSE_BASE_URL override the API roots (proxies, tests).
`

func runRankings(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, progText(rankingsUsage))
		return usageErr(errors.New("rankings: no subcommand given"))
	}
	switch args[0] {
	case "check":
		return runRankingsCheck(ctx, args[1:], stdout, stderr)
	case "track":
		return runRankingsTrack(ctx, args[1:], stdout, stderr)
	case "-h", "--help", "help":
		fmt.Fprint(stdout, progText(rankingsUsage))
		return nil
	}
	fmt.Fprint(stderr, progText(rankingsUsage))
	return usageErr(fmt.Errorf("rankings: unknown subcommand %q", args[0]))
}

// getenv reads provider credentials; tests replace it.
var getenv = os.Getenv

// serpSource returns the SERP provider named by -source, or with "" the
// first one whose credentials are set.
func serpSource(name string) (rankings.Source, error) {
	type provider struct {
		name string
		vars []string
		make func(v []string) rankings.Source
	}
	providers := []provider{
		{"dataforseo", []string{"DATAFORSEO_LOGIN", "DATAFORSEO_PASSWORD"}, func(v []string) rankings.Source {
			return dataforseo.New(v[0], v[1], &dataforseo.Options{BaseURL: getenv("DATAFORSEO_BASE_URL"), Now: now})
		}},
		{"serpapi", []string{"SERPAPI_KEY"}, func(v []string) rankings.Source {
			return serpapi.New(v[0], &serpapi.Options{BaseURL: getenv("SERPAPI_BASE_URL"), Now: now})
		}},
		{"customsearch", []string{"GOOGLE_CSE_KEY", "GOOGLE_CSE_CX"}, func(v []string) rankings.Source {
			return customsearch.New(v[0], v[1], &customsearch.Options{BaseURL: getenv("GOOGLE_CSE_BASE_URL"), Now: now})
		}},
	}
	var known []string
	for _, p := range providers {
		known = append(known, p.name)
		if name != "" && name != p.name {
			continue
		}
		vals := make([]string, len(p.vars))
		var missing []string
		for i, v := range p.vars {
			if vals[i] = strings.TrimSpace(getenv(v)); vals[i] == "" {
				missing = append(missing, v)
			}
		}
		if len(missing) == 0 {
			return p.make(vals), nil
		}
		if name != "" {
			return nil, fmt.Errorf("-source %s: set %s in the environment", name, strings.Join(missing, " and "))
		}
	}
	if name != "" {
		return nil, fmt.Errorf("-source: unknown provider %q (%s)", name, strings.Join(known, ", "))
	}
	return nil, errors.New("no SERP provider configured: set DATAFORSEO_LOGIN and DATAFORSEO_PASSWORD, SERPAPI_KEY, or GOOGLE_CSE_KEY and GOOGLE_CSE_CX; " +
		"without a provider, import a Search Console export with \"" + prog + " rankings track -import-gsc FILE\"")
}

func runRankingsCheck(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("rankings check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	domain := fs.String("domain", "", "domain to find in the results (required)")
	locale := fs.String("locale", "en-US", "language and region, xx-XX")
	device := fs.String("device", "desktop", "desktop or mobile")
	source := fs.String("source", "", "SERP provider: dataforseo, serpapi or customsearch (default: the first with credentials)")
	db := fs.String("db", defaultDB(), dbUsage)
	out := addOutputFlags(fs, "text", "json")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: "+prog+" rankings check -domain DOMAIN [flags] KEYWORD...")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	format, err := out.resolve()
	if err != nil {
		return err
	}
	if *domain == "" {
		fs.Usage()
		return usageErr(errors.New("-domain is required"))
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return usageErr(errors.New("rankings check takes at least one keyword"))
	}
	loc, err := parseLocaleFlag(*locale)
	if err != nil {
		return err
	}
	dev, err := rankings.NormalizeDevice("device", rankings.Device(*device))
	if err != nil {
		return usageErr(fmt.Errorf("-device: %w", err))
	}
	src, err := serpSource(*source)
	if err != nil {
		return usageErr(err)
	}
	noteData(stderr, *db)
	st, err := openRankings(ctx, *db)
	if err != nil {
		return err
	}
	defer st.Close()
	// A failed keyword is a row with status failed (and the error on
	// stderr), never "not ranked"; the exit code says a check failed.
	res, checkErr := rankings.NewTracker(src, st, &rankings.TrackerOptions{Now: now}).Check(ctx, *domain, fs.Args(), &rankings.CheckOptions{Locale: loc, Device: dev})
	if res == nil {
		return usageErr(checkErr)
	}
	if format == "json" {
		if err := writeJSON(stdout, res); err != nil {
			return err
		}
	} else if err := writeRankings(stdout, res); err != nil {
		return err
	}
	if checkErr != nil {
		return usageErr(checkErr)
	}
	return nil
}

// writeRankings prints ranking entries as a table: the state of each
// (rankings.Ranking.Label), never a bare empty position.
func writeRankings(w io.Writer, res []rankings.Ranking) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "KEYWORD\tSTATUS\tPOSITION\tURL\tSOURCE\tDEPTH")
	for _, r := range res {
		depth := "-"
		if r.Depth > 0 {
			depth = fmt.Sprint(r.Depth)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", clean(r.Keyword), r.Status, clean(r.Label()), clean(r.URL), clean(r.Source), depth)
	}
	return tw.Flush()
}

func runRankingsTrack(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("rankings track", flag.ContinueOnError)
	fs.SetOutput(stderr)
	domain := fs.String("domain", "", "domain whose keywords are tracked (required)")
	locale := fs.String("locale", "en-US", "language and region, xx-XX")
	device := fs.String("device", "desktop", "desktop or mobile")
	gsc := fs.String("import-gsc", "", "import a Search Console Performance export (Queries.csv): average positions, tracked")
	date := fs.String("date", "", "with -import-gsc: the day the averages are recorded on, YYYY-MM-DD (the last day of the export)")
	db := fs.String("db", defaultDB(), dbUsage)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: "+prog+" rankings track -domain DOMAIN [-import-gsc FILE -date YYYY-MM-DD] [flags] [KEYWORD...]")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *domain == "" {
		fs.Usage()
		return usageErr(errors.New("-domain is required"))
	}
	dom, err := reports.NormalizeDomain(*domain)
	if err != nil {
		return usageErr(err)
	}
	if fs.NArg() == 0 && *gsc == "" {
		fs.Usage()
		return usageErr(errors.New("rankings track takes keywords or -import-gsc FILE"))
	}
	if (*date != "") != (*gsc != "") {
		return usageErr(errors.New("-import-gsc and -date go together"))
	}
	loc, err := parseLocaleFlag(*locale)
	if err != nil {
		return err
	}
	dev, err := rankings.NormalizeDevice("device", rankings.Device(*device))
	if err != nil {
		return usageErr(fmt.Errorf("-device: %w", err))
	}
	for i, k := range fs.Args() {
		if _, err := rankings.NormalizeKeyword(fmt.Sprintf("keywords[%d]", i), k); err != nil {
			return usageErr(err)
		}
	}
	var day time.Time
	if *gsc != "" {
		d, _, err := reports.ParseRange(*date, *date, now(), 1)
		if err != nil {
			if ie, ok := seo.AsInputError(err); ok {
				err = ie.WithField("date")
			}
			return usageErr(fmt.Errorf("-date: %w", err))
		}
		day = d
	}
	noteData(stderr, *db)
	st, err := openRankings(ctx, *db)
	if err != nil {
		return err
	}
	defer st.Close()
	if fs.NArg() > 0 {
		tr := rankings.NewTracker(nil, st, &rankings.TrackerOptions{Now: now})
		if err := tr.Track(ctx, dom, fs.Args(), &rankings.CheckOptions{Locale: loc, Device: dev}); err != nil {
			return usageErr(err)
		}
		fmt.Fprintf(stdout, "tracking %d keywords for %s (%s, %s)\n", fs.NArg(), dom, loc, dev)
	}
	if *gsc != "" {
		return importGSC(ctx, st, *gsc, dom, day, loc, dev, stdout)
	}
	return nil
}

// importGSC imports a Search Console Queries.csv export: each query's
// average position on day, tracked.
func importGSC(ctx context.Context, st rankings.Store, file, domain string, day time.Time, loc seo.Locale, dev rankings.Device, stdout io.Writer) error {
	in, err := os.Open(file)
	if err != nil {
		return usageErr(fmt.Errorf("-import-gsc: %w", err))
	}
	defer in.Close()
	rep, err := rankings.ImportSearchConsole(ctx, st, in, rankings.ImportOptions{Domain: domain, Date: day, Locale: loc, Device: dev})
	if err != nil {
		return usageErr(fmt.Errorf("-import-gsc %s: %w", file, err))
	}
	fmt.Fprintf(stdout, "%s: %d queries imported for %s on %s (average positions from Search Console), %d lines skipped\n",
		clean(file), rep.Imported, clean(domain), day.Format(reports.DateLayout), len(rep.Skipped))
	for _, le := range rep.Skipped {
		fmt.Fprintf(stdout, "  line %d: %s\n", le.Line, clean(le.Reason))
	}
	if c := rep.Changes; c != nil {
		fmt.Fprintf(stdout, "since the export of %s: %d improved, %d declined, %d unchanged, %d new, %d lost\n",
			c.Previous, c.Improved, c.Declined, c.Unchanged, c.New, c.Lost)
	}
	return nil
}
