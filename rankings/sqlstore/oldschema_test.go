package sqlstore_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/seokit/seokit/rankings"
	"github.com/seokit/seokit/rankings/sqlstore"
)

// oldSchema is the schema of a database written by the last release before
// internal/sqldb, with one tracked keyword.
var oldSchema = []string{
	`CREATE TABLE IF NOT EXISTS rankings_schema_migrations (
	version    INTEGER PRIMARY KEY,
	applied_us BIGINT NOT NULL
)`,
	`CREATE TABLE rankings_tracked (
	domain   TEXT NOT NULL,
	keyword  TEXT NOT NULL,
	locale   TEXT NOT NULL,
	device   TEXT NOT NULL,
	added_us BIGINT NOT NULL,
	PRIMARY KEY (domain, keyword, locale, device)
)`,
	`CREATE TABLE rankings_series (
	id      INTEGER PRIMARY KEY,
	domain  TEXT NOT NULL,
	keyword TEXT NOT NULL,
	locale  TEXT NOT NULL,
	device  TEXT NOT NULL,
	UNIQUE (domain, keyword, locale, device)
)`,
	`CREATE TABLE rankings_blocks (
	domain    TEXT NOT NULL,
	bucket    INTEGER NOT NULL,
	series_id BIGINT NOT NULL REFERENCES rankings_series (id),
	first_day INTEGER NOT NULL,
	last_day  INTEGER NOT NULL,
	n         INTEGER NOT NULL,
	data      BLOB NOT NULL,
	PRIMARY KEY (domain, bucket, series_id)
) WITHOUT ROWID`,
	`CREATE UNIQUE INDEX rankings_blocks_series ON rankings_blocks (series_id, bucket)`,
	`CREATE INDEX rankings_tracked_cover ON rankings_tracked (domain, keyword, locale, device, added_us)`,
	`CREATE TABLE rankings_failures (
	domain  TEXT NOT NULL,
	keyword TEXT NOT NULL,
	locale  TEXT NOT NULL,
	device  TEXT NOT NULL,
	at_us   BIGINT NOT NULL,
	source  TEXT NOT NULL,
	error   TEXT NOT NULL,
	PRIMARY KEY (domain, keyword, locale, device)
)`,
	`INSERT INTO rankings_schema_migrations (version, applied_us) VALUES (1, 1700000000000000), (2, 1700000000000000), (3, 1700000000000000)`,
	`INSERT INTO rankings_tracked (domain, keyword, locale, device, added_us) VALUES ('example.com', 'seo tools', 'en-US', 'desktop', 1700000000000000)`,
}

func TestOpensOldDatabase(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "rankings.db")
	createOld(t, path, oldSchema...)
	s, err := sqlstore.Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Tracked(ctx, rankings.Filter{Domain: "example.com"})
	if err != nil || len(got) != 1 || got[0].Keyword != "seo tools" {
		t.Fatalf("Tracked = %+v, %v; want the one keyword", got, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if n := countRows(t, path, "rankings_schema_migrations"); n != 3 {
		t.Errorf("rankings_schema_migrations has %d rows, want 3", n)
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
