// Package robotstxt parses robots.txt files and answers whether a crawler
// may fetch a URL, following RFC 9309 and the matching rules of Google's
// open-source parser.
//
// Matching: the group whose user-agent name matches the crawler's product
// token (case-insensitively; the longest matching name wins, and a name also
// matches tokens that extend it after a hyphen) is used, else the "*" group,
// else everything is allowed. Groups with the same name are merged; a named
// group is never merged with "*". Within the group, the rule with the longest
// path wins and Allow wins a tie; "*" matches any run of characters and a
// final "$" anchors the end. Paths are compared after percent-normalisation
// of both sides. /robots.txt itself is always allowed.
//
// Parsing follows Google's tolerance: a byte order mark, CR, LF or CRLF line
// ends, comments, a missing colon ("disallow /x") and the misspellings
// Google accepts ("useragent", "user agent", "dissallow", "dissalow",
// "disalow", "diasllow", "disallaw", "site-map") are all read. Only the first
// [MaxSize] bytes (500 KiB) are parsed.
//
// Fetch outcomes map as RFC 9309 section 2.3.1 says (see [FromStatus]); a
// [Cache] fetches each origin's file once, shares the fetch between
// concurrent callers, and keeps it at most 24 hours (unreachable files for
// one minute by default).
package robotstxt
