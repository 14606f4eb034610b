package redisfrontier_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/crawler/crawlertest"
	"github.com/seokit/seokit/internal/redistest"
)

// linkFindings lists a report's link-scope findings as "ID page target"
// with the site's, the partner's and the dead host's roots replaced by
// names, so that reports of two DefectSites compare.
func linkFindings(site *crawlertest.DefectSite, rep *crawler.SiteReport) []string {
	r := strings.NewReplacer(site.URL, "SITE", site.Partner, "PARTNER", site.DeadHost, "DEAD")
	var out []string
	for _, f := range rep.LinkFindings {
		out = append(out, r.Replace(f.ID+" "+f.URL+" "+strings.Join(f.Evidence.URLs, " ")))
	}
	slices.Sort(out)
	return out
}

// TestSharedCrawlChecksTargets crawls the planted-defect shop with three
// workers sharing a Redis frontier and host gate: the coordinator's
// report has every planted defect, including the canonical, hreflang,
// image, script and stylesheet targets' findings, and the same link-scope
// findings as a crawl of the same shop by one Run; the shop's and the
// partner host's servers saw each image, script and stylesheet requested
// once, however many pages of however many workers use it.
func TestSharedCrawlChecksTargets(t *testing.T) {
	srv := redistest.Start(t)
	base := crawler.Options{MaxPages: 200, PerHostRate: -1, Concurrency: 4, ExternalTimeout: 2 * time.Second, RequestTimeout: 5 * time.Second}

	one := crawlertest.NewDefectSite()
	defer one.Close()
	o := base
	o.AllowPrivate = true
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	single, err := crawler.New(&o).Run(ctx, one.URL)
	if err != nil {
		t.Fatal(err)
	}
	one.CheckReport(t, single)

	site := crawlertest.NewDefectSite()
	defer site.Close()
	site.SetPageDelay(20 * time.Millisecond)
	base.Concurrency = 2
	shared, own, _ := sharedCrawl(t, srv.Addr(), site.URL, 3, base)
	site.CheckReport(t, shared)
	if a, b := linkFindings(site, shared), linkFindings(one, single); !slices.Equal(a, b) {
		t.Errorf("link findings differ:\nshared %q\nsingle %q", a, b)
	}
	if shared.ExternalChecked != single.ExternalChecked || shared.ResourceChecked != single.ResourceChecked {
		t.Errorf("checked external %d, resources %d shared; %d, %d single", shared.ExternalChecked, shared.ResourceChecked,
			single.ExternalChecked, single.ResourceChecked)
	}
	t.Logf("pages per worker %v; %d link findings; resources checked %d, external targets checked %d, unchecked %v",
		own, len(shared.LinkFindings), shared.ResourceChecked, shared.ExternalChecked, shared.ExternalUncheckedReasons)
}
