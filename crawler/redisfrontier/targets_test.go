package redisfrontier_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/crawler/crawlertest"
	"github.com/seokit/seokit/crawler/redisfrontier"
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

// storedTargets reads what the workers of a shared crawl stored of the
// in-scope targets they claimed: the counts and each answer's status by
// URL path.
func storedTargets(t *testing.T, site *crawlertest.DefectSite, f *redisfrontier.Frontier) (crawler.TargetCounts, map[string]int) {
	t.Helper()
	status := map[string]int{}
	c, err := f.TargetResults(context.Background(), func(key string, r crawler.TargetResult) error {
		if !r.Checked {
			t.Errorf("%s stored unchecked: %+v", key, r)
		}
		status[strings.TrimPrefix(key, site.URL)] = r.Status
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return c, status
}

// TestSharedCrawlChecksTargets crawls the planted-defect shop with three
// workers sharing a Redis frontier and host gate: the coordinator's
// report has every planted defect, including the canonical, hreflang,
// image, script and stylesheet targets' findings, and the same link-scope
// findings as a crawl of the same shop by one Run; the shop's and the
// partner host's servers saw each image, script and stylesheet requested
// once, however many pages of however many workers use it; and the
// in-scope ones were claimed and answered through Redis by the workers
// (SharedTargets), not checked again by the coordinator.
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
	var counts crawler.TargetCounts
	var stored map[string]int
	shared, own, _ := sharedCrawlInspect(t, srv.Addr(), site.URL, 3, base, func(f *redisfrontier.Frontier) {
		counts, stored = storedTargets(t, site, f)
	})
	site.CheckReport(t, shared)
	if a, b := linkFindings(site, shared), linkFindings(one, single); !slices.Equal(a, b) {
		t.Errorf("link findings differ:\nshared %q\nsingle %q", a, b)
	}
	if shared.ExternalChecked != single.ExternalChecked || shared.ResourceChecked != single.ResourceChecked {
		t.Errorf("checked external %d, resources %d shared; %d, %d single", shared.ExternalChecked, shared.ResourceChecked,
			single.ExternalChecked, single.ResourceChecked)
	}
	if counts.Claimed != len(site.Resources()) || counts.Over != 0 || len(stored) != len(site.Resources()) {
		t.Errorf("Redis holds %d claimed, %d over the cap, answers %v; want the %d resources claimed and answered", counts.Claimed, counts.Over, stored, len(site.Resources()))
	}
	for _, p := range site.Resources() {
		want := 200
		if strings.Contains(p, "missing") {
			want = 404
		}
		if stored[p] != want {
			t.Errorf("%s stored with status %d, want %d", p, stored[p], want)
		}
	}
	t.Logf("pages per worker %v; %d link findings; resources checked %d (claimed in Redis %d), external targets checked %d, unchecked %v",
		own, len(shared.LinkFindings), shared.ResourceChecked, counts.Claimed, shared.ExternalChecked, shared.ExternalUncheckedReasons)
}

// TestSharedCrawlTargetCap: MaxResourceChecks caps the in-scope targets
// checked across all workers of a shared crawl, not per worker: with a
// cap of 2 and three workers the shop's server sees 2 resource requests,
// and the report counts the other 4 as over the cap.
func TestSharedCrawlTargetCap(t *testing.T) {
	srv := redistest.Start(t)
	site := crawlertest.NewDefectSite()
	defer site.Close()
	site.SetPageDelay(20 * time.Millisecond)
	base := crawler.Options{MaxPages: 200, PerHostRate: -1, Concurrency: 2, MaxResourceChecks: 2, SkipExternalLinks: true, RequestTimeout: 5 * time.Second}
	var counts crawler.TargetCounts
	rep, own, _ := sharedCrawlInspect(t, srv.Addr(), site.URL, 3, base, func(f *redisfrontier.Frontier) {
		counts, _ = storedTargets(t, site, f)
	})
	n := 0
	for _, p := range site.Resources() {
		n += site.Hits(p)
	}
	over := len(site.Resources()) - 2
	if n != 2 || rep.ResourceChecked != 2 || rep.ResourceUncheckedReasons[crawler.UncheckedMaxChecks] != over {
		t.Errorf("%d resource requests, %d checked, unchecked %v; want 2 requests, 2 checked, %d over max_checks",
			n, rep.ResourceChecked, rep.ResourceUncheckedReasons, over)
	}
	if counts.Claimed != 2 || counts.Over != over {
		t.Errorf("Redis counts %+v, want 2 claimed and %d over", counts, over)
	}
	t.Logf("pages per worker %v; %d resource requests; checked %d, unchecked %v", own, n, rep.ResourceChecked, rep.ResourceUncheckedReasons)
}

// TestClaimTargets: the first claim of a key wins and later ones find it
// taken, from any handle of the crawl; past the cap keys are refused and
// counted once each however often they are asked; answers read back;
// Delete removes it all.
func TestClaimTargets(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	id := newID()
	handle := func() *redisfrontier.Frontier {
		rdb := redis.NewClient(&redis.Options{Addr: srv.Addr()})
		t.Cleanup(func() { rdb.Close() })
		f, err := redisfrontier.New(rdb, id, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	a, b := handle(), handle()
	claim := func(f *redisfrontier.Frontier, keys ...string) []crawler.TargetClaim {
		t.Helper()
		got, err := f.ClaimTargets(ctx, keys, 3)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	const u = "http://site.test/img/"
	if got := claim(a, u+"1", u+"2"); !slices.Equal(got, []crawler.TargetClaim{crawler.TargetClaimed, crawler.TargetClaimed}) {
		t.Errorf("first claims %v", got)
	}
	if got := claim(b, u+"2", u+"3", u+"4", u+"4"); !slices.Equal(got, []crawler.TargetClaim{crawler.TargetTaken, crawler.TargetClaimed, crawler.TargetOverCap, crawler.TargetOverCap}) {
		t.Errorf("second claims %v", got)
	}
	if got := claim(a, u+"1", u+"5", u+"4"); !slices.Equal(got, []crawler.TargetClaim{crawler.TargetTaken, crawler.TargetOverCap, crawler.TargetOverCap}) {
		t.Errorf("third claims %v", got)
	}
	want := crawler.TargetResult{Checked: true, Status: 404, ContentType: "text/html"}
	if err := b.PutTargetResult(ctx, u+"3", want); err != nil {
		t.Fatal(err)
	}
	got := map[string]crawler.TargetResult{}
	c, err := a.TargetResults(ctx, func(k string, r crawler.TargetResult) error { got[k] = r; return nil })
	if err != nil {
		t.Fatal(err)
	}
	if c != (crawler.TargetCounts{Claimed: 3, Over: 2}) || len(got) != 1 || got[u+"3"] != want {
		t.Errorf("counts %+v, results %v; want 3 claimed, 2 over, the one answer", c, got)
	}
	if err := a.Delete(ctx); err != nil {
		t.Fatal(err)
	}
	if got := claim(b, u+"4"); got[0] != crawler.TargetClaimed {
		t.Errorf("after Delete: %v, want claimed", got)
	}
}
