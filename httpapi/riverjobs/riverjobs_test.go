package riverjobs_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/httpapi"
	"github.com/seokit/seokit/httpapi/riverjobs"
	"github.com/seokit/seokit/internal/pgtest"
	"github.com/seokit/seokit/rankings"
	"github.com/seokit/seokit/rankings/memstore"
	"github.com/seokit/seokit/seo"
)

// TestJobRunsOnAnotherInstance submits a site analysis to an API-only
// instance: a worker instance runs it, and both show its progress and
// result from the shared store.
func TestJobRunsOnAnotherInstance(t *testing.T) {
	t.Parallel() // a database of its own; it waits on events and deadlines, not on time
	dsn := migrated.DSN(t)
	api := startInstance(t, dsn, &riverjobs.Options{InsertOnly: true, ID: "api"})
	worker := startInstance(t, dsn, &riverjobs.Options{ID: "worker"})
	key := newAccount(t, api.st, "a@example.com")
	site := newSlowSite(t, 20, 100*time.Millisecond)

	created := submit(t, api.url, key, fmt.Sprintf(`{"domain":%q,"options":{"maxPages":50}}`, site.domain(t)))
	running := waitJob(t, api.url, key, created.ID, 30*time.Second, func(j httpapi.Job) bool {
		return j.Status == "running" && j.Progress != nil && j.Progress.PagesDone >= 1
	})
	// The worker instance shows the same progress from the shared store.
	waitJob(t, worker.url, key, created.ID, 10*time.Second, func(j httpapi.Job) bool {
		return j.Progress != nil && j.Progress.PagesDone >= running.Progress.PagesDone
	})
	done := waitJob(t, api.url, key, created.ID, 60*time.Second, func(j httpapi.Job) bool { return j.Status != "queued" && j.Status != "running" })
	if done.Status != "succeeded" {
		t.Fatalf("job ended %s: %s", done.Status, done.Error)
	}
	if fetched, pages := pagesOf(t, done); fetched != 20 || pages != 20 {
		t.Errorf("result has %d fetched, %d pages; want the site's 20", fetched, pages)
	}
	rj := waitRiverState(t, worker.pool, created.ID, "completed")
	if rj.state != "completed" || rj.attempt != 1 || !slices.Equal(rj.attemptedBy, []string{"worker"}) {
		t.Errorf("river job %+v, want completed once by the worker instance", rj)
	}
	// The same job again is not inserted twice while it waits or runs, and
	// a finished job enqueued again only looks at its callback.
	j, err := worker.st.Job(context.Background(), accountOf(t, worker, key), done.ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := api.queue.Enqueue(context.Background(), j); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Second)
	after := waitJob(t, api.url, key, created.ID, time.Second, func(httpapi.Job) bool { return true })
	if after.Status != "succeeded" || !after.StartedAt.Equal(done.StartedAt) {
		t.Errorf("re-enqueued finished job changed: %+v", after)
	}
}

// accountOf returns the account ID of a key.
func accountOf(t *testing.T, in *instance, key string) string {
	t.Helper()
	var l httpapi.JobList
	if code := call(t, "GET", in.url, "/v1/analyze/site", key, "", &l); code != 200 || len(l.Jobs) == 0 {
		t.Fatalf("list answered %d", code)
	}
	var acct string
	err := in.pool.QueryRow(context.Background(), `SELECT account_id FROM jobs WHERE id = $1`, l.Jobs[0].ID).Scan(&acct)
	if err != nil {
		t.Fatal(err)
	}
	return acct
}

// TestCancelStopsWorkerOnAnotherInstance cancels on the API instance a job
// running on the worker instance: the worker stops crawling within about
// a second and delivers one "canceled" callback.
func TestCancelStopsWorkerOnAnotherInstance(t *testing.T) {
	dsn := migrated.DSN(t)
	api := startInstance(t, dsn, &riverjobs.Options{InsertOnly: true, ID: "api"})
	worker := startInstance(t, dsn, &riverjobs.Options{ID: "worker"})
	key := newAccount(t, api.st, "a@example.com")
	site := newSlowSite(t, 200, 300*time.Millisecond)
	h := &hook{}
	hs := httptest.NewServer(h)
	t.Cleanup(hs.Close)

	created := submit(t, api.url, key, fmt.Sprintf(`{"domain":%q,"callbackUrl":%q}`, site.domain(t), hs.URL))
	waitJob(t, api.url, key, created.ID, 30*time.Second, func(j httpapi.Job) bool {
		return j.Status == "running" && j.Progress != nil && j.Progress.PagesDone >= 2
	})
	var canceled httpapi.Job
	if code := call(t, "DELETE", api.url, "/v1/analyze/site/"+created.ID, key, "", &canceled); code != 200 || canceled.Status != "canceled" {
		t.Fatalf("DELETE answered %d %+v", code, canceled)
	}
	at := time.Now()
	// The worker's River job ends once its crawl has stopped.
	deadline := at.Add(5 * time.Second)
	for riverJobOf(t, worker.pool, created.ID).state != "completed" {
		if time.Now().After(deadline) {
			t.Fatalf("the worker still runs the job 5 s after the cancel: %+v", riverJobOf(t, worker.pool, created.ID))
		}
		time.Sleep(50 * time.Millisecond)
	}
	stopped := time.Since(at)
	hits := site.hits.Load()
	time.Sleep(time.Second)
	if more := site.hits.Load() - hits; more != 0 {
		t.Errorf("%d more page requests after the worker stopped", more)
	}
	if stopped > 3*time.Second {
		t.Errorf("worker stopped %v after the cancel, want about a second", stopped)
	}
	t.Logf("worker on the other instance stopped %v after the cancel", stopped.Round(time.Millisecond))
	j := waitJob(t, worker.url, key, created.ID, 10*time.Second, func(j httpapi.Job) bool {
		return j.Callback != nil && j.Callback.State == "delivered"
	})
	if j.Status != "canceled" {
		t.Errorf("job %s after cancel", j.Status)
	}
	if evs := h.got(); len(evs) != 1 || evs[0].ID != created.ID || evs[0].Status != "canceled" {
		t.Errorf("callbacks %+v, want one canceled", evs)
	}
}

const helperEnv = "SEOKIT_RIVERJOBS_HELPER_DSN"

// TestHelperInstance is the child process of
// TestKilledInstanceJobCompletesElsewhere: an API instance with a River
// queue that prints its address and serves until it is killed.
func TestHelperInstance(t *testing.T) {
	dsn := os.Getenv(helperEnv)
	if dsn == "" {
		t.Skip("helper process of TestKilledInstanceJobCompletesElsewhere; runs only as its child")
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	in, err := openInstance(context.Background(), dsn, killTestOptions("child"), logger, nil)
	if err != nil {
		fmt.Println("ERROR", err)
		os.Exit(1)
	}
	fmt.Println("ADDR", in.url)
	select {} // until SIGKILL
}

// killTestOptions keep the kill test short: a job whose worker vanished is
// rescued 10 s after its run started (the crawl takes about 4 s). The
// killed child was River's leader: the second instance takes over when
// the leadership expires (10 to 15 s), and its rescuer's first pass then
// finds the job old enough.
func killTestOptions(id string) *riverjobs.Options {
	return &riverjobs.Options{ID: id, JobTimeout: 10 * time.Second, RescueStuckJobsAfter: 10 * time.Second}
}

// TestKilledInstanceJobCompletesElsewhere submits a site analysis to a
// child instance, kills it with SIGKILL while the crawl runs, and checks
// that a second instance runs the job again and completes it.
func TestKilledInstanceJobCompletesElsewhere(t *testing.T) {
	if testing.Short() {
		t.Skip("takes about 45 s")
	}
	start := time.Now()
	dsn := migrated.DSN(t)
	site := newSlowSite(t, 80, 100*time.Millisecond)

	// The account, through a store of the shared database.
	setup := startInstance(t, dsn, &riverjobs.Options{InsertOnly: true, ID: "setup"})
	key := newAccount(t, setup.st, "a@example.com")

	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperInstance$")
	cmd.Env = append(os.Environ(), helperEnv+"="+dsn)
	var stderr strings.Builder
	cmd.Stderr = &syncWriter{w: &stderr}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	killed := false
	t.Cleanup(func() {
		if !killed {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if a, ok := strings.CutPrefix(sc.Text(), "ADDR "); ok {
				select {
				case addr <- a:
				default: // only the first address is read
				}
			}
		}
		close(addr)
	}()
	var child string
	select {
	case child = <-addr:
	case <-time.After(time.Minute): // a loaded machine starts processes slowly
	}
	if child == "" {
		t.Fatalf("the child instance did not start; stderr:\n%s", stderr.String())
	}

	created := submit(t, child, key, fmt.Sprintf(`{"domain":%q,"options":{"maxPages":100}}`, site.domain(t)))
	running := waitJob(t, child, key, created.ID, 20*time.Second, func(j httpapi.Job) bool {
		return j.Status == "running" && j.Progress != nil && j.Progress.PagesDone >= 5
	})
	if running.Progress.PagesDone >= 80 {
		t.Fatalf("the crawl ended before the kill: %+v", running.Progress)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	killed = true
	killedAt := time.Now()
	t.Logf("child killed %v after start, at %d pages", killedAt.Sub(start).Round(time.Millisecond), running.Progress.PagesDone)
	if rj := riverJobOf(t, setup.pool, created.ID); rj.state != "running" || !slices.Equal(rj.attemptedBy, []string{"child"}) {
		t.Fatalf("river job after the kill %+v, want running on the child", rj)
	}

	// The rescued run has the same 10 s job timeout: it crawls with more
	// connections than the child's two and no rate limit, so that a busy
	// machine finishes the site's remaining pages well within it.
	second := startInstance(t, dsn, killTestOptions("second"), &httpapi.Options{CrawlerOptions: &crawler.Options{PerHostConcurrency: 8, Concurrency: 8, PerHostRate: -1}})
	done := waitJob(t, second.url, key, created.ID, 50*time.Second, func(j httpapi.Job) bool {
		return j.Status != "queued" && j.Status != "running"
	})
	t.Logf("job %s on the second instance %v after the kill, %v after the test started",
		done.Status, time.Since(killedAt).Round(time.Millisecond), time.Since(start).Round(time.Millisecond))
	if done.Status != "succeeded" {
		t.Fatalf("job ended %s: %s", done.Status, done.Error)
	}
	if fetched, pages := pagesOf(t, done); fetched != 80 || pages != 80 {
		t.Errorf("result has %d fetched, %d pages; want the site's 80", fetched, pages)
	}
	// The second run (river's second attempt, checked below) reports all
	// 80 pages; the job keeps the time it first started.
	if done.Progress == nil || done.Progress.PagesDone != 80 || !done.StartedAt.Equal(running.StartedAt) {
		t.Errorf("progress %+v, started %v (first run %v): want all 80 pages and the first run's start", done.Progress, done.StartedAt, running.StartedAt)
	}
	rj := waitRiverState(t, second.pool, created.ID, "completed")
	if rj.state != "completed" || rj.attempt != 2 || !slices.Equal(rj.attemptedBy, []string{"child", "second"}) {
		t.Errorf("river job %+v, want completed on the second attempt, by the second instance", rj)
	}
}

type syncWriter struct {
	mu sync.Mutex
	w  *strings.Builder
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// TestMigrateConcurrently runs River's migrations from eight instances at
// once on an empty database: the advisory lock makes every one succeed
// and each migration is recorded once.
func TestMigrateConcurrently(t *testing.T) {
	t.Parallel() // a database of its own; it waits on events and deadlines, not on time
	dsn := pgtest.DSN(t)
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Go(func() { errs[i] = riverjobs.Migrate(ctx, pool) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatalf("concurrent migrations: %v", err)
	}
	var n, distinct int
	if err := pool.QueryRow(ctx, `SELECT count(*), count(DISTINCT version) FROM river_migration`).Scan(&n, &distinct); err != nil {
		t.Fatal(err)
	}
	if n == 0 || n != distinct {
		t.Errorf("river_migration has %d rows for %d versions", n, distinct)
	}
	if err := riverjobs.Migrate(ctx, pool); err != nil {
		t.Errorf("migrating an up-to-date database: %v", err)
	}
}

// countingSource is a rankings.Source that counts searches per keyword;
// the domain is never in its (empty) results.
type countingSource struct {
	mu    sync.Mutex
	calls map[string]int
}

func (s *countingSource) Name() string { return "counting" }

func (s *countingSource) Search(_ context.Context, q rankings.Query) (*rankings.SERP, error) {
	s.mu.Lock()
	s.calls[q.Keyword]++
	s.mu.Unlock()
	return &rankings.SERP{Query: q, Depth: 10, Source: "counting", CheckedAt: time.Now()}, nil
}

// TestRankRecheckRunsOnce runs two worker instances with the same
// tracker schedule: each period's pass runs on one of them, and each due
// keyword is checked once.
func TestRankRecheckRunsOnce(t *testing.T) {
	dsn := migrated.DSN(t)
	ctx := context.Background()
	st := memstore.New(nil)
	today := time.Now().UTC()
	var tracked []rankings.Tracked
	for _, kw := range []string{"seo audit", "site crawler", "rank tracker"} {
		tracked = append(tracked, rankings.Tracked{Domain: "example.com", Keyword: kw, Locale: seo.Locale{Language: "en", Region: "US"}, Device: rankings.Desktop, AddedAt: today})
	}
	if err := st.Track(ctx, tracked); err != nil {
		t.Fatal(err)
	}
	src := &countingSource{calls: map[string]int{}}
	tr := rankings.NewTracker(src, st, nil)
	const period = time.Second
	var ins []*instance
	for _, id := range []string{"one", "two"} {
		ins = append(ins, startInstance(t, dsn, &riverjobs.Options{ID: id}, &httpapi.Options{Tracker: tr, RankRecheckInterval: period, ScheduleInterval: -1}))
	}
	// The passes, as River recorded them: run (attempted), and failed.
	passes := func() (ran, failed int) {
		t.Helper()
		err := ins[0].pool.QueryRow(ctx, `SELECT count(*) FILTER (WHERE attempt >= 1), count(*) FILTER (WHERE state = 'discarded') FROM river_job WHERE kind = $1 AND args->>'name' = $2`,
			riverjobs.KindPeriodic, httpapi.PeriodicRankRecheck).Scan(&ran, &failed)
		if err != nil {
			t.Fatal(err)
		}
		return ran, failed
	}
	deadline := time.Now().Add(30 * time.Second)
	for ran, _ := passes(); ran == 0; ran, _ = passes() {
		if time.Now().After(deadline) {
			t.Fatal("no re-check pass in 30 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	first := time.Now()
	time.Sleep(4 * period)
	n, failed := passes()
	window := time.Since(first)
	if failed > 0 {
		t.Errorf("%d re-check passes failed", failed)
	}
	// One pass per period across both instances (plus the first), not
	// one per instance.
	if max := int(window/period) + 2; n > max {
		t.Errorf("%d passes in %v with a %v period: more than one instance schedules them", n, window.Round(time.Millisecond), period)
	}
	src.mu.Lock()
	defer src.mu.Unlock()
	for _, tr := range tracked {
		if c := src.calls[tr.Keyword]; c != 1 {
			t.Errorf("%q searched %d times, want once", tr.Keyword, c)
		}
	}
	t.Logf("%d passes in %v, searches %v", n, window.Round(time.Millisecond), src.calls)
}

// TestNewRejectsBadOptions needs no database: options are checked before
// it is used.
func TestNewRejectsBadOptions(t *testing.T) {
	t.Parallel() // a database of its own; it waits on events and deadlines, not on time
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, "postgres://nobody@127.0.0.1:1/none?sslmode=disable&connect_timeout=1")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	tests := []struct {
		name  string
		pool  *pgxpool.Pool
		opts  *riverjobs.Options
		field string
	}{
		{"nil pool", nil, nil, "pool"},
		{"negative workers", pool, &riverjobs.Options{Workers: -1}, "workers"},
		{"negative timeout", pool, &riverjobs.Options{JobTimeout: -time.Second}, "options"},
		{"rescue before timeout", pool, &riverjobs.Options{JobTimeout: time.Hour, RescueStuckJobsAfter: time.Minute}, "rescueStuckJobsAfter"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := riverjobs.New(ctx, tc.pool, tc.opts)
			ie, ok := seo.AsInputError(err)
			if !ok || ie.Field != tc.field || !errors.Is(err, seo.ErrInvalidInput) {
				t.Errorf("err %v, want an InputError for %q", err, tc.field)
			}
		})
	}
	t.Run("unreachable database", func(t *testing.T) {
		_, err := riverjobs.New(ctx, pool, nil)
		if !errors.Is(err, seo.ErrUnavailable) {
			t.Errorf("err %v, want ErrUnavailable", err)
		}
	})
}

var _ http.Handler = (*hook)(nil)

// TestPendingCallbackSentByAnotherInstance stops an instance while it
// waits to retry a callback: the job's River job completed when the job
// ended (the callback is in the store's outbox, not in the job), and
// another instance sends the callback when the retry is due.
func TestPendingCallbackSentByAnotherInstance(t *testing.T) {
	t.Parallel() // a database of its own; it waits on events and deadlines, not on time
	dsn := migrated.DSN(t)
	h := &hook{failing: true}
	hs := httptest.NewServer(h)
	t.Cleanup(hs.Close)
	site := newSlowSite(t, 3, 10*time.Millisecond)
	first := startInstance(t, dsn, &riverjobs.Options{ID: "first"}, &httpapi.Options{CallbackRetryDelays: []time.Duration{3 * time.Second, 3 * time.Second, 3 * time.Second}})
	key := newAccount(t, first.st, "a@example.com")
	created := submit(t, first.url, key, fmt.Sprintf(`{"domain":%q,"callbackUrl":%q}`, site.domain(t), hs.URL))
	waitJob(t, first.url, key, created.ID, 30*time.Second, func(j httpapi.Job) bool { return j.Status == "succeeded" })
	deadline := time.Now().Add(10 * time.Second)
	for h.attemptCount() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no callback attempt")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if rj := waitRiverState(t, first.pool, created.ID, "completed"); !slices.Equal(rj.attemptedBy, []string{"first"}) {
		t.Errorf("river job %+v, want completed by the first instance while its callback is retried", rj)
	}
	first.stop()

	h.setFailing(false)
	second := startInstance(t, dsn, &riverjobs.Options{ID: "second"})
	j := waitJob(t, second.url, key, created.ID, 20*time.Second, func(j httpapi.Job) bool {
		return j.Callback != nil && j.Callback.State == "delivered"
	})
	if evs := h.got(); len(evs) != 1 || evs[0].ID != created.ID || evs[0].Status != "succeeded" || evs[0].Summary.Pages != 3 {
		t.Errorf("callbacks %+v, want one for the succeeded job", evs)
	}
	if j.Status != "succeeded" {
		t.Errorf("job %s", j.Status)
	}
}

func dsnPool(t *testing.T, dsn string) *pgxpool.Pool {
	t.Helper()
	p, err := pgxpool.New(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}
