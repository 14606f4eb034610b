// Package dataforseo is a keywords.Source backed by the DataForSEO v3 API.
//
// Suggest calls DataForSEO Labs keyword_suggestions/live, which returns each
// idea's Google search volume, monthly series, CPC and DataForSEO's own
// organic keyword difficulty (0-100, from the link profiles of the top ten
// results; DifficultyMethod "dataforseo:keyword_difficulty"). Volumes calls
// Google Ads search_volume/live, which has volumes and paid competition but
// no organic difficulty, so Difficulty stays nil there.
//
// Requests use HTTP Basic auth with the account's API login and password.
// Failures are seo errors: rejected credentials, billing problems, 5xx
// answers, timeouts and bodies that are not DataForSEO JSON wrap
// seo.ErrUnavailable (the provider's own errors are an *seo.ProviderError
// with its status code and message); rate-limit answers are an
// *seo.RateLimitError, which wraps seo.ErrRateLimited; a rejected field is
// an *seo.InputError naming it.
package dataforseo
