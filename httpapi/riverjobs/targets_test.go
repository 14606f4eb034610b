package riverjobs_test

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/crawler/crawlertest"
	"github.com/seokit/seokit/crawler/redisfrontier"
	"github.com/seokit/seokit/httpapi"
	"github.com/seokit/seokit/httpapi/plans"
	"github.com/seokit/seokit/httpapi/riverjobs"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/internal/redistest"
)

// TestSharedSiteAnalysisTargets runs a site analysis on a shared Redis
// frontier (three API instances on one PostgreSQL and one Redis; the
// job's run, and the helper runs it queues when they start in time) of
// the planted-defect shop: the job's report has every planted defect,
// each target finding names its target, and the shop's and the partner
// host's servers saw each image, script and stylesheet requested once
// (crawlertest's CheckReport). The spread over several workers is
// crawler/redisfrontier's TestSharedCrawlChecksTargets.
func TestSharedSiteAnalysisTargets(t *testing.T) {
	t.Parallel() // a database of its own; it waits on events and deadlines, not on time
	dsn := migrated.DSN(t)
	rd := redistest.Start(t)
	site := crawlertest.NewDefectSite()
	defer site.Close()
	site.SetPageDelay(30 * time.Millisecond)

	rdb := redis.NewClient(&redis.Options{Addr: rd.Addr(), PoolSize: 16})
	defer rdb.Close()
	var logs [3]*syncLog
	var ins [3]*instance
	for i := range ins {
		crawls, err := redisfrontier.NewCrawls(rdb, nil)
		if err != nil {
			t.Fatal(err)
		}
		logs[i] = &syncLog{}
		so := &httpapi.Options{
			Frontiers:          crawls,
			SharedCrawlPages:   50,
			MaxSitePages:       200,
			Plans:              map[store.Plan]plans.Limits{store.Free: {MaxSitePages: 200}},
			Admission:          &httpapi.AdmissionOptions{MemoryBudget: 4 << 30},
			SharedCrawlHelpers: 2,
			CrawlerOptions:     &crawler.Options{Concurrency: 2, PerHostConcurrency: 4, PerHostRate: -1, ExternalTimeout: 2 * time.Second},
		}
		in, err := openInstance(t.Context(), dsn, &riverjobs.Options{Workers: 1}, slog.New(slog.NewTextHandler(logs[i], nil)), so)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(in.stop)
		ins[i] = in
	}
	key := newAccount(t, ins[0].st, "targets@example.com")
	body := `{"url":"` + site.URL + `/","options":{"maxPages":100}}`
	req, _ := http.NewRequest("POST", ins[0].url+"/v1/analyze/site", strings.NewReader(body))
	req.Header.Set("X-API-Key", key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var job struct {
		ID     string          `json:"id"`
		Status string          `json:"status"`
		Error  string          `json:"error"`
		Result json.RawMessage `json:"result"`
	}
	json.NewDecoder(resp.Body).Decode(&job)
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("submit: %d", resp.StatusCode)
	}
	for deadline := time.Now().Add(3 * time.Minute); job.Status != "succeeded" && job.Status != "failed" && job.Status != "canceled"; {
		if time.Now().After(deadline) {
			t.Fatalf("job not done after 3 minutes: %s", job.Status)
		}
		time.Sleep(100 * time.Millisecond)
		req, _ := http.NewRequest("GET", ins[1].url+"/v1/analyze/site/"+job.ID, nil)
		req.Header.Set("X-API-Key", key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		json.NewDecoder(resp.Body).Decode(&job)
		resp.Body.Close()
	}
	if job.Status != "succeeded" {
		t.Fatalf("job %s: %s", job.Status, job.Error)
	}
	var rep crawler.SiteReport
	if err := json.Unmarshal(job.Result, &rep); err != nil {
		t.Fatal(err)
	}
	site.CheckReport(t, &rep)
	helpers := 0
	for _, l := range logs {
		for _, m := range helperDoneRE.FindAllStringSubmatch(l.String(), -1) {
			n, _ := strconv.Atoi(m[1])
			helpers += n
		}
	}
	t.Logf("%d pages, %d by helper runs; %d link findings; resources checked %d, external targets checked %d",
		rep.Crawl.Fetched, helpers, len(rep.LinkFindings), rep.ResourceChecked, rep.ExternalChecked)
}
