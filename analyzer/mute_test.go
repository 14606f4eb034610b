package analyzer

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/seokit/seokit/seo"
)

const muteDoc = `<!doctype html><html lang="en"><head><title>Short</title></head>
<body><img src="/a.png"><img src="/b.png"><p>Some text.</p></body></html>`

func TestMute(t *testing.T) {
	t.Parallel()
	plain := analyzeString(t, muteDoc, "", nil, &Options{Depth: Complete})
	if finding(plain, "images.alt_missing") == nil || finding(plain, "title.too_short") == nil {
		t.Fatalf("fixture lacks the findings the test mutes: %v", findingIDs(plain))
	}
	if plain.Muted != nil {
		t.Errorf("Muted = %v without Options.Mute", plain.Muted)
	}
	rep := analyzeString(t, muteDoc, "", nil, &Options{Depth: Complete, Mute: []string{"images.alt_missing", "social"}})
	for _, f := range rep.Findings {
		if f.ID == "images.alt_missing" || seo.AreaOf(f.ID) == "social" {
			t.Errorf("muted finding %s reported", f.ID)
		}
	}
	if finding(rep, "title.too_short") == nil {
		t.Error("title.too_short, not muted, is missing")
	}
	got := map[string]MutedFinding{}
	for _, m := range rep.Muted {
		got[m.ID] = m
	}
	if m := got["images.alt_missing"]; m.Count != 2 || m.Severity != catalog["images.alt_missing"].Severity {
		t.Errorf("muted images.alt_missing = %+v, want count 2", m)
	}
	social := 0
	for _, f := range plain.Findings {
		if seo.AreaOf(f.ID) == "social" {
			social++
			if got[f.ID].Count == 0 {
				t.Errorf("muted %s not counted in Muted", f.ID)
			}
		}
	}
	if social == 0 {
		t.Error("fixture reports no social finding")
	}
	if rep.Score.Value <= plain.Score.Value {
		t.Errorf("score %d with mutes, %d without: muted findings still count", rep.Score.Value, plain.Score.Value)
	}
	want := seo.PageScore(rep.Findings)
	if rep.Score == nil || *rep.Score != want {
		t.Errorf("score %+v, want the score of the kept findings %+v", rep.Score, want)
	}
}

func TestUnknownIDs(t *testing.T) {
	t.Parallel()
	custom := Check{Area: "brand", IDs: []seo.CheckInfo{{ID: "brand.missing", Severity: seo.Warning}}, Run: func(*Page, *Reporter) {}}
	for _, tc := range []struct {
		name  string
		opts  Options
		field string
		value string
	}{
		{"disable id", Options{Disable: []string{"title.too_long", "bogus.id"}}, "disable[1]", "bogus.id"},
		{"disable area", Options{Disable: []string{"bogus"}}, "disable[0]", "bogus"},
		{"mute id", Options{Mute: []string{"social", "title.nope"}}, "mute[1]", "title.nope"},
		{"mute empty", Options{Mute: []string{""}}, "mute[0]", ""},
		{"custom ok", Options{Checks: []Check{custom}, Mute: []string{"brand.missing", "brand"}, Disable: []string{"links"}}, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := tc.opts
			_, err := AnalyzeHTML(context.Background(), "https://example.com/", http.Header{"Content-Type": {"text/html"}}, []byte(muteDoc), &opts)
			if tc.field == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var ie *seo.InputError
			if !errors.As(err, &ie) || !errors.Is(err, seo.ErrInvalidInput) {
				t.Fatalf("err = %v, want an *seo.InputError", err)
			}
			if ie.Field != tc.field || ie.Value != tc.value {
				t.Errorf("field %q value %q, want %q %q", ie.Field, ie.Value, tc.field, tc.value)
			}
		})
	}
	// Analyze validates before it fetches.
	_, err := Analyze(context.Background(), "https://example.invalid/", &Options{Disable: []string{"bogus.id"}})
	if !errors.Is(err, seo.ErrInvalidInput) {
		t.Errorf("Analyze with an unknown disabled ID: %v", err)
	}
}

func TestValidateIDs(t *testing.T) {
	t.Parallel()
	extra := []seo.CheckInfo{{ID: "site.orphan"}}
	if err := ValidateIDs("ids", []string{"site.orphan", "site", "links.uncrawlable"}, extra); err != nil {
		t.Error(err)
	}
	if err := ValidateIDs("ids", []string{"site.orphan"}); err == nil {
		t.Error("site.orphan accepted without the crawl catalogue")
	}
}
