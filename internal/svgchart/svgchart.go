// Package svgchart lays out line charts and writes them as inline SVG, for
// the HTML reports (reports.WriteHTML) and the dashboard.
//
// A chart is laid out in Go and written as markup without script or inline
// style, so it works in a self-contained file and under a strict Content
// Security Policy alike. Series are coloured by a CSS class (a page with a
// stylesheet), by a colour attribute (a self-contained page), or both.
// Every chart labels its y axis at least at its minimum and maximum and its
// x axis at least at its first and last position.
package svgchart

import (
	"bytes"
	_ "embed"
	"html/template"
	"math"
	"strconv"
	"strings"
)

// DefaultMaxDots is the number of x positions up to which every value gets
// a dot when Line.MaxDots is 0.
const DefaultMaxDots = 60

// minTickGap is the smallest distance in pixels between two x labels
// (a "2006-01-02" date is about 60 pixels wide).
const minTickGap = 66

// Line is a line chart: series of values over labelled x positions, each
// series drawn as polylines broken where a value is missing.
type Line struct {
	// Title is the chart's accessible name (aria-label).
	Title string
	// Width and Height are the size of the drawing in pixels.
	Width, Height int
	// Left, Right, Top and Bottom are the margins around the plot.
	Left, Right, Top, Bottom int
	// X holds one label per x position, in order.
	X []string
	// YMin and YMax are the ends of the y scale; values outside are drawn
	// at the nearest end. YMax <= YMin is treated as YMin+1.
	YMin, YMax float64
	// Inverted puts YMin at the top (ranking positions: 1 is the best).
	Inverted bool
	// YTicks are values labelled on the y axis besides YMin and YMax
	// (which are always labelled); nil labels the middle of the scale.
	YTicks []float64
	// MaxDots is the number of x positions up to which every value gets a
	// dot; beyond it only a value between two gaps does (it has no line).
	// 0 means DefaultMaxDots; a negative value draws lone values only.
	MaxDots int
	// Series are the lines, drawn in order.
	Series []Series
}

// Series is one line of a chart.
type Series struct {
	// Name labels the line (its tooltip and the default dot tooltips).
	Name string
	// Class is added to the class of its lines and dots ("line s0").
	Class string
	// Color, when set, is written as the stroke of its lines and the fill
	// of its dots, for pages without a stylesheet for Class.
	Color string
	// Points has one entry per x position (extra entries are ignored,
	// missing ones are gaps).
	Points []Point
}

// Point is one value of a series.
type Point struct {
	// Value is nil when there is no value: the line breaks there.
	Value *float64
	// Title is the tooltip of its dot or mark; empty means
	// "Name X: Value" (or "Name X: no value").
	Title string
	// Mark, when Value is nil and Mark is set, draws a cross on the x axis
	// with this class (the state of an analysis without a result), so a
	// missing value is shown and never drawn as a zero.
	Mark string
}

// Values returns one Point per value.
func Values(vs []*float64) []Point {
	ps := make([]Point, len(vs))
	for i, v := range vs {
		ps[i].Value = v
	}
	return ps
}

// Layout is a chart in pixel coordinates. Left, Right, Top and Bottom are
// the edges of the plot area.
type Layout struct {
	Title                    string
	Width, Height            int
	Left, Right, Top, Bottom int
	YTicks, XTicks           []Tick
	Series                   []SeriesLayout
}

// Tick is a labelled position on an axis.
type Tick struct {
	Pos   int
	Label string
}

// SeriesLayout is a series in pixel coordinates.
type SeriesLayout struct {
	Name, Class, Color string
	// Lines are polyline points ("x,y x,y"), one per unbroken run of two
	// values or more.
	Lines []string
	Dots  []Dot
	// Marks are the crosses of missing values with a Mark.
	Marks []Dot
}

// Dot is a point drawn on its own, with its tooltip.
type Dot struct {
	X, Y  int
	Title string
	Class string
}

// FormatValue writes a value as the axis and the tooltips show it: the
// shortest decimal form, at most two decimals.
func FormatValue(v float64) string {
	return strconv.FormatFloat(math.Round(v*100)/100, 'f', -1, 64)
}

// Layout lays the chart out.
func (c *Line) Layout() Layout {
	l := Layout{
		Title: c.Title, Width: c.Width, Height: c.Height,
		Left: c.Left, Right: c.Width - c.Right, Top: c.Top, Bottom: c.Height - c.Bottom,
	}
	yMin, yMax := c.YMin, c.YMax
	if !(yMax > yMin) {
		yMax = yMin + 1
	}
	n := len(c.X)
	x := func(i int) int {
		if n <= 1 {
			return (l.Left + l.Right) / 2
		}
		return l.Left + int(math.Round(float64(i)*float64(l.Right-l.Left)/float64(n-1)))
	}
	y := func(v float64) int {
		f := (min(max(v, yMin), yMax) - yMin) / (yMax - yMin)
		if c.Inverted {
			return l.Top + int(math.Round(f*float64(l.Bottom-l.Top)))
		}
		return l.Bottom - int(math.Round(f*float64(l.Bottom-l.Top)))
	}
	l.YTicks = c.yTicks(yMin, yMax, y)
	l.XTicks = xTicks(c.X, x)

	maxDots := c.MaxDots
	if maxDots == 0 {
		maxDots = DefaultMaxDots
	}
	for _, s := range c.Series {
		sl := SeriesLayout{Name: s.Name, Class: s.Class, Color: s.Color}
		pts := s.Points[:min(len(s.Points), n)]
		at := func(i int) *float64 {
			if i < 0 || i >= len(pts) {
				return nil
			}
			return pts[i].Value
		}
		var run []string
		flush := func() {
			if len(run) > 1 {
				sl.Lines = append(sl.Lines, strings.Join(run, " "))
			}
			run = run[:0]
		}
		for i, p := range pts {
			px := x(i)
			if p.Value == nil {
				flush()
				if p.Mark != "" {
					title := p.Title
					if title == "" {
						title = s.Name + " " + c.X[i] + ": no value"
					}
					sl.Marks = append(sl.Marks, Dot{X: px, Y: l.Bottom, Title: title, Class: p.Mark})
				}
				continue
			}
			py := y(*p.Value)
			run = append(run, strconv.Itoa(px)+","+strconv.Itoa(py))
			// A lone value between gaps has no line: it always gets its dot.
			lone := at(i-1) == nil && at(i+1) == nil
			if lone || n <= maxDots {
				title := p.Title
				if title == "" {
					title = s.Name + " " + c.X[i] + ": " + FormatValue(*p.Value)
				}
				sl.Dots = append(sl.Dots, Dot{X: px, Y: py, Title: title})
			}
		}
		flush()
		l.Series = append(l.Series, sl)
	}
	return l
}

// yTicks labels yMin, yMax and c.YTicks (or the middle), in scale order,
// without duplicates or values outside the scale.
func (c *Line) yTicks(yMin, yMax float64, y func(float64) int) []Tick {
	vals := []float64{yMin}
	extra := c.YTicks
	if extra == nil {
		extra = []float64{(yMin + yMax) / 2}
	}
	for _, v := range extra {
		if v > yMin && v < yMax {
			vals = append(vals, v)
		}
	}
	vals = append(vals, yMax)
	var ticks []Tick
	last := math.Inf(-1)
	for _, v := range vals {
		if v <= last {
			continue
		}
		last = v
		ticks = append(ticks, Tick{Pos: y(v), Label: FormatValue(v)})
	}
	return ticks
}

// xTicks labels about six evenly spaced positions, always the first and
// the last; a regular label too close to the last one gives way to it.
func xTicks(labels []string, x func(int) int) []Tick {
	n := len(labels)
	if n == 0 {
		return nil
	}
	var ticks []Tick
	step := max(1, (n+5)/6)
	for i := 0; i < n; i += step {
		ticks = append(ticks, Tick{Pos: x(i), Label: labels[i]})
	}
	if (n-1)%step != 0 {
		if len(ticks) > 1 && x(n-1)-ticks[len(ticks)-1].Pos < minTickGap {
			ticks = ticks[:len(ticks)-1]
		}
		ticks = append(ticks, Tick{Pos: x(n - 1), Label: labels[n-1]})
	}
	return ticks
}

//go:embed line.svg.tmpl
var lineSVG string

var lineTemplate = template.Must(template.New("line").Parse(lineSVG))

// SVG writes the chart as an <svg> element.
func (c *Line) SVG() (template.HTML, error) {
	var b bytes.Buffer
	if err := lineTemplate.Execute(&b, c.Layout()); err != nil {
		return "", err
	}
	return template.HTML(b.String()), nil // #nosec: written by html/template, every value escaped
}
