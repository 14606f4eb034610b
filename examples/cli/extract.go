package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/seokit/seokit/analyzer"
	"github.com/seokit/seokit/crawler"
)

// extractFlags are the repeatable -extract and -search flags of analyze and
// crawl.
type extractFlags struct {
	extract []analyzer.Extractor
	search  []analyzer.SearchRule
}

func (x *extractFlags) register(fs *flag.FlagSet) {
	fs.Func("extract", "extract values from every page (repeatable): NAME=css:SELECTOR, NAME=css:SELECTOR@ATTRIBUTE, NAME=xpath:EXPR or NAME=regex:PATTERN (first group, else the match, on the raw HTML)", func(s string) error {
		e, err := analyzer.ParseExtractor(s)
		if err != nil {
			return err
		}
		if len(x.extract) == analyzer.MaxExtractors {
			return fmt.Errorf("at most %d -extract flags", analyzer.MaxExtractors)
		}
		x.extract = append(x.extract, e)
		return nil
	})
	fs.Func("search", "search every page (repeatable): NAME=contains:TEXT, NAME=!contains:TEXT (does not contain), NAME=regex:PATTERN, NAME=!regex:PATTERN on the raw HTML; text-contains, text-regex (and !text-...) search the main text", func(s string) error {
		r, err := analyzer.ParseSearchRule(s)
		if err != nil {
			return err
		}
		if len(x.search) == analyzer.MaxSearchRules {
			return fmt.Errorf("at most %d -search flags", analyzer.MaxSearchRules)
		}
		x.search = append(x.search, r)
		return nil
	})
}

// printExtraction prints a page's extracted values and search outcomes.
func printExtraction(w io.Writer, rep *analyzer.Report) {
	if len(rep.Extracted) > 0 {
		fmt.Fprintln(w, "\nExtracted:")
		for _, x := range rep.Extracted {
			switch {
			case x.Error != "":
				fmt.Fprintf(w, "  %s: %s\n", x.Name, x.Error)
			case len(x.Values) == 0:
				fmt.Fprintf(w, "  %s: %d matches\n", x.Name, x.Count)
			default:
				more := ""
				if x.Omitted > 0 {
					more = fmt.Sprintf(" (+%d more)", x.Omitted)
				}
				fmt.Fprintf(w, "  %s: %s%s\n", x.Name, strings.Join(x.Values, " | "), more)
			}
		}
	}
	if len(rep.Search) > 0 {
		fmt.Fprintln(w, "\nSearch:")
		for _, s := range rep.Search {
			fmt.Fprintf(w, "  %s: %s (%d occurrences)\n", s.Name, matchedWord(s.Matched), s.Occurrences)
		}
	}
}

// printSiteExtraction prints a crawl's counts per extractor and search rule.
func printSiteExtraction(w io.Writer, rep *crawler.SiteReport) {
	if len(rep.Extraction) > 0 {
		fmt.Fprintln(w, "\nExtraction (pages with a value / pages analysed, matches):")
		for _, x := range rep.Extraction {
			fmt.Fprintf(w, "  %s: %d / %d, %d matches", x.Name, x.WithValue, x.Pages, x.Matches)
			if x.Errors > 0 {
				fmt.Fprintf(w, ", %d pages failed", x.Errors)
			}
			fmt.Fprintln(w)
		}
	}
	if len(rep.SearchRules) > 0 {
		fmt.Fprintln(w, "\nSearch (pages matching / not matching):")
		for _, s := range rep.SearchRules {
			fmt.Fprintf(w, "  %s: %d / %d\n", s.Name, s.Matching, s.NotMatching)
		}
	}
}

func matchedWord(ok bool) string {
	if ok {
		return "matched"
	}
	return "not matched"
}
