// Package dashboard is the web dashboard of the seokit API: sign-in, API
// keys, OAuth applications, usage, site analyses, ranking history, the
// account page (password change) and, for admin accounts, the accounts
// page (list, create, plan and daily limit, password reset), as
// server-rendered html/template pages under /dashboard/.
//
// Everything it serves is embedded (templates, one stylesheet, one small
// script); pages work with JavaScript off, the script only adds copy
// buttons, confirmations and live progress.
//
// # Security
//
// Passwords are checked against the argon2id hashes of package auth.
// A session is a cookie (HttpOnly, SameSite=Lax, Secure on TLS or with
// Options.Secure) carrying a random session ID, the account ID, the
// expiry and a MAC of the account's password hash at sign-in, signed with
// HMAC-SHA-256 under Options.SessionKey. Signing out revokes the session ID
// through the store's token revocation list, so a copied cookie stops
// working too; a password change (here, through auth.Server.SetPassword or
// any other update of the stored hash) refuses every session signed in
// before it, as each hash has a new salt. The accounts page answers 404 to
// accounts without store.Account.Admin. Every form carries a CSRF token bound to
// the session (the sign-in form one bound to a cookie) and unsafe requests
// are also checked with net/http's cross-origin protection. Pages are sent
// with a strict Content-Security-Policy (no inline script or style),
// framing denied, nosniff and no-store. Crawled text (titles, URLs,
// evidence) is escaped by html/template; the downloadable crawler report is
// served sandboxed.
//
// # Layout
//
// Pages with several sections (an analysis, a project, a comparison) open
// with a sticky section navigation. The analysis page shows its charts,
// with titled axes and their top value, right after the summary; its Pages
// table keeps the URL and title columns at least 240 px wide at 1280 px
// (ellipsed, the full value on hover) and names the findings every
// analysed page has once, above the table, instead of on every row. Each
// row's URL opens /dashboard/analyses/{id}/page?url=, the page's detail
// view: its facts, findings, the links the stored report keeps to and
// from it, and raw versus rendered. On a phone, tables become stacked
// cards, so nothing scrolls sideways, and a card's URL is shown whole,
// wrapped across the card's width.
//
// # Rendering
//
// The analysis page of a crawl that rendered JavaScript shows the
// rendering summary (pages rendered, changed by JavaScript, links found
// only after rendering, errors, lab Web Vitals) and the first pages'
// screenshots when the store implements store.Screenshots. Each is an
// image served by /dashboard/analyses/{id}/screenshot?url= to the signed-in
// owner of the analysis (404 otherwise), never inlined into the page.
//
// # Rankings per account
//
// The rankings store is shared: a keyword is checked once per domain,
// locale and device, whoever tracks it. What an account sees is decided
// by its Watchlist: the rankings page lists only the domains and keywords
// the signed-in account added itself ("Track keywords"), and a domain
// another account tracks reads as "not tracked" until this account adds
// keywords for it, and then shows only those keywords. Stopping a keyword
// removes it from the account's list; the rankings service stops re-checking it
// when no account's list has it any more (its history is kept).
//
// # Projects
//
// /dashboard/projects lists the account's projects (the sites it
// monitors: last analysis with its score and status, next scheduled run)
// and creates them; /dashboard/projects/{id} is the home of a site: its
// settings (the saved crawl configuration, credentials shown as
// "[redacted]"), "Run now" (counted against the quota like the start
// form), the history (trend charts of score, pages, errors and warnings
// drawn as SVG from the analyses' summaries, where an analysis without a
// result is a mark on the axis, never a zero; the analyses paged, each
// linked to its comparison with the previous successful one), tracked
// keywords, schedules (times in the project's zone), alert rules (mute,
// send test, the webhook secret shown once) and the alert delivery log.
// /dashboard/analyses/{id}/diff?against= shows the comparison of two
// analyses (compare.Sites, capped with exact counts, changed pages
// paged); diff.html serves its self-contained page sandboxed. Projects and
// their history go through the projects service (Options.Projects) the
// API's handlers call, so the pages apply the API's validation, caps and
// messages, and another account's project is a 404; schedules and alert
// rules through theirs (Options.Schedules, Options.Alerts), comparisons
// through the analyses service (Analyses.Diff).
//
// # Look
//
// The stylesheet is shared with the OAuth consent page of package auth
// (package httpapi/internal/ui): the dashboard serves it as
// /dashboard/static/app.css, the consent page inlines it under a CSP hash.
//
// # Wiring
//
// Mount the Dashboard next to the API and give its SessionAccount to the
// auth server, so the OAuth consent page knows who is signed in:
//
//	var d *dashboard.Dashboard
//	au, _ := auth.New(ctx, st, &auth.Options{SessionAccount: func(r *http.Request) (string, bool) { return d.SessionAccount(r) }})
//	api, _ := httpapi.New(ctx, &httpapi.Options{Store: st, Auth: au})
//	_ = api.Start(ctx) // site analyses, schedules and deliveries
//	w, _ := dashboard.NewSQLWatchlist(ctx, st.DB(), string(st.Dialect()))
//	d, _ = dashboard.New(st, au, &dashboard.Options{SessionKey: key, Analyses: api.Analyses(),
//		Projects: api.Projects(), Schedules: api.Schedules(), Alerts: api.Alerts(),
//		Quota: api, Mutes: api, Tracking: api.Rankings(), Watchlist: w})
//	mux.Handle("/dashboard/", d)
//	mux.Handle("/dashboard", d)
//
// The analyses pages go through the site analyses service
// (service.Analyses, the API server's Analyses()), which the API's
// handlers call too: the pages render the service's Job values (JobRow),
// and each analysis is charged to the account's quota inside the
// service. The rankings page goes through the rankings service
// (service.Rankings, the API server's Rankings()), which GET /v1/rankings
// calls too: its history, "Track keywords" (charged by the service) and
// "untrack". The API server is also the Quota (the
// limits shown) and the Mutes.
//
// With several API instances sharing rate limits in Redis, set
// Options.Usage to the API's ratelimit.Limiter so the usage page shows the
// shared counts. examples/server wires all of this.
package dashboard
