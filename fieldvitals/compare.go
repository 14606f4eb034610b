package fieldvitals

import (
	"fmt"
	"math"
)

// Lab is seokit's lab measurement of a page (crawler.PageSummary's LCPMs,
// CLS and TBTMs from a rendering); nil fields were not measured.
type Lab struct {
	LCPMs *float64 `json:"lcpMs"`
	CLS   *float64 `json:"cls"`
	TBTMs *float64 `json:"tbtMs"`
}

// Comparison puts one lab value next to its field counterpart.
type Comparison struct {
	// Metric is the field metric (lcp, cls, inp); LabMetric the lab one
	// (lcp, cls, tbt).
	Metric    string `json:"metric"`
	LabMetric string `json:"labMetric"`
	// Lab and Field are the values; nil when not measured or no data.
	Lab   *float64 `json:"lab"`
	Field *float64 `json:"field"`
	// LabRating and FieldRating rate each by the field thresholds (TBT has
	// no rating on the INP scale: empty).
	LabRating   string `json:"labRating,omitempty"`
	FieldRating string `json:"fieldRating,omitempty"`
	// Difference is Field - Lab when both exist and are comparable.
	Difference *float64 `json:"difference"`
	// Explanation says why the two differ, in words.
	Explanation string `json:"explanation"`
}

// Explanation is why lab and field values differ, for every metric.
const Explanation = "Lab values come from one load of the page in seokit's renderer, on one emulated device, " +
	"with a cold cache and no user input. Field values are the 75th percentile of real Chrome users' visits over " +
	"28 days (CrUX), on their own devices and networks, with warm caches, back/forward navigations and interactions. " +
	"Google's page experience signals use the field values."

// Compare sets lab beside field for LCP, CLS and INP (against the lab's
// TBT). A nil or insufficient field record leaves Field nil, never zero.
func Compare(lab Lab, field *Record) []Comparison {
	fieldP75 := func(name string) (*float64, string) {
		if field == nil || field.Status != StatusOK {
			return nil, ""
		}
		if m := field.Metric(name); m != nil && m.P75 != nil {
			return m.P75, m.Rating
		}
		return nil, ""
	}
	row := func(metric, labMetric string, lv *float64, comparable bool, why string) Comparison {
		c := Comparison{Metric: metric, LabMetric: labMetric, Lab: lv}
		c.Field, c.FieldRating = fieldP75(metric)
		if lv != nil && comparable {
			c.LabRating = Rate(metric, *lv)
		}
		switch {
		case c.Field == nil && field != nil && field.Status != StatusOK:
			c.Explanation = "CrUX has not enough real-user data for this " + kind(field) + "; only the lab value exists. " + why
		case c.Field == nil:
			c.Explanation = "No field value. " + why
		case lv == nil:
			c.Explanation = "Not measured in the lab (the crawl did not render this page). " + why
		case comparable:
			d := *c.Field - *lv
			c.Difference = &d
			c.Explanation = fmt.Sprintf("Field is %s the lab value. %s", relative(metric, d), why)
		default:
			c.Explanation = why
		}
		return c
	}
	return []Comparison{
		row(LCP, LCP, lab.LCPMs, true, "Real users load on slower phones and networks, but also from warm caches; a lab LCP below the field p75 usually means the slow visits are on devices or networks the lab does not emulate."),
		row(CLS, CLS, lab.CLS, true, "The lab counts layout shifts during the load only; the field counts them over the whole visit (scrolling, late ads, interactions), so the field value is often higher."),
		row(INP, "tbt", lab.TBTMs, false, "INP needs real interactions, which a lab load has none of; Total Blocking Time is the lab's proxy for main-thread blocking and is not on the same scale."),
	}
}

func kind(r *Record) string {
	if r.Query.Origin != "" {
		return "origin"
	}
	return "URL"
}

// relative says how far d (field - lab) is, in the metric's unit.
func relative(metric string, d float64) string {
	unit := " ms"
	f := "%.0f"
	if metric == CLS {
		unit, f = "", "%.2f"
	}
	switch {
	case math.Abs(d) < 1e-9:
		return "equal to"
	case d > 0:
		return fmt.Sprintf(f+"%s worse than", d, unit)
	}
	return fmt.Sprintf(f+"%s better than", -d, unit)
}
