package local_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/seokit/seokit/keywords/local"
	"github.com/seokit/seokit/seo"
)

// oldSchema is the schema of a database written by the last release before
// internal/sqldb, with one keyword.
var oldSchema = []string{
	`CREATE TABLE IF NOT EXISTS keywords_schema_migrations (
	version    INTEGER PRIMARY KEY,
	applied_at BIGINT NOT NULL
)`,
	`CREATE TABLE IF NOT EXISTS keywords (
	id                INTEGER PRIMARY KEY,
	loc               TEXT NOT NULL,
	fold              TEXT NOT NULL,
	norm              TEXT NOT NULL,
	keyword           TEXT NOT NULL,
	volume            INTEGER,
	volume_range      TEXT NOT NULL DEFAULT '',
	difficulty        INTEGER,
	difficulty_method TEXT NOT NULL DEFAULT '',
	paid_competition  INTEGER,
	cpc               REAL,
	monthly           TEXT NOT NULL DEFAULT '',
	source            TEXT NOT NULL,
	estimated         INTEGER NOT NULL DEFAULT 0,
	updated_at        INTEGER NOT NULL,
	gsc_clicks        INTEGER,
	gsc_impressions   INTEGER,
	gsc_ctr           REAL,
	gsc_position      REAL,
	gsc_updated_at    INTEGER,
	UNIQUE (loc, fold)
)`,
	`CREATE INDEX IF NOT EXISTS keywords_norm ON keywords (loc, norm)`,
	`CREATE TABLE IF NOT EXISTS keyword_terms (
	term TEXT NOT NULL,
	vol  INTEGER NOT NULL,
	kid  INTEGER NOT NULL,
	PRIMARY KEY (term, vol, kid)
) WITHOUT ROWID`,
	`CREATE INDEX IF NOT EXISTS keyword_terms_kid ON keyword_terms (kid, term)`,
	`CREATE TABLE IF NOT EXISTS keyword_fetches (
	kind       TEXT NOT NULL,
	loc        TEXT NOT NULL,
	fold       TEXT NOT NULL,
	source     TEXT NOT NULL,
	fetched_at INTEGER NOT NULL,
	PRIMARY KEY (kind, loc, fold)
) WITHOUT ROWID`,
	`CREATE TABLE IF NOT EXISTS keyword_cache (
	loc       TEXT NOT NULL,
	query     TEXT NOT NULL,
	lim       INTEGER NOT NULL,
	answer    TEXT NOT NULL,
	cached_at INTEGER NOT NULL,
	PRIMARY KEY (loc, query)
) WITHOUT ROWID`,
	`INSERT INTO keywords_schema_migrations (version, applied_at) VALUES (1, 1700000000)`,
	`INSERT INTO keywords (loc, fold, norm, keyword, volume, source, updated_at) VALUES ('en-US', 'seo tools', 'seo tools', 'seo tools', 880, 'import', 1700000000)`,
}

func TestOpensOldDatabase(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "keywords.db")
	createOld(t, path, oldSchema...)
	s, err := local.Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	loc, err := seo.ParseLocale("en-US")
	if err != nil {
		t.Fatal(err)
	}
	n, err := s.Count(ctx, loc)
	if err != nil || n != 1 {
		t.Fatalf("Count = %d, %v; want 1", n, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if n := countRows(t, path, "keywords_schema_migrations"); n != 2 {
		t.Errorf("keywords_schema_migrations has %d rows, want 2", n)
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
