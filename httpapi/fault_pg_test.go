package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/httpapi/store/sqlstore"
	"github.com/seokit/seokit/internal/pgtest"
)

// pgFaultTimeout bounds every request of the PostgreSQL fault test: a
// request taking longer counts as a hang.
const pgFaultTimeout = 10 * time.Second

// faultCall is one request of the fault test with what came back.
type faultCall struct {
	status  int
	code    string // error envelope code, for errors
	retry   string // Retry-After
	elapsed time.Duration
	err     error // transport error or timeout
}

// faultGet sends GET path with the key on a client bounded by
// pgFaultTimeout and decodes the error envelope of non-2xx answers.
func faultGet(c *http.Client, a *testAPI, path string) faultCall {
	req, err := http.NewRequest("GET", a.ts.URL+path, nil)
	if err != nil {
		return faultCall{err: err}
	}
	req.Header.Set("X-API-Key", a.key)
	start := time.Now()
	resp, err := c.Do(req)
	if err != nil {
		return faultCall{err: err, elapsed: time.Since(start)}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	fc := faultCall{status: resp.StatusCode, retry: resp.Header.Get("Retry-After"), elapsed: time.Since(start), err: err}
	if resp.StatusCode >= 300 {
		var env envelope
		if json.Unmarshal(body, &env) == nil && env.Error != nil && env.Error.Status == resp.StatusCode {
			fc.code = env.Error.Code
		}
	}
	return fc
}

// usageTotal sums the account's stored counters from yesterday to
// tomorrow (UTC), so a run crossing midnight still adds up.
// usageTotal reads the account's counts around today through u: the
// server's limiter, whose Usage leaves out the requests it holds reserved
// and unspent (ratelimit.Local's leases), so it equals what was admitted.
func usageTotal(t *testing.T, u interface {
	Usage(ctx context.Context, account string, from, to time.Time) ([]store.Usage, error)
}, account string) int {
	t.Helper()
	now := time.Now().UTC()
	day := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	us, err := u.Usage(ctx, account, day.AddDate(0, 0, -1), day.AddDate(0, 0, 1))
	if err != nil {
		t.Fatalf("usage: %v", err)
	}
	n := 0
	for _, u := range us {
		n += u.Count
	}
	return n
}

// TestPostgresStoppedUnderLoad runs the API over a private PostgreSQL
// server and stops that server while clients keep sending requests:
// every answer is a 200 or a 503 envelope within the bounded timeout
// (never a 500, never a hang), the API serves again once the server is
// back, the stored counter equals exactly the number of 2xx answers, and
// a job created before the outage is still there, unchanged.
func TestPostgresStoppedUnderLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a private PostgreSQL server; skipped in -short mode")
	}
	pg := pgtest.Start(t)
	ctx := context.Background()
	st, err := sqlstore.Open(ctx, pg.DSN(), &sqlstore.Options{ConnectTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	o := dataOptions(t)
	o.Store, o.AllowPrivate = st, true
	o.Limits = map[store.Plan]int{store.Free: 100_000}
	o.BurstRate, o.Burst = 1e6, 1e6
	a := newTestAPI(t, o)
	client := &http.Client{Transport: a.ts.Client().Transport, Timeout: pgFaultTimeout}

	// A job that finished before the outage.
	site := crawlSite(t, 3, 0)
	resp := a.call("POST", "/v1/analyze/site", a.key, fmt.Sprintf(`{"domain":%q}`, hostOf(t, site.URL)))
	wantStatus(t, resp, 202)
	var job Job
	readJSON(t, resp, &job)
	before := waitJob(t, a, a.key, job.ID, func(j Job) bool { return j.Status != string(store.JobQueued) && j.Status != string(store.JobRunning) })
	if before.Status != "succeeded" {
		t.Fatalf("job before the outage: %+v", before)
	}

	// The route under load reads the store only to count the request
	// (authentication and the account's limit are cached), so an answer
	// is a 2xx exactly when the count was stored.
	const path = "/v1/keywords/suggest?query=oak+tables&locale=en-US&limit=10"
	if fc := faultGet(client, a, path); fc.status != 200 {
		t.Fatalf("before the load: %+v", fc)
	}
	base := usageTotal(t, a.srv.limiter, a.acct.ID)

	var (
		mu    sync.Mutex
		calls []faultCall
		phase = "before" // before, outage, after
		inOut int        // 503s while stopped
		stop  = make(chan struct{})
		wg    sync.WaitGroup
	)
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				case <-time.After(25 * time.Millisecond): // a few hundred requests in all
				}
				fc := faultGet(client, a, path)
				mu.Lock()
				calls = append(calls, fc)
				if phase == "outage" && fc.status == 503 {
					inOut++
				}
				mu.Unlock()
			}
		})
	}
	setPhase := func(p string) { mu.Lock(); phase = p; mu.Unlock() }
	time.Sleep(700 * time.Millisecond)
	if err := pg.Stop(); err != nil {
		t.Fatal(err)
	}
	setPhase("outage")
	time.Sleep(1200 * time.Millisecond)
	if err := pg.Start(); err != nil {
		t.Fatal(err)
	}
	setPhase("after")
	time.Sleep(1200 * time.Millisecond)
	close(stop)
	wg.Wait()

	// The API serves again (the pool may need a moment to reconnect).
	var recovered faultCall
	deadline := time.Now().Add(20 * time.Second)
	for {
		recovered = faultGet(client, a, path)
		calls = append(calls, recovered)
		if recovered.status == 200 || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if recovered.status != 200 {
		t.Fatalf("no 200 within 20 s of the restart: %+v", recovered)
	}

	ok, unavailable := 0, 0
	var slowest time.Duration
	for _, c := range calls {
		slowest = max(slowest, c.elapsed)
		switch {
		case c.err != nil:
			t.Errorf("request without an answer within %v: %v after %v", pgFaultTimeout, c.err, c.elapsed)
		case c.status >= 200 && c.status < 300:
			ok++
		case c.status == 503:
			unavailable++
			if c.code != CodeUnavailable || c.retry == "" {
				t.Errorf("503 without the unavailable envelope and Retry-After: %+v", c)
			}
		default:
			t.Errorf("status %d (%s) during the fault; want only 200 and 503", c.status, c.code)
		}
	}
	t.Logf("%d requests: %d 2xx, %d 503 (%d while stopped); slowest %v", len(calls), ok, unavailable, inOut, slowest.Round(time.Millisecond))
	if inOut == 0 {
		t.Error("no 503 while PostgreSQL was stopped")
	}
	if ok == 0 {
		t.Error("no 2xx answers")
	}
	if got := usageTotal(t, a.srv.limiter, a.acct.ID) - base; got != ok {
		t.Errorf("stored counter grew by %d, want exactly the %d 2xx answers", got, ok)
	}

	// The job created before the outage is still there, unchanged.
	resp = a.call("GET", "/v1/analyze/site/"+job.ID, a.key, "")
	wantStatus(t, resp, 200)
	var after Job
	readJSON(t, resp, &after)
	if after.ID != before.ID || after.Status != before.Status || after.Domain != before.Domain ||
		!after.FinishedAt.Equal(before.FinishedAt) || string(after.Result) != string(before.Result) {
		t.Errorf("job after the outage:\n%+v\nwant\n%+v", after, before)
	}
}
