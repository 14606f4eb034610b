// Package sqlstore is the SQL driver of the HTTP API's store
// (httpapi/store): SQLite by default, embedded and pure Go
// (modernc.org/sqlite), and PostgreSQL (jackc/pgx/v5) when several
// instances share one database. Both run the same SQL text; only the
// placeholder style (? or $n) is rewritten for PostgreSQL.
//
// Open picks the database from the DSN: "" or ":memory:" is a private
// in-memory SQLite database, "postgres://..." is PostgreSQL, and anything
// else is an SQLite file (WAL, foreign keys on, a five-second busy timeout).
// Open applies the numbered migrations recorded in schema_migrations in
// one transaction; on PostgreSQL under an advisory lock, so instances
// starting together apply each migration once.
//
// Atomic steps are single statements the database serialises on a row:
// Take is an upsert guarded by the limit, UseCode and UseRefresh an UPDATE
// guarded by "used_at IS NULL", UpdateJob an UPDATE guarded by the job not
// being final, ClaimSchedule an UPDATE guarded by the schedule not being
// paused and its next run not being past the due time claimed, with the
// INSERT of the run's job in the same transaction. So limits are exact,
// codes single-use and each due time of a schedule claimed once across any
// number of goroutines and processes sharing the database.
//
// Driver errors are mapped to the store sentinels: a unique violation is
// store.ErrConflict, a missing referenced account or client
// store.ErrNotFound, and a database that is locked, stopped or
// unreachable store.ErrUnavailable (the cause stays in the chain). SQLite
// uses one connection per Store, so writes in one process queue instead of
// failing; a lock held by another process turns into ErrUnavailable after
// Options.BusyTimeout.
//
// Store also implements store.Screenshots: the PNGs of a site analysis's
// rendered pages, keyed by job and the SHA-256 of the page URL, deleted
// with their job (ON DELETE CASCADE).
//
// Job results are stored gzip-compressed behind a format marker (rows
// written before compression are read as stored); Job decompresses at most
// store.MaxJobResultBytes, and JobResult (store.JobResults) hands out the
// compressed bytes read with the job, decompressed as they are streamed.
// PruneJobs (store.Retention) deletes finished jobs in short statements,
// each checking the status of what it deletes.
//
// Times are stored as Unix microseconds (UTC); secrets only as the hashes
// the caller computes. Dump returns every row as text, for tests that
// check no plaintext secret reached the database.
package sqlstore
