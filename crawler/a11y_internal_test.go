package crawler

import (
	"fmt"
	"iter"
	"testing"
)

// TestA11ySummary: a violation in chrome every page of a template shares is
// one shared group, not one per page; a violation of one page of the
// template is a group of its own that is not shared; the same rule on
// another template is another group; pages not audited are counted by
// reason and left out of the score, which is the rounded mean of the
// audited pages'.
func TestA11ySummary(t *testing.T) {
	yes, no := true, false
	score := func(v int) *int { return &v }
	var pages []PageSummary
	for i := range 4 {
		p := PageSummary{URL: fmt.Sprintf("https://example.com/blog/%d", i), Template: "aaaaaaaaaaaa", A11yChecked: &yes, A11yScore: score(80),
			A11yIssues: []A11yPageIssue{{Rule: "color-contrast", Impact: "serious", WCAG: []string{"1.4.3"}, Level: "AA", Nodes: 2, Target: "footer > p"}}}
		if i == 0 {
			p.A11yScore = score(71)
			p.A11yIssues = append(p.A11yIssues, A11yPageIssue{Rule: "image-alt", Impact: "critical", WCAG: []string{"1.1.1"}, Level: "A", Nodes: 1, Target: "img"})
		}
		pages = append(pages, p)
	}
	pages = append(pages,
		PageSummary{URL: "https://example.com/", Template: "bbbbbbbbbbbb", A11yChecked: &yes, A11yScore: score(100)},
		PageSummary{URL: "https://example.com/shop", Template: "bbbbbbbbbbbb", A11yChecked: &yes, A11yScore: score(90),
			A11yIssues: []A11yPageIssue{{Rule: "color-contrast", Impact: "serious", Nodes: 1, Target: ".price"}}},
		PageSummary{URL: "https://example.com/app", A11yChecked: &no, A11yReason: "not checked: the page was not rendered (status 404)"},
		PageSummary{URL: "https://example.com/raw"}, // no audit asked for this page
	)
	s := a11ySummary(pagesOf(pages))
	if s == nil {
		t.Fatal("no summary")
	}
	if s.Checked != 6 || s.NotChecked != 1 || s.NotCheckedReasons["not checked: the page was not rendered (status 404)"] != 1 || s.PagesWithViolations != 5 {
		t.Errorf("checked %d, not checked %d %v, with violations %d", s.Checked, s.NotChecked, s.NotCheckedReasons, s.PagesWithViolations)
	}
	// (71 + 3×80 + 100 + 90) / 6 = 83.5, rounded half up.
	if s.Score == nil || *s.Score != 84 {
		t.Errorf("score %v (%s), want 84", s.Score, s.ScoreReason)
	}
	want := []struct {
		rule, template   string
		pages, of, nodes int
		shared           bool
	}{
		{"image-alt", "aaaaaaaaaaaa", 1, 4, 1, false},
		{"color-contrast", "aaaaaaaaaaaa", 4, 4, 8, true},
		{"color-contrast", "bbbbbbbbbbbb", 1, 2, 1, false},
	}
	if len(s.Groups) != len(want) {
		t.Fatalf("groups %+v", s.Groups)
	}
	for i, w := range want {
		g := s.Groups[i]
		if g.Rule != w.rule || g.Template != w.template || g.Pages != w.pages || g.TemplatePages != w.of || g.Nodes != w.nodes || g.Shared != w.shared || g.CheckID != "a11y."+w.rule {
			t.Errorf("group %d = %+v, want %+v", i, g, w)
		}
	}
	if len(s.Groups[1].Examples) != 4 || s.Groups[1].Target != "footer > p" || s.Groups[1].Level != "AA" {
		t.Errorf("shared group = %+v", s.Groups[1])
	}

	if a11ySummary(pagesOf([]PageSummary{{URL: "https://example.com/"}})) != nil {
		t.Error("a summary for a crawl that audited nothing")
	}
	none := a11ySummary(pagesOf([]PageSummary{{URL: "https://example.com/", A11yChecked: &no, A11yReason: "not checked: axe-core not found"}}))
	if none == nil || none.Score != nil || none.ScoreReason != "no page was audited" {
		t.Errorf("nothing audited: %+v", none)
	}
}

// TestA11ySummaryCapped: the groups are capped, and the rest counted.
func TestA11ySummaryCapped(t *testing.T) {
	yes := true
	var pages []PageSummary
	for i := range maxA11yGroups + 7 {
		pages = append(pages, PageSummary{URL: fmt.Sprintf("https://example.com/%d", i), Template: fmt.Sprintf("%012x", i), A11yChecked: &yes,
			A11yIssues: []A11yPageIssue{{Rule: "region", Impact: "moderate", Nodes: 1}}})
	}
	s := a11ySummary(pagesOf(pages))
	if len(s.Groups) != maxA11yGroups || s.GroupsOmitted != 7 {
		t.Errorf("%d groups, %d omitted", len(s.Groups), s.GroupsOmitted)
	}
}

// pagesOf yields the pages of ps as siteRun.pages does.
func pagesOf(ps []PageSummary) iter.Seq2[int, *PageSummary] {
	return func(yield func(int, *PageSummary) bool) {
		for i := range ps {
			if !yield(i, &ps[i]) {
				return
			}
		}
	}
}
