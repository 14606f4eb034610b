package dashboard

import (
	"math"
	"strconv"

	"github.com/seokit/seokit/internal/svgchart"
)

// barChart is a bar chart laid out in Go and drawn by the templates as
// inline SVG (no script, no inline style: CSP-safe), with both axes
// labelled: the y axis from 0 to its top value, each bar's value above it,
// the categories and the axis titles. Every chart also renders its
// numbers as a table for screen readers and text browsers.
type barChart struct {
	Title         string
	Width, Height int
	BaseY         int
	// Left is the x of the y axis; TopY the y of its top value YMax.
	Left int
	TopY int
	YMax string
	// XAxis and YAxis title the axes ("HTTP status", "pages").
	XAxis, YAxis string
	Bars         []chartBar
	// LimitY is the y of a horizontal limit line; 0 means none.
	LimitY     int
	LimitLabel string
}

type chartBar struct {
	X, Y, W, H   int
	Label, Value string
	LabelX       int
	ValueY       int
	ShowLabel    bool
	// ShowValue: the value is written above the bar (charts of at most 15
	// bars; the data table has every value).
	ShowValue bool
	Over      bool // above the limit line
}

// newBarChart lays out one bar per value, scaled to the largest value (or
// the limit, when limit > 0 and larger); xAxis and yAxis title the axes.
func newBarChart(title, xAxis, yAxis string, labels []string, values []int, limit int) *barChart {
	const height, top, bottom, gap, left = 230, 30, 46, 4, 44
	n := len(values)
	barW := 40
	if n <= 4 {
		barW = 64
	}
	if n > 10 {
		barW = max(12, 600/n-gap)
	}
	c := &barChart{Title: title, Width: left + max(280, n*(barW+gap)+gap), Height: height, BaseY: height - bottom,
		Left: left, TopY: top, XAxis: xAxis, YAxis: yAxis}
	maxV := limit
	for _, v := range values {
		maxV = max(maxV, v)
	}
	c.YMax = strconv.Itoa(maxV)
	plot := height - top - bottom
	every := 1
	if n > 15 {
		every = (n + 9) / 10
	}
	for i, v := range values {
		h := 0
		if maxV > 0 {
			h = v * plot / maxV
		}
		if v > 0 && h < 2 {
			h = 2
		}
		x := left + gap + i*(barW+gap)
		c.Bars = append(c.Bars, chartBar{
			X: x, Y: c.BaseY - h, W: barW, H: h, Label: labels[i], Value: strconv.Itoa(v),
			LabelX: x + barW/2, ValueY: c.BaseY - h - 4,
			ShowLabel: i%every == 0 || i == n-1, ShowValue: n <= 15, Over: limit > 0 && v >= limit,
		})
	}
	if limit > 0 && maxV > 0 {
		c.LimitY = c.BaseY - limit*plot/maxV
		c.LimitLabel = "limit " + strconv.Itoa(limit)
	}
	return c
}

// lineChart draws ranking positions over time (internal/svgchart): position
// 1 at the top, one polyline per series, gaps where the keyword did not
// rank, every day's position a dot with its value.
type lineChart struct {
	Title string
	Line  *svgchart.Line
}

// seriesEntry is one row of a ranking chart's data table.
type seriesEntry struct {
	Date     string
	Position string
	URL      string
}

// seriesClasses colour the series through the stylesheet.
var seriesClasses = []string{"s0", "s1", "s2", "s3", "s4", "s5"}

// newLineChart lays out series over dates (labels in order); values[i][j]
// is the position of series i on date j, nil when not ranked. The scale
// runs from 1 to the worst position rounded up to ten (at least 10).
func newLineChart(title string, dates []string, names []string, values [][]*float64) *lineChart {
	worst := 1.0
	for _, vs := range values {
		for _, v := range vs {
			if v != nil {
				worst = math.Max(worst, *v)
			}
		}
	}
	yMax := math.Max(10, math.Ceil(worst/10)*10)
	l := &svgchart.Line{
		Title: "Position history of " + title, Width: 640, Height: 240, Left: 40, Right: 12, Top: 12, Bottom: 28,
		X: dates, YMin: 1, YMax: yMax, Inverted: true, YTicks: []float64{math.Round(yMax / 2)},
		MaxDots: max(1, len(dates)),
	}
	for i, vs := range values {
		l.Series = append(l.Series, svgchart.Series{Name: names[i], Class: seriesClasses[i%len(seriesClasses)], Points: svgchart.Values(vs)})
	}
	return &lineChart{Title: title, Line: l}
}

// trendChart draws one number of a project's analyses over time, oldest
// first, on its own scale from 0 (internal/svgchart). An analysis without
// the number (it failed, was canceled or has not finished) breaks the line
// and gets a marker on the axis naming its state: it is never drawn as a
// zero.
type trendChart struct {
	Title  string
	Line   *svgchart.Line
	Latest string
}

// trendPoint is one analysis on the x axis.
type trendPoint struct {
	Label string // date and time, for tooltips
	Date  string // short date, for the axis
	State string // the analysis's status
}

// newTrendChart lays out values over points (values[i] nil when the
// analysis has no number). fixed, when positive, is the top of the scale
// (100 for a score); otherwise the scale fits the largest value. Every
// value gets a dot up to svgchart.DefaultMaxDots analyses; longer
// histories draw lines (and lone values) only.
func newTrendChart(title string, points []trendPoint, values []*int, fixed int, class string) *trendChart {
	top := fixed
	if top <= 0 {
		for _, v := range values {
			if v != nil {
				top = max(top, *v)
			}
		}
		top = niceCeil(top)
	}
	c := &trendChart{Title: title}
	s := svgchart.Series{Name: title, Class: class, Points: make([]svgchart.Point, len(points))}
	x := make([]string, len(points))
	for i, p := range points {
		x[i] = p.Date
		if i >= len(values) || values[i] == nil {
			s.Points[i] = svgchart.Point{Title: p.Label + ": " + p.State + ", no result", Mark: p.State}
			continue
		}
		v := float64(*values[i])
		s.Points[i] = svgchart.Point{Value: &v, Title: p.Label + ": " + strconv.Itoa(*values[i])}
		c.Latest = strconv.Itoa(*values[i])
	}
	c.Line = &svgchart.Line{
		Title: title + " over the project's analyses; the history table lists the values",
		Width: 480, Height: 170, Left: 44, Right: 24, Top: 12, Bottom: 28,
		X: x, YMin: 0, YMax: float64(top), YTicks: []float64{float64(top / 2)},
		Series: []svgchart.Series{s},
	}
	return c
}

// niceCeil rounds n up to 1, 2 or 5 times a power of ten (at least 10).
func niceCeil(n int) int {
	for p := 10; p < 1e15; p *= 10 {
		for _, m := range []int{1, 2, 5} {
			if m*p >= n {
				return m * p
			}
		}
	}
	return n
}
