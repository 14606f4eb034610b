package httpapi

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/httpapi/store/sqlstore"
)

// TestStoreUnavailable locks the SQLite file from another connection
// mid-load: requests get a 503 envelope, and once the lock is released
// they succeed with the counter and a job that ran meanwhile intact.
func TestStoreUnavailable(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "api.db")
	st, err := sqlstore.Open(ctx, path, &sqlstore.Options{BusyTimeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	site := crawlSite(t, 3, 300*time.Millisecond)
	a := newTestAPI(t, &Options{Store: st, AllowPrivate: true})
	for range 4 {
		wantStatus(t, a.call("GET", "/v1/analyze/site", a.key, ""), 200)
	}
	resp := a.call("POST", "/v1/analyze/site", a.key, fmt.Sprintf(`{"domain":%q}`, hostOf(t, site.URL)))
	wantStatus(t, resp, 202)
	var job Job
	readJSON(t, resp, &job)
	waitJob(t, a, a.key, job.ID, func(j Job) bool { return j.Status == "running" })

	other, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	conn, err := other.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// The running job writes its progress: the lock may have to wait.
	if err := retryUntil(loadDeadline, func() error {
		_, err := conn.ExecContext(ctx, "BEGIN EXCLUSIVE")
		return err
	}); err != nil {
		t.Fatalf("BEGIN EXCLUSIVE: %v", err)
	}
	locked := 0
	for range 5 {
		start := time.Now()
		resp := a.call("GET", "/v1/analyze/site", a.key, "")
		if resp.StatusCode == 503 {
			apiErr(t, resp, 503, CodeUnavailable)
			if resp.Header.Get("Retry-After") == "" {
				t.Error("503 without Retry-After")
			}
			locked++
		} else {
			wantStatus(t, resp, 503)
		}
		if d := time.Since(start); d > 30*time.Second { // busy_timeout is 200 ms; generous for a loaded machine
			t.Errorf("a request took %v while the store was locked", d)
		}
	}
	// Hold the lock past the job's end so its final update must be retried.
	time.Sleep(1500 * time.Millisecond)
	if _, err := conn.ExecContext(ctx, "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	resp = a.call("GET", "/v1/analyze/site", a.key, "")
	wantStatus(t, resp, 200)
	// 4 counted before, 1 for the POST, 1 per job poll, none while locked.
	if got, _ := strconv.Atoi(resp.Header.Get("X-RateLimit-Remaining")); got >= 100-5 || got < 0 {
		t.Errorf("Remaining %d after the outage", got)
	}
	if locked != 5 {
		t.Errorf("%d of 5 requests got 503 while locked", locked)
	}
	j := waitJob(t, a, a.key, job.ID, func(j Job) bool { return j.Status != string(store.JobRunning) })
	if j.Status != "succeeded" || j.Progress == nil || j.Progress.PagesDone != 3 {
		t.Errorf("job after the outage: %+v", j)
	}
}

// TestStoreUnavailableUnderLoad keeps 8 clients busy while the SQLite file
// is locked from another connection: every answer is a 200 or a 503
// envelope, the server serves again after the lock, and the stored counter
// equals the number of requests that were admitted. Each phase waits for
// what it needs to see (a 200 before the lock, a 503 under it, a 200 after
// it) up to a generous deadline, so a busy machine slows the test down
// without failing it.
func TestStoreUnavailableUnderLoad(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "api.db")
	st, err := sqlstore.Open(ctx, path, &sqlstore.Options{BusyTimeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	clk := &clock{t: time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)}
	a := newTestAPI(t, &Options{Store: st, Now: clk.Now, Limits: map[store.Plan]int{store.Free: 100_000}, BurstRate: 1e6, Burst: 1e6})

	load := startLoad(a, 8, 10_000)
	defer load.stop() // before any t.Fatal returns, the clients are stopped and joined
	if !load.await(func(c map[int]int) bool { return c[200] > 0 }) {
		t.Fatalf("no 200 before the lock: %v", load.stop())
	}

	other, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(1000)")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	conn, err := other.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// The clients write all the time: the exclusive lock may have to wait
	// for them, longer than busy_timeout on a loaded machine.
	if err := retryUntil(loadDeadline, func() error {
		_, err := conn.ExecContext(ctx, "BEGIN EXCLUSIVE")
		return err
	}); err != nil {
		t.Fatalf("BEGIN EXCLUSIVE: %v", err)
	}
	before := load.counts()
	locked := load.await(func(c map[int]int) bool { return c[503] > before[503] })
	if _, err := conn.ExecContext(ctx, "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	if !locked {
		t.Fatalf("no 503 while the store was locked: %v", load.stop())
	}
	released := load.counts()
	if !load.await(func(c map[int]int) bool { return c[200] > released[200] }) {
		t.Fatalf("no 200 after the lock was released: %v", load.stop())
	}
	counts := load.stop()

	if len(counts) != 2 || counts[200] == 0 || counts[503] == 0 {
		t.Fatalf("statuses %v, want only 200s and 503s, both seen", counts)
	}
	day := time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC)
	// Through the limiter, which leaves out the requests it holds
	// reserved and unspent.
	usage, err := a.srv.limiter.Usage(ctx, a.acct.ID, day, day)
	if err != nil {
		t.Fatal(err)
	}
	if len(usage) != 1 || usage[0].Count != counts[200] {
		t.Errorf("stored usage %+v, want %d admitted requests", usage, counts[200])
	}
	wantStatus(t, a.call("GET", "/v1/analyze/site", a.key, ""), 200)
}

// loadDeadline bounds each phase of a load test: far longer than any phase
// takes even on a loaded machine.
const loadDeadline = 60 * time.Second

// retryUntil calls f until it succeeds or d has passed, and returns its
// last error.
func retryUntil(d time.Duration, f func() error) error {
	end := time.Now().Add(d)
	for {
		err := f()
		if err == nil || time.Now().After(end) {
			return err
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// load is a set of clients calling GET /v1/analyze/site until stopped,
// counting the statuses. The clients never touch the test's *testing.T:
// problems are collected and reported by stop, on the test's goroutine.
type load struct {
	t        *testing.T
	stopCh   chan struct{}
	wg       sync.WaitGroup
	once     sync.Once
	mu       sync.Mutex
	statuses map[int]int
	problems []string
}

// startLoad starts n clients of at most perClient requests each.
func startLoad(a *testAPI, n, perClient int) *load {
	l := &load{t: a.t, stopCh: make(chan struct{}), statuses: map[int]int{}}
	for range n {
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			for range perClient {
				select {
				case <-l.stopCh:
					return
				default:
				}
				req, err := http.NewRequest("GET", "/v1/analyze/site", nil)
				if err != nil {
					l.problem(err.Error())
					return
				}
				req.Header.Set("X-API-Key", a.key)
				resp, err := a.send(req)
				if err != nil {
					l.problem(err.Error())
					return
				}
				if resp.StatusCode == 503 {
					var env envelope
					if err := json.NewDecoder(resp.Body).Decode(&env); err != nil || env.Error == nil || env.Error.Code != CodeUnavailable || resp.Header.Get("Retry-After") == "" {
						l.problem(fmt.Sprintf("503 without the envelope: %v %+v", err, env.Error))
					}
				}
				resp.Body.Close()
				l.mu.Lock()
				l.statuses[resp.StatusCode]++
				l.mu.Unlock()
			}
		}()
	}
	return l
}

func (l *load) problem(s string) {
	l.mu.Lock()
	if len(l.problems) < 10 {
		l.problems = append(l.problems, s)
	}
	l.mu.Unlock()
}

// counts returns a copy of the statuses counted so far.
func (l *load) counts() map[int]int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return maps.Clone(l.statuses)
}

// await polls the counts until ok holds, loadDeadline passes or every
// client has ended, and reports whether ok held.
func (l *load) await(ok func(map[int]int) bool) bool {
	done := make(chan struct{})
	go func() { l.wg.Wait(); close(done) }()
	end := time.Now().Add(loadDeadline)
	for time.Now().Before(end) {
		if ok(l.counts()) {
			return true
		}
		select {
		case <-done:
			return ok(l.counts())
		case <-time.After(5 * time.Millisecond):
		}
	}
	return ok(l.counts())
}

// stop ends the clients, waits for them, reports their problems as test
// errors (once) and returns the final counts.
func (l *load) stop() map[int]int {
	l.once.Do(func() {
		close(l.stopCh)
		l.wg.Wait()
		for _, p := range l.problems {
			l.t.Errorf("load client: %s", p)
		}
	})
	return l.counts()
}
