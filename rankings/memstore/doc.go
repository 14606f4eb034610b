// Package memstore is an in-memory rankings.Store, for tests, examples and
// short-lived programs. Nothing survives the process; use
// rankings/sqlstore to keep history.
//
// It follows the rankings.Store contract (checked by
// rankingstest.RunStore): Record stores a whole batch or nothing, one
// observation per domain, keyword, locale, device and day is kept, and
// results are copies the caller may change.
package memstore
