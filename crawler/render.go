package crawler

import (
	"context"
	"iter"
	"math"
	"net/url"
	"slices"
	"sort"
	"strings"

	"github.com/seokit/seokit/analyzer"
	"github.com/seokit/seokit/render"
	"github.com/seokit/seokit/seo"
)

// RenderSummary summarises the rendering of a crawl's pages
// (Options.Analyzer's Render and Renderer); SiteReport.Render is nil when
// rendering was off. Every measurement in it is a lab measurement, made
// with the Device profile, never field data.
type RenderSummary struct {
	// Mode is the rendering mode of the crawl; Device the profile pages
	// were rendered with.
	Mode   render.Mode   `json:"mode"`
	Device render.Device `json:"device"`
	// Rendered counts the pages rendered (a rendering cut short by its
	// budget included: TimedOut counts those); NotRendered the HTML pages
	// that were not, by reason (NotRenderedReasons: "not an application
	// shell" in Auto mode, "failed", ...). Failed counts the renderings
	// that failed: those pages keep their raw analysis and the
	// render.failed finding.
	Rendered           int            `json:"rendered"`
	NotRendered        int            `json:"notRendered"`
	NotRenderedReasons map[string]int `json:"notRenderedReasons,omitempty"`
	TimedOut           int            `json:"timedOut"`
	Failed             int            `json:"failed"`
	// JSErrorPages counts the rendered pages with uncaught JavaScript
	// errors.
	JSErrorPages int `json:"jsErrorPages"`
	// ChangedPages counts the rendered pages whose rendering changed a
	// field of the raw HTML; Changes counts them by field ("title",
	// "canonical", ...).
	ChangedPages int            `json:"changedPages"`
	Changes      map[string]int `json:"changes,omitempty"`
	// LinksOnlyRendered sums the links found only in the rendered DOM (the
	// crawl follows them); LinksOnlyRenderedPages counts the pages that
	// have such links.
	LinksOnlyRendered      int `json:"linksOnlyRendered"`
	LinksOnlyRenderedPages int `json:"linksOnlyRenderedPages"`
	// Vitals is the distribution of the lab Web Vitals over the rendered
	// pages; nil, with VitalsReason, when no page had any.
	Vitals       *LabVitals `json:"vitals"`
	VitalsReason string     `json:"vitalsReason,omitempty"`
	// Screenshots counts the screenshots stored (Options.Screenshots);
	// ScreenshotsOmitted those the sink refused (its cap, a write
	// error). ScreenshotDir is the directory of a DirScreenshots sink,
	// where each page's file is ScreenshotName(url).
	Screenshots        int    `json:"screenshots,omitempty"`
	ScreenshotsOmitted int    `json:"screenshotsOmitted,omitempty"`
	ScreenshotDir      string `json:"screenshotDir,omitempty"`
}

// LabVitals is the 75th percentile of each lab Web Vital over the rendered
// pages that measured it (as the Chrome UX Report summarises field data,
// but from lab renderings). A percentile of a metric no page measured is
// nil.
type LabVitals struct {
	// Lab is always true: these are lab measurements, not field data.
	Lab    bool          `json:"lab"`
	Device render.Device `json:"device"`
	// Pages counts the rendered pages with at least one metric.
	Pages    int      `json:"pages"`
	LCPP75Ms *float64 `json:"lcpP75Ms"`
	CLSP75   *float64 `json:"clsP75"`
	TBTP75Ms *float64 `json:"tbtP75Ms"`
}

// maxNotRenderedReasons caps the distinct reasons of
// RenderSummary.NotRenderedReasons; the rest count under "other".
const maxNotRenderedReasons = 20

// renderFailedID is the analyzer's finding of a failed rendering.
const renderFailedID = "render.failed"

// rendering reports whether the crawl's analysis renders pages.
func rendering(o *analyzer.Options) bool {
	return o != nil && o.Render != "" && o.Render != render.None
}

// robotsAllowed returns the rendering's robots policy for subresources: the
// crawl's own robots.txt verdicts for its robots token, or every
// subresource allowed with IgnoreRobots. A host the address policy refuses
// is left to that policy, which the renderer reports as such.
func (cr *crawl) robotsAllowed() func(u *url.URL) bool {
	return func(u *url.URL) bool {
		if cr.o.IgnoreRobots || u == nil || (u.Scheme != "http" && u.Scheme != "https") {
			return true
		}
		ctx, cancel := context.WithTimeout(context.Background(), cr.o.RequestTimeout)
		defer cancel()
		r := cr.robots.Get(ctx, u)
		return r.Refused() || r.Allowed(cr.o.RobotsToken, seo.RequestTarget(u))
	}
}

// summarizeRender copies the rendering of rep into sum; it leaves sum's
// rendering fields nil when rep was analysed without rendering.
func summarizeRender(rep *analyzer.Report, sum *PageSummary) {
	rr := rep.Render
	if rr == nil {
		return
	}
	rendered := rr.Rendered
	sum.Rendered = &rendered
	sum.RenderReason = rr.Reason
	if slices.Contains(sum.Findings, renderFailedID) {
		sum.RenderFailed = true
	}
	if !rendered {
		return
	}
	sum.RenderTimedOut = rr.TimedOut
	for _, c := range rr.Changes {
		if !slices.Contains(sum.RenderChanges, c.Field) {
			sum.RenderChanges = append(sum.RenderChanges, c.Field)
		}
	}
	if l := rr.LinksOnlyRendered; l != nil {
		links := l.Count
		sum.LinksOnlyRendered = &links
	}
	if w := rr.Words; w != nil {
		raw := w.Raw
		sum.RawWordCount = &raw
	}
	errs := len(rr.Errors) + rr.ErrorsOmitted
	sum.JSErrors = &errs
	if v := rr.Vitals; v != nil {
		sum.LCPMs, sum.CLS, sum.TBTMs = v.LCP, v.CLS, v.TBT
	}
}

// renderSummary returns the rendering summary of pages, nil when the crawl
// did not render.
func renderSummary(pages iter.Seq2[int, *PageSummary], mode render.Mode, device render.Device) *RenderSummary {
	if mode == "" || mode == render.None {
		return nil
	}
	if device == "" {
		device = render.Mobile
	}
	s := &RenderSummary{Mode: mode, Device: device}
	var lcp, cls, tbt []float64
	for _, p := range pages {
		if p.Screenshot {
			s.Screenshots++
		}
		if p.RenderFailed {
			s.Failed++
		}
		if p.Rendered == nil {
			continue
		}
		if !*p.Rendered {
			s.NotRendered++
			reason := p.RenderReason
			if p.RenderFailed || strings.HasPrefix(reason, "failed") {
				reason = "failed"
			}
			if reason == "" {
				reason = "unknown"
			}
			s.NotRenderedReasons = countReason(s.NotRenderedReasons, reason, maxNotRenderedReasons)
			continue
		}
		s.Rendered++
		if p.RenderTimedOut {
			s.TimedOut++
		}
		if p.JSErrors != nil && *p.JSErrors > 0 {
			s.JSErrorPages++
		}
		if len(p.RenderChanges) > 0 {
			s.ChangedPages++
			if s.Changes == nil {
				s.Changes = map[string]int{}
			}
			for _, f := range p.RenderChanges {
				s.Changes[f]++
			}
		}
		if p.LinksOnlyRendered != nil && *p.LinksOnlyRendered > 0 {
			s.LinksOnlyRendered += *p.LinksOnlyRendered
			s.LinksOnlyRenderedPages++
		}
		measured := false
		for _, m := range []struct {
			v   *float64
			all *[]float64
		}{{p.LCPMs, &lcp}, {p.CLS, &cls}, {p.TBTMs, &tbt}} {
			if m.v != nil && !math.IsNaN(*m.v) {
				*m.all = append(*m.all, *m.v)
				measured = true
			}
		}
		if measured {
			if s.Vitals == nil {
				s.Vitals = &LabVitals{Lab: true, Device: device}
			}
			s.Vitals.Pages++
		}
	}
	if s.Vitals == nil {
		if s.Rendered == 0 {
			s.VitalsReason = "no page was rendered"
		} else {
			s.VitalsReason = "no rendered page measured a vital"
		}
		return s
	}
	s.Vitals.LCPP75Ms, s.Vitals.CLSP75, s.Vitals.TBTP75Ms = p75(lcp), p75(cls), p75(tbt)
	return s
}

// countReason counts reason in m, made when nil; past max distinct reasons
// a new one counts under "other". It returns m.
func countReason(m map[string]int, reason string, max int) map[string]int {
	if m == nil {
		m = map[string]int{}
	}
	if _, ok := m[reason]; !ok && len(m) >= max {
		reason = "other"
	}
	m[reason]++
	return m
}

// p75 returns the 75th percentile of vs (nearest rank), nil for none.
func p75(vs []float64) *float64 {
	if len(vs) == 0 {
		return nil
	}
	sort.Float64s(vs)
	v := vs[int(math.Ceil(0.75*float64(len(vs))))-1]
	return &v
}
