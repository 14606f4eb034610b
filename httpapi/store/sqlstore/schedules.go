package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/seo"
)

var _ store.Schedules = (*Store)(nil)

const scheduleCols = `id, account_id, project_id, kind, spec, next_run, last_run, last_job_id, last_error, paused, created_at, updated_at`

func scanSchedule(r rowScanner) (*store.Schedule, error) {
	var (
		sc                   store.Schedule
		next, last, cre, upd sql.NullInt64
		paused               int
	)
	if err := r.Scan(&sc.ID, &sc.AccountID, &sc.ProjectID, &sc.Kind, &sc.Spec, &next, &last, &sc.LastJobID, &sc.LastError,
		&paused, &cre, &upd); err != nil {
		return nil, err
	}
	sc.NextRun, sc.LastRun, sc.CreatedAt, sc.UpdatedAt = tm(next), tm(last), tm(cre), tm(upd)
	sc.Paused = paused != 0
	return &sc, nil
}

func checkSchedule(sc *store.Schedule) error {
	switch {
	case sc == nil:
		return &seo.InputError{Field: "schedule", Reason: "is nil"}
	case sc.AccountID == "":
		return &seo.InputError{Field: "accountId", Reason: "is empty"}
	case sc.Kind != store.ScheduleSite && sc.Kind != store.ScheduleRankings:
		return &seo.InputError{Field: "kind", Value: sc.Kind, Reason: `must be "site" or "rankings"`}
	case sc.Spec == "":
		return &seo.InputError{Field: "spec", Reason: "is empty"}
	case sc.NextRun.IsZero():
		return &seo.InputError{Field: "nextRun", Reason: "is zero"}
	}
	return nil
}

// CreateSchedule stores a new schedule of the account's project.
func (s *Store) CreateSchedule(ctx context.Context, sc *store.Schedule) error {
	if err := prepareSchedule(sc); err != nil {
		return err
	}
	res, err := s.exec(ctx, "create schedule", insertScheduleSQL, scheduleArgs(sc)...)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil {
		return mapErr("create schedule", err)
	} else if n == 0 {
		return fmt.Errorf("sqlstore: create schedule: project %q: %w", sc.ProjectID, store.ErrNotFound)
	}
	return nil
}

// prepareSchedule checks a new schedule and fills its defaults.
func prepareSchedule(sc *store.Schedule) error {
	if err := checkSchedule(sc); err != nil {
		return err
	}
	if sc.ID == "" {
		sc.ID = newID("sch_")
	}
	if sc.CreatedAt.IsZero() {
		sc.CreatedAt = now()
	}
	if sc.UpdatedAt.IsZero() {
		sc.UpdatedAt = sc.CreatedAt
	}
	sc.NextRun, sc.LastRun, sc.CreatedAt, sc.UpdatedAt = norm(sc.NextRun), norm(sc.LastRun), norm(sc.CreatedAt), norm(sc.UpdatedAt)
	return nil
}

// insertScheduleSQL stores a schedule from its project's row, so that the
// project must be the account's (the foreign key alone would take another
// account's); scheduleArgs are its arguments.
const insertScheduleSQL = `INSERT INTO schedules (` + scheduleCols + `)
	SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ? FROM projects WHERE id = ? AND account_id = ?`

func scheduleArgs(sc *store.Schedule) []any {
	return []any{sc.ID, sc.AccountID, sc.ProjectID, sc.Kind, sc.Spec, tv(sc.NextRun), tv(sc.LastRun), sc.LastJobID, sc.LastError,
		boolInt(sc.Paused), tv(sc.CreatedAt), tv(sc.UpdatedAt), sc.ProjectID, sc.AccountID}
}

// Schedule returns the account's schedule.
func (s *Store) Schedule(ctx context.Context, accountID, id string) (*store.Schedule, error) {
	sc, err := scanSchedule(s.db.QueryRowContext(ctx, s.db.Q(`SELECT `+scheduleCols+` FROM schedules WHERE id = ? AND account_id = ?`), id, accountID))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("sqlstore: schedule %q: %w", id, store.ErrNotFound)
	}
	if err != nil {
		return nil, mapErr("schedule", err)
	}
	return sc, nil
}

// Schedules lists the schedules of the account's project, oldest first.
func (s *Store) Schedules(ctx context.Context, accountID, projectID string) ([]store.Schedule, error) {
	return s.schedules(ctx, "schedules", `SELECT `+scheduleCols+` FROM schedules WHERE account_id = ? AND project_id = ?
		ORDER BY created_at, id LIMIT ?`, accountID, projectID, store.MaxSchedules)
}

// CountSchedules counts the account's schedules.
func (s *Store) CountSchedules(ctx context.Context, accountID string) (int, error) {
	var n int
	if err := s.db.QueryRowContext(ctx, s.db.Q(`SELECT COUNT(*) FROM schedules WHERE account_id = ?`), accountID).Scan(&n); err != nil {
		return 0, mapErr("count schedules", err)
	}
	return n, nil
}

// UpdateSchedule stores the spec, next run and paused flag of the
// account's schedule, if no run was claimed since sc was read (its
// last_run is still sc.LastRun); otherwise store.ErrConflict.
func (s *Store) UpdateSchedule(ctx context.Context, sc *store.Schedule) error {
	if err := checkSchedule(sc); err != nil {
		return err
	}
	if sc.UpdatedAt.IsZero() {
		sc.UpdatedAt = now()
	}
	sc.NextRun, sc.UpdatedAt = norm(sc.NextRun), norm(sc.UpdatedAt)
	var last int64 // NULL (never run) compares as 0
	if !sc.LastRun.IsZero() {
		last = norm(sc.LastRun).UnixMicro()
	}
	err := s.execOne(ctx, "update schedule", `UPDATE schedules SET spec = ?, next_run = ?, paused = ?, updated_at = ?
		WHERE id = ? AND account_id = ? AND COALESCE(last_run, 0) = ?`,
		sc.Spec, tv(sc.NextRun), boolInt(sc.Paused), tv(sc.UpdatedAt), sc.ID, sc.AccountID, last)
	if !errors.Is(err, store.ErrNotFound) {
		return err
	}
	if _, gerr := s.Schedule(ctx, sc.AccountID, sc.ID); gerr != nil {
		return gerr
	}
	return fmt.Errorf("sqlstore: update schedule %q: a run was claimed since it was read: %w", sc.ID, store.ErrConflict)
}

// DeleteSchedule deletes the account's schedule.
func (s *Store) DeleteSchedule(ctx context.Context, accountID, id string) error {
	return s.execOne(ctx, "delete schedule", `DELETE FROM schedules WHERE id = ? AND account_id = ?`, id, accountID)
}

// MaxDueSchedules caps the list DueSchedules returns.
const MaxDueSchedules = 1000

// DueSchedules lists the schedules due at now, the longest due first.
func (s *Store) DueSchedules(ctx context.Context, at time.Time, limit int) ([]store.Schedule, error) {
	if limit <= 0 || limit > MaxDueSchedules {
		limit = MaxDueSchedules
	}
	return s.schedules(ctx, "due schedules", `SELECT `+scheduleCols+` FROM schedules WHERE paused = 0 AND next_run <= ?
		ORDER BY next_run, id LIMIT ?`, tv(norm(at)), limit)
}

func (s *Store) schedules(ctx context.Context, op, query string, args ...any) ([]store.Schedule, error) {
	rows, err := s.db.QueryContext(ctx, s.db.Q(query), args...)
	if err != nil {
		return nil, mapErr(op, err)
	}
	defer rows.Close()
	var out []store.Schedule
	for rows.Next() {
		sc, err := scanSchedule(rows)
		if err != nil {
			return nil, mapErr(op, err)
		}
		out = append(out, *sc)
	}
	if err := rows.Err(); err != nil {
		return nil, mapErr(op, err)
	}
	return out, nil
}

// ClaimSchedule claims the run of schedule id due at due and stores j, in
// one transaction. The conditional UPDATE is the claim: the database's row
// lock orders concurrent claims, and a claim that comes second finds
// next_run already moved past due and changes nothing.
func (s *Store) ClaimSchedule(ctx context.Context, id string, due, next time.Time, j *store.Job) (bool, error) {
	if !next.After(due) {
		return false, &seo.InputError{Field: "next", Reason: "must be after due"}
	}
	due, next = norm(due), norm(next)
	at := now()
	jobID := ""
	if j != nil {
		if err := prepareJob(j); err != nil {
			return false, err
		}
		jobID = j.ID
	}
	claimed := false
	err := s.db.InTx(ctx, func(tx *sql.Tx) error {
		var account, project string
		err := tx.QueryRowContext(ctx, s.db.Q(`UPDATE schedules SET next_run = ?, last_run = ?, last_job_id = ?, last_error = '', updated_at = ?
			WHERE id = ? AND paused = 0 AND next_run <= ? RETURNING account_id, project_id`),
			tv(next), tv(due), jobID, tv(at), id, tv(due)).Scan(&account, &project)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		if j != nil {
			j.AccountID, j.ProjectID = account, project
			args, err := jobArgs(j)
			if err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, s.db.Q(insertJobSQL), args...); err != nil {
				return err
			}
		}
		claimed = true
		return nil
	})
	if err != nil {
		return false, mapErr("claim schedule", err)
	}
	return claimed, nil
}

// SetScheduleError records why the run claimed for due was skipped or
// failed, unless a later run was claimed since.
func (s *Store) SetScheduleError(ctx context.Context, id string, due time.Time, msg string) error {
	_, err := s.exec(ctx, "set schedule error", `UPDATE schedules SET last_error = ? WHERE id = ? AND last_run = ?`,
		seo.Clip(msg), id, tv(norm(due)))
	return err
}
