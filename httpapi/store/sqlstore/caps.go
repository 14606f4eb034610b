package sqlstore

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/seo"
)

// Capped creations count and insert in one transaction that first locks
// the row owning the count: the account's (projects, schedules, alert
// rules, active jobs) or the job's (rendered pages, screenshots). On
// PostgreSQL the lock is SELECT ... FOR NO KEY UPDATE, which orders the
// capped creations of one owner across every instance while leaving
// foreign-key checks (FOR KEY SHARE) of other inserts free; under READ
// COMMITTED the count that follows the lock sees what the transaction
// before it committed. On SQLite every transaction begins IMMEDIATE
// (sqldb's _txlock), so it holds the database's write lock from its first
// statement: processes sharing the file take turns.

// lockOwner locks the row of table (accounts or jobs) with the ID id for
// the rest of tx; a missing row is store.ErrNotFound.
func (s *Store) lockOwner(ctx context.Context, tx *sql.Tx, table, id string) error {
	q := `SELECT id FROM ` + table + ` WHERE id = ?`
	if s.db.Dialect == Postgres {
		q += ` FOR NO KEY UPDATE`
	}
	var got string
	err := tx.QueryRowContext(ctx, s.db.Q(q), id).Scan(&got)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("sqlstore: %s %q: %w", table[:len(table)-1], id, store.ErrNotFound)
	}
	return err
}

// countTx runs a COUNT query in tx.
func (s *Store) countTx(ctx context.Context, tx *sql.Tx, query string, args ...any) (int, error) {
	var n int
	err := tx.QueryRowContext(ctx, s.db.Q(query), args...).Scan(&n)
	return n, err
}

// ownProject checks in tx that the project is the account's.
func (s *Store) ownProject(ctx context.Context, tx *sql.Tx, accountID, projectID string) error {
	n, err := s.countTx(ctx, tx, `SELECT COUNT(*) FROM projects WHERE id = ? AND account_id = ?`, projectID, accountID)
	if err != nil {
		return err
	}
	if n == 0 {
		return fmt.Errorf("sqlstore: project %q: %w", projectID, store.ErrNotFound)
	}
	return nil
}

// CreateProjectWithin stores a new project if the account has fewer than
// limit (at most store.MaxProjects) projects, in one transaction.
func (s *Store) CreateProjectWithin(ctx context.Context, p *store.Project, limit int) error {
	if limit <= 0 || limit > store.MaxProjects {
		limit = store.MaxProjects
	}
	if err := prepareProject(p); err != nil {
		return err
	}
	err := s.db.InTx(ctx, func(tx *sql.Tx) error {
		if err := s.lockOwner(ctx, tx, "accounts", p.AccountID); err != nil {
			return err
		}
		n, err := s.countTx(ctx, tx, `SELECT COUNT(*) FROM projects WHERE account_id = ?`, p.AccountID)
		if err != nil {
			return err
		}
		if n >= limit {
			return &store.LimitError{What: "projects", Limit: limit, Count: n}
		}
		_, err = tx.ExecContext(ctx, s.db.Q(insertProjectSQL), projectArgs(p)...)
		return err
	})
	return mapErr("create project", err)
}

// CreateScheduleWithin stores a new schedule if the account has fewer
// than limit schedules and the project fewer than store.MaxSchedules, in
// one transaction.
func (s *Store) CreateScheduleWithin(ctx context.Context, sc *store.Schedule, limit int) error {
	if err := prepareSchedule(sc); err != nil {
		return err
	}
	err := s.db.InTx(ctx, func(tx *sql.Tx) error {
		if err := s.lockOwner(ctx, tx, "accounts", sc.AccountID); err != nil {
			return err
		}
		if err := s.ownProject(ctx, tx, sc.AccountID, sc.ProjectID); err != nil {
			return err
		}
		if limit > 0 {
			n, err := s.countTx(ctx, tx, `SELECT COUNT(*) FROM schedules WHERE account_id = ?`, sc.AccountID)
			if err != nil {
				return err
			}
			if n >= limit {
				return &store.LimitError{What: "schedules", Limit: limit, Count: n}
			}
		}
		n, err := s.countTx(ctx, tx, `SELECT COUNT(*) FROM schedules WHERE account_id = ? AND project_id = ?`, sc.AccountID, sc.ProjectID)
		if err != nil {
			return err
		}
		if n >= store.MaxSchedules {
			return &store.LimitError{What: "schedules", Project: sc.ProjectID, Limit: store.MaxSchedules, Count: n}
		}
		_, err = tx.ExecContext(ctx, s.db.Q(insertScheduleSQL), scheduleArgs(sc)...)
		return err
	})
	return mapErr("create schedule", err)
}

// CreateAlertRuleWithin stores a new rule if the account has fewer than
// limit rules and the project fewer than store.MaxAlertRules, in one
// transaction.
func (s *Store) CreateAlertRuleWithin(ctx context.Context, r *store.AlertRule, limit int) error {
	if err := prepareRule(r); err != nil {
		return err
	}
	err := s.db.InTx(ctx, func(tx *sql.Tx) error {
		if err := s.lockOwner(ctx, tx, "accounts", r.AccountID); err != nil {
			return err
		}
		if err := s.ownProject(ctx, tx, r.AccountID, r.ProjectID); err != nil {
			return err
		}
		if limit > 0 {
			n, err := s.countTx(ctx, tx, `SELECT COUNT(*) FROM alert_rules WHERE account_id = ?`, r.AccountID)
			if err != nil {
				return err
			}
			if n >= limit {
				return &store.LimitError{What: "alert rules", Limit: limit, Count: n}
			}
		}
		n, err := s.countTx(ctx, tx, `SELECT COUNT(*) FROM alert_rules WHERE account_id = ? AND project_id = ?`, r.AccountID, r.ProjectID)
		if err != nil {
			return err
		}
		if n >= store.MaxAlertRules {
			return &store.LimitError{What: "alert rules", Project: r.ProjectID, Limit: store.MaxAlertRules, Count: n}
		}
		_, err = tx.ExecContext(ctx, s.db.Q(insertRuleSQL), ruleArgs(r)...)
		return err
	})
	return mapErr("create alert rule", err)
}

// CreateJobWithin stores a new job if the account has fewer than
// maxActive queued and running jobs, in one transaction.
func (s *Store) CreateJobWithin(ctx context.Context, j *store.Job, maxActive int) error {
	if maxActive <= 0 {
		return s.CreateJob(ctx, j)
	}
	if err := prepareNewJob(j); err != nil {
		return err
	}
	args, err := jobArgs(j)
	if err != nil {
		return err
	}
	err = s.db.InTx(ctx, func(tx *sql.Tx) error {
		if err := s.lockOwner(ctx, tx, "accounts", j.AccountID); err != nil {
			return err
		}
		if j.ProjectID != "" {
			if err := s.ownProject(ctx, tx, j.AccountID, j.ProjectID); err != nil {
				return err
			}
		}
		n, err := s.countTx(ctx, tx, `SELECT COUNT(*) FROM jobs WHERE account_id = ? AND status IN ('queued', 'running')`, j.AccountID)
		if err != nil {
			return err
		}
		if n >= maxActive {
			return &store.LimitError{What: "active jobs", Limit: maxActive, Count: n}
		}
		_, err = tx.ExecContext(ctx, s.db.Q(insertJobSQL), args...)
		return err
	})
	return mapErr("create job", err)
}

// ActivateJob clears the Error of the account's queued job held back by
// the prefix held if fewer than maxActive of the account's queued and
// running jobs are not held back, in one transaction.
func (s *Store) ActivateJob(ctx context.Context, accountID, id, held string, maxActive int, at time.Time) (bool, error) {
	if held == "" {
		return false, &seo.InputError{Field: "held", Reason: "is empty"}
	}
	ok := false
	err := s.db.InTx(ctx, func(tx *sql.Tx) error {
		if err := s.lockOwner(ctx, tx, "accounts", accountID); err != nil {
			return err
		}
		// substr, not LIKE: the prefix is matched as written.
		if maxActive > 0 {
			n, err := s.countTx(ctx, tx, `SELECT COUNT(*) FROM jobs WHERE account_id = ? AND status IN ('queued', 'running')
				AND substr(error, 1, ?) <> ?`, accountID, len([]rune(held)), held)
			if err != nil || n >= maxActive {
				return err
			}
		}
		res, err := tx.ExecContext(ctx, s.db.Q(`UPDATE jobs SET error = '', updated_at = ?
			WHERE id = ? AND account_id = ? AND status = 'queued' AND substr(error, 1, ?) = ?`),
			tv(norm(at)), id, accountID, len([]rune(held)), held)
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		ok = n == 1
		return err
	})
	if err != nil {
		return false, mapErr("activate job", err)
	}
	return ok, nil
}

// TakeRender records that the job renders pageURL (keyed by the URL's
// SHA-256) unless it recorded limit other pages, in one transaction.
func (s *Store) TakeRender(ctx context.Context, jobID, pageURL string, limit int) (bool, error) {
	switch {
	case jobID == "":
		return false, &seo.InputError{Field: "jobId", Reason: "is empty"}
	case pageURL == "":
		return false, &seo.InputError{Field: "url", Reason: "is empty"}
	case limit <= 0:
		return false, nil
	}
	h := sha256.Sum256([]byte(pageURL))
	ok := false
	err := s.db.InTx(ctx, func(tx *sql.Tx) error {
		if err := s.lockOwner(ctx, tx, "jobs", jobID); err != nil {
			return err
		}
		had, err := s.countTx(ctx, tx, `SELECT COUNT(*) FROM job_renders WHERE job_id = ? AND url_hash = ?`, jobID, h[:])
		if err != nil || had > 0 {
			ok = had > 0
			return err
		}
		n, err := s.countTx(ctx, tx, `SELECT COUNT(*) FROM job_renders WHERE job_id = ?`, jobID)
		if err != nil || n >= limit {
			return err
		}
		if _, err := tx.ExecContext(ctx, s.db.Q(`INSERT INTO job_renders (job_id, url_hash) VALUES (?, ?)`), jobID, h[:]); err != nil {
			return err
		}
		ok = true
		return nil
	})
	if err != nil {
		return false, mapErr("take render", err)
	}
	return ok, nil
}

// PutScreenshotWithin stores or replaces the screenshot of pageURL if the
// job has one of it already or fewer than limit, in one transaction.
func (s *Store) PutScreenshotWithin(ctx context.Context, jobID, pageURL string, png []byte, limit int) error {
	if err := checkScreenshot(jobID, pageURL, png); err != nil {
		return err
	}
	h := sha256.Sum256([]byte(pageURL))
	err := s.db.InTx(ctx, func(tx *sql.Tx) error {
		if err := s.lockOwner(ctx, tx, "jobs", jobID); err != nil {
			return err
		}
		had, err := s.countTx(ctx, tx, `SELECT COUNT(*) FROM screenshots WHERE job_id = ? AND url_hash = ?`, jobID, h[:])
		if err != nil {
			return err
		}
		if had == 0 {
			n, err := s.countTx(ctx, tx, `SELECT COUNT(*) FROM screenshots WHERE job_id = ?`, jobID)
			if err != nil {
				return err
			}
			if n >= limit {
				return &store.LimitError{What: "screenshots", Limit: limit, Count: n}
			}
		}
		_, err = tx.ExecContext(ctx, s.db.Q(putScreenshotSQL), jobID, h[:], pageURL, png, tv(now()))
		return err
	})
	return mapErr("put screenshot", err)
}
