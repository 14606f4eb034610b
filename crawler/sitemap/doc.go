// Package sitemap reads XML sitemaps, sitemap indexes (sitemaps.org
// protocol), RSS 2.0 and Atom 0.3/1.0 feeds and plain-text sitemaps (the
// formats Google Search Central accepts) as a stream, without holding a file in
// memory, and reports what the crawler's site checks need: entry counts
// against the 50,000-URL and 50 MB limits, malformed XML, wrong root element
// or namespace, relative locations, invalid or future lastmod dates, and URLs
// a sitemap may not list (another host or scheme, or outside its directory,
// unless robots.txt cross-submits it).
//
// gzip files are recognised by their magic bytes and decompressed with the
// size limit applied to the uncompressed stream, so a gzip bomb stops at
// the limit. Fetching, index recursion and turning the facts into findings
// are the crawler's job.
package sitemap
