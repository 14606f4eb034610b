package dashboard

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/seokit/seokit/httpapi/plans"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/internal/sqldb"
	"github.com/seokit/seokit/rankings"
	"github.com/seokit/seokit/seo"
)

// MaxWatched caps the keywords one account tracks, whatever its plan's
// plans.Limits.TrackedKeywords.
const MaxWatched = plans.MaxTrackedKeywords

// Watchlist keeps, per account, the ranking keywords the account tracks
// (domain, keyword, locale, device). The rankings store holds the shared
// observations; the watchlist decides what each account sees of them, so
// an account sees only keywords it added itself, never another account's
// domains or keyword lists. Implementations run the dashboard's watchlist
// conformance test.
type Watchlist interface {
	// Watch adds entries to the account's list; ones already there are
	// kept. It is atomic: all entries are added or none. When the new
	// ones would take the list over limit entries (limit <= 0 or above
	// MaxWatched means MaxWatched), none is added and the error is an
	// *seo.InputError naming keywords; concurrent calls for one account
	// cannot together pass the limit.
	Watch(ctx context.Context, accountID string, entries []rankings.Tracked, limit int) error
	// Unwatch removes one entry of the account's list (no error when it is
	// not there).
	Unwatch(ctx context.Context, accountID string, entry rankings.Tracked) error
	// Watched lists the account's entries for domain ("" means every
	// domain), ordered by domain, keyword, locale and device.
	Watched(ctx context.Context, accountID, domain string) ([]rankings.Tracked, error)
	// Watching reports whether any account still has entry on its list.
	Watching(ctx context.Context, entry rankings.Tracked) (bool, error)
}

var (
	_ Watchlist = (*MemoryWatchlist)(nil)
	_ Watchlist = (*SQLWatchlist)(nil)
)

type watchKey struct{ domain, keyword, locale, device string }

func keyOf(t rankings.Tracked) watchKey {
	return watchKey{t.Domain, t.Keyword, t.Locale.String(), string(t.Device)}
}

func sortTracked(ts []rankings.Tracked) {
	slices.SortFunc(ts, func(a, b rankings.Tracked) int {
		return cmp.Or(strings.Compare(a.Domain, b.Domain), strings.Compare(a.Keyword, b.Keyword),
			strings.Compare(a.Locale.String(), b.Locale.String()), strings.Compare(string(a.Device), string(b.Device)))
	})
}

// MemoryWatchlist is a Watchlist in memory, lost on restart; the default
// of Options.Watchlist. Create it with NewMemoryWatchlist.
type MemoryWatchlist struct {
	mu sync.Mutex
	m  map[string]map[watchKey]rankings.Tracked
}

// NewMemoryWatchlist returns an empty MemoryWatchlist.
func NewMemoryWatchlist() *MemoryWatchlist {
	return &MemoryWatchlist{m: map[string]map[watchKey]rankings.Tracked{}}
}

// Watch adds entries to the account's list within limit.
func (w *MemoryWatchlist) Watch(ctx context.Context, accountID string, entries []rankings.Tracked, limit int) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	l := w.m[accountID]
	added := map[watchKey]bool{}
	for _, t := range entries {
		if _, ok := l[keyOf(t)]; !ok {
			added[keyOf(t)] = true
		}
	}
	if err := overLimit(limit, len(l), len(added)); err != nil {
		return err
	}
	if l == nil {
		l = map[watchKey]rankings.Tracked{}
		w.m[accountID] = l
	}
	for _, t := range entries {
		if _, ok := l[keyOf(t)]; !ok {
			l[keyOf(t)] = t
		}
	}
	return nil
}

// overLimit is Watch's refusal when adding added entries to a list of have
// would take it over limit; nil when nothing is added or it stays within.
// A list already over its limit (its plan lowered) keeps its entries.
func overLimit(limit, have, added int) error {
	if limit <= 0 || limit > MaxWatched {
		limit = MaxWatched
	}
	if added == 0 || have+added <= limit {
		return nil
	}
	return &seo.InputError{Field: "keywords", Value: strconv.Itoa(added) + " new keywords",
		Reason: fmt.Sprintf("would take this account over its limit of %d tracked keywords (it tracks %d); stop tracking some first", limit, have)}
}

// Unwatch removes one entry of the account's list.
func (w *MemoryWatchlist) Unwatch(ctx context.Context, accountID string, entry rankings.Tracked) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.m[accountID], keyOf(entry))
	return nil
}

// Watched lists the account's entries for domain ("" means all).
func (w *MemoryWatchlist) Watched(ctx context.Context, accountID, domain string) ([]rankings.Tracked, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []rankings.Tracked
	for k, t := range w.m[accountID] {
		if domain == "" || k.domain == domain {
			out = append(out, t)
		}
	}
	sortTracked(out)
	return out, nil
}

// Watching reports whether any account has entry on its list.
func (w *MemoryWatchlist) Watching(ctx context.Context, entry rankings.Tracked) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, l := range w.m {
		if _, ok := l[keyOf(entry)]; ok {
			return true, nil
		}
	}
	return false, nil
}

// SQLWatchlist is a Watchlist in an SQLite or PostgreSQL database, in the
// table dashboard_watchlist. Create it with NewSQLWatchlist.
type SQLWatchlist struct {
	db *sqldb.DB
}

// watchlistSchema is the watchlist's table. Version 1 is the layout of
// databases written before the schema was versioned, so that they open
// unchanged.
var watchlistSchema = &sqldb.Schema{
	VersionTable: "dashboard_schema_migrations",
	// "seokit-dashboard" as a number.
	LockID: 0x736b5f64617368,
	Migrations: [][]string{
		1: {
			`CREATE TABLE IF NOT EXISTS dashboard_watchlist (
	account_id TEXT NOT NULL,
	domain TEXT NOT NULL,
	keyword TEXT NOT NULL,
	locale TEXT NOT NULL,
	device TEXT NOT NULL,
	added_at BIGINT NOT NULL,
	PRIMARY KEY (account_id, domain, keyword, locale, device))`,
			`CREATE INDEX IF NOT EXISTS dashboard_watchlist_entry ON dashboard_watchlist (domain, keyword, locale, device)`,
		},
	},
}

// NewSQLWatchlist returns a Watchlist over db, creating its table when
// missing. dialect is "sqlite" or "postgres" (sqlstore.Store's Dialect and
// DB give both for the API's store).
func NewSQLWatchlist(ctx context.Context, db *sql.DB, dialect string) (*SQLWatchlist, error) {
	if db == nil {
		return nil, errors.New("dashboard: watchlist: nil database")
	}
	d, err := sqldb.ParseDialect(dialect)
	if err != nil {
		return nil, err
	}
	w := &SQLWatchlist{db: sqldb.New(db, d)}
	if err := w.db.Migrate(ctx, watchlistSchema); err != nil {
		return nil, fmt.Errorf("dashboard: create watchlist table: %w: %w", store.ErrUnavailable, err)
	}
	return w, nil
}

func unavailable(op string, err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return fmt.Errorf("dashboard: watchlist %s: %w: %w", op, store.ErrUnavailable, err)
}

// Watch adds entries to the account's list within limit, in one
// transaction: the rows are inserted, then counted, and rolled back when
// the new ones take the list over limit. On PostgreSQL the transaction
// first takes an advisory lock of the account, so two concurrent calls
// cannot each count without the other's rows; SQLite's first insert takes
// the database's write lock, which does the same.
func (w *SQLWatchlist) Watch(ctx context.Context, accountID string, entries []rankings.Tracked, limit int) error {
	tx, err := w.db.BeginTx(ctx, nil)
	if err != nil {
		return unavailable("watch", err)
	}
	defer tx.Rollback()
	if w.db.Dialect == sqldb.Postgres {
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('seokit watchlist ' || $1, 0))`, accountID); err != nil {
			return unavailable("watch", err)
		}
	}
	stmt := w.db.Q(`INSERT INTO dashboard_watchlist (account_id, domain, keyword, locale, device, added_at)
VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`)
	var added int64
	for _, t := range entries {
		at := t.AddedAt
		if at.IsZero() {
			at = time.Now()
		}
		res, err := tx.ExecContext(ctx, stmt, accountID, t.Domain, t.Keyword, t.Locale.String(), string(t.Device), at.Unix())
		if err != nil {
			return unavailable("watch", err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return unavailable("watch", err)
		}
		added += n
	}
	if added > 0 {
		var total int
		if err := tx.QueryRowContext(ctx, w.db.Q(`SELECT COUNT(*) FROM dashboard_watchlist WHERE account_id = ?`), accountID).Scan(&total); err != nil {
			return unavailable("watch", err)
		}
		if err := overLimit(limit, total-int(added), int(added)); err != nil {
			return err
		}
	}
	if err := tx.Commit(); err != nil {
		return unavailable("watch", err)
	}
	return nil
}

// Unwatch removes one entry of the account's list.
func (w *SQLWatchlist) Unwatch(ctx context.Context, accountID string, t rankings.Tracked) error {
	_, err := w.db.ExecContext(ctx, w.db.Q(`DELETE FROM dashboard_watchlist
WHERE account_id = ? AND domain = ? AND keyword = ? AND locale = ? AND device = ?`),
		accountID, t.Domain, t.Keyword, t.Locale.String(), string(t.Device))
	if err != nil {
		return unavailable("unwatch", err)
	}
	return nil
}

// Watched lists the account's entries for domain ("" means all).
func (w *SQLWatchlist) Watched(ctx context.Context, accountID, domain string) ([]rankings.Tracked, error) {
	query := `SELECT domain, keyword, locale, device, added_at FROM dashboard_watchlist WHERE account_id = ?`
	args := []any{accountID}
	if domain != "" {
		query += ` AND domain = ?`
		args = append(args, domain)
	}
	query += fmt.Sprintf(` ORDER BY domain, keyword, locale, device LIMIT %d`, MaxWatched+1)
	rows, err := w.db.QueryContext(ctx, w.db.Q(query), args...)
	if err != nil {
		return nil, unavailable("list", err)
	}
	defer rows.Close()
	var out []rankings.Tracked
	for rows.Next() {
		var t rankings.Tracked
		var loc, dev string
		var at int64
		if err := rows.Scan(&t.Domain, &t.Keyword, &loc, &dev, &at); err != nil {
			return nil, unavailable("list", err)
		}
		if t.Locale, err = seo.ParseLocale(loc); err != nil {
			return nil, fmt.Errorf("dashboard: watchlist: stored locale %q: %w", loc, err)
		}
		t.Device, t.AddedAt = rankings.Device(dev), time.Unix(at, 0).UTC()
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, unavailable("list", err)
	}
	// The database's collation may differ from Go's byte order.
	sortTracked(out)
	return out, nil
}

// Watching reports whether any account has entry on its list.
func (w *SQLWatchlist) Watching(ctx context.Context, t rankings.Tracked) (bool, error) {
	var one int
	err := w.db.QueryRowContext(ctx, w.db.Q(`SELECT 1 FROM dashboard_watchlist
WHERE domain = ? AND keyword = ? AND locale = ? AND device = ? LIMIT 1`),
		t.Domain, t.Keyword, t.Locale.String(), string(t.Device)).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, unavailable("check", err)
	}
	return true, nil
}
