package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/seo"
)

// rowScanner is *sql.Row or *sql.Rows.
type rowScanner interface {
	Scan(dest ...any) error
}

// encodeList stores a string list as a JSON array.
func encodeList(l []string) string {
	if len(l) == 0 {
		return "[]"
	}
	b, _ := json.Marshal(l)
	return string(b)
}

func decodeList(s string) ([]string, error) {
	if s == "" || s == "[]" {
		return nil, nil
	}
	var l []string
	if err := json.Unmarshal([]byte(s), &l); err != nil {
		return nil, fmt.Errorf("sqlstore: corrupt list %q: %w", s, err)
	}
	return l, nil
}

func nullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func nullBytes(b []byte) any {
	if b == nil {
		return nil
	}
	return b
}

func validPlan(p store.Plan) bool {
	return p == store.Free || p == store.Pro || p == store.Enterprise
}

func checkAccount(a *store.Account) error {
	if a == nil {
		return &seo.InputError{Field: "account", Reason: "is nil"}
	}
	if !validPlan(a.Plan) {
		return &seo.InputError{Field: "plan", Value: string(a.Plan), Reason: "must be free, pro or enterprise"}
	}
	if a.DailyLimit < 0 {
		return &seo.InputError{Field: "dailyLimit", Value: fmt.Sprint(a.DailyLimit), Reason: "must not be negative"}
	}
	if strings.ContainsAny(a.Email, " \t\r\n") {
		return &seo.InputError{Field: "email", Value: a.Email, Reason: "must not contain spaces"}
	}
	return nil
}

// CreateAccount stores a new account. An empty ID is filled with a random
// "acct_..." one, an empty plan with store.Free, a zero CreatedAt with now;
// the email is lowercased. A taken email or ID is store.ErrConflict.
func (s *Store) CreateAccount(ctx context.Context, a *store.Account) error {
	if a != nil && a.Plan == "" {
		a.Plan = store.Free
	}
	if err := checkAccount(a); err != nil {
		return err
	}
	if a.ID == "" {
		a.ID = newID("acct_")
	}
	if a.CreatedAt.IsZero() {
		a.CreatedAt = now()
	}
	a.CreatedAt = norm(a.CreatedAt)
	a.Email = strings.ToLower(strings.TrimSpace(a.Email))
	_, err := s.exec(ctx, "create account",
		`INSERT INTO accounts (id, email, name, password_hash, plan, daily_limit, admin, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		a.ID, nullString(a.Email), a.Name, a.PasswordHash, string(a.Plan), a.DailyLimit, boolInt(a.Admin), tv(a.CreatedAt))
	return err
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

const accountCols = `id, email, name, password_hash, plan, daily_limit, admin, created_at`

func scanAccount(r rowScanner) (*store.Account, error) {
	var (
		a       store.Account
		email   sql.NullString
		plan    string
		admin   int
		created sql.NullInt64
	)
	if err := r.Scan(&a.ID, &email, &a.Name, &a.PasswordHash, &plan, &a.DailyLimit, &admin, &created); err != nil {
		return nil, err
	}
	a.Email = email.String
	a.Plan = store.Plan(plan)
	a.Admin = admin != 0
	a.CreatedAt = tm(created)
	return &a, nil
}

// Account returns the account with this ID.
func (s *Store) Account(ctx context.Context, id string) (*store.Account, error) {
	a, err := scanAccount(s.db.QueryRowContext(ctx, s.db.Q(`SELECT `+accountCols+` FROM accounts WHERE id = ?`), id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("sqlstore: account %q: %w", id, store.ErrNotFound)
	}
	if err != nil {
		return nil, mapErr("account", err)
	}
	return a, nil
}

// AccountByEmail returns the account with this email, compared
// case-insensitively.
func (s *Store) AccountByEmail(ctx context.Context, email string) (*store.Account, error) {
	email = strings.ToLower(strings.TrimSpace(email))
	if email == "" {
		return nil, &seo.InputError{Field: "email", Reason: "is empty"}
	}
	a, err := scanAccount(s.db.QueryRowContext(ctx, s.db.Q(`SELECT `+accountCols+` FROM accounts WHERE email = ?`), email))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("sqlstore: account with that email: %w", store.ErrNotFound)
	}
	if err != nil {
		return nil, mapErr("account by email", err)
	}
	return a, nil
}

// UpdateAccount stores the account's email, name, password hash, plan,
// daily limit and admin flag (not its ID or creation time).
func (s *Store) UpdateAccount(ctx context.Context, a *store.Account) error {
	if err := checkAccount(a); err != nil {
		return err
	}
	a.Email = strings.ToLower(strings.TrimSpace(a.Email))
	return s.execOne(ctx, "update account",
		`UPDATE accounts SET email = ?, name = ?, password_hash = ?, plan = ?, daily_limit = ?, admin = ? WHERE id = ?`,
		nullString(a.Email), a.Name, a.PasswordHash, string(a.Plan), a.DailyLimit, boolInt(a.Admin), a.ID)
}

// CountAccounts returns the number of accounts.
func (s *Store) CountAccounts(ctx context.Context) (int, error) {
	var n int
	if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM accounts`).Scan(&n); err != nil {
		return 0, mapErr("count accounts", err)
	}
	return n, nil
}

// ListAccounts returns a page of accounts ordered by ID, after the account
// with ID after ("" for the first page). limit <= 0 means
// store.DefaultListLimit; it is capped at store.MaxListLimit.
func (s *Store) ListAccounts(ctx context.Context, after string, limit int) ([]store.Account, error) {
	if limit <= 0 {
		limit = store.DefaultListLimit
	}
	limit = min(limit, store.MaxListLimit)
	rows, err := s.db.QueryContext(ctx, s.db.Q(`SELECT `+accountCols+` FROM accounts WHERE id > ? ORDER BY id LIMIT ?`), after, limit)
	if err != nil {
		return nil, mapErr("list accounts", err)
	}
	defer rows.Close()
	out := make([]store.Account, 0, min(limit, 64))
	for rows.Next() {
		a, err := scanAccount(rows)
		if err != nil {
			return nil, mapErr("list accounts", err)
		}
		out = append(out, *a)
	}
	if err := rows.Err(); err != nil {
		return nil, mapErr("list accounts", err)
	}
	return out, nil
}

// ---- API keys

const keyCols = `id, account_id, name, prefix, hash, permissions, created_at, last_used_at, expires_at, revoked_at`

func scanKey(r rowScanner) (*store.APIKey, error) {
	var (
		k                               store.APIKey
		perms                           string
		created, used, expires, revoked sql.NullInt64
	)
	if err := r.Scan(&k.ID, &k.AccountID, &k.Name, &k.Prefix, &k.Hash, &perms, &created, &used, &expires, &revoked); err != nil {
		return nil, err
	}
	var err error
	if k.Permissions, err = decodeList(perms); err != nil {
		return nil, err
	}
	k.CreatedAt, k.LastUsedAt, k.ExpiresAt, k.RevokedAt = tm(created), tm(used), tm(expires), tm(revoked)
	return &k, nil
}

// CreateKey stores a new API key. An empty ID is filled with a random
// "key_..." one and a zero CreatedAt with now. The hash must be set; a
// taken hash or ID is store.ErrConflict; an unknown account is
// store.ErrNotFound.
func (s *Store) CreateKey(ctx context.Context, k *store.APIKey) error {
	if k == nil {
		return &seo.InputError{Field: "key", Reason: "is nil"}
	}
	if len(k.Hash) == 0 {
		return &seo.InputError{Field: "hash", Reason: "is empty"}
	}
	if k.AccountID == "" {
		return &seo.InputError{Field: "accountId", Reason: "is empty"}
	}
	if k.ID == "" {
		k.ID = newID("key_")
	}
	if k.CreatedAt.IsZero() {
		k.CreatedAt = now()
	}
	k.CreatedAt, k.LastUsedAt, k.ExpiresAt, k.RevokedAt = norm(k.CreatedAt), norm(k.LastUsedAt), norm(k.ExpiresAt), norm(k.RevokedAt)
	err := s.db.InTx(ctx, func(tx *sql.Tx) error {
		if err := s.lockOwner(ctx, tx, "accounts", k.AccountID); err != nil {
			return err
		}
		usable, stale, err := s.keyStates(ctx, tx, k.AccountID, k.CreatedAt)
		if err != nil {
			return err
		}
		if usable >= store.MaxKeys {
			return &store.LimitError{What: "API keys", Limit: store.MaxKeys, Count: usable}
		}
		for _, id := range stale {
			if _, err := tx.ExecContext(ctx, s.db.Q(`DELETE FROM api_keys WHERE id = ?`), id); err != nil {
				return err
			}
		}
		_, err = tx.ExecContext(ctx, s.db.Q(`INSERT INTO api_keys (`+keyCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
			k.ID, k.AccountID, k.Name, k.Prefix, k.Hash, encodeList(k.Permissions), tv(k.CreatedAt), tv(k.LastUsedAt), tv(k.ExpiresAt), tv(k.RevokedAt))
		return err
	})
	var le *store.LimitError
	if errors.As(err, &le) {
		return err
	}
	return mapErr("create key", err)
}

// keyStates reads in tx the account's keys at now: how many are usable
// (neither revoked nor expired) and the IDs of the revoked or expired ones
// older than the newest store.KeptInactiveKeys.
func (s *Store) keyStates(ctx context.Context, tx *sql.Tx, accountID string, now time.Time) (usable int, stale []string, err error) {
	rows, err := tx.QueryContext(ctx, s.db.Q(`SELECT id, expires_at, revoked_at FROM api_keys WHERE account_id = ? ORDER BY created_at DESC, id DESC`), accountID)
	if err != nil {
		return 0, nil, err
	}
	defer rows.Close()
	inactive := 0
	for rows.Next() {
		var (
			id               string
			expires, revoked sql.NullInt64
		)
		if err := rows.Scan(&id, &expires, &revoked); err != nil {
			return 0, nil, err
		}
		if exp := tm(expires); !tm(revoked).IsZero() || (!exp.IsZero() && !exp.After(now)) {
			if inactive++; inactive > store.KeptInactiveKeys {
				stale = append(stale, id)
			}
			continue
		}
		usable++
	}
	return usable, stale, rows.Err()
}

// KeyByHash returns the key with this hash, revoked or not.
func (s *Store) KeyByHash(ctx context.Context, hash []byte) (*store.APIKey, error) {
	if len(hash) == 0 {
		return nil, &seo.InputError{Field: "hash", Reason: "is empty"}
	}
	k, err := scanKey(s.db.QueryRowContext(ctx, s.db.Q(`SELECT `+keyCols+` FROM api_keys WHERE hash = ?`), hash))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("sqlstore: key: %w", store.ErrNotFound)
	}
	if err != nil {
		return nil, mapErr("key by hash", err)
	}
	return k, nil
}

// Keys lists an account's keys, newest first.
func (s *Store) Keys(ctx context.Context, accountID string) ([]store.APIKey, error) {
	rows, err := s.db.QueryContext(ctx, s.db.Q(`SELECT `+keyCols+` FROM api_keys WHERE account_id = ? ORDER BY created_at DESC, id DESC`), accountID)
	if err != nil {
		return nil, mapErr("keys", err)
	}
	defer rows.Close()
	var out []store.APIKey
	for rows.Next() {
		k, err := scanKey(rows)
		if err != nil {
			return nil, mapErr("keys", err)
		}
		out = append(out, *k)
	}
	if err := rows.Err(); err != nil {
		return nil, mapErr("keys", err)
	}
	return out, nil
}

// RevokeKey revokes an account's key. A key of another account, or none,
// is store.ErrNotFound. Revoking a revoked key keeps the first time.
func (s *Store) RevokeKey(ctx context.Context, accountID, id string, at time.Time) error {
	if at.IsZero() {
		at = now()
	}
	return s.execOne(ctx, "revoke key",
		`UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ? AND account_id = ?`,
		tv(at), id, accountID)
}

// TouchKey records a use of the key. It writes at most once per
// Options.TouchInterval per key: calls in between return nil without a
// database round trip.
func (s *Store) TouchKey(ctx context.Context, id string, at time.Time) error {
	if at.IsZero() {
		at = now()
	}
	s.touchMu.Lock()
	last, ok := s.touched[id]
	if ok && at.Sub(last) < s.opts.TouchInterval && !at.Before(last) {
		s.touchMu.Unlock()
		return nil
	}
	if len(s.touched) >= 100_000 {
		clear(s.touched) // bounded memory; the database keeps throttling
	}
	s.touched[id] = at
	s.touchMu.Unlock()
	_, err := s.exec(ctx, "touch key",
		`UPDATE api_keys SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at <= ?)`,
		tv(at), id, at.Add(-s.opts.TouchInterval).UnixMicro())
	if err != nil {
		s.touchMu.Lock()
		delete(s.touched, id)
		s.touchMu.Unlock()
	}
	return err
}
