// Package crux is a fieldvitals.Source over the Chrome UX Report API
// (POST /v1/records:queryRecord and /v1/records:queryHistoryRecord) with
// an API key, sent in the X-Goog-Api-Key header so that no URL (and no
// error) carries it.
//
// CrUX's 404 NOT_FOUND ("chrome ux report data not found") is the
// fieldvitals.StatusInsufficient state, not an error. Quota refusals
// (HTTP 429, RESOURCE_EXHAUSTED; CrUX allows 150 queries a minute per
// Google Cloud project) wrap seo.ErrRateLimited; a rejected key, server
// errors, timeouts and answers that are not the documented JSON wrap
// seo.ErrUnavailable. Bad input is an *seo.InputError and sends nothing.
//
// # Pacing
//
// CrUX allows 150 queries a minute per Google Cloud project
// (developer.chrome.com/docs/crux/api). Every Source of a process with the
// same key shares one Limiter (Options.Limiter replaces it): no more than
// DefaultPerMinute queries start in any minute, a query counting until its
// answer came. A 429 pauses the key's queries for its Retry-After (a
// minute without one) and the refused query is sent again, at most
// MaxRetries times, before its seo.ErrRateLimited error is returned.
// Several processes with one key each pace themselves alone.
package crux
