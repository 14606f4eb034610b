// Package seo holds the vocabulary every seokit package shares and the safe
// HTTP fetcher used for every user-supplied URL.
//
// # Findings and scores
//
// A [Finding] is one problem found by a check: a stable ID from the check
// catalogue ("title.too_long"), a [Severity], a message, [Evidence] and the
// URL concerned. [PageScore] and [SiteScore] apply the documented score rule:
// 100 minus 10 per distinct error ID, 4 per distinct warning ID and 1 per
// distinct notice ID, floored at 0.
//
// # Input
//
// [ParseURL], [ParseDomain] and [ParseLocale] validate user input and return
// an [*InputError] naming the bad field, which wraps [ErrInvalidInput].
// [ParseDomain] is the one domain parser; [ParseHost] takes a bare domain,
// with a port only when [DomainOptions] allow it, and [CheckHostName]
// holds the DNS's length rules.
// [NormalizeURL] gives the canonical form used for de-duplication, and
// [RegistrableDomain], [SameSite] and [HostInScope] decide site membership by
// the public suffix list, never by string suffix: "notexample.com" is not
// part of "example.com".
//
// # Safe fetching
//
// [Fetcher] refuses loopback, private, link-local, shared, metadata and other
// non-public addresses when it dials, so redirects and DNS rebinding cannot
// reach them; it ignores proxy settings, caps redirects, time and the
// decompressed body, and records status, headers, redirect chain, timings,
// sizes and TLS facts in a [Response].
package seo
