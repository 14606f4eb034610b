// Package customsearch is a rankings.Source backed by Google's
// Programmable Search Engine JSON API (Custom Search JSON API,
// GET https://www.googleapis.com/customsearch/v1).
//
// The API returns at most 10 results per request and 100 per query
// (start 1, 11, ... 91), so Depth is at most 100 and a check of depth 100
// costs up to ten requests. Position is the 1-based index across pages. The
// results come from the configured search engine (cx), which may differ from
// google.com's own ranking.
//
// The API has no device parameter: a mobile Query is rejected with an
// *seo.InputError for "device" rather than answered with desktop results.
//
// Errors are google.rpc bodies: 401/403 wrap seo.ErrUnavailable
// ("credentials rejected"), 429 or RESOURCE_EXHAUSTED (daily quota) are an
// *seo.RateLimitError (seo.ErrRateLimited), 5xx, timeouts and bodies that are not the API's JSON
// wrap seo.ErrUnavailable; 400 INVALID_ARGUMENT is an *seo.InputError.
package customsearch
