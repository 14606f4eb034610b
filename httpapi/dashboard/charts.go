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

// trendChart draws one number of a project's analyses over time, oldest
// first, on its own scale from 0. An analysis without the number (it
// failed, was canceled or has not finished) breaks the line and gets a
// marker on the axis naming its state: it is never drawn as a zero.
type trendChart struct {
	Title         string
	Class         string // the series colour (seriesClasses)
	Width, Height int
	Left, Right   int
	Top, BaseY    int
	YTicks        []tick
	XTicks        []tick
	Lines         []string
	Dots          []trendDot
	Missing       []trendDot
	Latest        string
}

// trendPoint is one analysis on the x axis.
type trendPoint struct {
	Label string // date and time, for tooltips
	Date  string // short date, for the axis
	State string // the analysis's status
}

type trendDot struct {
	X, Y  int
	Title string
	State string
}

// maxTrendDots is the number of points up to which every value gets a
// dot; longer histories draw lines only.
const maxTrendDots = 60

// newTrendChart lays out values over points (values[i] nil when the
// analysis has no number). fixed, when positive, is the top of the scale
// (100 for a score); otherwise the scale fits the largest value.
func newTrendChart(title string, points []trendPoint, values []*int, fixed int, class string) *trendChart {
	c := &trendChart{Title: title, Class: class, Width: 480, Height: 170, Left: 44, Right: 24, Top: 12}
	c.BaseY = c.Height - 28
	top := fixed
	if top <= 0 {
		for _, v := range values {
			if v != nil {
				top = max(top, *v)
			}
		}
		top = niceCeil(top)
	}
	plotW, plotH := c.Width-c.Left-c.Right, c.BaseY-c.Top
	x := func(i int) int {
		if len(points) <= 1 {
			return c.Left + plotW/2
		}
		return c.Left + i*plotW/(len(points)-1)
	}
	y := func(v int) int { return c.BaseY - v*plotH/top }
	for _, v := range []int{0, top / 2, top} {
		c.YTicks = append(c.YTicks, tick{Pos: y(v), Label: strconv.Itoa(v)})
	}
	step := max(1, (len(points)+5)/6)
	for i := 0; i < len(points); i += step {
		c.XTicks = append(c.XTicks, tick{Pos: x(i), Label: points[i].Date})
	}
	var seg []string
	flush := func() {
		if len(seg) > 1 {
			c.Lines = append(c.Lines, strings.Join(seg, " "))
		}
		seg = nil
	}
	for i, v := range values {
		px := x(i)
		if v == nil {
			flush()
			c.Missing = append(c.Missing, trendDot{X: px, Y: c.BaseY, Title: points[i].Label + ": " + points[i].State + ", no result", State: points[i].State})
			continue
		}
		py := y(*v)
		seg = append(seg, strconv.Itoa(px)+","+strconv.Itoa(py))
		// A lone value between gaps has no line: it always gets its dot.
		lone := (i == 0 || values[i-1] == nil) && (i == len(values)-1 || values[i+1] == nil)
		if len(points) <= maxTrendDots || lone {
			c.Dots = append(c.Dots, trendDot{X: px, Y: py, Title: points[i].Label + ": " + strconv.Itoa(*v)})
		}
		c.Latest = strconv.Itoa(*v)
	}
	flush()
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
