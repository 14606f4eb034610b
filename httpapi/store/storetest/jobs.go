package storetest

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/seo"
)

func testJobs(ctx context.Context, t *testing.T, s store.Store) {
	a := mustAccount(ctx, t, s, "jobs@example.com")
	b := mustAccount(ctx, t, s, "intruder@example.com")
	var made []*store.Job
	for i := range 3 {
		j := &store.Job{AccountID: a.ID, Kind: "site", Request: []byte(fmt.Sprintf(`{"n":%d}`, i)),
			CallbackURL: "https://hooks.example.com/x", CreatedAt: base.Add(time.Duration(i) * time.Second)}
		if err := s.CreateJob(ctx, j); err != nil {
			t.Fatalf("CreateJob: %v", err)
		}
		if j.ID == "" || j.Status != store.JobQueued {
			t.Fatalf("CreateJob left ID %q status %q; want an ID and queued", j.ID, j.Status)
		}
		made = append(made, j)
	}
	got, err := s.Job(ctx, a.ID, made[1].ID)
	if err != nil {
		t.Fatalf("Job: %v", err)
	}
	if got.Kind != "site" || string(got.Request) != `{"n":1}` || got.CallbackURL != "https://hooks.example.com/x" ||
		got.Status != store.JobQueued || !got.CreatedAt.Equal(made[1].CreatedAt) {
		t.Errorf("Job = %+v", got)
	}
	if _, err := s.Job(ctx, b.ID, made[1].ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Job of another account: err = %v, want ErrNotFound", err)
	}
	if _, err := s.Job(ctx, a.ID, "job_missing"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Job(missing): err = %v, want ErrNotFound", err)
	}
	list, err := s.Jobs(ctx, a.ID, 2)
	if err != nil || len(list) != 2 || list[0].ID != made[2].ID || list[1].ID != made[1].ID {
		t.Errorf("Jobs(limit 2) = %v, %v; want [%s %s] (newest first)", ids(list), err, made[2].ID, made[1].ID)
	}
	if other, err := s.Jobs(ctx, b.ID, 10); err != nil || len(other) != 0 {
		t.Errorf("Jobs(other) = %v, %v; want none", ids(other), err)
	}

	run := *got
	run.Status, run.StartedAt, run.Progress = store.JobRunning, base.Add(time.Minute), []byte(`{"pages":1}`)
	if err := s.UpdateJob(ctx, &run); err != nil {
		t.Fatalf("UpdateJob(running): %v", err)
	}
	stolen := run
	stolen.AccountID = b.ID
	stolen.Status = store.JobCanceled
	if err := s.UpdateJob(ctx, &stolen); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("UpdateJob by another account: err = %v, want ErrNotFound", err)
	}
	done := run
	done.Status, done.FinishedAt, done.Result, done.CallbackState = store.JobSucceeded, base.Add(2*time.Minute), []byte(`{"score":91}`), "pending"
	if err := s.UpdateJob(ctx, &done); err != nil {
		t.Fatalf("UpdateJob(succeeded): %v", err)
	}
	g, err := s.Job(ctx, a.ID, run.ID)
	if err != nil || g.Status != store.JobSucceeded || string(g.Result) != `{"score":91}` || string(g.Progress) != `{"pages":1}` ||
		!g.StartedAt.Equal(base.Add(time.Minute)) || !g.FinishedAt.Equal(base.Add(2*time.Minute)) || g.CallbackState != "pending" {
		t.Errorf("after UpdateJob: %+v, %v", g, err)
	}
	// Lists never load results; the one job does.
	list, err = s.Jobs(ctx, a.ID, 10)
	if err != nil || len(list) != 3 {
		t.Fatalf("Jobs after success = %v, %v; want 3 jobs", ids(list), err)
	}
	for _, j := range list {
		if j.Result != nil {
			t.Errorf("Jobs loaded the result of %s: %q", j.ID, j.Result)
		}
		if j.ID == run.ID && (j.Status != store.JobSucceeded || string(j.Progress) != `{"pages":1}`) {
			t.Errorf("Jobs lists %s as %+v", j.ID, j)
		}
	}
	if n, err := s.ActiveJobs(ctx, a.ID); err != nil || n != 2 {
		t.Errorf("ActiveJobs = %d, %v; want 2 (queued)", n, err)
	}
	if n, err := s.ActiveJobs(ctx, b.ID); err != nil || n != 0 {
		t.Errorf("ActiveJobs(other) = %d, %v; want 0", n, err)
	}
	bad := *made[0]
	bad.Status = "paused"
	if err := s.UpdateJob(ctx, &bad); !errors.Is(err, seo.ErrInvalidInput) {
		t.Errorf("UpdateJob with status paused: err = %v, want an input error", err)
	}
}

func testFinalJob(ctx context.Context, t *testing.T, s store.Store) {
	a := mustAccount(ctx, t, s, "final@example.com")
	j := &store.Job{AccountID: a.ID, Kind: "site", CallbackURL: "https://hooks.example.com/x", CreatedAt: base}
	if err := s.CreateJob(ctx, j); err != nil {
		t.Fatalf("CreateJob: %v", err)
	}
	canceled := *j
	canceled.Status, canceled.FinishedAt, canceled.CallbackState = store.JobCanceled, base.Add(time.Minute), "pending"
	if err := s.UpdateJob(ctx, &canceled); err != nil {
		t.Fatalf("UpdateJob(canceled): %v", err)
	}
	late := canceled
	late.Status, late.Progress = store.JobRunning, []byte(`{"pages":9}`)
	if err := s.UpdateJob(ctx, &late); !errors.Is(err, store.ErrConflict) {
		t.Errorf("late progress on a canceled job: err = %v, want ErrConflict", err)
	}
	late2 := canceled
	late2.Progress, late2.CallbackState = []byte(`{"pages":9}`), "delivered"
	if err := s.UpdateJob(ctx, &late2); !errors.Is(err, store.ErrConflict) {
		t.Errorf("progress with a callback change on a canceled job: err = %v, want ErrConflict", err)
	}
	if g, _ := s.Job(ctx, a.ID, j.ID); g == nil || g.Status != store.JobCanceled || len(g.Progress) != 0 || g.CallbackState != "pending" {
		t.Errorf("a refused update changed the job: %+v", g)
	}
	cb := canceled
	cb.CallbackState = "delivered"
	cb.UpdatedAt = base.Add(5 * time.Minute)
	if err := s.UpdateJob(ctx, &cb); err != nil {
		t.Fatalf("UpdateJob(callback delivered): %v", err)
	}
	g, err := s.Job(ctx, a.ID, j.ID)
	if err != nil || g.Status != store.JobCanceled || g.CallbackState != "delivered" || !g.UpdatedAt.Equal(base.Add(5*time.Minute)) {
		t.Errorf("after callback update: %+v, %v; want canceled, delivered", g, err)
	}
}

func testUnfinished(ctx context.Context, t *testing.T, s store.Store) {
	a := mustAccount(ctx, t, s, "u1@example.com")
	b := mustAccount(ctx, t, s, "u2@example.com")
	// Created out of order; Unfinished must sort by creation time.
	spec := []struct {
		acct   string
		offset time.Duration
		status store.JobStatus
	}{
		{b.ID, 3 * time.Second, store.JobQueued},
		{a.ID, 1 * time.Second, store.JobRunning},
		{a.ID, 2 * time.Second, store.JobSucceeded},
		{b.ID, 0, store.JobQueued},
		{a.ID, 4 * time.Second, store.JobFailed},
	}
	idAt := map[time.Duration]string{}
	for _, sp := range spec {
		j := &store.Job{AccountID: sp.acct, Kind: "site", Status: sp.status, CreatedAt: base.Add(sp.offset)}
		if err := s.CreateJob(ctx, j); err != nil {
			t.Fatalf("CreateJob: %v", err)
		}
		idAt[sp.offset] = j.ID
	}
	got, err := s.Unfinished(ctx)
	if err != nil {
		t.Fatalf("Unfinished: %v", err)
	}
	want := []string{idAt[0], idAt[time.Second], idAt[3*time.Second]}
	if fmt.Sprint(ids(got)) != fmt.Sprint(want) {
		t.Errorf("Unfinished = %v, want %v (queued and running, oldest first)", ids(got), want)
	}
}

func ids(js []store.Job) []string {
	var out []string
	for _, j := range js {
		out = append(out, j.ID)
	}
	return out
}
