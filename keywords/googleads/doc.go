// Package googleads is a keywords.Source backed by the Google Ads API
// KeywordPlanIdeaService (REST).
//
// Suggest calls customers/{id}:generateKeywordIdeas with a keyword seed;
// Volumes calls customers/{id}:generateKeywordHistoricalMetrics. Google Ads
// reports average monthly searches, a monthly series, bids and a
// competition index. The competition index is the share of ad slots filled,
// a paid measure, so it goes to Keyword.PaidCompetition and Difficulty is
// always nil: Google Ads has no organic keyword difficulty.
//
// Every request carries an OAuth 2.0 Bearer token (scope
// https://www.googleapis.com/auth/adwords), the developer-token header and,
// when set, login-customer-id. int64 figures arrive as JSON strings and
// months as enum names (JANUARY ...); both are decoded. google.rpc errors
// are mapped to seo errors: UNAUTHENTICATED and PERMISSION_DENIED wrap
// seo.ErrUnavailable ("credentials rejected"), RESOURCE_EXHAUSTED (the
// planning service allows about one request per second) is an
// *seo.RateLimitError (seo.ErrRateLimited) with the quota's retryDelay,
// INVALID_ARGUMENT is an *seo.InputError, anything else wraps
// seo.ErrUnavailable. Error answers are an *seo.ProviderError with the
// google.rpc status as Code.
package googleads
