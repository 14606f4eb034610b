// Package ga4 is a reports.TrafficSource that reads organic sessions from
// the Google Analytics 4 Data API (runReport on properties/{id}).
//
// # What the figures are
//
// Sessions are GA4's "sessions" metric per day (dimension "date", in the
// property's time zone) for sessions whose default channel group
// (sessionDefaultChannelGroup) is exactly "Organic Search": visits GA4
// attributed to unpaid search results of any search engine, not only
// Google. They are measurements, not estimates, and they count only
// visitors GA4 recorded (consent and blockers lower them). Traffic.Sessions
// is the sum of the days. [Source.Days] also returns totalUsers per day;
// users are not additive across days, so no total is given. Days without
// organic sessions are absent from the answer and left out of
// Traffic.Daily, not filled with zeros.
//
// # Requests
//
// All values arrive as strings ("123", dates "20240901"); they are parsed
// and checked. Pages are read with limit and offset until rowCount rows are
// in. Each domain is read from the property New maps it to.
//
// # Errors
//
// Rejected credentials (HTTP 401, 403), server errors, timeouts and answers
// that are not the documented JSON wrap seo.ErrUnavailable; quota refusals
// (HTTP 429, RESOURCE_EXHAUSTED) wrap seo.ErrRateLimited. An unmapped domain
// wraps seo.ErrNotFound; a bad domain or range is an *seo.InputError.
package ga4
