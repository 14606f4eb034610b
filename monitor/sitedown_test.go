package monitor_test

import (
	"testing"
	"time"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/crawler/compare"
	"github.com/seokit/seokit/monitor"
	"github.com/seokit/seokit/seo"
)

// TestSiteDown: site_down fires on a report that reached no page (no
// response, or robots.txt unavailable) and on nothing else; score_drop
// never reads a crawl without a score as a drop to zero.
func TestSiteDown(t *testing.T) {
	t.Parallel()
	up, _ := crawls(t0)
	unreachable := &crawler.SiteReport{Domain: "example.com", StartURL: "https://example.com/", StartedAt: t0.Add(24 * time.Hour),
		ScoreReason: crawler.SiteUnreachable,
		Crawl: crawler.CrawlStats{StopReason: crawler.StopUnreachable,
			Unreachable: &seo.Unreachable{URL: "https://example.com/", Kind: seo.UnreachableDNS, Error: "lookup example.com: no such host"}}}
	robots503 := &crawler.SiteReport{Domain: "example.com", StartURL: "https://example.com/", StartedAt: t0.Add(48 * time.Hour),
		ScoreReason: crawler.SiteRobotsUnavailable, Robots: crawler.RobotsSummary{Status: 503}, Crawl: crawler.CrawlStats{StopReason: crawler.StopDone}}
	blocked := &crawler.SiteReport{Domain: "example.com", StartURL: "https://example.com/", ScoreReason: crawler.SiteRobotsBlocked}
	notFound := &crawler.SiteReport{Domain: "example.com", StartURL: "https://example.com/", ScoreReason: crawler.SiteNoScoredPages}
	cases := []struct {
		name string
		rep  *crawler.SiteReport
		what string // "" for no alert
	}{
		{"unreachable", unreachable, "no response (dns)"},
		{"robots.txt 503", robots503, "robots.txt unavailable, nothing crawled"},
		{"up", up, ""},
		{"robots.txt disallows the start URL", blocked, ""},
		{"every page 404", notFound, ""},
	}
	r := rule(t, "site_down", "")
	var keys []string
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := monitor.Evaluate(r, &monitor.Input{Domain: "example.com", Down: monitor.SiteDown(c.rep), Now: t0})
			if c.what == "" {
				if a != nil {
					t.Fatalf("alert %+v for a site that answered", a)
				}
				return
			}
			if a == nil || a.Kind != monitor.KindSiteDown || a.Count != 1 || a.Changes[0].What != c.what {
				t.Fatalf("alert %+v, want %q", a, c.what)
			}
			keys = append(keys, a.Fingerprint)
		})
	}
	if len(keys) == 2 && keys[0] == keys[1] {
		t.Error("two analyses of an outage share a fingerprint")
	}
	// A diff with a side without a score: no score_drop.
	d := compare.Reports(up, unreachable, nil)
	if d.Score != nil || d.New.Score != nil || d.New.ScoreReason != crawler.SiteUnreachable {
		t.Fatalf("diff score %v, new side %v (%s)", d.Score, d.New.Score, d.New.ScoreReason)
	}
	if a := monitor.Evaluate(rule(t, "score_drop", `{"points":1}`), &monitor.Input{Diff: d, Now: t0}); a != nil {
		t.Errorf("score_drop on a site without a score: %+v", a)
	}
	if got := d.New.ScoreText(); got != "none (unreachable)" {
		t.Errorf("score text %q", got)
	}
}
