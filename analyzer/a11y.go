package analyzer

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/seokit/seokit/render"
	"github.com/seokit/seokit/seo"
)

// A11yStandard says what the accessibility audit covers, and what it does
// not: it is shown with every audit.
const A11yStandard = "automated subset of WCAG 2.0, 2.1 and 2.2, levels A and AA, and axe-core's best practices: " +
	"a page without violations is not certified accessible; keyboard use, reading order, meaningful text alternatives " +
	"and the results needing review take a human check"

// A11yReport is the accessibility audit of a rendered page by axe-core.
type A11yReport struct {
	// Checked reports whether the audit ran; Reason says why not ("the
	// page was not rendered (…)", "axe-core not found …"). A page not
	// checked has no score and no issues: it is not a pass.
	Checked bool   `json:"checked"`
	Reason  string `json:"reason,omitempty"`
	// Standard is A11yStandard; Engine the engine and version.
	Standard string `json:"standard"`
	Engine   string `json:"engine,omitempty"`
	// Score is the page's accessibility score, 0-100 (A11yScore); nil when
	// not checked or when no rule applied, with ScoreReason.
	Score       *int   `json:"score"`
	ScoreReason string `json:"scoreReason,omitempty"`
	// Violations are the rules that failed, most severe first; NeedsReview
	// the rules axe could not decide (contrast over an image, say), which
	// a person must look at. The *Omitted counts say how many the
	// renderer left out past its caps.
	Violations         []A11yIssue `json:"violations"`
	ViolationsOmitted  int         `json:"violationsOmitted,omitempty"`
	NeedsReview        []A11yIssue `json:"needsReview"`
	NeedsReviewOmitted int         `json:"needsReviewOmitted,omitempty"`
	// Impacts counts the violated rules by impact.
	Impacts A11yImpacts `json:"impacts"`
	// Passed and Inapplicable count the rules that passed and those that
	// found nothing to check.
	Passed       int `json:"passed"`
	Inapplicable int `json:"inapplicable"`
	// ElapsedMs is the audit's time in the page.
	ElapsedMs float64 `json:"elapsedMs,omitempty"`
}

// A11yImpacts counts rules by axe impact.
type A11yImpacts struct {
	Critical int `json:"critical"`
	Serious  int `json:"serious"`
	Moderate int `json:"moderate"`
	Minor    int `json:"minor"`
}

// A11yIssue is one axe rule's result on the page.
type A11yIssue struct {
	// Rule is axe's rule ID, CheckID the catalogue ID of its finding
	// ("a11y.image-alt").
	Rule    string `json:"rule"`
	CheckID string `json:"checkId"`
	// Impact is "critical", "serious", "moderate" or "minor".
	Impact string `json:"impact,omitempty"`
	// WCAG lists the success criteria the rule tests ("1.1.1"), Level
	// their conformance level ("A", "AA"); both empty for a best practice.
	WCAG         []string `json:"wcag,omitempty"`
	Level        string   `json:"level,omitempty"`
	BestPractice bool     `json:"bestPractice,omitempty"`
	Help         string   `json:"help"`
	HelpURL      string   `json:"helpUrl"`
	// Nodes are the first elements concerned (selector, snippet, failure
	// summary); NodeCount counts them all.
	Nodes     []render.A11yNode `json:"nodes"`
	NodeCount int               `json:"nodeCount"`
}

// A11yImpactWeights weigh each rule in A11yScore by its impact, as
// Lighthouse weighs its accessibility audits.
var A11yImpactWeights = map[string]int{"critical": 10, "serious": 7, "moderate": 3, "minor": 1}

// A11yScore is the page's accessibility score: 100 × the weight of the
// rules that passed over the weight of the rules that applied (passed or
// violated), each rule weighing A11yImpactWeights of its impact (a
// violated rule its impact on the page, a passed one axe's impact of the
// rule). Rules needing review and rules with nothing to check do not
// count, as in Lighthouse. It is rounded down, so that 100 means no
// violation; ok is false when no rule applied.
func A11yScore(passed, violated []string) (score int, ok bool) {
	var pass, fail int
	for _, id := range passed {
		pass += A11yImpactWeights[axeImpact(id)]
	}
	for _, imp := range violated {
		fail += A11yImpactWeights[imp]
	}
	if pass+fail == 0 {
		return 0, false
	}
	return int(math.Floor(100 * float64(pass) / float64(pass+fail))), true
}

// notChecked is the report of a page the audit did not run on.
func notChecked(reason string) *A11yReport {
	return &A11yReport{Reason: "not checked: " + reason, Standard: A11yStandard, ScoreReason: "not checked",
		Violations: []A11yIssue{}, NeedsReview: []A11yIssue{}}
}

// newA11yReport builds the report of a rendering that asked for the audit.
func newA11yReport(res *render.Result) *A11yReport {
	a := res.A11y
	if a == nil {
		reason := strings.TrimPrefix(res.A11yReason, "not checked: ")
		if reason == "" {
			reason = "the renderer ran no audit"
		}
		return notChecked(reason)
	}
	rep := &A11yReport{Checked: true, Standard: A11yStandard, Engine: a.Engine, Passed: len(a.Passes) + a.PassesOmitted,
		Inapplicable: a.Inapplicable, ElapsedMs: a.ElapsedMs,
		ViolationsOmitted: a.ViolationsOmitted, NeedsReviewOmitted: a.IncompleteOmitted}
	rep.Violations = a11yIssues(a.Violations)
	rep.NeedsReview = a11yIssues(a.Incomplete)
	impacts := make([]string, 0, len(rep.Violations))
	for _, v := range rep.Violations {
		impacts = append(impacts, v.Impact)
		switch v.Impact {
		case "critical":
			rep.Impacts.Critical++
		case "serious":
			rep.Impacts.Serious++
		case "moderate":
			rep.Impacts.Moderate++
		case "minor":
			rep.Impacts.Minor++
		}
	}
	if s, ok := A11yScore(a.Passes, impacts); ok && a.ViolationsOmitted == 0 && a.PassesOmitted == 0 {
		rep.Score = &s
	} else if ok {
		rep.ScoreReason = "not scored: the renderer left rules out of its answer"
	} else {
		rep.ScoreReason = "no rule applied to the page"
	}
	return rep
}

// a11yIssues turns axe rules into issues, most severe impact first, then
// by rule ID.
func a11yIssues(rules []render.A11yRule) []A11yIssue {
	out := make([]A11yIssue, 0, len(rules))
	for _, r := range rules {
		wcag, level, bp := wcagOf(r.Tags)
		out = append(out, A11yIssue{Rule: r.ID, CheckID: a11yCheckID(r.ID), Impact: r.Impact, WCAG: wcag, Level: level, BestPractice: bp,
			Help: r.Help, HelpURL: r.HelpURL, Nodes: r.Nodes, NodeCount: r.NodeCount})
	}
	slices.SortStableFunc(out, func(a, b A11yIssue) int {
		if d := impactRank(b.Impact) - impactRank(a.Impact); d != 0 {
			return d
		}
		return strings.Compare(a.Rule, b.Rule)
	})
	return out
}

// impactRank orders impacts, critical highest.
func impactRank(impact string) int {
	return map[string]int{"minor": 1, "moderate": 2, "serious": 3, "critical": 4}[impact]
}

// wcagOf reads the success criteria ("wcag111" is 1.1.1, "wcag1410"
// 1.4.10) and the level ("wcag2a", "wcag21aa": the highest named) of axe
// tags, and whether the rule is a best practice.
func wcagOf(tags []string) (sc []string, level string, bestPractice bool) {
	for _, t := range tags {
		if t == "best-practice" {
			bestPractice = true
			continue
		}
		rest, ok := strings.CutPrefix(t, "wcag")
		if !ok || rest == "" {
			continue
		}
		if strings.Trim(rest, "0123456789") == "" {
			if len(rest) >= 3 {
				sc = append(sc, rest[:1]+"."+rest[1:2]+"."+rest[2:])
			}
			continue
		}
		digits := strings.TrimRight(rest, "a")
		if lv := strings.ToUpper(rest[len(digits):]); strings.Trim(digits, "0123456789") == "" && len(lv) > len(level) && len(lv) <= 3 {
			level = lv
		}
	}
	slices.Sort(sc)
	return slices.Compact(sc), level, bestPractice
}

// axeRule is one rule of axe-core's catalogue (a11yrules.go).
type axeRule struct {
	id, impact string
	tags       []string
	off        bool
}

// axeByID indexes axeRules.
var axeByID = func() map[string]*axeRule {
	m := make(map[string]*axeRule, len(axeRules))
	for i := range axeRules {
		m[axeRules[i].id] = &axeRules[i]
	}
	return m
}()

// axeImpact is the impact axe gives rule id ("" when unknown).
func axeImpact(id string) string {
	if r := axeByID[id]; r != nil {
		return r.impact
	}
	return ""
}

// a11yOtherRule is the finding of an axe rule not in seokit's catalogue (a
// newer axe-core than the one the catalogue was made from).
const (
	a11yOtherRule   = "a11y.other_rule"
	a11yNeedsReview = "a11y.needs_review"
)

// a11yCheckID is the catalogue ID of axe rule id.
func a11yCheckID(id string) string {
	if axeByID[id] != nil {
		return "a11y." + id
	}
	return a11yOtherRule
}

// a11ySeverity maps axe's impact to a severity: critical is an error
// (content some users cannot reach at all), serious a warning, moderate and
// minor a notice.
func a11ySeverity(impact string) seo.Severity {
	switch impact {
	case "critical":
		return seo.Error
	case "serious":
		return seo.Warning
	}
	return seo.Notice
}

// a11yCriteria formats success criteria and level: "WCAG 2.2 SC 1.1.1
// (level A)", or "best practice, no WCAG success criterion".
func a11yCriteria(sc []string, level string) string {
	if len(sc) == 0 {
		return "best practice, no WCAG success criterion"
	}
	s := "WCAG SC " + strings.Join(sc, ", ")
	if level != "" {
		s += " (level " + level + ")"
	}
	return s
}

// The a11y area: one catalogue ID per axe-core rule, its severity from the
// rule's impact, and the results needing review. Its findings come from
// the audit of the rendered page (Options.A11y); they are the automated
// subset of WCAG (A11yStandard).
func init() {
	const differs = "the automated subset of WCAG: axe-core decides what a script can; seokit audits the rendered page once " +
		"(the device profile of the rendering), without frames, and lists results axe cannot decide under a11y.needs_review"
	ids := make([]seo.CheckInfo, 0, len(axeRules)+2)
	for _, r := range axeRules {
		sc, level, _ := wcagOf(r.tags)
		crit := a11yCriteria(sc, level)
		summary := "The rendered page fails axe-core's " + r.id + " rule (impact " + r.impact + "; " + crit + ")."
		if r.off {
			summary += " axe-core runs it only when named."
		}
		ids = append(ids, seo.CheckInfo{ID: "a11y." + r.id, Severity: a11ySeverity(r.impact), Scope: seo.ScopePage, Summary: summary,
			Source:  "axe-core rule " + r.id + " (https://dequeuniversity.com/rules/axe/4.14/" + r.id + ") / " + crit,
			Differs: differs})
	}
	ids = append(ids,
		seo.CheckInfo{ID: a11yOtherRule, Severity: seo.Warning, Scope: seo.ScopePage,
			Summary: "The rendered page fails an axe-core rule that seokit's catalogue does not list (a newer axe-core); the evidence names it.",
			Source:  "axe-core rules (https://github.com/dequelabs/axe-core/blob/develop/doc/rule-descriptions.md) / WCAG SC named in the evidence",
			Differs: differs},
		seo.CheckInfo{ID: a11yNeedsReview, Severity: seo.Notice, Scope: seo.ScopePage,
			Summary: "axe-core could not decide a rule on some elements (incomplete results): a person must review them; one occurrence per rule.",
			Source:  "axe-core incomplete results (https://github.com/dequelabs/axe-core/blob/develop/doc/API.md#results-object) / WCAG SC named in the evidence",
			Differs: differs},
	)
	register(Check{Area: "a11y", IDs: ids, Run: checkA11y})
}

// maxA11yOccurrences bounds the occurrences reported per rule.
const maxA11yOccurrences = 10000

// checkA11y reports each violated rule's nodes as occurrences of its
// finding, and each rule needing review once.
func checkA11y(p *Page, r *Reporter) {
	a := p.Report.A11y
	if a == nil || !a.Checked {
		return
	}
	for _, v := range a.Violations {
		crit := a11yCriteria(v.WCAG, v.Level)
		msg := v.Help + " (axe-core " + v.Rule + ", " + crit + ")"
		n := min(max(v.NodeCount, len(v.Nodes)), maxA11yOccurrences)
		for i := range n {
			r.addLazy(v.CheckID, msg, func() seo.Evidence {
				ev := seo.Evidence{Detail: "impact " + v.Impact + "; " + crit + "; " + v.HelpURL}
				if v.CheckID == a11yOtherRule {
					ev.Detail = "rule " + v.Rule + "; " + ev.Detail
				}
				if i < len(v.Nodes) {
					nd := v.Nodes[i]
					ev.Element, ev.Value = nd.Target, nd.HTML
					if nd.Summary != "" {
						ev.Detail += "; " + nd.Summary
					}
				} else {
					ev.Detail += "; element not listed (the audit lists " + strconv.Itoa(len(v.Nodes)) + " per rule)"
				}
				return ev
			})
		}
	}
	for _, v := range a.NeedsReview {
		r.Add(a11yNeedsReview, "axe-core could not decide some elements: review them by hand", seo.Evidence{
			Element: v.Rule, Value: v.Help,
			Detail: a11yCriteria(v.WCAG, v.Level) + "; " + plural(v.NodeCount, "element") + "; " + v.HelpURL,
		})
	}
}
