package crawler

import (
	"iter"

	"github.com/seokit/seokit/analyzer"
	"github.com/seokit/seokit/seo"
)

// Caps of the extracted values a PageSummary keeps: per extractor, and in
// bytes over all its extractors, so that a crawl's summaries stay small
// whatever the extractors match; the page's full report (the Sink) keeps up
// to Extractor.MaxValues.
const (
	MaxSummaryValues     = 5
	MaxSummaryValueChars = 200
	MaxSummaryValueBytes = 2000
)

// ExtractorStats counts the pages of a crawl for one extractor
// (analyzer.Options.Extract).
type ExtractorStats struct {
	Name string `json:"name"`
	// Pages counts the pages the extractor ran on (HTML pages answered
	// with a 2xx status); WithValue those where it matched at least once;
	// Matches sums the matches; Errors counts the pages where it failed
	// (analyzer.Extraction.Error).
	Pages     int `json:"pages"`
	WithValue int `json:"withValue"`
	Matches   int `json:"matches"`
	Errors    int `json:"errors,omitempty"`
}

// SearchStats counts the pages of a crawl for one search rule
// (analyzer.Options.Search): Matching those where the rule is met,
// NotMatching those where it is not.
type SearchStats struct {
	Name        string `json:"name"`
	Matching    int    `json:"matching"`
	NotMatching int    `json:"notMatching"`
}

// validateExtraction validates the extractors and search rules of o, with
// fields named "analyzer.extract[i].expr" ...
func validateExtraction(o *analyzer.Options) error {
	if o == nil {
		return nil
	}
	if _, err := analyzer.CompileExtractors(o.Extract); err != nil {
		return prefixField(err, "analyzer.")
	}
	if _, err := analyzer.CompileSearchRules(o.Search); err != nil {
		return prefixField(err, "analyzer.")
	}
	return nil
}

func prefixField(err error, prefix string) error {
	if ie, ok := seo.AsInputError(err); ok {
		return ie.WithField(prefix + ie.Field)
	}
	return err
}

// compileExtraction compiles a's extractors and search rules once for the
// pages of a crawl (validateExtraction has checked them).
func compileExtraction(a *analyzer.Options) {
	if x, err := analyzer.CompileExtractors(a.Extract); err == nil {
		a.Extract = x
	}
	if s, err := analyzer.CompileSearchRules(a.Search); err == nil {
		a.Search = s
	}
}

// summarizeExtraction copies the extraction and search outcomes of rep into
// s, keeping MaxSummaryValues values of at most MaxSummaryValueChars
// characters per extractor, MaxSummaryValueBytes in all (Omitted counts the
// rest).
func summarizeExtraction(s *PageSummary, rep *analyzer.Report) {
	s.Search = rep.Search
	if rep.Extracted == nil {
		return
	}
	s.Extracted = make([]analyzer.Extraction, len(rep.Extracted))
	budget := MaxSummaryValueBytes
	for i, x := range rep.Extracted {
		if len(x.Values) > MaxSummaryValues {
			x.Values = x.Values[:MaxSummaryValues]
		}
		vs := make([]string, 0, len(x.Values))
		for _, v := range x.Values {
			v = seo.ClipTo(v, MaxSummaryValueChars)
			if len(v) > budget {
				break
			}
			budget -= len(v)
			vs = append(vs, v)
		}
		x.Values = vs
		x.Omitted += len(rep.Extracted[i].Values) - len(vs)
		s.Extracted[i] = x
	}
}

// extractionStats counts pages per extractor and search rule of ao, in
// their configured order; nil when none are configured.
func extractionStats(pages iter.Seq2[int, *PageSummary], ao *analyzer.Options) ([]ExtractorStats, []SearchStats) {
	if ao == nil || (len(ao.Extract) == 0 && len(ao.Search) == 0) {
		return nil, nil
	}
	var xs []ExtractorStats
	var ss []SearchStats
	xi := make(map[string]int, len(ao.Extract))
	for i, e := range ao.Extract {
		xs = append(xs, ExtractorStats{Name: e.Name})
		xi[e.Name] = i
	}
	si := make(map[string]int, len(ao.Search))
	for i, r := range ao.Search {
		ss = append(ss, SearchStats{Name: r.Name})
		si[r.Name] = i
	}
	for _, p := range pages {
		for _, x := range p.Extracted {
			j, ok := xi[x.Name]
			if !ok {
				continue
			}
			st := &xs[j]
			st.Pages++
			st.Matches += x.Count
			switch {
			case x.Error != "":
				st.Errors++
			case x.Count > 0:
				st.WithValue++
			}
		}
		for _, m := range p.Search {
			j, ok := si[m.Name]
			if !ok {
				continue
			}
			if m.Matched {
				ss[j].Matching++
			} else {
				ss[j].NotMatching++
			}
		}
	}
	return xs, ss
}
