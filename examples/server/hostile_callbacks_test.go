//go:build linux

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// callbackJob is the part of a job's answer the callback case reads.
type callbackJob struct {
	ID        string    `json:"id"`
	Status    string    `json:"status"`
	CreatedAt time.Time `json:"createdAt"`
	StartedAt time.Time `json:"startedAt"`
	Callback  *struct {
		State string `json:"state"`
	} `json:"callback"`
}

// TestHostileCallbacks: two Free accounts whose callback receivers never
// answer run several 1-page site analyses each, one after the other, on a
// server with default settings (two job workers). A third tenant's 1-page
// analysis, submitted while those callbacks hang, must start within 5 s:
// callbacks are sent by the outbox, which holds no job worker and at most
// its per-account share of delivery attempts.
func TestHostileCallbacks(t *testing.T) {
	skipHostile(t)
	var (
		mu      sync.Mutex
		arrived = map[string]int{}
		hanging = map[string]int{}
	)
	hook := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		mu.Lock()
		arrived[r.URL.Path]++
		hanging[r.URL.Path]++
		mu.Unlock()
		<-r.Context().Done() // never answers: the server's attempt times out
		mu.Lock()
		hanging[r.URL.Path]--
		mu.Unlock()
	}))
	site := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, `<!doctype html><html lang=en><head><title>The one page of the callback test site</title></head><body><h1>One page</h1></body></html>`)
	}))
	_, db := dbArgs(t)
	srv := startWatched(t, append(db, "-allow-private")...)
	c := hostileClient(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	submit := func(key, callback string) (callbackJob, answer) {
		body := fmt.Sprintf(`{"domain":%q}`, hostOf(site))
		if callback != "" {
			body = fmt.Sprintf(`{"domain":%q,"callbackUrl":%q}`, hostOf(site), callback)
		}
		a := call(ctx, c, "POST", srv.base+"/v1/analyze/site", withKey(key, "application/json"), strings.NewReader(body))
		var j callbackJob
		json.Unmarshal(a.head, &j)
		return j, a
	}
	// wait polls the job every 250 ms until it is done.
	wait := func(key, id string) callbackJob {
		var j callbackJob
		for ctx.Err() == nil && srv.alive() {
			a := call(ctx, c, "GET", srv.base+"/v1/analyze/site/"+id, withKey(key, ""), nil)
			j = callbackJob{}
			json.Unmarshal(a.head, &j)
			if j.Status == "succeeded" || j.Status == "failed" || j.Status == "canceled" {
				return j
			}
			select {
			case <-ctx.Done():
			case <-time.After(250 * time.Millisecond):
			}
		}
		return j
	}

	// Two tenants, three analyses each (a Free account runs one at a
	// time): each ends with a callback that hangs.
	const perTenant = 3
	keys := []string{freeKey(t, db[:2], "hanging1@example.com"), freeKey(t, db[:2], "hanging2@example.com")}
	var (
		wg       sync.WaitGroup
		tenantMu sync.Mutex
		ended    = map[string][]callbackJob{}
		problems []string
	)
	for i, key := range keys {
		path := fmt.Sprintf("/tenant%d", i+1)
		wg.Go(func() {
			for n := range perTenant {
				j, a := submit(key, hook.URL+path)
				if a.status != http.StatusAccepted {
					tenantMu.Lock()
					problems = append(problems, fmt.Sprintf("%s job %d: submit answered %d (%v): %.300s", path, n+1, a.status, a.err, a.head))
					tenantMu.Unlock()
					return
				}
				j = wait(key, j.ID)
				tenantMu.Lock()
				ended[path] = append(ended[path], j)
				tenantMu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(problems) > 0 {
		t.Fatalf("the hanging tenants' jobs: %s", strings.Join(problems, "; "))
	}
	// Their callbacks reached the receivers, where they hang.
	for ctx.Err() == nil {
		mu.Lock()
		got := arrived["/tenant1"] > 0 && arrived["/tenant2"] > 0
		mu.Unlock()
		if got {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	mu.Lock()
	hangingAtSubmit := fmt.Sprintf("%d and %d", hanging["/tenant1"], hanging["/tenant2"])
	mu.Unlock()

	third := freeKey(t, db[:2], "third@example.com")
	j, a := submit(third, "")
	if a.status != http.StatusAccepted {
		t.Fatalf("third tenant's submit answered %d (%v): %.300s", a.status, a.err, a.head)
	}
	j = wait(third, j.ID)
	queued := j.StartedAt.Sub(j.CreatedAt)

	// The hanging tenants' callbacks are still pending in the outbox.
	var states []string
	for i, key := range keys {
		for _, e := range ended[fmt.Sprintf("/tenant%d", i+1)] {
			a := call(ctx, c, "GET", srv.base+"/v1/analyze/site/"+e.ID, withKey(key, ""), nil)
			var cur callbackJob
			json.Unmarshal(a.head, &cur)
			state := "?"
			if cur.Callback != nil {
				state = cur.Callback.State
			}
			states = append(states, fmt.Sprintf("%s/%s", cur.Status, state))
		}
	}
	mu.Lock()
	attempts := fmt.Sprintf("%d and %d", arrived["/tenant1"], arrived["/tenant2"])
	mu.Unlock()
	alive := srv.alive()
	srv.stop()
	t.Logf("hanging callbacks: 2 Free tenants x %d 1-page jobs (job/callback states %s); attempts at the receivers %s, hanging at the third's submit %s\n"+
		"third tenant's 1-page job: %s, queued %v (target < 5s); the case took %v",
		perTenant, strings.Join(states, " "), attempts, hangingAtSubmit, j.Status, queued.Round(time.Millisecond), time.Since(srv.started).Round(100*time.Millisecond))

	if !alive {
		t.Fatalf("server died:\n%s", tail(srv.out.String(), 2000))
	}
	if j.Status != "succeeded" {
		t.Fatalf("the third tenant's job ended %q (within the case's 60 s)", j.Status)
	}
	if j.StartedAt.IsZero() || queued >= 5*time.Second {
		t.Errorf("the third tenant's 1-page job waited %v queued, target < 5s: hanging callbacks hold job workers", queued)
	}
	for i := range keys {
		if n := len(ended[fmt.Sprintf("/tenant%d", i+1)]); n != perTenant {
			t.Errorf("tenant %d ended %d jobs, want %d", i+1, n, perTenant)
		}
	}
}
