package httpapi

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
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
	if _, err := conn.ExecContext(ctx, "BEGIN EXCLUSIVE"); err != nil {
		t.Fatal(err)
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
		if d := time.Since(start); d > 5*time.Second {
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
// is locked for a while: every answer is a 200 or a 503 envelope, the
// server serves again after the lock, and the stored counter equals the
// number of requests that were admitted.
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

	var (
		mu       sync.Mutex
		counts   = map[int]int{}
		stopLoad = make(chan struct{})
		wg       sync.WaitGroup
	)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stopLoad:
					return
				default:
				}
				resp := a.call("GET", "/v1/analyze/site", a.key, "")
				if resp.StatusCode == 503 {
					var env envelope
					if err := json.NewDecoder(resp.Body).Decode(&env); err != nil || env.Error == nil || env.Error.Code != CodeUnavailable || resp.Header.Get("Retry-After") == "" {
						t.Errorf("503 without the envelope: %v %+v", err, env.Error)
					}
				}
				mu.Lock()
				counts[resp.StatusCode]++
				mu.Unlock()
			}
		}()
	}
	time.Sleep(300 * time.Millisecond)
	other, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	conn, err := other.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, "BEGIN EXCLUSIVE"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second)
	if _, err := conn.ExecContext(ctx, "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	conn.Close()
	time.Sleep(300 * time.Millisecond)
	close(stopLoad)
	wg.Wait()

	mu.Lock()
	defer mu.Unlock()
	if len(counts) != 2 || counts[200] == 0 || counts[503] == 0 {
		t.Fatalf("statuses %v, want only 200s and 503s, both seen", counts)
	}
	day := time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC)
	usage, err := st.Usage(ctx, a.acct.ID, day, day)
	if err != nil {
		t.Fatal(err)
	}
	if len(usage) != 1 || usage[0].Count != counts[200] {
		t.Errorf("stored usage %+v, want %d admitted requests", usage, counts[200])
	}
	wantStatus(t, a.call("GET", "/v1/analyze/site", a.key, ""), 200)
}
