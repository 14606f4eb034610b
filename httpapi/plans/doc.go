// Package plans is the one definition of the API's plans: what an account
// of each plan may spend (daily requests, pages of a site analysis, site
// analyses at once) and keep (projects, schedules, alert rules, and the
// history of analyses: HistoryAnalyses per project and HistoryDays for all
// — Free 10 and 30 days, Pro 100 and 365 days, Enterprise 1,000 and 730
// days), their defaults, and the rule that gives an account its limits
// (Table.For), remembered for a short time by Cache.
// The API server counts requests by it and the dashboard shows
// what the server applies, so both read the same Table.
package plans
