// Package provider is the HTTP client every seokit data driver uses to call
// its provider's API (DataForSEO, SerpApi, Custom Search, Google Ads, Search
// Console, Analytics Data).
//
// A [Client] sends one request with the caller's context under a
// per-request timeout, sets a User-Agent, reads at most MaxBody bytes of the
// answer and decodes a 2xx answer as JSON. Every failure is an seo error
// prefixed with the driver's name:
//
//   - HTTP 429, a quota status the driver's ParseError finds in the body,
//     or HTTP 503 with a Retry-After: *seo.RateLimitError, with the wait
//     from Retry-After (seconds or an HTTP date) or the body, capped at
//     MaxRetryAfter
//   - any other non-2xx answer: *seo.ProviderError (401 and 403 say
//     "credentials rejected"), with the provider's code and message
//     extracted by the driver's ParseError, cleaned and clipped
//   - no answer within the timeout, a network failure, a body over the cap
//     (also seo.ErrTooLarge, naming the cap) or an answer that is not JSON:
//     an error wrapping seo.ErrUnavailable
//   - a cancelled context: an error wrapping context.Canceled
//
// Requests are not retried, and redirects follow the HTTP client's policy.
// Transport errors never repeat the request URL, which may carry an API key.
package provider
