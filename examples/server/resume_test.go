package main

import (
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/crawler/crawlertest"
	"github.com/seokit/seokit/internal/pgtest"
	"github.com/seokit/seokit/internal/redistest"
)

// pageLog counts the requests for each page of a crawlertest site.
type pageLog struct {
	mu   sync.Mutex
	hits map[string]int
}

func (l *pageLog) record(r *http.Request) {
	if p := r.URL.RequestURI(); isSitePage(p) {
		l.mu.Lock()
		l.hits[p]++
		l.mu.Unlock()
	}
}

// counts returns the page requests, the distinct pages requested and the
// requests beyond the first of each page.
func (l *pageLog) counts() (fetches, distinct, refetches int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, n := range l.hits {
		fetches += n
		distinct++
		refetches += n - 1
	}
	return fetches, distinct, refetches
}

// isSitePage reports whether path is a page of a crawlertest site (home,
// about, category pages, articles) other than the home page, which the
// crawl's site probes request too.
func isSitePage(p string) bool {
	return p == "/about" || strings.HasPrefix(p, "/a/") || strings.HasPrefix(p, "/c/")
}

// apiClient calls the API of an instance with an API key.
type apiClient struct {
	t   *testing.T
	key string
}

func (c apiClient) do(method, url, body string) (int, []byte) {
	c.t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	req.Header.Set("X-API-Key", c.key)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// siteJob is what the tests read of a site analysis.
type siteJob struct {
	ID       string `json:"id"`
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

// waitJobDone polls the job through base until it has ended.
func (c apiClient) waitJobDone(base, id string, limit time.Duration) siteJob {
	c.t.Helper()
	deadline := time.Now().Add(limit)
	for {
		code, body := c.do("GET", base+"/v1/analyze/site/"+id, "")
		var j siteJob
		if code == http.StatusOK && json.Unmarshal(body, &j) == nil && (j.Status == "succeeded" || j.Status == "failed" || j.Status == "canceled") {
			return j
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("job %s not done within %v: %d %.300s", id, limit, code, body)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// TestResumeAfterKill kills the server (SIGKILL) in the middle of a site
// analysis of a 2,000-page site, after about 800 pages, restarts it on the
// same stores and checks that the job completes with every page fetched,
// and fetched again at most once in total for the pages in flight at the
// kill (the crawl's concurrency, 8): the frontier it resumes from has the
// rest. On SQLite (-jobs local, -frontier-dir), and on PostgreSQL with
// River and Redis (the frontier in Redis). Under the race detector the site
// has 600 pages and the kill comes after about 250.
func TestResumeAfterKill(t *testing.T) {
	if testing.Short() {
		t.Skip("SKIP: process kill test in -short mode")
	}
	// Processes and stores of its own, the PostgreSQL case mostly waiting
	// for River's rescue: both cases overlap the other process tests.
	t.Parallel()
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		resumeAfterKill(t, []string{"-db", filepath.Join(dir, "api.db"), "-data-db", filepath.Join(dir, "data.db"),
			"-frontier-dir", filepath.Join(dir, "frontiers")}, 2*time.Minute)
	})
	t.Run("postgres+redis", func(t *testing.T) {
		t.Parallel()
		dsn := pgtest.DSN(t)
		rd := redistest.Start(t)
		// A killed instance's River job is rescued RescueStuckJobsAfter
		// after its run started.
		resumeAfterKill(t, []string{"-db", dsn, "-data-db", dsn, "-redis", rd.URL(), "-jobs", "river",
			"-callback-secret", "resume-test-secret", "-job-timeout", "45s", "-job-rescue-after", "45s"}, 3*time.Minute)
	})
}

func resumeAfterKill(t *testing.T, args []string, limit time.Duration) {
	articles, killAt := 1978, 800 // 2,000 pages with 10 categories of 2 pages
	if raceBuild {
		articles, killAt = 580, 250 // 600 pages
	}
	const inFlight = crawler.DefaultConcurrency
	log := &pageLog{hits: map[string]int{}}
	site := crawlertest.NewSite(crawlertest.SiteOptions{Articles: articles, Categories: 10, PerPage: 100, PageBytes: 2000,
		NoRequestLog: true, OnRequest: log.record})
	defer site.Close()
	pages := site.Pages()
	args = append(args, "-allow-private", "-crawl-rate", "200", "-job-workers", "1")

	a := startInstance(t, args...)
	m := keyRE.FindStringSubmatch(a.out.String())
	if m == nil {
		t.Fatalf("no API key printed:\n%s", a.out)
	}
	c := apiClient{t: t, key: m[1]}
	code, body := c.do("POST", a.base+"/v1/analyze/site", `{"url":"`+site.URL+`/","options":{"maxPages":`+strconv.Itoa(pages+100)+`,"skipExternalLinks":true}}`)
	if code != http.StatusAccepted {
		t.Fatalf("submit: %d %s", code, body)
	}
	var job siteJob
	json.Unmarshal(body, &job)

	deadline := time.Now().Add(limit)
	for {
		if f, _, _ := log.counts(); f >= killAt {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("fewer than %d pages fetched within %v:\n%s", killAt, limit, a.out)
		}
		time.Sleep(5 * time.Millisecond)
	}
	a.kill()
	before, _, _ := log.counts()

	b := startInstance(t, args...)
	j := c.waitJobDone(b.base, job.ID, limit)
	fetches, distinct, refetches := log.counts()
	t.Logf("site of %d pages (%d besides the home page); killed after %d page fetches; in total %d fetches of %d distinct pages, %d fetched again",
		pages, pages-1, before, fetches, distinct, refetches)
	if j.Status != "succeeded" {
		t.Fatalf("job %s: %s\n%s", j.Status, j.Error, b.out)
	}
	if distinct != pages-1 {
		t.Errorf("%d distinct pages fetched, want %d", distinct, pages-1)
	}
	if refetches > inFlight {
		t.Errorf("%d pages fetched again, want at most %d (the pages in flight at the kill); %d before the kill, the crawl started over?", refetches, inFlight, before)
	}
	if j.Result.Crawl.Fetched != pages || j.Result.Crawl.StopReason != crawler.StopDone || j.Progress.PagesDone != pages {
		t.Errorf("report: fetched %d (%s), progress %d pages; want %d, %s", j.Result.Crawl.Fetched, j.Result.Crawl.StopReason, j.Progress.PagesDone, pages, crawler.StopDone)
	}
}
