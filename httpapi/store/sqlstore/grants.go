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

// ---- clients

const clientCols = `id, account_id, name, secret_hash, redirect_uris, scopes, created_at, revoked_at`

func scanClient(r rowScanner) (*store.Client, error) {
	var (
		c                store.Client
		uris, scopes     string
		created, revoked sql.NullInt64
	)
	if err := r.Scan(&c.ID, &c.AccountID, &c.Name, &c.SecretHash, &uris, &scopes, &created, &revoked); err != nil {
		return nil, err
	}
	var err error
	if c.RedirectURIs, err = decodeList(uris); err != nil {
		return nil, err
	}
	if c.Scopes, err = decodeList(scopes); err != nil {
		return nil, err
	}
	c.CreatedAt, c.RevokedAt = tm(created), tm(revoked)
	return &c, nil
}

// CreateClient stores a new client. An empty ID is filled with a random
// "cli_..." one and a zero CreatedAt with now. A taken ID is
// store.ErrConflict; an unknown account store.ErrNotFound.
func (s *Store) CreateClient(ctx context.Context, c *store.Client) error {
	if err := prepareClient(c); err != nil {
		return err
	}
	_, err := s.exec(ctx, "create client", insertClientSQL, clientArgs(c)...)
	return err
}

// CreateClientWithin stores a new client if its account has fewer than
// limit clients, in one transaction.
func (s *Store) CreateClientWithin(ctx context.Context, c *store.Client, limit int) error {
	if limit <= 0 || limit > store.MaxClients {
		limit = store.MaxClients
	}
	if err := prepareClient(c); err != nil {
		return err
	}
	err := s.db.InTx(ctx, func(tx *sql.Tx) error {
		if err := s.lockOwner(ctx, tx, "accounts", c.AccountID); err != nil {
			return err
		}
		n, err := s.countTx(ctx, tx, `SELECT COUNT(*) FROM clients WHERE account_id = ?`, c.AccountID)
		if err != nil {
			return err
		}
		if n >= limit {
			return &store.LimitError{What: "OAuth applications", Limit: limit, Count: n}
		}
		_, err = tx.ExecContext(ctx, s.db.Q(insertClientSQL), clientArgs(c)...)
		return err
	})
	return mapErr("create client", err)
}

// prepareClient checks a new client and fills its ID and creation time.
func prepareClient(c *store.Client) error {
	if c == nil {
		return &seo.InputError{Field: "client", Reason: "is nil"}
	}
	if c.AccountID == "" {
		return &seo.InputError{Field: "accountId", Reason: "is empty"}
	}
	if c.ID == "" {
		c.ID = newID("cli_")
	}
	if c.CreatedAt.IsZero() {
		c.CreatedAt = now()
	}
	c.CreatedAt, c.RevokedAt = norm(c.CreatedAt), norm(c.RevokedAt)
	return nil
}

const insertClientSQL = `INSERT INTO clients (` + clientCols + `) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`

// clientArgs are the values of insertClientSQL.
func clientArgs(c *store.Client) []any {
	return []any{c.ID, c.AccountID, c.Name, nullBytes(c.SecretHash), encodeList(c.RedirectURIs), encodeList(c.Scopes), tv(c.CreatedAt), tv(c.RevokedAt)}
}

// Client returns the client with this ID, revoked or not.
func (s *Store) Client(ctx context.Context, id string) (*store.Client, error) {
	c, err := scanClient(s.db.QueryRowContext(ctx, s.db.Q(`SELECT `+clientCols+` FROM clients WHERE id = ?`), id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("sqlstore: client %q: %w", id, store.ErrNotFound)
	}
	if err != nil {
		return nil, mapErr("client", err)
	}
	return c, nil
}

// Clients lists an account's clients, newest first.
func (s *Store) Clients(ctx context.Context, accountID string) ([]store.Client, error) {
	rows, err := s.db.QueryContext(ctx, s.db.Q(`SELECT `+clientCols+` FROM clients WHERE account_id = ? ORDER BY created_at DESC, id DESC`), accountID)
	if err != nil {
		return nil, mapErr("clients", err)
	}
	defer rows.Close()
	var out []store.Client
	for rows.Next() {
		c, err := scanClient(rows)
		if err != nil {
			return nil, mapErr("clients", err)
		}
		out = append(out, *c)
	}
	if err := rows.Err(); err != nil {
		return nil, mapErr("clients", err)
	}
	return out, nil
}

// UpdateClient stores the client's name, secret hash, redirect URIs,
// scopes and revocation time. The client must belong to c.AccountID.
func (s *Store) UpdateClient(ctx context.Context, c *store.Client) error {
	if c == nil {
		return &seo.InputError{Field: "client", Reason: "is nil"}
	}
	c.RevokedAt = norm(c.RevokedAt)
	return s.execOne(ctx, "update client",
		`UPDATE clients SET name = ?, secret_hash = ?, redirect_uris = ?, scopes = ?, revoked_at = ? WHERE id = ? AND account_id = ?`,
		c.Name, nullBytes(c.SecretHash), encodeList(c.RedirectURIs), encodeList(c.Scopes), tv(c.RevokedAt), c.ID, c.AccountID)
}

// DeleteClient deletes an account's client with its codes and refresh
// tokens. Another account's client is store.ErrNotFound.
func (s *Store) DeleteClient(ctx context.Context, accountID, id string) error {
	return s.execOne(ctx, "delete client", `DELETE FROM clients WHERE id = ? AND account_id = ?`, id, accountID)
}

// ---- authorization codes

const codeCols = `hash, client_id, account_id, redirect_uri, scopes, challenge, family_id, expires_at, used_at, created_at, resource`

func scanCode(r rowScanner) (*store.AuthCode, error) {
	var (
		c                      store.AuthCode
		scopes                 string
		expires, used, created sql.NullInt64
	)
	if err := r.Scan(&c.Hash, &c.ClientID, &c.AccountID, &c.RedirectURI, &scopes, &c.Challenge, &c.FamilyID, &expires, &used, &created, &c.Resource); err != nil {
		return nil, err
	}
	var err error
	if c.Scopes, err = decodeList(scopes); err != nil {
		return nil, err
	}
	c.ExpiresAt, c.UsedAt, c.CreatedAt = tm(expires), tm(used), tm(created)
	return &c, nil
}

// CreateCode stores an authorization code. A zero CreatedAt is filled
// with now; an empty FamilyID with a random "fam_..." one.
func (s *Store) CreateCode(ctx context.Context, c *store.AuthCode) error {
	if c == nil {
		return &seo.InputError{Field: "code", Reason: "is nil"}
	}
	if len(c.Hash) == 0 {
		return &seo.InputError{Field: "hash", Reason: "is empty"}
	}
	if c.FamilyID == "" {
		c.FamilyID = newID("fam_")
	}
	if c.CreatedAt.IsZero() {
		c.CreatedAt = now()
	}
	c.CreatedAt, c.ExpiresAt, c.UsedAt = norm(c.CreatedAt), norm(c.ExpiresAt), norm(c.UsedAt)
	if _, err := s.exec(ctx, "create code",
		`INSERT INTO auth_codes (`+codeCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		c.Hash, c.ClientID, c.AccountID, c.RedirectURI, encodeList(c.Scopes), c.Challenge, c.FamilyID, tv(c.ExpiresAt), tv(c.UsedAt), tv(c.CreatedAt), c.Resource); err != nil {
		return err
	}
	// The code is stored: a prune that failed is tried again a minute on.
	_ = s.pruneExpired(ctx, "auth_codes")
	return nil
}

// UseCode marks the code used and returns it. One UPDATE guarded by
// "used_at IS NULL" decides the race: exactly one caller changes the row;
// the others get the code with store.ErrUsed.
func (s *Store) UseCode(ctx context.Context, hash []byte, at time.Time) (*store.AuthCode, error) {
	if len(hash) == 0 {
		return nil, &seo.InputError{Field: "hash", Reason: "is empty"}
	}
	if at.IsZero() {
		at = now()
	}
	res, err := s.exec(ctx, "use code", `UPDATE auth_codes SET used_at = ? WHERE hash = ? AND used_at IS NULL`, tv(at), hash)
	if err != nil {
		return nil, err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return nil, mapErr("use code", err)
	}
	c, err := scanCode(s.db.QueryRowContext(ctx, s.db.Q(`SELECT `+codeCols+` FROM auth_codes WHERE hash = ?`), hash))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("sqlstore: code: %w", store.ErrNotFound)
	}
	if err != nil {
		return nil, mapErr("use code", err)
	}
	if n == 0 {
		return c, fmt.Errorf("sqlstore: code: %w", store.ErrUsed)
	}
	return c, nil
}

// Code returns the code with this hash without using it.
func (s *Store) Code(ctx context.Context, hash []byte) (*store.AuthCode, error) {
	if len(hash) == 0 {
		return nil, &seo.InputError{Field: "hash", Reason: "is empty"}
	}
	c, err := scanCode(s.db.QueryRowContext(ctx, s.db.Q(`SELECT `+codeCols+` FROM auth_codes WHERE hash = ?`), hash))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("sqlstore: code: %w", store.ErrNotFound)
	}
	if err != nil {
		return nil, mapErr("code", err)
	}
	return c, nil
}

// ---- refresh tokens

const refreshCols = `hash, family_id, client_id, account_id, scopes, expires_at, used_at, created_at, resource`

func scanRefresh(r rowScanner) (*store.RefreshToken, error) {
	var (
		t                      store.RefreshToken
		scopes                 string
		expires, used, created sql.NullInt64
	)
	if err := r.Scan(&t.Hash, &t.FamilyID, &t.ClientID, &t.AccountID, &scopes, &expires, &used, &created, &t.Resource); err != nil {
		return nil, err
	}
	var err error
	if t.Scopes, err = decodeList(scopes); err != nil {
		return nil, err
	}
	t.ExpiresAt, t.UsedAt, t.CreatedAt = tm(expires), tm(used), tm(created)
	return &t, nil
}

// CreateRefresh stores a refresh token. A zero CreatedAt is filled with
// now.
func (s *Store) CreateRefresh(ctx context.Context, t *store.RefreshToken) error {
	if t == nil {
		return &seo.InputError{Field: "refreshToken", Reason: "is nil"}
	}
	if len(t.Hash) == 0 {
		return &seo.InputError{Field: "hash", Reason: "is empty"}
	}
	if t.FamilyID == "" {
		return &seo.InputError{Field: "familyId", Reason: "is empty"}
	}
	if t.CreatedAt.IsZero() {
		t.CreatedAt = now()
	}
	t.CreatedAt, t.ExpiresAt, t.UsedAt = norm(t.CreatedAt), norm(t.ExpiresAt), norm(t.UsedAt)
	if _, err := s.exec(ctx, "create refresh token",
		`INSERT INTO refresh_tokens (`+refreshCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		t.Hash, t.FamilyID, t.ClientID, t.AccountID, encodeList(t.Scopes), tv(t.ExpiresAt), tv(t.UsedAt), tv(t.CreatedAt), t.Resource); err != nil {
		return err
	}
	// The token is stored: a prune that failed is tried again a minute on.
	_ = s.pruneExpired(ctx, "refresh_tokens")
	return nil
}

// UseRefresh marks the token used and returns it; a used token comes back
// with store.ErrUsed. Exactly one of concurrent calls succeeds.
func (s *Store) UseRefresh(ctx context.Context, hash []byte, at time.Time) (*store.RefreshToken, error) {
	if len(hash) == 0 {
		return nil, &seo.InputError{Field: "hash", Reason: "is empty"}
	}
	if at.IsZero() {
		at = now()
	}
	res, err := s.exec(ctx, "use refresh token", `UPDATE refresh_tokens SET used_at = ? WHERE hash = ? AND used_at IS NULL`, tv(at), hash)
	if err != nil {
		return nil, err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return nil, mapErr("use refresh token", err)
	}
	t, err := scanRefresh(s.db.QueryRowContext(ctx, s.db.Q(`SELECT `+refreshCols+` FROM refresh_tokens WHERE hash = ?`), hash))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("sqlstore: refresh token: %w", store.ErrNotFound)
	}
	if err != nil {
		return nil, mapErr("use refresh token", err)
	}
	if n == 0 {
		return t, fmt.Errorf("sqlstore: refresh token: %w", store.ErrUsed)
	}
	return t, nil
}

// RefreshToken returns a refresh token without using it.
func (s *Store) RefreshToken(ctx context.Context, hash []byte) (*store.RefreshToken, error) {
	if len(hash) == 0 {
		return nil, &seo.InputError{Field: "hash", Reason: "is empty"}
	}
	t, err := scanRefresh(s.db.QueryRowContext(ctx, s.db.Q(`SELECT `+refreshCols+` FROM refresh_tokens WHERE hash = ?`), hash))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("sqlstore: refresh token: %w", store.ErrNotFound)
	}
	if err != nil {
		return nil, mapErr("refresh token", err)
	}
	return t, nil
}

// RevokeFamily revokes every token of a grant family: FamilyRevoked
// reports it from then on. Revoking twice keeps the first time.
func (s *Store) RevokeFamily(ctx context.Context, familyID string, at time.Time) error {
	if familyID == "" {
		return &seo.InputError{Field: "familyId", Reason: "is empty"}
	}
	if at.IsZero() {
		at = now()
	}
	_, err := s.exec(ctx, "revoke family",
		`INSERT INTO revoked_families (family_id, revoked_at) VALUES (?, ?) ON CONFLICT (family_id) DO NOTHING`,
		familyID, tv(at))
	return err
}

// FamilyRevoked reports whether the family was revoked (a primary-key
// lookup).
func (s *Store) FamilyRevoked(ctx context.Context, familyID string) (bool, error) {
	return s.exists(ctx, "family revoked", `SELECT 1 FROM revoked_families WHERE family_id = ?`, familyID)
}

// RevokeToken revokes an access token by its jti until expires. Expired
// revocations are pruned now and then (at most once a minute), since the
// tokens they name no longer verify anyway.
func (s *Store) RevokeToken(ctx context.Context, jti string, expires time.Time) error {
	if jti == "" {
		return &seo.InputError{Field: "jti", Reason: "is empty"}
	}
	if expires.IsZero() {
		return &seo.InputError{Field: "expires", Reason: "is zero"}
	}
	if _, err := s.exec(ctx, "revoke token",
		`INSERT INTO revoked_tokens (jti, expires_at) VALUES (?, ?) ON CONFLICT (jti) DO UPDATE SET expires_at = excluded.expires_at`,
		jti, expires.UnixMicro()); err != nil {
		return err
	}
	return s.pruneExpired(ctx, "revoked_tokens")
}

// pruneExpired deletes the rows of table (revoked_tokens, auth_codes,
// refresh_tokens) that expired over an hour ago, at most once a minute per
// table, as rows are added to it: expired, they authorise nothing (an hour
// of slack covers clock skew and verifier leeway), and kept, every
// consent and every refresh added a row for ever.
func (s *Store) pruneExpired(ctx context.Context, table string) error {
	t := time.Now()
	s.pruneMu.Lock()
	due := t.Sub(s.lastPrune[table]) >= time.Minute
	if due {
		if s.lastPrune == nil {
			s.lastPrune = map[string]time.Time{}
		}
		s.lastPrune[table] = t
	}
	s.pruneMu.Unlock()
	if !due {
		return nil
	}
	_, err := s.exec(ctx, "prune "+table, `DELETE FROM `+table+` WHERE expires_at < ?`, t.Add(-time.Hour).UnixMicro())
	return err
}

// TokenRevoked reports whether the jti was revoked (a primary-key lookup).
func (s *Store) TokenRevoked(ctx context.Context, jti string) (bool, error) {
	return s.exists(ctx, "token revoked", `SELECT 1 FROM revoked_tokens WHERE jti = ?`, jti)
}

func (s *Store) exists(ctx context.Context, op, query string, args ...any) (bool, error) {
	var one int
	err := s.db.QueryRowContext(ctx, s.db.Q(query), args...).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, mapErr(op, err)
	}
	return true, nil
}

// ---- signing keys

// AddSigningKey stores a signing key. A zero CreatedAt is filled with
// now; a taken KID is store.ErrConflict.
func (s *Store) AddSigningKey(ctx context.Context, k *store.SigningKey) error {
	if k == nil {
		return &seo.InputError{Field: "signingKey", Reason: "is nil"}
	}
	if k.KID == "" {
		return &seo.InputError{Field: "kid", Reason: "is empty"}
	}
	if len(k.PrivateKey) == 0 {
		return &seo.InputError{Field: "privateKey", Reason: "is empty"}
	}
	if k.CreatedAt.IsZero() {
		k.CreatedAt = now()
	}
	k.CreatedAt, k.RetiredAt = norm(k.CreatedAt), norm(k.RetiredAt)
	_, err := s.exec(ctx, "add signing key",
		`INSERT INTO signing_keys (kid, private_key, created_at, retired_at) VALUES (?, ?, ?, ?)`,
		k.KID, k.PrivateKey, tv(k.CreatedAt), tv(k.RetiredAt))
	return err
}

// SigningKeys lists keys not retired before since, newest first.
func (s *Store) SigningKeys(ctx context.Context, since time.Time) ([]store.SigningKey, error) {
	rows, err := s.db.QueryContext(ctx, s.db.Q(`SELECT kid, private_key, created_at, retired_at FROM signing_keys
		WHERE retired_at IS NULL OR retired_at >= ? ORDER BY created_at DESC, kid DESC`), since.UnixMicro())
	if err != nil {
		return nil, mapErr("signing keys", err)
	}
	defer rows.Close()
	var out []store.SigningKey
	for rows.Next() {
		var (
			k                store.SigningKey
			created, retired sql.NullInt64
		)
		if err := rows.Scan(&k.KID, &k.PrivateKey, &created, &retired); err != nil {
			return nil, mapErr("signing keys", err)
		}
		k.CreatedAt, k.RetiredAt = tm(created), tm(retired)
		out = append(out, k)
	}
	if err := rows.Err(); err != nil {
		return nil, mapErr("signing keys", err)
	}
	return out, nil
}

// RetireSigningKey retires a key at the given time (keeping an earlier
// retirement).
func (s *Store) RetireSigningKey(ctx context.Context, kid string, at time.Time) error {
	if at.IsZero() {
		at = now()
	}
	return s.execOne(ctx, "retire signing key",
		`UPDATE signing_keys SET retired_at = CASE WHEN retired_at IS NULL OR retired_at > ? THEN ? ELSE retired_at END WHERE kid = ?`,
		tv(at), tv(at), kid)
}
