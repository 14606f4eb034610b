// Package rankings tracks the search positions of keywords for a domain.
//
// A [Source] is a driver for a search results provider (DataForSEO,
// SerpApi, Google Custom Search, Search Console; see the subpackages): it
// answers the organic results of a keyword for a locale and device. A
// [Store] keeps the tracked keywords and the dated observations
// (rankings/memstore in memory, rankings/sqlstore in SQLite or
// PostgreSQL). A [Tracker] puts them together.
//
// # Positions
//
// Tracker.Check searches each keyword, then looks through the organic
// results for the first URL belonging to the tracked domain. Its position
// is the organic rank the provider reported (ads and SERP features are not
// counted). A domain absent from the results examined (TrackerOptions.Depth,
// 100 by default) is stored with a nil position: "not ranked within the
// depth checked". A provider failure is never stored as an observation: it
// must not look like "not ranked". Stores that implement [FailureStore]
// keep the latest failure per keyword instead.
//
// # States
//
// Every [Ranking] has a [Status], derived in one place, [NewRanking]:
// ranked (a position), not_ranked (checked, absent within Depth),
// unchecked (never checked, or no source and no imported data; Reason says
// which) or failed (the latest check failed; Error says why, and the last
// known position is kept). [Ranking.Label] is the short text every output
// prints, and [MovementOf] classifies a change of position (improved,
// declined, unchanged, new, lost) for imports and reports.
//
// Which URLs belong to the domain is explicit: with [ExactHost] (the
// default) only the host itself, with or without "www.", counts; with
// [AnySubdomain] every host under the same registrable domain (per the
// public suffix list) counts. A host merely ending in the same letters
// (notexample.com for example.com) never matches. A tracked value with a
// path ("example.com/blog") matches only URLs at or under that path.
//
// Search Console reports average positions over a period; such
// observations have Average set and keep the fractional position, and the
// API's integer position is that average rounded.
//
// # Scheduling
//
// Tracker.Run re-checks every tracked keyword once a day (03:00 UTC by
// default) with RecheckDue, skipping those already checked that day, and
// retries failures hourly a bounded number of times.
//
// # Without a provider account
//
// ImportSearchConsole reads the Queries.csv of a Search Console
// performance export and stores its average positions; ImportCSV reads a
// simple date,keyword,position,url history from another tracker. A Tracker
// without a Source then answers Rankings from the store. A query missing
// from a Search Console export is recorded as not ranked on that day (and
// one new in it as not ranked on the previous export's day), so that it
// reads as lost or new rather than unchanged.
package rankings
