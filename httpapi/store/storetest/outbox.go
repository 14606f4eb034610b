package storetest

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/seokit/seokit/httpapi/store"
)

// mustEnd creates a queued job of the account with a callback URL (none
// when url is "") and stores its final state at the given time, with its
// callback pending when it has a URL.
func mustEnd(ctx context.Context, t *testing.T, s store.Store, accountID, url string, status store.JobStatus, at time.Time) *store.Job {
	t.Helper()
	j := &store.Job{AccountID: accountID, Kind: "site", CallbackURL: url, CreatedAt: at.Add(-time.Minute)}
	if err := s.CreateJob(ctx, j); err != nil {
		t.Fatalf("CreateJob: %v", err)
	}
	j.Status, j.FinishedAt, j.UpdatedAt = status, at, at
	if url != "" {
		j.CallbackState = store.DeliveryPending
	}
	if err := s.UpdateJob(ctx, j); err != nil {
		t.Fatalf("UpdateJob to %s: %v", status, err)
	}
	return j
}

func deliveryJobs(ds []store.Delivery) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.JobID)
	}
	return out
}

// testCallbackDeliveries: a job's final state queues its callback once,
// in the outbox with the alerts; its outcome lands on the job.
func testCallbackDeliveries(ctx context.Context, t *testing.T, s store.Store) {
	a := mustAccount(ctx, t, s, "callbacks@example.com")
	const hook = "https://hooks.example.com/done"

	// A running job, and a finished one without a callback URL, queue
	// nothing.
	run := &store.Job{AccountID: a.ID, Kind: "site", CallbackURL: hook, CreatedAt: base}
	if err := s.CreateJob(ctx, run); err != nil {
		t.Fatal(err)
	}
	run.Status, run.StartedAt = store.JobRunning, base
	if err := s.UpdateJob(ctx, run); err != nil {
		t.Fatal(err)
	}
	mustEnd(ctx, t, s, a.ID, "", store.JobSucceeded, base)
	if ds, err := s.ClaimDeliveries(ctx, base.Add(time.Hour), time.Minute, 10, 0); err != nil || len(ds) != 0 {
		t.Fatalf("claim with no finished callback job = %+v, %v; want none", ds, err)
	}

	ok := mustEnd(ctx, t, s, a.ID, hook, store.JobSucceeded, base)
	// The final state stored again (a worker retrying its write) is
	// accepted and queues no second delivery.
	if err := s.UpdateJob(ctx, ok); err != nil {
		t.Fatalf("UpdateJob of the same final state: %v", err)
	}
	// Not due before the job ended.
	if ds, err := s.ClaimDeliveries(ctx, base.Add(-time.Second), time.Minute, 10, 0); err != nil || len(ds) != 0 {
		t.Fatalf("claim before the job ended = %+v, %v; want none", ds, err)
	}
	ds, err := s.ClaimDeliveries(ctx, base, time.Minute, 10, 0)
	if err != nil || len(ds) != 1 {
		t.Fatalf("ClaimDeliveries = %+v, %v; want the callback", ds, err)
	}
	d := ds[0]
	if d.Kind != store.DeliveryCallback || d.JobID != ok.ID || d.AccountID != a.ID || d.Target != hook || d.State != store.DeliveryPending ||
		d.Attempts != 0 || d.Payload != nil || d.ProjectID != "" || d.RuleID != "" || !d.LeaseUntil.Equal(base.Add(time.Minute)) || d.ID[:4] != "dlv_" {
		t.Errorf("callback delivery %+v", d)
	}

	// A failed attempt: pending again, due later, its payload kept.
	d.Attempts, d.LastError, d.NextAttempt, d.Payload = 1, "hooks.example.com answered 500", base.Add(10*time.Second), []byte(`{"id":"`+ok.ID+`"}`)
	if err := s.UpdateDelivery(ctx, &d); err != nil {
		t.Fatalf("UpdateDelivery (retry): %v", err)
	}
	if ds, err := s.ClaimDeliveries(ctx, base.Add(5*time.Second), time.Minute, 10, 0); err != nil || len(ds) != 0 {
		t.Errorf("claim before the retry is due = %+v, %v; want none (the lease ended, the retry waits)", ds, err)
	}
	ds, err = s.ClaimDeliveries(ctx, base.Add(10*time.Second), time.Minute, 10, 0)
	if err != nil || len(ds) != 1 || ds[0].Attempts != 1 || string(ds[0].Payload) != `{"id":"`+ok.ID+`"}` || ds[0].LastError == "" {
		t.Fatalf("claim of the retry = %+v, %v", ds, err)
	}
	d = ds[0]
	d.Attempts, d.State, d.DeliveredAt, d.LastError = 2, store.DeliveryDelivered, base.Add(11*time.Second), ""
	if err := s.UpdateDelivery(ctx, &d); err != nil {
		t.Fatalf("UpdateDelivery (delivered): %v", err)
	}
	if j, err := s.Job(ctx, a.ID, ok.ID); err != nil || j.CallbackState != store.DeliveryDelivered || j.Status != store.JobSucceeded {
		t.Errorf("job after its callback was delivered: %+v, %v", j, err)
	}
	// Delivered callbacks leave the outbox: the job holds the outcome.
	if err := s.UpdateDelivery(ctx, &d); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("UpdateDelivery of a delivered callback again: %v, want ErrNotFound", err)
	}
	if ds, err := s.ClaimDeliveries(ctx, base.Add(time.Hour), time.Minute, 10, 0); err != nil || len(ds) != 0 {
		t.Errorf("claim after delivery = %+v, %v; want none", ds, err)
	}
	// A job that has ended cannot queue its callback again.
	ok.CallbackState = store.DeliveryPending
	if err := s.UpdateJob(ctx, ok); err != nil {
		t.Fatal(err)
	}
	if ds, err := s.ClaimDeliveries(ctx, base.Add(time.Hour), time.Minute, 10, 0); err != nil || len(ds) != 0 {
		t.Errorf("claim after a final job's callback state was set again = %+v, %v; want none", ds, err)
	}

	// Given up: the job says failed. A canceled job queues its callback
	// like any other final state.
	bad := mustEnd(ctx, t, s, a.ID, hook, store.JobCanceled, base.Add(time.Hour))
	ds, err = s.ClaimDeliveries(ctx, base.Add(time.Hour), time.Minute, 10, 0)
	if err != nil || len(ds) != 1 || ds[0].JobID != bad.ID {
		t.Fatalf("claim of the canceled job's callback = %+v, %v", ds, err)
	}
	d = ds[0]
	d.Attempts, d.State, d.LastError = 5, store.DeliveryFailed, "timeout"
	if err := s.UpdateDelivery(ctx, &d); err != nil {
		t.Fatalf("UpdateDelivery (failed): %v", err)
	}
	if j, err := s.Job(ctx, a.ID, bad.ID); err != nil || j.CallbackState != store.DeliveryFailed {
		t.Errorf("job after its callback failed: %+v, %v", j, err)
	}
	// Callbacks are not lines of any project's alert log.
	p := mustProject(ctx, t, s, a.ID, "shop.example.com", base)
	pj := &store.Job{AccountID: a.ID, ProjectID: p.ID, Kind: "site", CallbackURL: hook, CreatedAt: base}
	if err := s.CreateJob(ctx, pj); err != nil {
		t.Fatal(err)
	}
	pj.Status, pj.CallbackState, pj.FinishedAt = store.JobFailed, store.DeliveryPending, base
	if err := s.UpdateJob(ctx, pj); err != nil {
		t.Fatal(err)
	}
	if log, err := s.AlertDeliveries(ctx, a.ID, p.ID, 0); err != nil || len(log) != 0 {
		t.Errorf("AlertDeliveries lists %d callbacks, %v", len(log), err)
	}
	// Deleting the project keeps its job's callback.
	if err := s.DeleteProject(ctx, a.ID, p.ID); err != nil {
		t.Fatal(err)
	}
	if ds, err := s.ClaimDeliveries(ctx, base.Add(2*time.Hour), time.Minute, 10, 0); err != nil || len(ds) != 1 || ds[0].JobID != pj.ID {
		t.Errorf("callback of a deleted project's job = %+v, %v", ds, err)
	}
}

// testClaimPerAccount: ClaimDeliveries holds each account to perAccount
// leases at once, counting leases taken by earlier claims, and reaches
// other accounts' deliveries behind one account's backlog.
func testClaimPerAccount(ctx context.Context, t *testing.T, s store.Store) {
	busy := mustAccount(ctx, t, s, "busy@example.com")
	quiet := mustAccount(ctx, t, s, "quiet@example.com")
	const hook = "https://hooks.example.com/x"
	var backlog []string
	for i := range 6 {
		backlog = append(backlog, mustEnd(ctx, t, s, busy.ID, hook, store.JobSucceeded, base.Add(time.Duration(i)*time.Second)).ID)
	}
	// The quiet account's callback is newer than the whole backlog.
	other := mustEnd(ctx, t, s, quiet.ID, hook, store.JobFailed, base.Add(time.Minute))
	at := base.Add(2 * time.Minute)

	ds, err := s.ClaimDeliveries(ctx, at, time.Minute, 3, 2)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprint(deliveryJobs(ds)), fmt.Sprint([]string{backlog[0], backlog[1], other.ID}); got != want {
		t.Fatalf("ClaimDeliveries(limit 3, 2 per account) = %v, want %v (the busy account's two oldest, then the quiet one)", got, want)
	}
	// The busy account holds its two leases: nothing more of it.
	if ds, err := s.ClaimDeliveries(ctx, at, time.Minute, 10, 2); err != nil || len(ds) != 0 {
		t.Errorf("claim while the account holds 2 leases = %v, %v; want none", deliveryJobs(ds), err)
	}
	// One attempt ends (a retry later): one more of the busy account fits.
	first := ds0(t, ds, backlog[0])
	first.Attempts, first.NextAttempt, first.LastError = 1, at.Add(time.Hour), "timeout"
	if err := s.UpdateDelivery(ctx, first); err != nil {
		t.Fatal(err)
	}
	ds, err = s.ClaimDeliveries(ctx, at, time.Minute, 10, 2)
	if err != nil || fmt.Sprint(deliveryJobs(ds)) != fmt.Sprint([]string{backlog[2]}) {
		t.Errorf("claim after one lease ended = %v, %v; want %s", deliveryJobs(ds), err, backlog[2])
	}
	stale := *ds0(t, ds, backlog[2])
	// Leases that expired (an instance that stopped) count no more, and
	// their deliveries are claimed again.
	later := at.Add(2 * time.Minute)
	ds, err = s.ClaimDeliveries(ctx, later, time.Minute, 10, 2)
	if want := []string{backlog[1], backlog[2], other.ID}; err != nil || fmt.Sprint(deliveryJobs(ds)) != fmt.Sprint(want) {
		t.Errorf("claim after the leases expired = %v, %v; want %v", deliveryJobs(ds), err, want)
	}
	// The worker whose lease expired writes nothing over the new claim.
	stale.Attempts, stale.State = 1, store.DeliveryFailed
	if err := s.UpdateDelivery(ctx, &stale); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("UpdateDelivery under an expired lease: %v, want ErrNotFound", err)
	}
	if j, err := s.Job(ctx, busy.ID, backlog[2]); err != nil || j.CallbackState != store.DeliveryPending {
		t.Errorf("job after a stale update: %+v, %v; want its callback pending", j, err)
	}
	// No cap: everything due.
	ds, err = s.ClaimDeliveries(ctx, later.Add(2*time.Minute), time.Minute, 10, 0)
	if err != nil || len(ds) != 6 { // backlog[1:], other; backlog[0] waits for its retry
		t.Errorf("claim without a cap = %v, %v; want 6", deliveryJobs(ds), err)
	}

	// Concurrent claims keep the cap exact and hand each delivery out
	// once.
	many := mustAccount(ctx, t, s, "many@example.com")
	for i := range 8 {
		mustEnd(ctx, t, s, many.ID, hook, store.JobSucceeded, base.Add(time.Duration(i)*time.Second))
	}
	var (
		mu   sync.Mutex
		seen []string
		wg   sync.WaitGroup
	)
	errs := make(chan error, 4)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ds, err := s.ClaimDeliveries(ctx, later.Add(2*time.Minute), time.Hour, 10, 3)
			if err != nil {
				errs <- err
				return
			}
			mu.Lock()
			for _, d := range ds {
				if d.AccountID == many.ID {
					seen = append(seen, d.ID)
				}
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if !errors.Is(err, store.ErrUnavailable) && !errors.Is(err, store.ErrConflict) { // a serialisation failure may refuse a claim
			t.Errorf("concurrent claim: %v", err)
		}
	}
	sort.Strings(seen)
	for i := 1; i < len(seen); i++ {
		if seen[i] == seen[i-1] {
			t.Errorf("delivery %s handed out twice", seen[i])
		}
	}
	if len(seen) > 3 {
		t.Errorf("concurrent claims leased %d deliveries of one account, cap 3", len(seen))
	}
}

func ds0(t *testing.T, ds []store.Delivery, jobID string) *store.Delivery {
	t.Helper()
	for i := range ds {
		if ds[i].JobID == jobID {
			return &ds[i]
		}
	}
	t.Fatalf("no delivery of job %s in %v", jobID, deliveryJobs(ds))
	return nil
}
