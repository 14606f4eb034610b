package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/indexstatus"
	"github.com/seokit/seokit/indexstatus/searchconsole"
)

// maxReportFile bounds the crawl report read by index and crux.
const maxReportFile = 1 << 30

// readSiteReport reads a site report written by `cli crawl -format json`.
func readSiteReport(flagName, file string) (*crawler.SiteReport, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", flagName, err)
	}
	defer f.Close()
	var r crawler.SiteReport
	if err := json.NewDecoder(io.LimitReader(f, maxReportFile)).Decode(&r); err != nil {
		return nil, fmt.Errorf("%s: %s is not a site report from `"+prog+" crawl -format json`: %v", flagName, file, err)
	}
	return &r, nil
}

// runIndex inspects a sample of a crawl's URLs with the Search Console URL
// Inspection API and joins the answers to the crawl.
func runIndex(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("index", flag.ContinueOnError)
	fs.SetOutput(stderr)
	crawl := fs.String("crawl", "", "a site report written by `"+prog+" crawl -format json` (required)")
	property := fs.String("property", "", "the Search Console property: sc-domain:example.com or https://www.example.com/ (default: "+envGSCProperty+", else sc-domain: and the crawl's domain)")
	sample := fs.Int("sample", 0, "the most URLs inspected (0: all the property has left today, at most 2,000)")
	perMinute := fs.Int("per-minute", 0, "inspections per minute (0: 600, Google's quota per property)")
	perDay := fs.Int("per-day", 0, "inspections per day (0: 2,000, Google's quota per property)")
	top := fs.Int("top", 50, "pages listed in the text report, the best-linked first")
	output := addOutputFlags(fs, "text", "json")
	creds := fs.String("google-credentials", "", "a service-account key or authorized_user file (default: "+envCredentials+")")
	quiet := fs.Bool("quiet", false, "no progress on standard error")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: "+prog+" index -crawl REPORT.json [flags]")
		fmt.Fprintln(stderr, "Inspects a sample of a crawl's pages with the Search Console URL Inspection API (chosen by")
		fmt.Fprintln(stderr, "template and segment, best-linked first, within 600 a minute and 2,000 a day per property)")
		fmt.Fprintln(stderr, "and joins Google's answers to the crawl: Google's canonical against the declared one,")
		fmt.Fprintln(stderr, "indexed but noindex, crawled or submitted and not indexed, last crawl. Credentials as for")
		fmt.Fprintln(stderr, "`"+prog+" report -traffic searchconsole`; "+envGSCBaseURL+" overrides the API root.")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	format, err := output.resolve()
	if err != nil {
		return err
	}
	if *crawl == "" || fs.NArg() > 0 {
		fs.Usage()
		return usageErr(errors.New("index takes -crawl REPORT.json and no arguments"))
	}
	if *sample < 0 || *perMinute < 0 || *perDay < 0 || *top < 0 {
		return usageErr(errors.New("-sample, -per-minute, -per-day and -top must not be negative"))
	}
	rep, err := readSiteReport("-crawl", *crawl)
	if err != nil {
		return usageErr(err)
	}
	prop := strings.TrimSpace(*property)
	if prop == "" {
		prop = strings.TrimSpace(getenv(envGSCProperty))
	}
	if prop == "" {
		prop = "sc-domain:" + rep.Domain
	}
	ts, err := googleTokenSource(ctx, *creds, searchconsole.Scope)
	if err != nil {
		return usageErr(err)
	}
	ins, err := searchconsole.New(&searchconsole.Options{TokenSource: ts, BaseURL: getenv(envGSCBaseURL)})
	if err != nil {
		return usageErr(err)
	}
	opts := &indexstatus.Options{SampleSize: *sample, Ledger: indexstatus.NewLedger(indexstatus.Quota{PerMinute: *perMinute, PerDay: *perDay}, nil)}
	if !*quiet {
		last := time.Time{}
		opts.Progress = func(p indexstatus.Progress) {
			if p.Done == p.Total || time.Since(last) >= time.Second {
				last = time.Now()
				fmt.Fprintf(stderr, "index: %d/%d settled, %d inspected, %d failed\n", p.Done, p.Total, p.Inspected, p.Failed)
			}
		}
	}
	r, err := indexstatus.Run(ctx, rep, ins, prop, opts)
	if err != nil {
		return usageErr(err)
	}
	if format == "json" {
		return writeJSON(stdout, r)
	}
	writeIndexText(stdout, r, *top)
	return nil
}

// writeIndexText prints an index status report for people.
func writeIndexText(w io.Writer, r *indexstatus.Report, top int) {
	fmt.Fprintf(w, "Index status of %s, property %s (%s)\n", clean(r.Domain), clean(r.Property), clean(r.Source))
	limit := "every eligible page"
	switch r.SampleLimit {
	case indexstatus.LimitDailyQuota:
		limit = "cut by the property's inspections left today"
	case indexstatus.LimitSampleSize:
		limit = "cut by -sample"
	}
	fmt.Fprintf(w, "Sample        %d of %d eligible pages (%s)\n", r.Counts.Sampled, r.Sample.Eligible, limit)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  template\tsegment\tpages\tsampled\ttop link score")
	for _, s := range r.Sample.Strata {
		fmt.Fprintf(tw, "  %s\t%s\t%d\t%d\t%.2f\n", clean(orDash(s.Template)), clean(orDash(s.Segment)), s.Pages, s.Sampled, s.TopLinkScore)
	}
	tw.Flush()
	made := 0
	for _, d := range r.Quota.Made {
		made += d.Inspections
	}
	fmt.Fprintf(w, "Quota         %d inspections made (most in one minute: %d of %d); the property's day: %d used of %d\n",
		made, r.Quota.PeakPerMinute, r.Quota.Quota.PerMinute, r.Quota.UsedAfter, r.Quota.Quota.PerDay)
	c := r.Counts
	fmt.Fprintf(w, "Result        %d inspected: %d indexed, %d not indexed, %d with another canonical; %d failed; %d not inspected",
		c.Inspected, c.Indexed, c.NotIndexed, c.CanonicalMismatch, c.Failed, c.NotInspected)
	if len(c.NotInspectedReasons) > 0 {
		var parts []string
		for _, k := range []string{indexstatus.ReasonDailyQuota, indexstatus.ReasonRateLimited, indexstatus.ReasonAccountQuota, indexstatus.ReasonCanceled} {
			if n := c.NotInspectedReasons[k]; n > 0 {
				parts = append(parts, fmt.Sprintf("%s %d", k, n))
			}
		}
		fmt.Fprintf(w, " (%s)", strings.Join(parts, ", "))
	}
	fmt.Fprintln(w)
	if len(r.Findings) > 0 {
		fmt.Fprintln(w, "Findings")
		for _, f := range r.Findings {
			fmt.Fprintf(w, "  %-8s %-30s %5d  e.g. %s\n", f.Severity, f.ID, f.Occurrences(), clean(f.URL))
		}
	}
	if top == 0 || len(r.Pages) == 0 {
		return
	}
	fmt.Fprintln(w, "Pages")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  url\tindexed\tcoverage\tgoogle canonical\tlast crawl\tfindings")
	for i, p := range r.Pages {
		if i == top {
			fmt.Fprintf(tw, "  … %d more (-format json lists all)\t\t\t\t\t\n", len(r.Pages)-top)
			break
		}
		indexed, coverage, canon, crawled := "?", p.Status, "", ""
		if p.Reason != "" {
			coverage += " (" + p.Reason + ")"
		}
		if p.Indexed != nil {
			indexed = map[bool]string{true: "yes", false: "no"}[*p.Indexed]
		}
		if in := p.Inspection; in != nil {
			coverage = in.Coverage
			switch {
			case in.GoogleCanonical == "":
			case p.CanonicalMatches != nil && *p.CanonicalMatches:
				canon = "as declared"
			default:
				canon = in.GoogleCanonical
			}
			if in.LastCrawl != nil {
				crawled = in.LastCrawl.Format(time.DateOnly)
			}
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\n", clean(p.URL), indexed, clean(coverage), clean(canon), crawled, strings.Join(p.Findings, " "))
	}
	tw.Flush()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
