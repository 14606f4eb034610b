// Package sqldb opens the SQL databases of seokit's stores: SQLite
// (modernc.org/sqlite, pure Go) or PostgreSQL (pgx), with one rule for
// DSNs, pragmas and pool sizes, versioned migrations, placeholders and
// error classes, so that each store holds only its queries.
//
// DSN forms (Open):
//
//   - "" or ":memory:": a private in-memory SQLite database on one
//     connection, gone when the DB is closed;
//   - "postgres://..." or "postgresql://...": PostgreSQL through pgx;
//   - anything else: an SQLite file path or "file:" URI, created if
//     missing.
//
// An SQLite file runs in WAL mode with foreign keys on, one busy timeout
// (Options.BusyTimeout, five seconds), synchronous NORMAL and
// _txlock=immediate, so that a writer takes the write lock when it begins
// and another writer waits instead of failing to upgrade its read lock.
// Pools hold Options.MaxOpenConns connections: 10 on PostgreSQL, 4 on an
// SQLite file.
//
// Queries are written with ? placeholders; DB.Q rewrites them as $1, $2 ...
// on PostgreSQL. Schema.Migrate applies a versioned list of migrations in
// one transaction, under an advisory lock on PostgreSQL, recording each
// version in the schema's version table. Classify tells what a driver
// error means (conflict, missing reference, unavailable) so that a store
// wraps it in its own sentinel error.
package sqldb
