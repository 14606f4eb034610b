package sqlstore

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
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
	d := day.UTC().Format(dayFormat)
	if limit > 0 {
		var n int
		err := s.db.QueryRowContext(ctx, s.q(`INSERT INTO daily_usage (account_id, day, n) VALUES (?, ?, 1)
			ON CONFLICT (account_id, day) DO UPDATE SET n = daily_usage.n + 1 WHERE daily_usage.n < ?
			RETURNING n`), accountID, d, limit).Scan(&n)
		if err == nil {
			return n, true, nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return 0, false, mapErr("take", err)
		}
	}
	var n int
	err := s.db.QueryRowContext(ctx, s.q(`SELECT n FROM daily_usage WHERE account_id = ? AND day = ?`), accountID, d).Scan(&n)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, mapErr("take", err)
	}
	return n, false, nil
}

// Usage returns the daily counts of the UTC days from..to (inclusive),
// oldest first, days without requests left out.
func (s *Store) Usage(ctx context.Context, accountID string, from, to time.Time) ([]store.Usage, error) {
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT day, n FROM daily_usage WHERE account_id = ? AND day >= ? AND day <= ? ORDER BY day`),
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

const jobCols = `id, account_id, kind, status, request, progress, result, error, callback_url, callback_state, created_at, started_at, finished_at, updated_at`

func scanJob(r rowScanner) (*store.Job, error) {
	var (
		j                                   store.Job
		status                              string
		created, started, finished, updated sql.NullInt64
	)
	if err := r.Scan(&j.ID, &j.AccountID, &j.Kind, &status, &j.Request, &j.Progress, &j.Result, &j.Error,
		&j.CallbackURL, &j.CallbackState, &created, &started, &finished, &updated); err != nil {
		return nil, err
	}
	j.Status = store.JobStatus(status)
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

// CreateJob stores a new job. An empty ID is filled with a random
// "job_..." one, an empty status with queued, zero CreatedAt and UpdatedAt
// with now.
func (s *Store) CreateJob(ctx context.Context, j *store.Job) error {
	if j == nil {
		return &seo.InputError{Field: "job", Reason: "is nil"}
	}
	if j.AccountID == "" {
		return &seo.InputError{Field: "accountId", Reason: "is empty"}
	}
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
	_, err := s.exec(ctx, "create job", `INSERT INTO jobs (`+jobCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		j.ID, j.AccountID, j.Kind, string(j.Status), nullBytes(j.Request), nullBytes(j.Progress), nullBytes(j.Result), j.Error,
		j.CallbackURL, j.CallbackState, tv(j.CreatedAt), tv(j.StartedAt), tv(j.FinishedAt), tv(j.UpdatedAt))
	return err
}

// Job returns the account's job; another account's is store.ErrNotFound.
func (s *Store) Job(ctx context.Context, accountID, id string) (*store.Job, error) {
	j, err := scanJob(s.db.QueryRowContext(ctx, s.q(`SELECT `+jobCols+` FROM jobs WHERE id = ? AND account_id = ?`), id, accountID))
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
// zero or less means 100).
func (s *Store) Jobs(ctx context.Context, accountID string, limit int) ([]store.Job, error) {
	if limit <= 0 {
		limit = 100
	}
	limit = min(limit, MaxJobs)
	return s.jobs(ctx, "jobs", `SELECT `+jobCols+` FROM jobs WHERE account_id = ? ORDER BY created_at DESC, id DESC LIMIT ?`, accountID, limit)
}

// Unfinished lists queued and running jobs of every account, oldest
// first.
func (s *Store) Unfinished(ctx context.Context) ([]store.Job, error) {
	return s.jobs(ctx, "unfinished jobs", `SELECT `+jobCols+` FROM jobs WHERE status IN ('queued', 'running') ORDER BY created_at, id`)
}

func (s *Store) jobs(ctx context.Context, op, query string, args ...any) ([]store.Job, error) {
	rows, err := s.db.QueryContext(ctx, s.q(query), args...)
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

// UpdateJob stores the job's status, progress, result, error, callback
// state and times. A job in a final state accepts only a new callback
// state; any other change is store.ErrConflict and nothing is written.
// A zero UpdatedAt is set to now.
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
	normJob(j)
	// The guard on status makes the check and the write one atomic step.
	res, err := s.exec(ctx, "update job", `UPDATE jobs SET status = ?, progress = ?, result = ?, error = ?, callback_state = ?,
		started_at = ?, finished_at = ?, updated_at = ?
		WHERE id = ? AND account_id = ? AND status IN ('queued', 'running')`,
		string(j.Status), nullBytes(j.Progress), nullBytes(j.Result), j.Error, j.CallbackState,
		tv(j.StartedAt), tv(j.FinishedAt), tv(j.UpdatedAt), j.ID, j.AccountID)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil {
		return mapErr("update job", err)
	} else if n > 0 {
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
	if cur.Status != j.Status || !bytes.Equal(cur.Progress, j.Progress) || !bytes.Equal(cur.Result, j.Result) ||
		cur.Error != j.Error || !cur.StartedAt.Equal(j.StartedAt) || !cur.FinishedAt.Equal(j.FinishedAt) {
		return fmt.Errorf("sqlstore: update job %q: job is %s, only its callback state may change: %w", j.ID, cur.Status, store.ErrConflict)
	}
	if cur.CallbackState == j.CallbackState {
		return nil
	}
	return s.execOne(ctx, "update job", `UPDATE jobs SET callback_state = ?, updated_at = ? WHERE id = ? AND account_id = ?`,
		j.CallbackState, tv(j.UpdatedAt), j.ID, j.AccountID)
}
