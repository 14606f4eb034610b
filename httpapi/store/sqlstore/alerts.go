package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/seo"
)

const ruleCols = `id, account_id, project_id, kind, params, channel, target, secret, muted, muted_until, created_at, updated_at`

func scanRule(r rowScanner) (*store.AlertRule, error) {
	var (
		a                       store.AlertRule
		muted                   int
		until, created, updated sql.NullInt64
	)
	if err := r.Scan(&a.ID, &a.AccountID, &a.ProjectID, &a.Kind, &a.Params, &a.Channel, &a.Target, &a.Secret,
		&muted, &until, &created, &updated); err != nil {
		return nil, err
	}
	a.Muted = muted != 0
	a.MutedUntil, a.CreatedAt, a.UpdatedAt = tm(until), tm(created), tm(updated)
	return &a, nil
}

func checkRule(r *store.AlertRule) error {
	switch {
	case r == nil:
		return &seo.InputError{Field: "rule", Reason: "is nil"}
	case r.AccountID == "":
		return &seo.InputError{Field: "accountId", Reason: "is empty"}
	case r.Kind == "":
		return &seo.InputError{Field: "kind", Reason: "is empty"}
	case r.Channel == "":
		return &seo.InputError{Field: "channel", Reason: "is empty"}
	}
	return nil
}

// CreateAlertRule stores a new rule of one of the account's projects
// (store.ErrNotFound for another's). An empty ID is filled with a random
// "alr_..." one, zero times with now.
func (s *Store) CreateAlertRule(ctx context.Context, r *store.AlertRule) error {
	if err := prepareRule(r); err != nil {
		return err
	}
	return s.execOne(ctx, "create alert rule", insertRuleSQL, ruleArgs(r)...)
}

// prepareRule checks a new rule and fills its defaults.
func prepareRule(r *store.AlertRule) error {
	if err := checkRule(r); err != nil {
		return err
	}
	if r.ID == "" {
		r.ID = newID("alr_")
	}
	if r.CreatedAt.IsZero() {
		r.CreatedAt = now()
	}
	if r.UpdatedAt.IsZero() {
		r.UpdatedAt = r.CreatedAt
	}
	r.CreatedAt, r.UpdatedAt, r.MutedUntil = norm(r.CreatedAt), norm(r.UpdatedAt), norm(r.MutedUntil)
	return nil
}

// insertRuleSQL stores a rule from its project's row, which checks that
// the project is the account's; ruleArgs are its arguments.
const insertRuleSQL = `INSERT INTO alert_rules (` + ruleCols + `)
	SELECT ?, ?, id, ?, ?, ?, ?, ?, ?, ?, ?, ? FROM projects WHERE id = ? AND account_id = ?`

func ruleArgs(r *store.AlertRule) []any {
	return []any{r.ID, r.AccountID, r.Kind, nullBytes(r.Params), r.Channel, r.Target, r.Secret, boolInt(r.Muted), tv(r.MutedUntil),
		tv(r.CreatedAt), tv(r.UpdatedAt), r.ProjectID, r.AccountID}
}

// AlertRule returns the account's rule; another account's is
// store.ErrNotFound.
func (s *Store) AlertRule(ctx context.Context, accountID, id string) (*store.AlertRule, error) {
	r, err := scanRule(s.db.QueryRowContext(ctx, s.db.Q(`SELECT `+ruleCols+` FROM alert_rules WHERE id = ? AND account_id = ?`), id, accountID))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("sqlstore: alert rule %q: %w", id, store.ErrNotFound)
	}
	if err != nil {
		return nil, mapErr("alert rule", err)
	}
	return r, nil
}

// AlertRules lists the rules of the account's project, oldest first, at
// most store.MaxAlertRules.
func (s *Store) AlertRules(ctx context.Context, accountID, projectID string) ([]store.AlertRule, error) {
	rows, err := s.db.QueryContext(ctx, s.db.Q(`SELECT `+ruleCols+` FROM alert_rules WHERE account_id = ? AND project_id = ?
		ORDER BY created_at, id LIMIT ?`), accountID, projectID, store.MaxAlertRules)
	if err != nil {
		return nil, mapErr("alert rules", err)
	}
	defer rows.Close()
	var out []store.AlertRule
	for rows.Next() {
		r, err := scanRule(rows)
		if err != nil {
			return nil, mapErr("alert rules", err)
		}
		out = append(out, *r)
	}
	if err := rows.Err(); err != nil {
		return nil, mapErr("alert rules", err)
	}
	return out, nil
}

// CountAlertRules counts the account's rules.
func (s *Store) CountAlertRules(ctx context.Context, accountID string) (int, error) {
	var n int
	if err := s.db.QueryRowContext(ctx, s.db.Q(`SELECT COUNT(*) FROM alert_rules WHERE account_id = ?`), accountID).Scan(&n); err != nil {
		return 0, mapErr("count alert rules", err)
	}
	return n, nil
}

// UpdateAlertRule stores the rule's kind, params, channel, target, secret
// and muted state; a zero UpdatedAt is set to now.
func (s *Store) UpdateAlertRule(ctx context.Context, r *store.AlertRule) error {
	if err := checkRule(r); err != nil {
		return err
	}
	if r.UpdatedAt.IsZero() {
		r.UpdatedAt = now()
	}
	r.UpdatedAt, r.MutedUntil = norm(r.UpdatedAt), norm(r.MutedUntil)
	return s.execOne(ctx, "update alert rule", `UPDATE alert_rules SET kind = ?, params = ?, channel = ?, target = ?, secret = ?,
		muted = ?, muted_until = ?, updated_at = ? WHERE id = ? AND account_id = ?`,
		r.Kind, nullBytes(r.Params), r.Channel, r.Target, r.Secret, boolInt(r.Muted), tv(r.MutedUntil), tv(r.UpdatedAt), r.ID, r.AccountID)
}

// DeleteAlertRule deletes the account's rule and its deliveries.
func (s *Store) DeleteAlertRule(ctx context.Context, accountID, id string) error {
	return s.execOne(ctx, "delete alert rule", `DELETE FROM alert_rules WHERE id = ? AND account_id = ?`, id, accountID)
}

// deliveryCols are the columns of a Delivery, as scanDelivery reads them;
// insertDeliveryCols the same columns to insert.
const (
	deliveryCols = `id, kind, account_id, COALESCE(project_id, ''), COALESCE(rule_id, ''), job_id, target, dedupe_key, change_key,
		payload, state, attempts, next_attempt, lease_until, last_error, created_at, delivered_at`
	insertDeliveryCols = `id, kind, account_id, project_id, rule_id, job_id, target, dedupe_key, change_key,
		payload, state, attempts, next_attempt, lease_until, last_error, created_at, delivered_at`
)

func scanDelivery(r rowScanner) (*store.Delivery, error) {
	var (
		d                               store.Delivery
		next, lease, created, delivered sql.NullInt64
	)
	if err := r.Scan(&d.ID, &d.Kind, &d.AccountID, &d.ProjectID, &d.RuleID, &d.JobID, &d.Target, &d.DedupeKey, &d.ChangeKey,
		&d.Payload, &d.State, &d.Attempts, &next, &lease, &d.LastError, &created, &delivered); err != nil {
		return nil, err
	}
	d.NextAttempt, d.LeaseUntil, d.CreatedAt, d.DeliveredAt = tm(next), tm(lease), tm(created), tm(delivered)
	return &d, nil
}

func (s *Store) deliveries(ctx context.Context, q interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}, op, query string, args ...any) ([]store.Delivery, error) {
	rows, err := q.QueryContext(ctx, s.db.Q(query), args...)
	if err != nil {
		return nil, mapErr(op, err)
	}
	defer rows.Close()
	var out []store.Delivery
	for rows.Next() {
		d, err := scanDelivery(rows)
		if err != nil {
			return nil, mapErr(op, err)
		}
		out = append(out, *d)
	}
	if err := rows.Err(); err != nil {
		return nil, mapErr(op, err)
	}
	return out, nil
}

// AddAlertDelivery stores an alert delivery unless its rule has one with
// the same DedupeKey (false, nothing stored); a repeat of a change sent
// since coolDownSince is stored suppressed. It prunes the project's log
// beyond store.MaxAlertDeliveries, pending deliveries excepted.
func (s *Store) AddAlertDelivery(ctx context.Context, d *store.Delivery, coolDownSince time.Time) (bool, error) {
	switch {
	case d == nil:
		return false, &seo.InputError{Field: "delivery", Reason: "is nil"}
	case d.Kind != "" && d.Kind != store.DeliveryAlert:
		return false, &seo.InputError{Field: "kind", Value: d.Kind, Reason: "must be alert"}
	case d.RuleID == "" || d.ProjectID == "" || d.AccountID == "":
		return false, &seo.InputError{Field: "ruleId", Reason: "rule, project and account are required"}
	case d.DedupeKey == "":
		return false, &seo.InputError{Field: "dedupeKey", Reason: "is empty"}
	}
	d.Kind = store.DeliveryAlert
	if d.ID == "" {
		d.ID = newID("dlv_")
	}
	if d.CreatedAt.IsZero() {
		d.CreatedAt = now()
	}
	if d.State == "" {
		d.State = store.DeliveryPending
	}
	if d.NextAttempt.IsZero() && d.State == store.DeliveryPending {
		d.NextAttempt = d.CreatedAt
	}
	d.CreatedAt, d.NextAttempt, d.DeliveredAt, d.LeaseUntil = norm(d.CreatedAt), norm(d.NextAttempt), norm(d.DeliveredAt), time.Time{}
	added := false
	err := s.db.InTx(ctx, func(tx *sql.Tx) error {
		if d.State == store.DeliveryPending && d.ChangeKey != "" && !coolDownSince.IsZero() {
			var n int
			if err := tx.QueryRowContext(ctx, s.db.Q(`SELECT COUNT(*) FROM deliveries WHERE rule_id = ? AND change_key = ?
				AND created_at >= ? AND state <> ?`), d.RuleID, d.ChangeKey, tv(norm(coolDownSince)), store.DeliverySuppressed).Scan(&n); err != nil {
				return err
			}
			if n > 0 {
				d.State, d.LastError, d.NextAttempt = store.DeliverySuppressed, "cool-down: the same change was sent recently", time.Time{}
			}
		}
		res, err := tx.ExecContext(ctx, s.db.Q(`INSERT INTO deliveries (`+insertDeliveryCols+`)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?, ?)
			ON CONFLICT (rule_id, dedupe_key) DO NOTHING`),
			d.ID, d.Kind, d.AccountID, d.ProjectID, d.RuleID, d.JobID, "", d.DedupeKey, d.ChangeKey, nullBytes(d.Payload), d.State, d.Attempts,
			tv(d.NextAttempt), d.LastError, tv(d.CreatedAt), tv(d.DeliveredAt))
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return err
		}
		added = true
		// The log is pruned once it outgrows its cap; counting on the
		// project's index is far cheaper than the DELETE's ordered
		// subquery, which would find nothing to remove below the cap.
		var n int
		if err := tx.QueryRowContext(ctx, s.db.Q(`SELECT COUNT(*) FROM deliveries WHERE project_id = ?`), d.ProjectID).Scan(&n); err != nil || n <= store.MaxAlertDeliveries {
			return err
		}
		_, err = tx.ExecContext(ctx, s.db.Q(`DELETE FROM deliveries WHERE project_id = ? AND state <> ? AND id NOT IN (
			SELECT id FROM deliveries WHERE project_id = ? ORDER BY created_at DESC, id DESC LIMIT ?)`),
			d.ProjectID, store.DeliveryPending, d.ProjectID, store.MaxAlertDeliveries)
		return err
	})
	if err != nil {
		return false, mapErr("add alert delivery", err)
	}
	return added, nil
}

// addCallbackSQL adds the callback delivery of a job that has just
// reached its final state with its callback pending (UpdateJob), once per
// job: the partial unique index on job_id refuses a second.
const addCallbackSQL = `INSERT INTO deliveries (` + insertDeliveryCols + `)
	SELECT ?, 'callback', account_id, NULL, NULL, id, callback_url, id, '', NULL, 'pending', 0, ?, NULL, '', ?, NULL
	FROM jobs WHERE id = ? AND account_id = ? AND callback_url <> '' AND callback_state = 'pending'
	ON CONFLICT DO NOTHING`

// claimLock is the PostgreSQL advisory lock that serialises claims, so
// that the per-account count of leases a claim reads is still true when
// it commits.
const claimLock = 0x5e0c17_0ddb0

// ClaimDeliveries leases up to limit due, unleased pending deliveries,
// oldest NextAttempt first, at most perAccount leased per account at
// once (perAccount <= 0: no cap). An account's due deliveries are
// numbered in order and only those that fit beside its current leases
// are taken, so one account's backlog never hides another's.
func (s *Store) ClaimDeliveries(ctx context.Context, at time.Time, lease time.Duration, limit, perAccount int) ([]store.Delivery, error) {
	if limit <= 0 {
		limit = 100
	}
	if perAccount <= 0 {
		perAccount = math.MaxInt32
	}
	at = norm(at)
	until := norm(at.Add(lease))
	var out []store.Delivery
	err := s.db.InTx(ctx, func(tx *sql.Tx) error {
		out = out[:0]
		if s.db.Dialect == Postgres {
			if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1)`, claimLock); err != nil {
				return err
			}
		}
		due, err := s.deliveries(ctx, tx, "claim deliveries", `WITH leased AS (
				SELECT account_id, COUNT(*) AS n FROM deliveries WHERE state = ? AND lease_until > ? GROUP BY account_id
			), due AS (
				SELECT id, next_attempt, account_id, ROW_NUMBER() OVER (PARTITION BY account_id ORDER BY next_attempt, id) AS rn
				FROM deliveries WHERE state = ? AND next_attempt <= ? AND (lease_until IS NULL OR lease_until <= ?)
			), fit AS (
				SELECT due.id, due.next_attempt FROM due LEFT JOIN leased ON leased.account_id = due.account_id
				WHERE due.rn + COALESCE(leased.n, 0) <= ?
				ORDER BY due.next_attempt, due.id LIMIT ?
			)
			SELECT `+deliveryCols+` FROM deliveries WHERE id IN (SELECT id FROM fit) ORDER BY next_attempt, id`,
			store.DeliveryPending, tv(at), store.DeliveryPending, tv(at), tv(at), perAccount, limit)
		if err != nil {
			return err
		}
		for _, d := range due {
			// Another instance may have claimed it since the SELECT
			// (SQLite in another process).
			res, err := tx.ExecContext(ctx, s.db.Q(`UPDATE deliveries SET lease_until = ?
				WHERE id = ? AND state = ? AND (lease_until IS NULL OR lease_until <= ?)`),
				tv(until), d.ID, store.DeliveryPending, tv(at))
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n == 1 {
				d.LeaseUntil = until
				out = append(out, d)
			}
		}
		return nil
	})
	if err != nil {
		return nil, mapErr("claim deliveries", err)
	}
	return out, nil
}

// UpdateDelivery stores the delivery's state, attempts, next attempt,
// last error, delivery time and payload, and ends its lease; a delivery
// with a LeaseUntil is written only while that is still its lease. A
// callback delivered or failed is written to its job's callback state
// instead and deleted.
func (s *Store) UpdateDelivery(ctx context.Context, d *store.Delivery) error {
	if d == nil {
		return &seo.InputError{Field: "delivery", Reason: "is nil"}
	}
	// A claimed delivery is written only under its own lease: a worker
	// whose lease expired (and was claimed again elsewhere) writes
	// nothing.
	guard, lease := "", []any{}
	if !d.LeaseUntil.IsZero() {
		guard, lease = " AND lease_until = ?", []any{tv(norm(d.LeaseUntil))}
	}
	if d.Kind == store.DeliveryCallback && (d.State == store.DeliveryDelivered || d.State == store.DeliveryFailed) {
		err := s.db.InTx(ctx, func(tx *sql.Tx) error {
			res, err := tx.ExecContext(ctx, s.db.Q(`DELETE FROM deliveries WHERE id = ? AND kind = 'callback'`+guard), append([]any{d.ID}, lease...)...)
			if err != nil {
				return err
			}
			if n, err := res.RowsAffected(); err != nil {
				return err
			} else if n == 0 {
				return fmt.Errorf("sqlstore: update delivery %q: %w", d.ID, store.ErrNotFound)
			}
			// A job deleted meanwhile has nothing to record.
			_, err = tx.ExecContext(ctx, s.db.Q(`UPDATE jobs SET callback_state = ?, updated_at = ?
				WHERE id = ? AND account_id = ? AND callback_state = 'pending'`), d.State, tv(now()), d.JobID, d.AccountID)
			return err
		})
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return mapErr("update delivery", err)
		}
		if err == nil {
			d.LeaseUntil = time.Time{}
		}
		return err
	}
	err := s.execOne(ctx, "update delivery", `UPDATE deliveries SET state = ?, attempts = ?, next_attempt = ?, last_error = ?, delivered_at = ?,
		payload = ?, lease_until = NULL WHERE id = ?`+guard,
		append([]any{d.State, d.Attempts, tv(norm(d.NextAttempt)), d.LastError, tv(norm(d.DeliveredAt)), nullBytes(d.Payload), d.ID}, lease...)...)
	if err == nil {
		d.LeaseUntil = time.Time{}
	}
	return err
}

// AlertDeliveries lists the alert deliveries of the account's project,
// newest first, at most limit (1 to store.MaxAlertDeliveries).
func (s *Store) AlertDeliveries(ctx context.Context, accountID, projectID string, limit int) ([]store.Delivery, error) {
	if limit <= 0 || limit > store.MaxAlertDeliveries {
		limit = store.MaxAlertDeliveries
	}
	return s.deliveries(ctx, s.db, "alert deliveries", `SELECT `+deliveryCols+` FROM deliveries
		WHERE account_id = ? AND project_id = ? AND kind = 'alert' ORDER BY created_at DESC, id DESC LIMIT ?`, accountID, projectID, limit)
}
