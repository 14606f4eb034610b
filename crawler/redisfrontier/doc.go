// Package redisfrontier shares one crawl between several crawler processes
// through Redis (github.com/redis/go-redis/v9): [Frontier] is a
// crawler.SharedFrontier (queue, seen-set, leases, page summaries) and
// [HostGate] a crawler.HostGate that keeps the per-host rate and
// Crawl-delay global across the workers.
//
// # Data model
//
// A crawl's keys start with "seokit:crawl:{ID}:" (the ID is a Cluster hash
// tag, so they share one slot):
//
//   - seen: a SET of 12-byte URL hashes (the first 96 bits of SHA-256),
//     exact, about 60 bytes a URL in Redis. Two distinct URLs share a hash
//     with probability about n²/2⁹⁷ for n URLs (6×10⁻¹⁶ for ten million);
//     a URL that collided would be taken as seen and not crawled.
//   - q:{depth}: a LIST per click depth of queued entries (hash, then the
//     item as JSON), and depths, a ZSET of the non-empty depths, so Pop
//     takes the lowest depth first and push order within it.
//   - inflight (HASH, hash → entry) and leases (ZSET, worker+hash → lease
//     deadline in server milliseconds): items popped and not yet Done.
//   - pages: the pages counted against the crawl's global page cap
//     (PopPages; ReturnPages lowers it).
//   - queued: the number of queued items; summaries: a LIST of page
//     summaries as JSON, and summarized, a SET of the URL hashes stored
//     there, so each page is reported once; counts, a HASH of the
//     stored summaries' fetched, errors and blocked counts (SummaryCounts).
//   - targets: a SET of the URL hashes of the in-scope images, scripts
//     and stylesheets claimed by a worker (crawler.SharedTargets), at most
//     the crawl's MaxResourceChecks; targets:over, a SET of the hashes
//     refused over that cap (at most 65,536; targets:overn counts the
//     rest); targets:results, a HASH of the claimed targets' answers as
//     JSON by URL.
//
// Every step that touches more than one key is one Lua script, so it is
// atomic: Push adds to the seen-set and a queue together; Pop first queues
// again the items whose lease ran out, then moves items from the queues to
// inflight; Done ends a lease; Pending reads queued and in-flight counts in
// one step, which is how a worker knows the crawl is over (both zero).
// PopPages is Pop under the page cap: it pops no more than the cap minus
// pages and adds what it pops to pages, so the workers together fetch at
// most the cap. Pages leased to a worker that dies stay counted (the cap
// is an upper bound); the items themselves are queued again.
//
// # Leases
//
// An open Frontier renews its workers' leases every Lease/3. A worker that
// dies stops renewing; Lease later (DefaultLease: 60 s) the next Pop of any
// worker queues its items again, at the front of their depth. Close queues
// the worker's own unfinished items at once. Done from a worker whose lease
// already lapsed does not end the new holder's lease; the page may then be
// fetched twice, which only a worker stalled longer than Lease causes.
//
// # Host gate
//
// [HostGate] keeps per host a theoretical arrival time (GCRA) and a pause
// flag set by 429/503 answers; one Lua script on the server's clock
// reserves each request's start slot, so N workers together start at most
// Burst + W/Interval requests to a host in any window W.
//
// It needs Redis 6.2 or later (LPOP with a count, scripts replicated by
// effect).
//
// # Running a shared crawl
//
// Each worker opens the same crawl ID with its own client and runs
// crawler.New(&crawler.Options{Frontier: f, HostGate: g, Worker: true}).Run;
// one coordinator runs with Worker false and returns the site report built
// from every worker's summaries once nothing is queued or in flight. When
// the crawl is finished, Delete removes its keys.
//
// [Crawls] opens one such crawl per job of the seokit API server
// (httpapi.Frontiers and httpapi.HostGates), keyed by the job's ID.
package redisfrontier
