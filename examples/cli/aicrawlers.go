package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/seokit/seokit/crawler"
)

// runAICrawlers checks a site's readiness for AI crawlers without a full
// crawl: robots.txt, /llms.txt and the firewall probe, over the home page
// only (a crawl of one page).
func runAICrawlers(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("ai-crawlers", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := addOutputFlags(fs, "text", "json")
	skipProbe := fs.Bool("skip-probe", false, "do not fetch the home page as each AI crawler (robots.txt and /llms.txt only)")
	allowPrivate := fs.Bool("allow-private", false, "allow loopback and private network addresses (intranet audits)")
	timeout := fs.Duration("timeout", 2*time.Minute, "time budget")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: "+prog+" ai-crawlers [flags] DOMAIN")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	format, err := out.resolve()
	if err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return &exitError{code: 2, err: errors.New("ai-crawlers takes exactly one domain or start URL")}
	}
	opts := &crawler.Options{MaxPages: 1, AllowPrivate: *allowPrivate, TimeBudget: *timeout, SkipExternalLinks: true,
		AICrawlers: true, SkipAICrawlerProbe: *skipProbe}
	rep, err := crawler.New(opts).Run(ctx, fs.Arg(0))
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	if rep.AICrawlers == nil {
		return &exitError{code: 2, err: fmt.Errorf("the AI crawler readiness of %s could not be checked (stopped: %s)", fs.Arg(0), rep.Crawl.StopReason)}
	}
	if format == "json" {
		return writeJSON(stdout, rep.AICrawlers)
	}
	printAICrawlers(stdout, rep.AICrawlers)
	for _, f := range rep.SiteFindings {
		if strings.HasPrefix(f.ID, "ai.") {
			fmt.Fprintf(stdout, "%-8s %s: %s\n", f.Severity, clean(f.ID), clean(f.Message))
		}
	}
	return nil
}

// printAICrawlers writes the AI crawler matrix compactly: one line per
// crawler with its robots.txt verdict on the home page and the deciding
// line, the crawled URLs it may not fetch, and the probe's answer.
func printAICrawlers(w io.Writer, ai *crawler.AICrawlerReport) {
	if ai == nil {
		return
	}
	fmt.Fprintf(w, "\nAI CRAWLERS   robots.txt %s (status %d)", clean(ai.RobotsURL), ai.RobotsStatus)
	if ai.Reason != "" {
		fmt.Fprintf(w, ": %s", clean(ai.Reason))
	}
	fmt.Fprintln(w)
	if ai.Baseline != nil {
		fmt.Fprintf(w, "  normal fetch of the home page: status %d, %d bytes\n", ai.Baseline.Status, ai.Baseline.Bytes)
	} else if ai.ProbeSkipped != "" {
		fmt.Fprintf(w, "  probe: %s\n", clean(ai.ProbeSkipped))
	}
	fmt.Fprintf(w, "  %-19s %-12s %-9s %-7s %-19s %-40s %s\n", "crawler", "operator", "purpose", "home", "crawled URLs", "deciding robots.txt line", "probe of the home page")
	for _, c := range ai.Crawlers {
		home := "allowed"
		if !c.Home.Allowed {
			home = "BLOCKED"
		}
		rule := c.Home.Rule
		if c.Home.Line > 0 {
			rule = fmt.Sprintf("line %d: %s", c.Home.Line, c.Home.Rule)
		}
		probe := "-"
		switch {
		case c.Probe != nil && c.Probe.Blocked:
			probe = "REFUSED: " + c.Probe.Reason
		case c.Probe != nil:
			probe = fmt.Sprintf("%d, %d bytes", c.Probe.Status, c.Probe.Bytes)
		case c.ControlOnly:
			probe = "- (control token)"
		}
		blocked := fmt.Sprintf("%d/%d blocked", c.BlockedURLs, c.BlockedURLs+c.AllowedURLs)
		fmt.Fprintf(w, "  %-19s %-12s %-9s %-7s %-19s %-40s %s\n", clean(c.Token), clean(c.Operator), c.Purpose, home,
			blocked, ellipsis(clean(rule), 40), clean(probe))
	}
	printAIProbeURLs(w, ai)
	l := ai.LLMsTxt
	switch {
	case l.Present:
		fmt.Fprintf(w, "  /llms.txt: %d bytes, title %q, %d sections, %d links, %d issues\n", l.Bytes, clean(l.Title), l.Sections, l.Links, l.IssuesTotal)
	case l.Error != "":
		fmt.Fprintf(w, "  /llms.txt: not read (%s)\n", clean(l.Error))
	default:
		fmt.Fprintf(w, "  /llms.txt: absent (status %d)\n", l.Status)
	}
	if ai.ContentNeedsJS != nil {
		fmt.Fprintf(w, "  content needs JavaScript: %d pages\n", ai.ContentNeedsJS.Pages)
	}
}

// printAIProbeURLs writes the crawled pages the firewall probe fetched
// besides the home page and the refusals it found there.
func printAIProbeURLs(w io.Writer, ai *crawler.AICrawlerReport) {
	if ai.Baseline == nil {
		return
	}
	var parts []string
	for _, p := range ai.ProbeURLs {
		if p.Baseline != nil {
			parts = append(parts, fmt.Sprintf("%s (%d, %d bytes)", clean(p.URL), p.Baseline.Status, p.Baseline.Bytes))
		} else {
			parts = append(parts, fmt.Sprintf("%s (%s)", clean(p.URL), clean(p.Reason)))
		}
	}
	if len(parts) == 0 {
		parts = append(parts, "none: "+clean(ai.ProbeURLsReason))
	}
	fmt.Fprintf(w, "  sampled pages probed (one per template): %s; %d probe requests\n", strings.Join(parts, ", "), ai.ProbeRequests)
	for _, c := range ai.Crawlers {
		for _, u := range c.URLProbes {
			if u.Probe != nil && u.Probe.Blocked {
				allowed := "allowed"
				if !u.Allowed {
					allowed = "disallowed"
				}
				fmt.Fprintf(w, "  %-19s REFUSED on %s (robots.txt: %s): %s\n", clean(c.Token), clean(u.URL), allowed, clean(u.Probe.Reason))
			}
		}
	}
}

// printAITokens lists the AI crawler tokens with their operator's page.
func printAITokens(w io.Writer) {
	fmt.Fprintln(w, "\nAI crawler tokens of the ai.* checks:")
	for _, c := range crawler.AICrawlers() {
		kind := string(c.Purpose)
		if c.ControlOnly {
			kind += ", control token"
		}
		fmt.Fprintf(w, "  %-19s %-12s %-24s %s\n", c.Token, c.Operator, kind, c.Source)
	}
}
