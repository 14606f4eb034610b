package httpapi

import (
	"context"
	"testing"
	"time"

	"github.com/seokit/seokit/httpapi/store"
)

// TestJobKinds: each kind's queued ID reads back as that kind, and a rank
// check's ID gives back its schedule and due time to the microsecond.
func TestJobKinds(t *testing.T) {
	due := time.Date(2026, 3, 29, 1, 0, 0, 123456000, time.UTC)
	rc := rankCheckJob{AccountID: "acc_1", ScheduleID: "sch_abc", Due: due}
	tests := []struct {
		id   string
		kind JobKind
	}{
		{"job_abc", JobSiteAnalysis},
		{helperID("job_abc", 2), JobCrawlHelper},
		{rc.queueID(), JobRankCheck},
		{"log_abc", JobLogParse},
		{"rankcheck~sch_abc", JobSiteAnalysis},      // no due time
		{"rankcheck~@123", JobSiteAnalysis},         // no schedule
		{"rankcheck~sch_abc@soon", JobSiteAnalysis}, // not a time
	}
	for _, tc := range tests {
		if got := KindOf(tc.id); got != tc.kind {
			t.Errorf("KindOf(%q) = %s, want %s", tc.id, got, tc.kind)
		}
	}
	got, ok := parseRankCheckID(rc.queueID())
	if !ok || got.ScheduleID != rc.ScheduleID || !got.Due.Equal(due) {
		t.Errorf("parseRankCheckID(%q) = %+v, %v; want schedule %s due %v", rc.queueID(), got, ok, rc.ScheduleID, due)
	}
}

// TestRankCheckLane: on the in-process queue a rank check runs while its
// one site worker is held by a site analysis: rank checks have a lane of
// their own.
func TestRankCheckLane(t *testing.T) {
	q := newLocalQueue(1, 0)
	siteStarted, release := make(chan struct{}), make(chan struct{})
	rankRan := make(chan string, 1)
	run := func(ctx context.Context, _, id string) error {
		if KindOf(id) == JobRankCheck {
			rankRan <- id
			return nil
		}
		close(siteStarted)
		select {
		case <-release:
		case <-ctx.Done():
		}
		return nil
	}
	if err := q.Start(context.Background(), run); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { q.Stop(context.Background()) })
	ctx := context.Background()
	if err := q.Enqueue(ctx, &store.Job{ID: "job_busy", AccountID: "acc"}); err != nil {
		t.Fatal(err)
	}
	<-siteStarted
	rc := rankCheckJob{AccountID: "acc", ScheduleID: "sch_1", Due: time.Now()}
	if err := q.Enqueue(ctx, &store.Job{ID: rc.queueID(), AccountID: "acc"}); err != nil {
		t.Fatal(err)
	}
	select {
	case id := <-rankRan:
		if id != rc.queueID() {
			t.Fatalf("ran %q, want the rank check %q", id, rc.queueID())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the rank check did not run in 30 s while the site worker was busy")
	}
	close(release)
}
