package analyzer

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/seokit/seokit/render"
	"github.com/seokit/seokit/seo"
)

func TestWCAGOf(t *testing.T) {
	tests := []struct {
		tags  []string
		sc    []string
		level string
		bp    bool
	}{
		{[]string{"cat.text-alternatives", "wcag2a", "wcag111", "section508"}, []string{"1.1.1"}, "A", false},
		{[]string{"wcag2aa", "wcag143"}, []string{"1.4.3"}, "AA", false},
		{[]string{"wcag21aa", "wcag1410", "wcag2a", "wcag412"}, []string{"1.4.10", "4.1.2"}, "AA", false},
		{[]string{"wcag22aa", "wcag258"}, []string{"2.5.8"}, "AA", false},
		{[]string{"best-practice", "cat.semantics"}, nil, "", true},
		{[]string{"wcag2a-obsolete", "wcag411", "deprecated"}, []string{"4.1.1"}, "", false},
		{[]string{"wcag", "wcag1", "wcagxyz"}, nil, "", false},
	}
	for _, tc := range tests {
		sc, level, bp := wcagOf(tc.tags)
		if !slices.Equal(sc, tc.sc) || level != tc.level || bp != tc.bp {
			t.Errorf("wcagOf(%v) = %v %q %v, want %v %q %v", tc.tags, sc, level, bp, tc.sc, tc.level, tc.bp)
		}
	}
}

func TestA11yScore(t *testing.T) {
	tests := []struct {
		passed, violated []string
		want             int
		ok               bool
	}{
		// image-alt is critical (10), html-has-lang serious (7); one
		// serious violation: 17 / 24.
		{[]string{"image-alt", "html-has-lang"}, []string{"serious"}, 70, true},
		{[]string{"image-alt"}, nil, 100, true},
		{nil, []string{"minor"}, 0, true},
		// A tiny violation still keeps the score under 100.
		{[]string{"image-alt", "html-has-lang", "label", "button-name", "color-contrast"}, []string{"minor"}, 97, true},
		{nil, nil, 0, false},
		{[]string{"no-such-rule"}, nil, 0, false},
	}
	for _, tc := range tests {
		got, ok := A11yScore(tc.passed, tc.violated)
		if got != tc.want || ok != tc.ok {
			t.Errorf("A11yScore(%v, %v) = %d %v, want %d %v", tc.passed, tc.violated, got, ok, tc.want, tc.ok)
		}
	}
}

// TestA11yCatalog: every rule axe-core runs for the audit's tags has its
// catalogue ID, with a severity from its impact and a source naming the
// axe rule and its WCAG success criteria.
func TestA11yCatalog(t *testing.T) {
	in := map[string]seo.CheckInfo{}
	for _, c := range Catalog() {
		in[c.ID] = c
	}
	for _, id := range []string{"a11y.image-alt", "a11y.label", "a11y.color-contrast", "a11y.html-has-lang", "a11y.button-name",
		"a11y.duplicate-id-aria", "a11y.aria-roles", "a11y.needs_review", "a11y.other_rule"} {
		if _, ok := in[id]; !ok {
			t.Errorf("%s not in the catalogue", id)
		}
	}
	c := in["a11y.image-alt"]
	if c.Severity != seo.Error || !strings.HasPrefix(c.Source, "axe-core rule image-alt (") || !strings.Contains(c.Source, "WCAG SC 1.1.1 (level A)") {
		t.Errorf("a11y.image-alt = %+v", c)
	}
	if c := in["a11y.color-contrast"]; c.Severity != seo.Warning || !strings.Contains(c.Source, "WCAG SC 1.4.3 (level AA)") {
		t.Errorf("a11y.color-contrast = %+v", c)
	}
	if c := in["a11y.region"]; c.Severity != seo.Notice || !strings.Contains(c.Source, "best practice") {
		t.Errorf("a11y.region = %+v", c)
	}
}

// TestA11yReport: the audit's result becomes the report and findings: one
// finding per rule counting its elements (beyond those listed too), rules
// needing review as one notice each, and an unknown rule under
// a11y.other_rule; the score is computed; not-checked states have no score
// and no finding.
func TestA11yReport(t *testing.T) {
	node := func(target string) render.A11yNode {
		return render.A11yNode{Target: target, HTML: `<img src="a.png">`, Summary: "Fix any of the following: Element does not have an alt attribute", Impact: "critical"}
	}
	audit := &render.A11y{Engine: "axe-core 4.14.1", Tags: render.A11yTags, Passes: []string{"html-has-lang", "document-title"},
		Violations: []render.A11yRule{
			{ID: "image-alt", Impact: "critical", Help: "Images must have alternative text", HelpURL: "https://dequeuniversity.com/rules/axe/4.14/image-alt",
				Tags: []string{"wcag2a", "wcag111"}, Nodes: []render.A11yNode{node("img.a"), node("img.b")}, NodeCount: 12},
			{ID: "brand-new-rule", Impact: "minor", Help: "New", HelpURL: "https://dequeuniversity.com/rules/axe/9.0/brand-new-rule", Tags: []string{"best-practice"},
				Nodes: []render.A11yNode{node("div")}, NodeCount: 1},
		},
		Incomplete: []render.A11yRule{{ID: "color-contrast", Help: "Elements must meet minimum color contrast ratio thresholds",
			Tags: []string{"wcag2aa", "wcag143"}, Nodes: []render.A11yNode{node("p")}, NodeCount: 3}},
	}
	raw := string(readFixture(t, filepath.Join("render", "base.html")))
	rep := analyzeString(t, raw, "", nil, &Options{Render: render.Always, A11y: true,
		Renderer: &fakeRenderer{html: []byte(raw), res: render.Result{A11y: audit}}})
	a := rep.A11y
	if a == nil || !a.Checked || a.Engine != "axe-core 4.14.1" || a.Standard != A11yStandard {
		t.Fatalf("A11y = %+v", a)
	}
	// Passed: html-has-lang serious 7, document-title serious 7; violated:
	// critical 10, minor 1: 14 / 25.
	if a.Score == nil || *a.Score != 56 || a.Impacts != (A11yImpacts{Critical: 1, Minor: 1}) {
		t.Errorf("score %v, impacts %+v", a.Score, a.Impacts)
	}
	if len(a.Violations) != 2 || a.Violations[0].Rule != "image-alt" || a.Violations[0].Level != "A" || !slices.Equal(a.Violations[0].WCAG, []string{"1.1.1"}) ||
		a.Violations[1].CheckID != "a11y.other_rule" || !a.Violations[1].BestPractice {
		t.Errorf("violations %+v", a.Violations)
	}
	f := finding(rep, "a11y.image-alt")
	if f == nil || f.Count != 12 || f.Severity != seo.Error || f.Evidence.Element != "img.a" || !strings.Contains(f.Evidence.Detail, "WCAG SC 1.1.1 (level A)") ||
		!strings.Contains(f.Message, "Images must have alternative text") {
		t.Fatalf("a11y.image-alt = %+v", f)
	}
	if o := finding(rep, "a11y.other_rule"); o == nil || !strings.Contains(o.Evidence.Detail, "rule brand-new-rule") {
		t.Errorf("a11y.other_rule = %+v", o)
	}
	if r := finding(rep, "a11y.needs_review"); r == nil || r.Count != 1 || r.Evidence.Element != "color-contrast" || !strings.Contains(r.Evidence.Detail, "3 elements") {
		t.Errorf("a11y.needs_review = %+v", r)
	}

	// The renderer could not audit: not checked, no score, no finding.
	rep = analyzeString(t, raw, "", nil, &Options{Render: render.Always, A11y: true,
		Renderer: &fakeRenderer{html: []byte(raw), res: render.Result{A11yReason: "not checked: axe-core not found (looked for x)"}}})
	if a := rep.A11y; a == nil || a.Checked || a.Score != nil || a.Reason != "not checked: axe-core not found (looked for x)" {
		t.Errorf("without axe: %+v", rep.A11y)
	}
	for _, f := range rep.Findings {
		if seo.AreaOf(f.ID) == "a11y" {
			t.Errorf("finding %s on a page not audited", f.ID)
		}
	}
	// A page not rendered (auto mode, not an application shell).
	rep = analyzeString(t, raw, "", nil, &Options{Render: render.Auto, A11y: true, Renderer: &fakeRenderer{html: []byte(raw)}})
	if a := rep.A11y; a == nil || a.Checked || a.Reason != "not checked: the page was not rendered (not an application shell)" {
		t.Errorf("not rendered: %+v", rep.A11y)
	}
	// The renderer failed.
	rep = analyzeString(t, raw, "", nil, &Options{Render: render.Always, A11y: true, Renderer: &fakeRenderer{err: errors.New("boom")}})
	if a := rep.A11y; a == nil || a.Checked || a.Reason != "not checked: the rendering failed" {
		t.Errorf("failed: %+v", rep.A11y)
	}
}

// TestA11yNeedsRender: the audit without rendering is refused, naming the
// option.
func TestA11yNeedsRender(t *testing.T) {
	_, err := AnalyzeHTML(t.Context(), "https://example.com/", nil, []byte("<html></html>"), &Options{A11y: true})
	var in *seo.InputError
	if !errors.As(err, &in) || in.Field != "a11y" || !errors.Is(err, seo.ErrInvalidInput) {
		t.Errorf("err = %v", err)
	}
}

// TestA11yHTMLReport: the page report has an accessibility section with
// the score, each violated rule with its WCAG criteria and elements, and
// says "Not checked" with the reason when the audit did not run.
func TestA11yHTMLReport(t *testing.T) {
	score := 56
	rep := &Report{URL: "https://example.com/", A11y: &A11yReport{Checked: true, Standard: A11yStandard, Engine: "axe-core 4.14.1", Score: &score,
		Violations: []A11yIssue{{Rule: "image-alt", CheckID: "a11y.image-alt", Impact: "critical", WCAG: []string{"1.1.1"}, Level: "A",
			Help: "Images must have alternative text", HelpURL: "https://dequeuniversity.com/rules/axe/4.14/image-alt",
			Nodes: []render.A11yNode{{Target: "img.hero", HTML: `<img class="hero">`, Summary: "Element does not have an alt attribute"}}, NodeCount: 3}},
		NeedsReview: []A11yIssue{{Rule: "color-contrast", WCAG: []string{"1.4.3"}, Level: "AA", Help: "Contrast", NodeCount: 2,
			Nodes: []render.A11yNode{{Target: "p.over-image"}}}}}}
	var b strings.Builder
	if err := rep.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"<h2>Accessibility</h2>", "56/100", "automated subset of WCAG", `href="https://dequeuniversity.com/rules/axe/4.14/image-alt"`,
		"WCAG SC 1.1.1 (level A)", "img.hero", "&lt;img class=&#34;hero&#34;&gt;", "… 1 of 3 listed", "Needs review", "p.over-image", "WCAG SC 1.4.3 (level AA)"} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q", want)
		}
	}
	rep.A11y = notChecked("axe-core not found")
	b.Reset()
	if err := rep.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); !strings.Contains(out, "<strong>Not checked.</strong> <span class=\"muted\">not checked: axe-core not found</span>") || strings.Contains(out, "Accessibility score") {
		t.Errorf("not-checked report: %s", out[strings.Index(out, "<h2>Accessibility</h2>"):][:400])
	}
}
