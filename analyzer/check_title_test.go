package analyzer

import (
	"path/filepath"
	"strings"
	"testing"
)

var titleIDs = []string{
	"title.missing", "title.empty", "title.multiple", "title.too_short", "title.too_long",
	"title.same_as_h1", "title.boilerplate_only", "title.outside_head",
}

// without returns ids minus the given ones.
func without(ids []string, drop ...string) []string {
	var out []string
	for _, id := range ids {
		keep := true
		for _, d := range drop {
			if id == d {
				keep = false
			}
		}
		if keep {
			out = append(out, id)
		}
	}
	return out
}

func TestTitleChecks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, fixture, url string
		want               []string
	}{
		{"good title", "good.html", "", nil},
		{"missing, svg title ignored", "missing.html", "", []string{"title.missing"}},
		{"empty", "empty.html", "", []string{"title.empty"}},
		{"multiple", "multiple.html", "", []string{"title.multiple"}},
		{"too short", "too_short.html", "", []string{"title.too_short"}},
		{"too long by characters", "too_long.html", "", []string{"title.too_long"}},
		{"too long by pixels", "too_wide.html", "", []string{"title.too_long"}},
		{"same as h1", "same_as_h1.html", "", []string{"title.same_as_h1"}},
		{"generic english", "boilerplate.html", "", []string{"title.boilerplate_only", "title.too_short"}},
		{"generic german and site name", "boilerplate_de.html", "https://www.example.de/", []string{"title.boilerplate_only", "title.too_short"}},
		{"host only", "site_name.html", "https://www.example-shop.co.uk/about", []string{"title.boilerplate_only", "title.too_short"}},
		{"in body", "outside_head.html", "", []string{"title.outside_head"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rep := analyzeFixture(t, filepath.Join("title", tc.fixture), tc.url, nil, nil)
			assertIDs(t, rep, tc.want, without(titleIDs, tc.want...))
		})
	}
}

func TestTitleData(t *testing.T) {
	t.Parallel()
	rep := analyzeFixture(t, "title/good.html", "", nil, nil)
	if rep.Title == nil {
		t.Fatal("Report.Title is nil")
	}
	want := "Harbour plan: council debates new flats and parking"
	if rep.Title.Text != want || rep.Title.Length != len(want) {
		t.Errorf("Title = %+v, want text %q length %d", *rep.Title, want, len(want))
	}
	if rep.Title.WidthPx < 400 || rep.Title.WidthPx > 580 {
		t.Errorf("WidthPx = %d, want an estimate between 400 and 580", rep.Title.WidthPx)
	}
	if rep := analyzeFixture(t, "title/missing.html", "", nil, nil); rep.Title != nil {
		t.Errorf("Report.Title = %+v for a page without title", *rep.Title)
	}
	f := finding(analyzeFixture(t, "title/too_wide.html", "", nil, nil), "title.too_long")
	if f == nil || f.Evidence.Measured == nil || *f.Evidence.Measured <= 580 || *f.Evidence.Threshold != 580 {
		t.Errorf("too_long evidence = %+v, want measured px above threshold 580", f)
	}
}

func TestTitleWidth(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, s  string
		min, max int
	}{
		{"empty", "", 0, 0},
		{"one lowercase a", "a", 11, 11},
		{"narrow i", "iiiiiiiiii", 44, 45},
		{"wide W", "WWWWWWWWWW", 188, 189},
		{"cjk full width", "港口新计划港口新计划", 200, 200},
		{"60 average characters", strings.Repeat("Harbour plan ", 5)[:60], 520, 600},
		{"accented lowercase", "éééééééééé", 100, 120},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := TitleWidth(tc.s); got < tc.min || got > tc.max {
				t.Errorf("TitleWidth(%q) = %d, want %d..%d", tc.s, got, tc.min, tc.max)
			}
		})
	}
}
