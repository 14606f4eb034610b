package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/fieldvitals"
	"github.com/seokit/seokit/fieldvitals/crux"
	"github.com/seokit/seokit/seo"
)

// Environment variables of the CrUX source.
const (
	envCrUXKey     = "CRUX_API_KEY"
	envCrUXBaseURL = "CRUX_BASE_URL"
)

// cruxOutput is what `cli crux -format json` prints.
type cruxOutput struct {
	Record  *fieldvitals.Record      `json:"record"`
	History *fieldvitals.History     `json:"history,omitempty"`
	Lab     *fieldvitals.Lab         `json:"lab,omitempty"`
	Compare []fieldvitals.Comparison `json:"compare,omitempty"`
	// Explanation says why lab and field differ, with Compare.
	Explanation string `json:"explanation,omitempty"`
}

// runCrux prints the field Web Vitals of a URL or an origin from the
// Chrome UX Report, beside the lab values of a crawl when one is given.
func runCrux(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("crux", flag.ContinueOnError)
	fs.SetOutput(stderr)
	origin := fs.Bool("origin", false, "query the origin of TARGET (all its pages) instead of the URL")
	formFactor := fs.String("form-factor", "", "phone, desktop or tablet (default: all devices)")
	history := fs.Bool("history", false, "add the weekly trend of the last 25 collection periods (CrUX History API)")
	crawl := fs.String("crawl", "", "a site report written by `"+prog+" crawl -format json -render`: its lab vitals of TARGET are set beside the field values")
	output := addOutputFlags(fs, "text", "json")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: "+prog+" crux [flags] TARGET")
		fmt.Fprintln(stderr, "Field Web Vitals of a URL (or, with -origin, its origin) from the Chrome UX Report: p75 of")
		fmt.Fprintln(stderr, "LCP, INP, CLS, FCP and TTFB over 28 days of real Chrome users, with histograms; \"not")
		fmt.Fprintln(stderr, "enough data\" when CrUX has none. The API key comes from "+envCrUXKey+"; "+envCrUXBaseURL)
		fmt.Fprintln(stderr, "overrides the API root.")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	format, err := output.resolve()
	if err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return usageErr(errors.New("crux takes one URL"))
	}
	q := fieldvitals.Query{URL: fs.Arg(0), FormFactor: fieldvitals.FormFactor(strings.ToUpper(*formFactor))}
	if *origin {
		u, err := seo.ParseURL(fs.Arg(0))
		if err != nil {
			return usageErr(err)
		}
		q = fieldvitals.Query{Origin: u.Scheme + "://" + u.Host, FormFactor: q.FormFactor}
	}
	q, err = q.Check()
	if err != nil {
		return usageErr(err)
	}
	var lab *fieldvitals.Lab
	if *crawl != "" {
		rep, err := readSiteReport("-crawl", *crawl)
		if err != nil {
			return usageErr(err)
		}
		lab = labOf(rep.Pages, q)
	}
	src, err := crux.New(getenv(envCrUXKey), &crux.Options{BaseURL: getenv(envCrUXBaseURL)})
	if err != nil {
		return usageErr(fmt.Errorf("set %s to a Chrome UX Report API key: %w", envCrUXKey, err))
	}
	out := cruxOutput{Lab: lab}
	if out.Record, err = src.Record(ctx, q); err != nil {
		return &exitError{code: 1, err: err}
	}
	if *history {
		if out.History, err = src.History(ctx, q); err != nil {
			return &exitError{code: 1, err: err}
		}
	}
	if lab != nil {
		out.Compare, out.Explanation = fieldvitals.Compare(*lab, out.Record), fieldvitals.Explanation
	}
	if format == "json" {
		return writeJSON(stdout, out)
	}
	writeCruxText(stdout, &out)
	return nil
}

// writeCruxText prints field data for people.
func writeCruxText(w io.Writer, o *cruxOutput) {
	r := o.Record
	target := r.Query.URL
	if target == "" {
		target = r.Query.Origin + " (origin)"
	}
	ff := string(r.Query.FormFactor)
	if ff == "" {
		ff = "all devices"
	}
	fmt.Fprintf(w, "Field Web Vitals of %s, %s (Chrome UX Report)\n", clean(target), strings.ToLower(ff))
	if r.Status != fieldvitals.StatusOK {
		fmt.Fprintln(w, "Not enough data: CrUX publishes nothing for this target (too few Chrome users in 28 days).")
	} else {
		if r.Period != nil {
			fmt.Fprintf(w, "Period        %s to %s (28 days)\n", r.Period.First, r.Period.Last)
		}
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  metric\tp75\trating\tgood / needs improvement / poor")
		for _, m := range r.Metrics {
			if m.P75 == nil {
				fmt.Fprintf(tw, "  %s\tnot enough data\t\t\n", m.Name)
				continue
			}
			var shares []string
			for _, b := range m.Histogram {
				shares = append(shares, fmt.Sprintf("%.0f%%", 100*b.Density))
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", m.Name, formatValue(m.Name, *m.P75), m.Rating, strings.Join(shares, " / "))
		}
		tw.Flush()
	}
	if h := o.History; h != nil && h.Status == fieldvitals.StatusOK && len(h.Periods) > 0 {
		fmt.Fprintf(w, "Trend         %d weekly periods, %s to %s\n", len(h.Periods), h.Periods[0].Last, h.Periods[len(h.Periods)-1].Last)
		for _, s := range h.Metrics {
			var first, last *float64
			for _, v := range s.P75 {
				if v != nil {
					if first == nil {
						first = v
					}
					last = v
				}
			}
			if first == nil {
				fmt.Fprintf(w, "  %-5s not enough data in any period\n", s.Name)
				continue
			}
			fmt.Fprintf(w, "  %-5s %s -> %s\n", s.Name, formatValue(s.Name, *first), formatValue(s.Name, *last))
		}
	} else if h != nil {
		fmt.Fprintln(w, "Trend         not enough data")
	}
	if len(o.Compare) > 0 {
		fmt.Fprintln(w, "Lab (seokit's rendering) and field (CrUX p75)")
		for _, c := range o.Compare {
			lab, field := "not measured", "not enough data"
			if c.Lab != nil {
				lab = formatValue(c.LabMetric, *c.Lab)
			}
			if c.Field != nil {
				field = formatValue(c.Metric, *c.Field)
			}
			fmt.Fprintf(w, "  %-4s lab %s = %s, field %s = %s. %s\n", c.Metric, c.LabMetric, lab, c.Metric, field, c.Explanation)
		}
		fmt.Fprintln(w, fieldvitals.Explanation)
	}
}

func formatValue(metric string, v float64) string {
	if metric == fieldvitals.CLS {
		return fmt.Sprintf("%.2f", v)
	}
	return fmt.Sprintf("%.0f ms", v)
}

// labOf returns the lab vitals a crawl measured for q's URL (or, for an
// origin, its start page's); nil when the crawl has no such page.
func labOf(pages []crawler.PageSummary, q fieldvitals.Query) *fieldvitals.Lab {
	for i := range pages {
		p := &pages[i]
		match := p.URL == q.URL || (p.FinalURL != "" && p.FinalURL == q.URL)
		if q.Origin != "" {
			match = p.URL == q.Origin+"/"
		}
		if match {
			return &fieldvitals.Lab{LCPMs: p.LCPMs, CLS: p.CLS, TBTMs: p.TBTMs}
		}
	}
	return nil
}
