package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"

	"github.com/seokit/seokit/crawler"
)

// prog is the program's name in usage lines and errors: the base name of
// the binary (main sets it from os.Args[0]), "cli" under go run.
var prog = "cli"

// cliWord finds the command's name at the start of a command in usage
// text: "cli crawl", "(cli checks", "`cli crawl".
var cliWord = regexp.MustCompile("(^|[\\s\"(`])cli( )")

// progText returns usage text with the program's real name.
func progText(s string) string {
	if prog == "cli" {
		return s
	}
	return cliWord.ReplaceAllString(s, "${1}"+prog+"${2}")
}

// outputFlags is the output convention of every command: -format names
// the output (text by default), and the older -json (and -csv where a
// command had it) are deprecated aliases of -format json and -format csv.
type outputFlags struct {
	format  string
	json    bool
	csv     bool
	allowed []string
}

// addOutputFlags registers -format with the formats a command writes
// (text first), and the deprecated aliases.
func addOutputFlags(fs *flag.FlagSet, allowed ...string) *outputFlags {
	o := &outputFlags{allowed: allowed}
	fs.StringVar(&o.format, "format", "text", "output: "+strings.Join(allowed, ", "))
	fs.BoolVar(&o.json, "json", false, "deprecated: -format json")
	if slices.Contains(allowed, "csv") {
		fs.BoolVar(&o.csv, "csv", false, "deprecated: -format csv")
	}
	return o
}

// resolve returns the output format the flags name; an unknown format or
// aliases that disagree with -format are usage errors naming the flag.
func (o *outputFlags) resolve() (string, error) {
	f := strings.ToLower(strings.TrimSpace(o.format))
	if o.json && o.csv {
		return "", &exitError{code: 2, err: errors.New("-json and -csv cannot be combined; use -format")}
	}
	for _, alias := range []struct {
		set  bool
		name string
	}{{o.json, "json"}, {o.csv, "csv"}} {
		if !alias.set {
			continue
		}
		if f != "text" && f != alias.name {
			return "", &exitError{code: 2, err: fmt.Errorf("-%s and -format %s disagree (-%s is -format %s)", alias.name, f, alias.name, alias.name)}
		}
		f = alias.name
	}
	if !slices.Contains(o.allowed, f) {
		return "", &exitError{code: 2, err: fmt.Errorf("-format must be %s, not %q", strings.Join(o.allowed, ", "), o.format)}
	}
	return f, nil
}

// defaultFailOn is the -fail-on default of analyze and crawl: a finding of
// severity error makes the exit code 1, as in a CI pipeline.
const defaultFailOn = "error"

// failOnUsage is the help of -fail-on.
const failOnUsage = "exit 1 when a finding has this severity or higher: error, warning, notice or none"

// depthHistogram writes pages per click depth for people, "0: 1, 1: 18,
// 2: 11", leaving out empty depths.
func depthHistogram(h []int) string {
	var parts []string
	for d, n := range h {
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%d: %d", d, n))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// skippedReasons explains the reasons of CrawlStats.ScopeSkipped.
var skippedReasons = map[string]string{
	crawler.SkipExcluded:    "excluded by -exclude",
	crawler.SkipNotIncluded: "not matched by -include",
	crawler.SkipFolderDepth: "deeper than -max-folder-depth",
	crawler.SkipNotInScope:  "list URL outside the site",
	crawler.SkipURLTooLong:  "URL too long",
	crawler.SkipTooDeep:     "more clicks from the start than the depth limit",
	crawler.SkipQueueFull:   "the queue of URLs was full",
}

// printSkipped lists the URLs a crawl left out by reason, with their
// counts and at most examples URLs each (all the report kept when
// verbose); the report keeps a few examples per reason, never every URL.
func printSkipped(w io.Writer, c *crawler.CrawlStats, verbose bool) {
	if c.Skipped == 0 && c.Blocked == 0 {
		return
	}
	listed := 0
	for _, s := range c.ScopeSkipped {
		listed += s.Count
	}
	fmt.Fprintf(w, "Skipped       %d URLs not requested", c.Skipped)
	if c.Blocked > 0 {
		fmt.Fprintf(w, ", %d blocked by robots.txt", c.Blocked)
	}
	fmt.Fprintln(w)
	for _, s := range c.ScopeSkipped {
		ex := slices.Clone(s.Examples)
		if !verbose && len(ex) > 2 {
			ex = ex[:2]
		}
		for i := range ex {
			ex[i] = clean(ellipsis(ex[i], maxExampleChars))
		}
		why := skippedReasons[s.Reason]
		if why == "" {
			why = s.Reason
		}
		more := ""
		if s.Count > len(ex) {
			more = " …"
		}
		fmt.Fprintf(w, "  %-22s %6d  %s%s  (%s)\n", clean(s.Reason), s.Count, strings.Join(ex, " "), more, why)
	}
	if rest := c.Skipped - listed; rest > 0 {
		fmt.Fprintf(w, "  %-22s %6d  (left out by a trap guard, see Crawl trap and Not fetched, or links past the per-page cap)\n", "trap", rest)
	}
}

// inputAlias reads -format as the command's older input-format flag when
// its value is one of inputs and no output format: the value is returned
// (for -input-format), -format goes back to text, and stderr is told the
// new spelling. It returns "" otherwise.
func (o *outputFlags) inputAlias(stderr io.Writer, inputs ...string) string {
	f := strings.ToLower(strings.TrimSpace(o.format))
	if slices.Contains(o.allowed, f) || !slices.Contains(inputs, f) {
		return ""
	}
	fmt.Fprintf(stderr, "%s: -format %s names the input: use -input-format %s (-format is the output: %s)\n",
		prog, f, f, strings.Join(o.allowed, ", "))
	o.format = "text"
	return f
}
