package riverjobs

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"
	"github.com/riverqueue/river/rivertype"

	"github.com/seokit/seokit/httpapi"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/seo"
)

// Job kinds, as stored in River's river_job table.
const (
	KindSiteAnalysis = "seokit.site_analysis"
	// KindPeriodic is a run of one of the server's periodic jobs
	// (httpapi.PeriodicJob, the schedule tick); its arguments name it.
	KindPeriodic = "seokit.periodic"
	// KindRankCheck is the run of a project's rankings schedule for one
	// due time (httpapi.JobRankCheck), queued by the schedule tick that
	// claimed it.
	KindRankCheck = "seokit.rank_check"
)

// Defaults of Options.
const (
	DefaultQueueName    = "seokit"
	DefaultWorkers      = 2
	DefaultJobTimeout   = httpapi.DefaultJobTimeout // the in-process queue's too
	DefaultRescueMargin = 10 * time.Minute
	DefaultMaxAttempts  = 5
)

// migrationLockKey is the PostgreSQL advisory lock held while River's
// migrations run: FNV-64a of "seokit.rivermigrate".
var migrationLockKey = func() int64 {
	h := fnv.New64a()
	h.Write([]byte("seokit.rivermigrate"))
	return int64(h.Sum64())
}()

// Options configures a Queue. A nil *Options, and every zero field, means
// the documented default.
type Options struct {
	// QueueName is the River queue of this service's jobs; empty means
	// "seokit". Instances sharing work must use the same name.
	QueueName string
	// Workers is the number of jobs this instance runs at once; zero
	// means 2.
	Workers int
	// InsertOnly makes an instance that accepts jobs but runs none (an
	// API-only node): no workers, no maintenance, no periodic jobs.
	InsertOnly bool

	// JobTimeout bounds one run of a site analysis; a run still going
	// then is failed with a message saying so. Zero means two hours.
	//
	// It also bounds how long a job whose worker died waits: River has
	// no heartbeat, so a job stays "running" until RescueStuckJobsAfter
	// (and the timeout) has passed since its run started, and only then
	// is retried on another instance.
	JobTimeout time.Duration
	// RescueStuckJobsAfter is how long after a run started River's
	// rescuer treats it as stuck (its instance was killed or lost its
	// database connection) and schedules it again. It must not be less
	// than JobTimeout; zero means JobTimeout plus ten minutes.
	//
	// The trade-off: shorter gets a killed instance's analyses going
	// again sooner, but a run still alive after it (a very large site)
	// is started a second time elsewhere. The first result stored wins
	// and the other run's is discarded, so a too-short value wastes work
	// but never corrupts a job.
	RescueStuckJobsAfter time.Duration
	// MaxAttempts is how many runs a site analysis gets (each kill or
	// rescue counts one); zero means 5. A job whose last run is lost
	// stays "running" in the store.
	MaxAttempts int

	// ID names this instance in River's tables (leader, job attempts);
	// empty means River's default (host name and time).
	ID string
	// Logger receives River's logs and this package's; nil means
	// slog.Default().
	Logger *slog.Logger
}

// Queue is an httpapi.Queue on River over PostgreSQL. Every instance of
// the service creates one over the same database and passes it as
// httpapi.Options.Queue, with an httpapi store on the same PostgreSQL:
// any instance accepts a site analysis, any instance's worker runs it,
// and the job's status, progress and result are in the shared store.
type Queue struct {
	opts   Options
	client *river.Client[pgx.Tx]
	log    *slog.Logger

	mu       sync.Mutex
	run      httpapi.RunFunc
	started  bool
	periodic map[string]httpapi.PeriodicJob
}

var _ httpapi.PeriodicQueue = (*Queue)(nil)

// siteArgs are the arguments of a site analysis: which stored job to run.
type siteArgs struct {
	AccountID string `json:"account_id"`
	JobID     string `json:"job_id"`
}

// Kind returns KindSiteAnalysis.
func (siteArgs) Kind() string { return KindSiteAnalysis }

// rankCheckArgs are the arguments of a rank check: the queued ID the
// server's RunFunc reads (httpapi.KindOf).
type rankCheckArgs struct {
	AccountID string `json:"account_id"`
	JobID     string `json:"job_id"`
}

// Kind returns KindRankCheck.
func (rankCheckArgs) Kind() string { return KindRankCheck }

// periodicArgs are the arguments of a periodic job's run: its name.
type periodicArgs struct {
	Name string `json:"name"`
}

// Kind returns KindPeriodic.
func (periodicArgs) Kind() string { return KindPeriodic }

// New migrates River's tables in pool's database, under an advisory lock
// so that instances starting together do not race, and returns a Queue.
// Pass it to httpapi.New; Server.Start starts the workers and
// Server.Close stops them. Bad options are an *seo.InputError naming the field.
func New(ctx context.Context, pool *pgxpool.Pool, opts *Options) (*Queue, error) {
	if pool == nil {
		return nil, &seo.InputError{Field: "pool", Reason: "is nil", Err: seo.ErrInvalidInput}
	}
	q := &Queue{}
	if opts != nil {
		q.opts = *opts
	}
	o := &q.opts
	if o.Workers < 0 {
		return nil, &seo.InputError{Field: "workers", Value: fmt.Sprint(o.Workers), Reason: "must not be negative", Err: seo.ErrInvalidInput}
	}
	if o.JobTimeout < 0 || o.RescueStuckJobsAfter < 0 || o.MaxAttempts < 0 {
		return nil, &seo.InputError{Field: "options", Reason: "durations and MaxAttempts must not be negative", Err: seo.ErrInvalidInput}
	}
	o.QueueName = cmpOr(o.QueueName, DefaultQueueName)
	if o.Workers == 0 {
		o.Workers = DefaultWorkers
	}
	if o.JobTimeout == 0 {
		o.JobTimeout = DefaultJobTimeout
	}
	if o.RescueStuckJobsAfter == 0 {
		o.RescueStuckJobsAfter = o.JobTimeout + DefaultRescueMargin
	}
	if o.RescueStuckJobsAfter < o.JobTimeout {
		return nil, &seo.InputError{Field: "rescueStuckJobsAfter", Value: o.RescueStuckJobsAfter.String(),
			Reason: "must not be less than JobTimeout (" + o.JobTimeout.String() + ")", Err: seo.ErrInvalidInput}
	}
	if o.MaxAttempts == 0 {
		o.MaxAttempts = DefaultMaxAttempts
	}
	q.log = o.Logger
	if q.log == nil {
		q.log = slog.Default()
	}
	if err := Migrate(ctx, pool); err != nil {
		return nil, err
	}

	cfg := &river.Config{
		ID:                   o.ID,
		Logger:               q.log,
		JobTimeout:           o.JobTimeout,
		RescueStuckJobsAfter: o.RescueStuckJobsAfter,
		MaxAttempts:          o.MaxAttempts,
	}
	if !o.InsertOnly {
		workers := river.NewWorkers()
		river.AddWorker(workers, &siteWorker{q: q})
		river.AddWorker(workers, &periodicWorker{q: q})
		river.AddWorker(workers, &rankCheckWorker{q: q})
		cfg.Workers = workers
		// Periodic jobs and rank checks have their own queues, so that
		// a tick or a rank check never waits for a site analysis's
		// worker, nor a tick for a rank check.
		cfg.Queues = map[string]river.QueueConfig{o.QueueName: {MaxWorkers: o.Workers}, periodicQueue(o.QueueName): {MaxWorkers: 1},
			rankQueue(o.QueueName): {MaxWorkers: 1}}
	}
	client, err := river.NewClient(riverpgxv5.New(pool), cfg)
	if err != nil {
		return nil, fmt.Errorf("riverjobs: river client: %w", err)
	}
	q.client = client
	return q, nil
}

// Migrate brings River's tables in pool's database up to date. River's
// migrator takes no lock, so Migrate holds a PostgreSQL session advisory
// lock on one connection and applies the versions on that connection, one
// transaction per version (some cannot share one): instances starting at
// once apply each migration exactly once, the others wait for the lock
// and then find nothing to do. A process that dies holding the lock loses
// it with its connection.
func Migrate(ctx context.Context, pool *pgxpool.Pool) error {
	if pool == nil {
		return &seo.InputError{Field: "pool", Reason: "is nil", Err: seo.ErrInvalidInput}
	}
	m, err := rivermigrate.New(riverpgxv5.New(pool), nil)
	if err != nil {
		return fmt.Errorf("riverjobs: migrator: %w", err)
	}
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("riverjobs: migrate: %w: %w", seo.ErrUnavailable, err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1)`, migrationLockKey); err != nil {
		return fmt.Errorf("riverjobs: migration lock: %w", err)
	}
	defer func() {
		if _, err := conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, migrationLockKey); err != nil {
			conn.Conn().Close(context.WithoutCancel(ctx)) // closing the session frees the lock
		}
	}()
	for {
		n, err := migrateStep(ctx, conn, m)
		if err != nil {
			return fmt.Errorf("riverjobs: migrate: %w", err)
		}
		if n == 0 {
			return nil
		}
	}
}

// migrateStep applies the next migration, if any, in a transaction on
// conn and reports how many it applied.
func migrateStep(ctx context.Context, conn *pgxpool.Conn, m *rivermigrate.Migrator[pgx.Tx]) (int, error) {
	tx, err := conn.Begin(ctx)
	if err != nil {
		return 0, err
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }() // a no-op after Commit
	// One migration per transaction (MaxSteps 1), which is what river's
	// deprecation of MigrateTx warns about: migrations batched in one
	// transaction. The transaction is ours so the advisory lock holds.
	//lint:ignore SA1019 one migration per transaction, under our lock
	res, err := m.MigrateTx(ctx, tx, rivermigrate.DirectionUp, &rivermigrate.MigrateOpts{MaxSteps: 1})
	if err != nil {
		return 0, err
	}
	if err := tx.Commit(ctx); err != nil {
		return 0, err
	}
	return len(res.Versions), nil
}

// Start starts this instance's River client: its workers, and when it is
// elected leader the rescuer, scheduler and periodic jobs. An InsertOnly
// queue starts nothing.
func (q *Queue) Start(ctx context.Context, run httpapi.RunFunc) error {
	if run == nil {
		return &seo.InputError{Field: "run", Reason: "is nil", Err: seo.ErrInvalidInput}
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.started {
		return errors.New("riverjobs: queue already started")
	}
	q.run, q.started = run, true
	if q.opts.InsertOnly {
		return nil
	}
	if err := q.client.Start(context.WithoutCancel(ctx)); err != nil {
		return fmt.Errorf("riverjobs: start: %w", err)
	}
	return nil
}

// uniqueStates are the River states in which a site analysis is not
// inserted again: waiting or running. A completed one may be inserted
// again, which only delivers a callback still pending.
var uniqueStates = []rivertype.JobState{
	rivertype.JobStateAvailable, rivertype.JobStatePending, rivertype.JobStateRetryable,
	rivertype.JobStateRunning, rivertype.JobStateScheduled,
}

// Enqueue inserts the queued job j.ID by its kind (httpapi.KindOf): a site
// analysis or a shared crawl's helper run (KindSiteAnalysis), or a rank
// check (KindRankCheck, on its own River queue). A job already waiting or
// running in River is not inserted twice, so every instance may enqueue
// the store's unfinished jobs at start.
func (q *Queue) Enqueue(ctx context.Context, j *store.Job) error {
	if j == nil || j.ID == "" || j.AccountID == "" {
		return &seo.InputError{Field: "job", Reason: "needs an ID and an account", Err: seo.ErrInvalidInput}
	}
	var args river.JobArgs = siteArgs{AccountID: j.AccountID, JobID: j.ID}
	queue := q.opts.QueueName
	if httpapi.KindOf(j.ID) == httpapi.JobRankCheck {
		args, queue = rankCheckArgs{AccountID: j.AccountID, JobID: j.ID}, rankQueue(q.opts.QueueName)
	}
	_, err := q.client.Insert(ctx, args, &river.InsertOpts{
		Queue:       queue,
		MaxAttempts: q.opts.MaxAttempts,
		UniqueOpts:  river.UniqueOpts{ByArgs: true, ByState: uniqueStates},
	})
	if err != nil {
		return fmt.Errorf("riverjobs: insert job %s: %w: %w", j.ID, seo.ErrUnavailable, err)
	}
	return nil
}

// Stop stops the River client, canceling the running jobs' contexts; they
// are put back as available (snoozed) and another instance, or the next
// start, runs them again (from the job's frontier, when it has one).
func (q *Queue) Stop(ctx context.Context) error {
	q.mu.Lock()
	started := q.started
	q.mu.Unlock()
	if !started || q.opts.InsertOnly {
		return nil
	}
	if err := q.client.StopAndCancel(ctx); err != nil {
		return fmt.Errorf("riverjobs: stop: %w", err)
	}
	return nil
}

// periodicQueue is the River queue of the periodic jobs of queue name.
func periodicQueue(name string) string { return name + "_periodic" }

// rankQueue is the River queue of the rank checks of queue name.
func rankQueue(name string) string { return name + "_rank" }

// AddPeriodic registers one of the server's periodic jobs (Server.Start
// calls it before Start) as a River periodic job: only the elected
// leader instance inserts it, once per job.Interval (unique by period),
// and one worker of any instance runs it, so with N instances each
// period's work runs once. An InsertOnly queue runs none and ignores it.
func (q *Queue) AddPeriodic(job httpapi.PeriodicJob) error {
	if job.Name == "" || job.Interval <= 0 || job.Work == nil {
		return &seo.InputError{Field: "job", Reason: "needs a name, a positive interval and work", Err: seo.ErrInvalidInput}
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.started {
		return errors.New("riverjobs: periodic job added after the queue started")
	}
	if q.opts.InsertOnly {
		return nil
	}
	if _, dup := q.periodic[job.Name]; dup {
		return fmt.Errorf("riverjobs: periodic job %q added twice", job.Name)
	}
	if q.periodic == nil {
		q.periodic = map[string]httpapi.PeriodicJob{}
	}
	q.periodic[job.Name] = job
	_, err := q.client.PeriodicJobs().AddSafely(river.NewPeriodicJob(
		river.PeriodicInterval(job.Interval),
		func() (river.JobArgs, *river.InsertOpts) {
			return periodicArgs{Name: job.Name}, &river.InsertOpts{
				Queue:       periodicQueue(q.opts.QueueName),
				MaxAttempts: 1, // the next period runs again
				// River's periods are whole seconds at least.
				UniqueOpts: river.UniqueOpts{ByArgs: true, ByPeriod: max(job.Interval, time.Second)},
			}
		},
		&river.PeriodicJobOpts{ID: job.Name},
	))
	if err != nil {
		return fmt.Errorf("riverjobs: periodic job %q: %w", job.Name, err)
	}
	return nil
}

func (q *Queue) periodicJob(name string) (httpapi.PeriodicJob, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	p, ok := q.periodic[name]
	return p, ok
}

// Client returns the River client, to insert or inspect jobs (tests and
// tools).
func (q *Queue) Client() *river.Client[pgx.Tx] { return q.client }

func (q *Queue) runFunc() httpapi.RunFunc {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.run
}

// siteWorker runs site analyses through the server's RunFunc.
type siteWorker struct {
	river.WorkerDefaults[siteArgs]
	q *Queue
}

// Work runs the stored job. An interrupted run (the instance stopping) is
// snoozed rather than failed, so it does not use up an attempt and any
// instance takes it at once.
func (w *siteWorker) Work(ctx context.Context, job *river.Job[siteArgs]) error {
	return w.q.work(ctx, job.Args.AccountID, job.Args.JobID)
}

// work runs the queued job id through the server's RunFunc; an
// interruption is a snooze.
func (q *Queue) work(ctx context.Context, accountID, id string) error {
	run := q.runFunc()
	if run == nil {
		return errors.New("riverjobs: no server started this queue")
	}
	err := run(ctx, accountID, id)
	if errors.Is(err, httpapi.ErrJobInterrupted) {
		return river.JobSnooze(0)
	}
	return err
}

// Timeout is Options.JobTimeout.
func (w *siteWorker) Timeout(*river.Job[siteArgs]) time.Duration { return w.q.opts.JobTimeout }

// rankCheckWorker runs rank checks through the server's RunFunc.
type rankCheckWorker struct {
	river.WorkerDefaults[rankCheckArgs]
	q *Queue
}

// Work runs the rank check; an interrupted one is snoozed, as a site
// analysis is. The check bounds its own time (its Work's timeout), within
// Options.JobTimeout.
func (w *rankCheckWorker) Work(ctx context.Context, job *river.Job[rankCheckArgs]) error {
	return w.q.work(ctx, job.Args.AccountID, job.Args.JobID)
}

// periodicWorker runs one period of a server's periodic job.
type periodicWorker struct {
	river.WorkerDefaults[periodicArgs]
	q *Queue
}

// Work runs the named periodic job's work. A name this instance does not
// know (inserted by an instance of another version) is left: the next
// period's leader inserts what it knows.
func (w *periodicWorker) Work(ctx context.Context, job *river.Job[periodicArgs]) error {
	p, ok := w.q.periodicJob(job.Args.Name)
	if !ok {
		w.q.log.Warn("riverjobs: unknown periodic job; skipped", "name", job.Args.Name)
		return nil
	}
	return p.Work(ctx)
}

// Timeout bounds a run by the job's interval, so runs never overlap.
func (w *periodicWorker) Timeout(job *river.Job[periodicArgs]) time.Duration {
	if p, ok := w.q.periodicJob(job.Args.Name); ok {
		return p.Interval
	}
	return time.Minute
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// Component names the queue in the API's outage messages and health
// checks (httpapi.Component).
func (q *Queue) Component() string { return "job queue (River on PostgreSQL)" }
