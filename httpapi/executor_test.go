package httpapi

import (
	"testing"
	"time"
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
