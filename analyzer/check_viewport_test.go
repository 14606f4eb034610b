package analyzer

import "testing"

var viewportIDs = []string{"mobile.viewport_missing", "mobile.viewport_no_device_width", "mobile.zoom_disabled"}

func TestViewportFixtures(t *testing.T) {
	t.Parallel()
	rep := analyzeFixture(t, "mobile/good.html", "", nil, nil)
	assertIDs(t, rep, nil, viewportIDs)
	if rep.Viewport == nil || rep.Viewport.Fields["width"] != "device-width" || rep.Viewport.Fields["initial-scale"] != "1" {
		t.Errorf("Viewport = %+v", rep.Viewport)
	}
	rep = analyzeFixture(t, "mobile/bad.html", "", nil, nil)
	assertIDs(t, rep, []string{"mobile.viewport_no_device_width", "mobile.zoom_disabled"}, []string{"mobile.viewport_missing"})
	if rep.Viewport == nil || rep.Viewport.Fields["width"] != "980" || rep.Viewport.Fields["user-scalable"] != "no" || len(rep.Viewport.Fields) != 4 {
		t.Errorf("Viewport = %+v", rep.Viewport)
	}
}

func TestViewportChecks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, head string
		want       []string
	}{
		{"missing", ``, []string{"mobile.viewport_missing"}},
		{"only initial scale", `<meta name="viewport" content="initial-scale=1">`, []string{"mobile.viewport_no_device_width"}},
		{"user-scalable 0", `<meta name="viewport" content="width=device-width,user-scalable=0">`, []string{"mobile.zoom_disabled"}},
		{"maximum-scale 1.5", `<meta name="viewport" content="width=device-width, maximum-scale=1.5">`, []string{"mobile.zoom_disabled"}},
		{"maximum-scale 2", `<meta name="viewport" content="width=device-width, maximum-scale=2">`, nil},
		{"user-scalable yes", `<meta name="viewport" content="width=device-width, user-scalable=yes">`, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rep := analyzeString(t, `<html><head><title>t</title>`+tc.head+`</head><body></body></html>`, "", nil, nil)
			var absent []string
			for _, id := range viewportIDs {
				if !lkContains(tc.want, id) {
					absent = append(absent, id)
				}
			}
			assertIDs(t, rep, tc.want, absent)
		})
	}
	rep := analyzeString(t, `<html><head><title>t</title><meta name="viewport" content="width=device-width, maximum-scale=1.5"></head></html>`, "", nil,
		&Options{Depth: Complete, Thresholds: Thresholds{ZoomMinMaximumScale: 1.2}})
	assertIDs(t, rep, nil, []string{"mobile.zoom_disabled"})
}
