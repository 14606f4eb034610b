package dashboard

import (
	"context"
	"crypto/rand"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/seokit/seokit/crawler/crawlreport"
	"github.com/seokit/seokit/httpapi/auth"
	"github.com/seokit/seokit/httpapi/internal/ui"
	"github.com/seokit/seokit/httpapi/service"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/internal/htmltable"
)

// Prefix is the path under which the dashboard serves every page.
const Prefix = "/dashboard"

// DefaultSessionTTL is how long a sign-in lasts without Options.SessionTTL.
const DefaultSessionTTL = 12 * time.Hour

// Quota is the server's one account of what each account may spend, as
// the pages show it; the actions are charged by their services
// (service.Analyses.Submit, service.Rankings.Track). The API server
// (httpapi.Server) implements it.
type Quota interface {
	// DailyLimit returns the account's daily request limit.
	DailyLimit(ctx context.Context, accountID string) (int, error)
	// MaxSitePages returns the most pages the account's site analyses
	// may crawl.
	MaxSitePages(ctx context.Context, accountID string) (int, error)
	// TrackedKeywords returns the most keywords the account may track
	// (plans.Limits.TrackedKeywords).
	TrackedKeywords(ctx context.Context, accountID string) (int, error)
}

// Refusal is implemented by the errors of actions refused by a limit: the
// HTTP status to answer with (429 over a limit, 503 when the server is
// saturated) and a message for the user.
type Refusal interface {
	error
	StatusCode() int
	PublicMessage() string
}

// Usage reads an account's daily request counts in [from, to] (UTC days,
// days without requests left out). store.Store and ratelimit.Limiter
// implement it.
type Usage interface {
	Usage(ctx context.Context, accountID string, from, to time.Time) ([]store.Usage, error)
}

var _ Usage = (store.Store)(nil)

// Options configures a Dashboard. The zero value works: a random session
// key (sign-ins do not survive a restart), TLS detected per request.
type Options struct {
	// SessionKey signs session cookies and CSRF tokens (HMAC-SHA-256); at
	// least 32 bytes. Nil means a random key per Dashboard.
	SessionKey []byte
	// SessionTTL is how long a sign-in lasts; zero means 12 hours.
	SessionTTL time.Duration
	// Secure marks cookies Secure even when the request did not arrive over
	// TLS (behind a TLS-terminating proxy). Requests over TLS always get
	// Secure cookies.
	Secure bool
	// Quota gives the plan limits shown; without one they show as
	// unknown. Nothing the dashboard does is charged through it: each
	// service charges its own actions.
	Quota Quota
	// Usage reads the daily request counts shown on the overview and usage
	// pages when Accounts is nil. Nil means the store's counters
	// (store.Limits). With several API instances sharing limits in Redis,
	// pass the API's ratelimit.Limiter, which has the same method.
	Usage Usage
	// Accounts is the accounts service (httpapi.Server.Accounts): the
	// overview, keys, apps, account, usage and admin pages read and
	// change accounts, keys, applications and usage through it. Nil
	// means service.NewAccounts over the store, the auth server and
	// Usage.
	Accounts service.Accounts
	// Analyses is the site analyses service (httpapi.Server.Analyses): the
	// analyses pages list, start, show and cancel through it, and it
	// charges each analysis to the account's quota. Nil hides them.
	Analyses service.Analyses
	// Projects is the projects service (httpapi.Server.Projects): the
	// project pages list, create, show, change and delete projects and
	// read their history through it. Nil hides them.
	Projects service.Projects
	// Schedules and Alerts are the schedules and alerts services
	// (httpapi.Server.Schedules, Alerts) of the project page's sections;
	// nil shows them as not available.
	Schedules service.Schedules
	Alerts    service.Alerts
	// IndexStatus and FieldVitals are the index status and field Web
	// Vitals services (httpapi.Server.IndexStatus, FieldVitals) of the
	// analysis's "Index status and field data" page; nil shows each as
	// not available. Both charge the account's quota themselves.
	IndexStatus service.IndexStatus
	FieldVitals service.FieldVitals
	// Logs is the log files service (httpapi.Server.Logs): a project's
	// access-log pages list its uploads and show their reports through
	// it. Nil shows them as not available.
	Logs service.Logs
	// Mutes keeps the check IDs muted per domain, shown and changed on
	// the analysis page; the API server implements it. Without one the
	// mute controls are hidden.
	Mutes Mutes
	// Tracking is the rankings service (httpapi.Server.Rankings); nil
	// hides the rankings page. The page reads the history of the
	// account's tracked keywords through it (service.Rankings.History);
	// its "Track keywords" goes through it, which charges the action to
	// the account's daily quota, tracks the keywords and checks them at
	// once when a SERP source is configured; and "untrack" stops the
	// re-checks of a keyword no account watches any more
	// (service.Rankings.Untrack).
	Tracking service.Rankings
	// Watchlist keeps which keywords each account tracks: the rankings
	// page shows an account only its own. Nil means a MemoryWatchlist
	// (lost on restart); NewSQLWatchlist keeps it in the API's database.
	Watchlist Watchlist
	// Now returns the current time (tests); nil means time.Now.
	Now func() time.Time
	// Logger receives errors; nil means slog.Default().
	Logger *slog.Logger
}

// Dashboard is the web dashboard: an http.Handler serving every path under
// Prefix. Create it with New.
type Dashboard struct {
	st    Store
	acc   service.Accounts
	watch Watchlist
	au    *auth.Server
	opts  Options
	log   *slog.Logger
	now   func() time.Time
	mux   *http.ServeMux
	h     http.Handler
	pages map[string]*template.Template
}

var _ http.Handler = (*Dashboard)(nil)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// startTime is the Last-Modified of the embedded stylesheet.
var startTime = time.Now()

// Store is the part of the API's store the dashboard is built over: the
// revocation of sessions, which it reads and writes itself, and what the
// default accounts service (service.NewAccounts) needs. Accounts, keys,
// apps and usage are read through Options.Accounts; site analyses,
// projects, schedules and alerts through their services. store.Store
// implements it.
type Store interface {
	store.Accounts
	store.Keys
	store.Clients
	SessionRevocations
	store.Limits
}

// SessionRevocations records signed-out sessions (store.Grants' token
// revocations): a session cookie is a token the dashboard revokes.
type SessionRevocations interface {
	RevokeToken(ctx context.Context, jti string, expires time.Time) error
	TokenRevoked(ctx context.Context, jti string) (bool, error)
}

var _ Store = (store.Store)(nil)

// New returns a Dashboard over the API's store and authenticator.
func New(st Store, au *auth.Server, opts *Options) (*Dashboard, error) {
	if st == nil {
		return nil, errors.New("dashboard: nil store")
	}
	if au == nil {
		return nil, errors.New("dashboard: nil auth server")
	}
	d := &Dashboard{st: st, au: au}
	if opts != nil {
		d.opts = *opts
	}
	o := &d.opts
	if len(o.SessionKey) == 0 {
		o.SessionKey = make([]byte, 32)
		rand.Read(o.SessionKey)
	} else if len(o.SessionKey) < 32 {
		return nil, errors.New("dashboard: options: SessionKey must have at least 32 bytes")
	}
	if o.SessionTTL <= 0 {
		o.SessionTTL = DefaultSessionTTL
	}
	d.watch = o.Watchlist
	if d.watch == nil {
		d.watch = NewMemoryWatchlist()
	}
	d.acc = o.Accounts
	if d.acc == nil {
		var err error
		if d.acc, err = service.NewAccounts(st, au, o.Usage); err != nil {
			return nil, fmt.Errorf("dashboard: %w", err)
		}
	}
	d.now = o.Now
	if d.now == nil {
		d.now = time.Now
	}
	d.log = o.Logger
	if d.log == nil {
		d.log = slog.Default()
	}
	if err := d.parseTemplates(); err != nil {
		return nil, err
	}
	d.routes()
	return d, nil
}

func (d *Dashboard) parseTemplates() error {
	base, err := template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html")
	if err != nil {
		return fmt.Errorf("dashboard: parse layout: %w", err)
	}
	names, err := fs.Glob(templateFS, "templates/*.html")
	if err != nil {
		return fmt.Errorf("dashboard: list templates: %w", err)
	}
	d.pages = map[string]*template.Template{}
	for _, n := range names {
		name := strings.TrimPrefix(n, "templates/")
		if name == "layout.html" {
			continue
		}
		t, err := template.Must(base.Clone()).ParseFS(templateFS, n)
		if err != nil {
			return fmt.Errorf("dashboard: parse %s: %w", name, err)
		}
		d.pages[strings.TrimSuffix(name, ".html")] = t
	}
	return nil
}

// ServeHTTP serves the dashboard.
func (d *Dashboard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	d.h.ServeHTTP(w, r)
}

func (d *Dashboard) routes() {
	m := http.NewServeMux()
	static, _ := fs.Sub(staticFS, "static")
	fileServer := http.StripPrefix(Prefix+"/static/", http.FileServerFS(static))
	m.Handle("GET "+Prefix+"/static/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=3600")
		fileServer.ServeHTTP(w, r)
	}))
	// The stylesheet is shared with the OAuth consent page (package ui).
	m.HandleFunc("GET "+Prefix+"/static/app.css", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=3600")
		http.ServeContent(w, r, "app.css", startTime, strings.NewReader(ui.CSS))
	})
	// The report tables' script and stylesheet are shared with the
	// crawler's HTML report (package htmltable).
	for name, body := range map[string]string{"table.js": htmltable.JS, "table.css": htmltable.CSS} {
		m.HandleFunc("GET "+Prefix+"/static/"+name, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Cache-Control", "public, max-age=3600")
			http.ServeContent(w, r, name, startTime, strings.NewReader(body))
		})
	}
	m.HandleFunc("GET "+Prefix+"/login", d.loginPage)
	m.HandleFunc("POST "+Prefix+"/login", d.login)
	m.HandleFunc("GET "+Prefix+"/{$}", d.signedIn(d.overview))
	m.HandleFunc("GET "+Prefix, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, Prefix+"/", http.StatusSeeOther)
	})
	m.HandleFunc("POST "+Prefix+"/logout", d.signedIn(d.logout))
	m.HandleFunc("GET "+Prefix+"/keys", d.signedIn(d.keysPage))
	m.HandleFunc("POST "+Prefix+"/keys", d.signedIn(d.createKey))
	m.HandleFunc("POST "+Prefix+"/keys/{id}/revoke", d.signedIn(d.revokeKey))
	m.HandleFunc("GET "+Prefix+"/apps", d.signedIn(d.appsPage))
	m.HandleFunc("POST "+Prefix+"/apps", d.signedIn(d.createApp))
	m.HandleFunc("GET "+Prefix+"/apps/{id}", d.signedIn(d.appPage))
	m.HandleFunc("POST "+Prefix+"/apps/{id}/rotate", d.signedIn(d.rotateApp))
	m.HandleFunc("POST "+Prefix+"/apps/{id}/delete", d.signedIn(d.deleteApp))
	m.HandleFunc("GET "+Prefix+"/usage", d.signedIn(d.usagePage))
	m.HandleFunc("GET "+Prefix+"/analyses", d.signedIn(d.analysesPage))
	m.HandleFunc("POST "+Prefix+"/analyses", d.signedIn(d.startAnalysis))
	m.HandleFunc("GET "+Prefix+"/analyses/{id}", d.signedIn(d.analysisPage))
	m.HandleFunc("GET "+Prefix+"/analyses/{id}/progress", d.signedIn(d.analysisProgress))
	m.HandleFunc("GET "+Prefix+"/analyses/{id}/page", d.signedIn(d.analysisPageDetail))
	m.HandleFunc("GET "+Prefix+"/analyses/{id}/report.html", d.signedIn(d.analysisReportHTML))
	m.HandleFunc("GET "+Prefix+"/analyses/{id}/screenshot", d.signedIn(d.analysisScreenshot))
	m.HandleFunc("POST "+Prefix+"/analyses/{id}/cancel", d.signedIn(d.cancelAnalysis))
	m.HandleFunc("POST "+Prefix+"/analyses/{id}/mutes", d.signedIn(d.setMute))
	m.HandleFunc("GET "+Prefix+"/analyses/{id}/diff", d.signedIn(d.siteDiff))
	m.HandleFunc("GET "+Prefix+"/analyses/{id}/index", d.signedIn(d.indexFieldPage))
	m.HandleFunc("POST "+Prefix+"/analyses/{id}/index", d.signedIn(d.startIndexStatus))
	m.HandleFunc("GET "+Prefix+"/analyses/{id}/diff.html", d.signedIn(d.siteDiffHTML))
	m.HandleFunc("GET "+Prefix+"/projects", d.signedIn(d.projectsPage))
	m.HandleFunc("POST "+Prefix+"/projects", d.signedIn(d.createProject))
	m.HandleFunc("GET "+Prefix+"/projects/{id}", d.signedIn(d.projectPage))
	m.HandleFunc("POST "+Prefix+"/projects/{id}", d.signedIn(d.updateProject))
	m.HandleFunc("POST "+Prefix+"/projects/{id}/delete", d.signedIn(d.deleteProject))
	m.HandleFunc("POST "+Prefix+"/projects/{id}/run", d.signedIn(d.runProject))
	m.HandleFunc("GET "+Prefix+"/projects/{id}/field", d.signedIn(d.projectFieldPage))
	m.HandleFunc("POST "+Prefix+"/projects/{id}/schedules", d.signedIn(d.createSchedule))
	m.HandleFunc("POST "+Prefix+"/projects/{id}/schedules/{sid}", d.signedIn(d.updateSchedule))
	m.HandleFunc("POST "+Prefix+"/projects/{id}/schedules/{sid}/delete", d.signedIn(d.deleteSchedule))
	m.HandleFunc("POST "+Prefix+"/projects/{id}/alerts", d.signedIn(d.createAlert))
	m.HandleFunc("POST "+Prefix+"/projects/{id}/alerts/{aid}", d.signedIn(d.updateAlert))
	m.HandleFunc("POST "+Prefix+"/projects/{id}/alerts/{aid}/delete", d.signedIn(d.deleteAlert))
	m.HandleFunc("POST "+Prefix+"/projects/{id}/alerts/{aid}/test", d.signedIn(d.testAlert))
	m.HandleFunc("GET "+Prefix+"/projects/{id}/logs", d.signedIn(d.logsPage))
	m.HandleFunc("GET "+Prefix+"/projects/{id}/logs/{lid}", d.signedIn(d.logReportPage))
	m.HandleFunc("POST "+Prefix+"/projects/{id}/logs", d.signedInUpload(d.uploadLog))
	m.HandleFunc("GET "+Prefix+"/rankings", d.signedIn(d.rankingsPage))
	m.HandleFunc("POST "+Prefix+"/rankings", d.signedIn(d.trackKeywords))
	m.HandleFunc("POST "+Prefix+"/rankings/untrack", d.signedIn(d.untrackKeyword))
	m.HandleFunc("GET "+Prefix+"/account", d.signedIn(d.accountPage))
	m.HandleFunc("POST "+Prefix+"/account/password", d.signedIn(d.changePassword))
	m.HandleFunc("GET "+Prefix+"/admin/accounts", d.signedIn(d.adminOnly(d.adminPage)))
	m.HandleFunc("POST "+Prefix+"/admin/accounts", d.signedIn(d.adminOnly(d.createAccount)))
	m.HandleFunc("POST "+Prefix+"/admin/accounts/{id}/plan", d.signedIn(d.adminOnly(d.setPlan)))
	m.HandleFunc("POST "+Prefix+"/admin/accounts/{id}/password", d.signedIn(d.adminOnly(d.resetPassword)))
	m.HandleFunc(Prefix+"/", func(w http.ResponseWriter, r *http.Request) {
		d.errorPage(w, r, nil, http.StatusNotFound, "This page does not exist.")
	})
	d.mux = m
	cop := http.NewCrossOriginProtection()
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d.errorPage(w, r, nil, http.StatusForbidden, "The form was not sent from this site.")
	}))
	d.h = securityHeaders(cop.Handler(m))
}

// ContentSecurityPolicy is the policy of every dashboard page: scripts,
// styles and images only from the dashboard itself (no inline code), no
// framing, forms only to this site.
const ContentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

// reportPolicy is the policy of the self-contained crawler report: its own
// inline script (by hash) and styles only, sandboxed into an opaque origin
// so nothing in it can reach the dashboard's cookies or navigate it.
var reportPolicy = "sandbox allow-scripts; " + crawlreport.HTMLPolicy + "; frame-ancestors 'none'"

func securityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", ContentSecurityPolicy)
		h.Set("X-Frame-Options", "DENY")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "same-origin")
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		h.Set("Cross-Origin-Resource-Policy", "same-origin")
		h.Set("Permissions-Policy", "camera=(), microphone=(), geolocation=(), interest-cohort=()")
		if !strings.HasPrefix(r.URL.Path, Prefix+"/static/") {
			h.Set("Cache-Control", "no-store")
		}
		next.ServeHTTP(w, r)
	})
}

// trackedLimit returns the most keywords a may track: its plan's, through
// Quota, or MaxWatched without one.
func (d *Dashboard) trackedLimit(ctx context.Context, a *store.Account) (int, error) {
	if d.opts.Quota == nil {
		return MaxWatched, nil
	}
	return d.opts.Quota.TrackedKeywords(ctx, a.ID)
}

// limit returns the daily request limit of a, 0 when unknown (no Quota,
// or it failed: the page shows no limit rather than none at all).
func (d *Dashboard) limit(ctx context.Context, a *store.Account) int {
	if d.opts.Quota == nil {
		return a.DailyLimit // the account's own override, when it has one
	}
	n, err := d.opts.Quota.DailyLimit(ctx, a.ID)
	if err != nil {
		d.log.Warn("dashboard: daily limit", "account", a.ID, "err", err)
		return 0
	}
	return n
}
