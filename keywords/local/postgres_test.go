package local_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/seokit/seokit/internal/pgtest"
	"github.com/seokit/seokit/keywords"
	"github.com/seokit/seokit/keywords/local"
)

// TestPostgres runs the conformance suites and the import, suggestion and
// cache tests again with the store on PostgreSQL.
func TestPostgres(t *testing.T) {
	pgtest.DSN(t) // skips, saying why, when no server can start
	old := database
	database = func(t *testing.T) string { return pgtest.DSN(t) }
	t.Cleanup(func() { database = old })
	for _, c := range []struct {
		name string
		fn   func(*testing.T)
	}{
		{"Conformance", TestConformance},
		{"CacheConformance", TestCacheConformance},
		{"ImportFormats", TestImportFormats},
		{"ImportMonthly", TestImportMonthly},
		{"SearchConsoleKeepsPlannerVolume", TestSearchConsoleKeepsPlannerVolume},
		{"NewUser", TestNewUser},
		{"SuggestMatching", TestSuggestMatching},
		{"NoTemplatePhrases", TestNoTemplatePhrases},
		{"ImportBadFiles", TestImportBadFiles},
		{"ImportReadErrorWritesNothing", TestImportReadErrorWritesNothing},
		{"ImportErrorListCapped", TestImportErrorListCapped},
		{"BadInput", TestBadInput},
		{"CacheThrough", TestCacheThrough},
		{"CacheThroughFailures", TestCacheThroughFailures},
		{"SuggesterMergesSources", TestSuggesterMergesSources},
	} {
		t.Run(c.name, c.fn)
	}
}

// TestPostgresConcurrentOpenAndImport starts several stores on one new
// database at once (each migrates under the advisory lock), then lets them
// write the same phrases concurrently: one row per phrase, no error.
func TestPostgresConcurrentOpenAndImport(t *testing.T) {
	dsn := pgtest.DSN(t)
	ctx := context.Background()
	const n = 6
	stores := make([]*local.Store, n)
	var wg sync.WaitGroup
	errs := make(chan error, 2*n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := local.Open(ctx, dsn, nil)
			if err != nil {
				errs <- fmt.Errorf("open %d: %w", i, err)
				return
			}
			stores[i] = s
		}()
	}
	wg.Wait()
	for _, s := range stores {
		if s != nil {
			defer s.Close()
		}
	}
	for i, s := range stores {
		if s == nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			kws := make([]keywords.Keyword, 200)
			for k := range kws {
				kws[k] = keywords.Keyword{Keyword: fmt.Sprintf("shared phrase %d", k), Volume: intp(10 * (i + 1)), Source: "api"}
			}
			if err := s.Put(ctx, kws, enUS); err != nil {
				errs <- fmt.Errorf("put %d: %w", i, err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if t.Failed() {
		return
	}
	if c, err := stores[0].Count(ctx, enUS); err != nil || c != 200 {
		t.Errorf("Count = %d, %v; want 200 (one row per phrase)", c, err)
	}
	s2, err := local.Open(ctx, dsn, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	kws, err := s2.Suggest(ctx, "shared phrase 1", enUS, 5)
	if err != nil || len(kws) == 0 || kws[0].Keyword != "shared phrase 1" {
		t.Errorf("Suggest after concurrent writes: %+v %v", kws, err)
	}
}

// TestLegacySQLiteFile opens a file written before the schema was
// versioned (tables terms, fetches and cache) and finds its data.
func TestLegacySQLiteFile(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "old.db")
	s, err := local.Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Put(ctx, []keywords.Keyword{{Keyword: "trail running shoes", Volume: intp(9900), Source: "keyword-planner"}}, enUS); err != nil {
		t.Fatal(err)
	}
	s.Close()
	// Make it look like the old layout.
	db, err := sqlOpen(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`DROP TABLE keywords_schema_migrations`,
		`ALTER TABLE keyword_terms RENAME TO terms`,
		`ALTER TABLE keyword_fetches RENAME TO fetches`,
		`ALTER TABLE keyword_cache RENAME TO cache`,
		`DROP INDEX keyword_terms_kid`,
		`CREATE INDEX terms_kid ON terms (kid, term)`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()
	s, err = local.Open(ctx, path, nil)
	if err != nil {
		t.Fatalf("open a legacy file: %v", err)
	}
	defer s.Close()
	kws, err := s.Suggest(ctx, "running shoes", enUS, 10)
	if err != nil || len(kws) == 0 || kws[0].Keyword != "trail running shoes" || kws[0].Volume == nil || *kws[0].Volume != 9900 {
		t.Errorf("suggestions from the legacy file's terms: %+v %v", kws, err)
	}
}

func sqlOpen(path string) (*sql.DB, error) { return sql.Open("sqlite", "file:"+path) }
