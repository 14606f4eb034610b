package svgchart

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func f(v float64) *float64 { return &v }

func dates(n int) []string {
	d := make([]string, n)
	for i := range d {
		d[i] = fmt.Sprintf("d%02d", i+1)
	}
	return d
}

// TestAxisLabels: whatever the number of positions, the y axis is
// labelled at its minimum and maximum and the x axis at its first and last
// position, and no two x labels overlap.
func TestAxisLabels(t *testing.T) {
	for _, n := range []int{1, 2, 3, 7, 8, 12, 13, 30, 31, 60, 90, 365} {
		for _, inverted := range []bool{false, true} {
			c := Line{Width: 640, Height: 240, Left: 40, Right: 12, Top: 12, Bottom: 28, X: dates(n), YMin: 1, YMax: 20, Inverted: inverted}
			l := c.Layout()
			name := fmt.Sprintf("n=%d inverted=%v", n, inverted)
			yt := l.YTicks
			if len(yt) < 2 || yt[0].Label != "1" || yt[len(yt)-1].Label != "20" {
				t.Errorf("%s: y ticks %v, want 1 first and 20 last", name, yt)
				continue
			}
			top, bottom := yt[len(yt)-1].Pos, yt[0].Pos // 20 at the top
			if inverted {
				top, bottom = bottom, top
			}
			if top != l.Top || bottom != l.Bottom {
				t.Errorf("%s: y ends at %d and %d, want the plot's %d and %d", name, top, bottom, l.Top, l.Bottom)
			}
			xt := l.XTicks
			if xt[0].Label != "d01" || xt[len(xt)-1].Label != fmt.Sprintf("d%02d", n) {
				t.Errorf("%s: x ticks %v, want the first and the last date", name, xt)
			}
			if n > 1 && (xt[0].Pos != l.Left || xt[len(xt)-1].Pos != l.Right) {
				t.Errorf("%s: x ends at %d and %d, want %d and %d", name, xt[0].Pos, xt[len(xt)-1].Pos, l.Left, l.Right)
			}
			for i := 1; i < len(xt); i++ {
				if gap := xt[i].Pos - xt[i-1].Pos; gap < minTickGap {
					t.Errorf("%s: x labels %s and %s %d px apart, want at least %d", name, xt[i-1].Label, xt[i].Label, gap, minTickGap)
				}
			}
			if len(xt) > 7 {
				t.Errorf("%s: %d x labels, want at most 7", name, len(xt))
			}
		}
	}
}

// TestYTicks: extra ticks are labelled in scale order, those outside the
// scale or repeated are dropped, and nil labels the middle.
func TestYTicks(t *testing.T) {
	for _, tc := range []struct {
		name  string
		min   float64
		max   float64
		ticks []float64
		want  string
	}{
		{"middle by default", 0, 100, nil, "0 50 100"},
		{"given", 1, 20, []float64{5, 10, 15}, "1 5 10 15 20"},
		{"outside and repeated dropped", 0, 10, []float64{-1, 0, 5, 5, 10, 12}, "0 5 10"},
		{"empty scale widened", 3, 3, []float64{}, "3 4"},
		{"two decimals", 0, 1, []float64{1.0 / 3}, "0 0.33 1"},
	} {
		c := Line{Width: 100, Height: 100, X: dates(2), YMin: tc.min, YMax: tc.max, YTicks: tc.ticks}
		var got []string
		for _, tk := range c.Layout().YTicks {
			got = append(got, tk.Label)
		}
		if s := strings.Join(got, " "); s != tc.want {
			t.Errorf("%s: y labels %q, want %q", tc.name, s, tc.want)
		}
	}
}

// TestGapsDotsAndMarks: a nil value breaks the line and is never drawn as
// a zero; a value between two gaps is a dot; a nil value with a Mark is a
// cross on the x axis; values outside the scale are drawn at its ends.
func TestGapsDotsAndMarks(t *testing.T) {
	c := Line{
		Width: 700, Height: 200, Left: 50, Right: 50, Top: 10, Bottom: 30,
		X: dates(7), YMin: 0, YMax: 10, MaxDots: -1,
		Series: []Series{{Name: "a", Points: []Point{
			{Value: f(2)}, {Value: f(4)}, {}, {Value: f(6)}, {Mark: "failed", Title: "d05: failed"}, {Value: f(50)}, {Value: f(-3)},
		}}},
	}
	l := c.Layout()
	s := l.Series[0]
	// x: 50 + i*100; y: 170 - v*16.
	if want := []string{"50,138 150,106", "550,10 650,170"}; strings.Join(s.Lines, "|") != strings.Join(want, "|") {
		t.Errorf("lines %q, want %q", s.Lines, want)
	}
	if len(s.Dots) != 1 || s.Dots[0] != (Dot{X: 350, Y: 74, Title: "a d04: 6"}) {
		t.Errorf("dots %+v, want only the lone value at d04", s.Dots)
	}
	if len(s.Marks) != 1 || s.Marks[0] != (Dot{X: 450, Y: l.Bottom, Title: "d05: failed", Class: "failed"}) {
		t.Errorf("marks %+v, want one cross at d05 on the x axis", s.Marks)
	}
	for _, line := range s.Lines {
		if strings.Contains(line, "250,") {
			t.Errorf("the gap at d03 is drawn: %q", line)
		}
	}

	// MaxDots: every value gets a dot while the chart has at most that
	// many positions.
	for _, tc := range []struct {
		maxDots, want int
	}{{0, 5}, {7, 5}, {6, 1}, {-1, 1}} {
		c.MaxDots = tc.maxDots
		if got := len(c.Layout().Series[0].Dots); got != tc.want {
			t.Errorf("MaxDots %d: %d dots, want %d", tc.maxDots, got, tc.want)
		}
	}
}

// TestInverted: on an inverted scale the smaller value is higher up.
func TestInverted(t *testing.T) {
	c := Line{Width: 300, Height: 300, Top: 10, Bottom: 10, X: dates(2), YMin: 1, YMax: 100, Inverted: true,
		Series: []Series{{Name: "k", Points: Values([]*float64{f(1), f(100)})}}}
	s := c.Layout().Series[0]
	if s.Lines[0] != "0,10 300,290" {
		t.Errorf("inverted line %q, want position 1 at the top (y 10) and 100 at the bottom (y 290)", s.Lines[0])
	}
}

// TestSVG: the markup carries the axis labels, lines, dots and marks with
// their classes and colours, and escapes every text.
func TestSVG(t *testing.T) {
	c := Line{
		Title: `a <b> "chart"`, Width: 400, Height: 200, Left: 40, Right: 10, Top: 10, Bottom: 30,
		X: []string{"2026-01-01", "<x>", "2026-01-03"}, YMin: 0, YMax: 10,
		Series: []Series{
			{Name: "<script>alert(1)</script>", Class: "s0", Color: "#3949ab", Points: Values([]*float64{f(1), f(2), nil})},
			{Name: "b", Class: "s1", Points: []Point{{Value: f(3)}, {Mark: "failed"}, {Value: f(4)}}},
		},
	}
	svg, err := c.SVG()
	if err != nil {
		t.Fatal(err)
	}
	out := string(svg)
	for _, want := range []string{
		`<svg role="img" aria-label="a &lt;b&gt; &#34;chart&#34;" width="400" height="200" viewBox="0 0 400 200">`,
		`text-anchor="end">0</text>`, `text-anchor="end">10</text>`,
		`text-anchor="middle">2026-01-01</text>`, `text-anchor="middle">2026-01-03</text>`,
		`<polyline class="line s0" fill="none" stroke="#3949ab" stroke-width="2" points="40,`,
		`<title>&lt;script&gt;alert(1)&lt;/script&gt;</title>`,
		`<circle class="dot s1" cx="40" cy="`,
		`<path class="missing failed" d="M215 170m-4 -4l8 8m0 -8l-8 8"><title>b &lt;x&gt;: no value</title></path>`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("svg lacks %s\n%s", want, out)
		}
	}
	if strings.Contains(out, "<script") || strings.Contains(out, "<x>") || strings.Contains(out, "style=") {
		t.Errorf("svg carries unescaped text or inline style:\n%s", out)
	}
	// Series without a colour take it from the stylesheet only.
	if regexp.MustCompile(`class="(line|dot) s1"[^>]*(stroke|fill)="#`).MatchString(out) {
		t.Errorf("series without Color got a colour attribute:\n%s", out)
	}
	if n := strings.Count(out, "<circle"); n != 4 {
		t.Errorf("%d dots, want 4 (every value of a 3-position chart)", n)
	}
}

// TestCoordinatesInside: every coordinate lies inside the drawing, whatever
// the values, for charts of any length.
func TestCoordinatesInside(t *testing.T) {
	num := regexp.MustCompile(`\d+`)
	for _, n := range []int{1, 2, 5, 90, 400} {
		vals := make([]*float64, n)
		for i := range vals {
			if i%7 != 3 {
				vals[i] = f(float64(i*37%250) - 50)
			}
		}
		c := Line{Width: 640, Height: 240, Left: 40, Right: 12, Top: 12, Bottom: 28, X: dates(n), YMin: 1, YMax: 100, Inverted: true,
			Series: []Series{{Name: "k", Points: Values(vals)}}}
		l := c.Layout()
		for _, s := range l.Series {
			for _, line := range s.Lines {
				for _, p := range strings.Fields(line) {
					xy := num.FindAllString(p, -1)
					x, _ := strconv.Atoi(xy[0])
					y, _ := strconv.Atoi(xy[1])
					if x < l.Left || x > l.Right || y < l.Top || y > l.Bottom {
						t.Fatalf("n=%d: point %s outside the plot %d-%d x %d-%d", n, p, l.Left, l.Right, l.Top, l.Bottom)
					}
				}
			}
		}
	}
}
