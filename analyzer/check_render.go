package analyzer

import (
	"cmp"
	"fmt"
	"strconv"

	"github.com/seokit/seokit/render"
	"github.com/seokit/seokit/seo"
)

// Sources of the render checks.
const (
	srcJSBasics   = "Google Search Central, Understand the JavaScript SEO basics (https://developers.google.com/search/docs/crawling-indexing/javascript/javascript-seo-basics)"
	srcSitebulb   = "Sitebulb, Response vs Render hints (https://sitebulb.com/hints/rendered/)"
	srcFrogJS     = "Screaming Frog SEO Spider, JavaScript tab filters (https://www.screamingfrog.co.uk/seo-spider/user-guide/tabs/#javascript)"
	srcJSFixes    = "Google Search Central, Fix Search-related JavaScript problems (https://developers.google.com/search/docs/crawling-indexing/javascript/fix-search-javascript)"
	srcOnlyRender = srcJSBasics + "; " + srcFrogJS + "; " + srcSitebulb
)

// renderWordsMinChange is the least difference in words for
// render.word_count_changed, so that a few words of a widget do not count.
const renderWordsMinChange = 20

func init() {
	only := func(id, what string) seo.CheckInfo {
		return seo.CheckInfo{ID: id, Severity: seo.Notice, Scope: seo.ScopePage,
			Summary: "The " + what + " is only in the rendered HTML: crawlers that do not run JavaScript, and Google until it renders, do not see it.",
			Source:  srcOnlyRender}
	}
	changed := func(id, what string) seo.CheckInfo {
		return seo.CheckInfo{ID: id, Severity: seo.Warning, Scope: seo.ScopePage,
			Summary: "JavaScript changes the " + what + " of the raw HTML: the raw and rendered views disagree.",
			Source:  srcOnlyRender}
	}
	register(Check{
		Area: "render",
		IDs: []seo.CheckInfo{
			only("render.title_only_rendered", "<title>"),
			changed("render.title_changed", "<title>"),
			only("render.description_only_rendered", "meta description"),
			changed("render.description_changed", "meta description"),
			only("render.h1_only_rendered", "H1"),
			changed("render.h1_changed", "H1"),
			{ID: "render.canonical_only_rendered", Severity: seo.Warning, Scope: seo.ScopePage,
				Summary: "The canonical link is only in the rendered HTML; Google advises declaring it in the raw HTML.",
				Source:  srcJSBasics + "; " + srcFrogJS + "; " + srcSitebulb},
			{ID: "render.canonical_mismatch", Severity: seo.Error, Scope: seo.ScopePage,
				Summary: "The canonical URL of the rendered HTML differs from the raw HTML's (or JavaScript removes it): search engines get conflicting signals.",
				Source:  "Sitebulb, Canonical mismatch between rendered and response HTML, High (https://sitebulb.com/hints/rendered/canonical-mismatch-between-rendered-and-response-html/); " + srcJSBasics + "; " + srcFrogJS},
			only("render.robots_only_rendered", "meta robots tag"),
			changed("render.robots_changed", "meta robots directives"),
			{ID: "render.noindex_removed", Severity: seo.Error, Scope: seo.ScopePage,
				Summary: "The raw HTML says noindex and JavaScript removes it: Google does not render such a page, so it stays out of the index.",
				Source:  srcJSBasics + " (robots meta tags and JavaScript); " + srcFrogJS + " (Noindex Only in Original HTML)"},
			{ID: "render.noindex_added", Severity: seo.Warning, Scope: seo.ScopePage,
				Summary: "JavaScript adds noindex to a page whose raw HTML allows indexing.",
				Source:  srcJSBasics + "; " + srcFrogJS + " (Noindex Only in Rendered HTML)"},
			only("render.hreflang_only_rendered", "hreflang annotation"),
			changed("render.hreflang_changed", "hreflang annotations"),
			only("render.structured_data_only_rendered", "structured data"),
			changed("render.structured_data_changed", "structured data"),
			{ID: "render.links_only_rendered", Severity: seo.Notice, Scope: seo.ScopePage,
				Summary: "Links appear only in the rendered DOM: crawlers that do not run JavaScript cannot follow them.",
				Source:  srcJSBasics + " (use crawlable links); " + srcFrogJS + " (Contains JavaScript Links); " + srcSitebulb},
			{ID: "render.word_count_changed", Severity: seo.Notice, Scope: seo.ScopePage,
				Summary: "The main text's word count differs between the raw and rendered HTML beyond the threshold: the content depends on JavaScript.",
				Source:  srcFrogJS + " (Contains JavaScript Content); " + srcSitebulb + "; " + srcJSBasics},
			{ID: "render.js_errors", Severity: seo.Warning, Scope: seo.ScopePage,
				Summary: "Uncaught JavaScript errors or unhandled rejections occurred while rendering.",
				Source:  srcJSFixes + "; " + srcFrogJS + " (Pages with JavaScript Errors)"},
			{ID: "render.console_errors", Severity: seo.Notice, Scope: seo.ScopePage,
				Summary: "Scripts logged errors to the console while rendering.",
				Source:  srcJSFixes + "; " + srcFrogJS + " (Pages with JavaScript Errors)"},
			{ID: "render.resources_failed", Severity: seo.Warning, Scope: seo.ScopePage,
				Summary: "Subresources failed while rendering (network error, refused address, budget, or status 400 or more).",
				Source:  srcJSFixes + "; " + srcFrogJS + " (Pages with Blocked Resources); " + srcSitebulb},
			{ID: "render.resources_blocked", Severity: seo.Warning, Scope: seo.ScopePage,
				Summary: "Subresources are disallowed by robots.txt: Google cannot fetch them to render the page either.",
				Source:  srcJSBasics + "; Google Search Central, robots.txt introduction (https://developers.google.com/search/docs/crawling-indexing/robots/intro); " + srcFrogJS + " (Pages with Blocked Resources)"},
			{ID: "render.timed_out", Severity: seo.Warning, Scope: seo.ScopePage,
				Summary: "The render budget ended the rendering before the page settled; the DOM was read as it was.",
				Source:  srcJSFixes + "; " + srcFrogJS + " (rendering timeout)"},
			{ID: "render.failed", Severity: seo.Warning, Scope: seo.ScopePage,
				Summary: "The page could not be rendered; its raw HTML was analysed instead.",
				Source:  srcJSFixes + "; " + srcFrogJS},
		},
		Run: checkRender,
	})
}

func checkRender(p *Page, r *Reporter) {
	st := p.render
	if st == nil {
		return
	}
	if st.err != nil {
		r.Add("render.failed", "the page could not be rendered: "+unwrapMessage(st.err), seo.Evidence{Detail: st.err.Error()})
		return
	}
	raw, res := st.raw, st.res
	for _, f := range st.changes {
		a, b := f.raw, f.rendered
		if f.field == "robots" {
			checkRenderRobots(st, a, b, r)
			continue
		}
		ev := seo.Evidence{Element: f.field, Value: b, Detail: "raw HTML: " + cmpText(a)}
		if a == "" {
			r.Add(f.only, "the "+f.field+" is only in the rendered HTML", ev)
		} else {
			r.Add(f.changed, "JavaScript changes the "+f.field+" of the raw HTML", withRendered(ev, b))
		}
	}
	if only := st.rep.LinksOnlyRendered; only != nil && only.Count > 0 {
		ev := seo.Evidence{Element: "<a href>", URLs: only.Examples, Detail: plural(only.Count, "link target") + " only in the rendered DOM"}
		r.Add("render.links_only_rendered", "links appear only in the rendered DOM", ev)
	}
	checkRenderWords(raw.Words, p.Words, p.Thresholds(), r)
	for i, m := range res.Errors {
		r.addLazy("render.js_errors", "an uncaught JavaScript error occurred while rendering", func() seo.Evidence {
			return messageEvidence(m, i == 0, res.ErrorsOmitted)
		})
	}
	for i, m := range res.Console {
		r.addLazy("render.console_errors", "a script logged an error while rendering", func() seo.Evidence {
			return messageEvidence(m, i == 0, res.ConsoleOmitted)
		})
	}
	for _, rs := range res.Resources {
		switch {
		case rs.Type == "document" && rs.URL == res.URL:
		case rs.Outcome == render.OutcomeRobots:
			r.addLazy("render.resources_blocked", "robots.txt disallows a subresource of the page", func() seo.Evidence {
				return seo.Evidence{Element: rs.Type, Value: rs.URL, Detail: "disallowed by robots.txt"}
			})
		case !resourceOK(rs):
			r.addLazy("render.resources_failed", "a subresource failed while rendering", func() seo.Evidence {
				return seo.Evidence{Element: rs.Type, Value: rs.URL, Detail: resourceProblem(rs)}
			})
		}
	}
	if res.TimedOut {
		r.Add("render.timed_out", "the render budget ended the rendering before the page settled",
			seo.Measure("rendering (ms)", float64(res.ElapsedMs), float64(cmp.Or(p.cfg.RenderRequest.Timeout, render.DefaultTimeout).Milliseconds())))
	}
}

// checkRenderRobots reports the meta robots changes: noindex removed or
// added by JavaScript first, any other change after.
func checkRenderRobots(st *renderState, a, b string, r *Reporter) {
	rawNo, renNo := st.rawNoindex, st.renderedNoindex
	ev := seo.Evidence{Element: `<meta name="robots">`, Value: b, Detail: "raw HTML: " + cmpText(a)}
	switch {
	case rawNo && !renNo:
		r.Add("render.noindex_removed", "the raw HTML says noindex and JavaScript removes it; Google does not render such a page, so it stays out of the index", ev)
	case !rawNo && renNo:
		r.Add("render.noindex_added", "JavaScript adds noindex to the page", ev)
	case a == "":
		r.Add("render.robots_only_rendered", "the meta robots tag is only in the rendered HTML", ev)
	default:
		r.Add("render.robots_changed", "JavaScript changes the meta robots directives", ev)
	}
}

// checkRenderWords reports a main-text word count that differs beyond
// Thresholds.RenderWordsChangePercent of the larger count.
func checkRenderWords(raw, rendered int, th Thresholds, r *Reporter) {
	diff, larger := abs(rendered-raw), max(raw, rendered)
	if larger == 0 || diff < renderWordsMinChange {
		return
	}
	pct := float64(diff) * 100 / float64(larger)
	if pct <= th.RenderWordsChangePercent {
		return
	}
	ev := seo.Measure("main text", pct, th.RenderWordsChangePercent)
	ev.Detail = fmt.Sprintf("%d words raw, %d rendered (percent of the larger count)", raw, rendered)
	r.Add("render.word_count_changed", "the main text's word count differs between the raw and rendered HTML", ev)
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// cmpText shows an absent value as "(none)".
func cmpText(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// withRendered shows a value JavaScript removed as "(none)".
func withRendered(ev seo.Evidence, rendered string) seo.Evidence {
	ev.Value = cmpText(rendered)
	return ev
}

// messageEvidence is the evidence of a JavaScript error or console
// message; the first says how many the renderer left out.
func messageEvidence(m render.Message, first bool, omitted int) seo.Evidence {
	ev := seo.Evidence{Value: m.Text}
	if m.Source != "" {
		ev.Element = m.Source
		if m.Line > 0 {
			ev.Element += ":" + strconv.Itoa(m.Line)
			if m.Column > 0 {
				ev.Element += ":" + strconv.Itoa(m.Column)
			}
		}
	}
	if first && omitted > 0 {
		ev.Detail = strconv.Itoa(omitted) + " more not kept by the renderer"
	}
	return ev
}

// resourceProblem says why a request of the rendering did not succeed.
func resourceProblem(rs render.Resource) string {
	switch rs.Outcome {
	case render.OutcomeAddress:
		return "refused: the address policy forbids the host"
	case render.OutcomeBudget:
		return "refused: the render budget was spent"
	case render.OutcomeFailed:
		return "failed: " + cmpText(rs.Error)
	}
	return "status " + strconv.Itoa(rs.Status)
}
