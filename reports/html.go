package reports

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"math"
	"strconv"

	"github.com/seokit/seokit/internal/svgchart"
)

//go:embed report.html.tmpl
var reportHTML string

var reportTemplate = template.Must(template.New("report").Funcs(template.FuncMap{
	"pos": func(p *float64) string {
		if p == nil {
			return "-"
		}
		return strconv.FormatFloat(*p, 'f', -1, 64)
	},
	// rowPos shows a keyword row's position, saying "unchecked" or "not
	// ranked" rather than a bare dash.
	"rowPos": func(r KeywordRow, p *float64) string {
		switch {
		case p != nil:
			return strconv.FormatFloat(*p, 'f', -1, 64)
		case r.Status == rowUnchecked:
			return "unchecked"
		}
		return "not ranked"
	},
	"num": func(p *float64) string {
		if p == nil {
			return "-"
		}
		return strconv.FormatFloat(*p, 'f', 1, 64)
	},
	// measured shows a figure with places decimals, or "not measured"
	// when it was computed from nothing.
	"measured": func(p *float64, places int) string {
		if p == nil {
			return notMeasured
		}
		return strconv.FormatFloat(*p, 'f', places, 64)
	},
	"int": func(p *int) string {
		if p == nil {
			return "-"
		}
		return strconv.Itoa(*p)
	},
	"pct": func(p *float64) string {
		if p == nil {
			return "-"
		}
		return strconv.FormatFloat(*p*100, 'f', 2, 64) + "%"
	},
	"change": func(p *float64) string {
		if p == nil {
			return ""
		}
		if *p > 0 {
			return "+" + strconv.FormatFloat(*p, 'f', -1, 64)
		}
		return strconv.FormatFloat(*p, 'f', -1, 64)
	},
}).Parse(reportHTML))

// notMeasured is shown in place of a figure computed from nothing.
const notMeasured = "not measured"

// HTMLOptions configures WriteHTML. The zero value is usable.
type HTMLOptions struct {
	// Lines is how many keywords get a position-history line, the first
	// rows of the report; 0 means 10. Lines need BuildOptions.History.
	Lines int
	// MaxRows caps the keyword table; 0 means 1000.
	MaxRows int
}

// Colours of the position lines, cycled.
var lineColors = []string{"#3949ab", "#c62828", "#2e7d32", "#ef6c00", "#6a1b9a", "#00838f", "#ad1457", "#5d4037", "#1565c0", "#9e9d24"}

// chart is one chart of the report: a line chart, or why there is none.
type chart struct {
	Title string
	Line  *svgchart.Line
	Empty string
}

// newLineChart lays out series of daily values (nil is a gap) on a plot of
// the given y range; inverted puts the low values (position 1) at the top.
// The y axis is labelled at five evenly spaced values (1, 5, 10, 15, 20
// rather than 1, 5.75 ... when inverted).
func newLineChart(title string, dates []string, yMin, yMax float64, inverted bool, names, colors []string, values [][]*float64) chart {
	if yMax <= yMin {
		yMax = yMin + 1
	}
	var ticks []float64
	for i := 1; i < 4; i++ {
		v := yMin + (yMax-yMin)*float64(i)/4
		if inverted {
			v = yMax * float64(i) / 4
		}
		ticks = append(ticks, v)
	}
	l := &svgchart.Line{
		Title: title, Width: 760, Height: 260, Left: 44, Right: 40, Top: 16, Bottom: 30,
		X: dates, YMin: yMin, YMax: yMax, Inverted: inverted, YTicks: ticks,
	}
	for i, vals := range values {
		l.Series = append(l.Series, svgchart.Series{Name: names[i], Color: colors[i%len(colors)], Points: svgchart.Values(vals)})
	}
	return chart{Title: title, Line: l}
}

type htmlView struct {
	R            *Report
	Rk           *Rankings
	T            *TrafficMetrics
	Charts       []chart
	Rows         []KeywordRow
	RowsTotal    int
	MeasuredCTR  *float64
	VisibilityOn string
}

// WriteHTML writes r as one self-contained HTML page: inline CSS and SVG
// charts (visibility, ranked and top-10 keywords per day, position history
// of the first keywords with position 1 at the top), the keyword table and
// the traffic figures labelled estimated or measured. It loads nothing
// from the network and runs no script; all text is escaped. opts may be
// nil.
func WriteHTML(w io.Writer, r *Report, opts *HTMLOptions) error {
	var o HTMLOptions
	if opts != nil {
		o = *opts
	}
	if o.Lines <= 0 {
		o.Lines = 10
	}
	if o.MaxRows <= 0 {
		o.MaxRows = 1000
	}
	if r == nil || r.Metrics.Rankings == nil || r.Metrics.Traffic == nil {
		return fmt.Errorf("reports: write html: %w", errIncomplete)
	}
	rk := r.Metrics.Rankings
	v := htmlView{R: r, Rk: rk, T: r.Metrics.Traffic, RowsTotal: rk.KeywordsTotal}
	if m := v.T.Measured; m != nil {
		v.MeasuredCTR = m.CTR
	}
	dates := make([]string, len(rk.Daily))
	vis := make([]*float64, len(rk.Daily))
	ranked := make([]*float64, len(rk.Daily))
	top10 := make([]*float64, len(rk.Daily))
	maxRanked := 1.0
	for i, d := range rk.Daily {
		dates[i] = d.Date
		vis[i] = d.Visibility
		ranked[i], top10[i] = ptr(float64(d.Ranked)), ptr(float64(d.Top10))
		maxRanked = max(maxRanked, float64(d.Ranked))
	}
	maxRanked = math.Ceil(maxRanked/4) * 4 // whole-number ticks
	v.Charts = append(v.Charts,
		newLineChart("Visibility (0-100)", dates, 0, 100, false, []string{"visibility"}, []string{"#3949ab"}, [][]*float64{vis}),
		newLineChart("Ranked and top-10 keywords", dates, 0, maxRanked, false, []string{"ranked", "top 10"}, []string{"#3949ab", "#2e7d32"}, [][]*float64{ranked, top10}))

	var names []string
	var lines [][]*float64
	worst := 10.0
	for _, row := range rk.Keywords {
		if len(lines) == o.Lines {
			break
		}
		if len(row.History) != len(dates) {
			continue
		}
		vals := make([]*float64, len(dates))
		for i, p := range row.History {
			vals[i] = p.Position
			if p.Position != nil {
				worst = max(worst, *p.Position)
			}
		}
		label := row.Keyword
		if row.Device != "" && row.Device != "desktop" {
			label += " (" + string(row.Device) + ")"
		}
		names, lines = append(names, label), append(lines, vals)
	}
	pc := newLineChart("Position history (1 at the top)", dates, 1, min(100, roundUp(worst)), true, names, lineColors, lines)
	if len(lines) == 0 {
		pc.Empty = "No position history in this report (build it with History)."
	}
	v.Charts = append(v.Charts, pc)

	v.Rows = rk.Keywords[:min(len(rk.Keywords), o.MaxRows)]
	if err := reportTemplate.Execute(w, v); err != nil {
		return fmt.Errorf("reports: write html: %w", err)
	}
	return nil
}

// roundUp rounds a worst position up to a tidy axis end (10, 20, 50, 100).
func roundUp(p float64) float64 {
	for _, v := range []float64{10, 20, 50} {
		if p <= v {
			return v
		}
	}
	return 100
}
