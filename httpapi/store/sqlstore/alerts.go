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

const deliveryCols = `id, account_id, project_id, rule_id, job_id, dedupe_key, change_key, payload, state, attempts, next_attempt, last_error, created_at, delivered_at`

func scanDelivery(r rowScanner) (*store.AlertDelivery, error) {
	var (
		d                        store.AlertDelivery
		next, created, delivered sql.NullInt64
	)
	if err := r.Scan(&d.ID, &d.AccountID, &d.ProjectID, &d.RuleID, &d.JobID, &d.DedupeKey, &d.ChangeKey, &d.Payload,
		&d.State, &d.Attempts, &next, &d.LastError, &created, &delivered); err != nil {
		return nil, err
	}
	d.NextAttempt, d.CreatedAt, d.DeliveredAt = tm(next), tm(created), tm(delivered)
	return &d, nil
}

func (s *Store) deliveries(ctx context.Context, q interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}, op, query string, args ...any) ([]store.AlertDelivery, error) {
	rows, err := q.QueryContext(ctx, s.db.Q(query), args...)
	if err != nil {
		return nil, mapErr(op, err)
	}
	defer rows.Close()
	var out []store.AlertDelivery
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

// AddAlertDelivery stores a delivery unless its rule has one with the same
// DedupeKey (false, nothing stored); a repeat of a change sent since
// coolDownSince is stored suppressed. It prunes the project's log beyond
// store.MaxAlertDeliveries, pending deliveries excepted.
func (s *Store) AddAlertDelivery(ctx context.Context, d *store.AlertDelivery, coolDownSince time.Time) (bool, error) {
	switch {
	case d == nil:
		return false, &seo.InputError{Field: "delivery", Reason: "is nil"}
	case d.RuleID == "" || d.ProjectID == "" || d.AccountID == "":
		return false, &seo.InputError{Field: "ruleId", Reason: "rule, project and account are required"}
	case d.DedupeKey == "":
		return false, &seo.InputError{Field: "dedupeKey", Reason: "is empty"}
	}
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
	d.CreatedAt, d.NextAttempt, d.DeliveredAt = norm(d.CreatedAt), norm(d.NextAttempt), norm(d.DeliveredAt)
	added := false
	err := s.db.InTx(ctx, func(tx *sql.Tx) error {
		if d.State == store.DeliveryPending && d.ChangeKey != "" && !coolDownSince.IsZero() {
			var n int
			if err := tx.QueryRowContext(ctx, s.db.Q(`SELECT COUNT(*) FROM alert_deliveries WHERE rule_id = ? AND change_key = ?
				AND created_at >= ? AND state <> ?`), d.RuleID, d.ChangeKey, tv(norm(coolDownSince)), store.DeliverySuppressed).Scan(&n); err != nil {
				return err
			}
			if n > 0 {
				d.State, d.LastError, d.NextAttempt = store.DeliverySuppressed, "cool-down: the same change was sent recently", time.Time{}
			}
		}
		res, err := tx.ExecContext(ctx, s.db.Q(`INSERT INTO alert_deliveries (`+deliveryCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (rule_id, dedupe_key) DO NOTHING`),
			d.ID, d.AccountID, d.ProjectID, d.RuleID, d.JobID, d.DedupeKey, d.ChangeKey, nullBytes(d.Payload), d.State, d.Attempts,
			tv(d.NextAttempt), d.LastError, tv(d.CreatedAt), tv(d.DeliveredAt))
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return err
		}
		added = true
		_, err = tx.ExecContext(ctx, s.db.Q(`DELETE FROM alert_deliveries WHERE project_id = ? AND state <> ? AND id NOT IN (
			SELECT id FROM alert_deliveries WHERE project_id = ? ORDER BY created_at DESC, id DESC LIMIT ?)`),
			d.ProjectID, store.DeliveryPending, d.ProjectID, store.MaxAlertDeliveries)
		return err
	})
	if err != nil {
		return false, mapErr("add alert delivery", err)
	}
	return added, nil
}

// ClaimAlertDeliveries returns up to limit pending deliveries due at now,
// oldest first, their NextAttempt moved to now+lease.
func (s *Store) ClaimAlertDeliveries(ctx context.Context, at time.Time, lease time.Duration, limit int) ([]store.AlertDelivery, error) {
	if limit <= 0 {
		limit = 100
	}
	at = norm(at)
	until := norm(at.Add(lease))
	var out []store.AlertDelivery
	err := s.db.InTx(ctx, func(tx *sql.Tx) error {
		out = out[:0]
		due, err := s.deliveries(ctx, tx, "claim alert deliveries", `SELECT `+deliveryCols+` FROM alert_deliveries
			WHERE state = ? AND next_attempt <= ? ORDER BY next_attempt, id LIMIT ?`, store.DeliveryPending, tv(at), limit)
		if err != nil {
			return err
		}
		for _, d := range due {
			// Another instance may have claimed it since the SELECT.
			res, err := tx.ExecContext(ctx, s.db.Q(`UPDATE alert_deliveries SET next_attempt = ? WHERE id = ? AND state = ? AND next_attempt = ?`),
				tv(until), d.ID, store.DeliveryPending, tv(d.NextAttempt))
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n == 1 {
				d.NextAttempt = until
				out = append(out, d)
			}
		}
		return nil
	})
	if err != nil {
		return nil, mapErr("claim alert deliveries", err)
	}
	return out, nil
}

// UpdateAlertDelivery stores the delivery's state, attempts, next attempt,
// last error and delivery time.
func (s *Store) UpdateAlertDelivery(ctx context.Context, d *store.AlertDelivery) error {
	return s.execOne(ctx, "update alert delivery", `UPDATE alert_deliveries SET state = ?, attempts = ?, next_attempt = ?, last_error = ?, delivered_at = ?
		WHERE id = ?`, d.State, d.Attempts, tv(norm(d.NextAttempt)), d.LastError, tv(norm(d.DeliveredAt)), d.ID)
}

// AlertDeliveries lists the deliveries of the account's project, newest
// first, at most limit (1 to store.MaxAlertDeliveries).
func (s *Store) AlertDeliveries(ctx context.Context, accountID, projectID string, limit int) ([]store.AlertDelivery, error) {
	if limit <= 0 || limit > store.MaxAlertDeliveries {
		limit = store.MaxAlertDeliveries
	}
	return s.deliveries(ctx, s.db, "alert deliveries", `SELECT `+deliveryCols+` FROM alert_deliveries WHERE account_id = ? AND project_id = ?
		ORDER BY created_at DESC, id DESC LIMIT ?`, accountID, projectID, limit)
}
