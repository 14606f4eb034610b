package sqlstore_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/seokit/seokit/httpapi/store/sqlstore"
)

// oldSchema is the schema of a database written by the last release before
// internal/sqldb, with one account.
var oldSchema = []string{
	`CREATE TABLE IF NOT EXISTS schema_migrations (version BIGINT PRIMARY KEY, applied_at BIGINT NOT NULL)`,
	`CREATE TABLE accounts (
			id            TEXT PRIMARY KEY,
			email         TEXT UNIQUE,
			name          TEXT NOT NULL,
			password_hash TEXT NOT NULL,
			plan          TEXT NOT NULL,
			daily_limit   BIGINT NOT NULL,
			admin         INTEGER NOT NULL,
			created_at    BIGINT NOT NULL
		)`,
	`CREATE TABLE api_keys (
			id           TEXT PRIMARY KEY,
			account_id   TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
			name         TEXT NOT NULL,
			prefix       TEXT NOT NULL,
			hash         BLOB NOT NULL UNIQUE,
			permissions  TEXT NOT NULL,
			created_at   BIGINT NOT NULL,
			last_used_at BIGINT,
			expires_at   BIGINT,
			revoked_at   BIGINT
		)`,
	`CREATE INDEX api_keys_account ON api_keys (account_id, created_at)`,
	`CREATE TABLE clients (
			id            TEXT PRIMARY KEY,
			account_id    TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
			name          TEXT NOT NULL,
			secret_hash   BLOB,
			redirect_uris TEXT NOT NULL,
			scopes        TEXT NOT NULL,
			created_at    BIGINT NOT NULL,
			revoked_at    BIGINT
		)`,
	`CREATE INDEX clients_account ON clients (account_id, created_at)`,
	`CREATE TABLE auth_codes (
			hash         BLOB PRIMARY KEY,
			client_id    TEXT NOT NULL REFERENCES clients (id) ON DELETE CASCADE,
			account_id   TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
			redirect_uri TEXT NOT NULL,
			scopes       TEXT NOT NULL,
			challenge    TEXT NOT NULL,
			family_id    TEXT NOT NULL,
			expires_at   BIGINT,
			used_at      BIGINT,
			created_at   BIGINT NOT NULL
		)`,
	`CREATE TABLE refresh_tokens (
			hash       BLOB PRIMARY KEY,
			family_id  TEXT NOT NULL,
			client_id  TEXT NOT NULL REFERENCES clients (id) ON DELETE CASCADE,
			account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
			scopes     TEXT NOT NULL,
			expires_at BIGINT,
			used_at    BIGINT,
			created_at BIGINT NOT NULL
		)`,
	`CREATE INDEX refresh_tokens_family ON refresh_tokens (family_id)`,
	`CREATE TABLE revoked_families (
			family_id  TEXT PRIMARY KEY,
			revoked_at BIGINT NOT NULL
		)`,
	`CREATE TABLE revoked_tokens (
			jti        TEXT PRIMARY KEY,
			expires_at BIGINT NOT NULL
		)`,
	`CREATE INDEX revoked_tokens_expiry ON revoked_tokens (expires_at)`,
	`CREATE TABLE signing_keys (
			kid         TEXT PRIMARY KEY,
			private_key BLOB NOT NULL,
			created_at  BIGINT NOT NULL,
			retired_at  BIGINT
		)`,
	`CREATE TABLE daily_usage (
			account_id TEXT NOT NULL,
			day        TEXT NOT NULL,
			n          BIGINT NOT NULL,
			PRIMARY KEY (account_id, day)
		)`,
	`CREATE TABLE jobs (
			id             TEXT PRIMARY KEY,
			account_id     TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
			kind           TEXT NOT NULL,
			status         TEXT NOT NULL,
			request        BLOB,
			progress       BLOB,
			result         BLOB,
			error          TEXT NOT NULL,
			callback_url   TEXT NOT NULL,
			callback_state TEXT NOT NULL,
			created_at     BIGINT NOT NULL,
			started_at     BIGINT,
			finished_at    BIGINT,
			updated_at     BIGINT NOT NULL
		)`,
	`CREATE INDEX jobs_account ON jobs (account_id, created_at)`,
	`CREATE INDEX jobs_unfinished ON jobs (created_at) WHERE status IN ('queued', 'running')`,
	`CREATE TABLE mutes (
			account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
			domain     TEXT NOT NULL,
			ids        TEXT NOT NULL,
			updated_at BIGINT NOT NULL,
			PRIMARY KEY (account_id, domain)
		)`,
	`INSERT INTO schema_migrations (version, applied_at) VALUES (1, 1700000000000000), (2, 1700000000000000)`,
	`INSERT INTO accounts (id, email, name, password_hash, plan, daily_limit, admin, created_at) VALUES ('acct_old', 'old@example.com', 'Old', '', 'free', 100, 0, 1700000000000000)`,
}

func TestOpensOldDatabase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "api.db")
	createOld(t, path, oldSchema...)
	s := open(t, path, nil)
	a, err := s.Account(context.Background(), "acct_old")
	if err != nil || a.Email != "old@example.com" {
		t.Fatalf("Account(acct_old) = %+v, %v", a, err)
	}
	s.Close()
	if n := countRows(t, path, "schema_migrations"); n != sqlstore.SchemaVersion() {
		t.Errorf("schema_migrations has %d rows, want %d", n, sqlstore.SchemaVersion())
	}
}

// createOld writes a database with the schema of the last release before
// seokit's SQL stores shared one opener (the statements are copied, not
// generated), so that the test proves such a file opens unchanged.
func createOld(t *testing.T, path string, stmts ...string) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// countRows returns the rows of table in the SQLite file at path.
func countRows(t *testing.T, path, table string) int {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(`SELECT COUNT(*) FROM ` + table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
