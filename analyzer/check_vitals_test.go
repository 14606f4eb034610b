package analyzer

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/seokit/seokit/render"
	"github.com/seokit/seokit/seo"
)

// analyzeVitals analyses a rendered page whose lab vitals are the fixture
// testdata/vitals/name.
func analyzeVitals(t *testing.T, name string) *Report {
	t.Helper()
	var v render.Vitals
	if err := json.Unmarshal(readFixture(t, filepath.Join("vitals", name)), &v); err != nil {
		t.Fatal(err)
	}
	f := &fakeRenderer{html: readFixture(t, "render/base.html"),
		res: render.Result{Device: render.Mobile, Viewport: render.Size{Width: 412, Height: 915}, Vitals: &v}}
	return analyzeString(t, string(f.html), "", nil, &Options{Depth: Complete, Render: render.Always, Renderer: f})
}

func TestVitalsChecks(t *testing.T) {
	t.Parallel()
	all := areaIDs("vitals")
	tests := []struct {
		fixture string
		want    []string
		bands   [3]string
	}{
		{"good.json", nil, [3]string{"good", "good", "good"}},
		{"needs_improvement.json", []string{"vitals.lcp_needs_improvement", "vitals.cls_needs_improvement", "vitals.tbt_needs_improvement"},
			[3]string{"needs_improvement", "needs_improvement", "needs_improvement"}},
		{"poor.json", []string{"vitals.lcp_poor", "vitals.cls_poor", "vitals.tbt_poor"}, [3]string{"poor", "poor", "poor"}},
		{"partial.json", []string{"vitals.cls_poor"}, [3]string{"", "poor", ""}},
	}
	for _, tc := range tests {
		t.Run(tc.fixture, func(t *testing.T) {
			rep := analyzeVitals(t, tc.fixture)
			assertIDs(t, rep, tc.want, without(all, tc.want...))
			lv := rep.Render.Vitals
			if lv == nil || !lv.Lab || lv.Device != render.Mobile || lv.Viewport.Width != 412 {
				t.Fatalf("Vitals = %+v, want lab mobile 412 wide", lv)
			}
			if got := [3]string{lv.LCPBand, lv.CLSBand, lv.TBTBand}; got != tc.bands {
				t.Errorf("bands = %v, want %v", got, tc.bands)
			}
		})
	}
}

func TestVitalsEvidence(t *testing.T) {
	t.Parallel()
	rep := analyzeVitals(t, "poor.json")
	f := finding(rep, "vitals.lcp_poor")
	if f == nil || f.Severity != seo.Warning || f.Evidence.Element != "img#hero.banner" || *f.Evidence.Measured != 5200 ||
		*f.Evidence.Threshold != 4000 || f.Evidence.Detail != "ms; lab, mobile 412×915" {
		t.Errorf("lcp_poor = %+v", f)
	}
	if f := finding(rep, "vitals.cls_poor"); f == nil || f.Evidence.Element != "div#ad-slot, main" || *f.Evidence.Threshold != 0.25 {
		t.Errorf("cls_poor = %+v", f)
	}
	rep = analyzeVitals(t, "partial.json")
	b, err := json.Marshal(rep.Render.Vitals)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if m["lcpMs"] != nil || m["tbtMs"] != nil || m["lab"] != true || m["cls"] != 0.4 {
		t.Errorf("vitals JSON = %s, want null LCP and TBT, lab true", b)
	}
	if _, ok := m["lcpBand"]; ok {
		t.Errorf("vitals JSON = %s has a band for an unmeasured LCP", b)
	}
	// Thresholds override the web.dev limits.
	f2 := &fakeRenderer{html: readFixture(t, "render/base.html"), res: render.Result{Vitals: &render.Vitals{LCP: ptr(1200.0)}}}
	rep = analyzeString(t, string(f2.html), "", nil, &Options{Depth: Complete, Render: render.Always, Renderer: f2,
		Thresholds: Thresholds{LCPGood: time.Second, LCPPoor: 1100 * time.Millisecond}})
	assertIDs(t, rep, []string{"vitals.lcp_poor"}, nil)
}

func ptr[T any](v T) *T { return &v }

func TestVitalsPageWeight(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		bytes int64
		want  bool
	}{{5000 << 10, false}, {5000<<10 + 1, true}} {
		f := &fakeRenderer{html: readFixture(t, "render/base.html"), res: render.Result{Weight: []render.Weight{
			{Type: "document", Requests: 1, Bytes: 1000}, {Type: "image", Requests: 3, Bytes: tc.bytes - 1000}}}}
		rep := analyzeString(t, string(f.html), "", nil, &Options{Depth: Complete, Render: render.Always, Renderer: f})
		if got := finding(rep, "vitals.page_weight"); (got != nil) != tc.want {
			t.Errorf("%d bytes: page_weight = %+v, want %v", tc.bytes, got, tc.want)
		} else if got != nil && got.Evidence.Detail != "4 requests" {
			t.Errorf("page_weight evidence = %+v", got.Evidence)
		}
	}
}
