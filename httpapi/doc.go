// Package httpapi serves the seokit library as the /v1 HTTP API: an
// http.Handler with routing, authentication, per-account daily limits,
// JSON validation, the error envelope, asynchronous site-analysis jobs and
// signed job callbacks. It never starts a server itself; examples/server
// does, and examples/embed mounts it under a prefix of an existing mux.
//
// # Endpoints and permissions
//
// Every endpoint needs a credential: an API key (X-API-Key header, or the
// api_key query parameter, which is redacted in logs), or a Bearer JWT from
// POST /v1/auth/token or the OAuth flow (package auth). A credential has
// the "read" and/or "write" permission ("write" implies "read"); an API key
// may also name operations, and is then limited to them.
//
//	Method  Path                      Scope  Operation  Answer
//	POST    /v1/analyze/page          write  analyze    200 page report
//	POST    /v1/analyze               write  analyze    200 page report (same body)
//	GET     /v1/analyze?url=&depth=   write  analyze    200 page report
//	POST    /v1/analyze/site          write  analyze    202 job, Location header
//	GET     /v1/analyze/site          read   analyze    200 the account's jobs, newest first
//	GET     /v1/analyze/site/{id}     read   analyze    200 job with progress and, when done, result
//	GET     /v1/analyze/site/{id}/screenshot?url=
//	                                  read   analyze    200 image/png of a rendered page; 404 if none
//	DELETE  /v1/analyze/site/{id}     write  analyze    200 canceled job; 409 if it had ended
//	POST    /v1/optimize/content      write  optimize   200 content report
//	GET     /v1/keywords/suggest      read   keywords   200 {query, locale, suggestions[...]}
//	GET     /v1/rankings              read   rankings   200 {domain, locale, device, rankings[...]} (a read: tracks nothing)
//	POST    /v1/rankings/track        write  rankings   200 {domain, locale, device, tracked, rankings[...]}
//	GET     /v1/reports               read   reports    200 {domain, start, end, metrics}
//	GET     /v1/mutes/{domain}        read   analyze    200 {domain, ids} muted for the domain
//	PUT     /v1/mutes/{domain}        write  analyze    200 {domain, ids} stored; analyses apply them
//	POST    /v1/projects              write  analyze    201 project, Location header
//	GET     /v1/projects              read   analyze    200 {projects} of the account, newest first
//	GET     /v1/projects/{id}         read   analyze    200 project
//	PATCH   /v1/projects/{id}         write  analyze    200 project with the fields sent changed
//	DELETE  /v1/projects/{id}         write  analyze    204; its analyses stay, without a project
//	GET     /v1/projects/{id}/analyses?limit=
//	                                  read   analyze    200 {projectId, analyses, hasMore}, newest first
//	POST    /v1/projects/{id}/schedules
//	                                  write  analyze    201 schedule (see Schedules)
//	GET     /v1/projects/{id}/schedules
//	                                  read   analyze    200 {schedules[...]}
//	PATCH   /v1/projects/{id}/schedules/{sid}
//	                                  write  analyze    200 schedule paused, resumed or changed
//	DELETE  /v1/projects/{id}/schedules/{sid}
//	                                  write  analyze    204
//	POST    /v1/projects/{id}/logs?format=&logFormat=&name=&stripQuery=
//	                                  write  analyze    202 log upload (the body is the log file, plain or gzip), parsed as a job
//	GET     /v1/projects/{id}/logs?limit=
//	                                  read   analyze    200 {logs[...]} the project's uploads, newest first
//	GET     /v1/projects/{id}/logs/{lid}
//	                                  read   analyze    200 upload with its report (logs.Report) once parsed
//	GET     /v1/projects/{id}/logs/{lid}/lists/{list}?offset=&limit=
//	                                  read   analyze    200 {list, offset, limit, total, items} one page of a report list
//	GET     /v1/openapi.json          none   -          200 the OpenAPI 3.1 document (no credential)
//
// Page analysis is an action that fetches third-party pages, so it needs
// "write" like the other actions that start work. A job of another account
// answers 404, exactly like a job that does not exist.
//
// # Errors
//
// Every error under /v1, including unknown paths (and other versions such
// as /v2), wrong methods and recovered panics, is
//
//	{"error":{"code":"invalid_request","message":"...","status":400,"field":"url","requestId":"req_..."}}
//
// field names the input at fault for invalid_request, as the API spells it
// ("url", "options.maxPages", "keywords[2]", "locale", "start", "Content-Type",
// "body"). requestId repeats the X-Request-Id response header, which is
// also in the server's logs. Codes and statuses:
//
//	invalid_request        400  bad JSON, unknown field, wrong type, bad URL, domain, locale or date,
//	                            body over the limit (field "body"), Content-Type not application/json
//	unauthorized           401  no credential, or an invalid, expired or revoked one
//	                            (with WWW-Authenticate: Bearer realm="seokit")
//	forbidden              403  the credential lacks the scope or operation of the endpoint
//	https_required         403  plain HTTP from a peer that is neither loopback nor a trusted proxy
//	not_found              404  unknown path or resource
//	method_not_allowed     405  known path, other method (with Allow)
//	conflict               409  canceling a job that has ended; a project past the plan's cap,
//	                            or a second project for a domain (field "domain")
//	rate_limited           429  daily limit reached, a burst of requests, the account's own
//	                            concurrency limit or its plan's concurrent site analyses
//	                            (with Retry-After)
//	internal               500  a bug; details are logged with the request ID, never sent
//	unavailable            503  the database or a data provider is down, the endpoint's data
//	                            source is not configured, or the server is running as many
//	                            operations as admission control allows (with Retry-After)
//	upstream_rate_limited  503  a data provider is limiting us; the client's own quota is not
//	                            at fault, so this is not a 429 (Retry-After: 60)
//	rendering_unavailable  503  options.render asks for rendering and the server has no
//	                            browser (Options.Renderer is nil); raw analysis works
//
// The token and OAuth endpoints of package auth answer RFC 6749 errors
// instead, because OAuth clients parse those.
//
// # Limits
//
// Requests are counted per account (all its keys and tokens together) per
// UTC day, in the store, so a restart or a second instance over the same
// database does not reset them: Free 100, Pro 1000, Enterprise (or any
// account) its DailyLimit. Every authenticated response carries
// X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset (Unix
// epoch seconds of the next 00:00 UTC). A request over the limit gets 429
// with Retry-After (seconds until the reset) and is not counted. Requests
// that fail authentication are not counted; they are limited per client
// address instead. The client address is the TCP peer, or, behind a trusted
// proxy, the right-most untrusted X-Forwarded-For entry; it never selects
// a quota, so a spoofed X-Forwarded-For changes nothing. A short per-account
// token bucket (Options.BurstRate, Burst) protects the server from bursts.
// Both limits go through Options.Limiter (package ratelimit): by default
// daily counts in the store and buckets in this process; with the
// redislimit driver both live in Redis, shared by every instance, and an
// unreachable Redis answers 503 (fail closed, never unlimited).
//
// Dashboard actions that spend resources or provider money count against
// the same limits: a site analysis inside its service
// (service.Analyses.Submit charges its units, less the one the API request
// paid), keyword tracking inside the rankings service
// (service.Rankings.Track, the one unit GET /v1/rankings also costs).
//
// JSON bodies are limited to Options.MaxBodyBytes (1 MiB), content
// optimisation bodies to OptimizeMaxBodyBytes (the optimizer's 10 MiB
// content limit plus room for escaping). Plans (Options.Plans) cap
// options.maxPages of site analyses and the analyses an account has queued
// or running at once: Free 500 pages and 1, Pro 10,000 and 3.
//
// # Projects
//
// A project is one site an account monitors: its domain (validated as a
// site analysis's), a name, an IANA time zone for its schedules (default
// UTC), a saved crawl configuration (crawler.Config, validated by
// DecodeConfig, errors naming "config.FIELD"; its credentials sealed in
// the store as a job's are and answered "[redacted]"; a credential sent
// back as "[redacted]" keeps its stored value) and tracked keywords (at
// most MaxProjectKeywords, validated as GET /v1/rankings validates them).
// One project per domain and account; plans cap the count
// (plans.Limits.Projects: Free 3, Pro 50, Enterprise 1,000), and one more
// is 409 conflict. Another account's project answers 404. Every plan cap
// on a count (projects, schedules, alert rules, site analyses queued or
// running) is checked by the store in the step that inserts
// (store.LimitError), so instances sharing a database never exceed it
// together.
//
// POST /v1/analyze/site with "projectId" attaches the analysis to the
// project: without domain and url the project's domain is analysed (a
// domain or url must be the project's host, else 400 naming it), and
// without a crawl configuration of its own the project's saved one is
// used. Every site analysis that succeeds keeps a JobSummary (score,
// pages, errors, warnings, notices, indexable pages...) read from its
// report; GET /v1/projects/{id}/analyses lists the project's analyses
// with these summaries, newest first (a queued, running, failed or
// canceled one shows its status and a null summary), without loading a
// report. GET /v1/analyze/site/{id}/diff without against compares with
// the previous successful analysis of the project. GET
// /v1/rankings?projectId= takes the project's host and tracked keywords
// when domain and keywords[] are left out. Deleting a project deletes what
// hangs off it (schedules, alert rules) and keeps its analyses, without a
// project.
//
// # Crawl scope and access
//
// The options of a site analysis are a saved crawl configuration
// (crawler.Config, validated by its Validate, fields prefixed "options.")
// plus the plan-capped render, screenshot and renderPages; GET
// /v1/schemas/crawl-config.json serves the configuration's JSON Schema
// without a credential.
//
// A site analysis takes the crawler's scope options (options.include,
// exclude, keepParams, maxFolderDepth), list mode (options.urls, capped by
// the plan's MaxListURLs, by default its MaxSitePages: Free 500, Pro 10,000) and access options
// (options.headers, basicAuth, cookies, userAgent, a preset name or a
// string); bad ones are 400 naming the field ("options.include[0]",
// "options.headers.Host"). Credentials go to the site's own hosts only.
// The job store keeps them encrypted with AES-256-GCM under a key derived
// from Options.CallbackSecret, and every answer shows them "[redacted]".
// Page and site analyses take options.extract (at most 20 extractors
// {name, type: css|xpath|regex, expr, attr, output, max}) and
// options.search (at most 20 rules {name, contains, text|regex, in});
// a bad selector, XPath or regex is 400 invalid_request naming
// options.extract[i].expr (or options.search[i].regex). Page reports carry
// "extracted" and "search"; site reports the same per page and the counts
// per extractor and rule ("extraction", "searchRules").
//
// # Admission control
//
// Page analyses, site analyses and content optimisations are bounded by
// Options.Admission: per kind a global concurrency limit and a per-account
// one, and one memory budget shared by all, from which each operation
// reserves its estimate before it runs (a content optimisation before its
// body is read). A request that finds its account at its limit gets 429;
// one that finds the server saturated waits briefly and then gets 503
// unavailable, both with Retry-After, rather than pushing the server out
// of memory; one whose estimate is more than the whole budget, which no
// wait would admit, gets 409 conflict saying so, without Retry-After. Refusals are logged with their kind and reason. A stored job
// report is at most four times the report cap of the server's crawls
// (crawler.Options.MaxReportBytes, 16 MiB by default; never more than
// store.MaxJobResultBytes), stored compressed: a larger one fails the job
// with an explicit error, and a stored row recording a larger length is
// refused before it is decompressed. When a
// site analysis ends, its account's history is pruned by its plan
// (plans.Limits.HistoryAnalyses per project, HistoryDays for all
// analyses, with or without a project; see retention.go). Lists of jobs never load reports, and
// GET of one job streams the stored report into the answer without
// decoding it or holding it whole.
//
// # Rendering
//
// Page and site analyses take options.render: "none" (default) analyses
// the HTML the server sent; "auto" renders only pages whose raw HTML looks
// like an application shell (analyzer.LooksLikeAppShell); "always"
// renders every HTML page with Options.Renderer (render/chromium's pool
// in examples/server) and runs the page checks on the rendered DOM. The
// report's render section pairs each changed field's raw and rendered
// values and carries JavaScript errors, failed or blocked requests, page
// weight and lab Web Vitals labelled with the device profile (lab
// measurements, never field data). options.screenshot is "none",
// "viewport" (default when rendering) or "full"; a page analysis returns
// the PNGs base64-encoded in render.screenshot and render.fullScreenshot.
// GET /v1/analyze takes render= and screenshot= query parameters. A bad
// value is 400 invalid_request naming options.render or
// options.screenshot; a server without a renderer answers 503
// rendering_unavailable and raw analyses keep working.
//
// options.a11y (GET: a11y=true) audits the accessibility of each rendered
// page with axe-core (the automated subset of WCAG 2.0-2.2 A and AA and
// best practices): the page report's a11y section (violations and results
// needing review with their axe rule, impact, WCAG success criteria, help
// URL and elements; a score weighted by impact) and a11y.* findings; a
// site report's a11y summary groups the violations by rule and template.
// It needs options.render "auto" or "always" (else 400 naming
// options.a11y) and costs nothing beyond the rendering. A server without
// axe-core (examples/server -axe, $SEOKIT_AXE) reports each page as
// "not checked: axe-core not found", never as passed.
//
// Rendering is governed like the other heavy operations. A page analysis
// that renders takes a slot of its own admission class
// (AdmissionOptions.MaxRenders, by default the renderer's capacity or 4;
// per account AccountConcurrency), so renderings cannot starve raw page
// analyses, and reserves a rendering's memory from the shared budget (its
// side and its share of the browsers' memory, which the budget includes:
// AdmissionOptions.BrowserMemory); a page the renderer stops at its memory
// limit is analysed raw, its render reason "not rendered: memory limit"; each
// page a site analysis renders waits for a slot of that class too. An
// analysis that renders counts RenderQuotaUnits (5) requests against the
// daily quota, page or site; a page analysis in "auto" mode counts them
// only when its page needs rendering, and without the units left it is
// analysed as the server sent it, its render reason "not rendered: …"
// (render.ErrDeclined). A site analysis renders at most
// options.renderPages pages, by default and at most its plan's cap
// (plans.Limits.RenderPages: Free 50, Pro 2,000, Enterprise 10,000); the
// pages beyond are analysed as the server sent them, with the reason
// ("not rendered: …", never a render.failed finding). The pages rendered
// are counted in the store with the job (store.Jobs.TakeRender), so a
// resumed analysis (after a restart or a kill) continues from the count,
// and the instances that crawl one analysis together share it; a page
// rendered again after a resume is not counted twice.
//
// A site analysis that renders with options.screenshot "viewport" (the
// default when rendering) keeps each rendered page's viewport PNG with
// its job when the store implements store.Screenshots (sqlstore does): at
// most options.renderPages of them (counted in the store, so a resumed
// analysis keeps the cap), each at most store.MaxScreenshotBytes,
// deleted with the job. The report's pages[].screenshot says which page
// has one; GET /v1/analyze/site/{id}/screenshot?url= serves it as
// image/png (the page's URL as the report lists it; 400 naming url
// without one, 404 not_found when there is none), with the permission of
// GET /v1/analyze/site/{id}.
//
// # HTTPS
//
// Responses to TLS requests carry Strict-Transport-Security. Plain HTTP is
// served only to loopback peers (local development, a reverse proxy on the
// same host) and to Options.TrustedProxies that send X-Forwarded-Proto:
// https; anything else gets 403 https_required.
//
// # Jobs
//
// POST /v1/analyze/site stores a job (queued) and returns 202 with its
// id, status and Location. Options.JobWorkers workers crawl queued jobs;
// progress (pagesDone, queued, errors, pagesPerSecond) is saved at most
// once a second; the result is the crawler's SiteReport. States: queued ->
// running -> succeeded | failed | canceled. A run still going after the
// job timeout (Options.JobTimeout, or the Queue's own, two hours by
// default) fails with errorCode "job_timeout", keeping the report of
// the pages it crawled (stopReason "time_budget"), and frees its slot.
// Jobs live in the store: a
// server started (Server.Start) over it re-queues the jobs left queued
// or running. New starts nothing; a Server that is never started accepts
// site analyses and leaves them queued. A
// job's crawl runs on a frontier of its own from Options.Frontiers (one
// SQLite file per job with sqlitefrontier.Dir, or Redis, shared by the
// instances, with redisfrontier.Crawls), removed when the job ends: a
// crawl that was interrupted continues where it stopped, its finished
// pages replayed from their summaries, not fetched again (without
// Frontiers it starts again from the beginning). With a shared frontier
// (HostGates) and a shared Queue, a job of Options.SharedCrawlPages pages
// or more also asks the queue for SharedCrawlHelpers helper runs, queued
// under the job's ID with a "~w1", "~w2"... suffix: workers on any
// instance crawl it together under one per-host rate, the job's own run
// builds the report, and its progress counts the pages of every worker.
// MaxPages then bounds the pages of all workers together, and the job's
// own run checks the external links of every worker's pages (see
// crawler.Options.Worker). Store failures
// while recording a job's state are retried until they succeed or the
// server closes; the job then stays unfinished and resumes on the next
// start, so no job is lost. Options.Queue decides where jobs run: nil
// means this process (one instance per store, since every instance would
// resume the same unfinished jobs); the riverjobs driver runs them on
// River over PostgreSQL, so any instance accepts a job, any instance's
// worker runs it, and a job whose instance was killed is run again
// elsewhere. A cancel on any instance stops the crawl wherever it runs
// within about a second.
//
// # Schedules
//
// A project's schedules repeat its site analysis (kind "site": its domain
// with its saved crawl configuration) or its rank check (kind "rankings":
// its tracked keywords through Options.Tracker, which records them in the
// rank history) at the times a spec names in the project's time zone:
// "hourly", "daily", "daily@06:30", "weekly" (Monday 00:00), "weekly@mon
// 06:00" or a 5-field cron expression (monitor.ParseSchedule, which also
// says how daylight-saving changes are handled: each wall-clock time runs
// once). POST /v1/projects/{id}/schedules {"kind","spec","paused"} creates
// one, GET lists them, PATCH /v1/projects/{id}/schedules/{sid} pauses,
// resumes or changes the spec, DELETE removes it; answers give nextRun and
// lastRun in RFC 3339 in the project's zone, lastJobId and lastError.
//
// Every Options.ScheduleInterval (30 s) the server runs the due schedules
// (RunDueSchedules). Each due time runs exactly once across the instances
// sharing a store: one transaction claims it and stores its job
// (store.Schedules.ClaimSchedule), and the instance that claimed it counts
// the run as one request against the account's daily limit and queues the
// job on Options.Queue (River across instances); a job stored but not
// queued (a crash) is resumed at the next start like any unfinished job.
// Missed runs after downtime: a schedule runs ONCE, for the latest due
// time missed, and the older ones are skipped. A resumed schedule, or one
// whose spec changed, runs next at its next due time from now. A run is
// skipped, never retried, when the daily limit is spent or when the
// project's previous analysis is still queued or running: lastError says
// why, and a skipped site run is a failed job whose error starts with
// "skipped: ". A run due while the account runs its plan's concurrent site
// analyses waits instead: its job stays queued, its error "waiting: …",
// and the scheduler starts the account's waiting runs, oldest first, as
// its analyses end (counting each against the daily limit then). One
// account's waiting runs never hold up another's. Plans cap the
// schedules of an account (plans.Limits.Schedules: Free 2, Pro 100,
// Enterprise 1000; 409 conflict beyond, and beyond 100 in one project) and
// how often one may run (MinScheduleInterval: Free once a day, Pro hourly,
// Enterprise every 15 minutes; a spec that may run more often is 400
// invalid_request naming spec). The minimum interval is also kept from
// the last run: whatever a PATCH (a new time, a resume) or a change of
// the project's time zone does, the next run is never sooner after the
// last than the plan allows (counted in wall-clock time, so a daily run
// stays daily across daylight-saving changes); it moves to the first due
// time after that.
//
// # Callbacks
//
// A site analysis may name a callbackUrl (http or https, checked like any
// user URL: private addresses are refused unless Options.AllowPrivate).
// When the job ends (succeeded, failed or canceled) the server POSTs a
// CallbackEvent {"id","status","summary","createdAt","finishedAt"} to it
// through the safe fetcher, with the header
//
//	Seokit-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, t + "." + body)>
//
// where secret is the job's callbackSecret, returned once in the 202
// answer. Receivers check the raw body with VerifyCallback (or recompute
// the HMAC and compare in constant time, and reject stale timestamps).
// Each attempt is bounded to 10 s; a non-2xx answer, a network error or
// a timeout is retried after Options.CallbackRetryDelays (4, 8, 16 and
// 32 s: five attempts); the outcome is recorded as the job's callback
// state ("pending", "delivered", "failed"). The scheme is monitor.Sign and
// monitor.Verify, and the poster monitor.Webhook.Send, shared with webhook
// alerts.
//
// Callbacks and alerts leave through one outbox (store.Delivery): storing
// a job's final state queues its callback in the same transaction, and
// the outbox worker started by Start (stopped by Close) sends it, so no
// receiver holds a job worker or a crawl slot. The worker makes at most
// DeliveryWorkers (20) attempts at once, of which DeliveriesPerAccount (4)
// for one account, counted over every instance sharing the store.
// Deliveries are leased in the store (store.Alerts.ClaimDeliveries): no
// two instances make the same attempt, and the retry schedule survives a
// restart.
//
// # Alerts
//
// A project's alert rules (POST /v1/projects/{id}/alerts; GET lists them,
// PATCH and DELETE /v1/projects/{id}/alerts/{aid} change, mute and delete
// one) watch for a kind of change (package monitor: new_findings,
// top_page_changed, robots_changed, sitemaps_changed, pages_lost,
// score_drop, keyword_drop, site_down, bot_5xx_rising, bot_disallowed)
// and send it through a channel: "webhook" (the
// alert's JSON, signed like callbacks with the rule's secret, shown once
// and stored sealed like job credentials), "slack" (a Slack incoming-webhook
// message) or "email" (through Options.SMTP; without it e-mail rules are
// refused, 400 naming channel). Targets are checked like callback URLs.
// Options.Plans caps the rules of an account (plans.Limits.AlertRules).
//
// When a site analysis of a project succeeds, its rules are evaluated on
// compare.Sites of the project's previous successful analysis and this
// one before the job's final state is stored (a crash in between runs the
// job, and the evaluation, again); keyword_drop rules are evaluated by
// EvaluateKeywordAlerts after each scheduled rank check, on the positions
// before and after it (rankings.Tracker.Latest); site_down rules are
// evaluated when an analysis reached no page of the site: such a job fails
// with errorCode "site_unreachable", keeps its report (score null,
// crawl.stopReason "unreachable") and is never the "previous successful
// analysis" of a comparison. bot_5xx_rising and bot_disallowed rules are
// evaluated when a log uploaded to the project is parsed (logAlerts, before
// the log job's final state is stored), on its report. Each alert becomes a delivery in
// the store: one per rule and change (monitor.Alert.Fingerprint), so the
// same two analyses never alert twice; the same change flapping back is
// suppressed for Options.AlertCoolDown (24 h); a muted rule's alerts are
// logged as suppressed. The outbox worker (see Callbacks) sends pending
// deliveries, each attempt bounded to 10 s, retrying after
// Options.AlertRetryDelays (1 min, 5 min, 30 min, 2 h, 6 h) and then
// marking them "failed". Deliveries are claimed with a lease in the store,
// so several instances never send one twice and a restart resumes the
// pending ones. GET
// /v1/projects/{id}/alerts/deliveries is the project's log (the newest
// 1000); POST /v1/projects/{id}/alerts/{aid}/test sends a test alert at
// once. Alert links are absolute under Options.PublicURL.
package httpapi
