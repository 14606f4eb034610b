// Package google is a small client for the Google JSON APIs the seokit
// drivers call (Search Console, Analytics Data).
//
// A Client posts JSON to one API with the caller's OAuth 2.0 credentials
// (an *http.Client built with golang.org/x/oauth2, or an
// oauth2.TokenSource), bounds every request by a timeout, caps answer
// bodies, and turns Google's google.rpc.Status error answers
// ({"error":{"code","message","status","details"}}) into seo errors:
//
//   - HTTP 429, status RESOURCE_EXHAUSTED or a quota reason: seo.ErrRateLimited
//   - HTTP 401 and 403: seo.ErrUnavailable, "credentials rejected"
//   - HTTP 404: seo.ErrUnavailable and seo.ErrNotFound
//   - 5xx, other 4xx, timeouts and answers that are not the documented JSON:
//     seo.ErrUnavailable
//
// Requests are not retried; a rate-limit error carries the delay Google
// asked for in APIError.RetryAfter.
package google
