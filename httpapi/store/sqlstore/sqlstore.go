package sqlstore

import (
	"context"
	"crypto/rand"
	"database/sql"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/internal/sqldb"
)

var _ store.Store = (*Store)(nil)

// Dialect names the database behind a Store.
type Dialect = sqldb.Dialect

// Dialects a Store can speak.
const (
	SQLite   = sqldb.SQLite
	Postgres = sqldb.Postgres
)

// Options configure a Store. The zero value is ready to use; nil means
// the zero value.
type Options struct {
	// BusyTimeout is how long an SQLite statement waits for a lock held
	// by another connection or process before failing with
	// store.ErrUnavailable; zero means five seconds.
	BusyTimeout time.Duration
	// Synchronous is SQLite's synchronous pragma; zero means "NORMAL"
	// (with WAL: durable across a process crash, not a power loss).
	Synchronous string
	// MaxOpenConns caps PostgreSQL connections; zero means 10. SQLite
	// always uses one connection, so writes never contend inside a
	// process.
	MaxOpenConns int
	// ConnectTimeout bounds a PostgreSQL connection attempt when the DSN
	// sets no connect_timeout; zero means five seconds.
	ConnectTimeout time.Duration
	// TouchInterval is the least time between two recorded uses of one
	// API key (TouchKey); zero means one minute.
	TouchInterval time.Duration
}

// Store is a store.Store in SQLite or PostgreSQL. It is safe for
// concurrent use.
type Store struct {
	db   *sqldb.DB
	opts Options

	touchMu sync.Mutex
	touched map[string]time.Time // key ID -> last recorded use

	pruneMu   sync.Mutex
	lastPrune map[string]time.Time // table -> last pruneExpired

	takes takeGroup // SQLite only
}

// Open opens the store named by dsn and brings its schema up to date.
//
//   - "" or ":memory:": a private in-memory SQLite database, gone when the
//     Store is closed;
//   - "postgres://..." or "postgresql://...": PostgreSQL (pgx);
//   - anything else: an SQLite file path or "file:" URI, created if
//     missing, in WAL mode with foreign keys on.
//
// opts may be nil. A database that cannot be reached gives an error
// wrapping store.ErrUnavailable.
func Open(ctx context.Context, dsn string, opts *Options) (*Store, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.TouchInterval <= 0 {
		o.TouchInterval = time.Minute
	}
	so := &sqldb.Options{BusyTimeout: o.BusyTimeout, Synchronous: o.Synchronous, MaxOpenConns: o.MaxOpenConns, ConnectTimeout: o.ConnectTimeout}
	if sqldb.DialectOf(dsn) == SQLite {
		// One connection: writes queue in the pool instead of failing
		// on the file lock.
		so.MaxOpenConns = 1
	}
	db, err := sqldb.Open(dsn, so)
	if err != nil {
		return nil, err
	}
	if err := db.Migrate(ctx, schema); err != nil {
		db.Close()
		return nil, mapErr("open", err)
	}
	return &Store{db: db, opts: o, touched: make(map[string]time.Time)}, nil
}

// Dialect reports which database the store uses.
func (s *Store) Dialect() Dialect { return s.db.Dialect }

// DB returns the underlying database handle, for tests and tools.
func (s *Store) DB() *sql.DB { return s.db.DB }

// Ping reports whether the database answers.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.db.PingContext(ctx); err != nil {
		return mapErr("ping", err)
	}
	// PingContext may succeed on a pooled connection; a query proves the
	// database itself answers (and that SQLite can read the file).
	var one int
	if err := s.db.QueryRowContext(ctx, `SELECT 1`).Scan(&one); err != nil {
		return mapErr("ping", err)
	}
	return nil
}

// Close closes the database.
func (s *Store) Close() error {
	s.takes.stmtMu.Lock()
	for _, st := range []*sql.Stmt{s.takes.count, s.takes.add} {
		if st != nil {
			st.Close()
		}
	}
	s.takes.stmtMu.Unlock()
	return s.db.Close()
}

func (s *Store) exec(ctx context.Context, op, query string, args ...any) (sql.Result, error) {
	res, err := s.db.ExecContext(ctx, s.db.Q(query), args...)
	if err != nil {
		return nil, mapErr(op, err)
	}
	return res, nil
}

// execOne runs an UPDATE or DELETE that must touch one row; none is
// store.ErrNotFound.
func (s *Store) execOne(ctx context.Context, op, query string, args ...any) error {
	res, err := s.exec(ctx, op, query, args...)
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return mapErr(op, err)
	}
	if n == 0 {
		return fmt.Errorf("sqlstore: %s: %w", op, store.ErrNotFound)
	}
	return nil
}

// newID returns prefix and 26 random base32 characters (130 bits).
func newID(prefix string) string {
	return prefix + strings.ToLower(rand.Text())
}

// Times are stored as Unix microseconds in UTC; zero times as NULL.
func tv(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UnixMicro()
}

func tm(v sql.NullInt64) time.Time {
	if !v.Valid {
		return time.Time{}
	}
	return time.UnixMicro(v.Int64).UTC()
}

// now returns the current time at the stored precision.
func now() time.Time {
	return time.UnixMicro(time.Now().UnixMicro()).UTC()
}

// norm truncates t to the stored precision, in UTC, so a caller's struct
// reads the same as a later lookup.
func norm(t time.Time) time.Time {
	if t.IsZero() {
		return t
	}
	return time.UnixMicro(t.UnixMicro()).UTC()
}
