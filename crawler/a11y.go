package crawler

import (
	"cmp"
	"iter"
	"slices"
	"strings"

	"github.com/seokit/seokit/analyzer"
	"github.com/seokit/seokit/seo"
)

// A11yPageIssue is one axe rule a page violates, as its summary keeps it.
type A11yPageIssue struct {
	Rule   string `json:"rule"`
	Impact string `json:"impact,omitempty"`
	// WCAG lists the success criteria, Level their level; empty for a
	// best practice.
	WCAG  []string `json:"wcag,omitempty"`
	Level string   `json:"level,omitempty"`
	// Nodes counts the elements concerned, Target is the first one's
	// selector.
	Nodes  int    `json:"nodes"`
	Target string `json:"target,omitempty"`
}

// Caps of the accessibility data of a crawl.
const (
	// maxSummaryA11yIssues caps the rules a page summary keeps.
	maxSummaryA11yIssues = 30
	// maxA11yGroups caps A11ySummary.Groups.
	maxA11yGroups = 500
	// maxA11yReasons caps the distinct reasons of NotCheckedReasons.
	maxA11yReasons = 20
	// maxA11yTarget caps a selector kept in a summary, in runes.
	maxA11yTarget = 120
)

// summarizeA11y copies the page's accessibility audit into sum.
func summarizeA11y(rep *analyzer.Report, sum *PageSummary) {
	a := rep.A11y
	if a == nil {
		return
	}
	checked := a.Checked
	sum.A11yChecked = &checked
	if !checked {
		sum.A11yReason = seo.Clip(a.Reason)
		return
	}
	sum.A11yScore = a.Score
	for _, v := range a.Violations {
		if len(sum.A11yIssues) >= maxSummaryA11yIssues {
			break
		}
		is := A11yPageIssue{Rule: v.Rule, Impact: v.Impact, WCAG: v.WCAG, Level: v.Level, Nodes: v.NodeCount}
		if len(v.Nodes) > 0 {
			is.Target = seo.ClipTo(v.Nodes[0].Target, maxA11yTarget)
		}
		sum.A11yIssues = append(sum.A11yIssues, is)
	}
}

// A11ySummary is the accessibility audit of a crawl's rendered pages
// (Options.Analyzer's A11y): the automated subset of WCAG
// (analyzer.A11yStandard), grouped by rule and page template, so that a
// violation in chrome shared by a template (a header, a footer, a menu) is
// one row, not one per page.
type A11ySummary struct {
	Standard string `json:"standard"`
	// Checked counts the pages audited; NotChecked the HTML pages that
	// were not, by reason (not rendered, axe-core not found, …).
	Checked           int            `json:"checked"`
	NotChecked        int            `json:"notChecked"`
	NotCheckedReasons map[string]int `json:"notCheckedReasons,omitempty"`
	// Score is the mean accessibility score of the audited pages that have
	// one (analyzer.A11yScore), rounded; nil, with ScoreReason, when none.
	Score       *int   `json:"score"`
	ScoreReason string `json:"scoreReason,omitempty"`
	// PagesWithViolations counts the audited pages with a violation.
	PagesWithViolations int `json:"pagesWithViolations"`
	// Groups are the violations by rule and template, most severe impact
	// first, then most pages; GroupsOmitted counts the groups past the cap.
	Groups        []A11yGroup `json:"groups"`
	GroupsOmitted int         `json:"groupsOmitted,omitempty"`
}

// A11yGroup is one axe rule violated on pages of one template.
type A11yGroup struct {
	Rule    string   `json:"rule"`
	CheckID string   `json:"checkId"`
	Impact  string   `json:"impact,omitempty"`
	WCAG    []string `json:"wcag,omitempty"`
	Level   string   `json:"level,omitempty"`
	// Template is the template fingerprint of the pages (PageSummary.Template).
	Template string `json:"template,omitempty"`
	// Pages counts the pages of the template that violate the rule, of
	// TemplatePages audited pages of the template; Shared is true when
	// they are all of them (and at least two) and the first element is the
	// same on each: chrome the template shares, fixed once.
	Pages         int  `json:"pages"`
	TemplatePages int  `json:"templatePages"`
	Shared        bool `json:"shared"`
	// Nodes sums the elements concerned over the pages; Target is the
	// first element of the first page.
	Nodes  int    `json:"nodes"`
	Target string `json:"target,omitempty"`
	// Examples are the first pages.
	Examples []string `json:"examples"`
}

// a11ySummary summarises the audits of pages; nil when no page carries one.
func a11ySummary(pages iter.Seq2[int, *PageSummary]) *A11ySummary {
	type key struct{ rule, template string }
	type acc struct {
		g        A11yGroup
		sameNode bool
	}
	s := &A11ySummary{Standard: analyzer.A11yStandard, Groups: []A11yGroup{}}
	groups := map[key]*acc{}
	templatePages := map[string]int{}
	found := false
	var scores, scored int
	for _, p := range pages {
		if p.A11yChecked == nil {
			continue
		}
		found = true
		if !*p.A11yChecked {
			s.NotChecked++
			s.NotCheckedReasons = countReason(s.NotCheckedReasons, cmp.Or(p.A11yReason, "unknown"), maxA11yReasons)
			continue
		}
		s.Checked++
		templatePages[p.Template]++
		if p.A11yScore != nil {
			scores += *p.A11yScore
			scored++
		}
		if len(p.A11yIssues) > 0 {
			s.PagesWithViolations++
		}
		for _, is := range p.A11yIssues {
			k := key{is.Rule, p.Template}
			a := groups[k]
			if a == nil {
				a = &acc{g: A11yGroup{Rule: is.Rule, CheckID: "a11y." + is.Rule, Impact: is.Impact, WCAG: is.WCAG, Level: is.Level,
					Template: p.Template, Target: is.Target, Examples: []string{}}, sameNode: true}
				groups[k] = a
			}
			a.g.Pages++
			a.g.Nodes += is.Nodes
			if is.Target != a.g.Target {
				a.sameNode = false
			}
			if len(a.g.Examples) < maxGroupExamples {
				a.g.Examples = append(a.g.Examples, p.URL)
			}
		}
	}
	if !found {
		return nil
	}
	if scored > 0 {
		v := (2*scores + scored) / (2 * scored)
		s.Score = &v
	} else if s.Checked == 0 {
		s.ScoreReason = "no page was audited"
	} else {
		s.ScoreReason = "no audited page had a score"
	}
	for _, a := range groups {
		g := a.g
		g.TemplatePages = templatePages[g.Template]
		g.Shared = g.Template != "" && g.Pages >= 2 && g.Pages == g.TemplatePages && a.sameNode
		s.Groups = append(s.Groups, g)
	}
	rank := map[string]int{"critical": 4, "serious": 3, "moderate": 2, "minor": 1}
	slices.SortFunc(s.Groups, func(a, b A11yGroup) int {
		return cmp.Or(rank[b.Impact]-rank[a.Impact], b.Pages-a.Pages, strings.Compare(a.Rule, b.Rule), strings.Compare(a.Template, b.Template))
	})
	if len(s.Groups) > maxA11yGroups {
		s.GroupsOmitted = len(s.Groups) - maxA11yGroups
		s.Groups = s.Groups[:maxA11yGroups]
	}
	return s
}
