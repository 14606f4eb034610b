package crawler_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/crawler/crawlertest"
	"github.com/seokit/seokit/seo"
)

// reportedAt lists the "ID URL" pairs of a report's page, link and site
// findings: page findings by the pages' Findings IDs, link findings and
// site findings by their URL and evidence URLs.
func reportedAt(rep *crawler.SiteReport) map[string]bool {
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

// TestPlantedDefects crawls a shop with planted defects, each reachable
// only through what a crawl must follow or check (a canonical target, an
// hreflang alternate, an image, a redirect chain, robots.txt's sitemap, an
// external host), and asserts each is reported by ID on its URL.
func TestPlantedDefects(t *testing.T) {
	site := crawlertest.NewDefectSite()
	defer site.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rep, err := crawler.New(testOptions(crawler.Options{ExternalTimeout: 2 * time.Second})).Run(ctx, site.URL)
	if err != nil {
		t.Fatal(err)
	}
	got := reportedAt(rep)
	for _, d := range site.Defects() {
		if !got[d.ID+" "+d.URL] {
			t.Errorf("%s not reported on %s", d.ID, d.URL)
		}
	}
	// The link-scope findings name the target too.
	for _, want := range []struct{ id, from, target string }{
		{"canonical.target_redirect", "/p/canon", "/old-canon"},
		{"hreflang.target_error", "/p/en", "/de/missing"},
		{"images.broken", "/p/img", "/img/missing.png"},
		{"links.broken_external", "/", site.DeadHost + "/partner"},
	} {
		target := want.target
		if !strings.HasPrefix(target, "http") {
			target = site.URL + target
		}
		if !slices.ContainsFunc(rep.LinkFindings, func(f seo.Finding) bool {
			return f.ID == want.id && f.URL == site.URL+want.from && slices.Contains(f.Evidence.URLs, target)
		}) {
			t.Errorf("no %s on %s naming %s", want.id, want.from, target)
		}
	}
	// The finding groups count them, whatever the counting rule.
	for _, d := range site.Defects() {
		if !slices.ContainsFunc(rep.Findings, func(g crawler.FindingGroup) bool { return g.ID == d.ID && g.Count > 0 }) {
			t.Errorf("no finding group %s", d.ID)
		}
	}
	// The hreflang-only and canonical-only URLs were crawled; the logo,
	// on 24 pages, was checked once.
	pages := pagesByPath(t, site.URL, rep)
	for _, p := range []string{"/de/missing", "/fr/p", "/old-canon"} {
		if _, ok := pages[p]; !ok {
			t.Errorf("%s not crawled", p)
		}
	}
	if n := site.Hits("/img/logo.png"); n != 1 {
		t.Errorf("logo requested %d times, want once", n)
	}
	if rep.ResourceChecked != 2 || rep.ResourceUnchecked != 0 {
		t.Errorf("resources checked %d, unchecked %d %v; want the 2 images checked", rep.ResourceChecked, rep.ResourceUnchecked, rep.ResourceUncheckedReasons)
	}
	t.Logf("%d pages, %d requests on the site; %d link findings, %d site findings", len(rep.Pages), site.Requests(), len(rep.LinkFindings), len(rep.SiteFindings))
}

// TestTargetSwitches: NoCrawlHreflang and NoCrawlCanonicals (set through
// Config) keep the
// hreflang-only and canonical-only URLs out of the crawl, SkipResourceChecks
// and SkipExternalLinks cost no request for images and external targets,
// and MaxResourceChecks caps the checks, the rest counted as unchecked.
func TestTargetSwitches(t *testing.T) {
	site := crawlertest.NewDefectSite()
	defer site.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	run := func(o crawler.Options) *crawler.SiteReport {
		t.Helper()
		o.ExternalTimeout = 2 * time.Second
		rep, err := crawler.New(testOptions(o)).Run(ctx, site.URL)
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	// The switches as a saved configuration sets them.
	var off crawler.Options
	cfg := crawler.Config{NoCrawlCanonicals: true, NoCrawlHreflang: true, SkipResourceChecks: true, SkipExternalLinks: true}
	if err := cfg.Apply(&off); err != nil {
		t.Fatal(err)
	}
	rep := run(off)
	pages := pagesByPath(t, site.URL, rep)
	for _, p := range []string{"/de/missing", "/fr/p", "/old-canon"} {
		if _, ok := pages[p]; ok {
			t.Errorf("%s crawled with NoCrawlCanonicals and NoCrawlHreflang", p)
		}
	}
	for _, p := range []string{"/img/logo.png", "/img/missing.png"} {
		if n := site.Hits(p); n != 0 {
			t.Errorf("%s requested %d times with SkipResourceChecks", p, n)
		}
	}
	for _, f := range rep.LinkFindings {
		if f.ID == "images.broken" || f.ID == "links.broken_external" {
			t.Errorf("%s reported with the checks off: %s", f.ID, f.Message)
		}
	}
	if rep.ResourceChecked != 0 || rep.ResourceUncheckedReasons != nil {
		t.Errorf("resources checked %d, unchecked %v with SkipResourceChecks", rep.ResourceChecked, rep.ResourceUncheckedReasons)
	}

	rep = run(crawler.Options{MaxResourceChecks: 1, SkipExternalLinks: true})
	if rep.ResourceChecked != 1 || rep.ResourceUncheckedReasons[crawler.UncheckedMaxChecks] != 1 {
		t.Errorf("resources checked %d, unchecked %v; want 1 checked and 1 over max_checks", rep.ResourceChecked, rep.ResourceUncheckedReasons)
	}
	if n := site.Hits("/img/logo.png") + site.Hits("/img/missing.png"); n != 1 {
		t.Errorf("%d image requests with MaxResourceChecks 1, want 1", n)
	}
}
