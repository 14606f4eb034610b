// Package local is the embedded keyword store: a table of keywords per
// locale that is a keywords.Source (named "local") and a keywords.Cache,
// in SQLite (pure Go, the default) or, for several instances sharing one
// table, PostgreSQL (Open with a postgres:// URL). Both run the same SQL.
//
// The tables are created and migrated on open; applied versions are kept
// in keywords_schema_migrations, each migration runs in one transaction,
// and on PostgreSQL a transaction-scoped advisory lock makes instances
// starting at once migrate one after the other. The tables are keywords
// and keyword_*, so the database can be shared with other stores. Writes
// of several processes to one phrase end as one row.
//
// The table is filled by Import (Google Ads Keyword Planner, Search
// Console Queries.csv and Semrush Keyword Magic Tool exports; bad rows are
// reported by line and the good ones stored in one transaction), by Put,
// or by an upstream provider the store caches (Options.Upstream).
//
// Suggest matches the exact phrase, phrases starting with the query and
// phrases containing every stem of the query, ranked by volume, then adds
// question and modifier expansions. Each phrase is indexed under its
// stems and its stem pairs, so that one- and two-word queries read a
// single posting list in volume order.
package local
