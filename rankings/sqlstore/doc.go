// Package sqlstore is a rankings.Store in SQL: an embedded SQLite database
// (pure Go, modernc.org/sqlite) by default, or PostgreSQL (through
// jackc/pgx) for several instances sharing one history. Both run the same
// SQL.
//
// Open takes "" or ":memory:", a file path, or a postgres:// URL. The tables are
// created and migrated on open; applied versions are kept in
// rankings_schema_migrations, each migration runs in a transaction, and on
// PostgreSQL a transaction-scoped advisory lock makes instances starting
// at once migrate one after the other. All tables are named rankings_*,
// so the database can be shared with other stores (NewFromDB).
//
// # Layout
//
// rankings_tracked holds the tracked keywords. Observations are kept in
// blocks: rankings_series gives each (domain, keyword, locale, device) an
// id, and rankings_blocks holds one row per series and period of 64 days
// (days counted from 1970-01-01 UTC) whose data column packs that
// period's observations in a compact binary form (about ten bytes each:
// day, flags, position in hundredths, URL and source through a per-block
// string table, depth, time of the check). The blocks' key begins with the
// domain and the period, so reading a domain's date range, as reports do,
// is one range scan of about n·(days/64 + 1) rows for n keywords instead of
// one row per keyword and day. Record merges a batch into the blocks it
// touches in one transaction (all or nothing), taking row locks on
// PostgreSQL so that concurrent writers do not lose updates.
//
// For large scans, ScanHistory streams observations without building the
// slice History returns; rankings.ScanHistory uses it when available.
// ScanPositions goes further for reports (reports.PositionScanner): one
// call per series with its days and positions only, decoded straight from
// the blocks as they are read, the series named from a cache of the
// (never changing) rankings_series rows.
//
// Database errors wrap seo.ErrUnavailable; invalid input is an
// *seo.InputError naming the field, checked before anything is written.
package sqlstore
