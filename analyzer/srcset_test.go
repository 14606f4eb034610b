package analyzer

import (
	"encoding/json"
	"os"
	"slices"
	"testing"
)

// TestSrcsetCandidates runs testdata/images/srcset.json.
func TestSrcsetCandidates(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("testdata/images/srcset.json")
	if err != nil {
		t.Fatal(err)
	}
	var table struct {
		Cases []struct {
			Name, Srcset string
			URLs         []string
		}
	}
	if err := json.Unmarshal(raw, &table); err != nil {
		t.Fatal(err)
	}
	for _, tc := range table.Cases {
		t.Run(tc.Name, func(t *testing.T) {
			got := slices.Collect(SrcsetCandidates(tc.Srcset))
			if !slices.Equal(got, tc.URLs) {
				t.Errorf("SrcsetCandidates(%q) = %q; want %q", tc.Srcset, got, tc.URLs)
			}
		})
	}
}

// TestImageSrcFromSrcset checks an image known by its srcset alone is
// listed under its first candidate's whole URL, commas included.
func TestImageSrcFromSrcset(t *testing.T) {
	t.Parallel()
	rep := analyzeString(t, `<html><head><title>t</title></head><body>`+
		`<img alt="a" srcset="/upload/w_300,h_200/a.jpg 1x, /upload/w_600,h_400/a.jpg 2x">`+
		`<img alt="b" srcset="/bad.jpg 2x 3x, /good.jpg 2x"></body></html>`, "https://example.com/", nil, nil)
	var got []string
	for _, im := range rep.Images.List {
		got = append(got, im.Src)
	}
	want := []string{"https://example.com/upload/w_300,h_200/a.jpg", "https://example.com/good.jpg"}
	if !slices.Equal(got, want) {
		t.Errorf("image sources = %q; want %q", got, want)
	}
}

// TestSrcsetCandidatesAllocs: reading a srcset allocates nothing, as the
// crawler reads one for every image of every page.
func TestSrcsetCandidatesAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	s := "/up/w_300,h_200/a.jpg 300w 200h, /up/w_600,h_400/a.jpg 600w, /b.jpg (x, y) 2x"
	n := testing.AllocsPerRun(100, func() {
		for u := range SrcsetCandidates(s) {
			if u == "" {
				t.Fatal("empty candidate")
			}
		}
	})
	if n != 0 {
		t.Errorf("%v allocations a srcset; want 0", n)
	}
}
