package seo

// Score is a 0-100 score with the distinct finding IDs per severity that produced it.
type Score struct {
	Value  int    `json:"value"`
	Counts Counts `json:"counts"`
}

// PageScore applies the page score rule: 100 − 10 × distinct error IDs −
// 4 × distinct warning IDs − 1 × distinct notice IDs, floored at 0.
// A repeated ID subtracts once, with the weight of the most severe occurrence.
func PageScore(findings []Finding) Score {
	return deduct(100, findings)
}

// SiteScore applies the site score rule: the rounded mean of the page scores,
// minus the same weights once per distinct site finding ID, floored at 0.
// With no pages the mean is taken as 100; callers with no page scored
// should report no score at all (crawler.SiteReport.Score is nil then).
func SiteScore(pageScores []int, siteFindings []Finding) Score {
	mean := 100
	if len(pageScores) > 0 {
		sum := 0
		for _, s := range pageScores {
			sum += s
		}
		// Round half up on non-negative integers.
		mean = (2*sum + len(pageScores)) / (2 * len(pageScores))
	}
	return deduct(mean, siteFindings)
}

func deduct(start int, findings []Finding) Score {
	worst := make(map[string]Severity, len(findings))
	for _, f := range findings {
		if f.Severity > worst[f.ID] {
			worst[f.ID] = f.Severity
		}
	}
	s := Score{Value: start}
	for _, sev := range worst {
		s.Value -= sev.Weight()
		switch sev {
		case Error:
			s.Counts.Errors++
		case Warning:
			s.Counts.Warnings++
		case Notice:
			s.Counts.Notices++
		}
	}
	if s.Value < 0 {
		s.Value = 0
	}
	return s
}
