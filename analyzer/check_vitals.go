package analyzer

import (
	"fmt"
	"strings"

	"github.com/seokit/seokit/render"
	"github.com/seokit/seokit/seo"
)

// The vitals checks judge the lab Web Vitals of a rendered page against
// web.dev's thresholds. A metric over the "poor" limit is a Warning, not an
// Error: it is one lab measurement on one device profile, which predicts but
// is not the field data (CrUX) that Google's page experience uses; a
// metric between the limits is a Notice. A metric not measured reports
// nothing. DOM size is performance.dom_too_large, checked on the rendered
// DOM when the page is rendered.
func init() {
	vital := func(id string, sev seo.Severity, summary, src string) seo.CheckInfo {
		return seo.CheckInfo{ID: id, Severity: sev, Scope: seo.ScopePage, Summary: summary + " (lab measurement)",
			Source:  src + "; web.dev, Web Vitals (https://web.dev/articles/vitals)",
			Differs: "measured once in seokit's lab rendering with the device profile named in the evidence, not field data (CrUX, the 75th percentile of real visits) as in Search Console"}
	}
	const (
		lcp = "web.dev, Largest Contentful Paint: good up to 2.5 s, poor above 4 s (https://web.dev/articles/lcp)"
		cls = "web.dev, Cumulative Layout Shift: good up to 0.1, poor above 0.25 (https://web.dev/articles/cls)"
		tbt = "web.dev, Total Blocking Time, the lab proxy of INP: good up to 200 ms, poor above 600 ms (https://web.dev/articles/tbt)"
	)
	register(Check{
		Area: "vitals",
		IDs: []seo.CheckInfo{
			vital("vitals.lcp_poor", seo.Warning, "Largest Contentful Paint is over the poor limit", lcp),
			vital("vitals.lcp_needs_improvement", seo.Notice, "Largest Contentful Paint is between the good and poor limits", lcp),
			vital("vitals.cls_poor", seo.Warning, "Cumulative Layout Shift is over the poor limit", cls),
			vital("vitals.cls_needs_improvement", seo.Notice, "Cumulative Layout Shift is between the good and poor limits", cls),
			vital("vitals.tbt_poor", seo.Warning, "Total Blocking Time is over the poor limit", tbt),
			vital("vitals.tbt_needs_improvement", seo.Notice, "Total Blocking Time is between the good and poor limits", tbt),
		},
		Run: checkVitals,
	})
}

func checkVitals(p *Page, r *Reporter) {
	if p.render == nil || p.render.rep == nil || p.render.rep.Vitals == nil {
		return
	}
	lv := p.render.rep.Vitals
	th := p.Thresholds()
	profile := "lab, " + string(lv.Device)
	if lv.Viewport.Width > 0 {
		profile += fmt.Sprintf(" %d×%d", lv.Viewport.Width, lv.Viewport.Height)
	}
	if v := lv.LCP; v != nil {
		reportVital(r, "lcp", "Largest Contentful Paint", *v, lv.LCPBand, float64(th.LCPGood.Milliseconds()), float64(th.LCPPoor.Milliseconds()),
			cmpText(lv.LCPElement), "ms; "+profile)
	}
	if v := lv.CLS; v != nil {
		reportVital(r, "cls", "Cumulative Layout Shift", *v, lv.CLSBand, th.CLSGood, th.CLSPoor, shiftElements(lv.Shifts), profile)
	}
	if v := lv.TBT; v != nil {
		reportVital(r, "tbt", "Total Blocking Time", *v, lv.TBTBand, float64(th.TBTGood.Milliseconds()), float64(th.TBTPoor.Milliseconds()),
			"long tasks", "ms; "+profile)
	}
}

// reportVital reports a metric in the poor or needs-improvement band.
func reportVital(r *Reporter, metric, name string, v float64, b string, good, poor float64, element, detail string) {
	limit := good
	switch b {
	case BandPoor:
		limit = poor
	case BandNeedsImprovement:
	default:
		return
	}
	ev := seo.Measure(element, v, limit)
	ev.Detail = detail
	r.Add("vitals."+metric+"_"+b, name+" is "+strings.ReplaceAll(b, "_", " ")+" in the lab rendering", ev)
}

// shiftElements names the elements of the largest layout shift.
func shiftElements(shifts []render.Shift) string {
	var best *render.Shift
	for i := range shifts {
		if best == nil || shifts[i].Value > best.Value {
			best = &shifts[i]
		}
	}
	if best == nil || len(best.Elements) == 0 {
		return "(elements not recorded)"
	}
	return strings.Join(best.Elements, ", ")
}
