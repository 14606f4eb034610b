// Package google is a small client for the Google JSON APIs the seokit
// drivers call (Search Console, Analytics Data).
//
// A Client posts JSON to one API with the caller's OAuth 2.0 credentials
// (an *http.Client built with golang.org/x/oauth2, or an
// oauth2.TokenSource), bounds every request by a timeout, caps answer
// bodies (all through the shared provider client), and turns Google's
// google.rpc.Status error answers ({"error":{"code","message","status",
// "details"}}) into seo errors:
//
//   - HTTP 429, status RESOURCE_EXHAUSTED or a quota reason:
//     *seo.RateLimitError (seo.ErrRateLimited)
//   - HTTP 401 and 403: *seo.ProviderError, "credentials rejected"
//     (seo.ErrUnavailable)
//   - HTTP 404: *seo.ProviderError wrapping seo.ErrUnavailable and
//     seo.ErrNotFound
//   - 5xx and other 4xx: *seo.ProviderError (seo.ErrUnavailable); timeouts
//     and answers that are not the documented JSON: seo.ErrUnavailable
//
// Requests are not retried; a rate-limit error carries the delay Google
// asked for (Retry-After header or RetryInfo) in RateLimitError.RetryAfter.
package google
