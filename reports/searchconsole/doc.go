// Package searchconsole is a reports.TrafficSource that reads measured
// clicks, impressions and click-through rate from the Google Search Console
// Search Analytics API (searchAnalytics.query with the dimension "date").
//
// # What the figures are
//
// Clicks and impressions are what Search Console recorded for the property
// in Google Search (type "web" by default), per Pacific time day; CTR is
// clicks divided by impressions over the range. They are measurements, not
// estimates. Days without data are omitted by Search Console and are left
// out of Traffic.Daily rather than filled with zeros; a range with no data
// at all has nil totals. The most recent two or three days are not final
// yet: by default only final data is read (Options.Fresh reads partial data
// too), so a range ending today usually lacks its last days.
//
// # Properties
//
// A domain is read from the Domain property "sc-domain:" + domain unless
// Options.Properties maps it to another property, such as the URL prefix
// "https://www.example.com/".
//
// # Errors
//
// Rejected credentials (HTTP 401, 403), server errors, timeouts and answers
// that are not the documented JSON wrap seo.ErrUnavailable; quota refusals
// (HTTP 429, RESOURCE_EXHAUSTED) wrap seo.ErrRateLimited. A bad domain or
// range is an *seo.InputError naming "domain", "start" or "end".
package searchconsole
