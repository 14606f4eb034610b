package storetest

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/seokit/seokit/httpapi/store"
)

// testIndexRuns: a run is started once per analysis while it runs within
// its lease, updated only by its own run ID, replaced once finished or
// abandoned, and scoped to its account.
func testIndexRuns(ctx context.Context, t *testing.T, s store.Store, is store.IndexStatus) {
	a := mustAccount(ctx, t, s, "index-runs@example.com")
	b := mustAccount(ctx, t, s, "other-index-runs@example.com")
	j := &store.Job{AccountID: a.ID, Kind: "site", Request: []byte(`{"domain":"example.com"}`), CreatedAt: base}
	if err := s.CreateJob(ctx, j); err != nil {
		t.Fatalf("CreateJob: %v", err)
	}
	if _, err := is.IndexRun(ctx, a.ID, j.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("IndexRun before any = %v, want ErrNotFound", err)
	}
	r1 := &store.IndexRun{AccountID: a.ID, AnalysisID: j.ID, Property: "sc-domain:example.com", StartedAt: base, LeaseUntil: base.Add(time.Minute), Progress: []byte(`{"done":0}`)}
	cur, started, err := is.StartIndexRun(ctx, r1)
	if err != nil || !started || cur.RunID == "" || cur.RunID != r1.RunID || cur.Status != store.IndexRunning {
		t.Fatalf("StartIndexRun = %+v, %v, %v; want a new running run", cur, started, err)
	}
	r2 := &store.IndexRun{AccountID: a.ID, AnalysisID: j.ID, Property: "sc-domain:example.com", StartedAt: base.Add(30 * time.Second), LeaseUntil: base.Add(2 * time.Minute)}
	cur, started, err = is.StartIndexRun(ctx, r2)
	if err != nil || started || cur.RunID != r1.RunID {
		t.Fatalf("a second StartIndexRun within the lease = %+v, %v, %v; want the first run", cur, started, err)
	}
	r1.Status, r1.Progress, r1.Report, r1.LeaseUntil = store.IndexSucceeded, []byte(`{"done":2}`), []byte(`{"pages":[1,2]}`), time.Time{}
	r1.UpdatedAt = base.Add(40 * time.Second)
	if err := is.UpdateIndexRun(ctx, r1); err != nil {
		t.Fatalf("UpdateIndexRun: %v", err)
	}
	got, err := is.IndexRun(ctx, a.ID, j.ID)
	if err != nil || got.Status != store.IndexSucceeded || string(got.Report) != `{"pages":[1,2]}` || string(got.Progress) != `{"done":2}` ||
		!got.StartedAt.Equal(base) || !got.UpdatedAt.Equal(base.Add(40*time.Second)) {
		t.Fatalf("IndexRun after update = %+v, %v", got, err)
	}
	if _, err := is.IndexRun(ctx, b.ID, j.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("another account's IndexRun = %v, want ErrNotFound", err)
	}
	// A finished run is replaced by the next; the old one can no longer
	// write.
	r3 := &store.IndexRun{AccountID: a.ID, AnalysisID: j.ID, Property: "https://example.com/", StartedAt: base.Add(time.Hour), LeaseUntil: base.Add(time.Hour + time.Minute)}
	if cur, started, err = is.StartIndexRun(ctx, r3); err != nil || !started || cur.Property != "https://example.com/" || cur.Report != nil {
		t.Fatalf("StartIndexRun after a finished run = %+v, %v, %v", cur, started, err)
	}
	if err := is.UpdateIndexRun(ctx, r1); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("UpdateIndexRun of a replaced run = %v, want ErrNotFound", err)
	}
	// A running run past its lease was abandoned: a new start replaces it.
	r4 := &store.IndexRun{AccountID: a.ID, AnalysisID: j.ID, Property: "sc-domain:example.com", StartedAt: base.Add(time.Hour + 2*time.Minute)}
	if cur, started, err = is.StartIndexRun(ctx, r4); err != nil || !started || cur.RunID != r4.RunID {
		t.Fatalf("StartIndexRun past the lease = %+v, %v, %v; want the new run", cur, started, err)
	}
	if err := is.UpdateIndexRun(ctx, &store.IndexRun{AccountID: a.ID, AnalysisID: j.ID, RunID: r4.RunID, Report: make([]byte, store.MaxIndexRunBytes+1)}); err == nil {
		t.Errorf("UpdateIndexRun of an oversized report succeeded")
	}

	// The merged report replaces a succeeded job's, and only its.
	if err := is.ReplaceJobResult(ctx, a.ID, j.ID, []byte(`{"merged":true}`), nil); !errors.Is(err, store.ErrConflict) {
		t.Errorf("ReplaceJobResult of a queued job = %v, want ErrConflict", err)
	}
	j.Status, j.Result, j.Summary, j.FinishedAt = store.JobSucceeded, []byte(`{"merged":false}`), []byte(`{"n":1}`), base
	if err := s.UpdateJob(ctx, j); err != nil {
		t.Fatalf("UpdateJob: %v", err)
	}
	if err := is.ReplaceJobResult(ctx, a.ID, j.ID, []byte(`{"merged":true}`), []byte(`{"n":2}`)); err != nil {
		t.Fatalf("ReplaceJobResult: %v", err)
	}
	if got, err := s.Job(ctx, a.ID, j.ID); err != nil || string(got.Result) != `{"merged":true}` || string(got.Summary) != `{"n":2}` || got.Status != store.JobSucceeded {
		t.Errorf("Job after ReplaceJobResult = %+v, %v", got, err)
	}
	if err := is.ReplaceJobResult(ctx, b.ID, j.ID, []byte(`{}`), nil); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("ReplaceJobResult of another account's job = %v, want ErrNotFound", err)
	}
}

// testInspectionQuota: a property's inspections stay within the minute
// (counting those in flight) and the day, a place frees a minute after
// its inspection ended, an abandoned one after the lease, and properties
// and days are counted apart.
func testInspectionQuota(ctx context.Context, t *testing.T, is store.IndexStatus) {
	const prop, day = "sc-domain:example.com", "2026-03-14"
	take := func(at time.Time, perMinute, perDay int) (*store.InspectionTicket, time.Time, error) {
		t.Helper()
		return is.TakeInspection(ctx, prop, day, at, perMinute, perDay, 5*time.Minute)
	}
	var tickets []*store.InspectionTicket
	for i := range 3 {
		tk, _, err := take(base, 3, 5)
		if err != nil || tk == nil {
			t.Fatalf("TakeInspection %d = %v, %v; want a ticket", i, tk, err)
		}
		tickets = append(tickets, tk)
	}
	if tk, retry, err := take(base, 3, 5); err != nil || tk != nil || !retry.IsZero() {
		t.Fatalf("a 4th TakeInspection with 3 in flight = %v, %v, %v; want no ticket and no retry time", tk, retry, err)
	}
	if err := is.EndInspection(ctx, tickets[0], base.Add(time.Second)); err != nil {
		t.Fatalf("EndInspection: %v", err)
	}
	tk, retry, err := take(base.Add(30*time.Second), 3, 5)
	if err != nil || tk != nil || !retry.Equal(base.Add(61*time.Second)) {
		t.Fatalf("TakeInspection 30s after an end = %v, %v, %v; want retry at %v", tk, retry, err, base.Add(61*time.Second).UTC())
	}
	if tk, _, err = take(base.Add(61*time.Second), 3, 5); err != nil || tk == nil {
		t.Fatalf("TakeInspection a minute after an end = %v, %v; want a ticket", tk, err)
	}
	// The two still in flight are abandoned past the lease: their places
	// free, and the day's fifth inspection takes one.
	if tk, _, err := take(base.Add(6*time.Minute), 3, 5); err != nil || tk == nil {
		t.Fatalf("TakeInspection past the lease = %v, %v; want a ticket", tk, err)
	}
	n, err := is.Inspections(ctx, prop, day)
	if err != nil || n != 5 {
		t.Fatalf("Inspections = %d, %v; want 5", n, err)
	}
	var le *store.LimitError
	if _, _, err := take(base.Add(time.Hour), 3, 5); !errors.As(err, &le) || !errors.Is(err, store.ErrLimitReached) || le.Count != 5 {
		t.Fatalf("TakeInspection with the day spent = %v, want a *LimitError at 5", err)
	}
	if tk, _, err := is.TakeInspection(ctx, prop, "2026-03-15", base.Add(2*time.Hour), 3, 5, time.Minute); err != nil || tk == nil {
		t.Errorf("TakeInspection on the next day = %v, %v; want a ticket", tk, err)
	}
	if tk, _, err := is.TakeInspection(ctx, "https://other.example/", day, base, 3, 5, time.Minute); err != nil || tk == nil {
		t.Errorf("TakeInspection of another property = %v, %v; want a ticket", tk, err)
	}
	if _, _, err := is.TakeInspection(ctx, "", day, base, 3, 5, time.Minute); err == nil {
		t.Errorf("TakeInspection without a property succeeded")
	}
}

// testInspectionRace: many takers at once never hold more places than
// the minute allows, nor count more than the day allows.
func testInspectionRace(ctx context.Context, t *testing.T, is store.IndexStatus) {
	const perMinute, perDay, takers = 7, 1000, 24
	var (
		wg  sync.WaitGroup
		mu  sync.Mutex
		got int
		bad error
	)
	for range takers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tk, _, err := is.TakeInspection(ctx, "sc-domain:race.example", "2026-03-14", base, perMinute, perDay, time.Minute)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				bad = err
			}
			if tk != nil {
				got++
			}
		}()
	}
	wg.Wait()
	if bad != nil {
		t.Fatalf("TakeInspection: %v", bad)
	}
	if got != perMinute {
		t.Errorf("%d concurrent takers got %d places, want exactly %d", takers, got, perMinute)
	}
	if n, _ := is.Inspections(ctx, "sc-domain:race.example", "2026-03-14"); n != got {
		t.Errorf("Inspections = %d, want %d", n, got)
	}
	// The day's count is atomic too.
	for range takers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tk, _, err := is.TakeInspection(ctx, "sc-domain:day.example", "2026-03-14", base, 1000, 5, time.Minute)
			mu.Lock()
			defer mu.Unlock()
			if tk != nil {
				got++
			} else if !errors.Is(err, store.ErrLimitReached) {
				bad = err
			}
		}()
	}
	wg.Wait()
	if n, _ := is.Inspections(ctx, "sc-domain:day.example", "2026-03-14"); n != 5 || got != perMinute+5 || bad != nil {
		t.Errorf("day race: counted %d, tickets %d, err %v; want 5 counted and 5 tickets", n, got-perMinute, bad)
	}
}
