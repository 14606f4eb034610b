// Package monitor watches a site over time: it turns the comparison of two
// crawls (compare.Diff) and of two rank checks into alerts, and sends them.
//
// Rules. A Rule has a Kind and Params (ParseRule validates them and fills
// in the defaults):
//
//   - new_findings: finding IDs at or above params.severity (default
//     "error") that are new, or on more pages than before;
//   - top_page_changed: a page among the params.topN (default 20) pages with
//     the highest link score of the earlier crawl (TopPages) turned noindex,
//     canonicalised to another URL, or answers 4xx/5xx;
//   - robots_changed: robots.txt's status, content or sitemaps changed;
//   - sitemaps_changed: sitemaps added, removed, or with another status or
//     URL count;
//   - pages_lost: at least params.minPages (default 1) URLs no longer
//     crawled;
//   - score_drop: the site score fell by at least params.points (default 5);
//   - keyword_drop: a tracked keyword fell by more than params.positions
//     (default 5), out of the top 10, or out of the results;
//   - site_down: an analysis reached no page of the site: no response
//     from the start URL or its robots.txt (DNS, connection, TLS, timeout),
//     or robots.txt answered 5xx or 429 (Input.Down, see SiteDown). It
//     needs no earlier analysis, and score_drop never reads a site down
//     as a score of zero;
//   - bot_5xx_rising: a verified search bot's 5xx share on the last day of
//     a parsed access log is at least params.points (default 5) percentage
//     points above its share on the log's earlier days, with at least
//     MinBotDayHits hits that day (Input.Logs);
//   - bot_disallowed: a bot fetched at least params.minPages (default 1)
//     URLs the site's robots.txt disallows for it (Input.Logs joined with
//     a crawl: "robots.txt says, the bot did").
//
// Evaluate reads the facts compare.Sites computed (it compares nothing
// itself) and returns an Alert naming what changed: a title, a count, the
// first MaxChanges changes with a few example URLs each, and links to the
// diff and the dashboard.
//
// Deduplication. An alert's Fingerprint hashes the rule, every change and
// the two crawls compared, so evaluating the same two crawls again gives
// the same fingerprint (a store keeps one delivery per rule and
// fingerprint), and a third crawl identical to the second changes nothing
// and alerts nothing. A page that flaps (noindex, then indexable, then
// noindex again) gives a new fingerprint at each state change but the same
// ChangeKey, which callers use for a cool-down: the same change is sent at
// most once per cool-down.
//
// Channels. A Notifier sends an alert: Webhook POSTs its JSON signed with
// Sign (SignatureHeader, the scheme of site-analysis callbacks; receivers
// check it with Verify), Slack POSTs a Slack incoming-webhook message
// ({"text", "blocks"}), and Email sends a multipart text and HTML message
// through an SMTP server (SMTPOptions). The HTTP drivers refuse loopback
// and private addresses unless given a client that allows them, bound each
// attempt by DefaultTimeout and read at most 64 KiB of the answer.
package monitor
