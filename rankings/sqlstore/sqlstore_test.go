package sqlstore_test

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"sync"
	"testing"

	"github.com/seokit/seokit/internal/pgtest"
	"github.com/seokit/seokit/rankings"
	"github.com/seokit/seokit/rankings/rankingstest"
	"github.com/seokit/seokit/rankings/sqlstore"
	"github.com/seokit/seokit/seo"
)

func open(t *testing.T, dsn string) *sqlstore.Store {
	t.Helper()
	st, err := sqlstore.Open(context.Background(), dsn, nil)
	if err != nil {
		t.Fatalf("Open(%q): %v", dsn, err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// migrated is a PostgreSQL database at the current rankings schema,
// copied for each test that needs a migrated store rather than migrations.
var migrated = pgtest.NewTemplate("rankings", func(ctx context.Context, dsn string) error {
	st, err := sqlstore.Open(ctx, dsn, nil)
	if err != nil {
		return err
	}
	return st.Close()
})

// The tests below that never call ScanPositions (whose parallel threshold
// some tests change, see SetParallelSeries) run in parallel: each has a
// database of its own.

func TestConformanceSQLiteMemory(t *testing.T) {
	t.Parallel()
	rankingstest.RunStore(t, func(t *testing.T) rankings.Store { return open(t, ":memory:") })
}

func TestConformanceSQLiteFile(t *testing.T) {
	t.Parallel()
	rankingstest.RunStore(t, func(t *testing.T) rankings.Store { return open(t, filepath.Join(t.TempDir(), "r.db")) })
}

func TestConformancePostgres(t *testing.T) {
	t.Parallel()
	migrated.DSN(t) // skips, saying why, when no server can start
	rankingstest.RunStore(t, func(t *testing.T) rankings.Store { return open(t, migrated.DSN(t)) })
}

func TestReopenKeepsData(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "r.db")
	st := open(t, path)
	p := 3.0
	o := rankings.Observation{Domain: "example.com", Keyword: "k", Date: seoDay(), Position: &p, Source: "test"}
	if err := st.Record(ctx, []rankings.Observation{o}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	st = open(t, path)
	h, err := st.History(ctx, rankings.Filter{Domain: "example.com"})
	if err != nil || len(h) != 1 || *h[0].Position != 3 {
		t.Fatalf("after reopen: %+v, %v", h, err)
	}
	var versions int
	if err := st.DB().QueryRow(`SELECT COUNT(*) FROM rankings_schema_migrations`).Scan(&versions); err != nil || versions != 3 {
		t.Errorf("schema_migrations rows = %d, %v; want 3 (each migration applied once)", versions, err)
	}
}

func TestPostgresConcurrentMigrations(t *testing.T) {
	t.Parallel()
	dsn := pgtest.DSN(t)
	var wg sync.WaitGroup
	errs := make(chan error, 6)
	for range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st, err := sqlstore.Open(context.Background(), dsn, nil)
			if err != nil {
				errs <- err
				return
			}
			st.Close()
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("concurrent Open: %v", err)
	}
}

func TestNewFromDB(t *testing.T) {
	t.Parallel()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(t.TempDir(), "shared.db")+"?_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY)`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO schema_migrations VALUES (1), (2)`); err != nil {
		t.Fatal(err)
	}
	st, err := sqlstore.NewFromDB(context.Background(), db, sqlstore.SQLite, nil)
	if err != nil {
		t.Fatalf("NewFromDB next to another store's schema_migrations: %v", err)
	}
	if err := st.Track(context.Background(), []rankings.Tracked{{Domain: "example.com", Keyword: "k"}}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	if err := db.Ping(); err != nil {
		t.Errorf("Close closed a shared DB: %v", err)
	}
}

func TestOpenErrors(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	// "" is a private in-memory database, as for every seokit SQL store.
	if st, err := sqlstore.Open(ctx, "", nil); err != nil {
		t.Errorf("Open(\"\") = %v, want an in-memory store", err)
	} else {
		st.Close()
	}
	if _, err := sqlstore.Open(ctx, filepath.Join(t.TempDir(), "no", "such", "dir", "r.db"), nil); !errors.Is(err, seo.ErrUnavailable) {
		t.Errorf("Open(missing dir) = %v, want ErrUnavailable", err)
	}
	if _, err := sqlstore.Open(ctx, "postgres://nobody@127.0.0.1:1/none?connect_timeout=2", nil); !errors.Is(err, seo.ErrUnavailable) {
		t.Errorf("Open(closed port) = %v, want ErrUnavailable", err)
	}
	if _, err := sqlstore.Open(ctx, ":memory:", &sqlstore.Options{Synchronous: "sometimes"}); !errors.Is(err, seo.ErrInvalidInput) {
		t.Errorf("Open(bad synchronous) = %v, want ErrInvalidInput", err)
	}
}

func TestCorruptBlockIsAnError(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := open(t, ":memory:")
	p := 1.0
	if err := st.Record(ctx, []rankings.Observation{{Domain: "example.com", Keyword: "k", Date: seoDay(), Position: &p}}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.DB().Exec(`UPDATE rankings_blocks SET data = ?`, []byte{1, 200}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.History(ctx, rankings.Filter{Domain: "example.com"}); err == nil {
		t.Error("History over a corrupt block succeeded")
	}
}
