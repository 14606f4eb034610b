// Package serpapi is a rankings.Source backed by SerpApi's Google Search
// API (GET https://serpapi.com/search.json?engine=google).
//
// Only organic_results are used; their position is SerpApi's 1-based rank
// among organic results. Deeper checks page through results ten at a time
// (start=0,10,...), so a depth of 100 costs up to ten searches; paging stops
// early when SerpApi reports no next page. Desktop and mobile are
// supported (device=desktop|mobile). An answer whose
// search_information.organic_results_state is "Fully empty" is a SERP with
// no results, not an error.
//
// Errors arrive as {"error": "..."}: 401 and 403 wrap seo.ErrUnavailable
// ("credentials rejected"), 429 (hourly throughput or searches used up)
// is an *seo.RateLimitError (seo.ErrRateLimited), 5xx, timeouts and bodies that are not SerpApi
// JSON wrap seo.ErrUnavailable, 400 is an *seo.InputError.
package serpapi
