// Package dataforseo is a rankings.Source backed by DataForSEO's SERP API
// (serp/google/organic/live/advanced).
//
// Only items of type "organic" are returned, with Position = rank_group
// (the rank among organic results; ads, featured snippets, local packs and
// other SERP features are not counted). Desktop and mobile are supported.
// SERP.Depth is the highest organic position the answer contained, so a
// domain missing from Results is "not ranked within Depth".
//
// Requests use HTTP Basic auth. Failures are seo errors as in the keywords
// driver: credentials, billing, 5xx, timeouts and non-JSON bodies wrap
// seo.ErrUnavailable, rate limits are an *seo.RateLimitError
// (seo.ErrRateLimited), a task-level
// 40101 ("Internal SE Server Error.") wraps seo.ErrUnavailable. A failure is
// never reported as an empty SERP.
package dataforseo
