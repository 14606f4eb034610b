// Package local is the embedded keyword store: an SQLite table of
// keywords per locale that is a keywords.Source (named "local") and a
// keywords.Cache.
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
