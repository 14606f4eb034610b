package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seokit/seokit/httpapi/auth"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/httpapi/store/sqlstore"
	"github.com/seokit/seokit/internal/proctest"
)

// backgroundStore counts the store calls only the background work makes:
// the unfinished jobs read (resume, waiting scheduled runs), the schedule tick, the outbox's claims
// and a job worker's writes. Each call signals event.
type backgroundStore struct {
	store.Store
	unfinished, ticks, claims, jobWrites atomic.Int64
	event                                chan struct{}
}

func newBackgroundStore(t *testing.T) *backgroundStore {
	t.Helper()
	st, err := sqlstore.Open(context.Background(), ":memory:", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return &backgroundStore{Store: st, event: make(chan struct{}, 1)}
}

func (s *backgroundStore) signal(n *atomic.Int64) {
	n.Add(1)
	select {
	case s.event <- struct{}{}:
	default:
	}
}

func (s *backgroundStore) Unfinished(ctx context.Context) ([]store.Job, error) {
	s.signal(&s.unfinished)
	return s.Store.Unfinished(ctx)
}

func (s *backgroundStore) DueSchedules(ctx context.Context, now time.Time, limit int) ([]store.Schedule, error) {
	s.signal(&s.ticks)
	return s.Store.DueSchedules(ctx, now, limit)
}

func (s *backgroundStore) ClaimDeliveries(ctx context.Context, now time.Time, lease time.Duration, n, perAccount int) ([]store.Delivery, error) {
	s.signal(&s.claims)
	return s.Store.ClaimDeliveries(ctx, now, lease, n, perAccount)
}

func (s *backgroundStore) UpdateJob(ctx context.Context, j *store.Job) error {
	s.signal(&s.jobWrites)
	return s.Store.UpdateJob(ctx, j)
}

func (s *backgroundStore) counts() string {
	return fmt.Sprintf("%d unfinished-job reads, %d schedule ticks, %d outbox claims, %d job writes",
		s.unfinished.Load(), s.ticks.Load(), s.claims.Load(), s.jobWrites.Load())
}

func (s *backgroundStore) total() int64 {
	return s.unfinished.Load() + s.ticks.Load() + s.claims.Load() + s.jobWrites.Load()
}

// newGoroutines returns the goroutines running now that did not in
// before. Goroutines on their way out (a request's, a closed
// connection's) are given the scheduler until they are gone or a bounded
// number of yields has passed; what is left is running.
func newGoroutines(before map[string]string) []string {
	var fresh []string
	for range 1000 {
		fresh = fresh[:0]
		for id, stack := range proctest.Goroutines() {
			if _, ok := before[id]; !ok {
				fresh = append(fresh, stack)
			}
		}
		if len(fresh) == 0 {
			return nil
		}
		runtime.Gosched()
	}
	return fresh
}

// TestNoStartRunsNothing: a Server that is only New serves requests,
// site analysis included, and runs no goroutine, job or poll: its job
// stays queued and says so, and the store sees no background call, for
// longer than the same server started takes to resume, tick, claim
// deliveries and run a job. Close without Start returns at once, and
// Close of the started one leaves no goroutine behind.
func TestNoStartRunsNothing(t *testing.T) {
	ctx := context.Background()
	site := crawlSite(t, 1, 0)
	domain := hostOf(t, site.URL)
	opts := func(st store.Store) *Options {
		return &Options{Store: st, AllowPrivate: true, JobWorkers: 1, Logger: discardLogger(),
			ScheduleInterval: 5 * time.Millisecond, AlertPollInterval: 5 * time.Millisecond}
	}
	account := func(srv *Server) (id, key string) {
		t.Helper()
		acct, err := srv.Auth().CreateAccount(ctx, "dev@example.com", "Dev", "", store.Free)
		if err != nil {
			t.Fatal(err)
		}
		key, _, err = srv.Auth().CreateAPIKey(ctx, acct.ID, "test", []string{auth.ScopeRead, auth.ScopeWrite}, time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		return acct.ID, key
	}
	serve := func(srv *Server, key, method, path, body string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(method, path, strings.NewReader(body))
		r.RemoteAddr = "127.0.0.1:40000"
		r.Header.Set("X-API-Key", key)
		if body != "" {
			r.Header.Set("Content-Type", "application/json")
		}
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, r)
		return w
	}
	submit := func(srv *Server, key string) Job {
		t.Helper()
		w := serve(srv, key, "POST", "/v1/analyze/site", fmt.Sprintf(`{"domain":%q,"callbackUrl":%q}`, domain, site.URL+"/cb"))
		if w.Code != http.StatusAccepted {
			t.Fatalf("POST /v1/analyze/site: %d %s", w.Code, w.Body)
		}
		var j Job
		readJSON(t, w.Result(), &j)
		return j
	}

	idle := newBackgroundStore(t)
	before := proctest.Goroutines()
	n0 := runtime.NumGoroutine()
	srv, err := New(ctx, opts(idle))
	if err != nil {
		t.Fatal(err)
	}
	idleAcct, key := account(srv)
	job := submit(srv, key)
	for _, path := range []string{"/v1/analyze/site/" + job.ID, "/v1/analyze/site", "/v1/openapi.json"} {
		if w := serve(srv, key, "GET", path, ""); w.Code != http.StatusOK {
			t.Fatalf("GET %s: %d %s", path, w.Code, w.Body)
		}
	}
	var got Job
	readJSON(t, serve(srv, key, "GET", "/v1/analyze/site/"+job.ID, "").Result(), &got)
	if got.Status != "queued" || !got.StartedAt.IsZero() {
		t.Errorf("the job of a server never started: status %q, started %v; want queued, not started", got.Status, got.StartedAt)
	}
	// A goroutine of the server has its frames in httpapi; others (a
	// timer of an earlier test firing) are counted, not failed.
	fresh := newGoroutines(before)
	n1 := runtime.NumGoroutine()
	for _, g := range fresh {
		if strings.Contains(g, "seokit/seokit/httpapi") {
			t.Errorf("a goroutine runs in a server never started:\n%s", g)
		}
	}
	if idle.total() != 0 {
		t.Errorf("a server never started made background store calls: %s", idle.counts())
	}

	// The same options, started: it resumes, ticks, claims deliveries and
	// runs a job, all the while the first server stays idle.
	busy := newBackgroundStore(t)
	began := time.Now()
	on, err := New(ctx, opts(busy))
	if err != nil {
		t.Fatal(err)
	}
	if err := on.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if err := on.Start(ctx); err == nil {
		t.Error("a second Start succeeded")
	}
	onAcct, onKey := account(on)
	onJob := submit(on, onKey)
	deadline := time.After(30 * time.Second)
	for {
		j, err := busy.Job(ctx, onAcct, onJob.ID)
		if err != nil {
			t.Fatal(err)
		}
		if j.Status.Done() && busy.ticks.Load() >= 3 && busy.claims.Load() >= 3 {
			break
		}
		select {
		case <-busy.event:
		case <-deadline:
			t.Fatalf("the started server after 30s: job %s, %s", j.Status, busy.counts())
		}
	}
	took := time.Since(began)
	if err := on.Close(); err != nil {
		t.Fatal(err)
	}
	busyCounts := busy.counts()

	if idle.total() != 0 {
		t.Errorf("a server never started made background store calls: %s", idle.counts())
	}
	if j, err := idle.Job(ctx, idleAcct, job.ID); err != nil || j.Status != store.JobQueued {
		t.Errorf("the job of the server never started: %+v, %v; want queued", j, err)
	}
	if err := srv.Close(); err != nil {
		t.Errorf("Close without Start: %v", err)
	}
	if err := srv.Start(ctx); err == nil {
		t.Error("Start after Close succeeded")
	}
	left := newGoroutines(before)
	for _, g := range left {
		if strings.Contains(g, "seokit/seokit/httpapi") {
			t.Errorf("a goroutine of the started server outlives its Close:\n%s", g)
		}
	}
	t.Logf("never started: goroutines %d before New, %d after 5 requests (%d new), store %s; started over the same options, in %v: %s; after both Close: %d goroutines not there before",
		n0, n1, len(fresh), idle.counts(), took.Round(time.Millisecond), busyCounts, len(left))
}
