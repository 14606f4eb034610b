// Command server runs the seokit /v1 API and its web dashboard as a
// standalone HTTP server.
//
//	go run ./examples/server [flags]
//
// It listens on 127.0.0.1:8080: the API under /v1, the dashboard under
// /dashboard/ (the root redirects there), the OAuth consent page at
// /v1/oauth/authorize. It keeps accounts, keys, usage counters, jobs and
// the dashboard's per-account ranking watchlists in the SQLite file
// seokit.db (or a PostgreSQL database given as a postgres:// DSN), and
// keywords and rankings in seokit-data.db. With a search provider
// configured it re-checks every tracked keyword daily (an hourly pass over
// those not yet checked that UTC day, on one instance with -jobs river). On the
// first start it creates an
// admin account (admin@localhost, Pro plan) and prints its API key, API
// client credentials and dashboard password once:
//
//	API key: seo_live_...
//	Client ID: ...
//	Client secret: ...
//	Dashboard: http://127.0.0.1:8080/dashboard/  email: admin@localhost  password: ...
//
// Dashboard sessions are signed with a key derived from -session-key, or,
// without it, from a random secret stored in the API database on the first
// start, so sign-ins survive restarts (give every instance the same
// -session-key when several share a PostgreSQL database behind a load
// balancer; they then share the stored secret anyway). Cookies are Secure
// under TLS and behind a trusted TLS proxy.
//
// Every flag has an environment variable, used when the flag is not given:
//
//	-addr            SEOKIT_ADDR              listen address (127.0.0.1:8080)
//	-public-url      SEOKIT_PUBLIC_URL        URL clients reach the server at, the OAuth issuer (http(s)://-addr)
//	-db              SEOKIT_DB                API store: SQLite path or postgres:// DSN (seokit.db)
//	-data-db         SEOKIT_DATA_DB           keyword and ranking data: SQLite path or postgres:// DSN (seokit-data.db)
//	-tls-cert        SEOKIT_TLS_CERT          TLS certificate file (PEM)
//	-tls-key         SEOKIT_TLS_KEY           TLS private key file (PEM)
//	-trusted-proxy   SEOKIT_TRUSTED_PROXIES   comma-separated CIDRs of TLS-terminating proxies
//	-free-limit      SEOKIT_FREE_LIMIT        daily requests of the Free plan (100)
//	-pro-limit       SEOKIT_PRO_LIMIT         daily requests of the Pro plan (1000)
//	-callback-secret SEOKIT_CALLBACK_SECRET   master secret of callback signatures and sealed credentials (SQLite: file -db + ".secret" if empty)
//	-smtp-addr       SEOKIT_SMTP_ADDR         SMTP server (host:port) of e-mail alerts; none: e-mail rules are refused
//	-smtp-from       SEOKIT_SMTP_FROM         sender address of e-mail alerts
//	-smtp-user       SEOKIT_SMTP_USER         SMTP user (PLAIN auth, over TLS or to localhost)
//	-smtp-password   SEOKIT_SMTP_PASSWORD     SMTP password
//	-smtp-tls        SEOKIT_SMTP_TLS          connect with TLS from the start (port 465); else STARTTLS when offered
//	-session-key     SEOKIT_SESSION_KEY       secret of dashboard sessions, at least 32 bytes
//	-reset-admin-password                     print a new dashboard password of admin@localhost once (signs out its sessions)
//	-allow-private   SEOKIT_ALLOW_PRIVATE     let analyses and callbacks reach loopback and private addresses
//	-redis           SEOKIT_REDIS_URL         Redis for rate limits shared by several instances
//	-jobs            SEOKIT_JOBS              local (this process) or river (PostgreSQL -db, shared)
//	-job-workers     SEOKIT_JOB_WORKERS       site analyses run at once here (river: 0 = API only)
//	-job-timeout     SEOKIT_JOB_TIMEOUT       longest run of a site analysis, log parse or rank check (2h)
//	-job-rescue-after SEOKIT_JOB_RESCUE_AFTER a killed instance's job restarts elsewhere after this
//	-frontier-dir    SEOKIT_FRONTIER_DIR      site analyses' crawl state, one SQLite file per job (-db path + "-frontiers")
//	-log-dir         SEOKIT_LOG_DIR           access logs uploaded to projects, until parsed (-db path + "-logs", or seokit-logs)
//	-crawl-rate      SEOKIT_CRAWL_RATE        requests per second a site analysis makes to one host (20)
//	-schedule-interval SEOKIT_SCHEDULE_INTERVAL how often due project schedules are looked for (30s)
//	-max-page-analyses SEOKIT_MAX_PAGE_ANALYSES page analyses run at once (4)
//	-max-optimizations SEOKIT_MAX_OPTIMIZATIONS content optimisations run at once (2)
//	-max-site-jobs   SEOKIT_MAX_SITE_JOBS     site analyses running at once in this process (2)
//	-account-concurrency SEOKIT_ACCOUNT_CONCURRENCY page analyses, and optimisations, one account runs at once (2)
//	-account-rate    SEOKIT_ACCOUNT_RATE      requests per second one account may sustain, then 429 rate_limited (50)
//	-account-burst   SEOKIT_ACCOUNT_BURST     requests one account may send at once after a pause (200)
//	-memory-budget   SEOKIT_MEMORY_BUDGET     MiB the heavy operations may hold together by their estimates (512)
//	-mcp-sessions-per-account SEOKIT_MCP_SESSIONS_PER_ACCOUNT MCP sessions one account holds open at once, then 429 (10)
//	-mcp-sessions    SEOKIT_MCP_SESSIONS      MCP sessions of every account together, then 503 (1000)
//	-admission-wait  SEOKIT_ADMISSION_WAIT    how long a request waits for a slot before 503 (20s)
//	-memory-limit    SEOKIT_MEMORY_LIMIT      Go soft memory limit in MiB (900; GOMEMLIMIT, when set, wins; 0 = none)
//	-chromium        SEOKIT_CHROMIUM          browser that renders pages for options.render (chromium.ExecNames: chromium-headless-shell, then chromium)
//	-render-browsers SEOKIT_RENDER_BROWSERS   browser processes that render pages (1)
//	-render-tabs     SEOKIT_RENDER_TABS       pages each browser renders at once (5)
//	-render-memory   SEOKIT_RENDER_MEMORY     MiB one rendering may take, its renderer process and V8 heap (512)
//	-render-browser-memory SEOKIT_RENDER_BROWSER_MEMORY MiB a browser's process tree may take (1536)
//	-render-nice     SEOKIT_RENDER_NICE       CPU priority (nice, 1-19) of the browsers; negative = the server's (10)
//	-axe             SEOKIT_AXE               axe-core's script (axe.min.js) for options.a11y (default ./node_modules/axe-core/axe.min.js)
//	-render-no-sandbox SEOKIT_RENDER_NO_SANDBOX renders without Chromium's sandbox (false; see below)
//	-dataforseo-login, -dataforseo-password   DATAFORSEO_LOGIN, DATAFORSEO_PASSWORD
//	-serpapi-key                              SERPAPI_KEY
//	-google-cse-key, -google-cse-cx           GOOGLE_CSE_KEY, GOOGLE_CSE_CX
//	-gsc-credentials GOOGLE_APPLICATION_CREDENTIALS service-account key file for Search Console URL Inspection (index status)
//	-gsc-grant       SEOKIT_GSC_GRANTS        ACCOUNT_ID=PROPERTY[,PROPERTY...], repeatable (env: separated by spaces): properties an account may inspect
//	-crux-key        CRUX_API_KEY             Chrome UX Report API key (field Web Vitals)
//	(SEARCHCONSOLE_BASE_URL and CRUX_BASE_URL override the two API roots: proxies, tests)
//
// Index status (-gsc-credentials) inspects with one service account for
// every account, and that account reads every property it was added to,
// whoever's: admin accounts (admin@localhost, accounts create -admin) may
// inspect every property, other accounts only those -gsc-grant grants
// their ID; any other is refused with 403 forbidden, nothing charged.
//
// Admission control bounds the heavy operations: beyond -max-page-analyses
// or -max-optimizations running at once, or the -memory-budget their
// estimates share, a request waits up to -admission-wait and is then
// refused with 503 and Retry-After; beyond -account-concurrency for one
// account it is refused at once with 429. Site analyses wait in the queue
// for one of -max-site-jobs slots. Plans cap site analyses too: Free 500
// pages and 1 analysis queued or running at once, Pro 10,000 pages and 3.
// The defaults suit a server with 1 GB of memory; -memory-limit makes the
// Go runtime collect harder as the heap nears it.
//
// Analyses with options.render run the page in headless Chromium, whose
// every request passes the address policy of raw fetches (-allow-private).
// Renderings have their own class of admission control, sized by
// -render-browsers × -render-tabs. When no browser starts, the server logs
// "rendering unavailable: …; raw analysis works" and answers rendering
// requests with 503 rendering_unavailable.
//
// Rendering runs under a memory and CPU envelope: a page whose renderer
// takes more than -render-memory (V8 heap, ArrayBuffers, WebAssembly) or
// that takes a browser's tree past -render-browser-memory is stopped while
// it runs and reported "not rendered: memory limit"; the browsers run at
// nice -render-nice, so that API requests keep the CPU. The memory budget
// of admission control is -memory-budget plus the browsers' limit
// (-render-browsers × -render-browser-memory), each rendering reserving
// its share. The renderers run in Chromium's sandbox: a server running as
// root runs its browsers as user nobody, as Chromium refuses its sandbox
// to root; where that cannot start (no user namespaces), rendering is
// unavailable unless -render-no-sandbox says to render without the
// sandbox. The start logs which applies ("rendering available ...
// sandbox=...").
//
// A site analysis keeps its crawl state (queue, seen URLs, page summaries)
// in a frontier: a job interrupted by a restart, a deploy or a killed
// process continues where it stopped and fetches no finished page again.
// It is one SQLite file per job in -frontier-dir, removed when the job
// ends, or, with -jobs river and -redis, the job's keys in Redis, shared by
// every instance: a job moved to another instance resumes there too, and a
// site analysis of 5,000 pages or more is crawled by workers on several
// instances at once, the per-host rate holding across them. With -jobs
// river and no -redis the frontier files are each instance's own: a job
// resumes only when it runs again on the instance that ran it (on another
// it starts over), so keep -frontier-dir on storage that outlives the
// process.
//
// Several instances behind a load balancer share one PostgreSQL -db (and
// -data-db), one -redis, -jobs river and the same -callback-secret; see
// deploy/README.md. GET /healthz answers "ok" when the store answers and
// accepts writes (a heartbeat row, written at most every 5 s) and Redis
// answers; otherwise 503 naming the failing component and its error.
//
// The accounts command administers accounts in the same store (-db or
// SEOKIT_DB), with the server running or not:
//
//	go run ./examples/server accounts list
//	go run ./examples/server accounts create -email E [-name N] [-plan free|pro|enterprise] [-daily-limit N] [-admin] [-password-stdin]
//	go run ./examples/server accounts set-plan -email E -plan P [-daily-limit N]
//	go run ./examples/server accounts reset-password -email E [-password-stdin]
//	go run ./examples/server accounts create-key -email E [-name N] [-permissions read,write]
//
// create and reset-password print a generated dashboard password once
// (-password-stdin reads one of at least 12 characters instead);
// create-key prints the API key once. Changing a password signs out the
// account's dashboard sessions, as -reset-admin-password does. Accounts
// with -admin manage every account on the dashboard's accounts page. Exit
// status: 0 done, 1 not done (no such account, email already registered,
// store unavailable), 2 bad command line (unknown command or flag, missing
// or malformed value, unknown plan).
//
// Prefer the environment variables for secrets: flags show in process
// listings. Without TLS the server refuses to listen on an address that is
// not loopback unless -trusted-proxy names the proxy in front of it.
// SIGINT or SIGTERM shuts it down within shutdownBound (20 seconds): site
// analyses stop at once and stay queued or running in the store, so the
// next start resumes them; requests in flight get shutdownGrace to finish,
// then are canceled.
package main

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"math"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"

	// Project time zones (schedules) work on machines without zone data.
	_ "time/tzdata"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/crawler/redisfrontier"
	"github.com/seokit/seokit/crawler/sqlitefrontier"
	"github.com/seokit/seokit/httpapi"
	"github.com/seokit/seokit/httpapi/auth"
	"github.com/seokit/seokit/httpapi/dashboard"
	"github.com/seokit/seokit/httpapi/mcpserver"
	"github.com/seokit/seokit/httpapi/plans"
	"github.com/seokit/seokit/httpapi/ratelimit"
	"github.com/seokit/seokit/httpapi/ratelimit/redislimit"
	"github.com/seokit/seokit/httpapi/riverjobs"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/httpapi/store/sqlstore"
	"github.com/seokit/seokit/keywords"
	kwdataforseo "github.com/seokit/seokit/keywords/dataforseo"
	"github.com/seokit/seokit/keywords/local"
	"github.com/seokit/seokit/logs"
	"github.com/seokit/seokit/monitor"
	"github.com/seokit/seokit/rankings"
	"github.com/seokit/seokit/rankings/customsearch"
	rkdataforseo "github.com/seokit/seokit/rankings/dataforseo"
	"github.com/seokit/seokit/rankings/serpapi"
	rsql "github.com/seokit/seokit/rankings/sqlstore"
	"github.com/seokit/seokit/render/chromium"
	"github.com/seokit/seokit/reports"
	"github.com/seokit/seokit/seo"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil && !errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(os.Stderr, "server:", err)
		os.Exit(exitCode(err))
	}
}

// config is the parsed command line.
type config struct {
	addr, db, dataDB, tlsCert, tlsKey, proxies, callbackSecret string
	sessionKey, redisURL, jobs, publicURL, frontierDir         string
	logDir                                                     string
	resetAdmin, allowPrivate                                   bool
	smtp                                                       monitor.SMTPOptions
	freeLimit, proLimit, jobWorkers                            int
	jobTimeout, jobRescue, scheduleInterval                    time.Duration
	admission                                                  httpapi.AdmissionOptions
	memoryBudget, memoryLimit                                  int
	crawlRate                                                  float64
	accountRate                                                float64 // -account-rate
	accountBurst                                               int     // -account-burst
	dfsLogin, dfsPassword, serpapiKey, cseKey, cseCX           string
	gscCredentials, cruxKey                                    string
	gscGrants                                                  gscGrants // -gsc-grant
	// chromium, renderBrowsers and renderTabs configure the renderer of
	// options.render.
	chromium                   string
	renderBrowsers, renderTabs int
	// axe is axe-core's script, run by the accessibility audit
	// (options.a11y); "" means chromium.FindAxe's defaults.
	axe string
	// renderMemory and renderBrowserMemory (MiB), renderNice and
	// renderNoSandbox are the envelope of the renderer.
	renderMemory, renderBrowserMemory, renderNice int
	renderNoSandbox                               bool
}

func env(name, def string) string {
	if v, ok := os.LookupEnv(name); ok && v != "" {
		return v
	}
	return def
}

func envDuration(name string, def time.Duration) time.Duration {
	if v, err := time.ParseDuration(os.Getenv(name)); err == nil {
		return v
	}
	return def
}

func envFloat(name string, def float64) float64 {
	if v, err := strconv.ParseFloat(os.Getenv(name), 64); err == nil {
		return v
	}
	return def
}

func envBool(name string) bool {
	v, _ := strconv.ParseBool(os.Getenv(name))
	return v
}

func isPostgres(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://")
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil {
		return v
	}
	return def
}

func parse(args []string, stderr io.Writer) (*config, error) {
	var c config
	fs := flag.NewFlagSet("server", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.addr, "addr", env("SEOKIT_ADDR", "127.0.0.1:8080"), "listen address")
	fs.StringVar(&c.publicURL, "public-url", env("SEOKIT_PUBLIC_URL", ""), "public base URL clients reach the server at (https://api.example.com behind a TLS proxy): the OAuth issuer and metadata endpoints; empty means http(s):// and -addr")
	fs.StringVar(&c.db, "db", env("SEOKIT_DB", "seokit.db"), "API store: SQLite path or postgres:// DSN")
	fs.StringVar(&c.dataDB, "data-db", env("SEOKIT_DATA_DB", "seokit-data.db"), "keyword and ranking data: SQLite path or postgres:// DSN")
	fs.StringVar(&c.redisURL, "redis", env("SEOKIT_REDIS_URL", ""), "Redis URL (redis://host:6379/0) for rate limits shared by several instances; empty keeps them in -db and this process")
	fs.StringVar(&c.jobs, "jobs", env("SEOKIT_JOBS", "local"), "where site analyses and scheduled rank checks run: local (this process) or river (shared by every instance on the PostgreSQL -db)")
	fs.IntVar(&c.jobWorkers, "job-workers", envInt("SEOKIT_JOB_WORKERS", httpapi.DefaultJobWorkers), "site analyses this instance runs at once (with -jobs river, 0 makes an API-only instance)")
	fs.DurationVar(&c.jobTimeout, "job-timeout", envDuration("SEOKIT_JOB_TIMEOUT", httpapi.DefaultJobTimeout), "longest run of a site analysis, log parse or rank check; a site analysis still running then fails, freeing its slot")
	fs.DurationVar(&c.jobRescue, "job-rescue-after", envDuration("SEOKIT_JOB_RESCUE_AFTER", 0), "with -jobs river, how long after a run started a killed instance's job is restarted elsewhere (at least -job-timeout; 0 means -job-timeout plus 10 minutes)")
	fs.StringVar(&c.logDir, "log-dir", env("SEOKIT_LOG_DIR", ""), "directory where access logs uploaded to projects wait for their parse (empty means the SQLite -db path with \"-logs\" appended, or seokit-logs); shared by the instances with -jobs river")
	fs.StringVar(&c.frontierDir, "frontier-dir", env("SEOKIT_FRONTIER_DIR", ""), "directory of the site analyses' crawl state, one SQLite file per job, from which an interrupted job resumes (empty means the SQLite -db path with \"-frontiers\" appended, or seokit-frontiers); with -jobs river and -redis the state is in Redis")
	fs.DurationVar(&c.scheduleInterval, "schedule-interval", envDuration("SEOKIT_SCHEDULE_INTERVAL", httpapi.DefaultScheduleInterval), "how often due project schedules are looked for")
	fs.Float64Var(&c.crawlRate, "crawl-rate", envFloat("SEOKIT_CRAWL_RATE", crawler.DefaultPerHostRate), "requests per second a site analysis makes to one host")
	fs.IntVar(&c.admission.MaxPageAnalyses, "max-page-analyses", envInt("SEOKIT_MAX_PAGE_ANALYSES", httpapi.DefaultMaxPageAnalyses), "page analyses run at once")
	fs.IntVar(&c.admission.MaxOptimizations, "max-optimizations", envInt("SEOKIT_MAX_OPTIMIZATIONS", httpapi.DefaultMaxOptimizations), "content optimisations run at once")
	fs.IntVar(&c.admission.MaxSiteJobs, "max-site-jobs", envInt("SEOKIT_MAX_SITE_JOBS", httpapi.DefaultMaxSiteJobs), "site analyses running at once in this process")
	fs.IntVar(&c.admission.AccountConcurrency, "account-concurrency", envInt("SEOKIT_ACCOUNT_CONCURRENCY", httpapi.DefaultAccountConcurrency), "page analyses, and content optimisations, one account runs at once")
	fs.IntVar(&c.memoryBudget, "memory-budget", envInt("SEOKIT_MEMORY_BUDGET", httpapi.DefaultMemoryBudget>>20), "MiB the heavy operations may hold together by their estimates")
	fs.IntVar(&c.admission.MCPSessionsPerAccount, "mcp-sessions-per-account", envInt("SEOKIT_MCP_SESSIONS_PER_ACCOUNT", mcpserver.DefaultMaxSessionsPerAccount), "MCP sessions (/mcp) one account holds open at once; the next initialize is refused 429 until one ends")
	fs.IntVar(&c.admission.MCPSessions, "mcp-sessions", envInt("SEOKIT_MCP_SESSIONS", mcpserver.DefaultMaxSessions), "MCP sessions of every account together; the next initialize is refused 503")
	fs.DurationVar(&c.admission.Wait, "admission-wait", envDuration("SEOKIT_ADMISSION_WAIT", httpapi.DefaultAdmissionWait), "how long a request waits for a slot and memory before it is refused with 503")
	fs.IntVar(&c.memoryLimit, "memory-limit", envInt("SEOKIT_MEMORY_LIMIT", defaultMemoryLimit), "Go soft memory limit in MiB (GOMEMLIMIT, when set, wins; 0 means none)")
	fs.StringVar(&c.chromium, "chromium", env("SEOKIT_CHROMIUM", ""), "Chromium program that renders pages for options.render (empty means the first of chromium.ExecNames found: chromium-headless-shell, chromium, chromium-browser, google-chrome ...); without one rendering answers 503 rendering_unavailable and raw analysis works")
	fs.StringVar(&c.axe, "axe", env("SEOKIT_AXE", ""), "axe-core's script (axe.min.js, npm install axe-core@4.14.1) for the accessibility audit of options.a11y; empty means "+chromium.AxeDefaultPath+"; without it audited pages report \"not checked: axe-core not found\"")
	fs.IntVar(&c.renderBrowsers, "render-browsers", envInt("SEOKIT_RENDER_BROWSERS", chromium.DefaultBrowsers), "browser processes that render pages")
	fs.IntVar(&c.renderTabs, "render-tabs", envInt("SEOKIT_RENDER_TABS", chromium.DefaultTabs), "pages each browser renders at once")
	fs.IntVar(&c.renderMemory, "render-memory", envInt("SEOKIT_RENDER_MEMORY", chromium.DefaultMaxRenderMemory>>20), "MiB one rendering may take (its renderer process and V8 heap); beyond it the page is stopped and reported \"not rendered: memory limit\"")
	fs.IntVar(&c.renderBrowserMemory, "render-browser-memory", envInt("SEOKIT_RENDER_BROWSER_MEMORY", chromium.DefaultMaxBrowserMemory>>20), "MiB a browser's process tree may take while it renders; beyond it its largest pages are stopped")
	fs.IntVar(&c.renderNice, "render-nice", envInt("SEOKIT_RENDER_NICE", chromium.DefaultNice), "CPU priority (nice value, 1 to 19) of the browsers, so that renderings do not starve the API; negative keeps the server's")
	fs.BoolVar(&c.renderNoSandbox, "render-no-sandbox", envBool("SEOKIT_RENDER_NO_SANDBOX"), "render without Chromium's sandbox (a renderer exploit would run with the browser's rights); without it a server running as root runs its browsers as user nobody, with the sandbox")
	fs.BoolVar(&c.allowPrivate, "allow-private", envBool("SEOKIT_ALLOW_PRIVATE"), "let analyses and callbacks reach loopback and private addresses (intranet audits)")
	fs.StringVar(&c.tlsCert, "tls-cert", env("SEOKIT_TLS_CERT", ""), "TLS certificate file")
	fs.StringVar(&c.tlsKey, "tls-key", env("SEOKIT_TLS_KEY", ""), "TLS key file")
	fs.StringVar(&c.proxies, "trusted-proxy", env("SEOKIT_TRUSTED_PROXIES", ""), "comma-separated CIDRs of trusted TLS-terminating proxies")
	fs.IntVar(&c.freeLimit, "free-limit", envInt("SEOKIT_FREE_LIMIT", plans.DefaultFreeDaily), "daily requests of the Free plan")
	fs.IntVar(&c.proLimit, "pro-limit", envInt("SEOKIT_PRO_LIMIT", plans.DefaultProDaily), "daily requests of the Pro plan")
	fs.Float64Var(&c.accountRate, "account-rate", envFloat("SEOKIT_ACCOUNT_RATE", httpapi.DefaultBurstRate), "requests per second one account may sustain; beyond it (and -account-burst) requests answer 429 rate_limited")
	fs.IntVar(&c.accountBurst, "account-burst", envInt("SEOKIT_ACCOUNT_BURST", httpapi.DefaultBurst), "requests one account may send at once after a pause")
	fs.StringVar(&c.callbackSecret, "callback-secret", env("SEOKIT_CALLBACK_SECRET", ""), "master secret of callback signatures and of the credentials and webhook secrets sealed in the store (empty: kept in the file -db + \".secret\" for SQLite, random per process for PostgreSQL)")
	fs.StringVar(&c.smtp.Addr, "smtp-addr", env("SEOKIT_SMTP_ADDR", ""), "SMTP server (host:port) of e-mail alerts; empty: e-mail alert rules are refused")
	fs.StringVar(&c.smtp.From, "smtp-from", env("SEOKIT_SMTP_FROM", "seokit@localhost"), "sender address of e-mail alerts")
	fs.StringVar(&c.smtp.Username, "smtp-user", env("SEOKIT_SMTP_USER", ""), "SMTP user (PLAIN auth)")
	fs.StringVar(&c.smtp.Password, "smtp-password", env("SEOKIT_SMTP_PASSWORD", ""), "SMTP password")
	fs.BoolVar(&c.smtp.TLS, "smtp-tls", envBool("SEOKIT_SMTP_TLS"), "connect to the SMTP server with TLS from the start (port 465)")
	fs.StringVar(&c.sessionKey, "session-key", env("SEOKIT_SESSION_KEY", ""), "secret of dashboard sessions, at least 32 bytes (stored random secret if empty)")
	fs.BoolVar(&c.resetAdmin, "reset-admin-password", false, "give "+adminEmail+" a new random dashboard password and print it once")
	fs.StringVar(&c.dfsLogin, "dataforseo-login", env("DATAFORSEO_LOGIN", ""), "DataForSEO login")
	fs.StringVar(&c.dfsPassword, "dataforseo-password", env("DATAFORSEO_PASSWORD", ""), "DataForSEO password")
	fs.StringVar(&c.serpapiKey, "serpapi-key", env("SERPAPI_KEY", ""), "SerpApi key")
	fs.StringVar(&c.cseKey, "google-cse-key", env("GOOGLE_CSE_KEY", ""), "Google Custom Search API key")
	fs.StringVar(&c.cseCX, "google-cse-cx", env("GOOGLE_CSE_CX", ""), "Google Custom Search engine ID")
	fs.StringVar(&c.gscCredentials, "gsc-credentials", env("GOOGLE_APPLICATION_CREDENTIALS", ""), "service-account key file (JSON) added as a user of the Search Console properties, for index status (URL Inspection)")
	fs.Var(&c.gscGrants, "gsc-grant", "ACCOUNT_ID=PROPERTY[,PROPERTY...]: lets the account inspect these Search Console properties (sc-domain:example.com, https://www.example.org/, * for all) with -gsc-credentials; repeatable. "+
		"The service account reaches every property it was added to, whoever's, so other accounts are refused (403); admin accounts (admin@localhost of the first start, accounts create -admin) may inspect every property")
	fs.StringVar(&c.cruxKey, "crux-key", env("CRUX_API_KEY", ""), "Chrome UX Report API key, for field Web Vitals")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if c.gscGrants == nil {
		if err := c.gscGrants.setAll(os.Getenv("SEOKIT_GSC_GRANTS")); err != nil {
			return nil, fmt.Errorf("SEOKIT_GSC_GRANTS: %w", err)
		}
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if (c.tlsCert == "") != (c.tlsKey == "") {
		return nil, errors.New("-tls-cert and -tls-key go together")
	}
	if c.sessionKey != "" && len(c.sessionKey) < 32 {
		return nil, errors.New("-session-key must have at least 32 bytes")
	}
	if c.freeLimit < 0 || c.proLimit < 0 {
		return nil, errors.New("plan limits must not be negative")
	}
	ad := c.admission
	if ad.MaxPageAnalyses < 1 || ad.MaxOptimizations < 1 || ad.MaxSiteJobs < 1 || ad.AccountConcurrency < 1 || c.memoryBudget < 1 || ad.Wait <= 0 ||
		ad.MCPSessionsPerAccount < 1 || ad.MCPSessions < 1 {
		return nil, errors.New("-max-page-analyses, -max-optimizations, -max-site-jobs, -account-concurrency, -memory-budget, -admission-wait, -mcp-sessions-per-account and -mcp-sessions must be positive")
	}
	if c.renderBrowsers < 1 || c.renderTabs < 1 || c.renderMemory < 1 || c.renderBrowserMemory < 1 {
		return nil, errors.New("-render-browsers, -render-tabs, -render-memory and -render-browser-memory must be positive")
	}
	if c.renderNice == 0 || c.renderNice > 19 {
		return nil, errors.New("-render-nice must be between 1 and 19, or negative for the server's priority")
	}
	if c.crawlRate <= 0 {
		return nil, errors.New("-crawl-rate must be positive")
	}
	if !(c.accountRate > 0) || math.IsInf(c.accountRate, 1) || c.accountBurst < 1 {
		return nil, errors.New("-account-rate must be a positive, finite number of requests per second and -account-burst at least 1")
	}
	if c.frontierDir == "" {
		c.frontierDir = "seokit-frontiers"
		if !isPostgres(c.db) && c.db != ":memory:" {
			c.frontierDir = c.db + "-frontiers"
		}
	}
	if c.logDir == "" {
		c.logDir = "seokit-logs"
		if !isPostgres(c.db) && c.db != ":memory:" {
			c.logDir = c.db + "-logs"
		}
	}
	if c.memoryLimit < 0 {
		return nil, errors.New("-memory-limit must not be negative")
	}
	c.admission.MemoryBudget = int64(c.memoryBudget) << 20
	if c.jobTimeout < 0 {
		return nil, errors.New("-job-timeout must not be negative")
	}
	switch c.jobs {
	case "local":
		if c.jobWorkers < 1 {
			return nil, errors.New("-job-workers must be at least 1 with -jobs local")
		}
	case "river":
		if !isPostgres(c.db) {
			return nil, errors.New("-jobs river needs a PostgreSQL -db (postgres://...)")
		}
		if c.callbackSecret == "" {
			return nil, errors.New("-jobs river needs -callback-secret, the same on every instance")
		}
		if c.jobWorkers < 0 {
			return nil, errors.New("-job-workers must not be negative")
		}
	default:
		return nil, fmt.Errorf("-jobs must be local or river, not %q", c.jobs)
	}
	return &c, nil
}

// describeFile names a store for people: an SQLite path made absolute, a
// postgres:// DSN without its password.
func describeFile(dsn string) string {
	if isPostgres(dsn) {
		if u, err := url.Parse(dsn); err == nil {
			return u.Redacted()
		}
		return "postgres://..."
	}
	if dsn == ":memory:" {
		return dsn
	}
	if abs, err := filepath.Abs(dsn); err == nil {
		return abs
	}
	return dsn
}

// listenURL is the URL of a listen address: "http://127.0.0.1:8080" for
// "127.0.0.1:8080", 127.0.0.1 for an empty or unspecified host.
func listenURL(addr string, tls bool) string {
	scheme := "http"
	if tls {
		scheme = "https"
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return scheme + "://" + addr
	}
	if a, err := netip.ParseAddr(host); host == "" || err == nil && a.IsUnspecified() {
		host = "127.0.0.1"
	}
	return scheme + "://" + net.JoinHostPort(host, port)
}

// loopbackAddr reports whether a listen address binds loopback only.
func loopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	a, err := netip.ParseAddr(host)
	return err == nil && a.IsLoopback()
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "accounts" {
		return runAccounts(ctx, args[1:], os.Stdin, stdout, stderr)
	}
	c, err := parse(args, stderr)
	if err != nil {
		return err
	}
	var proxies []netip.Prefix
	for p := range strings.SplitSeq(c.proxies, ",") {
		if p = strings.TrimSpace(p); p == "" {
			continue
		}
		pr, err := netip.ParsePrefix(p)
		if err != nil {
			a, aerr := netip.ParseAddr(p)
			if aerr != nil {
				return fmt.Errorf("-trusted-proxy: %q is not a CIDR or address", p)
			}
			pr = netip.PrefixFrom(a, a.BitLen())
		}
		proxies = append(proxies, pr)
	}
	if c.tlsCert == "" && !loopbackAddr(c.addr) && len(proxies) == 0 {
		return fmt.Errorf("refusing plain HTTP on %s: give -tls-cert and -tls-key, listen on loopback, or name the TLS proxy with -trusted-proxy", c.addr)
	}
	logger := slog.New(slog.NewTextHandler(stderr, nil))
	if _, set := os.LookupEnv("GOMEMLIMIT"); !set && c.memoryLimit > 0 {
		debug.SetMemoryLimit(int64(c.memoryLimit) << 20)
	}
	publicURL := c.publicURL
	if publicURL == "" {
		publicURL = listenURL(c.addr, c.tlsCert != "")
		if len(proxies) > 0 {
			logger.Warn("server: behind a trusted proxy without -public-url; the OAuth issuer is " + publicURL)
		}
	}

	st, err := sqlstore.Open(ctx, c.db, nil)
	if err != nil {
		return err
	}
	defer st.Close()
	var limiter ratelimit.Limiter
	if c.redisURL != "" {
		rl, err := redislimit.Open(ctx, c.redisURL, nil)
		if err != nil {
			return err
		}
		defer rl.Close()
		limiter = rl
	}
	ks, err := local.Open(ctx, c.dataDB, nil)
	if err != nil {
		return err
	}
	defer ks.Close()
	rs, err := rsql.Open(ctx, c.dataDB, nil)
	if err != nil {
		return err
	}
	defer rs.Close()

	sources := []keywords.Source{ks}
	var serp rankings.Source
	switch {
	case c.dfsLogin != "" && c.dfsPassword != "":
		sources = append(sources, kwdataforseo.New(c.dfsLogin, c.dfsPassword, nil))
		serp = rkdataforseo.New(c.dfsLogin, c.dfsPassword, nil)
	case c.serpapiKey != "":
		serp = serpapi.New(c.serpapiKey, nil)
	case c.cseKey != "" && c.cseCX != "":
		serp = customsearch.New(c.cseKey, c.cseCX, nil)
	}
	secret := []byte(c.sessionKey)
	if len(secret) == 0 {
		if secret, err = storedSecret(ctx, st, "dashboard"); err != nil {
			return err
		}
	}
	// The dashboard is built after the auth server, which asks it who is
	// signed in on the consent page.
	var dash *dashboard.Dashboard
	var api *httpapi.Server
	au, err := auth.New(ctx, st, &auth.Options{
		Logger:  logger,
		BaseURL: publicURL,
		// The dashboard's sign-in is served beside the API: its throttle
		// takes the client address the API computes from -trusted-proxy.
		ClientAddr: func(r *http.Request) string { return api.ClientIP(r) },
		CSRFKey:    derive(secret, "oauth consent csrf"),
		SessionAccount: func(r *http.Request) (string, bool) {
			return dash.SessionAccount(r)
		},
		// The MCP endpoint is a protected resource; MCP clients may name
		// themselves by a client ID metadata document, fetched under the
		// analyses' address policy.
		Resources:     []string{httpapi.MCPPath},
		ClientFetcher: seo.NewFetcher(&seo.FetcherOptions{AllowPrivate: c.allowPrivate, Timeout: 10 * time.Second}),
	})
	if err != nil {
		return err
	}
	tracker := rankings.NewTracker(serp, rs, nil)
	// Each account's dashboard lists the keywords it tracks, including
	// those it checks through GET /v1/rankings.
	watch, err := dashboard.NewSQLWatchlist(ctx, st.DB(), string(st.Dialect()))
	if err != nil {
		return err
	}
	limits := map[store.Plan]int{store.Free: c.freeLimit, store.Pro: c.proLimit}
	opts := &httpapi.Options{
		Store:          st,
		Auth:           au,
		Suggester:      keywords.NewSuggester(sources, nil),
		Tracker:        tracker,
		Reports:        reports.New(rs, ks, nil),
		Limits:         limits,
		Limiter:        limiter,
		BurstRate:      c.accountRate,
		Burst:          c.accountBurst,
		TrustedProxies: proxies,
		AllowPrivate:   c.allowPrivate,
		OnRankings: func(ctx context.Context, accountID string, tracked []rankings.Tracked) error {
			// The keywords join the account's watchlist within its
			// plan's tracked keywords, or none does (400 naming keywords).
			limit, err := api.TrackedKeywords(ctx, accountID)
			if err != nil {
				return err
			}
			return watch.Watch(ctx, accountID, tracked, limit)
		},
		JobWorkers:       c.jobWorkers,
		JobTimeout:       c.jobTimeout, // the local queue's; River's is set below
		ScheduleInterval: c.scheduleInterval,
		Admission:        &c.admission,
		CrawlerOptions:   &crawler.Options{PerHostRate: c.crawlRate},
		Logger:           logger,
		LogDir:           c.logDir,
		// Bots of uploaded logs are verified by their operators' range
		// files (fetched through the safe fetcher, cached a day) and by
		// forward-confirmed reverse DNS with the system's resolver.
		LogVerifier: logs.NewVerifier(&logs.VerifierOptions{Ranges: logs.NewHTTPRanges(seo.NewFetcher(&seo.FetcherOptions{AllowPrivate: c.allowPrivate}), nil)}),
	}
	if err := googleDrivers(ctx, c, opts); err != nil {
		return err
	}
	if pool := startRenderer(ctx, c, logger); pool != nil {
		defer pool.Close() // after the API: its analyses end first
		opts.Renderer = pool
		c.admission.MaxRenders = c.renderBrowsers * c.renderTabs
	}
	if opts.Frontiers, err = frontiers(c); err != nil {
		return err
	}
	switch {
	case c.callbackSecret != "":
		opts.CallbackSecret = []byte(c.callbackSecret)
	case !isPostgres(c.db) && c.db != ":memory:":
		// Kept beside the database, not in it: a copy of the database
		// alone does not open the credentials and secrets sealed with it.
		if opts.CallbackSecret, err = secretFile(c.db + ".secret"); err != nil {
			return err
		}
	default:
		logger.Warn("server: no -callback-secret: a random one for this process; the project credentials and webhook secrets it seals cannot be opened after a restart")
	}
	// Alerts link to the diff in the API and the dashboard.
	opts.PublicURL = publicURL
	if c.smtp.Addr != "" {
		smtp := c.smtp
		opts.SMTP = &smtp
	}
	if serp != nil {
		// Tracked keywords not yet checked that UTC day are re-checked
		// every hour: a periodic job, run by one instance with -jobs river.
		opts.RankRecheckInterval = time.Hour
	}
	if c.jobs == "river" {
		pool, err := pgxpool.New(ctx, c.db)
		if err != nil {
			return fmt.Errorf("-db: %w", err)
		}
		defer pool.Close()
		ro := &riverjobs.Options{Workers: c.jobWorkers, InsertOnly: c.jobWorkers == 0,
			JobTimeout: c.jobTimeout, RescueStuckJobsAfter: c.jobRescue, Logger: logger}
		q, err := riverjobs.New(ctx, pool, ro)
		if err != nil {
			return err
		}
		opts.Queue = q
	}
	api, err = httpapi.New(ctx, opts)
	if err != nil {
		return err
	}
	defer api.Close()
	if err := api.Start(ctx); err != nil {
		return err
	}
	dopts := &dashboard.Options{
		SessionKey: derive(secret, "dashboard session"),
		Secure:     c.tlsCert != "" || len(proxies) > 0,
		Analyses:   api.Analyses(), // charged to the same daily limits and plan caps as the API
		Projects:   api.Projects(),
		Schedules:  api.Schedules(),
		Alerts:     api.Alerts(),
		Logs:       api.Logs(),
		Quota:      api,
		Mutes:      api,
		Tracking:   api.Rankings(), // charged to the same daily limits as GET /v1/rankings
		Watchlist:  watch,
		Accounts:   api.Accounts(), // keys, apps and usage as the API counts them
		Logger:     logger,
	}
	if opts.Inspector != nil {
		dopts.IndexStatus = api.IndexStatus() // charged as POST /v1/analyze/site/{id}/index-status
	}
	if opts.FieldVitals != nil {
		dopts.FieldVitals = api.FieldVitals() // charged as GET /v1/field-vitals
	}
	dash, err = dashboard.New(st, au, dopts)
	if err != nil {
		return err
	}
	// The address is taken before the first start creates the admin
	// account: on an address in use the start fails having created
	// nothing, instead of creating secrets it could never print.
	ln, err := net.Listen("tcp", c.addr)
	if err != nil {
		return fmt.Errorf("-addr %s: %w (give a free address with -addr or SEOKIT_ADDR)", c.addr, err)
	}
	defer ln.Close()
	created, err := bootstrap(ctx, api)
	if err != nil {
		return err
	}
	if created == nil && c.resetAdmin {
		pw, err := resetAdminPassword(ctx, st)
		if err != nil {
			return err
		}
		created = &firstStart{password: pw}
	}

	// Requests run under reqCtx, canceled when the shutdown's grace
	// period ends, so that no analysis holds the process.
	reqCtx, cancelRequests := context.WithCancel(context.Background())
	defer cancelRequests()
	srv := &http.Server{
		BaseContext:       func(net.Listener) context.Context { return reqCtx },
		Handler:           handler(api, dash, ready(st, limiter, newWriteProbe(st, 0))),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		// A page analysis is stopped at httpapi.DefaultPageTimeout (80 s),
		// so its answer, a 503 then, is written within this.
		WriteTimeout:   90 * time.Second,
		IdleTimeout:    120 * time.Second,
		MaxHeaderBytes: 64 << 10,
		ErrorLog:       slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	scheme := "http"
	if c.tlsCert != "" {
		scheme = "https"
	}
	if created != nil && created.key != "" {
		fmt.Fprintf(stdout, "Created account %s (Pro plan). These secrets are shown only once:\nAPI key: %s\nClient ID: %s\nClient secret: %s\n",
			adminEmail, created.key, created.clientID, created.clientSecret)
	}
	if created != nil && created.password != "" {
		fmt.Fprintf(stdout, "Dashboard: %s://%s%s/  email: %s  password: %s\n", scheme, ln.Addr(), dashboard.Prefix, adminEmail, created.password)
	} else {
		fmt.Fprintf(stdout, "Dashboard: %s://%s%s/\n", scheme, ln.Addr(), dashboard.Prefix)
	}
	fmt.Fprintf(stdout, "API store: %s\nKeyword and ranking data: %s (the command line's -db or SEOKIT_DATA_DB must name the same file)\n",
		describeFile(c.db), describeFile(c.dataDB))
	fmt.Fprintf(stdout, "Listening on %s://%s\n", scheme, ln.Addr())
	errc := make(chan error, 1)
	go func() {
		if c.tlsCert != "" {
			errc <- srv.ServeTLS(ln, c.tlsCert, c.tlsKey)
		} else {
			errc <- srv.Serve(ln)
		}
	}()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	return shutdown(srv, api, cancelRequests, logger)
}

// Bounds of a shutdown.
const (
	// shutdownGrace is how long requests in flight may still finish;
	// shutdownDrain how long those canceled then, and the site analyses
	// stopped at once, take to return before the process exits anyway.
	shutdownGrace = 10 * time.Second
	shutdownDrain = 5 * time.Second
	// shutdownBound is the most a shutdown takes, with the stores'
	// closing (README, "Quick start").
	shutdownBound = 20 * time.Second
)

// shutdown stops the server: the listener closes, the job runner stops
// its site analyses (each stays queued or running in the store and
// resumes at the next start), requests in flight get shutdownGrace to
// finish and are then canceled through their context, which every
// analysis honours. It returns within shutdownGrace + 2×shutdownDrain.
func shutdown(srv *http.Server, api *httpapi.Server, cancelRequests context.CancelFunc, logger *slog.Logger) error {
	logger.Info("server: stopping")
	jobs := make(chan error, 1)
	go func() { jobs <- api.Close() }()
	gctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	err := srv.Shutdown(gctx)
	if err != nil {
		logger.Warn("server: requests still running after the grace period; canceling them", "grace", shutdownGrace)
		cancelRequests()
		dctx, cancel := context.WithTimeout(context.Background(), shutdownDrain)
		defer cancel()
		if err = srv.Shutdown(dctx); err != nil {
			logger.Warn("server: requests did not return; closing their connections", "err", err)
			err = srv.Close()
		}
	}
	select {
	case jerr := <-jobs:
		if jerr != nil {
			logger.Warn("server: job runner stopped with an error", "err", jerr)
		}
	case <-time.After(shutdownDrain):
		logger.Warn("server: site analyses still stopping; they resume at the next start")
	}
	return err
}

// frontiers returns where site analyses keep their crawl state: Redis,
// shared by the instances, with -jobs river and -redis; else one SQLite
// file per job in -frontier-dir.
func frontiers(c *config) (httpapi.Frontiers, error) {
	if c.jobs == "river" && c.redisURL != "" {
		ro, err := redis.ParseURL(c.redisURL)
		if err != nil {
			return nil, fmt.Errorf("-redis: %w", err)
		}
		// The client lives as long as the process.
		return redisfrontier.NewCrawls(redis.NewClient(ro), &redisfrontier.Options{Lease: frontierLease})
	}
	d, err := sqlitefrontier.NewDir(c.frontierDir, nil)
	if err != nil {
		return nil, fmt.Errorf("-frontier-dir: %w", err)
	}
	return d, nil
}

// frontierLease is how long a killed instance's pages in flight stay
// leased to it before another worker of the shared crawl takes them.
const frontierLease = 20 * time.Second

var (
	_ httpapi.Frontiers = (*sqlitefrontier.Dir)(nil)
	_ httpapi.Frontiers = (*redisfrontier.Crawls)(nil)
	_ httpapi.HostGates = (*redisfrontier.Crawls)(nil)
)

// defaultMemoryLimit is the Go soft memory limit in MiB: below 1 GB, with
// room for what the runtime does not count.
const defaultMemoryLimit = 900

// adminEmail is the address of the account created on the first start.
const adminEmail = "admin@localhost"

// firstStart holds the secrets of the first start, printed once.
type firstStart struct {
	key, clientID, clientSecret, password string
}

// bootstrap creates the admin account, with a random dashboard password,
// an API key and an API client when the store has no account yet, and
// returns the secrets to print once; nil when accounts exist.
func bootstrap(ctx context.Context, api *httpapi.Server) (*firstStart, error) {
	n, err := api.Store().CountAccounts(ctx)
	if err != nil {
		return nil, err
	}
	if n > 0 {
		return nil, nil
	}
	a := api.Auth()
	pw := randomPassword()
	acct, err := a.CreateAccount(ctx, adminEmail, "Admin", pw, store.Pro) // stored as an argon2id hash
	if errors.Is(err, store.ErrConflict) {
		return nil, nil // another instance sharing the database started first
	}
	if err != nil {
		return nil, fmt.Errorf("create admin account: %w", err)
	}
	acct.Admin = true
	if err := api.Store().UpdateAccount(ctx, acct); err != nil {
		return nil, err
	}
	key, _, err := a.CreateAPIKey(ctx, acct.ID, "admin", []string{auth.ScopeRead, auth.ScopeWrite}, time.Time{})
	if err != nil {
		return nil, err
	}
	secret, client, err := a.CreateClient(ctx, acct.ID, "admin", nil, []string{auth.ScopeRead, auth.ScopeWrite})
	if err != nil {
		return nil, err
	}
	return &firstStart{key: key, clientID: client.ID, clientSecret: secret, password: pw}, nil
}

// resetAdminPassword sets a new random password on the admin account.
func resetAdminPassword(ctx context.Context, st store.Store) (string, error) {
	acct, err := st.AccountByEmail(ctx, adminEmail)
	if err != nil {
		return "", fmt.Errorf("-reset-admin-password: %w", err)
	}
	pw := randomPassword()
	if acct.PasswordHash, err = auth.HashPassword(pw); err != nil {
		return "", err
	}
	if err := st.UpdateAccount(ctx, acct); err != nil {
		return "", fmt.Errorf("-reset-admin-password: %w", err)
	}
	return pw, nil
}

// randomPassword returns 18 random bytes (144 bits) as 24 characters of
// base64url.
func randomPassword() string {
	b := make([]byte, 18)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// secretFile returns the secret kept in the file at path (mode 0600),
// creating it with 32 random bytes the first time.
func secretFile(path string) ([]byte, error) {
	if b, err := os.ReadFile(path); err == nil {
		s, err := base64.RawStdEncoding.DecodeString(strings.TrimSpace(string(b)))
		if err != nil || len(s) < 32 {
			return nil, fmt.Errorf("secret file %s is damaged (what it sealed cannot be opened without it)", path)
		}
		return s, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read secret file: %w", err)
	}
	s := make([]byte, 32)
	rand.Read(s)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return secretFile(path) // another instance made it first
	}
	if err != nil {
		return nil, fmt.Errorf("create secret file: %w", err)
	}
	if _, err := f.WriteString(base64.RawStdEncoding.EncodeToString(s) + "\n"); err != nil {
		f.Close()
		return nil, fmt.Errorf("write secret file: %w", err)
	}
	if err := f.Close(); err != nil {
		return nil, fmt.Errorf("write secret file: %w", err)
	}
	return s, nil
}

// storedSecret returns the random 32-byte secret name kept in the API
// database, creating it on the first call. Concurrent first starts agree on
// one secret (the insert that loses is ignored).
func storedSecret(ctx context.Context, st *sqlstore.Store, name string) ([]byte, error) {
	db := st.DB()
	ph := func(n int) string {
		if st.Dialect() == sqlstore.Postgres {
			return "$" + strconv.Itoa(n)
		}
		return "?"
	}
	if _, err := db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS seokit_server_secrets (name TEXT PRIMARY KEY, value TEXT NOT NULL)`); err != nil {
		return nil, fmt.Errorf("create secrets table: %w", err)
	}
	b := make([]byte, 32)
	rand.Read(b)
	if _, err := db.ExecContext(ctx, `INSERT INTO seokit_server_secrets (name, value) VALUES (`+ph(1)+`, `+ph(2)+`) ON CONFLICT DO NOTHING`,
		name, base64.RawStdEncoding.EncodeToString(b)); err != nil {
		return nil, fmt.Errorf("store %s secret: %w", name, err)
	}
	var v string
	if err := db.QueryRowContext(ctx, `SELECT value FROM seokit_server_secrets WHERE name = `+ph(1), name).Scan(&v); err != nil {
		return nil, fmt.Errorf("read %s secret: %w", name, err)
	}
	secret, err := base64.RawStdEncoding.DecodeString(v)
	if err != nil || len(secret) < 32 {
		return nil, fmt.Errorf("stored %s secret is damaged; delete its row of seokit_server_secrets to make a new one (signs everyone out)", name)
	}
	return secret, nil
}

// derive returns a 32-byte key for purpose from secret (HMAC-SHA-256), so
// one secret gives independent session and CSRF keys.
func derive(secret []byte, purpose string) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte("seokit " + purpose))
	return m.Sum(nil)
}

// handler routes the dashboard, a redirect from the root to it, and
// everything else to the API. Successful GET /v1/rankings calls add their
// keywords to the caller's dashboard watchlist, so keywords tracked through
// the API show on the caller's rankings page.
func handler(api http.Handler, dash *dashboard.Dashboard, ready http.Handler) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /healthz", ready)
	mux.Handle(dashboard.Prefix+"/", dash)
	mux.Handle(dashboard.Prefix, dash)
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, dashboard.Prefix+"/", http.StatusFound)
	})
	mux.Handle("/", api)
	return mux
}

// startRenderer starts the browser pool of options.render, its every
// request under the address policy of raw fetches (-allow-private). When no
// browser starts it logs one line and returns nil: the server runs without
// rendering (503 rendering_unavailable) and raw analysis works.
func startRenderer(ctx context.Context, c *config, logger *slog.Logger) *chromium.Pool {
	sctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	pool, err := chromium.New(sctx, &chromium.Options{
		ExecPath: c.chromium, Browsers: c.renderBrowsers, Tabs: c.renderTabs,
		MaxRenderMemory: int64(c.renderMemory) << 20, MaxBrowserMemory: int64(c.renderBrowserMemory) << 20,
		Nice: c.renderNice, NoSandbox: c.renderNoSandbox, AxePath: c.axe,
		Fetcher: seo.NewFetcher(&seo.FetcherOptions{AllowPrivate: c.allowPrivate, Timeout: 10 * time.Second}),
	})
	if err != nil {
		logger.Warn("rendering unavailable: " + err.Error() + "; raw analysis works")
		return nil
	}
	if pool.Sandbox() == chromium.SandboxOff {
		logger.Warn("rendering without Chromium's sandbox (-render-no-sandbox): a renderer exploit in a hostile page runs with the browser's rights", "uid", os.Geteuid())
	}
	if err := pool.A11yAvailable(); err != nil {
		logger.Warn("accessibility audits unavailable (options.a11y reports pages as not checked): " + err.Error())
	}
	logger.Info("rendering available", "browsers", c.renderBrowsers, "tabs", c.renderTabs, "sandbox", pool.Sandbox(),
		"renderMemoryMiB", c.renderMemory, "browserMemoryMiB", c.renderBrowserMemory, "nice", c.renderNice)
	return pool
}
