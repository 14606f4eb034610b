package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/httpapi/store/sqlstore"
	"github.com/seokit/seokit/internal/pgtest"
)

// hangingHook is a callback receiver that never answers: each request
// waits until its client gives up (the attempt's timeout, or the server
// closing). It counts requests per path, and the most in flight at once.
type hangingHook struct {
	mu      sync.Mutex
	arrived map[string]int
	now     map[string]int
	most    map[string]int
}

func newHangingHook(t *testing.T) (*hangingHook, string) {
	h := &hangingHook{arrived: map[string]int{}, now: map[string]int{}, most: map[string]int{}}
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return h, ts.URL
}

func (h *hangingHook) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, r.Body)
	p := r.URL.Path
	h.mu.Lock()
	h.arrived[p]++
	h.now[p]++
	h.most[p] = max(h.most[p], h.now[p])
	h.mu.Unlock()
	<-r.Context().Done()
	h.mu.Lock()
	h.now[p]--
	h.mu.Unlock()
}

func (h *hangingHook) counts(path string) (arrived, now, most int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.arrived[path], h.now[path], h.most[path]
}

// TestHangingCallbacksHoldNoJobSlot: with one job worker, two accounts
// whose callback receivers never answer finish their analyses one after
// the other; a third account's analysis then starts at once on that
// worker and finishes while both receivers still hang.
func TestHangingCallbacksHoldNoJobSlot(t *testing.T) {
	site := crawlSite(t, 1, 0)
	hook, hookURL := newHangingHook(t)
	a := newTestAPI(t, &Options{AllowPrivate: true, JobWorkers: 1})
	domain := hostOf(t, site.URL)
	submit := func(key, callback string) Job {
		t.Helper()
		body := fmt.Sprintf(`{"domain":%q}`, domain)
		if callback != "" {
			body = fmt.Sprintf(`{"domain":%q,"callbackUrl":%q}`, domain, callback)
		}
		resp := a.call("POST", "/v1/analyze/site", key, body)
		wantStatus(t, resp, 202)
		var j Job
		readJSON(t, resp, &j)
		return j
	}
	_, keyB := a.account("b@example.com", store.Free, "read", "write")
	acctC, keyC := a.account("c@example.com", store.Free, "read", "write")
	var hung []string
	for i, key := range []string{a.key, keyB} {
		j := submit(key, hookURL+fmt.Sprintf("/tenant%d", i))
		waitJob(t, a, key, j.ID, func(j Job) bool { return j.Status == "succeeded" })
		hung = append(hung, j.ID)
	}
	// Both callbacks reached their receivers, which hold them.
	eventually(t, "both callbacks at their receivers", func() bool {
		a0, _, _ := hook.counts("/tenant0")
		a1, _, _ := hook.counts("/tenant1")
		return a0 >= 1 && a1 >= 1
	})
	_, hanging0, _ := hook.counts("/tenant0")
	_, hanging1, _ := hook.counts("/tenant1")
	c := submit(keyC, "")
	// Read from the store: polling the API would spend the tenant's
	// daily requests.
	var started *store.Job
	deadline := time.Now().Add(30 * time.Second)
	for started == nil {
		j, err := a.st.Job(context.Background(), acctC.ID, c.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !j.StartedAt.IsZero() {
			started = j
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the third tenant's 1-page job was still queued after 30s: callbacks hold the job workers")
		}
		time.Sleep(10 * time.Millisecond)
	}
	wait := started.StartedAt.Sub(started.CreatedAt)
	t.Logf("third tenant's 1-page job waited %v queued (callbacks hanging at submission: %d and %d)", wait, hanging0, hanging1)
	if wait >= 5*time.Second {
		t.Errorf("the third tenant's job waited %v queued, want under 5s: callbacks hold job workers", wait)
	}
	waitJob(t, a, keyC, c.ID, func(j Job) bool { return j.Status == "succeeded" })
	_, still0, _ := hook.counts("/tenant0")
	_, still1, _ := hook.counts("/tenant1")
	t.Logf("one job worker: the third job succeeded with %d and %d callbacks still hanging at their receivers", still0, still1)
	if still0 < 1 || still1 < 1 {
		t.Errorf("callbacks in flight when the third job ended: %d and %d; want both receivers still hanging", still0, still1)
	}
	// The hanging callbacks are still pending (retried for about a
	// minute and a half): the outbox holds them, not the job workers.
	for i, key := range []string{a.key, keyB} {
		resp := a.call("GET", "/v1/analyze/site/"+hung[i], key, "")
		wantStatus(t, resp, 200)
		var j Job
		readJSON(t, resp, &j)
		if j.Callback == nil || j.Callback.State != "pending" {
			t.Errorf("hanging callback of %s: %+v, want pending", j.ID, j.Callback)
		}
	}
}

// TestOutboxPerAccountLimit: an account with many callbacks to a
// receiver that hangs holds DeliveriesPerAccount attempts at once, never
// more, and another account's callbacks are delivered meanwhile.
func TestOutboxPerAccountLimit(t *testing.T) {
	ctx := context.Background()
	hook, hookURL := newHangingHook(t)
	rc := &receiver{got: make(chan struct{}, 8)}
	fine := httptest.NewServer(rc)
	t.Cleanup(fine.Close)
	a := newTestAPI(t, &Options{AllowPrivate: true, AlertPollInterval: 20 * time.Millisecond})
	other, _ := a.account("b@example.com", store.Free, "read", "write")
	end := func(accountID, url string) *store.Job {
		t.Helper()
		j := &store.Job{AccountID: accountID, Kind: "site", Request: []byte(`{"domain":"example.com"}`), CallbackURL: url}
		if err := a.st.CreateJob(ctx, j); err != nil {
			t.Fatal(err)
		}
		j.Status, j.CallbackState, j.FinishedAt = store.JobFailed, "pending", time.Now()
		if err := a.st.UpdateJob(ctx, j); err != nil {
			t.Fatal(err)
		}
		a.srv.wakeOutbox()
		return j
	}
	const backlog = 3 * DeliveriesPerAccount
	for range backlog {
		end(a.acct.ID, hookURL+"/busy")
	}
	eventually(t, "the busy account's attempts at its receiver", func() bool {
		_, now, _ := hook.counts("/busy")
		return now == DeliveriesPerAccount
	})
	// Each of the other account's callbacks needs a claim, which would
	// take the busy account's older backlog first if the cap let it.
	for i := range 3 {
		j := end(other.ID, fine.URL+"/ok")
		select {
		case <-rc.got:
		case <-time.After(20 * time.Second):
			t.Fatalf("the other account's callback %d was not delivered beside the hanging ones", i)
		}
		eventually(t, "the delivered callback's state", func() bool {
			cur, err := a.st.Job(ctx, other.ID, j.ID)
			return err == nil && cur.CallbackState == "delivered"
		})
	}
	arrived, now, most := hook.counts("/busy")
	t.Logf("busy account: %d callbacks queued, %d attempts arrived, %d in flight, at most %d at once; the other account's 3 delivered", backlog, arrived, now, most)
	if most != DeliveriesPerAccount || arrived != DeliveriesPerAccount {
		t.Errorf("the busy account held up to %d attempts at once (%d arrived), want %d", most, arrived, DeliveriesPerAccount)
	}
}

// TestOutboxTwoInstancesDeliverOnce: two servers over one store (an
// SQLite file, and PostgreSQL when available) send each callback exactly
// once: a first attempt that fails and a second that succeeds, never one
// attempt from each server.
func TestOutboxTwoInstancesDeliverOnce(t *testing.T) {
	for _, db := range []string{"sqlite file", "postgres"} {
		t.Run(strings.ReplaceAll(db, " ", "_"), func(t *testing.T) {
			ctx := context.Background()
			dsn := filepath.Join(t.TempDir(), "api.db")
			if db == "postgres" {
				dsn = pgtest.DSN(t)
			}
			open := func() store.Store {
				st, err := sqlstore.Open(ctx, dsn, nil)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { st.Close() })
				return st
			}
			type got struct{ attempts, delivered int }
			var (
				mu   sync.Mutex
				jobs = map[string]*got{}
				bad  []string
			)
			secret := []byte("master secret shared by the instances")
			var srvA *Server
			hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				var ev CallbackEvent
				json.Unmarshal(body, &ev)
				mu.Lock()
				defer mu.Unlock()
				if err := VerifyCallback(srvA.callbackSecret(ev.ID), r.Header.Get(SignatureHeader), body, time.Minute); err != nil || ev.Status != "failed" {
					bad = append(bad, fmt.Sprintf("%s: %v, status %q", ev.ID, err, ev.Status))
				}
				g := jobs[ev.ID]
				if g == nil {
					g = &got{}
					jobs[ev.ID] = g
				}
				g.attempts++
				if g.attempts == 1 {
					http.Error(w, "busy", http.StatusServiceUnavailable)
					return
				}
				g.delivered++
			}))
			t.Cleanup(hook.Close)
			opts := Options{AllowPrivate: true, CallbackSecret: secret, AlertPollInterval: 100 * time.Millisecond,
				CallbackRetryDelays: []time.Duration{10 * time.Millisecond, 10 * time.Millisecond}}
			oa, ob := opts, opts
			oa.Store, ob.Store = open(), open()
			a := newTestAPI(t, &oa)
			srvA = a.srv
			newTestAPI(t, &ob, apiConfig{noAccount: true})
			const n = 30
			var ids []string
			for range n {
				j := &store.Job{AccountID: a.acct.ID, Kind: "site", Request: []byte(`{"domain":"example.com"}`), CallbackURL: hook.URL + "/cb"}
				// Both instances' outbox workers poll the same database; under
				// the race detector on a busy machine an SQLite writer can
				// wait past its busy timeout. The server retries such writes
				// (Server.retry); the test's own writes do too.
				if err := retryUnavailable(ctx, func() error { return oa.Store.CreateJob(ctx, j) }); err != nil {
					t.Fatal(err)
				}
				j.Status, j.Error, j.CallbackState, j.FinishedAt = store.JobFailed, "the test's", "pending", time.Now()
				if err := retryUnavailable(ctx, func() error { return oa.Store.UpdateJob(ctx, j) }); err != nil {
					t.Fatal(err)
				}
				ids = append(ids, j.ID)
			}
			eventually(t, "every callback delivered", func() bool {
				for _, id := range ids {
					j, err := ob.Store.Job(ctx, a.acct.ID, id)
					if err != nil || j.CallbackState != "delivered" {
						return false
					}
				}
				return true
			})
			mu.Lock()
			defer mu.Unlock()
			twice := 0
			for _, id := range ids {
				g := jobs[id]
				if g == nil || g.attempts != 2 || g.delivered != 1 {
					twice++
					t.Errorf("job %s: %+v, want 2 attempts and 1 delivery", id, g)
				}
			}
			t.Logf("%s: %d callbacks through 2 instances: %d received other than once after one retry, %d bad bodies", db, n, twice, len(bad))
			if len(bad) > 0 {
				t.Errorf("bodies that do not verify or say the wrong status: %v", bad)
			}
		})
	}
}

// TestSettle is the retry rule of every delivery, alerts and callbacks.
func TestSettle(t *testing.T) {
	now := time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)
	delays := []time.Duration{4 * time.Second, 8 * time.Second}
	failed := errors.New("hooks.example.com answered 500")
	tests := []struct {
		name      string
		attempts  int // before this attempt
		err       error
		state     string
		next      time.Duration // after now; -1: none
		lastError string
	}{
		{"delivered at once", 0, nil, store.DeliveryDelivered, -1, ""},
		{"first failure waits the first delay", 0, failed, store.DeliveryPending, 4 * time.Second, failed.Error()},
		{"second failure waits the second", 1, failed, store.DeliveryPending, 8 * time.Second, failed.Error()},
		{"failure after the last delay gives up", 2, failed, store.DeliveryFailed, -1, failed.Error()},
		{"delivered on the last attempt", 2, nil, store.DeliveryDelivered, -1, ""},
		{"rule deleted gives up at once", 0, errRuleDeleted, store.DeliveryFailed, -1, "the rule was deleted"},
		{"job deleted gives up at once", 0, errJobDeleted, store.DeliveryFailed, -1, "the job was deleted"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := &store.Delivery{State: store.DeliveryPending, Attempts: tc.attempts, LastError: "earlier", NextAttempt: now}
			settle(d, tc.err, now, delays)
			want := tc.state
			if d.State != want || d.Attempts != tc.attempts+1 || d.LastError != tc.lastError {
				t.Errorf("state %q, attempts %d, last error %q; want %q, %d, %q", d.State, d.Attempts, d.LastError, want, tc.attempts+1, tc.lastError)
			}
			switch {
			case tc.next < 0 && !d.NextAttempt.IsZero():
				t.Errorf("next attempt %v, want none", d.NextAttempt)
			case tc.next >= 0 && !d.NextAttempt.Equal(now.Add(tc.next)):
				t.Errorf("next attempt %v, want now+%v", d.NextAttempt, tc.next)
			}
			if want == store.DeliveryDelivered && !d.DeliveredAt.Equal(now) {
				t.Errorf("delivered at %v", d.DeliveredAt)
			}
		})
	}
}

// retryUnavailable calls f until it succeeds or fails with another error
// than store.ErrUnavailable, for at most 30 seconds.
func retryUnavailable(ctx context.Context, f func() error) error {
	deadline := time.Now().Add(30 * time.Second)
	for {
		err := f()
		if err == nil || !errors.Is(err, store.ErrUnavailable) || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(50 * time.Millisecond):
		}
	}
}
