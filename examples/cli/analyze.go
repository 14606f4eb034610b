package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/seokit/seokit/analyzer"
	"github.com/seokit/seokit/internal/htmltable"
	"github.com/seokit/seokit/render"
	"github.com/seokit/seokit/seo"
)

func runAnalyze(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("analyze", flag.ContinueOnError)
	fs.SetOutput(stderr)
	depth := fs.String("depth", "standard", "checks to run: basic, standard or complete")
	links := fs.Bool("links", false, "fetch every link, image, canonical and hreflang target (link checks)")
	mobile := fs.Bool("mobile", false, "fetch the page again as a smartphone and compare (mobile parity)")
	out := addOutputFlags(fs, "text", "json", "html")
	htmlFile := fs.String("html", "", "write a self-contained HTML report of the page to this file")
	allowPrivate := fs.Bool("allow-private", false, "allow loopback and private network addresses (intranet audits)")
	failOn := fs.String("fail-on", defaultFailOn, failOnUsage)
	disable := fs.String("disable", "", "comma-separated check IDs or areas to turn off")
	mute := fs.String("mute", "", "comma-separated check IDs or areas whose findings are left out of the findings and score (counted as muted)")
	verbose := fs.Bool("v", false, "print every finding in full instead of one line per check ID")
	timeout := fs.Duration("timeout", 60*time.Second, "time limit for the whole analysis; with -links, half of it bounds the link checks (targets not checked in time are reported as such)")
	userAgent := fs.String("user-agent", "", "user agent: googlebot-smartphone, googlebot-desktop, bingbot or seokit (presets), or a string")
	skipExternal := fs.Bool("skip-external-links", false, "with -links, request no external link target (turns off links.broken_external and links.redirect_external)")
	renderFlag := fs.String("render", "none", "render the page with JavaScript in headless Chromium: none, auto (only an application shell) or always")
	shotFile := fs.String("screenshot", "", "with -render, write the rendered page's viewport screenshot (PNG) to this file")
	fullPage := fs.Bool("full-page", false, "with -screenshot, capture the whole page instead of the viewport")
	var xf extractFlags
	xf.register(fs)
	var af a11yFlags
	af.register(fs)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: "+prog+" analyze [flags] URL")
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
	format, err := out.resolve()
	if err != nil {
		return err
	}
	disabled, err := checkIDsFlag("disable", *disable)
	if err != nil {
		return err
	}
	muted, err := checkIDsFlag("mute", *mute)
	if err != nil {
		return err
	}
	if *skipExternal {
		disabled = append(disabled, "links.broken_external", "links.redirect_external")
	}
	mode, err := renderModeFlag(*renderFlag)
	if err != nil {
		return err
	}
	mode = af.mode(mode)
	if (*shotFile != "" || *fullPage) && mode == render.None {
		return &exitError{code: 2, err: errors.New("-screenshot and -full-page need -render auto or always")}
	}
	if *fullPage && *shotFile == "" {
		return &exitError{code: 2, err: errors.New("-full-page needs -screenshot FILE.png")}
	}
	ua, _, err := seo.ResolveUserAgent(*userAgent)
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	renderer, stopRenderer, err := startRenderer(ctx, mode, *allowPrivate, 1, *af.axe)
	if err != nil {
		return err
	}
	defer stopRenderer()
	af.warn(stderr, renderer)
	opts := &analyzer.Options{
		Depth:         analyzer.Depth(*depth),
		CheckLinks:    *links,
		AnalyzeMobile: *mobile,
		AllowPrivate:  *allowPrivate,
		Disable:       disabled,
		Mute:          muted,
		MaxExamples:   maxExamplesFor(*verbose),
		UserAgent:     ua,
		Render:        mode,
		Renderer:      renderer,
		A11y:          *af.on,
		Extract:       xf.extract,
		Search:        xf.search,
		// Half the time limit, as the server gives half of its page
		// timeout: a page of targets that never answer is reported with
		// the ones checked in time rather than cut by -timeout.
		LinkCheckBudget: max(*timeout/2, time.Millisecond),
	}
	switch {
	case *fullPage:
		opts.RenderRequest.Screenshot = render.FullPage
	case *shotFile != "":
		opts.RenderRequest.Screenshot = render.Viewport
	}
	rep, err := analyzer.Analyze(ctx, fs.Arg(0), opts)
	if errors.Is(err, context.DeadlineExceeded) {
		err = fmt.Errorf("the analysis did not end within -timeout %v", *timeout)
	}
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	if *shotFile != "" {
		if err := writeScreenshot(*shotFile, rep.Render, *fullPage); err != nil {
			fmt.Fprintf(stderr, "no screenshot written: %s\n", clean(err.Error()))
		} else {
			fmt.Fprintf(stderr, "screenshot written to %s\n", *shotFile)
		}
	}
	if *htmlFile != "" {
		if err := writeFile(*htmlFile, rep.WriteHTML); err != nil {
			return &exitError{code: 2, err: err}
		}
		fmt.Fprintf(stderr, "HTML report written to %s\n", *htmlFile)
	}
	switch format {
	case "json":
		if err := writeJSON(stdout, rep); err != nil {
			return err
		}
	case "html":
		if err := rep.WriteHTML(stdout); err != nil {
			return err
		}
	default:
		printReport(stdout, rep, *verbose)
		printExtraction(stdout, rep)
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

// checkIDsFlag splits the value of the -disable or -mute flag and checks
// that each entry is a check ID or area of the catalogue (crawl IDs
// included); an unknown entry is a usage error naming it.
func checkIDsFlag(name, value string, extra ...[]seo.CheckInfo) ([]string, error) {
	ids := splitList(value)
	var ie *seo.InputError
	if err := analyzer.ValidateIDs(name, ids, extra...); errors.As(err, &ie) {
		return nil, &exitError{code: 2, err: fmt.Errorf("-%s: unknown check ID or area %q ("+prog+" checks lists them)", name, ie.Value)}
	}
	return ids, nil
}

// printReport writes the report for people: the verdict first, then
// findings by severity, one line per check ID (every finding in full when
// verbose), then the page facts.
func printReport(w io.Writer, rep *analyzer.Report, verbose bool) {
	fmt.Fprintf(w, "%s\n", clean(rep.URL))
	if rep.FinalURL != "" && rep.FinalURL != rep.URL {
		fmt.Fprintf(w, "  -> %s\n", clean(rep.FinalURL))
	}
	status := fmt.Sprint(rep.Status)
	if rep.Status == 0 {
		status = "no response"
	}
	fmt.Fprintf(w, "status %s, %d ms, %s\n\n", status, rep.Timings.Total.Milliseconds(), htmltable.ByteSize(rep.Sizes.HTML))
	c := seo.PageScore(rep.Findings).Counts
	score := "No score (" + rep.ScoreReason + ")"
	if rep.Score != nil {
		score = fmt.Sprintf("Score %d/100", rep.Score.Value)
	}
	fmt.Fprintf(w, "%s   %d errors, %d warnings, %d notices (distinct check IDs)\n", score, c.Errors, c.Warnings, c.Notices)
	// The grouped lines say how many occurrences each check has beyond its
	// examples, so the cut of the findings' evidence is not repeated here.
	cut := maps.Clone(rep.Truncated)
	delete(cut, "findings")
	delete(cut, "linkChecks")
	if line := truncatedSummary(cut); line != "" {
		fmt.Fprintln(w, line)
	}
	if t, ok := rep.Truncated["linkChecks"]; ok {
		fmt.Fprintf(w, "link checks stopped at their time budget (half of -timeout): %d of %d targets not checked\n", t.Omitted, t.Total)
	}

	if verbose {
		printFindingsFull(w, rep.Findings)
		if t, ok := rep.Truncated["findings"]; ok {
			fmt.Fprintf(w, "  (the evidence of %d of %d occurrences was not kept)\n", t.Omitted, t.Total)
		}
	} else {
		printFindingGroups(w, rep.Findings)
	}
	printMuted(w, rep.Muted)
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
	fmt.Fprintf(w, "  links        %d internal, %d external, %d nofollow%s\n", rep.Links.Internal, rep.Links.External, rep.Links.Nofollow, notChecked(rep.Links.Unchecked))
	fmt.Fprintf(w, "  images       %d, %d without alt%s\n", rep.Images.Total, rep.Images.WithoutAlt, notChecked(rep.Images.Unchecked))
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
	printRendering(w, rep.Render)
	printA11y(w, rep.A11y)
}

// notChecked is the end of a links or images line saying how many targets
// a link check (-links) left unchecked, empty when none.
func notChecked(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(", %d not checked", n)
}

// writeScreenshot writes the viewport (or full-page) screenshot of a
// rendering to name.
func writeScreenshot(name string, rr *analyzer.RenderReport, full bool) error {
	switch {
	case rr == nil || !rr.Rendered:
		reason := "rendering off"
		if rr != nil {
			reason = rr.Reason
		}
		return fmt.Errorf("the page was not rendered (%s)", reason)
	case full && len(rr.FullScreenshot) > 0:
		return os.WriteFile(name, rr.FullScreenshot, 0o644)
	case len(rr.Screenshot) > 0:
		return os.WriteFile(name, rr.Screenshot, 0o644)
	}
	return errors.New("the renderer took none")
}

// verboseExamples is the number of examples -v keeps per check ID, so that
// it prints every occurrence of any real page.
const verboseExamples = 10_000

// maxExamplesFor returns the analyzer's MaxExamples for the output asked:
// every occurrence with -v, the default otherwise.
func maxExamplesFor(verbose bool) int {
	if verbose {
		return verboseExamples
	}
	return 0
}

// printFindingsFull writes every occurrence of every finding with its whole
// evidence, one per line.
func printFindingsFull(w io.Writer, findings []seo.Finding) {
	for _, sev := range []seo.Severity{seo.Error, seo.Warning, seo.Notice} {
		var group []seo.Finding
		for _, f := range findings {
			if f.Severity == sev {
				group = append(group, f)
			}
		}
		if len(group) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s (%d)\n", strings.ToUpper(sev.String()+"s"), len(group))
		for _, f := range group {
			for _, e := range append([]seo.Evidence{f.Evidence}, f.Examples...) {
				fmt.Fprintf(w, "  %-38s %s\n", clean(f.ID), clean(f.Message))
				if ev := evidenceLine(e); ev != "" {
					fmt.Fprintf(w, "  %-38s %s\n", "", ev)
				}
			}
		}
	}
}

// printFindingGroups writes one line per check ID, most severe first: its
// count, its message and at most maxExamples example values or URLs,
// ellipsed to maxExampleChars.
func printFindingGroups(w io.Writer, findings []seo.Finding) {
	for _, sev := range []seo.Severity{seo.Error, seo.Warning, seo.Notice} {
		groups := groupFindings(findings, sev)
		if len(groups) == 0 {
			continue
		}
		n := 0
		for _, g := range groups {
			n += g.count
		}
		fmt.Fprintf(w, "\n%s (%d check IDs, %d findings)\n", strings.ToUpper(sev.String()+"s"), len(groups), n)
		for _, g := range groups {
			fmt.Fprintf(w, "  %-38s %4dx  %s\n", clean(g.id), g.count, clean(g.message))
			if len(g.examples) > 0 {
				more := ""
				if g.count > len(g.examples) {
					more = fmt.Sprintf("  (+%d more, -v for all)", g.count-len(g.examples))
				}
				fmt.Fprintf(w, "  %-38s        e.g. %s%s\n", "", strings.Join(g.examples, "  |  "), more)
			}
		}
	}
}

// printMuted writes the line counting muted findings, if any.
func printMuted(w io.Writer, muted []analyzer.MutedFinding) {
	if len(muted) == 0 {
		return
	}
	parts := make([]string, len(muted))
	for i, m := range muted {
		parts[i] = fmt.Sprintf("%s (%s, %d)", clean(m.ID), m.Severity, m.Count)
	}
	fmt.Fprintf(w, "\nMuted (not in the findings or score): %s\n", strings.Join(parts, ", "))
}

// Limits of the grouped finding output.
const (
	maxExamples     = 3
	maxExampleChars = 100
)

// findingGroup is the findings of one check ID, for printing.
type findingGroup struct {
	id, message string
	count       int
	examples    []string
}

// groupFindings groups the findings of severity sev by ID, in the order
// the IDs first appear. A finding that already stands for several
// occurrences (a Count field above 0) counts as that many.
func groupFindings(findings []seo.Finding, sev seo.Severity) []*findingGroup {
	var out []*findingGroup
	byID := map[string]*findingGroup{}
	for _, f := range findings {
		if f.Severity != sev {
			continue
		}
		g := byID[f.ID]
		if g == nil {
			g = &findingGroup{id: f.ID, message: f.Message}
			byID[f.ID] = g
			out = append(out, g)
		} else if g.message != f.Message {
			g.message = catalogSummary(f.ID, g.message)
		}
		g.count += f.Occurrences()
		for _, e := range append([]seo.Evidence{f.Evidence}, f.Examples...) {
			if ex := example(e); ex != "" && len(g.examples) < maxExamples && !slices.Contains(g.examples, ex) {
				g.examples = append(g.examples, ex)
			}
		}
	}
	return out
}

// example returns the one value that best identifies a finding's
// occurrence, ellipsed to maxExampleChars: its first URL, else its value,
// else its element, with the measure when there is one.
func example(ev seo.Evidence) string {
	var s string
	switch {
	case len(ev.URLs) > 0:
		s = ellipsis(ev.URLs[0], maxExampleChars)
	case ev.Value != "":
		s = fmt.Sprintf("%q", ellipsis(ev.Value, maxExampleChars))
	default:
		s = ellipsis(ev.Element, maxExampleChars)
	}
	if ev.Measured != nil && ev.Threshold != nil {
		s = strings.TrimSpace(fmt.Sprintf("%s %g (limit %g)", s, *ev.Measured, *ev.Threshold))
	}
	return clean(s)
}

// catalogSummary returns the catalogue's summary of id, or fallback.
func catalogSummary(id, fallback string) string {
	for _, c := range analyzer.Catalog() {
		if c.ID == id {
			return c.Summary
		}
	}
	return fallback
}

// evidenceLine formats the whole evidence on one line.
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
		parts = append(parts, strings.Join(ev.URLs, " "))
	}
	if ev.Detail != "" && len(parts) < 2 {
		parts = append(parts, ev.Detail)
	}
	return clean(strings.Join(parts, "  "))
}
