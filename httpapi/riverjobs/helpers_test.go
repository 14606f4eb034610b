package riverjobs_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/httpapi"
	"github.com/seokit/seokit/httpapi/auth"
	"github.com/seokit/seokit/httpapi/riverjobs"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/httpapi/store/sqlstore"
	"github.com/seokit/seokit/internal/pgtest"
)

// migrated is a PostgreSQL database with the API store's schema and
// River's tables, copied for each test that does not test the migrations.
var migrated = pgtest.NewTemplate("riverjobs", func(ctx context.Context, dsn string) error {
	st, err := sqlstore.Open(ctx, dsn, nil)
	if err != nil {
		return err
	}
	if err := st.Close(); err != nil {
		return err
	}
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		return err
	}
	defer pool.Close()
	return riverjobs.Migrate(ctx, pool)
})

// instance is one API server with a River queue over the shared database.
type instance struct {
	t     testing.TB
	srv   *httpapi.Server
	queue *riverjobs.Queue
	st    *sqlstore.Store
	pool  *pgxpool.Pool
	url   string // base URL of its HTTP listener
	stop  func()
}

// crawlerOptions make the test crawls slow enough to watch: two requests
// at a time.
func crawlerOptions() *crawler.Options {
	return &crawler.Options{PerHostConcurrency: 2, Concurrency: 2}
}

// openInstance starts an httpapi.Server with a riverjobs.Queue (opts) over
// the PostgreSQL database dsn. It does not register cleanups, so the child
// process of the kill test can use it too.
func openInstance(ctx context.Context, dsn string, opts *riverjobs.Options, logger *slog.Logger, srvOpts *httpapi.Options) (*instance, error) {
	return openWrapped(ctx, dsn, opts, logger, srvOpts, nil)
}

// openWrapped is openInstance with the server's store wrapped by wrap
// (nil: the store itself).
func openWrapped(ctx context.Context, dsn string, opts *riverjobs.Options, logger *slog.Logger, srvOpts *httpapi.Options, wrap func(store.Store) store.Store) (*instance, error) {
	st, err := sqlstore.Open(ctx, dsn, nil)
	if err != nil {
		return nil, err
	}
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		st.Close()
		return nil, err
	}
	o := *opts
	o.Logger = logger
	q, err := riverjobs.New(ctx, pool, &o)
	if err != nil {
		pool.Close()
		st.Close()
		return nil, err
	}
	var so httpapi.Options
	if srvOpts != nil {
		so = *srvOpts
	}
	so.Store, so.Queue, so.AllowPrivate, so.Logger = st, q, true, logger
	if wrap != nil {
		so.Store = wrap(st)
	}
	if so.CrawlerOptions == nil {
		so.CrawlerOptions = crawlerOptions()
	}
	so.Limits = map[store.Plan]int{store.Free: 1_000_000}
	if so.CallbackRetryDelays == nil {
		so.CallbackRetryDelays = []time.Duration{50 * time.Millisecond}
	}
	so.CallbackSecret = []byte("shared callback secret of the test instances")
	srv, err := httpapi.New(ctx, &so)
	if err != nil {
		pool.Close()
		st.Close()
		return nil, err
	}
	if err := srv.Start(ctx); err != nil {
		srv.Close()
		pool.Close()
		st.Close()
		return nil, err
	}
	ts := httptest.NewServer(srv)
	in := &instance{srv: srv, queue: q, st: st, pool: pool, url: ts.URL}
	in.stop = func() {
		ts.Close()
		srv.Close()
		pool.Close()
		st.Close()
	}
	return in, nil
}

// startInstance is openInstance for a test, stopped at cleanup.
func startInstance(t testing.TB, dsn string, opts *riverjobs.Options, srvOpts ...*httpapi.Options) *instance {
	t.Helper()
	var so *httpapi.Options
	if len(srvOpts) > 0 {
		so = srvOpts[0]
	}
	in, err := openInstance(context.Background(), dsn, opts, testLogger(t), so)
	if err != nil {
		t.Fatal(err)
	}
	in.t = t
	t.Cleanup(in.stop)
	return in
}

// testLogger logs warnings and errors through t.
func testLogger(t testing.TB) *slog.Logger {
	return slog.New(slog.NewTextHandler(tWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

type tWriter struct{ t testing.TB }

func (w tWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// newAccount creates an account with a read-write key in the shared store.
func newAccount(t testing.TB, st store.Store, email string) string {
	t.Helper()
	ctx := context.Background()
	a, err := auth.New(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	acct, err := a.CreateAccount(ctx, email, email, "", store.Free)
	if err != nil {
		t.Fatal(err)
	}
	key, _, err := a.CreateAPIKey(ctx, acct.ID, "test", []string{auth.ScopeRead, auth.ScopeWrite}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	return key
}

// slowSite serves pages /, /p1 ... /p{n-1}, each linking to every other
// and each taking delay; hits counts the page requests.
type slowSite struct {
	*httptest.Server
	hits atomic.Int64
}

func newSlowSite(t testing.TB, n int, delay time.Duration) *slowSite {
	t.Helper()
	s := &slowSite{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" || r.URL.Path == "/sitemap.xml" {
			http.NotFound(w, r)
			return
		}
		s.hits.Add(1)
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, "<!doctype html><html lang=en><head><title>Page %s of the slow test site</title></head><body><h1>Page</h1>", r.URL.Path)
		for i := 1; i < n; i++ {
			fmt.Fprintf(w, `<a href="/p%d">page %d</a> `, i, i)
		}
		io.WriteString(w, "</body></html>")
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *slowSite) domain(t testing.TB) string {
	u, err := url.Parse(s.URL)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}

// call makes an API request to base and decodes a JSON answer into out.
func call(t testing.TB, method, base, path, key, body string, out any) int {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, base+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-API-Key", key)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if out != nil && resp.StatusCode < 300 {
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s %s: %v: %s", method, path, err, b)
		}
	}
	return resp.StatusCode
}

// submit starts a site analysis on base and returns the job.
func submit(t testing.TB, base, key, body string) httpapi.Job {
	t.Helper()
	var j httpapi.Job
	if code := call(t, "POST", base, "/v1/analyze/site", key, body, &j); code != http.StatusAccepted {
		t.Fatalf("POST /v1/analyze/site answered %d", code)
	}
	return j
}

// waitJob polls GET /v1/analyze/site/{id} on base until cond holds or
// timeout passes.
func waitJob(t testing.TB, base, key, id string, timeout time.Duration, cond func(httpapi.Job) bool) httpapi.Job {
	t.Helper()
	return waitJobPoll(t, base, key, id, timeout, 100*time.Millisecond, cond)
}

// waitJobEvery is waitJob polling every interval, for up to 30 s.
func waitJobEvery(t testing.TB, base, key, id string, interval time.Duration, cond func(httpapi.Job) bool) httpapi.Job {
	t.Helper()
	return waitJobPoll(t, base, key, id, 30*time.Second, interval, cond)
}

func waitJobPoll(t testing.TB, base, key, id string, timeout, interval time.Duration, cond func(httpapi.Job) bool) httpapi.Job {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		var j httpapi.Job
		if code := call(t, "GET", base, "/v1/analyze/site/"+id, key, "", &j); code != http.StatusOK {
			t.Fatalf("GET job answered %d", code)
		}
		if cond(j) {
			return j
		}
		if time.Now().After(deadline) {
			t.Fatalf("job never reached the condition within %v: status %s progress %+v", timeout, j.Status, j.Progress)
		}
		time.Sleep(interval)
	}
}

// riverJob is a site analysis's row in river_job.
type riverJob struct {
	state       string
	attempt     int
	attemptedBy []string
}

func riverJobOf(t testing.TB, pool *pgxpool.Pool, jobID string) riverJob {
	t.Helper()
	var r riverJob
	err := pool.QueryRow(context.Background(), `SELECT state::text, attempt, coalesce(attempted_by, '{}') FROM river_job
		WHERE kind = $1 AND args->>'job_id' = $2 ORDER BY id DESC LIMIT 1`, riverjobs.KindSiteAnalysis, jobID).Scan(&r.state, &r.attempt, &r.attemptedBy)
	if err != nil {
		t.Fatalf("river_job of %s: %v", jobID, err)
	}
	return r
}

// waitRiverState polls the job's river_job row for up to 5 s until it is
// in state (River records an outcome shortly after the work returns).
func waitRiverState(t testing.TB, pool *pgxpool.Pool, jobID, state string) riverJob {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		r := riverJobOf(t, pool, jobID)
		if r.state == state || time.Now().After(deadline) {
			return r
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// pagesOf returns the crawl's fetched count and page summaries of a
// succeeded job's result.
func pagesOf(t testing.TB, j httpapi.Job) (fetched, pages int) {
	t.Helper()
	var rep struct {
		Crawl struct {
			Fetched int `json:"fetched"`
		} `json:"crawl"`
		Pages []json.RawMessage `json:"pages"`
	}
	if err := json.Unmarshal(j.Result, &rep); err != nil {
		t.Fatalf("result of %s: %v", j.ID, err)
	}
	return rep.Crawl.Fetched, len(rep.Pages)
}

// hook records callbacks; while failing is set it answers 500.
type hook struct {
	mu       sync.Mutex
	failing  bool
	attempts int
	events   []httpapi.CallbackEvent
}

func (h *hook) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var ev httpapi.CallbackEvent
	if err := json.NewDecoder(r.Body).Decode(&ev); err != nil {
		http.Error(w, "bad body", http.StatusBadRequest)
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.attempts++
	if h.failing {
		http.Error(w, "try later", http.StatusInternalServerError)
		return
	}
	h.events = append(h.events, ev)
}

func (h *hook) setFailing(f bool) {
	h.mu.Lock()
	h.failing = f
	h.mu.Unlock()
}

func (h *hook) attemptCount() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.attempts
}

func (h *hook) got() []httpapi.CallbackEvent {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]httpapi.CallbackEvent(nil), h.events...)
}
