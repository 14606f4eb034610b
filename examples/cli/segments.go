package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/seokit/seokit/crawler"
)

// segmentFlags collects repeated -segment flags:
// NAME=url:REGEX, NAME=status:404 (or 4xx), NAME=depth:N, NAME=depth:MIN-MAX,
// NAME=depth:MIN-, NAME=extract:EXTRACTOR (the page has a value of the
// -extract named EXTRACTOR), NAME=extract:EXTRACTOR=REGEX (its first value
// matches REGEX), NAME=template:FINGERPRINT (a template of the report's
// templates) or NAME=template-of:URL (the template of that crawled page).
// Flags naming the same segment add conditions to it.
type segmentFlags struct {
	segs []crawler.Segment
}

func (f *segmentFlags) String() string { return "" }

func (f *segmentFlags) Set(v string) error {
	name, cond, ok := strings.Cut(v, "=")
	kind, arg, ok2 := strings.Cut(cond, ":")
	if !ok || !ok2 || name == "" || arg == "" {
		return fmt.Errorf("want NAME=url:REGEX, NAME=status:CODE, NAME=depth:MIN-MAX, NAME=extract:EXTRACTOR=REGEX, NAME=template:FINGERPRINT or NAME=template-of:URL, got %q", v)
	}
	i := len(f.segs)
	for j := range f.segs {
		if f.segs[j].Name == name {
			i = j
		}
	}
	if i == len(f.segs) {
		f.segs = append(f.segs, crawler.Segment{Name: name})
	}
	s := &f.segs[i]
	switch kind {
	case "url":
		s.URL = arg
	case "status":
		s.Status = arg
	case "depth":
		lo, hi, ranged := strings.Cut(arg, "-")
		from, err := strconv.Atoi(lo)
		if err != nil {
			return fmt.Errorf("depth %q: want N, MIN-MAX or MIN-", arg)
		}
		s.MinDepth = &from
		switch {
		case !ranged:
			s.MaxDepth = &from
		case hi != "":
			to, err := strconv.Atoi(hi)
			if err != nil {
				return fmt.Errorf("depth %q: want N, MIN-MAX or MIN-", arg)
			}
			s.MaxDepth = &to
		}
	case "extract":
		s.Extract, s.Value, _ = strings.Cut(arg, "=")
	case "template":
		s.Template = arg
	case "template-of":
		s.TemplateOf = arg
	default:
		return fmt.Errorf("segment kind %q: want url, status, depth, extract, template or template-of", kind)
	}
	return crawler.ValidateSegments(f.segs)
}

// printSegments writes one line per segment: its pages and findings.
func printSegments(w io.Writer, segs []crawler.SegmentSummary) {
	if len(segs) == 0 {
		return
	}
	fmt.Fprintln(w, "\nSEGMENTS")
	for _, s := range segs {
		fmt.Fprintf(w, "  %-20s %6d pages  %d errors, %d warnings, %d notices", clean(s.Name), s.Pages, s.Findings.Errors, s.Findings.Warnings, s.Findings.Notices)
		if s.Template != "" {
			fmt.Fprintf(w, "  (template %s)", s.Template)
		}
		if s.Reason != "" {
			fmt.Fprintf(w, "  (%s)", clean(s.Reason))
		}
		fmt.Fprintln(w)
	}
}

// maxPrintedTemplates is how many templates printTemplates lists.
const maxPrintedTemplates = 5

// printTemplates writes the page templates with the most pages, each with
// its page count and an example URL, for -segment NAME=template:FINGERPRINT.
func printTemplates(w io.Writer, rep *crawler.SiteReport) {
	if len(rep.Templates) == 0 {
		return
	}
	total := len(rep.Templates)
	if t, ok := rep.Truncated["templates"]; ok {
		total = t.Total
	}
	fmt.Fprintf(w, "\nTEMPLATES (%d; segment by one with -segment NAME=template:FINGERPRINT)\n", total)
	for _, t := range rep.Templates[:min(maxPrintedTemplates, len(rep.Templates))] {
		fmt.Fprintf(w, "  %s %6d pages  e.g. %s\n", t.Template, t.Pages, clean(t.ExampleURL))
	}
	if more := total - min(maxPrintedTemplates, len(rep.Templates)); more > 0 {
		fmt.Fprintf(w, "  ... %d more (-format json or -html lists %d)\n", more, len(rep.Templates))
	}
}
