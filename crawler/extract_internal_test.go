package crawler

import (
	"strings"
	"testing"

	"github.com/seokit/seokit/analyzer"
)

// TestSummarizeExtractionCaps: a summary keeps MaxSummaryValues values per
// extractor, clipped, within MaxSummaryValueBytes in all; Omitted counts
// the rest.
func TestSummarizeExtractionCaps(t *testing.T) {
	long := strings.Repeat("x", 500)
	rep := &analyzer.Report{}
	for range 20 {
		rep.Extracted = append(rep.Extracted, analyzer.Extraction{Name: "e", Values: []string{long, long, long, long, long, long, long}, Count: 50, Omitted: 43})
	}
	var s PageSummary
	summarizeExtraction(&s, rep)
	total := 0
	for _, x := range s.Extracted {
		if len(x.Values) > MaxSummaryValues || x.Omitted+len(x.Values) != 50 {
			t.Fatalf("%d values, omitted %d", len(x.Values), x.Omitted)
		}
		for _, v := range x.Values {
			total += len(v)
			if len([]rune(v)) > MaxSummaryValueChars+1 {
				t.Fatalf("value of %d characters", len([]rune(v)))
			}
		}
	}
	if total > MaxSummaryValueBytes || total == 0 {
		t.Errorf("%d bytes kept", total)
	}
}
