package reports_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/seokit/seokit/rankings"
	"github.com/seokit/seokit/reports"
	"github.com/seokit/seokit/seo"
)

var fixedNow = func() time.Time { return date("2026-03-01").Add(15 * time.Hour) }

// sample is the hand-checked history of the package tests, 2026-01-01..03:
//
//	a: 3 on day 1, 1 on day 3          volume 1000  improved by 2
//	b: 2 on day 1, 5 on day 2          volume 100   declined by 3
//	c: not ranked day 1, 10 on day 3   no volume    new
//	d: 8 on day 1, not ranked day 3    volume 10    lost
//	e: tracked, never checked                        unchecked
func sample() *memStore {
	st := &memStore{}
	st.obs = []rankings.Observation{
		obs("a", "2026-01-01", pos(3)), obs("a", "2026-01-03", pos(1)),
		obs("b", "2026-01-01", pos(2)), obs("b", "2026-01-02", pos(5)),
		obs("c", "2026-01-01", nil), obs("c", "2026-01-03", pos(10)),
		obs("d", "2026-01-01", pos(8)), obs("d", "2026-01-03", nil),
	}
	for _, k := range []string{"a", "b", "c", "d", "e"} {
		st.tracked = append(st.tracked, rankings.Tracked{Domain: "example.com", Keyword: k, Locale: enUS, Device: rankings.Desktop, AddedAt: date("2025-12-31")})
	}
	return st
}

func sampleVolumes() *volumes {
	return &volumes{table: map[string]int{"a": 1000, "b": 100, "d": 10}}
}

func near(t *testing.T, name string, got *float64, want float64) {
	t.Helper()
	if got == nil {
		t.Errorf("%s = nil, want %v", name, want)
		return
	}
	if math.Abs(*got-want) > 1e-9 {
		t.Errorf("%s = %v, want %v", name, *got, want)
	}
}

func TestBuildRankings(t *testing.T) {
	t.Parallel()
	b := reports.New(sample(), sampleVolumes(), &reports.Options{Now: fixedNow})
	rep, err := b.Build(context.Background(), "Example.com", date("2026-01-01"), date("2026-01-03"), &reports.BuildOptions{History: true})
	if err != nil {
		t.Fatal(err)
	}
	r := rep.Metrics.Rankings
	for _, c := range []struct {
		name      string
		got, want int
	}{
		{"tracked", r.Tracked, 5},
		{"checked", r.Checked, 4},
		{"ranked", r.Ranked, 3},
		{"top3", r.Top3, 1},
		{"top10", r.Top10, 3},
		{"top20", r.Top20, 3},
		{"top100", r.Top100, 3},
		{"notRanked", r.NotRanked, 1},
		{"unchecked", r.Unchecked, 1},
		{"improved", r.Improved, 1},
		{"declined", r.Declined, 1},
		{"unchanged", r.Unchanged, 0},
		{"new", r.New, 1},
		{"lost", r.Lost, 1},
		{"keywordsTotal", r.KeywordsTotal, 5},
		{"days", len(r.Daily), 3},
	} {
		if c.got != c.want {
			t.Errorf("%s = %d, want %d", c.name, c.got, c.want)
		}
	}
	near(t, "averagePosition", r.AveragePosition, 5.33)     // (1+5+10)/3
	near(t, "averagePositionAll", r.AveragePositionAll, 29) // (1+5+10+100)/4
	if rep.Domain != "example.com" || rep.Start != "2026-01-01" || rep.End != "2026-01-03" {
		t.Errorf("header = %s %s %s", rep.Domain, rep.Start, rep.End)
	}

	// Day 1: a 3, b 2, c -, d 8. Day 2: b moves to 5. Day 3: a 1, c 10, d -.
	wantDays := []struct {
		known, ranked, top3, top10 int
		avg, vis                   float64
	}{
		{4, 3, 2, 3, 4.33, 27.37}, // 100*(1000*.102+100*.187+10*.021)/(1110*.398)
		{4, 3, 1, 3, 5.33, 24.29}, // 100*(1000*.102+100*.051+10*.021)/441.78
		{4, 3, 1, 3, 5.33, 91.24}, // 100*(1000*.398+100*.051)/441.78
	}
	for i, w := range wantDays {
		d := r.Daily[i]
		if d.Known != w.known || d.Ranked != w.ranked || d.Top3 != w.top3 || d.Top10 != w.top10 {
			t.Errorf("day %s = %+v, want %+v", d.Date, d, w)
		}
		near(t, "day visibility "+d.Date, d.Visibility, w.vis)
		near(t, "day average "+d.Date, d.AveragePosition, w.avg)
	}

	rows := map[string]reports.KeywordRow{}
	for _, row := range r.Keywords {
		rows[row.Keyword] = row
	}
	if got := r.Keywords[0].Keyword; got != "a" {
		t.Errorf("first row %q, want a (highest volume)", got)
	}
	for _, c := range []struct {
		kw, status string
		change     *float64
		best       *float64
	}{
		{"a", "improved", pos(2), pos(1)},
		{"b", "declined", pos(-3), pos(2)},
		{"c", "new", nil, pos(10)},
		{"d", "lost", nil, pos(8)},
		{"e", "unchecked", nil, nil},
	} {
		row := rows[c.kw]
		if row.Status != c.status {
			t.Errorf("%s status %q, want %q", c.kw, row.Status, c.status)
		}
		if c.change != nil {
			near(t, c.kw+" change", row.Change, *c.change)
		} else if row.Change != nil {
			t.Errorf("%s change %v, want nil", c.kw, *row.Change)
		}
		if c.best != nil {
			near(t, c.kw+" best", row.Best, *c.best)
		}
	}
	if h := rows["b"].History; len(h) != 3 || h[2].Position == nil || *h[2].Position != 5 {
		t.Errorf("b history %+v, want 3 days ending at 5 (carried forward)", h)
	}
}

func TestVisibility(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name      string
		vol       reports.Volumes
		weighting string
		want      float64
		weights   string
		basis     reports.VisibilityBasis
	}{
		// 100*(1000*.398+100*.051+10*0)/((1000+100+10)*.398); c has no volume.
		{"volume", sampleVolumes(), "", 91.24, "volume", reports.VisibilityBasis{Keywords: 3, WithoutVolume: 1, Unchecked: 1}},
		// 100*(.398+.051+.016+0)/(4*.398)
		{"equal", sampleVolumes(), reports.WeightEqual, 29.21, "equal", reports.VisibilityBasis{Keywords: 4, Unchecked: 1}},
		{"no volume source", nil, "", 29.21, "equal", reports.VisibilityBasis{Keywords: 4, Unchecked: 1}},
		{"no volume known", &volumes{table: map[string]int{}}, "", 29.21, "equal", reports.VisibilityBasis{Keywords: 4, Unchecked: 1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := reports.New(sample(), c.vol, &reports.Options{Now: fixedNow, Weighting: c.weighting})
			rep, err := b.Build(context.Background(), "example.com", date("2026-01-01"), date("2026-01-03"), nil)
			if err != nil {
				t.Fatal(err)
			}
			m := rep.Metrics
			near(t, "visibility", m.Visibility, c.want)
			if m.VisibilityWeights != c.weights || m.VisibilityReason != "" {
				t.Errorf("visibility weights %s reason %q, want %s and none", m.VisibilityWeights, m.VisibilityReason, c.weights)
			}
			m.VisibilityBasis.Method = ""
			if m.VisibilityBasis != c.basis {
				t.Errorf("basis %+v, want %+v", m.VisibilityBasis, c.basis)
			}
		})
	}
}

func TestTrafficEstimate(t *testing.T) {
	t.Parallel()
	b := reports.New(sample(), sampleVolumes(), &reports.Options{Now: fixedNow})
	rep, err := b.Build(context.Background(), "example.com", date("2026-01-01"), date("2026-01-03"), nil)
	if err != nil {
		t.Fatal(err)
	}
	tr := rep.Metrics.Traffic
	if !tr.Estimated || tr.CTRModel != reports.CurveDefault || tr.KeywordsWithVolume != 3 || !strings.Contains(tr.CTRSource, "First Page Sage 2024") {
		t.Errorf("traffic labels %+v", tr)
	}
	if len(tr.VolumeSource) != 1 || tr.VolumeSource[0] != "keyword-planner" {
		t.Errorf("volumeSource %v", tr.VolumeSource)
	}
	near(t, "monthly", tr.EstimatedMonthlyClicks, 403.1) // 1000*.398 + 100*.051 + 10*0
	// (120.91 + 107.31 + 403.1) / 30.4 daily volume-weighted CTR sums.
	near(t, "range", tr.EstimatedClicks, 20.8)
	near(t, "day 1", rep.Metrics.Rankings.Daily[0].EstimatedClicks, 4.0) // 120.91/30.4 = 3.977
	if tr.Measured != nil || tr.MeasuredError != "" {
		t.Errorf("measured without a source: %+v %q", tr.Measured, tr.MeasuredError)
	}

	// Without volumes, no estimate, and the method says why.
	rep, err = reports.New(sample(), nil, &reports.Options{Now: fixedNow}).Build(context.Background(), "example.com", date("2026-01-01"), date("2026-01-03"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if tr := rep.Metrics.Traffic; tr.EstimatedMonthlyClicks != nil || !strings.Contains(tr.Method, "no keyword volume") {
		t.Errorf("no-volume traffic %+v", tr)
	}
}

func TestTrafficDevicesShareVolume(t *testing.T) {
	t.Parallel()
	st := &memStore{}
	st.obs = []rankings.Observation{obs("a", "2026-01-01", pos(1)), obs("a", "2026-01-01", pos(3))}
	st.obs[1].Device = rankings.Mobile
	b := reports.New(st, sampleVolumes(), &reports.Options{Now: fixedNow})
	rep, err := b.Build(context.Background(), "example.com", date("2026-01-01"), date("2026-01-01"), nil)
	if err != nil {
		t.Fatal(err)
	}
	// 1000 * (.398 + .102) / 2: one volume, two devices averaged.
	near(t, "monthly", rep.Metrics.Traffic.EstimatedMonthlyClicks, 250)
	if rep.Metrics.Rankings.Tracked != 2 {
		t.Errorf("tracked %d, want 2 series", rep.Metrics.Rankings.Tracked)
	}
}

type trafficSource struct {
	t   *reports.Traffic
	err error
}

func (s trafficSource) Name() string { return "searchconsole" }
func (s trafficSource) Traffic(context.Context, string, time.Time, time.Time) (*reports.Traffic, error) {
	return s.t, s.err
}

func TestMeasuredTraffic(t *testing.T) {
	t.Parallel()
	clicks, impr := 120, 4000
	ctr := 0.03
	cases := []struct {
		name    string
		src     trafficSource
		wantErr string
	}{
		{"measured", trafficSource{t: &reports.Traffic{Source: "searchconsole", Clicks: &clicks, Impressions: &impr, CTR: &ctr}}, ""},
		{"source fails", trafficSource{err: fmt.Errorf("searchconsole: quota: %w", seo.ErrRateLimited)}, "searchconsole: quota: seo: rate limited"},
		{"unnamed failure is named", trafficSource{err: fmt.Errorf("quota: %w", seo.ErrRateLimited)}, "searchconsole: quota: seo: rate limited"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := reports.New(sample(), sampleVolumes(), &reports.Options{Now: fixedNow, Traffic: c.src})
			rep, err := b.Build(context.Background(), "example.com", date("2026-01-01"), date("2026-01-03"), nil)
			if err != nil {
				t.Fatal(err)
			}
			tr := rep.Metrics.Traffic
			near(t, "estimate kept", tr.EstimatedMonthlyClicks, 403.1)
			if c.wantErr == "" {
				if tr.Measured == nil || *tr.Measured.Clicks != 120 || tr.MeasuredError != "" {
					t.Errorf("measured %+v %q", tr.Measured, tr.MeasuredError)
				}
			} else if tr.Measured != nil || !strings.HasPrefix(tr.MeasuredError, c.wantErr) {
				t.Errorf("measured %+v error %q, want %q", tr.Measured, tr.MeasuredError, c.wantErr)
			}
		})
	}
}

func TestVolumeBatchesAndFailure(t *testing.T) {
	t.Parallel()
	st := &memStore{}
	for i := range 2500 {
		st.obs = append(st.obs, obs(fmt.Sprintf("kw %04d", i), "2026-01-01", pos(float64(i%100+1))))
	}
	v := &volumes{table: map[string]int{"kw 0000": 100}}
	rep, err := reports.New(st, v, &reports.Options{Now: fixedNow}).Build(context.Background(), "example.com", date("2026-01-01"), date("2026-01-01"), &reports.BuildOptions{Keywords: 10})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(v.batches) != "[1000 1000 500]" {
		t.Errorf("batches %v, want [1000 1000 500]", v.batches)
	}
	if len(rep.Metrics.Rankings.Keywords) != 10 || rep.Metrics.Rankings.KeywordsTotal != 2500 {
		t.Errorf("rows %d of %d, want 10 of 2500", len(rep.Metrics.Rankings.Keywords), rep.Metrics.Rankings.KeywordsTotal)
	}
	// kw 0000 at position 1 with the only volume: visibility 100.
	near(t, "visibility", rep.Metrics.Visibility, 100)

	failing := &volumes{err: fmt.Errorf("dataforseo: timeout: %w", seo.ErrUnavailable)}
	rep, err = reports.New(sample(), failing, &reports.Options{Now: fixedNow}).Build(context.Background(), "example.com", date("2026-01-01"), date("2026-01-03"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if tr := rep.Metrics.Traffic; !strings.Contains(tr.VolumeError, "timeout") || tr.EstimatedMonthlyClicks != nil || rep.Metrics.VisibilityWeights != "equal" {
		t.Errorf("volume failure: %+v weights %s", tr, rep.Metrics.VisibilityWeights)
	}
}

func TestBuildInputErrors(t *testing.T) {
	t.Parallel()
	b := reports.New(sample(), nil, &reports.Options{Now: fixedNow})
	cases := []struct {
		name       string
		domain     string
		start, end time.Time
		opts       *reports.BuildOptions
		field      string
	}{
		{"empty domain", "", date("2026-01-01"), date("2026-01-02"), nil, "domain"},
		{"domain with path and no scheme", "example.com/x y", date("2026-01-01"), date("2026-01-02"), nil, "domain"},
		{"start after end", "example.com", date("2026-01-05"), date("2026-01-02"), nil, "start"},
		{"ten years", "example.com", date("2016-01-01"), date("2026-01-01"), nil, "end"},
		{"zero start", "example.com", time.Time{}, date("2026-01-01"), nil, "start"},
		{"future start", "example.com", date("2026-04-01"), date("2026-04-02"), nil, "start"},
		{"bad device", "example.com", date("2026-01-01"), date("2026-01-02"), &reports.BuildOptions{Device: "tablet"}, "device"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := b.Build(context.Background(), c.domain, c.start, c.end, c.opts)
			ie, ok := seo.AsInputError(err)
			if !ok || ie.Field != c.field {
				t.Fatalf("err = %v, want an InputError for %q", err, c.field)
			}
		})
	}
}

func TestBuildStoreFailure(t *testing.T) {
	t.Parallel()
	st := sample()
	st.err = fmt.Errorf("sqlstore: %w", seo.ErrUnavailable)
	_, err := reports.New(st, nil, &reports.Options{Now: fixedNow}).Build(context.Background(), "example.com", date("2026-01-01"), date("2026-01-02"), nil)
	if !errors.Is(err, seo.ErrUnavailable) || !strings.HasPrefix(err.Error(), "reports: ") {
		t.Fatalf("err = %v", err)
	}
}

func TestBuildClampsFutureEnd(t *testing.T) {
	t.Parallel()
	rep, err := reports.New(sample(), nil, &reports.Options{Now: func() time.Time { return date("2026-01-02").Add(time.Hour) }}).
		Build(context.Background(), "example.com", date("2026-01-01"), date("2026-01-31"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.End != "2026-01-02" || rep.RequestedEnd != "2026-01-31" || len(rep.Metrics.Rankings.Daily) != 2 {
		t.Errorf("end %s requested %s days %d", rep.End, rep.RequestedEnd, len(rep.Metrics.Rankings.Daily))
	}
}

func TestParseRange(t *testing.T) {
	t.Parallel()
	now := date("2026-03-01").Add(10 * time.Hour)
	cases := []struct {
		name, start, end string
		maxDays          int
		field            string // "" means no error
		wantStart        string
		wantEnd          string
	}{
		{"ok", "2026-01-01", "2026-01-31", 0, "", "2026-01-01", "2026-01-31"},
		{"one day", "2026-02-01", "2026-02-01", 0, "", "2026-02-01", "2026-02-01"},
		{"start after end", "2026-02-01", "2026-01-01", 0, "start", "", ""},
		{"not YYYY-MM-DD", "2026/01/01", "2026-01-31", 0, "start", "", ""},
		{"single digit month", "2026-1-01", "2026-01-31", 0, "start", "", ""},
		{"US date", "2026-01-01", "01/31/2026", 0, "end", "", ""},
		{"no such day", "2026-01-01", "2026-02-30", 0, "end", "", ""},
		{"empty end", "2026-01-01", "", 0, "end", "", ""},
		{"ten years", "2016-01-01", "2026-01-01", 0, "end", "", ""},
		{"366 days allowed", "2025-01-01", "2026-01-01", 0, "", "2025-01-01", "2026-01-01"},
		{"over a custom limit", "2026-01-01", "2026-01-31", 30, "end", "", ""},
		{"future end kept for Build to clamp", "2026-02-01", "2026-03-31", 0, "", "2026-02-01", "2026-03-31"},
		{"future start", "2026-03-02", "2026-03-05", 0, "start", "", ""},
		{"datetime", "2026-01-01T00:00:00Z", "2026-01-31", 0, "start", "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, e, err := reports.ParseRange(c.start, c.end, now, c.maxDays)
			if c.field != "" {
				ie, ok := seo.AsInputError(err)
				if !ok || ie.Field != c.field {
					t.Fatalf("err = %v, want an InputError for %q", err, c.field)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := s.Format("2006-01-02") + " " + e.Format("2006-01-02"); got != c.wantStart+" "+c.wantEnd {
				t.Errorf("got %s, want %s %s", got, c.wantStart, c.wantEnd)
			}
		})
	}
}

func TestCurves(t *testing.T) {
	t.Parallel()
	def, err := reports.CurveByName("")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		curve string
		pos   float64
		want  float64
	}{
		{"fps #1", "", 1, 0.398},
		{"fps #10", "", 10, 0.016},
		{"aol #11 in default", "", 11, 0.0066},
		{"aol #20 in default", "", 20, 0.0030},
		{"zero past 20", "", 21, 0},
		{"past 100", "", 101, 0},
		{"below 1 counts as 1", "", 0.5, 0.398},
		{"average position interpolated", "", 2.5, (0.187 + 0.102) / 2},
		{"aol #1", reports.CurveAOL2006, 1, 0.4213},
		{"aol #10", reports.CurveAOL2006, 10, 0.0299},
		{"sistrix #3", reports.CurveSistrix2020Partial, 3, 0.11},
		{"sistrix #10", reports.CurveSistrix2020Partial, 10, 0.025},
		// 11% * (2.5/11)^(1/7)
		{"sistrix #4 interpolated", reports.CurveSistrix2020Partial, 4, 0.11 * math.Pow(2.5/11, 1.0/7)},
		{"sistrix #11 unknown", reports.CurveSistrix2020Partial, 11, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cv, err := reports.CurveByName(c.curve)
			if err != nil {
				t.Fatal(err)
			}
			if got := cv.At(c.pos); math.Abs(got-c.want) > 1e-12 {
				t.Errorf("CTR(%v) = %v, want %v", c.pos, got, c.want)
			}
		})
	}
	if def.Name != "fps-2024+aol-2006" || def.Source == "" {
		t.Errorf("default curve %q %q", def.Name, def.Source)
	}
	s, _ := reports.CurveByName(reports.CurveSistrix2020Partial)
	if fmt.Sprint(s.Interpolated) != "[4 5 6 7 8 9]" || s.Method == "" {
		t.Errorf("sistrix interpolation labels %v %q", s.Interpolated, s.Method)
	}
	if _, err := reports.CurveByName("made-up"); err == nil {
		t.Error("unknown curve accepted")
	} else if ie, ok := seo.AsInputError(err); !ok || ie.Field != "ctrModel" {
		t.Errorf("unknown curve err %v", err)
	}
	for _, n := range reports.CurveNames() {
		c, _ := reports.CurveByName(n)
		for i := 1; i < 100; i++ {
			if c.CTR[i] > c.CTR[0] || c.CTR[i] < 0 {
				t.Errorf("%s: CTR(%d) = %v out of range", n, i+1, c.CTR[i])
			}
		}
	}
}

func TestSeriesEdges(t *testing.T) {
	t.Parallel()
	st := sample()
	// Tracked after the range: not counted. Same keyword in de-DE: its own
	// series, with its own volume lookup per locale.
	st.tracked = append(st.tracked, rankings.Tracked{Domain: "example.com", Keyword: "late", Locale: enUS, Device: rankings.Desktop, AddedAt: date("2026-02-10")})
	de := obs("a", "2026-01-02", pos(2))
	de.Locale = seo.Locale{Language: "de", Region: "DE"}
	st.obs = append(st.obs, de)
	sis, err := reports.CurveByName(reports.CurveSistrix2020Partial)
	if err != nil {
		t.Fatal(err)
	}
	v := sampleVolumes()
	rep, err := reports.New(st, v, &reports.Options{Now: fixedNow, Curve: sis}).Build(context.Background(), "www.example.com", date("2026-01-01"), date("2026-01-03"), nil)
	if err != nil {
		t.Fatal(err)
	}
	r := rep.Metrics.Rankings
	if r.Tracked != 6 || r.Checked != 5 {
		t.Errorf("tracked %d checked %d, want 6 and 5 (de-DE a counted, late not)", r.Tracked, r.Checked)
	}
	if len(v.batches) != 2 {
		t.Errorf("volume calls %v, want one per locale", v.batches)
	}
	if !strings.Contains(rep.Metrics.Traffic.CTRSource, "interpolated") || rep.Metrics.CTRModel != "sistrix-2020-partial" {
		t.Errorf("curve labels %q %q", rep.Metrics.CTRModel, rep.Metrics.Traffic.CTRSource)
	}
	if rep.Domain != "example.com" {
		t.Errorf("domain %q, want example.com (www. dropped as the store keys it)", rep.Domain)
	}
}

// TestNothingMeasured: a figure computed from no checked data is nil with
// a reason, never 0; 0 stays where 0 was measured.
func TestNothingMeasured(t *testing.T) {
	t.Parallel()
	never := func() *memStore { // tracked, never checked (no SERP source)
		st := &memStore{}
		for _, k := range []string{"a", "b"} {
			st.tracked = append(st.tracked, rankings.Tracked{Domain: "example.com", Keyword: k, Locale: enUS, Device: rankings.Desktop, AddedAt: date("2025-12-31")})
		}
		return st
	}
	notRanked := &memStore{obs: []rankings.Observation{obs("a", "2026-01-01", nil)}}
	late := &memStore{obs: []rankings.Observation{obs("a", "2026-01-03", pos(4))}}
	noVolumeChecked := &memStore{obs: []rankings.Observation{obs("c", "2026-01-01", pos(2))}}
	noVolumeChecked.tracked = never().tracked // a and b have volumes, never checked
	cases := []struct {
		name       string
		st         *memStore
		vol        *volumes
		vis        *float64 // nil: not measured
		visReason  string
		avgReason  string
		avgAll     bool
		traffic    bool   // an estimate exists
		trafficWhy string // in Method when it does not
		nilDays    int    // leading days without visibility
	}{
		{"never checked", never(), nil, nil, "no keyword checked in the range", "no keyword checked in the range", false, false, "no keyword volume known", 3},
		{"never checked with volumes", never(), sampleVolumes(), nil, "no keyword checked in the range", "no keyword checked in the range", false, false, "no keyword with a known volume checked", 3},
		{"nothing tracked", &memStore{}, nil, nil, "no keyword tracked or checked in the range", "no keyword tracked or checked in the range", false, false, "no keyword volume known", 3},
		{"checked, not ranked: 0 measured", notRanked, sampleVolumes(), pos(0), "", "no keyword ranked on the end date", true, true, "", 0},
		{"checked on the last day only", late, nil, pos(18.09), "", "", true, false, "no keyword volume known", 2},
		{"only keywords without volume checked", noVolumeChecked, sampleVolumes(), nil, "no keyword with a known volume checked in the range", "", true, false, "no keyword with a known volume checked", 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var vol reports.Volumes
			if c.vol != nil {
				vol = c.vol
			}
			rep, err := reports.New(c.st, vol, &reports.Options{Now: fixedNow}).Build(context.Background(), "example.com", date("2026-01-01"), date("2026-01-03"), nil)
			if err != nil {
				t.Fatal(err)
			}
			m := rep.Metrics
			if c.vis == nil {
				if m.Visibility != nil || m.VisibilityReason != c.visReason {
					t.Errorf("visibility %v reason %q, want nil and %q", deref(m.Visibility), m.VisibilityReason, c.visReason)
				}
			} else {
				near(t, "visibility", m.Visibility, *c.vis)
				if m.VisibilityReason != "" {
					t.Errorf("visibility reason %q with a value", m.VisibilityReason)
				}
			}
			r := m.Rankings
			if (r.AveragePosition == nil) != (c.avgReason != "") || r.AveragePositionReason != c.avgReason {
				t.Errorf("averagePosition %v reason %q, want reason %q", deref(r.AveragePosition), r.AveragePositionReason, c.avgReason)
			}
			if (r.AveragePositionAll != nil) != c.avgAll {
				t.Errorf("averagePositionAll %v, want set: %v", deref(r.AveragePositionAll), c.avgAll)
			}
			tr := m.Traffic
			if (tr.EstimatedMonthlyClicks != nil) != c.traffic || (tr.EstimatedClicks != nil) != c.traffic ||
				(!c.traffic && !strings.Contains(tr.Method, c.trafficWhy)) {
				t.Errorf("traffic monthly %v range %v method %q", deref(tr.EstimatedMonthlyClicks), deref(tr.EstimatedClicks), tr.Method)
			}
			for i, d := range r.Daily {
				if (d.Visibility == nil) != (i < c.nilDays) {
					t.Errorf("day %s visibility %v, want nil: %v", d.Date, deref(d.Visibility), i < c.nilDays)
				}
				if c.traffic != (d.EstimatedClicks != nil) {
					t.Errorf("day %s estimated clicks %v", d.Date, deref(d.EstimatedClicks))
				}
			}
		})
	}
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

// TestParseRangeZeroDate checks that 0001-01-01, time.Time's zero, is
// refused as a date too early rather than as a date not given.
func TestParseRangeZeroDate(t *testing.T) {
	t.Parallel()
	now := date("2026-03-01")
	for _, c := range []struct{ start, end, field string }{
		{"0001-01-01", "0001-01-05", "start"},
		{"2026-01-01", "0001-01-01", "end"},
	} {
		_, _, err := reports.ParseRange(c.start, c.end, now, 0)
		ie, ok := seo.AsInputError(err)
		if !ok || ie.Field != c.field || strings.Contains(ie.Reason, "required") || !strings.Contains(ie.Reason, "after 0001-01-01") {
			t.Errorf("ParseRange(%s, %s) = %v, want %s refused as too early", c.start, c.end, err, c.field)
		}
	}
}
