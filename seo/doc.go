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
// # URLs as browsers read them
//
// Every URL seokit reads from a page or a response (hrefs, <base>,
// canonical and hreflang links, sitemap <loc>, redirect Location) is
// resolved by [ResolveReference] (or a [BaseURL] parsed once per page) and
// stored ones are read back by [ParseHref], following the WHATWG URL
// Standard with the parser github.com/nlnwa/whatwg-url: tabs and newlines
// in an href are dropped, backslashes are slashes, spaces, quotes and
// non-ASCII characters in the path and query are percent-encoded, a lone %
// is kept, and IPv4 addresses in any form (http://0x7f.1/) are written as
// dotted decimals, so the address policy sees 127.0.0.1. The [Fetcher]
// sends the path and query exactly as serialised ([RequestTarget]): the
// request line is the one a browser sends. [ParseURL] parses user input the
// same way. What [NormalizeURL] folds for de-duplication is listed in its
// documentation; the crawler requests that normal form.
//
// # Safe fetching
//
// [Fetcher] refuses loopback, private, link-local, shared, metadata and other
// non-public addresses when it dials, so redirects and DNS rebinding cannot
// reach them; it ignores proxy settings, caps redirects, time and the
// decompressed body, and records status, headers, redirect chain, timings,
// sizes and TLS facts in a [Response].
package seo
