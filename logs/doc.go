// Package logs analyses server access logs: what search engines, AI
// crawlers and other bots actually fetch, verified against their
// operators, and joined with a crawl of the same site.
//
// [Analyze] streams any number of inputs line by line: Apache and Nginx
// combined and common formats (with a virtual-host field or a custom
// log_format string, [NewNginxParser]), W3C extended logs (IIS,
// CloudFront), and JSON lines (Cloudflare Logpush, CloudFront, or any
// layout through a [FieldMap]); plain or gzip, told apart by their first
// bytes; timestamps in CLF, ISO 8601 or epoch seconds, milliseconds,
// microseconds or nanoseconds. A line that does not parse is counted by
// reason and sampled, never fatal.
//
// Each request's user agent is matched against the bot [Registry] by whole
// product tokens (Claude-User is not ClaudeBot). The registry's AI crawlers
// are the readiness matrix's (crawler.AICrawlers), so the log report and the
// matrix name the same bots; a user agent that calls itself a bot without
// being one of the registry counts as [Undeclared]. A [Verifier] checks that a request naming a bot
// comes from its operator: by the operator's published IP-range files (a
// [RangeSource]: [HTTPRanges] fetches them through the safe fetcher and
// caches them with their date, [DirRanges] reads local copies) and by
// forward-confirmed reverse DNS for operators that document it (a
// [Resolver]: *net.Resolver, or [NewDNSResolver] for a given server). Each
// hit is verified, spoofed or unverifiable with the reason; spoofed hits
// are not counted as the bot's. Verification is cached per operator and
// address (capped, with a TTL), bounded per analysis in DNS verifications
// and in the time they wait for answers, run concurrently with a limit
// per batch of lines, and stopped by the context.
//
// The [Report] counts hits, distinct URLs, bytes, status mix and response
// time per class and per bot, by UTC day; robots.txt fetches; the peak
// hour; the URLs and directories bots fetch most, with the last crawl per
// bot; and, given a crawl ([Options].Crawl) and robots.txt, the join:
// orphan URLs, indexable URLs no search bot fetched, crawl spent on URLs
// that cannot rank, and fetches robots.txt disallows ("robots.txt says,
// the bot did"). Findings use the check IDs of [Catalog].
//
// Memory is bounded whatever the size of the logs: URLs are tracked one by
// one up to [Options].MaxURLs with the rest summed as "other URLs",
// distinct counts are HyperLogLog estimates (error [DistinctError]), and
// every other list has a cap; see MEMORY.md and [EstimateMemory].
//
// Privacy: client addresses of requests that name no bot are never kept;
// bot addresses are kept only in the Verifier's cache and, for spoofed
// hits, a sample of at most ten per bot. [Options].StripQuery drops query
// strings from the report's URLs.
package logs
