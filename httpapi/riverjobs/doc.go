// Package riverjobs runs the HTTP API's site analyses and scheduled rank
// checks on River (github.com/riverqueue/river), a job queue on
// PostgreSQL, so that several identical instances of the service share
// the work.
//
// Every instance opens the API store on the same PostgreSQL database
// (httpapi/store/sqlstore with a postgres:// DSN), creates a Queue over a
// pgxpool.Pool of that database and passes it as httpapi.Options.Queue:
//
//	pool, _ := pgxpool.New(ctx, dsn)
//	st, _ := sqlstore.Open(ctx, dsn, nil)
//	q, _ := riverjobs.New(ctx, pool, nil)
//	srv, _ := httpapi.New(ctx, &httpapi.Options{Store: st, Queue: q, CallbackSecret: secret})
//	_ = srv.Start(ctx) // the workers, the periodic jobs and the outbox
//	defer srv.Close()
//
// # What is shared and where
//
// A job's state (status, progress, result, callback state) lives in the
// store's jobs table, so GET /v1/analyze/site/{id} answers the same on
// every instance. River's river_job table only says which job should run
// next: a site analysis is one River job of kind "seokit.site_analysis"
// whose arguments are the account and job IDs. Any instance accepts the
// POST and inserts the River job; any instance's worker (Options.Workers
// per instance) runs it through the server's RunFunc, which writes
// progress to the store about once a second.
//
// A River job is unique by its arguments while it waits or runs, so
// Server.Start of every instance may hand the queue the store's
// unfinished jobs without running any twice.
//
// # Failures
//
//   - Cancel: DELETE on any instance marks the job canceled in the store
//     (a final state that later writes cannot undo). The worker running it,
//     wherever it is, sees that within about a second (its progress write
//     is refused, or its status check finds the job final), stops the
//     crawl and delivers the callback.
//   - Shutdown: Server.Close stops the River client; running jobs are
//     snoozed back to available and another instance starts them again
//     at once, from the job's frontier (httpapi.Options.Frontiers) where
//     it is shared, else from the beginning. A callback still being retried is sent
//     by the instance that takes the job.
//   - A killed instance: River has no heartbeat, so the job stays
//     "running" in river_job until River's rescuer, run by the elected
//     leader instance, finds it older than RescueStuckJobsAfter and
//     schedules it again; another instance then runs it, from where it
//     stopped when the job's frontier is shared.
//     RescueStuckJobsAfter must be at least JobTimeout. Short values
//     restart a killed instance's jobs sooner but may start a second run
//     of a job that is merely long; the first final state stored wins, so
//     that wastes work without corrupting the job.
//   - Each job gets Options.MaxAttempts runs; a job whose last run is lost
//     stays "running" in the store (visible, but no longer worked on).
//
// # Migrations
//
// New calls Migrate, which applies River's own migrations under a
// PostgreSQL advisory lock: instances starting together apply each one
// once. The API store applies its tables itself (sqlstore.Open).
//
// # Periodic jobs
//
// The server's periodic jobs (httpapi.PeriodicJob: the schedule tick
// every httpapi.Options.ScheduleInterval, and the rank re-check every
// RankRecheckInterval) are River periodic jobs of kind "seokit.periodic"
// on their own queue (QueueName + "_periodic", one worker), so a tick
// never waits for a site analysis. Only the elected leader inserts them,
// each unique per period, and one worker of any instance runs each:
// with N instances each period's work runs once. Tracker.RecheckDue
// itself skips keywords already checked that UTC day, so a pass repeated
// after a failure costs no second search.
//
// # Rank checks
//
// The run of a project's rankings schedule is claimed by the tick that
// finds it due (one instance claims each due time in the store) and
// inserted as a job of kind "seokit.rank_check" on its own queue
// (QueueName + "_rank", one worker): any instance runs it once, an
// interrupted one is snoozed and run again, as a site analysis is.
package riverjobs
