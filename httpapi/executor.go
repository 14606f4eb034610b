package httpapi

import (
	"context"
	"strconv"
	"strings"
	"time"
)

// JobKind is the kind of work a queued job ID stands for (the ID handed
// to Queue.Enqueue and back to the RunFunc). A Queue may run the kinds on
// separate lanes (riverjobs gives each its own River kind); the server's
// RunFunc reads the kind from the ID.
type JobKind string

// The kinds of queued work.
const (
	// JobSiteAnalysis is a stored site analysis (its job ID).
	JobSiteAnalysis JobKind = "site_analysis"
	// JobCrawlHelper is a helper run of a shared crawl ("job_…~w1").
	JobCrawlHelper JobKind = "crawl_helper"
	// JobRankCheck is the run of a project's rankings schedule for one
	// due time ("rankcheck~sch_…@<due, Unix µs>").
	JobRankCheck JobKind = "rank_check"
)

// KindOf returns the kind of the queued job id.
func KindOf(id string) JobKind {
	if _, ok := parseRankCheckID(id); ok {
		return JobRankCheck
	}
	if _, ok := parseHelperID(id); ok {
		return JobCrawlHelper
	}
	return JobSiteAnalysis
}

// rankCheckPrefix starts the queued ID of a rank check; job IDs never
// hold "~".
const rankCheckPrefix = "rankcheck~"

// queueID is the queued ID of the rank check.
func (j rankCheckJob) queueID() string {
	return rankCheckPrefix + j.ScheduleID + "@" + strconv.FormatInt(j.Due.UnixMicro(), 10)
}

// parseRankCheckID reads the schedule and due time of a rank check's
// queued ID; ok is false for any other ID.
func parseRankCheckID(id string) (j rankCheckJob, ok bool) {
	rest, ok := strings.CutPrefix(id, rankCheckPrefix)
	if !ok {
		return j, false
	}
	i := strings.LastIndexByte(rest, '@')
	if i <= 0 {
		return j, false
	}
	us, err := strconv.ParseInt(rest[i+1:], 10, 64)
	if err != nil {
		return j, false
	}
	return rankCheckJob{ScheduleID: rest[:i], Due: time.UnixMicro(us).UTC()}, true
}

// execute is the server's RunFunc: it runs the queued job id of the
// account by its kind's Work.
func (s *Server) execute(ctx context.Context, accountID, id string) error {
	if rc, ok := parseRankCheckID(id); ok {
		rc.AccountID = accountID
		return s.rankCheck(ctx, rc)
	}
	if jobID, ok := parseHelperID(id); ok {
		return s.runHelper(ctx, accountID, jobID)
	}
	return s.runJob(ctx, accountID, id)
}
