package sqlstore

import (
	"context"
	"time"

	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/seo"
)

var _ store.Retention = (*Store)(nil)

// pruneBatch bounds the jobs one statement deletes, so that a long
// history is pruned in short statements other writers can come between
// (SQLite has one connection).
const pruneBatch = 200

// The finished site analyses of an account's project, newest first,
// numbered; and the finished jobs of the account without a project, of
// any kind (site analyses and the log parses httpapi stores without one).
// Window functions
// run on SQLite (3.25+) and PostgreSQL alike.
const (
	pruneProjectSQL = `DELETE FROM jobs WHERE id IN (
		SELECT id FROM (
			SELECT id, created_at, ROW_NUMBER() OVER (ORDER BY created_at DESC, id DESC) AS n
			FROM jobs WHERE account_id = ? AND project_id = ? AND kind = 'site'
				AND status IN ('succeeded', 'failed', 'canceled')
		) ranked WHERE (? > 0 AND n > ?) OR created_at < ?
		LIMIT ?)`
	pruneLooseSQL = `DELETE FROM jobs WHERE id IN (
		SELECT id FROM jobs WHERE account_id = ? AND project_id IS NULL
			AND status IN ('succeeded', 'failed', 'canceled') AND created_at < ?
		LIMIT ?)`
)

// PruneJobs deletes the finished jobs of the account's project beyond the
// newest keep or created before before, or with projectID "" the
// account's finished jobs without a project created before before, in
// statements of at most pruneBatch jobs; screenshots go with their job
// (ON DELETE CASCADE). A job's status is checked in the statement that
// deletes it, so a job queued or running is never deleted.
func (s *Store) PruneJobs(ctx context.Context, accountID, projectID string, keep int, before time.Time) (int, error) {
	if accountID == "" {
		return 0, &seo.InputError{Field: "accountId", Reason: "is empty"}
	}
	if projectID == "" && before.IsZero() {
		return 0, nil
	}
	cutoff := int64(-1 << 62) // no age limit
	if !before.IsZero() {
		cutoff = before.UTC().UnixMicro()
	}
	total := 0
	for {
		var (
			q    string
			args []any
		)
		if projectID != "" {
			q, args = pruneProjectSQL, []any{accountID, projectID, keep, keep, cutoff, pruneBatch}
		} else {
			q, args = pruneLooseSQL, []any{accountID, cutoff, pruneBatch}
		}
		res, err := s.exec(ctx, "prune jobs", q, args...)
		if err != nil {
			return total, err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return total, mapErr("prune jobs", err)
		}
		total += int(n)
		if n < pruneBatch {
			return total, nil
		}
	}
}
