// Package searchconsole is a rankings.Source that reads positions from the
// Google Search Console Search Analytics API (searchAnalytics.query) of a
// property the caller has access to.
//
// # What the figures are
//
// Search Console does not fetch a result page. It reports, for each query
// and page, the average position: the mean over all impressions in a date
// range of the topmost position the property held, 1-based. A SERP from
// this source therefore has Average set; Result.Position is that average
// rounded to the nearest integer, and [Source.Pages] returns the exact
// average with clicks, impressions and CTR. An empty SERP means the
// property had no recorded impressions for the keyword in the window.
//
// # Window and data lag
//
// Search reads the last Options.Days days (7 by default) ending
// Options.LagDays days before today in UTC (2 by default), because Search
// Console's final data arrives about two days late. Search Console days are
// Pacific time; the lag also covers that offset. Options.Fresh asks for
// fresh, not yet final data.
//
// # Filters
//
// The keyword is matched exactly (operator "equals"). The locale's region
// becomes a country filter in Search Console's form, ISO 3166-1 alpha-3 in
// lowercase ("usa"); Search Console has no language filter, so the locale's
// language is not used. The device becomes DESKTOP or MOBILE.
//
// [Source.Queries] lists every query of the property over a range with its
// average position, clicks and impressions, for import into a rankings
// store.
//
// # Errors
//
// Rejected credentials (HTTP 401, 403), server errors, timeouts and answers
// that are not the documented JSON wrap seo.ErrUnavailable; quota refusals
// (HTTP 429, RESOURCE_EXHAUSTED) wrap seo.ErrRateLimited. Bad input is an
// *seo.InputError naming the field.
package searchconsole
