// Package barchart lays out the bar charts of the crawler's HTML reports
// (a site report and a crawl comparison) in Go, for their templates to draw
// as inline SVG.
package barchart

import "strconv"

// Colours of the report charts.
const (
	ColorOK       = "#2e7d32"
	ColorRedirect = "#1565c0"
	ColorClient   = "#ef6c00"
	ColorServer   = "#c62828"
	ColorNone     = "#757575"
	ColorBar      = "#3949ab"
	ColorError    = "#c62828"
	ColorWarning  = "#ef6c00"
	ColorNotice   = "#1565c0"
)

// Chart is a bar chart laid out in Go and drawn as inline SVG.
type Chart struct {
	Title         string
	Width, Height int
	BaseY         int
	// Left is the x of the y axis; TopY the y of its top value, YMax (the
	// largest value).
	Left, TopY int
	YMax       string
	// XAxis and YAxis title the axes; "" for none.
	XAxis, YAxis string
	Bars         []Bar
}

type Bar struct {
	X, Y, W, H     int
	Color          string
	Label, Value   string
	LabelX, ValueY int
}

// New lays out one bar per value, scaled to the largest; bar i takes
// colors[i mod len(colors)].
func New(title string, labels []string, values []int, colors []string) Chart {
	const height, top, bottom, gap, left = 236, 24, 44, 8, 40
	n := len(values)
	barW := 48
	if n > 12 {
		barW = max(14, 576/n-gap)
	}
	c := Chart{Title: title, Width: left + max(320, n*(barW+gap)+gap), Height: height, BaseY: height - bottom, Left: left, TopY: top}
	maxV := 0
	for _, v := range values {
		maxV = max(maxV, v)
	}
	c.YMax = strconv.Itoa(maxV)
	plot := height - top - bottom
	for i, v := range values {
		h := 0
		if maxV > 0 {
			h = v * plot / maxV
		}
		if v > 0 && h < 2 {
			h = 2
		}
		x := left + gap + i*(barW+gap)
		c.Bars = append(c.Bars, Bar{
			X: x, Y: c.BaseY - h, W: barW, H: h, Color: colors[i%len(colors)],
			Label: labels[i], Value: strconv.Itoa(v),
			LabelX: x + barW/2, ValueY: c.BaseY - h - 6,
		})
	}
	return c
}

// Axes returns c with its axes titled x and y.
func (c Chart) Axes(x, y string) Chart {
	c.XAxis, c.YAxis = x, y
	return c
}
