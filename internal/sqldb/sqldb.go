package sqldb

import (
	"context"
	"crypto/rand"
	"database/sql"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver
	_ "modernc.org/sqlite"             // registers the "sqlite" driver

	"github.com/seokit/seokit/seo"
)

// Dialect names the database behind a DB.
type Dialect string

// Dialects a DB speaks.
const (
	SQLite   Dialect = "sqlite"
	Postgres Dialect = "postgres"
)

// String returns "sqlite" or "postgres".
func (d Dialect) String() string { return string(d) }

// ParseDialect returns the Dialect named s ("sqlite" or "postgres").
func ParseDialect(s string) (Dialect, error) {
	switch d := Dialect(s); d {
	case SQLite, Postgres:
		return d, nil
	}
	return "", &seo.InputError{Field: "dialect", Value: s, Reason: `must be "sqlite" or "postgres"`}
}

// DialectOf returns the dialect Open uses for dsn.
func DialectOf(dsn string) Dialect {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		return Postgres
	}
	return SQLite
}

// Defaults of Options.
const (
	DefaultBusyTimeout    = 5 * time.Second
	DefaultSynchronous    = "NORMAL"
	DefaultPostgresConns  = 10
	DefaultSQLiteConns    = 4
	DefaultConnectTimeout = 5 * time.Second
	DefaultMmapSize       = 256 << 20
)

// Options configure Open. The zero value is ready to use; nil means the
// zero value.
type Options struct {
	// BusyTimeout is how long an SQLite statement waits for a lock held
	// by another connection or process before failing; zero means
	// DefaultBusyTimeout.
	BusyTimeout time.Duration
	// Synchronous is SQLite's synchronous pragma (OFF, NORMAL, FULL or
	// EXTRA); "" means NORMAL: with WAL, durable across a process crash,
	// not a power loss.
	Synchronous string
	// MaxOpenConns caps the pool; zero means DefaultPostgresConns on
	// PostgreSQL and DefaultSQLiteConns on an SQLite file. An in-memory
	// SQLite database always has one connection.
	MaxOpenConns int
	// ConnectTimeout bounds a PostgreSQL connection attempt when the DSN
	// sets no connect_timeout; zero means DefaultConnectTimeout.
	ConnectTimeout time.Duration
	// MmapSize is how many bytes of an SQLite file each connection maps
	// into memory (the mmap_size pragma), so reads fetch pages without a
	// system call each; zero means DefaultMmapSize, negative none. The
	// mapped pages count in the process's RSS.
	MmapSize int64
}

// DB is a database handle that knows its dialect. It is safe for
// concurrent use.
type DB struct {
	*sql.DB
	// Dialect is the database behind the handle.
	Dialect Dialect
}

// New returns a DB over db, a handle opened elsewhere with the "sqlite"
// (modernc.org/sqlite) or "pgx" driver. Closing the DB closes db.
func New(db *sql.DB, d Dialect) *DB { return &DB{DB: db, Dialect: d} }

// Open opens the database named by dsn (see the package documentation
// for the forms). It does not connect: the first query, usually a
// migration, does. opts may be nil.
func Open(dsn string, opts *Options) (*DB, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.BusyTimeout <= 0 {
		o.BusyTimeout = DefaultBusyTimeout
	}
	if o.Synchronous == "" {
		o.Synchronous = DefaultSynchronous
	}
	switch strings.ToUpper(o.Synchronous) {
	case "OFF", "NORMAL", "FULL", "EXTRA":
	default:
		return nil, &seo.InputError{Field: "synchronous", Value: o.Synchronous, Reason: "must be OFF, NORMAL, FULL or EXTRA"}
	}
	if o.ConnectTimeout <= 0 {
		o.ConnectTimeout = DefaultConnectTimeout
	}
	switch {
	case o.MmapSize == 0:
		o.MmapSize = DefaultMmapSize
	case o.MmapSize < 0:
		o.MmapSize = 0
	}
	if DialectOf(dsn) == Postgres {
		return openPostgres(dsn, &o)
	}
	return openSQLite(dsn, &o)
}

func openPostgres(dsn string, o *Options) (*DB, error) {
	u, err := url.Parse(dsn)
	if err != nil {
		return nil, &seo.InputError{Field: "dsn", Reason: "not a valid postgres URL: " + err.Error()}
	}
	q := u.Query()
	if q.Get("connect_timeout") == "" {
		secs := int((o.ConnectTimeout + time.Second - 1) / time.Second)
		q.Set("connect_timeout", strconv.Itoa(secs))
		u.RawQuery = q.Encode()
	}
	db, err := sql.Open("pgx", u.String())
	if err != nil {
		return nil, fmt.Errorf("sqldb: open postgres: %w", err)
	}
	n := o.MaxOpenConns
	if n <= 0 {
		n = DefaultPostgresConns
	}
	// Bounded, so that several instances stay within the server's
	// max_connections.
	db.SetMaxOpenConns(n)
	db.SetMaxIdleConns(n)
	db.SetConnMaxIdleTime(5 * time.Minute)
	return New(db, Postgres), nil
}

func openSQLite(dsn string, o *Options) (*DB, error) {
	params := url.Values{}
	params.Add("_pragma", "busy_timeout("+strconv.FormatInt(o.BusyTimeout.Milliseconds(), 10)+")")
	params.Add("_pragma", "foreign_keys(1)")
	// A writer takes the write lock when it begins, so that another
	// writer waits (busy_timeout) instead of failing to upgrade its read
	// lock.
	params.Set("_txlock", "immediate")
	memory := dsn == "" || dsn == ":memory:"
	var name string
	if memory {
		// Every connection to ":memory:" is a database of its own: one
		// connection holds it, and the unique name keeps the in-memory
		// databases of one process apart.
		name = "file:seokit-" + strings.ToLower(rand.Text()) + "?mode=memory&" + params.Encode()
	} else {
		params.Add("_pragma", "mmap_size("+strconv.FormatInt(o.MmapSize, 10)+")")
		params.Add("_pragma", "journal_mode(WAL)")
		params.Add("_pragma", "synchronous("+strings.ToUpper(o.Synchronous)+")")
		name = dsn
		if !strings.HasPrefix(name, "file:") {
			name = "file:" + name
		}
		sep := "?"
		if strings.Contains(name, "?") {
			sep = "&"
		}
		name += sep + params.Encode()
	}
	db, err := sql.Open("sqlite", name)
	if err != nil {
		return nil, fmt.Errorf("sqldb: open %s: %w", seo.Clip(dsn), err)
	}
	n := o.MaxOpenConns
	if n <= 0 {
		n = DefaultSQLiteConns
	}
	if memory {
		n = 1
		db.SetConnMaxLifetime(0)
		db.SetConnMaxIdleTime(0)
	}
	db.SetMaxOpenConns(n)
	db.SetMaxIdleConns(n)
	return New(db, SQLite), nil
}

// Q returns query, written with ? placeholders, for the DB's dialect:
// PostgreSQL gets $1, $2 ... (see Dollar).
func (db *DB) Q(query string) string {
	if db.Dialect != Postgres {
		return query
	}
	return Dollar(query)
}

// InTx runs fn in a transaction, committed when fn returns nil and rolled
// back otherwise. Errors of the transaction itself are returned as the
// driver gives them.
func (db *DB) InTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}
