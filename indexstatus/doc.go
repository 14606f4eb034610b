// Package indexstatus reports whether Google has indexed a crawl's pages,
// from the Search Console URL Inspection API, and joins the answers to the
// crawl.
//
// An Inspector (driver: indexstatus/searchconsole) inspects one URL. Run
// chooses a budgeted sample of a crawl's pages (Choose: stratified by
// template and segment, the best-linked pages of each stratum by internal
// PageRank first), inspects it within the property's quotas (a Ledger:
// 600 inspections a minute and 2,000 a day per property, as documented;
// the day is Google's Pacific-time day), reports progress, and joins each
// answer to what the crawl saw: Google's canonical against the declared
// one, indexed pages the crawl found noindex, crawled or discovered and
// not indexed, submitted (in a sitemap) and not indexed, unknown to
// Google, blocked by robots.txt for Google only, failed fetches and the
// last crawl time. Those verdicts are the index.* checks of Catalog.
//
// # Honest states
//
// A sampled page that was not inspected says why (Page.Status and
// Page.Reason: the property's daily quota, Search Console's own refusal,
// the caller's quota through Options.Charge, cancellation); its Indexed is
// nil, never false. A sample cut below the eligible pages says what cut it
// (Report.SampleLimit). Fields Search Console leaves out stay empty.
//
// # Costs
//
// Each inspection is one provider request: Options.Charge is called once
// before each, so a server counts them against its account's quota like
// its other provider calls, and a refusal stops the run cleanly.
package indexstatus
