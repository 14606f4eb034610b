package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seokit/seokit/httpapi/store"
)

// testJobResults checks that results read back as written, by Job and as a
// stream by JobResults.
func testJobResults(ctx context.Context, t *testing.T, s store.Store, jr store.JobResults) {
	a := mustAccount(ctx, t, s, "results@example.com")
	b := mustAccount(ctx, t, s, "other@example.com")
	var pages strings.Builder
	for i := range 5000 {
		fmt.Fprintf(&pages, `{"url":"https://example.com/p/%d","title":"Page %d","findings":["title.too_long"]},`, i, i)
	}
	report := []byte(`{"domain":"example.com","pages":[` + pages.String() + `{}]}`)
	done := &store.Job{AccountID: a.ID, Kind: "site", Request: []byte(`{"domain":"example.com"}`), CreatedAt: base}
	if err := s.CreateJob(ctx, done); err != nil {
		t.Fatalf("CreateJob: %v", err)
	}
	fin := *done
	fin.Status, fin.Result, fin.StartedAt, fin.FinishedAt = store.JobSucceeded, report, base, base.Add(1e9)
	if err := s.UpdateJob(ctx, &fin); err != nil {
		t.Fatalf("UpdateJob with a result: %v", err)
	}
	// The same final state again is not a change (the stored form
	// compares equal to what was written).
	again := fin
	again.CallbackState = "delivered"
	if err := s.UpdateJob(ctx, &again); err != nil {
		t.Fatalf("UpdateJob of the callback state after the result: %v", err)
	}
	inline := &store.Job{AccountID: a.ID, Kind: "site", Status: store.JobSucceeded, Result: []byte(`{"pages":[]}`), CreatedAt: base}
	if err := s.CreateJob(ctx, inline); err != nil {
		t.Fatalf("CreateJob with a result: %v", err)
	}
	none := &store.Job{AccountID: a.ID, Kind: "site", CreatedAt: base}
	if err := s.CreateJob(ctx, none); err != nil {
		t.Fatalf("CreateJob: %v", err)
	}
	for _, tt := range []struct {
		id   string
		want []byte
	}{{done.ID, report}, {inline.ID, inline.Result}, {none.ID, nil}} {
		got, err := s.Job(ctx, a.ID, tt.id)
		if err != nil || !bytes.Equal(got.Result, tt.want) {
			t.Fatalf("Job(%s).Result = %d bytes, %v; want %d bytes", tt.id, len(got.Result), err, len(tt.want))
		}
		j, res, err := jr.JobResult(ctx, a.ID, tt.id)
		if err != nil || j.ID != tt.id || j.Result != nil {
			t.Fatalf("JobResult(%s) = %+v, %v; want the job without Result", tt.id, j, err)
		}
		if tt.want == nil {
			if res != nil {
				t.Fatalf("JobResult(%s) of a job without result = %v, want nil", tt.id, res)
			}
			continue
		}
		for range 2 { // each Open starts at the first byte
			r, err := res.Open()
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			streamed, err := io.ReadAll(r)
			r.Close()
			if err != nil || !bytes.Equal(streamed, tt.want) {
				t.Fatalf("JobResult(%s) streamed %d bytes, %v; want %d bytes", tt.id, len(streamed), err, len(tt.want))
			}
		}
		if res.StoredSize() <= 0 || res.Size() != len(tt.want) {
			t.Errorf("StoredSize = %d, Size = %d; want > 0 and %d", res.StoredSize(), res.Size(), len(tt.want))
		}
	}
	if _, _, err := jr.JobResult(ctx, b.ID, done.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("JobResult of another account's job: %v, want ErrNotFound", err)
	}
	if _, _, err := jr.JobResult(ctx, a.ID, "job_missing"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("JobResult of a missing job: %v, want ErrNotFound", err)
	}
	if js, err := s.Jobs(ctx, a.ID, 10); err != nil || len(js) != 3 || js[0].Result != nil {
		t.Fatalf("Jobs = %d jobs, %v; want 3 without results", len(js), err)
	}
}

// testPruneJobs checks which jobs PruneJobs deletes: exactly the finished
// jobs of the project beyond the newest keep or too old, the finished jobs
// without a project that are too old, whatever their kind, never a queued
// or running one,
// another project's or another account's; screenshots go with their job.
func testPruneJobs(ctx context.Context, t *testing.T, s store.Store) {
	a := mustAccount(ctx, t, s, "prune@example.com")
	b := mustAccount(ctx, t, s, "keep@example.com")
	mkProject := func(accountID, domain string) string {
		p := &store.Project{AccountID: accountID, Name: domain, Domain: domain}
		if err := s.CreateProject(ctx, p); err != nil {
			t.Fatalf("CreateProject: %v", err)
		}
		return p.ID
	}
	p1, p2, pb := mkProject(a.ID, "one.example"), mkProject(a.ID, "two.example"), mkProject(b.ID, "one.example")
	// mk creates a job created i minutes after base in status st.
	mk := func(accountID, projectID string, i int, st store.JobStatus) string {
		j := &store.Job{AccountID: accountID, ProjectID: projectID, Kind: "site", Status: st,
			Request: []byte(`{"domain":"one.example"}`), CreatedAt: base.Add(time.Duration(i) * time.Minute)}
		if st == store.JobSucceeded {
			j.Result = []byte(`{"pages":[]}`)
		}
		if err := s.CreateJob(ctx, j); err != nil {
			t.Fatalf("CreateJob: %v", err)
		}
		return j.ID
	}
	var p1Done []string // oldest first
	statuses := []store.JobStatus{store.JobSucceeded, store.JobFailed, store.JobCanceled}
	for i := range 15 {
		p1Done = append(p1Done, mk(a.ID, p1, 10+i, statuses[i%3]))
	}
	queued, running := mk(a.ID, p1, 0, store.JobQueued), mk(a.ID, p1, 1, store.JobRunning) // the oldest of all
	other := []string{mk(a.ID, p2, 0, store.JobSucceeded), mk(a.ID, p2, 1, store.JobSucceeded)}
	looseOld, looseNew := mk(a.ID, "", 2, store.JobSucceeded), mk(a.ID, "", 40, store.JobSucceeded)
	looseRunning := mk(a.ID, "", 3, store.JobRunning)
	// A job of another kind without a project (httpapi's log parses) is
	// pruned by age as a site analysis without one is.
	looseLog := &store.Job{AccountID: a.ID, Kind: "logs", Status: store.JobSucceeded, Result: []byte(`{}`), CreatedAt: base.Add(4 * time.Minute)}
	if err := s.CreateJob(ctx, looseLog); err != nil {
		t.Fatalf("CreateJob: %v", err)
	}
	bJobs := []string{mk(b.ID, pb, 0, store.JobSucceeded), mk(b.ID, "", 0, store.JobSucceeded)}
	shots, _ := s.(store.Screenshots)
	if shots != nil {
		if err := shots.PutScreenshot(ctx, p1Done[0], "https://one.example/", []byte("png")); err != nil {
			t.Fatalf("PutScreenshot: %v", err)
		}
	}
	exists := func(accountID, id string) bool {
		t.Helper()
		_, err := s.Job(ctx, accountID, id)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("Job(%s): %v", id, err)
		}
		return err == nil
	}
	check := func(step string, kept, gone []string) {
		t.Helper()
		for _, id := range kept {
			if !exists(a.ID, id) {
				t.Errorf("%s: job %s was deleted, want it kept", step, id)
			}
		}
		for _, id := range gone {
			if exists(a.ID, id) {
				t.Errorf("%s: job %s was kept, want it deleted", step, id)
			}
		}
		for _, id := range bJobs {
			if !exists(b.ID, id) {
				t.Errorf("%s: another account's job %s was deleted", step, id)
			}
		}
	}
	always := append([]string{queued, running, looseRunning, looseNew}, other...)

	// The newest 10 finished jobs of the project stay.
	n, err := s.PruneJobs(ctx, a.ID, p1, 10, time.Time{})
	if err != nil || n != 5 {
		t.Fatalf("PruneJobs(keep 10) = %d, %v; want 5", n, err)
	}
	check("keep 10", append(append([]string{}, always...), p1Done[5:]...), p1Done[:5])
	if shots != nil {
		if _, err := shots.Screenshot(ctx, a.ID, p1Done[0], "https://one.example/"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("the screenshot of a pruned job: %v, want ErrNotFound", err)
		}
	}
	// Again: nothing more.
	if n, err := s.PruneJobs(ctx, a.ID, p1, 10, time.Time{}); err != nil || n != 0 {
		t.Fatalf("PruneJobs(keep 10) again = %d, %v; want 0", n, err)
	}
	// None created before the cutoff (minute 18): p1Done[5:8] go.
	n, err = s.PruneJobs(ctx, a.ID, p1, 10, base.Add(18*time.Minute))
	if err != nil || n != 3 {
		t.Fatalf("PruneJobs(before minute 18) = %d, %v; want 3", n, err)
	}
	check("before minute 18", append(append([]string{}, always...), p1Done[8:]...), p1Done[:8])
	// Both limits at once: keep 4 of the 7 left, and none before minute 20.
	n, err = s.PruneJobs(ctx, a.ID, p1, 4, base.Add(20*time.Minute))
	if err != nil || n != 3 {
		t.Fatalf("PruneJobs(keep 4, before minute 20) = %d, %v; want 3", n, err)
	}
	check("keep 4", append(append([]string{}, always...), p1Done[11:]...), p1Done[:11])
	// Jobs without a project: by age only.
	n, err = s.PruneJobs(ctx, a.ID, "", 1, base.Add(30*time.Minute))
	if err != nil || n != 2 {
		t.Fatalf("PruneJobs(no project, before minute 30) = %d, %v; want 2", n, err)
	}
	check("no project", always, []string{looseOld, looseLog.ID})
	if n, err := s.PruneJobs(ctx, a.ID, "", 0, time.Time{}); err != nil || n != 0 {
		t.Fatalf("PruneJobs(no project, no limit) = %d, %v; want 0", n, err)
	}
	if _, err := s.PruneJobs(ctx, "", p1, 1, time.Time{}); err == nil {
		t.Error("PruneJobs without an account: no error")
	}
	// A long history goes in several statements, exactly.
	var many []string
	for i := range 250 {
		many = append(many, mk(a.ID, p2, 100+i, store.JobSucceeded))
	}
	if n, err := s.PruneJobs(ctx, a.ID, p2, 3, time.Time{}); err != nil || n != 249 {
		t.Fatalf("PruneJobs(252 jobs, keep 3) = %d, %v; want 249", n, err)
	}
	check("long history", many[247:], append(many[:247:247], other...))
}

// testPruneWhileReading prunes a project's jobs while other goroutines
// read them: every read returns the job whole, its result intact, or
// ErrNotFound.
func testPruneWhileReading(ctx context.Context, t *testing.T, s store.Store) {
	a := mustAccount(ctx, t, s, "race@example.com")
	p := &store.Project{AccountID: a.ID, Name: "race", Domain: "race.example"}
	if err := s.CreateProject(ctx, p); err != nil {
		t.Fatalf("CreateProject: %v", err)
	}
	result := []byte(`{"domain":"race.example","pages":[` + strings.Repeat(`{"url":"https://race.example/x"},`, 500) + `{}]}`)
	var ids []string
	for i := range 40 {
		j := &store.Job{AccountID: a.ID, ProjectID: p.ID, Kind: "site", Status: store.JobSucceeded, Result: result,
			CreatedAt: base.Add(time.Duration(i) * time.Second)}
		if err := s.CreateJob(ctx, j); err != nil {
			t.Fatalf("CreateJob: %v", err)
		}
		ids = append(ids, j.ID)
	}
	jr, _ := s.(store.JobResults)
	errs := make(chan error, 4)
	var wg sync.WaitGroup
	for r := range 3 {
		wg.Go(func() {
			for i := range 3 * len(ids) { // bounded
				id := ids[(i+r*7)%len(ids)]
				if jr != nil && i%2 == 1 {
					_, res, err := jr.JobResult(ctx, a.ID, id)
					if errors.Is(err, store.ErrNotFound) {
						continue
					}
					if err != nil || res == nil {
						errs <- fmt.Errorf("JobResult(%s) = %v, %v", id, res, err)
						return
					}
					rc, err := res.Open()
					if err != nil {
						errs <- err
						return
					}
					got, err := io.ReadAll(rc)
					rc.Close()
					if err != nil || !bytes.Equal(got, result) {
						errs <- fmt.Errorf("JobResult(%s) streamed %d bytes, %v; want the result whole", id, len(got), err)
						return
					}
					continue
				}
				j, err := s.Job(ctx, a.ID, id)
				if errors.Is(err, store.ErrNotFound) {
					continue
				}
				if err != nil || !bytes.Equal(j.Result, result) {
					errs <- fmt.Errorf("Job(%s) = %v; want the result whole or ErrNotFound", id, err)
					return
				}
			}
		})
	}
	deleted := 0
	for keep := 35; keep >= 5; keep -= 5 {
		n, err := s.PruneJobs(ctx, a.ID, p.ID, keep, time.Time{})
		if err != nil {
			t.Errorf("PruneJobs(keep %d): %v", keep, err)
			break
		}
		deleted += n
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if deleted != 35 {
		t.Errorf("pruned %d jobs, want 35", deleted)
	}
	js, err := s.ProjectJobs(ctx, a.ID, p.ID, 100)
	if err != nil || len(js) != 5 || js[0].ID != ids[39] || js[4].ID != ids[35] {
		t.Fatalf("ProjectJobs after pruning = %d jobs, %v; want the newest 5", len(js), err)
	}
}
