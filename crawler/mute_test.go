package crawler_test

import (
	"context"
	"errors"
	"testing"

	"github.com/seokit/seokit/analyzer"
	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/crawler/crawlertest"
	"github.com/seokit/seokit/seo"
)

func TestCrawlMute(t *testing.T) {
	site := crawlertest.NewSite(crawlertest.SiteOptions{Articles: 10, Categories: 2, Broken: 1})
	defer site.Close()
	plain, err := crawler.New(testOptions(crawler.Options{})).Run(context.Background(), site.URL)
	if err != nil {
		t.Fatal(err)
	}
	// Mute one page area, one link-scope ID and one site-scope ID that the
	// plain crawl reports.
	var pageArea, siteID string
	for _, g := range plain.Findings {
		switch {
		case g.Scope == seo.ScopeSite && siteID == "":
			siteID = g.ID
		case g.Scope == seo.ScopePage && pageArea == "" && seo.AreaOf(g.ID) != "links":
			pageArea = seo.AreaOf(g.ID)
		}
	}
	if pageArea == "" || siteID == "" || group(plain, "links.broken_internal") == nil {
		t.Fatalf("the plain crawl lacks findings to mute: %+v", plain.Findings)
	}
	mute := []string{pageArea, "links.broken_internal", siteID}
	rep, err := crawler.New(testOptions(crawler.Options{Analyzer: &analyzer.Options{Mute: mute}})).Run(context.Background(), site.URL)
	if err != nil {
		t.Fatal(err)
	}
	muted := func(id string) bool {
		return id == siteID || id == "links.broken_internal" || seo.AreaOf(id) == pageArea
	}
	for _, g := range rep.Findings {
		if muted(g.ID) {
			t.Errorf("muted %s in Findings", g.ID)
		}
	}
	for _, f := range append(rep.SiteFindings, rep.LinkFindings...) {
		if muted(f.ID) {
			t.Errorf("muted %s in site or link findings", f.ID)
		}
	}
	for _, p := range rep.Pages {
		for _, id := range p.Findings {
			if muted(id) {
				t.Errorf("%s: muted %s in page findings", p.URL, id)
			}
		}
		if p.Muted != nil {
			t.Errorf("%s: page keeps its muted counts", p.URL)
		}
	}
	got := map[string]int{}
	for _, m := range rep.Muted {
		got[m.ID] = m.Count
	}
	for _, g := range plain.Findings {
		if muted(g.ID) && got[g.ID] != g.Count {
			t.Errorf("Muted[%s] = %d, want the %d findings of the plain crawl", g.ID, got[g.ID], g.Count)
		}
	}
	if rep.Score.Value <= plain.Score.Value {
		t.Errorf("site score %d with mutes, %d without", rep.Score.Value, plain.Score.Value)
	}
}

func TestCrawlDisablesSiteIDs(t *testing.T) {
	site := crawlertest.NewSite(crawlertest.SiteOptions{Articles: 4})
	defer site.Close()
	plain, err := crawler.New(testOptions(crawler.Options{})).Run(context.Background(), site.URL)
	if err != nil {
		t.Fatal(err)
	}
	var siteID string
	for _, g := range plain.Findings {
		if g.Scope == seo.ScopeSite {
			siteID = g.ID
			break
		}
	}
	if siteID == "" {
		t.Fatalf("the plain crawl has no site finding: %+v", plain.Findings)
	}
	rep, err := crawler.New(testOptions(crawler.Options{Analyzer: &analyzer.Options{Disable: []string{siteID}}})).Run(context.Background(), site.URL)
	if err != nil {
		t.Fatal(err)
	}
	if group(rep, siteID) != nil || rep.Muted != nil {
		t.Errorf("disabled %s still reported (muted %v)", siteID, rep.Muted)
	}
}

func TestCrawlUnknownIDs(t *testing.T) {
	for _, o := range []*analyzer.Options{{Mute: []string{"site.bogus"}}, {Disable: []string{"bogus"}}} {
		_, err := crawler.New(testOptions(crawler.Options{Analyzer: o})).Run(context.Background(), "http://127.0.0.1:1/")
		var ie *seo.InputError
		if !errors.As(err, &ie) {
			t.Errorf("%+v: err = %v, want an *seo.InputError", o, err)
		}
	}
	// Site IDs and areas are accepted in a crawl.
	site := crawlertest.NewSite(crawlertest.SiteOptions{Articles: 2})
	defer site.Close()
	if _, err := crawler.New(testOptions(crawler.Options{Analyzer: &analyzer.Options{Disable: []string{"site"}, Mute: []string{"site.orphan", "canonical.chain", "social"}}})).Run(context.Background(), site.URL); err != nil {
		t.Fatal(err)
	}
}
