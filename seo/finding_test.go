package seo

import (
	"fmt"
	"testing"
)

func TestGroupFindings(t *testing.T) {
	t.Parallel()
	ev := func(v string) Evidence { return Evidence{Value: v} }
	fs := []Finding{
		{ID: "images.alt_missing", Severity: Warning, Message: "first", Evidence: ev("a.png"), URL: "u"},
		{ID: "title.missing", Severity: Error, Evidence: ev("t")},
		{ID: "images.alt_missing", Severity: Warning, Evidence: ev("b.png")},
		{ID: "images.alt_missing", Severity: Error, Evidence: ev("c.png"), Count: 10, Examples: []Evidence{ev("d.png"), ev("e.png")}},
	}
	got := GroupFindings(fs, 3)
	if len(got) != 2 || got[0].ID != "images.alt_missing" || got[1].ID != "title.missing" {
		t.Fatalf("groups %v, want alt_missing then title.missing", got)
	}
	g := got[0]
	if g.Count != 12 || g.Severity != Error || g.Message != "first" || g.Evidence.Value != "a.png" || g.URL != "u" {
		t.Errorf("group = %+v, want ×12, error, the first message, evidence and URL", g)
	}
	var ex []string
	for _, e := range g.Examples {
		ex = append(ex, e.Value)
	}
	if fmt.Sprint(ex) != "[b.png c.png d.png]" {
		t.Errorf("examples %v, want the next 3 occurrences", ex)
	}
	if got[1].Count != 1 || got[1].Examples != nil {
		t.Errorf("single finding = %+v, want ×1 without examples", got[1])
	}
	if len(fs[3].Examples) != 2 || fs[0].Count != 0 {
		t.Error("GroupFindings modified its input")
	}
	if got := GroupFindings(fs, 0); got[0].Examples != nil || got[0].Count != 12 {
		t.Errorf("no examples: %+v", got[0])
	}
}

func TestPriority(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		sev   Severity
		reach float64
		minor bool
		want  int
	}{
		{Error, 0, false, 70},
		{Error, 1, false, 100},
		{Error, 2, false, 100},
		{Warning, 0, false, 40},
		{Warning, 1, false, 69},
		{Notice, 0, false, 10},
		{Notice, 0.5, false, 25},
		{Notice, 1, false, 39},
		{Notice, 1, true, 9},
		{Notice, 0, true, 0},
		{Warning, 1, true, 69}, // a minor check raised to warning ranks as a warning
		{Error, -1, false, 70},
	} {
		if got := Priority(tt.sev, tt.reach, tt.minor); got != tt.want {
			t.Errorf("Priority(%v, %v, %v) = %d, want %d", tt.sev, tt.reach, tt.minor, got, tt.want)
		}
	}
	// Every severity outranks the one below whatever the reach, and the
	// minor notices rank below every other notice.
	if Priority(Error, 0, false) <= Priority(Warning, 1, false) ||
		Priority(Warning, 0, false) <= Priority(Notice, 1, false) ||
		Priority(Notice, 0, false) <= Priority(Notice, 1, true) {
		t.Error("bands overlap")
	}
	if PageReach(1) != 0 || PageReach(2) != 0.5 || PageReach(0) != 0 || SiteReach(5, 10) != 0.5 || SiteReach(3, 0) != 0 || SiteReach(12, 10) != 1 {
		t.Error("reach")
	}
}

func TestSortByPriority(t *testing.T) {
	t.Parallel()
	fs := []Finding{
		{ID: "b", Priority: 10, URL: "1"},
		{ID: "a", Priority: 10},
		{ID: "c", Priority: 80},
		{ID: "b", Priority: 10, URL: "2"},
	}
	SortByPriority(fs)
	var got []string
	for _, f := range fs {
		got = append(got, f.ID+f.URL)
	}
	if fmt.Sprint(got) != "[c a b1 b2]" {
		t.Errorf("order %v", got)
	}
}

func TestFindingString(t *testing.T) {
	t.Parallel()
	f := Finding{ID: "images.alt_missing", Severity: Warning, Message: "an image has no alt attribute"}
	if got := f.String(); got != "warning images.alt_missing: an image has no alt attribute" {
		t.Errorf("String() = %q", got)
	}
	f.Count = 13
	if got := f.String(); got != "warning images.alt_missing: an image has no alt attribute (×13)" {
		t.Errorf("String() = %q", got)
	}
}
