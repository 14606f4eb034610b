package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/seokit/seokit/crawler/compare"
	"github.com/seokit/seokit/logs"
	"github.com/seokit/seokit/seo"
	"github.com/seokit/seokit/seo/robotstxt"
)

// runLogs analyses access logs: bots by class, verified, joined with a
// crawl report when one is given.
func runLogs(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("logs", flag.ContinueOnError)
	fs.SetOutput(stderr)
	format := fs.String("input-format", "auto", "log format: auto, combined, common, w3c, json or nginx (with -log-format)")
	logFormat := fs.String("log-format", "", "a custom nginx log_format (or Apache LogFormat) string; implies -input-format nginx")
	fields := fs.String("fields", "", "JSON lines field map: cloudflare, cloudfront, generic, or key=name pairs (time=ts,ip=client,target=uri,status=code,ua=agent,host=,method=,bytes=,referer=,duration=,unit=ms)")
	crawl := fs.String("crawl", "", "a site report written by `"+prog+" crawl -format json` to join the log with (orphans, URLs never fetched, crawl waste)")
	robots := fs.String("robots", "", "the site's robots.txt, a file or an http(s) URL fetched with the safe fetcher, for `robots.txt says / bot did`")
	verify := fs.Bool("verify", true, "verify bots by their operators' published IP ranges and forward-confirmed reverse DNS")
	dnsAddr := fs.String("dns", "", "DNS server (host:port) for reverse DNS; default: the system's")
	ranges := fs.String("ranges", "", "read the operators' IP-range files from this directory (NAME.json or NAME.txt) instead of fetching them")
	stripQuery := fs.Bool("strip-query", false, "drop query strings from the report's URLs")
	maxURLs := fs.Int("max-urls", 0, "URLs tracked one by one (0: 50,000); the rest are summed as other URLs")
	top := fs.Int("top", 0, "URLs listed in the report, the most bot hits first (0: 100; at most -max-urls)")
	output := addOutputFlags(fs, "text", "json", "csv")
	out := fs.String("o", "", "write the report to this file instead of standard output")
	htmlFile := fs.String("html", "", "also write a self-contained HTML report with charts (bot hits and status mix per day, bots, URLs, the crawl join) to this file")
	quiet := fs.Bool("quiet", false, "no progress on standard error")
	allowPrivate := fs.Bool("allow-private", false, "let -robots URLs and range files be fetched from loopback and private network addresses")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: "+prog+" logs [flags] FILE...")
		fmt.Fprintln(stderr, "Analyses access logs (plain or gzip; - is standard input): hits, URLs, bytes, status and")
		fmt.Fprintln(stderr, "response time per bot and class by day, bots verified or spoofed, and with -crawl the join")
		fmt.Fprintln(stderr, "with a crawl of the same site.")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return &exitError{code: 2, err: errors.New("logs takes one or more log files (- for standard input)")}
	}
	if in := output.inputAlias(stderr, "auto", "combined", "common", "w3c", "nginx"); in != "" {
		*format = in
	}
	outFormat, err := output.resolve()
	if err != nil {
		return err
	}
	opts := &logs.Options{Format: logs.Format(*format), LogFormat: *logFormat, StripQuery: *stripQuery, MaxURLs: *maxURLs, TopURLs: *top}
	switch opts.Format {
	case logs.FormatAuto, logs.FormatCombined, logs.FormatCommon, logs.FormatW3C, logs.FormatJSON, logs.FormatNginx:
	default:
		return &exitError{code: 2, err: fmt.Errorf("-input-format %q: want auto, combined, common, w3c, json or nginx", *format)}
	}
	if *logFormat != "" {
		if *format != "auto" && *format != "nginx" {
			return &exitError{code: 2, err: errors.New("-log-format goes with -input-format nginx (or none)")}
		}
		opts.Format = logs.FormatNginx
		if _, err := logs.NewNginxParser(*logFormat); err != nil {
			return &exitError{code: 2, err: fmt.Errorf("-log-format: %w", err)}
		}
	}
	if opts.Format == logs.FormatNginx && *logFormat == "" {
		return &exitError{code: 2, err: errors.New("-format nginx needs -log-format")}
	}
	if *maxURLs < 0 || *top < 0 {
		return &exitError{code: 2, err: errors.New("-max-urls and -top must not be negative")}
	}
	if *fields != "" {
		fm, err := parseFieldMap(*fields)
		if err != nil {
			return &exitError{code: 2, err: fmt.Errorf("-fields: %w", err)}
		}
		opts.Fields = fm
	}
	fetcher := seo.NewFetcher(&seo.FetcherOptions{AllowPrivate: *allowPrivate})
	if *verify {
		vo := &logs.VerifierOptions{}
		if *dnsAddr != "" {
			vo.Resolver = logs.NewDNSResolver(*dnsAddr)
		}
		if *ranges != "" {
			vo.Ranges = logs.DirRanges(*ranges)
		} else {
			vo.Ranges = logs.NewHTTPRanges(fetcher, nil)
		}
		opts.Verifier = logs.NewVerifier(vo)
	}
	if *crawl != "" {
		if _, err := os.Stat(*crawl); err != nil {
			return &exitError{code: 2, err: fmt.Errorf("-crawl: %w", err)}
		}
		opts.Crawl = compare.File(*crawl)
	}
	if *robots != "" {
		r, err := loadRobots(ctx, fetcher, *robots)
		if err != nil {
			return &exitError{code: 2, err: fmt.Errorf("-robots: %w", err)}
		}
		opts.Robots = r
	}
	if !*quiet {
		opts.Progress = func(p logs.Progress) {
			if p.Done && p.Lines < 1_000_000 {
				return
			}
			state := "reading"
			if p.Done {
				state = "read"
			}
			fmt.Fprintf(stderr, "logs: %d lines; %s %s, %.1f MiB\n", p.Lines, state, clean(p.Input), float64(p.InputRead)/(1<<20))
		}
	}
	inputs := make([]logs.Input, fs.NArg())
	for i, name := range fs.Args() {
		inputs[i] = logs.File(name)
	}
	rep, err := logs.Analyze(ctx, inputs, opts)
	if err != nil && rep == nil {
		return &exitError{code: 2, err: err}
	}
	failed := 0
	for _, in := range rep.Inputs {
		if in.Error != "" {
			failed++
			fmt.Fprintf(stderr, "logs: %s: %s\n", clean(in.Name), clean(in.Error))
		}
	}
	write := func(w io.Writer) error {
		switch outFormat {
		case "json":
			return writeJSON(w, rep)
		case "csv":
			return rep.WriteCSV(w)
		}
		return rep.WriteText(w)
	}
	var werr error
	if *htmlFile != "" {
		f, err := os.Create(*htmlFile)
		if err != nil {
			return &exitError{code: 2, err: fmt.Errorf("-html: %w", err)}
		}
		if err := errors.Join(rep.WriteHTML(f), f.Close()); err != nil {
			return &exitError{code: 2, err: fmt.Errorf("-html: %w", err)}
		}
	}
	if *out == "" {
		werr = write(stdout)
	} else {
		var f *os.File
		if f, werr = os.Create(*out); werr == nil {
			werr = errors.Join(write(f), f.Close())
		}
	}
	switch {
	case werr != nil:
		return &exitError{code: 2, err: werr}
	case err != nil:
		return &exitError{code: 2, err: err}
	case failed == len(rep.Inputs):
		return &exitError{code: 2, err: errors.New("no log could be read")}
	}
	return nil
}

// loadRobots reads robots.txt from a file, or fetches it from an http(s)
// URL with the safe fetcher (a 4xx answer allows everything and a 5xx
// disallows everything, as RFC 9309 says).
func loadRobots(ctx context.Context, f *seo.Fetcher, src string) (*robotstxt.Robots, error) {
	if strings.HasPrefix(src, "http://") || strings.HasPrefix(src, "https://") {
		resp, err := f.Fetch(ctx, &seo.Request{URL: src, MaxBodyBytes: robotstxt.MaxSize})
		if err != nil {
			return nil, err
		}
		return robotstxt.FromStatus(resp.Status, resp.Body), nil
	}
	b, err := readCapped(src, robotstxt.MaxSize)
	if err != nil {
		return nil, err
	}
	return robotstxt.Parse(b), nil
}

// readCapped reads at most max bytes of the file at path.
func readCapped(path string, max int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, max))
}

// parseFieldMap reads -fields: a preset name or key=name pairs.
func parseFieldMap(s string) (*logs.FieldMap, error) {
	switch s {
	case "cloudflare":
		fm := logs.CloudflareFields
		return &fm, nil
	case "cloudfront":
		fm := logs.CloudFrontFields
		return &fm, nil
	case "generic":
		fm := logs.GenericFields
		return &fm, nil
	}
	fm := &logs.FieldMap{}
	set := map[string]*string{"time": &fm.Time, "host": &fm.Host, "ip": &fm.IP, "method": &fm.Method, "target": &fm.Target,
		"path": &fm.Path, "query": &fm.Query, "status": &fm.Status, "bytes": &fm.Bytes, "referer": &fm.Referer, "ua": &fm.UserAgent,
		"duration": &fm.Duration, "unit": &fm.DurationUnit}
	for _, pair := range splitList(s) {
		k, v, ok := strings.Cut(pair, "=")
		p := set[strings.TrimSpace(k)]
		if !ok || p == nil {
			return nil, fmt.Errorf("%q: want cloudflare, cloudfront, generic or key=name pairs with keys time, host, ip, method, target, path, query, status, bytes, referer, ua, duration, unit", pair)
		}
		*p = strings.TrimSpace(v)
	}
	if fm.Time == "" || fm.Status == "" || (fm.Target == "" && fm.Path == "") {
		return nil, errors.New("a field map needs time, status and target (or path)")
	}
	switch fm.DurationUnit {
	case "", "s", "ms", "us", "ns":
	default:
		return nil, fmt.Errorf("unit %q: want s, ms, us or ns", fm.DurationUnit)
	}
	return fm, nil
}
