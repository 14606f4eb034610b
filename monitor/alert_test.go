package monitor_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/crawler/compare"
	"github.com/seokit/seokit/monitor"
	"github.com/seokit/seokit/seo"
)

var t0 = time.Date(2026, 11, 1, 6, 0, 0, 0, time.UTC)

func page(u string, status int, linkScore float64, findings ...string) crawler.PageSummary {
	return crawler.PageSummary{URL: u, Status: status, Indexable: status == 200, LinkScore: linkScore, Title: "T " + u, Findings: findings}
}

// crawls returns two reports of a site that changed between them: /gone
// removed, /new added, /top turned noindex, /b turned 404, a new error
// finding, robots.txt and a sitemap changed, the score fell 12 points.
func crawls(at time.Time) (old, new *crawler.SiteReport) {
	old = &crawler.SiteReport{Domain: "example.com", StartURL: "https://example.com/", StartedAt: at,
		Robots:   crawler.RobotsSummary{Status: 200, Bytes: 20, SHA256: "aaaa"},
		Sitemaps: []crawler.SitemapSummary{{URL: "https://example.com/sitemap.xml", Status: 200, URLs: 4}},
		Pages: []crawler.PageSummary{page("https://example.com/", 200, 90), page("https://example.com/top", 200, 80),
			page("https://example.com/b", 200, 50), page("https://example.com/low", 200, 1), page("https://example.com/gone", 200, 5)},
		Findings: []crawler.FindingGroup{{ID: "title-missing", Severity: seo.Warning, Scope: seo.ScopePage, Pages: 1, Count: 1}},
	}
	old.Score = &seo.Score{Value: 90}
	new = &crawler.SiteReport{Domain: "example.com", StartURL: "https://example.com/", StartedAt: at.Add(24 * time.Hour),
		Robots:   crawler.RobotsSummary{Status: 200, Bytes: 40, SHA256: "bbbb"},
		Sitemaps: []crawler.SitemapSummary{{URL: "https://example.com/sitemap.xml", Status: 200, URLs: 9}},
		Pages: []crawler.PageSummary{page("https://example.com/", 200, 90), page("https://example.com/top", 200, 80),
			page("https://example.com/b", 404, 50, "broken-link"), page("https://example.com/low", 404, 1, "broken-link"), page("https://example.com/new", 200, 5)},
		Findings: []crawler.FindingGroup{{ID: "broken-link", Severity: seo.Error, Scope: seo.ScopePage, Pages: 2, Count: 2}},
	}
	new.Pages[1].Indexable, new.Pages[1].Noindex = false, true
	new.Score = &seo.Score{Value: 78}
	return old, new
}

func input(t *testing.T, old, new *crawler.SiteReport) *monitor.Input {
	t.Helper()
	top, err := monitor.TopPages(context.Background(), compare.Report(old), 3)
	if err != nil {
		t.Fatal(err)
	}
	return &monitor.Input{Diff: compare.Reports(old, new, nil), TopPages: top, Now: t0,
		Links: monitor.Links{Diff: "https://api.example/v1/analyze/site/job_2/diff?against=job_1"}}
}

func rule(t *testing.T, kind, params string) monitor.Rule {
	t.Helper()
	r, err := monitor.ParseRule(kind, []byte(params))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestEvaluate(t *testing.T) {
	t.Parallel()
	old, new := crawls(t0)
	in := input(t, old, new)
	one, two := 3, 9
	in.Keywords = []monitor.KeywordPosition{{Keyword: "shoes", Old: &one, New: &two}, {Keyword: "boots", Old: &two, New: nil}, {Keyword: "hats", Old: &one, New: &one}}
	tests := []struct {
		kind, params string
		want         []string // Subject: What of each change; nil: no alert
	}{
		{"new_findings", "", []string{"broken-link: new error on 2 page(s)"}},
		{"new_findings", `{"severity":"notice"}`, []string{"broken-link: new error on 2 page(s)"}},
		{"top_page_changed", `{"topN":3}`, []string{"https://example.com/b: answers 404", "https://example.com/top: turned noindex"}},
		// /low turned 404 too, but it is not among the top 2.
		{"top_page_changed", `{"topN":2}`, []string{"https://example.com/top: turned noindex"}},
		{"robots_changed", "", []string{"robots.txt: content changed"}},
		{"sitemaps_changed", "", []string{"https://example.com/sitemap.xml: sitemap changed"}},
		{"pages_lost", "", []string{"https://example.com/gone: no longer crawled"}},
		{"pages_lost", `{"minPages":2}`, nil},
		{"score_drop", `{"points":12}`, []string{"site score: fell 12 points"}},
		{"score_drop", `{"points":13}`, nil},
		{"keyword_drop", "", []string{"shoes: fell 6 positions", "boots: fell out of the results"}},
		{"keyword_drop", `{"positions":6}`, []string{"boots: fell out of the results"}},
	}
	for _, tc := range tests {
		t.Run(tc.kind+tc.params, func(t *testing.T) {
			a := monitor.Evaluate(rule(t, tc.kind, tc.params), in)
			if tc.want == nil {
				if a != nil {
					t.Fatalf("alert %+v, want none", a)
				}
				return
			}
			if a == nil {
				t.Fatal("no alert")
			}
			var got []string
			for _, c := range a.Changes {
				got = append(got, c.Subject+": "+c.What)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("changes %q, want %q", got, tc.want)
			}
			if a.Count != len(tc.want) || a.Domain != "example.com" || a.Links.Diff == "" || len(a.Fingerprint) != 32 || a.Title == "" {
				t.Errorf("alert %+v", a)
			}
		})
	}
	if a := monitor.Evaluate(rule(t, "new_findings", ""), &monitor.Input{Diff: compare.Reports(new, new, nil)}); a != nil {
		t.Errorf("identical crawls alert %+v", a)
	}
}

// TestFingerprint: the same two crawls give the same fingerprint; a page
// that flaps gives a new fingerprint at each state change with the same
// change key; another change gives another key.
func TestFingerprint(t *testing.T) {
	t.Parallel()
	r := rule(t, "top_page_changed", "")
	old, new := crawls(t0)
	a1 := monitor.Evaluate(r, input(t, old, new))
	again := monitor.Evaluate(r, input(t, old, new))
	if a1.Fingerprint != again.Fingerprint || a1.ChangeKey != again.ChangeKey {
		t.Errorf("same change: %s/%s and %s/%s", a1.Fingerprint, a1.ChangeKey, again.Fingerprint, again.ChangeKey)
	}
	// Flap: back to the old state, then the same change again two days later.
	old2, new2 := crawls(t0.Add(48 * time.Hour))
	a2 := monitor.Evaluate(r, input(t, old2, new2))
	if a2.Fingerprint == a1.Fingerprint || a2.ChangeKey != a1.ChangeKey {
		t.Errorf("flap: fingerprints %s %s, keys %s %s", a1.Fingerprint, a2.Fingerprint, a1.ChangeKey, a2.ChangeKey)
	}
	if monitor.Evaluate(r, input(t, new, old)) != nil {
		t.Error("recovery alerted")
	}
	other := monitor.Evaluate(rule(t, "top_page_changed", `{"topN":2}`), input(t, old, new))
	if other.ChangeKey == a1.ChangeKey {
		t.Error("another change has the same key")
	}
}

func TestEvaluateCaps(t *testing.T) {
	t.Parallel()
	old := &crawler.SiteReport{Domain: "example.com"}
	for i := range 50 {
		old.Pages = append(old.Pages, page(fmt.Sprintf("https://example.com/p%02d", i), 200, float64(i)))
	}
	new := &crawler.SiteReport{Domain: "example.com"}
	d := compare.Reports(old, new, nil)
	a := monitor.Evaluate(rule(t, "pages_lost", `{"minPages":50}`), &monitor.Input{Diff: d})
	if a == nil || a.Count != 50 || len(a.Changes) != monitor.MaxChanges || a.Omitted != 50-monitor.MaxChanges {
		t.Fatalf("alert %+v", a)
	}
	top, _ := monitor.TopPages(context.Background(), compare.Report(old), 3)
	if !slices.Equal(top, []string{"https://example.com/p49", "https://example.com/p48", "https://example.com/p47"}) {
		t.Errorf("top %q", top)
	}
}

func TestParseRule(t *testing.T) {
	t.Parallel()
	tests := []struct{ kind, params, field string }{
		{"nope", "", "kind"},
		{"new_findings", `{"severity":"fatal"}`, "params.severity"},
		{"new_findings", `{"sev":"error"}`, "params.sev"},
		{"score_drop", `{"points":1e308}`, "params.points"},
		{"score_drop", `{"points":"5"}`, "params.points"},
		{"new_findings", `{"severity":1}`, "params.severity"},
		{"new_findings", `[1]`, "params"},
		{"top_page_changed", `{"topN":5000}`, "params.topN"},
		{"score_drop", `{"points":-1}`, "params.points"},
		{"score_drop", `null`, ""},
		{"keyword_drop", `{"positions":3}`, ""},
	}
	for _, tc := range tests {
		_, err := monitor.ParseRule(tc.kind, []byte(tc.params))
		ie, _ := seo.AsInputError(err)
		switch {
		case tc.field == "" && err != nil:
			t.Errorf("%s %s: %v", tc.kind, tc.params, err)
		case tc.field != "" && (ie == nil || ie.Field != tc.field || !errors.Is(err, seo.ErrInvalidInput)):
			t.Errorf("%s %s: %v, want field %s", tc.kind, tc.params, err, tc.field)
		}
	}
	r := rule(t, "new_findings", "")
	b, _ := json.Marshal(r)
	if string(b) != `{"kind":"new_findings","params":{"severity":"error","topN":20,"minPages":1,"points":5,"positions":5}}` {
		t.Errorf("defaults %s", b)
	}
}
