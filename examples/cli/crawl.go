package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/seokit/seokit/analyzer"
	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/crawler/compare"
	"github.com/seokit/seokit/crawler/crawlreport"
	"github.com/seokit/seokit/render"
	"github.com/seokit/seokit/seo"
)

func runCrawl(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("crawl", flag.ContinueOnError)
	fs.SetOutput(stderr)
	maxPages := fs.Int("max-pages", 500, "stop after this many pages")
	subdomains := fs.Bool("subdomains", false, "crawl subdomains of the site too")
	concurrency := fs.Int("concurrency", 8, "pages fetched at once")
	hostConcurrency := fs.Int("host-concurrency", crawler.DefaultPerHostConcurrency, "requests in flight to one host at once")
	rate := fs.Float64("rate", 0, fmt.Sprintf("requests per second per host (0: the crawler's default of %d; -1: unlimited, for a site of your own on loopback)", crawler.DefaultPerHostRate))
	maxListed := fs.Int("max-pages-listed", crawler.DefaultMaxReportPages, "pages the report lists (JSON, CSV, HTML); the counts and checks cover every page crawled")
	depth := fs.String("depth", "standard", "per-page checks: basic, standard or complete")
	allowPrivate := fs.Bool("allow-private", false, "allow loopback and private network addresses (intranet audits)")
	out := addOutputFlags(fs, "text", "json", "csv", "html")
	htmlFile := fs.String("html", "", "write a self-contained HTML report with charts to this file")
	failOn := fs.String("fail-on", defaultFailOn, failOnUsage)
	compareWith := fs.String("compare", "", "compare the crawl with an earlier site report (a file written by "+prog+" crawl -format json): the diff is printed after the report (to stderr with -format json, csv or html)")
	compareOut := fs.String("compare-out", "", "with -compare, write the diff to this file: .md Markdown, .html HTML, .json JSON, anything else text")
	failOnNew := fs.String("fail-on-new", "none", "with -compare, exit 1 when a finding of this severity or higher is new or on more pages: error, warning, notice or none")
	timeout := fs.Duration("timeout", 30*time.Minute, "time budget of the crawl")
	quiet := fs.Bool("quiet", false, "no progress bar")
	skipExternal := fs.Bool("skip-external-links", false, "do not check external targets: links, refresh and redirect targets, images, scripts, stylesheets, canonical URLs, hreflang alternates (nothing outside the site is requested)")
	noCanonicals := fs.Bool("no-crawl-canonicals", false, "do not crawl the pages' in-scope canonical URLs that no link reaches (crawled by default, so canonical.target_* is reported for them)")
	noHreflang := fs.Bool("no-crawl-hreflang", false, "do not crawl the pages' in-scope hreflang alternates that no link reaches (crawled by default, so hreflang.target_* is reported for them)")
	skipResources := fs.Bool("skip-resource-checks", false, "do not check the site's own images, scripts and stylesheets (each is otherwise requested once per crawl)")
	externalBudget := fs.Duration("external-budget", crawler.DefaultExternalBudget, "longest wait for the checks of external targets once the pages are done (0: the default; negative: no limit)")
	disable := fs.String("disable", "", "comma-separated check IDs or areas to turn off")
	mute := fs.String("mute", "", "comma-separated check IDs or areas whose findings are left out of the findings and scores (counted as muted)")
	verbose := fs.Bool("v", false, "print every example URL of each finding in full")
	renderFlag := fs.String("render", "none", "render pages with JavaScript in headless Chromium: none, auto (only application shells) or always; links found only after rendering are crawled")
	shotDir := fs.String("screenshots", "", "with -render, write each rendered page's viewport screenshot to this directory (files named by the URL's SHA-256)")
	renderTabs := fs.Int("render-tabs", 0, "with -render, pages rendered at once (0: the Chromium pool's default)")
	scope := addScopeFlags(fs)
	aiCrawlers := fs.Bool("ai-crawlers", false, "add the AI crawler readiness matrix: robots.txt per AI crawler, /llms.txt and a firewall probe (about 13 extra requests)")
	skipAIProbe := fs.Bool("skip-ai-probe", false, "with -ai-crawlers, do not fetch the home page as each AI crawler")
	var segments segmentFlags
	fs.Var(&segments, "segment", "group pages: NAME=url:REGEX, NAME=status:404 (or 4xx), NAME=depth:N (or MIN-MAX, MIN-), NAME=extract:EXTRACTOR=REGEX (first value of an -extract; =REGEX optional), NAME=template:FINGERPRINT (see TEMPLATES in the output), NAME=template-of:URL (the template of that page); repeatable, first match wins")
	var xf extractFlags
	xf.register(fs)
	var af a11yFlags
	af.register(fs)
	configFile := fs.String("config", "", "read a saved crawl configuration (JSON; schema: -print-schema); flags given override its settings")
	printConfig := fs.Bool("print-config", false, "print the crawl configuration of this command line and -config as JSON, and exit (credentials redacted)")
	printSchema := fs.Bool("print-schema", false, "print the JSON Schema of a crawl configuration, and exit")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: "+prog+" crawl [flags] DOMAIN\n       "+prog+" crawl [flags] -list FILE | -list-sitemap URL [DOMAIN]\n       "+prog+" crawl -config FILE [flags] DOMAIN")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *printSchema {
		_, err := stdout.Write(crawler.ConfigSchema())
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	cfg, err := crawlConfig(*configFile)
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	if set["max-pages"] {
		cfg.MaxPages = *maxPages
	}
	if set["subdomains"] {
		cfg.IncludeSubdomains = *subdomains
	}
	if set["skip-external-links"] {
		cfg.SkipExternalLinks = *skipExternal
	}
	if set["no-crawl-canonicals"] {
		cfg.NoCrawlCanonicals = *noCanonicals
	}
	if set["no-crawl-hreflang"] {
		cfg.NoCrawlHreflang = *noHreflang
	}
	if set["skip-resource-checks"] {
		cfg.SkipResourceChecks = *skipResources
	}
	if set["ai-crawlers"] {
		cfg.AICrawlers = *aiCrawlers
	}
	if set["skip-ai-probe"] {
		cfg.SkipAICrawlerProbe = *skipAIProbe
	}
	if set["segment"] {
		cfg.Segments = segments.segs
	}
	if set["extract"] {
		cfg.Extract = xf.extract
	}
	if set["search"] {
		cfg.Search = xf.search
	}
	if set["mute"] {
		if cfg.Mute, err = checkIDsFlag("mute", *mute, crawler.Catalog()); err != nil {
			return err
		}
	}
	var listOpts crawler.Options
	start, err := scope.apply(cfg, &listOpts, func(name string) bool { return set[name] }, stderr)
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	if *printConfig {
		return printCrawlConfig(stdout, cfg)
	}
	if fs.NArg() != 1 && (fs.NArg() != 0 || start == "") {
		fs.Usage()
		return &exitError{code: 2, err: errors.New("crawl takes exactly one domain or start URL")}
	}
	domain := fs.Arg(0)
	if domain == "" {
		domain = start
	}
	// A scope that leaves out the start URL is refused before anything is
	// fetched (a list crawl does not crawl its start URL).
	if listOpts.ListSitemap == "" {
		if err := cfg.ValidateFor(domain); err != nil {
			return &exitError{code: 2, err: configError(*configFile, err)}
		}
	}
	format, err := out.resolve()
	if err != nil {
		return err
	}
	if *hostConcurrency < 1 {
		return &exitError{code: 2, err: errors.New("-host-concurrency must be at least 1")}
	}
	if *rate < 0 && *rate != -1 {
		return &exitError{code: 2, err: errors.New("-rate must be positive, 0 (the default) or -1 (unlimited)")}
	}
	if *maxListed < 1 {
		return &exitError{code: 2, err: errors.New("-max-pages-listed must be at least 1")}
	}
	newThreshold, err := parseFailOnNew(*failOnNew)
	if err != nil {
		return err
	}
	if *compareWith == "" && (*compareOut != "" || newThreshold != 0) {
		return &exitError{code: 2, err: errors.New("-compare-out and -fail-on-new need -compare OLD.json")}
	}
	if *compareWith != "" {
		if _, err := os.Stat(*compareWith); err != nil {
			return &exitError{code: 2, err: fmt.Errorf("-compare: %w", err)}
		}
	}
	threshold, err := parseFailOn(*failOn)
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	disabled, err := checkIDsFlag("disable", *disable, crawler.Catalog())
	if err != nil {
		return err
	}
	mode, err := renderModeFlag(*renderFlag)
	if err != nil {
		return err
	}
	mode = af.mode(mode)
	if *shotDir != "" && mode == render.None {
		return &exitError{code: 2, err: errors.New("-screenshots needs -render auto or always")}
	}
	if *renderTabs < 0 {
		return &exitError{code: 2, err: errors.New("-render-tabs must not be negative")}
	}
	renderer, stopRenderer, err := startRenderer(ctx, mode, *allowPrivate, *renderTabs, *af.axe)
	if err != nil {
		return err
	}
	defer stopRenderer()
	af.warn(stderr, renderer)
	opts := &crawler.Options{
		MaxPages:           *maxPages,
		Concurrency:        *concurrency,
		PerHostConcurrency: *hostConcurrency,
		PerHostRate:        *rate,
		MaxReportPages:     *maxListed,
		AllowPrivate:       *allowPrivate,
		TimeBudget:         *timeout,
		Analyzer: &analyzer.Options{Depth: analyzer.Depth(*depth), Disable: disabled,
			Render: mode, Renderer: renderer, A11y: *af.on},
		ExternalBudget: *externalBudget,
	}
	opts.ListSitemap = listOpts.ListSitemap
	if err := cfg.Apply(opts); err != nil {
		return &exitError{code: 2, err: configError(*configFile, err)}
	}
	if *shotDir != "" {
		sink, err := crawler.DirScreenshots(*shotDir)
		if err != nil {
			return &exitError{code: 2, err: err}
		}
		opts.Screenshots = sink
		opts.Analyzer.RenderRequest.Screenshot = render.Viewport
	}
	bar := newProgressBar(stderr, opts.MaxPages)
	bar.budget = opts.ExternalBudget
	if !*quiet {
		opts.Progress = bar.update
	}
	rep, err := crawler.New(opts).Run(ctx, domain)
	bar.finish()
	// A crawl stopped by Ctrl-C keeps what it crawled: the partial report
	// is written as a finished one would be, then the exit code says so.
	interrupted := err != nil && rep != nil && ctx.Err() != nil
	if err != nil && !interrupted {
		return &exitError{code: 2, err: err}
	}
	if *htmlFile != "" {
		if err := writeFile(*htmlFile, func(w io.Writer) error { return crawlreport.WriteHTML(w, rep) }); err != nil {
			return &exitError{code: 2, err: err}
		}
		fmt.Fprintf(stderr, "HTML report written to %s\n", *htmlFile)
	}
	switch format {
	case "json":
		if err := writeJSON(stdout, rep); err != nil {
			return err
		}
	case "csv":
		if err := crawlreport.WriteCSV(stdout, rep); err != nil {
			return err
		}
	case "html":
		if err := crawlreport.WriteHTML(stdout, rep); err != nil {
			return err
		}
	default:
		printSiteReport(stdout, rep, *verbose)
		printSiteExtraction(stdout, rep)
	}
	if interrupted {
		return &exitError{code: 2, err: fmt.Errorf("crawl interrupted: the report is partial (%d pages)", rep.Crawl.Fetched)}
	}
	if un := rep.Crawl.Unreachable; un != nil {
		return &exitError{code: 2, err: fmt.Errorf("%s is unreachable: %s gave no response (%s)", domain, un.URL, un.Kind)}
	}
	if rep.Crawl.Fetched == 0 {
		return &exitError{code: 2, err: fmt.Errorf("no page of %s could be fetched (%s)", domain, strings.ReplaceAll(cmp.Or(rep.ScoreReason, rep.Crawl.StopReason), "_", " "))}
	}
	if *compareWith != "" {
		d, err := compare.Sites(ctx, compare.File(*compareWith), compare.Report(rep), nil)
		if err != nil {
			return &exitError{code: 2, err: fmt.Errorf("-compare: %w", err)}
		}
		w := stdout
		if format != "text" {
			w = stderr
		}
		fmt.Fprintln(w)
		if err := d.WriteText(w); err != nil {
			return err
		}
		if *compareOut != "" {
			format := "text"
			switch strings.ToLower(filepath.Ext(*compareOut)) {
			case ".md", ".markdown":
				format = "markdown"
			case ".html", ".htm":
				format = "html"
			case ".json":
				format = "json"
			}
			if err := writeDiff(d, format, *compareOut, 0, nil); err != nil {
				return err
			}
			fmt.Fprintf(stderr, "diff written to %s\n", *compareOut)
		}
		if newThreshold != 0 && d.NewFindings(newThreshold) > 0 {
			return errFindings
		}
	}
	if threshold > 0 {
		for _, g := range rep.Findings {
			if g.Severity >= threshold {
				return errFindings
			}
		}
	}
	return nil
}

// crawlConfig reads the configuration file name ("" for none) with
// crawler.DecodeConfig. Its errors name the file and the field.
func crawlConfig(name string) (*crawler.Config, error) {
	if name == "" {
		return &crawler.Config{}, nil
	}
	fh, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	c, err := crawler.DecodeConfig(fh)
	if err != nil {
		return nil, configError(name, err)
	}
	return c, nil
}

// configError names the configuration file and the field at fault.
func configError(file string, err error) error {
	ie, ok := seo.AsInputError(err)
	if !ok {
		return err
	}
	msg := ie.Field + ": " + ie.Reason
	if ie.Value != "" {
		msg += fmt.Sprintf(" (got %q)", seo.Clip(ie.Value))
	}
	if file == "" {
		return errors.New(msg)
	}
	return fmt.Errorf("-config %s: %s", file, msg)
}

// printCrawlConfig writes c as an indented JSON document, its credentials
// redacted: the values of secret headers, the password, cookie values.
func printCrawlConfig(w io.Writer, c *crawler.Config) error {
	r := *c
	if len(c.Headers) > 0 {
		r.Headers = map[string]string{}
		for k, v := range c.Headers {
			if seo.IsSecretHeader(k) {
				v = seo.Redacted
			}
			r.Headers[k] = v
		}
	}
	if c.BasicAuth != nil {
		r.BasicAuth = &crawler.BasicAuth{Username: c.BasicAuth.Username, Password: seo.Redacted}
	}
	if len(c.Cookies) > 0 {
		r.Cookies = map[string]string{}
		for k := range c.Cookies {
			r.Cookies[k] = seo.Redacted
		}
	}
	return writeJSON(w, &r)
}

func writeFile(name string, write func(io.Writer) error) error {
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// printSiteReport writes the site report for people: one line per finding
// ID with its count and two example URLs, ellipsed (all of them in full
// when verbose), then the muted IDs.
func printSiteReport(w io.Writer, rep *crawler.SiteReport, verbose bool) {
	c := rep.Crawl
	fmt.Fprintf(w, "%s (start %s)\n", clean(rep.Domain), clean(rep.StartURL))
	robots := fmt.Sprintf("%d blocked by robots.txt", c.Blocked)
	if c.RobotsUnavailable > 0 {
		robots += fmt.Sprintf(", %d not fetched as robots.txt was unavailable", c.RobotsUnavailable)
	}
	fmt.Fprintf(w, "%d pages in %s (%.0f pages/s), %d queued, %d skipped, %s, %d errors; stopped: %s\n",
		c.Fetched, c.Duration.Round(time.Millisecond), c.PagesPerSecond, c.Queued, c.Skipped, robots, c.Errors, c.StopReason)
	if un := c.Unreachable; un != nil {
		fmt.Fprintf(w, "Unreachable   %s gave no response (%s): %s\n", clean(un.URL), un.Kind, clean(un.Error))
	}
	fc := rep.FindingCounts
	scored := 0
	for _, p := range rep.Pages {
		if p.Score != nil {
			scored++
		}
	}
	score := "none (" + strings.ReplaceAll(rep.ScoreReason, "_", " ") + ")"
	if rep.Score != nil {
		score = fmt.Sprintf("%d/100", rep.Score.Value)
	}
	fmt.Fprintf(w, "Site score %s (%d scored pages)   findings: %d errors, %d warnings, %d notices (distinct checks: %d, %d, %d)\n",
		score, scored, fc.Findings.Errors, fc.Findings.Warnings, fc.Findings.Notices, fc.Checks.Errors, fc.Checks.Warnings, fc.Checks.Notices)
	if line := truncatedSummary(rep.Truncated); line != "" {
		fmt.Fprintln(w, line)
	}
	if line := externalSummary(rep); line != "" {
		fmt.Fprintln(w, line)
	}

	codes := make([]int, 0, len(rep.StatusCodes))
	for code := range rep.StatusCodes {
		codes = append(codes, code)
	}
	sort.Ints(codes)
	var parts []string
	for _, code := range codes {
		parts = append(parts, fmt.Sprintf("%d: %d", code, rep.StatusCodes[code]))
	}
	fmt.Fprintf(w, "Status codes  %s\n", strings.Join(parts, ", "))
	if len(rep.NotFetched) > 0 {
		total := len(rep.NotFetched)
		if t, ok := rep.Truncated["notFetched"]; ok {
			total = t.Total
		}
		var ex []string
		for _, u := range rep.NotFetched[:min(3, len(rep.NotFetched))] {
			ex = append(ex, clean(u.URL)+" ("+u.Reason+")")
		}
		fmt.Fprintf(w, "Not fetched   %d (no response or left out as a trap, not counted as pages): %s\n", total, strings.Join(ex, ", "))
	}
	for _, tr := range c.Traps {
		fmt.Fprintf(w, "Crawl trap    %s (%s): %d URLs left out\n", clean(tr.Pattern), tr.Reason, tr.Dropped)
	}
	fmt.Fprintf(w, "Depths        %s (click depth: pages)\n", depthHistogram(c.DepthHistogram))
	printSkipped(w, &c, verbose)
	printRenderSummary(w, rep.Render)
	printA11ySummary(w, rep.A11y)
	printSegments(w, rep.Segments)
	printTemplates(w, rep)
	printAICrawlers(w, rep.AICrawlers)
	for _, sev := range []seo.Severity{seo.Error, seo.Warning, seo.Notice} {
		first := true
		for _, g := range rep.Findings {
			if g.Severity != sev {
				continue
			}
			if first {
				fmt.Fprintf(w, "\n%s\n", strings.ToUpper(sev.String()+"s"))
				first = false
			}
			examples := g.Examples
			if !verbose {
				examples = make([]string, min(2, len(g.Examples)))
				for i := range examples {
					examples[i] = ellipsis(g.Examples[i], maxExampleChars)
				}
			}
			where := fmt.Sprintf("on %d URLs", max(g.URLs, g.Pages))
			if g.Groups > 0 {
				where = fmt.Sprintf("%d URLs in %d groups", g.URLs, g.Groups)
			}
			if g.Template {
				where += ", every analysed page (template)"
			}
			fmt.Fprintf(w, "  %-40s %5d %s  %s\n", clean(g.ID), g.Count, where, clean(strings.Join(examples, " ")))
			for k, m := range g.Members {
				if !verbose && k == 2 {
					fmt.Fprintf(w, "  %-40s       … %d more groups (-v lists them)\n", "", len(g.Members)-k)
					break
				}
				list := m
				if !verbose && len(list) > 4 {
					list = list[:4]
				}
				more := ""
				if len(list) < len(m) {
					more = fmt.Sprintf(" … (%d listed)", len(m))
				}
				fmt.Fprintf(w, "  %-40s       group %d: %s%s\n", "", k+1, clean(strings.Join(list, " ")), more)
			}
		}
	}
	printMuted(w, rep.Muted)
}

// externalSummary says how many external link targets were checked and
// why the others were not; "" when none were found.
func externalSummary(rep *crawler.SiteReport) string {
	if rep.ExternalChecked+rep.ExternalUnchecked == 0 {
		return ""
	}
	line := fmt.Sprintf("External links %d checked", rep.ExternalChecked)
	if rep.ExternalUnchecked > 0 {
		reasons := make([]string, 0, len(rep.ExternalUncheckedReasons))
		for r, n := range rep.ExternalUncheckedReasons {
			reasons = append(reasons, fmt.Sprintf("%s %d", r, n))
		}
		sort.Strings(reasons)
		line += fmt.Sprintf(", %d not checked (%s)", rep.ExternalUnchecked, strings.Join(reasons, ", "))
	}
	if h := rep.ExternalFailingHosts; len(h) > 0 {
		line += "; hosts given up after 3 failures: " + clean(strings.Join(h[:min(5, len(h))], " "))
		if len(h) > 5 {
			line += fmt.Sprintf(" and %d more", len(h)-5)
		}
	}
	return line
}

// progressBar draws crawl progress on a terminal; elsewhere it only says,
// once, that the crawl is waiting for its external link checks.
type progressBar struct {
	w      io.Writer
	tty    bool
	max    int
	budget time.Duration // Options.ExternalBudget, for the notice
	drawn  bool
	noted  bool // the external phase was announced (not a terminal)
}

func newProgressBar(w io.Writer, max int) *progressBar {
	tty := false
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil {
			tty = st.Mode()&os.ModeCharDevice != 0
		}
	}
	return &progressBar{w: w, tty: tty, max: max}
}

func (b *progressBar) update(p crawler.Progress) {
	if !b.tty {
		if p.Phase == crawler.PhaseCheckingExternal && p.External != nil && !b.noted {
			b.noted = true
			fmt.Fprintf(b.w, "pages done; checking external links (%d of %d done, %s); -skip-external-links skips them\n",
				p.External.Done, p.External.Total, budgetText(b.budget))
		}
		return
	}
	if p.Phase == crawler.PhaseCheckingExternal && p.External != nil {
		fmt.Fprintf(b.w, "\r%d pages done; checking external links: %d/%d, %d given up (%s) %-30s",
			p.Done, p.External.Done, p.External.Total, p.External.Unchecked, budgetText(b.budget), "")
		b.drawn = true
		return
	}
	const width = 30
	frac := 0.0
	if b.max > 0 {
		frac = min(1, float64(p.Done)/float64(b.max))
	}
	n := int(frac * width)
	cur := clean(p.Current)
	if r := []rune(cur); len(r) > 50 {
		cur = string(r[:47]) + "..."
	}
	fmt.Fprintf(b.w, "\r[%s%s] %d/%d pages, %d queued, %d errors, %.0f pages/s %-50s",
		strings.Repeat("#", n), strings.Repeat(".", width-n), p.Done, b.max, p.Queued, p.Errors, p.PagesPerSecond, cur)
	b.drawn = true
}

func (b *progressBar) finish() {
	if b.drawn {
		fmt.Fprintln(b.w)
	}
}

// budgetText describes the external check budget.
func budgetText(d time.Duration) string {
	if d == 0 {
		d = crawler.DefaultExternalBudget
	}
	if d < 0 {
		return "no time limit"
	}
	return "at most " + d.String()
}
