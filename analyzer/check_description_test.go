package analyzer

import (
	"path/filepath"
	"testing"
)

var descriptionIDs = []string{
	"description.missing", "description.empty", "description.multiple", "description.too_short",
	"description.too_long", "description.outside_head", "description.meta_keywords_present",
}

func TestDescriptionChecks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, fixture string
		want          []string
	}{
		{"good description", "good.html", nil},
		{"missing", "missing.html", []string{"description.missing"}},
		{"blank content", "empty.html", []string{"description.empty"}},
		{"two metas, name case-insensitive", "multiple.html", []string{"description.multiple"}},
		{"too short", "too_short.html", []string{"description.too_short"}},
		{"too long", "too_long.html", []string{"description.too_long"}},
		{"in body", "outside_head.html", []string{"description.outside_head"}},
		{"meta keywords", "keywords.html", []string{"description.meta_keywords_present"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rep := analyzeFixture(t, filepath.Join("description", tc.fixture), "", nil, nil)
			assertIDs(t, rep, tc.want, without(descriptionIDs, tc.want...))
		})
	}
}

func TestDescriptionData(t *testing.T) {
	t.Parallel()
	rep := analyzeFixture(t, "description/good.html", "", nil, nil)
	want := "The council met on Tuesday to debate turning the old harbour warehouses into flats, and what that means for parking."
	if rep.Description == nil || rep.Description.Text != want || rep.Description.Length != len(want) {
		t.Fatalf("Description = %+v, want %q (%d)", rep.Description, want, len(want))
	}
	f := finding(analyzeFixture(t, "description/too_long.html", "", nil, nil), "description.too_long")
	if f == nil || *f.Evidence.Measured != float64(2*len(want)+1) || *f.Evidence.Threshold != 160 {
		t.Errorf("too_long evidence = %+v, want measured %d against 160", f, 2*len(want)+1)
	}
	if rep := analyzeFixture(t, "description/missing.html", "", nil, nil); rep.Description != nil {
		t.Errorf("Description = %+v for a page without one", *rep.Description)
	}
}
