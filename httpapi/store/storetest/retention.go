package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

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
