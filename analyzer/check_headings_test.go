package analyzer

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

var headingIDs = []string{
	"headings.h1_missing", "headings.h1_empty", "headings.h1_multiple", "headings.h1_too_long",
	"headings.h1_image_alt_only", "headings.level_skipped", "headings.empty", "headings.h2_missing",
}

func TestHeadingsChecks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, fixture string
		want          []string
	}{
		{"good outline", "good.html", nil},
		{"no h1", "h1_missing.html", []string{"headings.h1_missing", "headings.level_skipped"}},
		{"empty h1", "h1_empty.html", []string{"headings.h1_empty", "headings.h1_multiple"}},
		{"two h1", "h1_multiple.html", []string{"headings.h1_multiple"}},
		{"long h1", "h1_too_long.html", []string{"headings.h1_too_long"}},
		{"h1 is a logo", "h1_image_alt_only.html", []string{"headings.h1_image_alt_only"}},
		{"h1 then h3", "level_skipped.html", []string{"headings.level_skipped"}},
		{"first heading h3", "first_not_h1.html", []string{"headings.level_skipped"}},
		{"empty h2", "empty.html", []string{"headings.empty"}},
		{"long page without h2", "h2_missing.html", []string{"headings.h2_missing"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rep := analyzeFixture(t, filepath.Join("headings", tc.fixture), "", nil, nil)
			assertIDs(t, rep, tc.want, without(headingIDs, tc.want...))
		})
	}
}

func TestHeadingsData(t *testing.T) {
	t.Parallel()
	rep := analyzeFixture(t, "headings/good.html", "", nil, nil)
	want := []Heading{{1, "The harbour plan"}, {2, "Flats"}, {3, "Costs"}, {2, "Parking car park"}}
	if !reflect.DeepEqual(rep.Headings, want) {
		t.Errorf("Headings = %+v, want %+v", rep.Headings, want)
	}
	if rep.WordCount < 600 {
		t.Errorf("WordCount = %d, want at least 600", rep.WordCount)
	}
	rep = analyzeFixture(t, "headings/empty.html", "", nil, nil)
	if n := len(evidence(rep, "headings.empty")); n != 2 || finding(rep, "headings.empty").Count != 2 {
		t.Errorf("headings.empty reported %d times, want 2 (empty h2 and h2 with empty alt)", n)
	}
	rep = analyzeFixture(t, "headings/h1_image_alt_only.html", "", nil, nil)
	if len(rep.Headings) != 1 || rep.Headings[0].Text != "Harbour News" {
		t.Errorf("Headings = %+v, want the h1 with its image alt", rep.Headings)
	}
}

// TestHeadingTextSoleText holds headingText and headingParts, which read a
// heading whose only child is a text node from that node, to the walk
// they do for any other heading.
func TestHeadingTextSoleText(t *testing.T) {
	t.Parallel()
	for _, src := range []string{
		"<h1>Plain</h1>", "<h1>  Spaced \n\t out  </h1>", "<h1></h1>", "<h2>\u00a0</h2>", "<h3> </h3>",
		"<h1>a<img alt=x>b</h1>", "<h1><img alt=' only '></h1>", "<h1><!-- c --></h1>", "<h1><!-- c -->x</h1>",
		"<h1><span>in</span></h1>", "<h1>x<script>s</script></h1>", "<h1>&amp;  &lt;b&gt;</h1>",
	} {
		doc, err := html.Parse(strings.NewReader(src))
		if err != nil {
			t.Fatal(err)
		}
		var h *html.Node
		for n := range doc.Descendants() {
			if n.Type == html.ElementNode && headingLevel(n) > 0 {
				h = n
				break
			}
		}
		var full, own, alts strings.Builder
		headingWalk(h, &full, true)
		headingWalk(h, &own, false)
		headingAlts(h, &alts)
		if got, want := headingText(h), Collapse(full.String()); got != want {
			t.Errorf("%s: headingText = %q, want %q", src, got, want)
		}
		text, alt := headingParts(h)
		if text != Collapse(own.String()) || alt != Collapse(alts.String()) {
			t.Errorf("%s: headingParts = %q, %q, want %q, %q", src, text, alt, Collapse(own.String()), Collapse(alts.String()))
		}
	}
}
