package sqldb

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/seokit/seokit/internal/pgtest"
	"github.com/seokit/seokit/seo"
)

func TestClassify(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want Class
	}{
		{"nil", nil, Other},
		{"pg unique violation", &pgconn.PgError{Code: "23505", Message: "duplicate key"}, Conflict},
		{"pg foreign key violation", &pgconn.PgError{Code: "23503"}, Missing},
		{"pg admin shutdown", &pgconn.PgError{Code: "57P01"}, Unavailable},
		{"pg connection failure", &pgconn.PgError{Code: "08006"}, Unavailable},
		{"pg too many connections", &pgconn.PgError{Code: "53300"}, Unavailable},
		{"pg syntax error", &pgconn.PgError{Code: "42601"}, Other},
		{"connection refused", fmt.Errorf("dial: %w", syscall.ECONNREFUSED), Unavailable},
		{"connection reset", fmt.Errorf("read: %w", syscall.ECONNRESET), Unavailable},
		{"unexpected eof", io.ErrUnexpectedEOF, Unavailable},
		{"pool deadline", context.DeadlineExceeded, Unavailable},
		{"locked message", errors.New("database is locked (5) (SQLITE_BUSY)"), Unavailable},
		{"other", errors.New("sql: converting argument"), Other},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Classify(tt.err); got != tt.want {
				t.Errorf("Classify(%v) = %v, want %v", tt.err, got, tt.want)
			}
		})
	}
}

func TestOpenBadInput(t *testing.T) {
	tests := []struct {
		name  string
		dsn   string
		opts  *Options
		field string
	}{
		{"bad synchronous", ":memory:", &Options{Synchronous: "SOMETIMES"}, "synchronous"},
		{"bad postgres url", "postgres://%zz", nil, "dsn"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Open(tt.dsn, tt.opts)
			ie, ok := seo.AsInputError(err)
			if !ok || ie.Field != tt.field {
				t.Errorf("Open: err = %v, want an InputError on %q", err, tt.field)
			}
		})
	}
}

func TestDialect(t *testing.T) {
	for dsn, want := range map[string]Dialect{
		"": SQLite, ":memory:": SQLite, "a.db": SQLite, "file:a.db?mode=ro": SQLite,
		"postgres://h/db": Postgres, "postgresql://h/db": Postgres,
	} {
		if got := DialectOf(dsn); got != want {
			t.Errorf("DialectOf(%q) = %v, want %v", dsn, got, want)
		}
	}
	if _, err := ParseDialect("mysql"); !errors.Is(err, seo.ErrInvalidInput) {
		t.Errorf("ParseDialect(mysql) = %v, want ErrInvalidInput", err)
	}
	if d, err := ParseDialect("postgres"); d != Postgres || err != nil {
		t.Errorf("ParseDialect(postgres) = %v, %v", d, err)
	}
}

var testSchema = &Schema{
	VersionTable: "t_schema_migrations",
	LockID:       42,
	Migrations: [][]string{
		1: {`CREATE TABLE t_items (id {{serial}}, name {{ctext}} NOT NULL, data {{blob}}, n {{int}}, x {{real}})`},
		2: {`CREATE TABLE t_pairs (a TEXT NOT NULL, b TEXT NOT NULL, PRIMARY KEY (a, b)){{without_rowid}}`},
	},
}

func testMigrate(t *testing.T, dsn string) {
	ctx := context.Background()
	for range 2 {
		db, err := Open(dsn, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := db.Migrate(ctx, testSchema); err != nil {
			t.Fatal(err)
		}
		var n, max int
		if err := db.QueryRow(`SELECT COUNT(*), MAX(version) FROM t_schema_migrations`).Scan(&n, &max); err != nil {
			t.Fatal(err)
		}
		if n != 2 || max != 2 {
			t.Errorf("version table has %d rows up to %d, want 2 up to 2", n, max)
		}
		if _, err := db.Exec(db.Q(`INSERT INTO t_pairs (a, b) VALUES (?, ?)`), "a", "b"); err != nil {
			t.Fatal(err)
		}
		_, err = db.Exec(db.Q(`INSERT INTO t_pairs (a, b) VALUES (?, ?)`), "a", "b")
		if Classify(err) != Conflict {
			t.Errorf("second insert: %v, want a conflict", err)
		}
		if _, err := db.Exec(`DELETE FROM t_pairs`); err != nil {
			t.Fatal(err)
		}
		db.Close()
	}
	db, err := Open(dsn, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	newer := &Schema{VersionTable: testSchema.VersionTable, LockID: testSchema.LockID, Migrations: testSchema.Migrations[:2]}
	if err := db.Migrate(ctx, newer); err == nil {
		t.Error("Migrate with fewer migrations than the database has: no error")
	}
}

func TestMigrateSQLite(t *testing.T) {
	testMigrate(t, filepath.Join(t.TempDir(), "t.db"))
}

func TestMigratePostgres(t *testing.T) {
	testMigrate(t, pgtest.DSN(t))
}

func TestMemoryIsPrivate(t *testing.T) {
	ctx := context.Background()
	a, err := Open("", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := Open(":memory:", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := a.Migrate(ctx, testSchema); err != nil {
		t.Fatal(err)
	}
	if err := b.QueryRow(`SELECT COUNT(*) FROM t_items`).Scan(new(int)); err == nil {
		t.Error("a second in-memory database sees the first one's table")
	}
}

func TestMmapSize(t *testing.T) {
	for _, tc := range []struct {
		opts *Options
		want int64
	}{
		{nil, DefaultMmapSize},
		{&Options{MmapSize: 1 << 20}, 1 << 20},
		{&Options{MmapSize: -1}, 0},
	} {
		db, err := Open(filepath.Join(t.TempDir(), "db.sqlite"), tc.opts)
		if err != nil {
			t.Fatal(err)
		}
		var got int64
		if err := db.QueryRow(`PRAGMA mmap_size`).Scan(&got); err != nil {
			t.Fatal(err)
		}
		db.Close()
		if got != tc.want {
			t.Errorf("Options %+v: mmap_size %d, want %d", tc.opts, got, tc.want)
		}
	}
}
