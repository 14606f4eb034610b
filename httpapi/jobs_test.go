package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/httpapi/auth"
	"github.com/seokit/seokit/httpapi/plans"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/httpapi/store/sqlstore"
	"github.com/seokit/seokit/seo"
)

// crawlSite serves pages /, /p1 ... /p{n-1}, each linking to every other.
// delay slows each page down (cancellation tests).
func crawlSite(t *testing.T, n int, delay time.Duration) *httptest.Server {
	t.Helper()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" || r.URL.Path == "/sitemap.xml" {
			http.NotFound(w, r)
			return
		}
		if delay > 0 && r.URL.Path != "/" {
			select {
			case <-time.After(delay):
			case <-r.Context().Done():
				return
			}
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, "<!doctype html><html lang=en><head><title>Page %s of the test site</title></head><body><h1>Page</h1>", r.URL.Path)
		for i := 1; i < n; i++ {
			fmt.Fprintf(w, `<a href="/p%d">page %d</a> `, i, i)
		}
		io.WriteString(w, "</body></html>")
	}))
	t.Cleanup(ts.Close)
	return ts
}

func hostOf(t *testing.T, raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}

// waitJob polls the job until cond holds or 30 s pass.
func waitJob(t *testing.T, a *testAPI, key, id string, cond func(Job) bool) Job {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp := a.call("GET", "/v1/analyze/site/"+id, key, "")
		wantStatus(t, resp, 200)
		var j Job
		readJSON(t, resp, &j)
		if cond(j) {
			return j
		}
		if time.Now().After(deadline) {
			t.Fatalf("job never reached the condition: %+v", j)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestSiteJob(t *testing.T) {
	site := crawlSite(t, 5, 0)
	a := newTestAPI(t, &Options{AllowPrivate: true, Limits: map[store.Plan]int{store.Free: 10_000}})
	resp := a.call("POST", "/v1/analyze/site", a.key, fmt.Sprintf(`{"domain":%q,"options":{"maxPages":20}}`, hostOf(t, site.URL)))
	wantStatus(t, resp, 202)
	var created Job
	readJSON(t, resp, &created)
	if !strings.HasPrefix(created.ID, "job_") || created.Status != "queued" || resp.Header.Get("Location") != "/v1/analyze/site/"+created.ID {
		t.Fatalf("created %+v, Location %q", created, resp.Header.Get("Location"))
	}
	if created.CallbackSecret != "" {
		t.Error("callbackSecret without callbackUrl")
	}
	j := waitJob(t, a, a.key, created.ID, func(j Job) bool { return j.Status == "succeeded" || j.Status == "failed" })
	if j.Status != "succeeded" {
		t.Fatalf("job %+v", j)
	}
	var rep struct {
		Crawl struct {
			Fetched int `json:"fetched"`
		} `json:"crawl"`
		Pages []json.RawMessage `json:"pages"`
	}
	if err := json.Unmarshal(j.Result, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Crawl.Fetched != 5 || len(rep.Pages) != 5 {
		t.Errorf("crawled %d pages (%d summaries), want the site's 5", rep.Crawl.Fetched, len(rep.Pages))
	}
	if j.Progress == nil || j.Progress.PagesDone != 5 || j.StartedAt.IsZero() || j.FinishedAt.IsZero() {
		t.Errorf("progress %+v, started %v finished %v", j.Progress, j.StartedAt, j.FinishedAt)
	}
	t.Run("cancel a finished job", func(t *testing.T) {
		apiErr(t, a.call("DELETE", "/v1/analyze/site/"+j.ID, a.key, ""), 409, CodeConflict)
	})
	t.Run("list", func(t *testing.T) {
		resp := a.call("GET", "/v1/analyze/site", a.key, "")
		wantStatus(t, resp, 200)
		var l JobList
		readJSON(t, resp, &l)
		if len(l.Jobs) != 1 || l.Jobs[0].ID != j.ID || l.Jobs[0].Result != nil {
			t.Errorf("list %+v", l)
		}
	})
	t.Run("another account gets 404", func(t *testing.T) {
		_, keyB := a.account("b@example.com", store.Free, auth.ScopeRead, auth.ScopeWrite)
		apiErr(t, a.call("GET", "/v1/analyze/site/"+j.ID, keyB, ""), 404, CodeNotFound)
		apiErr(t, a.call("DELETE", "/v1/analyze/site/"+j.ID, keyB, ""), 404, CodeNotFound)
		resp := a.call("GET", "/v1/analyze/site", keyB, "")
		var l JobList
		readJSON(t, resp, &l)
		if len(l.Jobs) != 0 {
			t.Errorf("B lists A's jobs: %+v", l)
		}
	})
	bad := []struct{ name, body, field string }{
		{"missing domain", `{}`, "domain"},
		{"domain with scheme", `{"domain":"https://example.com"}`, "domain"},
		{"domain with path", `{"domain":"example.com/shop"}`, "domain"},
		{"bare word", `{"domain":"intranet"}`, "domain"},
		{"negative maxPages", `{"domain":"example.com","options":{"maxPages":-1}}`, "options.maxPages"},
		{"huge maxPages", `{"domain":"example.com","options":{"maxPages":1000000}}`, "options.maxPages"},
		{"maxPages not an integer", `{"domain":"example.com","options":{"maxPages":"ten"}}`, "options.maxPages"},
		{"unknown option", `{"domain":"example.com","options":{"maxDepth":3}}`, "options.maxDepth"},
		{"bad callbackUrl", `{"domain":"example.com","callbackUrl":"not a url"}`, "callbackUrl"},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			e := apiErr(t, a.call("POST", "/v1/analyze/site", a.key, tc.body), 400, CodeInvalidRequest)
			if e.Field != tc.field {
				t.Errorf("field %q, want %q (%s)", e.Field, tc.field, e.Message)
			}
		})
	}
	t.Run("read-only key cannot start a job", func(t *testing.T) {
		ro := a.newKey(a.acct.ID, auth.ScopeRead)
		apiErr(t, a.call("POST", "/v1/analyze/site", ro, `{"domain":"example.com"}`), 403, CodeForbidden)
	})
}

func TestSiteJobCancel(t *testing.T) {
	site := crawlSite(t, 50, 20*time.Second)
	a := newTestAPI(t, &Options{AllowPrivate: true, Limits: map[store.Plan]int{store.Free: 10_000}})
	resp := a.call("POST", "/v1/analyze/site", a.key, fmt.Sprintf(`{"domain":%q}`, hostOf(t, site.URL)))
	wantStatus(t, resp, 202)
	var created Job
	readJSON(t, resp, &created)
	// Progress is saved while the crawl runs: the home page is fast, the
	// others hang.
	running := waitJob(t, a, a.key, created.ID, func(j Job) bool {
		return j.Status == "running" && j.Progress != nil && j.Progress.PagesDone >= 1
	})
	if running.StartedAt.IsZero() || running.Progress.Queued+running.Progress.PagesDone < 2 {
		t.Errorf("running job %+v, progress %+v", running, running.Progress)
	}
	start := time.Now()
	resp = a.call("DELETE", "/v1/analyze/site/"+created.ID, a.key, "")
	wantStatus(t, resp, 200)
	var c Job
	readJSON(t, resp, &c)
	if c.Status != "canceled" {
		t.Errorf("DELETE answered %+v", c)
	}
	// The worker sees the cancel and stops crawling.
	j := waitJob(t, a, a.key, created.ID, func(j Job) bool { return j.Status != "running" })
	if j.Status != "canceled" || j.FinishedAt.IsZero() {
		t.Errorf("after cancel %+v", j)
	}
	apiErr(t, a.call("DELETE", "/v1/analyze/site/"+created.ID, a.key, ""), 409, CodeConflict)
	a.srv.mu.Lock()
	deadline := time.Now().Add(10 * time.Second)
	for len(a.srv.running) > 0 && time.Now().Before(deadline) {
		a.srv.mu.Unlock()
		time.Sleep(20 * time.Millisecond)
		a.srv.mu.Lock()
	}
	n := len(a.srv.running)
	a.srv.mu.Unlock()
	if n != 0 || time.Since(start) > 10*time.Second {
		t.Errorf("crawl still running %v after cancel", time.Since(start))
	}
	// The cancel loses no work: the job keeps the report of the pages
	// crawled before it, stopped "canceled", and stays canceled.
	j = waitJob(t, a, a.key, created.ID, func(j Job) bool { return true })
	var partial struct {
		Crawl struct {
			Fetched    int    `json:"fetched"`
			StopReason string `json:"stopReason"`
		} `json:"crawl"`
	}
	if err := json.Unmarshal(j.Result, &partial); err != nil || j.Status != "canceled" ||
		partial.Crawl.StopReason != "canceled" || partial.Crawl.Fetched < 1 {
		t.Errorf("canceled job: status %s, partial report %+v (%v); want canceled with the home page", j.Status, partial.Crawl, err)
	}
	t.Logf("canceled job kept a partial report: %d pages, stopped %q", partial.Crawl.Fetched, partial.Crawl.StopReason)
}

// TestSiteJobTimeout: on the in-process queue, an account whose site
// answers slowly cannot hold the server's only site-analysis slot past the
// job timeout: its analysis ends failed, saying so, and another account's
// analysis queued behind it runs.
func TestSiteJobTimeout(t *testing.T) {
	const timeout = 4 * time.Second // room for the fast job's crawl on a busy machine
	slow := crawlSite(t, 50, 20*time.Second)
	fast := crawlSite(t, 2, 0)
	a := newTestAPI(t, &Options{AllowPrivate: true, Limits: map[store.Plan]int{store.Free: 10_000},
		JobWorkers: 1, JobTimeout: timeout, Admission: &AdmissionOptions{MaxSiteJobs: 1}})
	_, keyB := a.account("b@example.com", store.Free, auth.ScopeRead, auth.ScopeWrite)
	submit := func(key, site string) string {
		resp := a.call("POST", "/v1/analyze/site", key, fmt.Sprintf(`{"domain":%q}`, hostOf(t, site)))
		wantStatus(t, resp, 202)
		var j Job
		readJSON(t, resp, &j)
		return j.ID
	}
	held := submit(a.key, slow.URL)
	waitJob(t, a, a.key, held, func(j Job) bool { return j.Status == "running" })
	start := time.Now()
	next := submit(keyB, fast.URL)

	j := waitJob(t, a, a.key, held, func(j Job) bool { return j.Status != "running" })
	took := time.Since(start)
	if j.Status != "failed" || j.ErrorCode != "job_timeout" || j.FinishedAt.IsZero() ||
		j.Error != "the site analysis took longer than the job timeout; the report covers the 1 pages crawled before it" {
		t.Errorf("slow site's analysis: status %s, error %q (%s), finished %v; want failed for the job timeout", j.Status, j.Error, j.ErrorCode, j.FinishedAt)
	}
	// Its pages hang for 20 s: only the timeout ends it this soon.
	if took > timeout+10*time.Second {
		t.Errorf("slow site's analysis ended %v after it was seen running; the job timeout is %v", took, timeout)
	}
	// Its home page answered at once: the report of what it crawled is
	// kept, as a canceled analysis's is.
	var rep crawler.SiteReport
	if err := json.Unmarshal(j.Result, &rep); err != nil || rep.Crawl.Fetched != 1 || rep.Crawl.StopReason != crawler.StopTimeBudget {
		t.Errorf("a timed-out analysis's report: %v, %d pages, stop %q; want the home page's, stop %q (%.200s)",
			err, rep.Crawl.Fetched, rep.Crawl.StopReason, crawler.StopTimeBudget, j.Result)
	}
	n := waitJob(t, a, keyB, next, func(j Job) bool { return j.Status != "queued" && j.Status != "running" })
	if n.Status != "succeeded" {
		t.Errorf("the analysis queued behind it: status %s, error %q; want succeeded", n.Status, n.Error)
	}
	t.Logf("slow analysis failed %v after it was seen running; the next one %s", took.Round(time.Millisecond), n.Status)
}

func TestNegativeJobTimeoutRefused(t *testing.T) {
	_, err := New(context.Background(), &Options{JobTimeout: -time.Second})
	var ie *seo.InputError
	if !errors.As(err, &ie) || !errors.Is(err, seo.ErrInvalidInput) || ie.Field != "JobTimeout" {
		t.Fatalf("New with a negative JobTimeout: %v", err)
	}
}

func TestSiteJobResumesAfterRestart(t *testing.T) {
	ctx := context.Background()
	site := crawlSite(t, 3, 0)
	path := filepath.Join(t.TempDir(), "api.db")
	st, err := sqlstore.Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	a := newTestAPI(t, &Options{Store: st, AllowPrivate: true})
	req, _ := json.Marshal(SiteRequest{Domain: hostOf(t, site.URL)})
	b, j := restartWithRunningJob(t, a, st, path, req, Options{AllowPrivate: true})
	got := waitJob(t, b, a.key, j.ID, func(j Job) bool { return j.Status == "succeeded" || j.Status == "failed" })
	if got.Status != "succeeded" || got.Progress == nil || got.Progress.PagesDone != 3 {
		t.Errorf("resumed job %+v", got)
	}
}

// restartWithRunningJob stores req as a site job of a's account that the
// server left running, as after a crash, closes a's server and its store
// st (the SQLite file path), and returns a new server over the same file,
// with opts, and the job.
func restartWithRunningJob(t *testing.T, a *testAPI, st *sqlstore.Store, path string, req []byte, opts Options) (*testAPI, *store.Job) {
	t.Helper()
	ctx := context.Background()
	now := time.Now().UTC()
	j := &store.Job{ID: "job_" + randomID(24), AccountID: a.acct.ID, Kind: "site", Status: store.JobQueued, Request: req, CreatedAt: now, UpdatedAt: now}
	a.srv.Close() // no workers: the job stays put
	if err := st.CreateJob(ctx, j); err != nil {
		t.Fatal(err)
	}
	j.Status, j.StartedAt = store.JobRunning, now
	if err := st.UpdateJob(ctx, j); err != nil {
		t.Fatal(err)
	}
	st.Close()
	st2, err := sqlstore.Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st2.Close() })
	opts.Store = st2
	return newTestAPI(t, &opts, apiConfig{noAccount: true}), j
}

// receiver records callbacks; the first fail answers are 500s.
type receiver struct {
	mu     sync.Mutex
	bodies [][]byte
	sigs   []string
	fail   int
	calls  int
	got    chan struct{}
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.calls++
	if rc.calls <= rc.fail {
		http.Error(w, "try later", http.StatusInternalServerError)
		return
	}
	rc.bodies = append(rc.bodies, b)
	rc.sigs = append(rc.sigs, r.Header.Get(SignatureHeader))
	select {
	case rc.got <- struct{}{}:
	default:
	}
}

func TestCallback(t *testing.T) {
	site := crawlSite(t, 3, 0)
	rc := &receiver{fail: 1, got: make(chan struct{}, 1)}
	hook := httptest.NewServer(rc)
	t.Cleanup(hook.Close)
	a := newTestAPI(t, &Options{AllowPrivate: true, CallbackRetryDelays: []time.Duration{10 * time.Millisecond, 20 * time.Millisecond}})
	resp := a.call("POST", "/v1/analyze/site", a.key, fmt.Sprintf(`{"domain":%q,"callbackUrl":%q}`, hostOf(t, site.URL), hook.URL+"/hook"))
	wantStatus(t, resp, 202)
	var created Job
	readJSON(t, resp, &created)
	if !strings.HasPrefix(created.CallbackSecret, "whsec_") {
		t.Fatalf("callbackSecret %q", created.CallbackSecret)
	}
	select {
	case <-rc.got:
	case <-time.After(30 * time.Second):
		t.Fatal("no callback")
	}
	rc.mu.Lock()
	body, sig, calls := rc.bodies[0], rc.sigs[0], rc.calls
	rc.mu.Unlock()
	if calls != 2 {
		t.Errorf("%d attempts, want 2 (one 500, then success)", calls)
	}
	if err := VerifyCallback(created.CallbackSecret, sig, body, time.Minute); err != nil {
		t.Errorf("signature does not verify: %v", err)
	}
	if err := VerifyCallback("whsec_other", sig, body, time.Minute); err == nil {
		t.Error("signature verifies under another secret")
	}
	var ev CallbackEvent
	if err := json.Unmarshal(body, &ev); err != nil {
		t.Fatal(err)
	}
	if ev.ID != created.ID || ev.Status != "succeeded" || ev.Summary.Pages != 3 || ev.Summary.Score == nil {
		t.Errorf("event %+v", ev)
	}
	j := waitJob(t, a, a.key, created.ID, func(j Job) bool { return j.Callback != nil && j.Callback.State == "delivered" })
	if j.CallbackSecret != "" {
		t.Error("the secret is shown again")
	}
	t.Run("private callback refused without AllowPrivate", func(t *testing.T) {
		b := newTestAPI(t, nil)
		e := apiErr(t, b.call("POST", "/v1/analyze/site", b.key, fmt.Sprintf(`{"domain":"example.com","callbackUrl":%q}`, hook.URL)), 400, CodeInvalidRequest)
		if e.Field != "callbackUrl" {
			t.Errorf("field %q", e.Field)
		}
	})
}

func TestVerifyCallback(t *testing.T) {
	body := []byte(`{"id":"job_1"}`)
	now := time.Now()
	good := Sign("whsec_x", now, body)
	tests := []struct {
		name, secret, header string
		body                 []byte
		ok                   bool
	}{
		{"valid", "whsec_x", good, body, true},
		{"tampered body", "whsec_x", good, []byte(`{"id":"job_2"}`), false},
		{"wrong secret", "whsec_y", good, body, false},
		{"stale", "whsec_x", Sign("whsec_x", now.Add(-time.Hour), body), body, false},
		{"missing v1", "whsec_x", "t=" + fmt.Sprint(now.Unix()), body, false},
		{"garbage", "whsec_x", "nonsense", body, false},
		{"empty", "whsec_x", "", body, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := VerifyCallback(tc.secret, tc.header, tc.body, 5*time.Minute)
			if (err == nil) != tc.ok {
				t.Errorf("err %v, want ok=%v", err, tc.ok)
			}
		})
	}
}

// TestCancelQueuedJobCallback cancels a job still waiting for the only
// worker: its callback reports "canceled".
func TestCancelQueuedJobCallback(t *testing.T) {
	slow := crawlSite(t, 20, 20*time.Second)
	rc := &receiver{got: make(chan struct{}, 1)}
	hook := httptest.NewServer(rc)
	t.Cleanup(hook.Close)
	a := newTestAPI(t, &Options{AllowPrivate: true, JobWorkers: 1, Plans: map[store.Plan]plans.Limits{store.Free: {ConcurrentSiteJobs: 2}}})
	resp := a.call("POST", "/v1/analyze/site", a.key, fmt.Sprintf(`{"domain":%q}`, hostOf(t, slow.URL)))
	wantStatus(t, resp, 202)
	var first Job
	readJSON(t, resp, &first)
	waitJob(t, a, a.key, first.ID, func(j Job) bool { return j.Status == "running" })
	resp = a.call("POST", "/v1/analyze/site", a.key, fmt.Sprintf(`{"domain":"example.com","callbackUrl":%q}`, hook.URL))
	wantStatus(t, resp, 202)
	var queued Job
	readJSON(t, resp, &queued)
	resp = a.call("DELETE", "/v1/analyze/site/"+queued.ID, a.key, "")
	wantStatus(t, resp, 200)
	select {
	case <-rc.got:
	case <-time.After(20 * time.Second):
		t.Fatal("no callback for the canceled job")
	}
	rc.mu.Lock()
	body, sig := rc.bodies[0], rc.sigs[0]
	rc.mu.Unlock()
	var ev CallbackEvent
	if err := json.Unmarshal(body, &ev); err != nil {
		t.Fatal(err)
	}
	if ev.ID != queued.ID || ev.Status != "canceled" || VerifyCallback(queued.CallbackSecret, sig, body, time.Minute) != nil {
		t.Errorf("event %+v", ev)
	}
	j := waitJob(t, a, a.key, queued.ID, func(j Job) bool { return j.Callback != nil && j.Callback.State == "delivered" })
	if j.Status != "canceled" || j.StartedAt != (time.Time{}) {
		t.Errorf("queued job after cancel %+v", j)
	}
	wantStatus(t, a.call("DELETE", "/v1/analyze/site/"+first.ID, a.key, ""), 200)
}

// TestPendingCallbackResentAfterRestart stops a server while it is still
// retrying a callback: the state stays "pending" in the store and the next
// server over the store sends it when the retry is due (the outbox keeps
// the schedule across restarts).
func TestPendingCallbackResentAfterRestart(t *testing.T) {
	ctx := context.Background()
	site := crawlSite(t, 3, 0)
	rc := &receiver{fail: 1 << 30, got: make(chan struct{}, 1)}
	hook := httptest.NewServer(rc)
	t.Cleanup(hook.Close)
	path := filepath.Join(t.TempDir(), "api.db")
	st, err := sqlstore.Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	secret := []byte("callback master secret kept across restarts")
	// Waits between attempts: the server is closed during the first.
	a := newTestAPI(t, &Options{Store: st, AllowPrivate: true, CallbackSecret: secret, CallbackRetryDelays: []time.Duration{3 * time.Second, 3 * time.Second, 3 * time.Second}})
	resp := a.call("POST", "/v1/analyze/site", a.key, fmt.Sprintf(`{"domain":%q,"callbackUrl":%q}`, hostOf(t, site.URL), hook.URL+"/hook"))
	wantStatus(t, resp, 202)
	var created Job
	readJSON(t, resp, &created)
	waitJob(t, a, a.key, created.ID, func(j Job) bool { return j.Status == "succeeded" })
	deadline := time.Now().Add(10 * time.Second)
	for {
		rc.mu.Lock()
		calls := rc.calls
		rc.mu.Unlock()
		if calls >= 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no callback attempt")
		}
		time.Sleep(20 * time.Millisecond)
	}
	closed := make(chan error, 1)
	go func() { closed <- a.srv.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Minute):
		t.Fatal("Close waited for the callback's retries")
	}
	j, err := st.Job(ctx, a.acct.ID, created.ID)
	if err != nil {
		t.Fatal(err)
	}
	if j.CallbackState != "pending" {
		t.Fatalf("callback state %q after close, want pending", j.CallbackState)
	}
	st.Close()

	rc.mu.Lock()
	rc.fail = 0
	rc.mu.Unlock()
	st2, err := sqlstore.Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st2.Close() })
	b := newTestAPI(t, &Options{Store: st2, AllowPrivate: true, CallbackSecret: secret}, apiConfig{noAccount: true})
	select {
	case <-rc.got:
	case <-time.After(20 * time.Second):
		t.Fatal("the pending callback was not sent after the restart")
	}
	rc.mu.Lock()
	bodies, sig := len(rc.bodies), rc.sigs[0]
	body := rc.bodies[0]
	rc.mu.Unlock()
	var ev CallbackEvent
	if err := json.Unmarshal(body, &ev); err != nil {
		t.Fatal(err)
	}
	if bodies != 1 || ev.ID != created.ID || ev.Status != "succeeded" || ev.Summary.Pages != 3 {
		t.Errorf("%d callbacks, event %+v", bodies, ev)
	}
	if err := VerifyCallback(created.CallbackSecret, sig, body, time.Minute); err != nil {
		t.Errorf("resent callback does not verify with the job's secret: %v", err)
	}
	waitJob(t, b, a.key, created.ID, func(j Job) bool { return j.Callback != nil && j.Callback.State == "delivered" })
}
