// Package service holds the typed services of the seokit server: what a
// site analysis, a project or an account can do, with the Go values the
// /v1 API encodes as JSON. Every surface calls the same service: the API's
// handlers (decode, call, encode), the dashboard's pages, and any later
// one. The plan caps and the daily quota are charged inside the service,
// once per action, whoever calls it.
//
// Errors are wrapped sentinels: ErrInvalid (an *seo.InputError naming the
// field), ErrNotFound, ErrConflict and ErrLimit (a *LimitError saying
// which limit and when to retry). package httpapi maps them to its error
// envelope in one place; the dashboard shows their messages.
package service
