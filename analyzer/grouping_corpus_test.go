package analyzer

import (
	"context"
	"testing"
)

// TestCorpusGrouping analyses the saved pages and logs how much grouping
// shortens the findings lists: findings listed (one per ID) against the
// occurrences they stand for. It also checks on every page that the minor
// notices rank below every other finding.
func TestCorpusGrouping(t *testing.T) {
	t.Parallel()
	names, pages := corpusPages(t)
	listed, occurrences, maxCount, minor := 0, 0, 0, 0
	maxID := ""
	for i, body := range pages {
		rep, err := AnalyzeHTML(context.Background(), "https://example.com/"+names[i], corpusHeader, body, &Options{Depth: Complete})
		if err != nil {
			t.Fatalf("%s: %v", names[i], err)
		}
		seenMinor := false
		for _, f := range rep.Findings {
			listed++
			occurrences += f.Count
			if f.Count > maxCount {
				maxCount, maxID = f.Count, names[i]+" "+f.ID
			}
			if catalog[f.ID].Minor {
				minor++
				seenMinor = true
			} else if seenMinor {
				t.Errorf("%s: %s ranks below a minor notice", names[i], f.ID)
			}
		}
	}
	t.Logf("%d pages: %d findings listed for %d occurrences (%.1f per finding); largest group %d (%s); %d minor notices ranked last",
		len(pages), listed, occurrences, float64(occurrences)/float64(max(listed, 1)), maxCount, maxID, minor)
}
