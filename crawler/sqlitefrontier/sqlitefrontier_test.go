package sqlitefrontier_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/crawler/crawlertest"
	"github.com/seokit/seokit/crawler/sqlitefrontier"
)

func TestConformance(t *testing.T) {
	crawlertest.RunFrontier(t, func(t *testing.T) crawler.Frontier {
		f, err := sqlitefrontier.Open(filepath.Join(t.TempDir(), "frontier.db"), nil)
		if err != nil {
			t.Fatal(err)
		}
		return f
	})
}

func TestReopenRequeuesPopped(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "f.db")
	f, err := sqlitefrontier.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Push(ctx, []crawler.Item{{URL: "https://e.com/a", Depth: 1}, {URL: "https://e.com/b", Depth: 1}, {URL: "https://e.com/c", Depth: 2}}); err != nil {
		t.Fatal(err)
	}
	got, err := f.Pop(ctx, 2)
	if err != nil || len(got) != 2 {
		t.Fatalf("Pop = %v, %v", got, err)
	}
	if err := f.Done(ctx, "https://e.com/a"); err != nil {
		t.Fatal(err)
	}
	f.Close()

	f, err = sqlitefrontier.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if n, _ := f.Len(ctx); n != 2 {
		t.Fatalf("Len after reopen = %d, want 2 (b popped not done, c queued)", n)
	}
	got, err = f.Pop(ctx, 5)
	if err != nil || len(got) != 2 || got[0].URL != "https://e.com/b" || got[1].URL != "https://e.com/c" {
		t.Fatalf("Pop after reopen = %v, %v", got, err)
	}
	if n, err := f.Push(ctx, []crawler.Item{{URL: "https://e.com/a"}}); err != nil || n != 0 {
		t.Fatalf("Push of a done URL after reopen = %d, %v; want 0", n, err)
	}
}

// TestOpensOldFile opens a file written by the last release before the
// schema was versioned (its statements copied here), with one item in
// flight and one page summarised: the item is queued again, the schema
// adopted as version 1 and migrated, and the summary's fingerprint, which
// that release computed with the first algorithm, reads as version 1.
func TestOpensOldFile(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "old.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{`
CREATE TABLE IF NOT EXISTS items (
	seq      INTEGER PRIMARY KEY AUTOINCREMENT,
	url      TEXT NOT NULL UNIQUE,
	depth    INTEGER NOT NULL,
	source   TEXT NOT NULL,
	referrer TEXT NOT NULL,
	state    INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS items_queue ON items (state, depth, seq);
CREATE TABLE IF NOT EXISTS summaries (
	seq       INTEGER PRIMARY KEY AUTOINCREMENT,
	url       TEXT NOT NULL,
	text_hash INTEGER NOT NULL,
	sim_hash  INTEGER NOT NULL,
	summary   BLOB NOT NULL,
	edges     BLOB NOT NULL
);`,
		`INSERT INTO items (url, depth, source, referrer, state) VALUES ('https://e.com/a', 1, 'link', 'https://e.com/', 1)`,
		`INSERT INTO summaries (url, text_hash, sim_hash, summary, edges) VALUES ('https://e.com/', 42, 7, '{"url":"https://e.com/","status":200}', '[]')`,
	} {
		if _, err := db.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	f, err := sqlitefrontier.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	items, err := f.Pop(ctx, 10)
	if err != nil || len(items) != 1 || items[0].URL != "https://e.com/a" {
		t.Fatalf("Pop = %+v, %v; want the item in flight", items, err)
	}
	var sums []crawler.PageSummary
	if err := f.Summaries(ctx, func(s crawler.PageSummary, _ []crawler.Edge) error {
		sums = append(sums, s)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(sums) != 1 || sums[0].URL != "https://e.com/" || sums[0].TextHash != 42 || sums[0].SimHash != 7 || sums[0].FingerprintVersion != 1 {
		t.Fatalf("Summaries = %+v, want the old page with a fingerprint of version 1", sums)
	}
}
