// Package sqlitefrontier is a crawler.Frontier kept in an SQLite file
// (pure Go, modernc.org/sqlite), so that a stopped crawl can resume: it
// keeps the queue, the seen-set, and every page summary and its edges.
//
// Reopening a file queues again the items that were popped but never
// marked done (the pages in flight when the crawl stopped). Passing the
// reopened frontier to a new crawl of the same site resumes it: finished
// pages are replayed from their summaries and not fetched again.
package sqlitefrontier

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/seokit/seokit/analyzer"
	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/internal/sqldb"
	"github.com/seokit/seokit/seo"
)

var (
	_ crawler.Frontier     = (*Frontier)(nil)
	_ crawler.SummaryStore = (*Frontier)(nil)
)

// Item states.
const (
	queued = 0
	popped = 1
	done   = 2
)

// Options configure a Frontier. The zero value is ready to use.
type Options struct {
	// Synchronous is SQLite's synchronous pragma; zero means "NORMAL"
	// (durable across a process crash with WAL, not across power loss).
	Synchronous string
}

// Frontier is a crawler.Frontier and crawler.SummaryStore in one SQLite
// database. It is safe for concurrent use.
type Frontier struct {
	mu sync.Mutex
	db *sql.DB
}

// schema is the frontier's tables. Version 1 is the layout of files
// written before the schema was versioned, so that they open unchanged.
// Version 2 stores the version of each summary's main-text fingerprint
// (analyzer.FingerprintVersion); rows written before it read as version 1,
// the algorithm of their time.
var schema = &sqldb.Schema{
	VersionTable: "frontier_schema_migrations",
	Migrations: [][]string{
		1: {
			`CREATE TABLE IF NOT EXISTS items (
	seq      INTEGER PRIMARY KEY AUTOINCREMENT,
	url      TEXT NOT NULL UNIQUE,
	depth    INTEGER NOT NULL,
	source   TEXT NOT NULL,
	referrer TEXT NOT NULL,
	state    INTEGER NOT NULL DEFAULT 0
)`,
			`CREATE INDEX IF NOT EXISTS items_queue ON items (state, depth, seq)`,
			`CREATE TABLE IF NOT EXISTS summaries (
	seq       INTEGER PRIMARY KEY AUTOINCREMENT,
	url       TEXT NOT NULL,
	text_hash INTEGER NOT NULL,
	sim_hash  INTEGER NOT NULL,
	summary   BLOB NOT NULL,
	edges     BLOB NOT NULL
)`,
		},
		2: {
			`ALTER TABLE summaries ADD COLUMN fp_version INTEGER NOT NULL DEFAULT 1`,
		},
	},
}

// Open opens (creating if needed) the frontier stored at path and queues
// again the items popped but not done by an earlier run. opts may be nil.
func Open(path string, opts *Options) (*Frontier, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if sqldb.DialectOf(path) != sqldb.SQLite {
		return nil, &seo.InputError{Field: "path", Value: path, Reason: "must be an SQLite file path"}
	}
	// One connection: the Frontier serialises its writes itself. No
	// mmap: the frontier is on disk to keep a large crawl's state out of
	// memory, and a mapped file counts in RSS (up to 256 MiB; 87 MB more
	// at 100,000 pages in BenchmarkCrawlSQLite), while the frontier
	// writes or reads most of its pages once.
	db, err := sqldb.Open(path, &sqldb.Options{Synchronous: o.Synchronous, MaxOpenConns: 1, MmapSize: -1})
	if err != nil {
		return nil, fmt.Errorf("sqlitefrontier: open %s: %w", path, err)
	}
	ctx := context.Background()
	if err := db.Migrate(ctx, schema); err != nil {
		db.Close()
		return nil, fmt.Errorf("sqlitefrontier: create schema: %w", err)
	}
	if _, err := db.ExecContext(ctx, `UPDATE items SET state = ? WHERE state = ?`, queued, popped); err != nil {
		db.Close()
		return nil, fmt.Errorf("sqlitefrontier: requeue: %w", err)
	}
	return &Frontier{db: db.DB}, nil
}

// Push adds the items whose URL was never pushed before.
func (f *Frontier) Push(ctx context.Context, items []crawler.Item) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if len(items) == 0 {
		return 0, nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	tx, err := f.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("sqlitefrontier: push: %w", err)
	}
	defer tx.Rollback()
	st, err := tx.PrepareContext(ctx, `INSERT OR IGNORE INTO items (url, depth, source, referrer) VALUES (?, ?, ?, ?)`)
	if err != nil {
		return 0, fmt.Errorf("sqlitefrontier: push: %w", err)
	}
	defer st.Close()
	added := 0
	for _, it := range items {
		res, err := st.ExecContext(ctx, it.URL, it.Depth, it.Source, it.Referrer)
		if err != nil {
			return 0, fmt.Errorf("sqlitefrontier: push: %w", err)
		}
		if n, _ := res.RowsAffected(); n > 0 {
			added++
		}
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("sqlitefrontier: push: %w", err)
	}
	return added, nil
}

// Pop removes up to n queued items, lowest depth first, in push order.
func (f *Frontier) Pop(ctx context.Context, n int) ([]crawler.Item, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if n <= 0 {
		return nil, nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	tx, err := f.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("sqlitefrontier: pop: %w", err)
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, `SELECT seq, url, depth, source, referrer FROM items WHERE state = ? ORDER BY depth, seq LIMIT ?`, queued, n)
	if err != nil {
		return nil, fmt.Errorf("sqlitefrontier: pop: %w", err)
	}
	var out []crawler.Item
	var seqs []int64
	for rows.Next() {
		var it crawler.Item
		var seq int64
		if err := rows.Scan(&seq, &it.URL, &it.Depth, &it.Source, &it.Referrer); err != nil {
			rows.Close()
			return nil, fmt.Errorf("sqlitefrontier: pop: %w", err)
		}
		out = append(out, it)
		seqs = append(seqs, seq)
	}
	if err := rows.Err(); err != nil {
		rows.Close()
		return nil, fmt.Errorf("sqlitefrontier: pop: %w", err)
	}
	rows.Close()
	for _, s := range seqs {
		if _, err := tx.ExecContext(ctx, `UPDATE items SET state = ? WHERE seq = ?`, popped, s); err != nil {
			return nil, fmt.Errorf("sqlitefrontier: pop: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("sqlitefrontier: pop: %w", err)
	}
	if out == nil {
		out = []crawler.Item{}
	}
	return out, nil
}

// Done marks a popped URL finished; an unknown URL is ignored.
func (f *Frontier) Done(ctx context.Context, url string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, err := f.db.ExecContext(ctx, `UPDATE items SET state = ? WHERE url = ?`, done, url); err != nil {
		return fmt.Errorf("sqlitefrontier: done: %w", err)
	}
	return nil
}

// Len counts the queued items.
func (f *Frontier) Len(ctx context.Context) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	var n int
	if err := f.db.QueryRowContext(ctx, `SELECT count(*) FROM items WHERE state = ?`, queued).Scan(&n); err != nil {
		return 0, fmt.Errorf("sqlitefrontier: len: %w", err)
	}
	return n, nil
}

// PutSummary stores a finished page's summary and edges, and marks its
// URL done.
func (f *Frontier) PutSummary(ctx context.Context, sum crawler.PageSummary, edges []crawler.Edge) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	sb, err := json.Marshal(sum)
	if err != nil {
		return fmt.Errorf("sqlitefrontier: encode summary: %w", err)
	}
	if edges == nil {
		edges = []crawler.Edge{}
	}
	eb, err := json.Marshal(edges)
	if err != nil {
		return fmt.Errorf("sqlitefrontier: encode edges: %w", err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	// The summary and the item's end are one step: a process killed in
	// between neither fetches the page again nor reports it twice.
	tx, err := f.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sqlitefrontier: put summary: %w", err)
	}
	defer tx.Rollback()
	fpv := sum.FingerprintVersion
	if fpv == 0 {
		fpv = analyzer.FingerprintVersion
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO summaries (url, text_hash, sim_hash, fp_version, summary, edges) VALUES (?, ?, ?, ?, ?, ?)`,
		sum.URL, int64(sum.TextHash), int64(sum.SimHash), fpv, sb, eb)
	if err == nil {
		_, err = tx.ExecContext(ctx, `UPDATE items SET state = ? WHERE url = ?`, done, sum.URL)
	}
	if err == nil {
		err = tx.Commit()
	}
	if err != nil {
		return fmt.Errorf("sqlitefrontier: put summary: %w", err)
	}
	return nil
}

// Summaries calls fn for every stored summary in the order stored.
func (f *Frontier) Summaries(ctx context.Context, fn func(crawler.PageSummary, []crawler.Edge) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	// Read in pages so fn may call back into the frontier.
	var last int64
	for {
		type row struct {
			sum   crawler.PageSummary
			edges []crawler.Edge
		}
		var batch []row
		f.mu.Lock()
		rows, err := f.db.QueryContext(ctx, `SELECT seq, text_hash, sim_hash, fp_version, summary, edges FROM summaries WHERE seq > ? ORDER BY seq LIMIT 500`, last)
		if err != nil {
			f.mu.Unlock()
			return fmt.Errorf("sqlitefrontier: summaries: %w", err)
		}
		for rows.Next() {
			var r row
			var th, sh int64
			var fpv int
			var sb, eb []byte
			if err := rows.Scan(&last, &th, &sh, &fpv, &sb, &eb); err != nil {
				rows.Close()
				f.mu.Unlock()
				return fmt.Errorf("sqlitefrontier: summaries: %w", err)
			}
			if err := json.Unmarshal(sb, &r.sum); err != nil {
				rows.Close()
				f.mu.Unlock()
				return fmt.Errorf("sqlitefrontier: decode summary: %w", err)
			}
			if err := json.Unmarshal(eb, &r.edges); err != nil {
				rows.Close()
				f.mu.Unlock()
				return fmt.Errorf("sqlitefrontier: decode edges: %w", err)
			}
			r.sum.TextHash, r.sum.SimHash, r.sum.FingerprintVersion = uint64(th), uint64(sh), fpv
			batch = append(batch, r)
		}
		err = rows.Err()
		rows.Close()
		f.mu.Unlock()
		if err != nil {
			return fmt.Errorf("sqlitefrontier: summaries: %w", err)
		}
		for _, r := range batch {
			if err := fn(r.sum, r.edges); err != nil {
				return err
			}
		}
		if len(batch) < 500 {
			return nil
		}
	}
}

// Close closes the database.
func (f *Frontier) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.db.Close(); err != nil {
		return fmt.Errorf("sqlitefrontier: close: %w", err)
	}
	return nil
}
