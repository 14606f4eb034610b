// Package searchconsole is an indexstatus.Inspector over the Google Search
// Console URL Inspection API (POST /v1/urlInspection/index:inspect).
//
// Credentials are a service account (or any OAuth 2.0 client) with the
// scope https://www.googleapis.com/auth/webmasters.readonly, added as a
// user of the property. The property is "sc-domain:example.com" or a URL
// prefix ending in "/"; the inspected URL must be under it.
//
// # Errors
//
// Quota refusals (HTTP 429, RESOURCE_EXHAUSTED) wrap seo.ErrRateLimited;
// rejected credentials, a URL outside the property on Google's side (403),
// server errors, timeouts, answers that are not the documented JSON and
// answers without an indexStatusResult wrap seo.ErrUnavailable. A bad
// property or URL is an *seo.InputError naming "property" or "url", and
// sends nothing.
package searchconsole
