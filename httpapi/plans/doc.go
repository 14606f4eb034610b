// Package plans is the one definition of the API's plans: what an account
// of each plan may spend (daily requests, pages of a site analysis, site
// analyses at once, projects), their defaults, and the rule that gives an account
// its limits. The API server counts requests by it and the dashboard shows
// what the server applies, so both read the same Table.
package plans
