package crawlertest

import (
	"slices"
	"strings"
	"testing"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/seo"
)

// ReportedAt lists the "ID URL" pairs of a report's page, link and site
// findings: page findings by the pages' Findings IDs, link findings and
// site findings by their URL and evidence URLs.
func ReportedAt(rep *crawler.SiteReport) map[string]bool {
	got := map[string]bool{}
	for _, p := range rep.Pages {
		for _, id := range p.Findings {
			got[id+" "+p.URL] = true
		}
	}
	add := func(fs []seo.Finding) {
		for _, f := range fs {
			got[f.ID+" "+f.URL] = true
			for _, u := range f.Evidence.URLs {
				got[f.ID+" "+u] = true
			}
		}
	}
	add(rep.LinkFindings)
	add(rep.SiteFindings)
	return got
}

// TargetFinding is a link-scope finding a crawl of the DefectSite must
// report: ID on the page From, naming Target in its evidence.
type TargetFinding struct {
	ID, From, Target string
}

// TargetFindings lists the link-scope findings of the planted targets,
// with absolute URLs.
func (s *DefectSite) TargetFindings() []TargetFinding {
	u := s.URL
	return []TargetFinding{
		{"canonical.target_redirect", u + "/p/canon", u + "/old-canon"},
		{"hreflang.target_error", u + "/p/en", u + "/de/missing"},
		{"images.broken", u + "/p/img", u + "/img/missing.png"},
		{"resources.broken_script", u + "/p/assets", u + "/js/missing.js"},
		{"resources.broken_stylesheet", u + "/p/assets", u + "/css/missing.css"},
		{"resources.broken_stylesheet", u + "/p/assets", s.Partner + "/gone.css"},
		{"links.broken_external", u + "/", s.DeadHost + "/partner"},
	}
}

// CheckReport fails t unless rep, the report of a full crawl of s with
// every target check on (by one Run or by several sharing a frontier),
// reports each planted defect on its URL with a finding group, each
// target finding naming its target, crawled the hreflang-only and
// canonical-only URLs, and requested each image, script and stylesheet
// (the site's and the partner's) exactly once.
func (s *DefectSite) CheckReport(t testing.TB, rep *crawler.SiteReport) {
	t.Helper()
	got := ReportedAt(rep)
	for _, d := range s.Defects() {
		if !got[d.ID+" "+d.URL] {
			t.Errorf("%s not reported on %s", d.ID, d.URL)
		}
		if !slices.ContainsFunc(rep.Findings, func(g crawler.FindingGroup) bool { return g.ID == d.ID && g.Count > 0 }) {
			t.Errorf("no finding group %s", d.ID)
		}
	}
	for _, w := range s.TargetFindings() {
		if !slices.ContainsFunc(rep.LinkFindings, func(f seo.Finding) bool {
			return f.ID == w.ID && f.URL == w.From && slices.Contains(f.Evidence.URLs, w.Target)
		}) {
			t.Errorf("no %s on %s naming %s", w.ID, w.From, w.Target)
		}
	}
	crawled := map[string]bool{}
	for _, p := range rep.Pages {
		crawled[strings.TrimPrefix(p.URL, s.URL)] = true
	}
	for _, p := range []string{"/de/missing", "/fr/p", "/old-canon"} {
		if !crawled[p] {
			t.Errorf("%s not crawled", p)
		}
	}
	for _, p := range append(s.Resources(), "partner:/widget.js", "partner:/gone.css") {
		if n := s.Hits(p); n != 1 {
			t.Errorf("%s requested %d times, want once", p, n)
		}
	}
	if rep.ResourceChecked != len(s.Resources()) || rep.ResourceUnchecked != 0 {
		t.Errorf("resources checked %d, unchecked %d %v; want the %d checked", rep.ResourceChecked, rep.ResourceUnchecked,
			rep.ResourceUncheckedReasons, len(s.Resources()))
	}
}
