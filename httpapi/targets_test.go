package httpapi

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/crawler/crawlertest"
	"github.com/seokit/seokit/httpapi/store"
)

// TestSiteJobPlantedDefects runs a site analysis through the API on the
// planted-defect shop: every planted defect (canonical to a redirect,
// hreflang alternate 404, missing hreflang return link, broken image,
// script and stylesheet, redirect chain, duplicate titles, robots.txt's
// sitemap 404, an unreachable external host) is in the job's result by
// ID and URL, each target finding names its target, and each image,
// script and stylesheet was requested once (crawlertest's CheckReport).
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
	site.CheckReport(t, &rep)
	t.Logf("%d pages, %d requests on the site, %d link findings, %d site findings; resources checked %d, external targets checked %d",
		len(rep.Pages), site.Requests(), len(rep.LinkFindings), len(rep.SiteFindings), rep.ResourceChecked, rep.ExternalChecked)
}
