// The accessibility audit in the command line: the -a11y and -axe flags,
// and the page's audit and the crawl's summary printed as text.

package main

import (
	"cmp"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/seokit/seokit/analyzer"
	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/render"
	"github.com/seokit/seokit/render/chromium"
)

// a11yFlags are the flags of the accessibility audit.
type a11yFlags struct {
	on  *bool
	axe *string
}

func (f *a11yFlags) register(fs *flag.FlagSet) {
	f.on = fs.Bool("a11y", false, "audit the accessibility of the rendered page(s) with axe-core (the automated subset of WCAG 2.0-2.2 A/AA and best practices); renders with -render always unless -render auto is given")
	f.axe = fs.String("axe", "", "axe-core's script (axe.min.js); default $SEOKIT_AXE, then "+chromium.AxeDefaultPath+" (install: npm install axe-core@4.14.1)")
}

// mode is the rendering mode the audit needs: -a11y renders every page
// when -render was left at none.
func (f *a11yFlags) mode(m render.Mode) render.Mode {
	if *f.on && m == render.None {
		return render.Always
	}
	return m
}

// warn says on w when the audit was asked for and axe-core is missing:
// the pages are then reported as not checked.
func (f *a11yFlags) warn(w io.Writer, r render.Renderer) {
	if !*f.on {
		return
	}
	if p, ok := r.(*chromium.Pool); ok {
		if err := p.A11yAvailable(); err != nil {
			fmt.Fprintf(w, "accessibility not checked: %s\n", clean(err.Error()))
		}
	}
}

// printA11y writes a page's accessibility audit.
func printA11y(w io.Writer, a *analyzer.A11yReport) {
	if a == nil {
		return
	}
	fmt.Fprintf(w, "\nAccessibility (%s)\n", cmp.Or(a.Engine, "axe-core"))
	fmt.Fprintf(w, "  %s\n", analyzer.A11yStandard)
	if !a.Checked {
		fmt.Fprintf(w, "  %s\n", clean(a.Reason))
		return
	}
	score := "no score (" + a.ScoreReason + ")"
	if a.Score != nil {
		score = fmt.Sprintf("score %d/100", *a.Score)
	}
	fmt.Fprintf(w, "  %s: %d rules violated (%d critical, %d serious, %d moderate, %d minor), %d passed, %d need review\n",
		score, len(a.Violations), a.Impacts.Critical, a.Impacts.Serious, a.Impacts.Moderate, a.Impacts.Minor, a.Passed, len(a.NeedsReview))
	for _, v := range a.Violations {
		fmt.Fprintf(w, "  %-9s %-28s %-24s %d element(s): %s\n", v.Impact, v.Rule, a11yCriteria(v.WCAG, v.Level, v.BestPractice), v.NodeCount, clean(v.Help))
		if len(v.Nodes) > 0 {
			fmt.Fprintf(w, "            first: %s\n", clean(v.Nodes[0].Target))
		}
	}
	if a.ViolationsOmitted > 0 {
		fmt.Fprintf(w, "  (%d more violated rules not listed)\n", a.ViolationsOmitted)
	}
	for _, v := range a.NeedsReview {
		fmt.Fprintf(w, "  review    %-28s %-24s %d element(s): %s\n", v.Rule, a11yCriteria(v.WCAG, v.Level, v.BestPractice), v.NodeCount, clean(v.Help))
	}
}

// a11yCriteria is "WCAG 1.1.1 A", or "best practice".
func a11yCriteria(sc []string, level string, bp bool) string {
	if len(sc) == 0 {
		if bp {
			return "best practice"
		}
		return "-"
	}
	return strings.TrimSpace("WCAG " + strings.Join(sc, ",") + " " + level)
}

// printA11ySummary writes a crawl's accessibility summary: the pages
// audited and the violations by rule and template.
func printA11ySummary(w io.Writer, s *crawler.A11ySummary) {
	if s == nil {
		return
	}
	score := "no score (" + s.ScoreReason + ")"
	if s.Score != nil {
		score = fmt.Sprintf("mean score %d/100", *s.Score)
	}
	fmt.Fprintf(w, "Accessibility %d pages audited, %d not, %d with violations, %s (%s)\n", s.Checked, s.NotChecked, s.PagesWithViolations, score, analyzer.A11yStandard)
	for reason, n := range s.NotCheckedReasons {
		fmt.Fprintf(w, "              %d %s\n", n, clean(reason))
	}
	for i, g := range s.Groups {
		if i == 20 {
			fmt.Fprintf(w, "              … %d more rule x template groups (-format json lists them)\n", len(s.Groups)-i+s.GroupsOmitted)
			break
		}
		where := fmt.Sprintf("%d/%d pages of template %s", g.Pages, g.TemplatePages, g.Template)
		if g.Shared {
			where = fmt.Sprintf("shared by all %d pages of template %s: fix once", g.Pages, g.Template)
		}
		fmt.Fprintf(w, "              %-9s %-26s %-20s %s, e.g. %s\n", g.Impact, g.Rule, a11yCriteria(g.WCAG, g.Level, len(g.WCAG) == 0), where, clean(g.Target))
	}
}
