package sqlstore

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/seo"
)

// ---- limits

const dayFormat = "2006-01-02"

// Take counts one request of accountID on day (its UTC date) if fewer
// than limit were counted. One statement does it:
//
//	INSERT ... ON CONFLICT (account_id, day) DO UPDATE SET n = n + 1
//	WHERE n < limit RETURNING n
//
// so the database's row lock makes it exact under any concurrency, in
// one process or many. A refused request is not counted: count stays at
// limit. A limit of zero or less admits nothing.
func (s *Store) Take(ctx context.Context, accountID string, day time.Time, limit int) (int, bool, error) {
	if accountID == "" {
		return 0, false, &seo.InputError{Field: "accountId", Reason: "is empty"}
	}
	if err := ctx.Err(); err != nil {
		return 0, false, err
	}
	d := day.UTC().Format(dayFormat)
	if limit > 0 && s.db.Dialect == SQLite {
		n, taken, err := s.takeGrouped(accountID, d, limit, 1)
		return n, taken == 1, err
	}
	return s.take(func(q string, args ...any) *sql.Row {
		return s.db.QueryRowContext(ctx, s.db.Q(q), args...)
	}, accountID, d, limit)
}

var _ store.LimitsN = (*Store)(nil)

// maxTakeN bounds the n of one TakeN.
const maxTakeN = 1 << 20

// TakeN counts up to n requests of accountID on day, as many as fit under
// limit. On SQLite it joins the grouped transaction of Take; on PostgreSQL
// one transaction locks the day's row, reads its count and adds what fits.
func (s *Store) TakeN(ctx context.Context, accountID string, day time.Time, limit, n int) (int, int, error) {
	if accountID == "" {
		return 0, 0, &seo.InputError{Field: "accountId", Reason: "is empty"}
	}
	if n < 1 || n > maxTakeN {
		return 0, 0, &seo.InputError{Field: "n", Value: fmt.Sprint(n), Reason: fmt.Sprintf("must be between 1 and %d", maxTakeN)}
	}
	if err := ctx.Err(); err != nil {
		return 0, 0, err
	}
	d := day.UTC().Format(dayFormat)
	if limit <= 0 {
		c, _, err := s.take(func(q string, args ...any) *sql.Row {
			return s.db.QueryRowContext(ctx, s.db.Q(q), args...)
		}, accountID, d, limit)
		return c, 0, err
	}
	if s.db.Dialect == SQLite {
		return s.takeGrouped(accountID, d, limit, n)
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, 0, mapErr("take", err)
	}
	defer tx.Rollback() // after Commit, a no-op
	// The row exists before it is locked, so that two first requests of
	// the day serialise on it too.
	if _, err := tx.ExecContext(ctx, s.db.Q(`INSERT INTO daily_usage (account_id, day, n) VALUES (?, ?, 0) ON CONFLICT (account_id, day) DO NOTHING`), accountID, d); err != nil {
		return 0, 0, mapErr("take", err)
	}
	var before int
	if err := tx.QueryRowContext(ctx, s.db.Q(countSQL+` FOR UPDATE`), accountID, d).Scan(&before); err != nil {
		return 0, 0, mapErr("take", err)
	}
	add := min(n, max(0, limit-before))
	if add > 0 {
		if _, err := tx.ExecContext(ctx, s.db.Q(`UPDATE daily_usage SET n = n + ? WHERE account_id = ? AND day = ?`), add, accountID, d); err != nil {
			return 0, 0, mapErr("take", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return 0, 0, mapErr("take", err)
	}
	return before + add, add, nil
}

// The statements of Take.
const (
	takeSQL = `INSERT INTO daily_usage (account_id, day, n) VALUES (?, ?, 1)
		ON CONFLICT (account_id, day) DO UPDATE SET n = daily_usage.n + 1 WHERE daily_usage.n < ?
		RETURNING n`
	countSQL = `SELECT n FROM daily_usage WHERE account_id = ? AND day = ?`
	// addSQL adds to the count read before (the last argument).
	addSQL = `INSERT INTO daily_usage (account_id, day, n) VALUES (?, ?, ?)
		ON CONFLICT (account_id, day) DO UPDATE SET n = daily_usage.n + ? WHERE daily_usage.n = ?
		RETURNING n`
)

// take counts one request with the statements of Take, run by query.
func (s *Store) take(query func(sql string, args ...any) *sql.Row, accountID, d string, limit int) (int, bool, error) {
	if limit > 0 {
		var n int
		err := query(takeSQL, accountID, d, limit).Scan(&n)
		if err == nil {
			return n, true, nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return 0, false, mapErr("take", err)
		}
	}
	var n int
	err := query(countSQL, accountID, d).Scan(&n)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, mapErr("take", err)
	}
	return n, false, nil
}

// takeReq is one Take or TakeN waiting for its group's commit.
type takeReq struct {
	account, day string
	limit        int
	want         int // requests to count, 1 for Take
	n            int // the count after this request's units
	taken        int // how many of want were counted
	err          error
	done         chan struct{}
}

// takeGroup collects concurrent Takes on SQLite. Its single connection
// would otherwise run and commit one write per API request, the serial
// section of every authenticated request; one transaction per group
// commits them together. Each Take is still its own guarded statement, so
// exactness is unchanged, and each returns only after its group commits.
type takeGroup struct {
	mu      sync.Mutex
	queue   []*takeReq
	running bool

	stmtMu     sync.Mutex
	count, add *sql.Stmt
}

// takeStmts returns the statements of grouped Takes, prepared once on the
// store's connection (a failed preparation is tried again next time).
func (s *Store) takeStmts(ctx context.Context) (count, add *sql.Stmt, err error) {
	g := &s.takes
	g.stmtMu.Lock()
	defer g.stmtMu.Unlock()
	if g.count == nil {
		if g.count, err = s.db.PrepareContext(ctx, s.db.Q(countSQL)); err != nil {
			return nil, nil, err
		}
	}
	if g.add == nil {
		if g.add, err = s.db.PrepareContext(ctx, s.db.Q(addSQL)); err != nil {
			return nil, nil, err
		}
	}
	return g.count, g.add, nil
}

// maxTakeGroup bounds one transaction.
const maxTakeGroup = 256

// takeGrouped queues a Take of want units and, when no group is being
// written, writes the queue itself. It returns the count after the call
// and how many units were counted.
func (s *Store) takeGrouped(accountID, d string, limit, want int) (int, int, error) {
	r := &takeReq{account: accountID, day: d, limit: limit, want: want, done: make(chan struct{})}
	g := &s.takes
	g.mu.Lock()
	g.queue = append(g.queue, r)
	lead := !g.running
	g.running = true
	g.mu.Unlock()
	if lead {
		s.writeTakes()
	}
	<-r.done
	return r.n, r.taken, r.err
}

// writeTakes writes the queued Takes in one transaction, then hands the
// next group to a new goroutine so the caller's request is not delayed.
func (s *Store) writeTakes() {
	g := &s.takes
	g.mu.Lock()
	batch := g.queue
	if len(batch) > maxTakeGroup {
		batch = batch[:maxTakeGroup]
	}
	g.queue = g.queue[len(batch):]
	g.mu.Unlock()

	// The group outlives any one request's context; busy_timeout and this
	// bound keep it from hanging.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	err := s.takeTx(ctx, batch)
	cancel()
	for _, r := range batch {
		if err != nil {
			r.n, r.taken, r.err = 0, 0, err
		}
		close(r.done)
	}

	g.mu.Lock()
	if len(g.queue) > 0 {
		g.mu.Unlock()
		go s.writeTakes()
		return
	}
	g.running = false
	g.mu.Unlock()
}

// takeTx runs batch in one transaction, its statements prepared once; an
// error fails them all and counts none. The Takes of one account and day
// are counted with one read and one write: from the count before, their
// units are admitted up to the limit, in queue order, each Take with its
// own count, and the rest refused.
func (s *Store) takeTx(ctx context.Context, batch []*takeReq) error {
	// Prepared before the transaction takes SQLite's one connection.
	countStmt, addStmt, err := s.takeStmts(ctx)
	if err != nil {
		return mapErr("take", err)
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return mapErr("take", err)
	}
	defer tx.Rollback() // after Commit, a no-op
	count, add := tx.StmtContext(ctx, countStmt), tx.StmtContext(ctx, addStmt)
	type key struct {
		account, day string
		limit        int
	}
	groups := map[key][]*takeReq{}
	var order []key
	for _, r := range batch {
		k := key{r.account, r.day, r.limit}
		if groups[k] == nil {
			order = append(order, k)
		}
		groups[k] = append(groups[k], r)
	}
	for _, k := range order {
		rs := groups[k]
		var before int
		if err := count.QueryRowContext(ctx, k.account, k.day).Scan(&before); err != nil && !errors.Is(err, sql.ErrNoRows) {
			return mapErr("take", err)
		}
		// Units are counted in queue order, each request getting as
		// many of its units as still fit under the limit.
		admit := 0
		for _, r := range rs {
			r.taken = min(r.want, max(0, k.limit-before-admit))
			admit += r.taken
			r.n = before + admit
		}
		if admit > 0 {
			var after int
			// The guard on the count read makes a concurrent writer
			// (another process on the file) an error, never a lost count.
			if err := add.QueryRowContext(ctx, k.account, k.day, admit, admit, before).Scan(&after); err != nil {
				if errors.Is(err, sql.ErrNoRows) {
					return fmt.Errorf("sqlstore: take: %w: another process changed the usage count during the write; retry", store.ErrUnavailable)
				}
				return mapErr("take", err)
			}
		}
	}
	if err := tx.Commit(); err != nil {
		return mapErr("take", err)
	}
	return nil
}

// Usage returns the daily counts of the UTC days from..to (inclusive),
// oldest first, days without requests left out.
func (s *Store) Usage(ctx context.Context, accountID string, from, to time.Time) ([]store.Usage, error) {
	rows, err := s.db.QueryContext(ctx, s.db.Q(`SELECT day, n FROM daily_usage WHERE account_id = ? AND day >= ? AND day <= ? ORDER BY day`),
		accountID, from.UTC().Format(dayFormat), to.UTC().Format(dayFormat))
	if err != nil {
		return nil, mapErr("usage", err)
	}
	defer rows.Close()
	var out []store.Usage
	for rows.Next() {
		var (
			day string
			u   store.Usage
		)
		if err := rows.Scan(&day, &u.Count); err != nil {
			return nil, mapErr("usage", err)
		}
		if u.Day, err = time.Parse(dayFormat, day); err != nil {
			return nil, fmt.Errorf("sqlstore: usage: corrupt day %q: %w", day, err)
		}
		out = append(out, u)
	}
	if err := rows.Err(); err != nil {
		return nil, mapErr("usage", err)
	}
	return out, nil
}

// ---- jobs

const jobCols = `id, account_id, kind, status, request, progress, result, error, callback_url, callback_state, created_at, started_at, finished_at, updated_at, project_id, summary`

// jobListCols are jobCols without the result, read as NULL: lists never
// load reports (summaries they do).
const jobListCols = `id, account_id, kind, status, request, progress, NULL, error, callback_url, callback_state, created_at, started_at, finished_at, updated_at, project_id, summary`

func scanJob(r rowScanner) (*store.Job, error) {
	var (
		j                                   store.Job
		status                              string
		created, started, finished, updated sql.NullInt64
		project                             sql.NullString
	)
	if err := r.Scan(&j.ID, &j.AccountID, &j.Kind, &status, &j.Request, &j.Progress, &j.Result, &j.Error,
		&j.CallbackURL, &j.CallbackState, &created, &started, &finished, &updated, &project, &j.Summary); err != nil {
		return nil, err
	}
	j.Status = store.JobStatus(status)
	j.ProjectID = project.String
	j.CreatedAt, j.StartedAt, j.FinishedAt, j.UpdatedAt = tm(created), tm(started), tm(finished), tm(updated)
	return &j, nil
}

func validStatus(st store.JobStatus) bool {
	switch st {
	case store.JobQueued, store.JobRunning, store.JobSucceeded, store.JobFailed, store.JobCanceled:
		return true
	}
	return false
}

func normJob(j *store.Job) {
	j.CreatedAt, j.StartedAt, j.FinishedAt, j.UpdatedAt = norm(j.CreatedAt), norm(j.StartedAt), norm(j.FinishedAt), norm(j.UpdatedAt)
}

// prepareNewJob checks a job to be created and fills its defaults
// (prepareJob).
func prepareNewJob(j *store.Job) error {
	if j == nil {
		return &seo.InputError{Field: "job", Reason: "is nil"}
	}
	if j.AccountID == "" {
		return &seo.InputError{Field: "accountId", Reason: "is empty"}
	}
	return prepareJob(j)
}

// CreateJob stores a new job. An empty ID is filled with a random
// "job_..." one, an empty status with queued, zero CreatedAt and UpdatedAt
// with now. A ProjectID must name one of the account's projects, else
// store.ErrNotFound.
func (s *Store) CreateJob(ctx context.Context, j *store.Job) error {
	if err := prepareNewJob(j); err != nil {
		return err
	}
	if j.ProjectID != "" {
		// The foreign key alone would accept another account's project.
		// A project deleted after this check fails the foreign key.
		if _, err := s.Project(ctx, j.AccountID, j.ProjectID); err != nil {
			return err
		}
	}
	args, err := jobArgs(j)
	if err != nil {
		return err
	}
	_, err = s.exec(ctx, "create job", insertJobSQL, args...)
	return err
}

// prepareJob checks a new job's status and fills its defaults (CreateJob).
func prepareJob(j *store.Job) error {
	if j.Status == "" {
		j.Status = store.JobQueued
	}
	if !validStatus(j.Status) {
		return &seo.InputError{Field: "status", Value: string(j.Status), Reason: "must be queued, running, succeeded, failed or canceled"}
	}
	if j.ID == "" {
		j.ID = newID("job_")
	}
	if j.CreatedAt.IsZero() {
		j.CreatedAt = now()
	}
	if j.UpdatedAt.IsZero() {
		j.UpdatedAt = j.CreatedAt
	}
	normJob(j)
	return nil
}

// insertJobSQL stores a job; jobArgs are its arguments.
const insertJobSQL = `INSERT INTO jobs (` + jobCols + `) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`

// jobArgs are the arguments of insertJobSQL, the result compressed.
func jobArgs(j *store.Job) ([]any, error) {
	result, err := packResult(j.Result)
	if err != nil {
		return nil, err
	}
	return []any{j.ID, j.AccountID, j.Kind, string(j.Status), nullBytes(j.Request), nullBytes(j.Progress), nullBytes(result), j.Error,
		j.CallbackURL, j.CallbackState, tv(j.CreatedAt), tv(j.StartedAt), tv(j.FinishedAt), tv(j.UpdatedAt),
		nullString(j.ProjectID), nullBytes(j.Summary)}, nil
}

// Job returns the account's job, its result decompressed; another
// account's is store.ErrNotFound.
func (s *Store) Job(ctx context.Context, accountID, id string) (*store.Job, error) {
	j, err := s.storedJob(ctx, accountID, id)
	if err != nil {
		return nil, err
	}
	if j.Result, err = unpackResult(j.Result); err != nil {
		return nil, fmt.Errorf("sqlstore: job %q: %w", id, err)
	}
	return j, nil
}

// storedJob returns the account's job with its result as stored.
func (s *Store) storedJob(ctx context.Context, accountID, id string) (*store.Job, error) {
	j, err := scanJob(s.db.QueryRowContext(ctx, s.db.Q(`SELECT `+jobCols+` FROM jobs WHERE id = ? AND account_id = ?`), id, accountID))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("sqlstore: job %q: %w", id, store.ErrNotFound)
	}
	if err != nil {
		return nil, mapErr("job", err)
	}
	return j, nil
}

// MaxJobs caps the list Jobs returns.
const MaxJobs = 1000

// Jobs lists the account's newest jobs, at most limit (1 to MaxJobs;
// zero or less means 100), without their results.
func (s *Store) Jobs(ctx context.Context, accountID string, limit int) ([]store.Job, error) {
	if limit <= 0 {
		limit = 100
	}
	limit = min(limit, MaxJobs)
	return s.jobs(ctx, "jobs", `SELECT `+jobListCols+` FROM jobs WHERE account_id = ? ORDER BY created_at DESC, id DESC LIMIT ?`, accountID, limit)
}

// ActiveJobs counts the account's queued and running jobs.
func (s *Store) ActiveJobs(ctx context.Context, accountID string) (int, error) {
	var n int
	err := s.db.QueryRowContext(ctx, s.db.Q(`SELECT COUNT(*) FROM jobs WHERE account_id = ? AND status IN ('queued', 'running')`), accountID).Scan(&n)
	if err != nil {
		return 0, mapErr("active jobs", err)
	}
	return n, nil
}

// Unfinished lists queued and running jobs of every account, oldest
// first, without their results.
func (s *Store) Unfinished(ctx context.Context) ([]store.Job, error) {
	return s.jobs(ctx, "unfinished jobs", `SELECT `+jobListCols+` FROM jobs WHERE status IN ('queued', 'running') ORDER BY created_at, id`)
}

func (s *Store) jobs(ctx context.Context, op, query string, args ...any) ([]store.Job, error) {
	rows, err := s.db.QueryContext(ctx, s.db.Q(query), args...)
	if err != nil {
		return nil, mapErr(op, err)
	}
	defer rows.Close()
	var out []store.Job
	for rows.Next() {
		j, err := scanJob(rows)
		if err != nil {
			return nil, mapErr(op, err)
		}
		out = append(out, *j)
	}
	if err := rows.Err(); err != nil {
		return nil, mapErr(op, err)
	}
	return out, nil
}

// UpdateJob stores the job's status, progress, result, summary, error,
// callback state and times (never its project). A job in a final state accepts only a new callback
// state; any other change is store.ErrConflict and nothing is written.
// A zero UpdatedAt is set to now. Storing a final state with the callback
// pending adds the job's callback delivery (store.DeliveryCallback).
var _ store.CanceledResults = (*Store)(nil)

// KeepCanceledResult stores the partial report of a canceled job that has
// none (store.CanceledResults).
func (s *Store) KeepCanceledResult(ctx context.Context, accountID, id string, result, summary, progress []byte) error {
	packed, err := packResult(result)
	if err != nil {
		return err
	}
	res, err := s.db.ExecContext(ctx, s.db.Q(`UPDATE jobs SET result = ?, summary = ?, progress = ?
		WHERE id = ? AND account_id = ? AND status = 'canceled' AND result IS NULL`),
		nullBytes(packed), nullBytes(summary), nullBytes(progress), id, accountID)
	if err != nil {
		return mapErr("keep canceled result", err)
	}
	if n, err := res.RowsAffected(); err != nil || n > 0 {
		return err
	}
	if _, err := s.Job(ctx, accountID, id); err != nil {
		return err
	}
	return store.ErrConflict
}

func (s *Store) UpdateJob(ctx context.Context, j *store.Job) error {
	if j == nil {
		return &seo.InputError{Field: "job", Reason: "is nil"}
	}
	if !validStatus(j.Status) {
		return &seo.InputError{Field: "status", Value: string(j.Status), Reason: "must be queued, running, succeeded, failed or canceled"}
	}
	if j.UpdatedAt.IsZero() {
		j.UpdatedAt = now()
	}
	result, err := packResult(j.Result)
	if err != nil {
		return err
	}
	normJob(j)
	// The guard on status makes the check and the write one atomic step;
	// a final state adds the job's callback delivery in the same
	// transaction, so a job never ends without its callback queued.
	var n int64
	err = s.db.InTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, s.db.Q(`UPDATE jobs SET status = ?, progress = ?, result = ?, summary = ?, error = ?, callback_state = ?,
			started_at = ?, finished_at = ?, updated_at = ?
			WHERE id = ? AND account_id = ? AND status IN ('queued', 'running')`),
			string(j.Status), nullBytes(j.Progress), nullBytes(result), nullBytes(j.Summary), j.Error, j.CallbackState,
			tv(j.StartedAt), tv(j.FinishedAt), tv(j.UpdatedAt), j.ID, j.AccountID)
		if err != nil {
			return err
		}
		if n, err = res.RowsAffected(); err != nil || n == 0 || !j.Status.Done() {
			return err
		}
		_, err = tx.ExecContext(ctx, s.db.Q(addCallbackSQL), newID("dlv_"), tv(j.UpdatedAt), tv(j.UpdatedAt), j.ID, j.AccountID)
		return err
	})
	if err != nil {
		return mapErr("update job", err)
	}
	if n > 0 {
		return nil
	}
	// Not updated: missing, another account's, or final. A final job
	// never changes again except its callback state, so this read is
	// stable.
	cur, err := s.Job(ctx, j.AccountID, j.ID)
	if err != nil {
		return err
	}
	if !cur.Status.Done() {
		return fmt.Errorf("sqlstore: update job %q: changed concurrently, retry: %w", j.ID, store.ErrConflict)
	}
	if cur.Status != j.Status || !bytes.Equal(cur.Progress, j.Progress) || !bytes.Equal(cur.Result, j.Result) || !bytes.Equal(cur.Summary, j.Summary) ||
		cur.Error != j.Error || !cur.StartedAt.Equal(j.StartedAt) || !cur.FinishedAt.Equal(j.FinishedAt) {
		return fmt.Errorf("sqlstore: update job %q: job is %s, only its callback state may change: %w", j.ID, cur.Status, store.ErrConflict)
	}
	if cur.CallbackState == j.CallbackState {
		return nil
	}
	return s.execOne(ctx, "update job", `UPDATE jobs SET callback_state = ?, updated_at = ? WHERE id = ? AND account_id = ?`,
		j.CallbackState, tv(j.UpdatedAt), j.ID, j.AccountID)
}
