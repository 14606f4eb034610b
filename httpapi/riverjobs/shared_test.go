package riverjobs_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
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

// syncLog is a log output safe for concurrent writes.
type syncLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *syncLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *syncLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

var helperDoneRE = regexp.MustCompile(`msg="shared crawl helper done".* pages=(\d+)`)

// TestSharedSiteAnalysis runs three API instances sharing PostgreSQL
// (River) and Redis (the frontiers): one site analysis of a 30,002-page
// site, submitted to one instance, is crawled by a worker on each of the
// three (the job's own run and two helper runs), every page fetched once,
// and the report counts every page. Under the race detector, or with
// -short, the site has 512 pages at 100 requests/s; .ci/run runs the
// full one.
func TestSharedSiteAnalysis(t *testing.T) {
	dsn := migrated.DSN(t)
	rd := redistest.Start(t)
	// Under the race detector (.ci/run runs the full size without it) the
	// site, the shared-crawl threshold and the capped job are smaller; the
	// crawl still lasts seconds at the rate, long enough for the helpers
	// to join and for the rate check to bite.
	articles, perSecond, sharedPages, capPages := 29_700, 600.0, 1000, 1000
	if raceEnabled || testing.Short() {
		articles, perSecond, sharedPages, capPages = 500, 100, 200, 200
	}
	var (
		mu    sync.Mutex
		hits  = map[string]int{}
		times []time.Time
	)
	site := crawlertest.NewSite(crawlertest.SiteOptions{Articles: articles, Categories: 10, PerPage: 100, PageBytes: 2000,
		NoRequestLog: true, OnRequest: func(r *http.Request) {
			p := r.URL.RequestURI()
			if p == "/about" || strings.HasPrefix(p, "/a/") || strings.HasPrefix(p, "/c/") {
				now := time.Now()
				mu.Lock()
				hits[p]++
				times = append(times, now)
				mu.Unlock()
			}
		}})
	defer site.Close()
	pages := site.Pages()

	rdb := redis.NewClient(&redis.Options{Addr: rd.Addr(), PoolSize: 64})
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
			SharedCrawlPages:   sharedPages,
			MaxSitePages:       pages + 100,
			Plans:              map[store.Plan]plans.Limits{store.Free: {MaxSitePages: pages + 100}},
			Admission:          &httpapi.AdmissionOptions{MemoryBudget: 4 << 30},
			SharedCrawlHelpers: 2,
			CrawlerOptions:     &crawler.Options{Concurrency: 8, PerHostConcurrency: 8, PerHostRate: perSecond, PerHostBurst: 5},
		}
		in, err := openInstance(t.Context(), dsn, &riverjobs.Options{Workers: 1}, slog.New(slog.NewTextHandler(logs[i], nil)), so)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(in.stop)
		ins[i] = in
	}
	key := newAccount(t, ins[0].st, "shared@example.com")
	start := time.Now()
	got := runSiteJob(t, ins[0].url, ins[1].url, key, site.URL, pages+100)
	el := time.Since(start)
	// Each instance's share: the helpers log theirs, the job's own run
	// fetched the rest.
	per := make([]int, len(ins))
	helpers, total := 0, got.Result.Crawl.Fetched
	for i, l := range logs {
		for _, m := range helperDoneRE.FindAllStringSubmatch(l.String(), -1) {
			n, _ := strconv.Atoi(m[1])
			per[i] += n
			helpers += n
		}
	}
	own := total - helpers
	for i, l := range logs {
		if strings.Contains(l.String(), "shared crawl helper done") {
			continue
		}
		per[i] += own // the instance that ran the job itself
	}
	t.Logf("%d pages in %v (%.0f pages/s); pages fetched per instance: %v", total, el.Round(time.Millisecond), float64(total)/el.Seconds(), per)

	mu.Lock()
	defer mu.Unlock()
	twice := 0
	for p, n := range hits {
		if n != 1 {
			twice++
			if twice <= 5 {
				t.Errorf("%s fetched %d times", p, n)
			}
		}
	}
	if len(hits) != pages-1 || twice > 0 {
		t.Errorf("%d distinct pages fetched (want %d), %d more than once", len(hits), pages-1, twice)
	}
	if total != pages || got.Progress.PagesDone != pages {
		t.Errorf("report: %d fetched, progress %d; want %d", total, got.Progress.PagesDone, pages)
	}
	// The gate bounds request starts; on a loaded machine arrivals lag
	// their slots and bunch up. Over a 3 s window a lag of up to 250 ms
	// adds at most a quarter second of the rate, plus the burst.
	if most, allowed := crawlertest.MaxInWindow(times, 3*time.Second), int(perSecond*3.25)+5; most > allowed {
		t.Errorf("%d page requests in 3 s, want at most %d (%.0f/s)", most, allowed, perSecond)
	}
	for i, n := range per {
		if n == 0 {
			t.Errorf("instance %d fetched nothing: the crawl was not shared", i)
		}
	}

	// A shared job whose maxPages is below the site's size fetches at most
	// maxPages pages in total, whichever workers fetch them.
	before := 0
	for _, n := range hits {
		before += n
	}
	mu.Unlock()
	capped := runSiteJob(t, ins[2].url, ins[0].url, key, site.URL, capPages)
	mu.Lock()
	served := 1 // the home page, not in hits
	for _, n := range hits {
		served += n
	}
	served -= before
	t.Logf("job with maxPages %d: %d pages served, %d fetched, stop reason %s", capPages, served, capped.Result.Crawl.Fetched, capped.Result.Crawl.StopReason)
	if served > capPages || capped.Result.Crawl.Fetched != capPages || capped.Result.Crawl.StopReason != "max_pages" {
		t.Errorf("job with maxPages %d: %d pages served, report %d fetched, stop reason %q; want at most %d, %d, max_pages",
			capPages, served, capped.Result.Crawl.Fetched, capped.Result.Crawl.StopReason, capPages, capPages)
	}
}

// siteJob is what the tests read of a site analysis job.
type siteJob struct {
	Status   string `json:"status"`
	Error    string `json:"error"`
	Progress struct {
		PagesDone int `json:"pagesDone"`
	} `json:"progress"`
	Result struct {
		Crawl struct {
			Fetched    int    `json:"fetched"`
			StopReason string `json:"stopReason"`
		} `json:"crawl"`
	} `json:"result"`
}

// runSiteJob submits a site analysis of siteURL with maxPages to the API
// at submitURL, polls it at pollURL until it ends, and returns it; a job
// that did not succeed fails the test.
func runSiteJob(t *testing.T, submitURL, pollURL, key, siteURL string, maxPages int) siteJob {
	t.Helper()
	body := `{"url":"` + siteURL + `/","options":{"maxPages":` + strconv.Itoa(maxPages) + `,"skipExternalLinks":true}}`
	req, _ := http.NewRequest("POST", submitURL+"/v1/analyze/site", strings.NewReader(body))
	req.Header.Set("X-API-Key", key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var job struct {
		ID string `json:"id"`
	}
	json.NewDecoder(resp.Body).Decode(&job)
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("submit: %d", resp.StatusCode)
	}
	var got siteJob
	for deadline := time.Now().Add(10 * time.Minute); ; {
		req, _ := http.NewRequest("GET", pollURL+"/v1/analyze/site/"+job.ID, nil)
		req.Header.Set("X-API-Key", key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		json.NewDecoder(resp.Body).Decode(&got)
		resp.Body.Close()
		if got.Status == "succeeded" || got.Status == "failed" || got.Status == "canceled" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("job not done after 10 minutes: %+v", got)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if got.Status != "succeeded" {
		t.Fatalf("job %s: %s", got.Status, got.Error)
	}
	return got
}
