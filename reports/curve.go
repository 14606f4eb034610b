package reports

import (
	"fmt"
	"math"
	"sort"

	"github.com/seokit/seokit/seo"
)

// Curve is a named click-through-rate curve for organic Google results:
// the share of searchers who click the result at each position.
type Curve struct {
	// Name identifies the curve in reports ("ctrModel").
	Name string `json:"name"`
	// Source says where the figures come from.
	Source string `json:"source"`
	// CTR is the click-through rate of positions 1..100 as a fraction
	// (0.398 is 39.8%); CTR[0] is position 1.
	CTR [100]float64 `json:"-"`
	// Interpolated lists the positions whose value is not from the source
	// but interpolated between published neighbours (see Method).
	Interpolated []int `json:"interpolated,omitempty"`
	// Method says how gaps were filled, when any were.
	Method string `json:"method,omitempty"`
}

// Curve names.
const (
	// CurveDefault is First Page Sage 2024 for positions 1-10, the AOL 2006
	// search log for 11-20 and 0 for 21-100.
	CurveDefault = "fps-2024+aol-2006"
	// CurveAOL2006 is the AOL 2006 search log for positions 1-20, 0 beyond.
	CurveAOL2006 = "aol-2006"
	// CurveSistrix2020Partial is SISTRIX's 2020 study for the positions it
	// publishes, interpolated in between, 0 beyond 10.
	CurveSistrix2020Partial = "sistrix-2020-partial"
)

// First Page Sage, "Google Click-Through Rates by Ranking Position" (2024),
// organic CTR of positions 1-10 in percent, as summarised at
// steven-hsu.com.
var fps2024 = [10]float64{
	39.8, // 1
	18.7, // 2
	10.2, // 3
	7.2,  // 4
	5.1,  // 5
	4.4,  // 6
	3.0,  // 7
	2.1,  // 8
	1.9,  // 9
	1.6,  // 10
}

// AOL search log of 2006 (about 20 million queries of 650,000 users),
// share of clicks per result position in percent, positions 1-20, as
// tabulated at ayoswebdesign.com and decenttools.com.
var aol2006 = [20]float64{
	42.13, // 1
	11.90, // 2
	8.50,  // 3
	6.06,  // 4
	4.92,  // 5
	4.05,  // 6
	3.41,  // 7
	3.01,  // 8
	2.85,  // 9
	2.99,  // 10
	0.66,  // 11
	0.56,  // 12
	0.52,  // 13
	0.48,  // 14
	0.47,  // 15
	0.39,  // 16
	0.36,  // 17
	0.34,  // 18
	0.32,  // 19
	0.30,  // 20
}

// SISTRIX CTR study 2020 (80 million keywords, mobile results), as
// reported at web-stepup.com and parker2010.com: only positions 1, 2, 3
// and 10 are published as figures (positions 11-20 only as "below 1%").
var sistrix2020 = map[int]float64{
	1:  28.5,
	2:  15.7,
	3:  11.0,
	10: 2.5,
}

var curves = map[string]*Curve{}

func init() {
	def := &Curve{
		Name: CurveDefault,
		Source: "First Page Sage 2024 (positions 1-10, via steven-hsu.com); " +
			"AOL 2006 search log (positions 11-20, via ayoswebdesign.com); " +
			"0 for 21-100, as AWR Click Share counts no clicks past position 20",
	}
	for i, v := range fps2024 {
		def.CTR[i] = v / 100
	}
	for i := 10; i < 20; i++ {
		def.CTR[i] = aol2006[i] / 100
	}

	aol := &Curve{
		Name:   CurveAOL2006,
		Source: "AOL 2006 search log, share of clicks by position 1-20 (via ayoswebdesign.com, decenttools.com); 0 for 21-100",
	}
	for i, v := range aol2006 {
		aol.CTR[i] = v / 100
	}

	sis := &Curve{
		Name: CurveSistrix2020Partial,
		Source: "SISTRIX 2020 CTR study, 80M keywords, mobile (via web-stepup.com, parker2010.com): " +
			"positions 1, 2, 3 and 10 only; 0 for 11-100 (published only as below 1%)",
		Method: "positions 4-9 interpolated geometrically between position 3 (11.0%) and 10 (2.5%): " +
			"CTR(p) = CTR(3) * (CTR(10)/CTR(3))^((p-3)/7)",
	}
	for p, v := range sistrix2020 {
		sis.CTR[p-1] = v / 100
	}
	for p := 4; p <= 9; p++ {
		sis.CTR[p-1] = sistrix2020[3] / 100 * math.Pow(sistrix2020[10]/sistrix2020[3], float64(p-3)/7)
		sis.Interpolated = append(sis.Interpolated, p)
	}
	for _, c := range []*Curve{def, aol, sis} {
		curves[c.Name] = c
	}
}

// CurveNames returns the names of the built-in curves, sorted.
func CurveNames() []string {
	names := make([]string, 0, len(curves))
	for n := range curves {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// CurveByName returns a copy of a built-in curve; "" is CurveDefault. An
// unknown name is an *seo.InputError for the field "ctrModel".
func CurveByName(name string) (*Curve, error) {
	if name == "" {
		name = CurveDefault
	}
	c, ok := curves[name]
	if !ok {
		return nil, &seo.InputError{Field: "ctrModel", Value: name,
			Reason: fmt.Sprintf("unknown CTR curve; known: %v", CurveNames())}
	}
	cp := *c
	cp.Interpolated = append([]int(nil), c.Interpolated...)
	return &cp, nil
}

// At returns the click-through rate at a position. Whole positions read
// the table; a fractional position (a Search Console average such as 3.4)
// is interpolated linearly between its two neighbours; positions below 1
// count as 1 and positions past 100 have no clicks.
func (c *Curve) At(pos float64) float64 {
	if math.IsNaN(pos) || pos > 100 {
		return 0
	}
	if pos <= 1 {
		return c.CTR[0]
	}
	lo := math.Floor(pos)
	i := int(lo) - 1
	frac := pos - lo
	if frac == 0 || i >= 99 {
		return c.CTR[i]
	}
	return c.CTR[i]*(1-frac) + c.CTR[i+1]*frac
}
