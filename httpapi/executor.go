package httpapi

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/seokit/seokit/httpapi/store"
)

// The executor runs every kind of background work: a Queue (the
// in-process one, localqueue.go, or River, httpapi/riverjobs) hands the
// queued IDs back to the server's RunFunc, execute, which runs the kind's
// Work; periodic work is a PeriodicJob the queue runs every period. Each
// Work only does the work and returns an error; the executor owns the
// state moves, the retries and the cancellation around it:
//
//	kind                 Work                          executor
//	site analysis        runJob (work_site.go)         Queue: RunFunc; state in the store, moved by runJob's phases;
//	                                                   ErrJobInterrupted runs it again (River: snooze; local: next Start)
//	shared-crawl helper  runHelper (frontiers.go)      Queue: RunFunc, ID from helperID
//	rank check           rankCheck (work_rank.go)      Queue: RunFunc, ID from rankCheckJob.queueID, queued by a tick
//	log parse            runLogJob (logs.go)           Queue: RunFunc, ID starting with logJobPrefix ("log_")
//	schedule tick        scheduleTick (work_schedule)  Queue: PeriodicJob (one leader with River)
//	outbox poll          outboxPollWork (outbox.go)    Queue: PeriodicJob (one leader with River)
//	rank re-check        rankRecheck (runtime.go)      Queue: PeriodicJob (one leader with River)
//	delivery             outbox.attempt (outbox.go)    the outbox worker: leased claims, one retry rule (settle)
//
// Store writes of a Work retry through retry; a Work stopped by Close or
// a queue's Stop returns an error wrapping ErrJobInterrupted (interrupted),
// and its store writes use storeCtx, which lets a job timeout record the
// failure. Deliveries (job callbacks and alerts) follow one retry rule
// with one signed poster (monitor.Webhook); they are claimed with a lease
// in the store, so each attempt is made by one instance however many run,
// and no receiver ever holds a job worker or a crawl slot. Start and
// Close (runtime.go) start and stop all of it; New starts none.

// Queue hands queued jobs to workers: site analyses, their helper runs
// and rank checks (JobKind). The Server keeps every site analysis in its
// store (status, progress, result, callback state); the queue only
// decides where and when a job runs. A nil Options.Queue means the
// in-process queue: Options.JobWorkers goroutines in this process. The
// riverjobs package is a driver that shares the work between instances
// over PostgreSQL.
//
// A Queue serves one Server: Server.Start calls Start once and Close
// calls Stop. A queue that also runs periodic jobs is a PeriodicQueue.
type Queue interface {
	// Start starts the workers, which call run for each job.
	Start(ctx context.Context, run RunFunc) error
	// Enqueue hands a job to the workers; only j.ID (a stored job's ID,
	// or another kind's queued ID, KindOf) and j.AccountID are read.
	// Enqueueing a job already waiting or running may be ignored; a job
	// whose work is over is run again, which only delivers a callback
	// still pending.
	Enqueue(ctx context.Context, j *store.Job) error
	// Stop stops the workers: the contexts of running jobs are canceled,
	// and Stop waits until their RunFunc calls return or ctx ends. Jobs so
	// interrupted stay unfinished in the store and run again later.
	Stop(ctx context.Context) error
}

// RunFunc runs one queued job (jobID is the queued ID, KindOf) to its
// end. It returns nil when there is nothing left to do (the job reached a final state and its callback is
// delivered or given up, or the job no longer exists) and an error
// wrapping ErrJobInterrupted when ctx ended first and the job must run
// again. A ctx that ends with context.DeadlineExceeded (a job timeout)
// fails the job instead.
type RunFunc func(ctx context.Context, accountID, jobID string) error

// ErrJobInterrupted is wrapped by the error of a RunFunc stopped before the
// job's end: the queue should run the job again.
var ErrJobInterrupted = errors.New("httpapi: job interrupted")

// PeriodicJob is work a queue runs every Interval, such as the schedule
// tick. Work only does the work; an error is logged and the next period
// runs again.
type PeriodicJob struct {
	// Name identifies the job among the server's periodic jobs
	// ("seokit.schedule_tick"); a shared queue stores it with each run.
	Name string
	// Interval is the time between two runs; it must be positive.
	Interval time.Duration
	// Work runs one period's work; ctx ends when the queue stops.
	Work func(ctx context.Context) error
}

// PeriodicQueue is a Queue that runs periodic jobs itself. A queue shared
// by several instances runs each period's job once over all of them
// (riverjobs: only the elected leader inserts it, and one worker runs
// it). Start hands the queue its periodic jobs before starting it; the
// server runs those of a Queue that is not a PeriodicQueue on a timer in
// its own process.
type PeriodicQueue interface {
	Queue
	// AddPeriodic registers job; it is called before Start.
	AddPeriodic(job PeriodicJob) error
}

// Names of the server's periodic jobs.
const (
	// PeriodicScheduleTick runs the projects' due schedules
	// (RunDueSchedules) every Options.ScheduleInterval.
	PeriodicScheduleTick = "seokit.schedule_tick"
	// PeriodicOutboxPoll wakes the outbox worker to claim the deliveries
	// due (alerts and job callbacks) every Options.AlertPollInterval.
	PeriodicOutboxPoll = "seokit.outbox_poll"
	// PeriodicRankRecheck re-checks the tracked keywords
	// (Tracker.RecheckDue) every Options.RankRecheckInterval.
	PeriodicRankRecheck = "seokit.rank_recheck"
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
	// JobLogParse is the parse of a log file uploaded to a project
	// ("log_…").
	JobLogParse JobKind = "log_parse"
)

// KindOf returns the kind of the queued job id.
func KindOf(id string) JobKind {
	if _, ok := parseRankCheckID(id); ok {
		return JobRankCheck
	}
	if _, ok := parseHelperID(id); ok {
		return JobCrawlHelper
	}
	if strings.HasPrefix(id, logJobPrefix) {
		return JobLogParse
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
	if strings.HasPrefix(id, logJobPrefix) {
		return s.runLogJob(ctx, accountID, id)
	}
	return s.runJob(ctx, accountID, id)
}

// helperSep separates a job ID from the number of one of its helper runs
// in the job ID handed to the queue ("job_…~w1"): job IDs never hold it.
const helperSep = "~w"

// helperID returns the queue's job ID of helper run k of job id.
func helperID(id string, k int) string { return id + helperSep + strconv.Itoa(k) }

// parseHelperID splits a helper run's job ID into the job's ID; ok is false
// for the ID of a job itself.
func parseHelperID(id string) (jobID string, ok bool) {
	i := strings.LastIndex(id, helperSep)
	if i < 0 {
		return id, false
	}
	if _, err := strconv.Atoi(id[i+len(helperSep):]); err != nil {
		return id, false
	}
	return id[:i], true
}

// retry calls f until it succeeds, returns ErrConflict or ErrNotFound, or
// ctx ends, waiting longer after each failure.
func (s *Server) retry(ctx context.Context, what string, f func(ctx context.Context) error) error {
	wait := 100 * time.Millisecond
	for {
		err := f(ctx)
		if err == nil || errors.Is(err, store.ErrConflict) || errors.Is(err, store.ErrNotFound) {
			return err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		s.log.Warn("job store update failed; retrying", "what", what, "err", err)
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return ctx.Err()
		}
		wait = min(2*wait, 5*time.Second)
	}
}

// interrupted is the RunFunc error of a job left for another run.
func interrupted(id string, cause error) error {
	return fmt.Errorf("%w: %s: %w", ErrJobInterrupted, id, cause)
}

// storeCtx is the context of a job's store writes: it ends with the server
// or with the worker's ctx, except that a worker's deadline (a job timeout)
// leaves time to record the failure.
func (s *Server) storeCtx(wctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(s.ctx)
	stop := context.AfterFunc(wctx, func() {
		if !errors.Is(wctx.Err(), context.DeadlineExceeded) {
			cancel()
		}
	})
	return ctx, func() { stop(); cancel() }
}

// logFailure returns work that logs the errors of w, whichever queue
// runs it.
func (s *Server) logFailure(name string, w func(ctx context.Context) error) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		err := w(ctx)
		if err != nil && ctx.Err() == nil {
			s.log.Warn("periodic job failed; it runs again next period", "job", name, "err", err)
		}
		return err
	}
}

// runPeriodic runs p every p.Interval until ctx ends, each run after the
// previous one ended (runs never overlap).
func runPeriodic(ctx context.Context, p PeriodicJob) {
	t := time.NewTicker(p.Interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		_ = p.Work(ctx) // logged by the server (logFailure)
	}
}
