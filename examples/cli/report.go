package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/seokit/seokit/rankings"
	"github.com/seokit/seokit/rankings/sqlstore"
	"github.com/seokit/seokit/reports"
)

// now is the clock of the report commands; tests replace it.
var now = time.Now

func openRankings(ctx context.Context, path string) (*sqlstore.Store, error) {
	if strings.TrimSpace(path) == "" {
		return nil, usageErr(errors.New("-db: is empty"))
	}
	st, err := sqlstore.Open(ctx, path, nil)
	if err != nil {
		return nil, usageErr(fmt.Errorf("open ranking store %s: %w", redactDSN(path), err))
	}
	return st, nil
}

func runReport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	fs.SetOutput(stderr)
	domain := fs.String("domain", "", "domain of the report (required)")
	start := fs.String("start", "", "first day, YYYY-MM-DD (default: 29 days before -end)")
	end := fs.String("end", "", "last day, YYYY-MM-DD (default: today, UTC)")
	db := fs.String("db", defaultDB(), dbUsage)
	locale := fs.String("locale", "", "only this locale, xx-XX (default: every locale)")
	device := fs.String("device", "", "only this device: desktop or mobile (default: both)")
	ctrModel := fs.String("ctr-model", reports.CurveDefault, "CTR curve: "+strings.Join(reports.CurveNames(), ", "))
	weighting := fs.String("weighting", reports.WeightVolume, "visibility weights: volume or equal")
	rows := fs.Int("keywords", 100, "keywords listed (0: none)")
	out := addOutputFlags(fs, "text", "json", "html")
	htmlFile := fs.String("html", "", "write a self-contained HTML report with charts to this file")
	var tf trafficFlags
	fs.StringVar(&tf.source, "traffic", "", "measured traffic: searchconsole, ga4 or none (default: the source whose property is set)")
	fs.StringVar(&tf.gscProperty, "gsc-property", getenv(envGSCProperty), "Search Console property, sc-domain:example.com or https://www.example.com/ (env "+envGSCProperty+"; default sc-domain:DOMAIN)")
	fs.StringVar(&tf.ga4Property, "ga4-property", getenv(envGA4Property), "GA4 property ID, such as 123456789 (env "+envGA4Property+")")
	fs.StringVar(&tf.credentials, "google-credentials", "", "Google service-account key or authorized_user file (default $"+envCredentials+")")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: "+prog+" report -domain DOMAIN [-start YYYY-MM-DD] [-end YYYY-MM-DD] [flags]")
		fs.PrintDefaults()
		fmt.Fprint(stderr, trafficUsage)
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	format, err := out.resolve()
	if err != nil {
		return err
	}
	if fs.NArg() != 0 {
		fs.Usage()
		return usageErr(fmt.Errorf("report takes no arguments, got %q (use -domain)", fs.Arg(0)))
	}
	if *domain == "" {
		fs.Usage()
		return usageErr(errors.New("-domain is required"))
	}
	today := now().UTC()
	if *end == "" {
		*end = today.Format(reports.DateLayout)
	}
	if *start == "" {
		e, err := time.Parse(reports.DateLayout, *end)
		if err != nil {
			return usageErr(fmt.Errorf("-end: must be a date written YYYY-MM-DD, got %q", *end))
		}
		*start = e.AddDate(0, 0, -29).Format(reports.DateLayout)
	}
	s, e, err := reports.ParseRange(*start, *end, today, 0)
	if err != nil {
		return usageErr(err)
	}
	if _, err := reports.NormalizeDomain(*domain); err != nil {
		return usageErr(err)
	}
	bo := &reports.BuildOptions{Keywords: *rows, History: *htmlFile != ""}
	if *rows == 0 {
		bo.Keywords = -1
	}
	if *locale != "" {
		if bo.Locale, err = parseLocaleFlag(*locale); err != nil {
			return err
		}
	}
	if *device != "" {
		d, err := rankings.NormalizeDevice("device", rankings.Device(*device))
		if err != nil {
			return usageErr(fmt.Errorf("-device: %w", err))
		}
		bo.Device = d
	}
	curve, err := reports.CurveByName(*ctrModel)
	if err != nil {
		return usageErr(fmt.Errorf("-ctr-model: %w", err))
	}
	if *weighting != reports.WeightVolume && *weighting != reports.WeightEqual {
		return usageErr(fmt.Errorf("-weighting: must be volume or equal, got %q", *weighting))
	}

	traffic, trafficName, err := tf.trafficSource(ctx, *domain)
	if err != nil {
		return usageErr(err)
	}

	noteData(stderr, *db)
	kw, err := openKeywords(ctx, *db)
	if err != nil {
		return err
	}
	defer kw.Close()
	st, err := openRankings(ctx, *db)
	if err != nil {
		return err
	}
	defer st.Close()
	ropts := &reports.Options{Curve: curve, Weighting: *weighting, Now: now}
	if traffic != nil {
		ropts.Traffic = traffic
	}
	b := reports.New(st, kw, ropts)
	rep, err := b.Build(ctx, *domain, s, e, bo)
	if err != nil {
		return usageErr(err)
	}
	if *htmlFile != "" {
		if err := writeFileAtomic(*htmlFile, func(w io.Writer) error { return reports.WriteHTML(w, rep, nil) }); err != nil {
			return usageErr(err)
		}
		fmt.Fprintf(stderr, "HTML report written to %s\n", *htmlFile)
		if format == "text" {
			// Keep the per-day positions out of the text summary.
			for i := range rep.Metrics.Rankings.Keywords {
				rep.Metrics.Rankings.Keywords[i].History = nil
			}
		}
	}
	switch format {
	case "json":
		if err := writeJSON(stdout, rep); err != nil {
			return err
		}
	case "html":
		if err := reports.WriteHTML(stdout, rep, nil); err != nil {
			return err
		}
	default:
		printPerformanceReport(stdout, rep, trafficName)
	}
	if e := rep.Metrics.Traffic.MeasuredError; e != "" {
		return &exitError{code: 1, err: fmt.Errorf("report printed without measured traffic: %s", e)}
	}
	return nil
}

// writeFileAtomic writes a file through a temporary file in the same
// folder, renamed into place only when complete, with mode 0644 like the
// other reports (a temporary file is created 0600).
func writeFileAtomic(name string, write func(io.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(name), "."+filepath.Base(name)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := write(tmp); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), name)
}

func fmtPos(p *float64) string {
	if p == nil {
		return "-"
	}
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.2f", *p), "0"), ".")
}

// printPerformanceReport prints rep as text; trafficName labels the
// measured-traffic source, if any.
func printPerformanceReport(w io.Writer, rep *reports.Report, trafficName string) {
	m := rep.Metrics
	r := m.Rankings
	fmt.Fprintf(w, "%s, %s to %s", clean(rep.Domain), rep.Start, rep.End)
	if rep.RequestedEnd != "" {
		fmt.Fprintf(w, " (asked until %s; clamped to today)", rep.RequestedEnd)
	}
	fmt.Fprintln(w)
	if m.Visibility != nil {
		fmt.Fprintf(w, "Visibility    %.2f / 100 (%s weights, %d keywords, CTR curve %s)\n", *m.Visibility, m.VisibilityWeights, m.VisibilityBasis.Keywords, m.CTRModel)
	} else {
		fmt.Fprintf(w, "Visibility    not measured (%s)\n", m.VisibilityReason)
	}
	fmt.Fprintf(w, "Keywords      %d tracked, %d checked, %d ranked, %d not ranked, %d never checked\n", r.Tracked, r.Checked, r.Ranked, r.NotRanked, r.Unchecked)
	fmt.Fprintf(w, "Top           3: %d   10: %d   20: %d   100: %d\n", r.Top3, r.Top10, r.Top20, r.Top100)
	if r.AveragePosition != nil {
		fmt.Fprintf(w, "Average pos.  %s (ranked only), %s (not ranked as 100)\n", fmtPos(r.AveragePosition), fmtPos(r.AveragePositionAll))
	} else if r.AveragePositionAll != nil {
		fmt.Fprintf(w, "Average pos.  not measured (%s), %s (not ranked as 100)\n", r.AveragePositionReason, fmtPos(r.AveragePositionAll))
	} else {
		fmt.Fprintf(w, "Average pos.  not measured (%s)\n", r.AveragePositionReason)
	}
	fmt.Fprintf(w, "Movement      %d improved, %d declined, %d unchanged, %d new, %d lost\n", r.Improved, r.Declined, r.Unchanged, r.New, r.Lost)
	t := m.Traffic
	if t.EstimatedMonthlyClicks != nil {
		fmt.Fprintf(w, "Traffic       estimated %s clicks/month, %s in the range (volumes from %s; %s)\n",
			fmtPos(t.EstimatedMonthlyClicks), fmtPos(t.EstimatedClicks), clean(strings.Join(t.VolumeSource, ", ")), t.CTRModel)
	} else {
		fmt.Fprintf(w, "Traffic       %s\n", t.Method)
	}
	if t.VolumeError != "" {
		fmt.Fprintf(w, "              volume source failed: %s\n", clean(t.VolumeError))
	}
	printMeasured(w, t, trafficName)
	if len(r.Keywords) == 0 {
		return
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "KEYWORD\tLOCALE\tDEVICE\tFIRST\tLAST\tBEST\tCHANGE\tSTATUS\tVOLUME\tEST. CLICKS/MONTH")
	for _, k := range r.Keywords {
		ch := ""
		if k.Change != nil {
			ch = fmt.Sprintf("%+g", *k.Change)
			if *k.Change == 0 {
				ch = "0"
			}
		}
		last := fmtPos(k.Last)
		if k.Average && k.Last != nil {
			last += " (avg)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", clean(k.Keyword), k.Locale, k.Device, fmtPos(k.First), last, fmtPos(k.Best), ch, k.Status, intOr(k.Volume, "-"), fmtPos(k.EstimatedMonthlyClicks))
	}
	tw.Flush()
	if len(r.Keywords) < r.KeywordsTotal {
		fmt.Fprintf(w, "(%d of %d keywords; -keywords N lists more)\n", len(r.Keywords), r.KeywordsTotal)
	}
}
