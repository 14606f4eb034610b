// Package keywords suggests keywords with their search volume and
// difficulty for a query and a locale.
//
// A [Source] is a driver for one data provider; the embedded default,
// keywords/local, is an SQLite table filled by importing the CSV exports
// of Google Keyword Planner, Search Console and Semrush. A [Suggester]
// asks every source concurrently, merges phrases that fold to the same
// stems ([FoldKey]), fills missing volumes from the other sources, ranks
// exact and prefix matches first and then by volume, and caches answers
// in a [Cache] with their age. Complete answers are also kept in memory for
// SuggesterOptions.MemoryCacheTTL (one minute by default); a [Versioned]
// source, such as keywords/local, drops them when its data changes, and
// [Suggester.Purge] drops them all.
//
// Every figure names its origin in Keyword.Source and every idea says why
// it is listed in Keyword.Why ([Explain]). Ideas are phrases people use:
// imported or measured keywords, Search Console queries of the site (those
// at striking distance, positions 8-20, first) and, with a [SitePhrases]
// source, the noun phrases of the site's crawled pages ([Phrases]). No
// phrase is generated from the query by a template; a provider's own
// generated phrases are marked Expansion and carry no volume unless a
// source knows the phrase.
package keywords
