package dashboard

import (
	"math"
	"strconv"
	"strings"
)

// barChart is a bar chart laid out in Go and drawn by the templates as
// inline SVG (no script, no inline style: CSP-safe). Every chart also
// renders its numbers as a table for screen readers and text browsers.
type barChart struct {
	Title         string
	Width, Height int
	BaseY         int
	Bars          []chartBar
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
	Over         bool // above the limit line
}

// newBarChart lays out one bar per value, scaled to the largest value (or
// the limit, when limit > 0 and larger).
func newBarChart(title string, labels []string, values []int, limit int) *barChart {
	const height, top, bottom, gap = 200, 22, 26, 4
	n := len(values)
	barW := 40
	if n <= 4 {
		barW = 64
	}
	if n > 10 {
		barW = max(12, 600/n-gap)
	}
	c := &barChart{Title: title, Width: max(280, n*(barW+gap)+gap), Height: height, BaseY: height - bottom}
	maxV := limit
	for _, v := range values {
		maxV = max(maxV, v)
	}
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
		x := gap + i*(barW+gap)
		c.Bars = append(c.Bars, chartBar{
			X: x, Y: c.BaseY - h, W: barW, H: h, Label: labels[i], Value: strconv.Itoa(v),
			LabelX: x + barW/2, ValueY: c.BaseY - h - 4,
			ShowLabel: i%every == 0 || i == n-1, Over: limit > 0 && v >= limit,
		})
	}
	if limit > 0 && maxV > 0 {
		c.LimitY = c.BaseY - limit*plot/maxV
		c.LimitLabel = "limit " + strconv.Itoa(limit)
	}
	return c
}

// lineChart draws ranking positions over time: position 1 at the top,
// one polyline per series, gaps where the keyword did not rank.
type lineChart struct {
	Title         string
	Width, Height int
	Left, Right   int
	Top, Bottom   int
	YTicks        []tick
	XTicks        []tick
	Series        []lineSeries
}

type tick struct {
	Pos   int
	Label string
}

type lineSeries struct {
	Name    string
	Color   string
	Class   string
	Lines   []string // polyline "x,y x,y" segments
	Dots    []dot
	Latest  string
	Entries []seriesEntry
}

type dot struct{ X, Y int }

type seriesEntry struct {
	Date     string
	Position string
	URL      string
}

// seriesClasses colour the series through the stylesheet.
var seriesClasses = []string{"s0", "s1", "s2", "s3", "s4", "s5"}

// newLineChart lays out series over dates (labels in order); values[i][j]
// is the position of series i on date j, nil when not ranked.
func newLineChart(title string, dates []string, names []string, values [][]*float64) *lineChart {
	c := &lineChart{Title: title, Width: 640, Height: 240, Left: 40, Right: 12, Top: 12, Bottom: 28}
	worst := 1.0
	for _, vs := range values {
		for _, v := range vs {
			if v != nil {
				worst = math.Max(worst, *v)
			}
		}
	}
	yMax := math.Max(10, math.Ceil(worst/10)*10)
	plotW := c.Width - c.Left - c.Right
	plotH := c.Height - c.Top - c.Bottom
	x := func(i int) int {
		if len(dates) <= 1 {
			return c.Left + plotW/2
		}
		return c.Left + i*plotW/(len(dates)-1)
	}
	y := func(p float64) int { return c.Top + int(math.Round((p-1)/(yMax-1)*float64(plotH))) }
	for _, p := range []float64{1, math.Round(yMax / 2), yMax} {
		c.YTicks = append(c.YTicks, tick{Pos: y(p), Label: strconv.FormatFloat(p, 'f', 0, 64)})
	}
	step := max(1, (len(dates)+5)/6)
	for i := 0; i < len(dates); i += step {
		c.XTicks = append(c.XTicks, tick{Pos: x(i), Label: dates[i]})
	}
	for si, vs := range values {
		s := lineSeries{Name: names[si], Class: seriesClasses[si%len(seriesClasses)]}
		var seg []string
		flush := func() {
			if len(seg) > 1 {
				s.Lines = append(s.Lines, strings.Join(seg, " "))
			}
			seg = nil
		}
		for j, v := range vs {
			if v == nil {
				flush()
				continue
			}
			px, py := x(j), y(*v)
			seg = append(seg, strconv.Itoa(px)+","+strconv.Itoa(py))
			s.Dots = append(s.Dots, dot{px, py})
			s.Latest = strconv.FormatFloat(*v, 'f', -1, 64)
		}
		flush()
		c.Series = append(c.Series, s)
	}
	return c
}
