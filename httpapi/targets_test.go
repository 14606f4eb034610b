package httpapi

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/crawler/crawlertest"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/seo"
)

// TestSiteJobPlantedDefects runs a site analysis through the API on the
// planted-defect shop: every planted defect (canonical to a redirect,
// hreflang alternate 404, missing hreflang return link, broken image,
// redirect chain, duplicate titles, robots.txt's sitemap 404, an
// unreachable external host) is in the job's result by ID and URL.
func TestSiteJobPlantedDefects(t *testing.T) {
	site := crawlertest.NewDefectSite()
	t.Cleanup(site.Close)
	a := newTestAPI(t, &Options{AllowPrivate: true, Limits: map[store.Plan]int{store.Free: 10_000}})
	resp := a.call("POST", "/v1/analyze/site", a.key, fmt.Sprintf(`{"domain":%q,"options":{"maxPages":100}}`, hostOf(t, site.URL)))
	wantStatus(t, resp, 202)
	var created Job
	readJSON(t, resp, &created)
	j := waitJob(t, a, a.key, created.ID, func(j Job) bool { return j.Status == "succeeded" || j.Status == "failed" })
	if j.Status != "succeeded" {
		t.Fatalf("job %+v", j)
	}
	var rep crawler.SiteReport
	if err := json.Unmarshal(j.Result, &rep); err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, p := range rep.Pages {
		for _, id := range p.Findings {
			got[id+" "+p.URL] = true
		}
	}
	for _, fs := range [][]seo.Finding{rep.LinkFindings, rep.SiteFindings} {
		for _, f := range fs {
			got[f.ID+" "+f.URL] = true
			for _, u := range f.Evidence.URLs {
				got[f.ID+" "+u] = true
			}
		}
	}
	for _, d := range site.Defects() {
		if !got[d.ID+" "+d.URL] {
			t.Errorf("%s not reported on %s", d.ID, d.URL)
		}
		if !slices.ContainsFunc(rep.Findings, func(g crawler.FindingGroup) bool { return g.ID == d.ID && g.Count > 0 }) {
			t.Errorf("no finding group %s", d.ID)
		}
	}
	if rep.ResourceChecked != 2 {
		t.Errorf("%d images checked, want 2", rep.ResourceChecked)
	}
	t.Logf("%d pages, %d requests on the site, %d link findings, %d site findings", len(rep.Pages), site.Requests(), len(rep.LinkFindings), len(rep.SiteFindings))
}
