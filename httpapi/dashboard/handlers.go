package dashboard

import (
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/seokit/seokit/httpapi/auth"
	"github.com/seokit/seokit/httpapi/service"
	"github.com/seokit/seokit/httpapi/store"
)

type loginView struct {
	Email string
	Next  string
}

func (d *Dashboard) loginPage(w http.ResponseWriter, r *http.Request) {
	if s, err := d.session(r); err == nil && s != nil {
		http.Redirect(w, r, safeNext(r.URL.Query().Get("next")), http.StatusSeeOther)
		return
	}
	d.render(w, r, http.StatusOK, "login", &view{
		Title: "Sign in", CSRF: d.loginCSRF(w, r),
		P: &loginView{Next: safeNext(r.URL.Query().Get("next"))},
	})
}

func (d *Dashboard) login(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 16<<10)
	if err := r.ParseForm(); err != nil {
		d.errorPage(w, r, nil, http.StatusBadRequest, "The form cannot be read.")
		return
	}
	email := strings.ToLower(strings.TrimSpace(r.PostFormValue("email")))
	password := r.PostFormValue("password")
	lv := &loginView{Email: email, Next: safeNext(r.PostFormValue("next"))}
	fail := func(status int, msg string) {
		d.render(w, r, status, "login", &view{Title: "Sign in", CSRF: d.loginCSRF(w, r), Error: msg, P: lv})
	}
	if !d.checkLoginCSRF(r) {
		fail(http.StatusForbidden, "The form has expired or was not sent from this site. Try again.")
		return
	}
	if email == "" || password == "" {
		fail(http.StatusBadRequest, "Enter your email and password.")
		return
	}
	a, err := d.au.SignIn(r, email, password)
	switch {
	case errors.Is(err, auth.ErrThrottled):
		w.Header().Set("Retry-After", strconv.Itoa(auth.RetryAfterSeconds(err)))
		fail(http.StatusTooManyRequests, "Too many failed attempts. Wait a minute and try again.")
		return
	case errors.Is(err, auth.ErrInvalidCredentials):
		fail(http.StatusUnauthorized, "Wrong email or password.")
		return
	case err != nil:
		d.unavailable(w, r, err)
		return
	}
	d.startSession(w, r, a)
	http.Redirect(w, r, lv.Next, http.StatusSeeOther)
}

func (d *Dashboard) logout(w http.ResponseWriter, r *http.Request, s *session, a *store.Account) {
	if err := d.endSession(r.Context(), w, r, s); err != nil {
		d.unavailable(w, r, err)
		return
	}
	http.Redirect(w, r, Prefix+"/login", http.StatusSeeOther)
}

func (d *Dashboard) base(title, nav string, s *session, a *store.Account) *view {
	return &view{Title: title, Nav: nav, Account: a, CSRF: d.csrfToken(s)}
}

type overviewView struct {
	Today, Limit int
	Percent      int
	Keys, Apps   int
	Jobs         []JobRow
	Analyses     bool
}

func (d *Dashboard) overview(w http.ResponseWriter, r *http.Request, s *session, a *store.Account) {
	ctx := r.Context()
	today := day(d.now())
	u, err := d.acc.Usage(ctx, a.ID, today, today)
	if err != nil {
		d.unavailable(w, r, err)
		return
	}
	keys, err := d.acc.Keys(ctx, a.ID)
	if err != nil {
		d.unavailable(w, r, err)
		return
	}
	apps, err := d.acc.Clients(ctx, a.ID)
	if err != nil {
		d.unavailable(w, r, err)
		return
	}
	var jobs []service.Job
	if an := d.opts.Analyses; an != nil {
		if jobs, err = an.List(ctx, a.ID, 5); err != nil {
			d.unavailable(w, r, err)
			return
		}
	}
	ov := &overviewView{Limit: d.limit(r.Context(), a), Analyses: d.opts.Analyses != nil}
	for _, x := range u {
		ov.Today += x.Count
	}
	ov.Percent = percent(ov.Today, ov.Limit)
	for _, k := range keys {
		if k.RevokedAt.IsZero() {
			ov.Keys++
		}
	}
	for _, c := range apps {
		if c.RevokedAt.IsZero() {
			ov.Apps++
		}
	}
	for i := range jobs {
		ov.Jobs = append(ov.Jobs, NewJobRow(&jobs[i]))
	}
	v := d.base("Overview", "overview", s, a)
	v.P = ov
	d.render(w, r, http.StatusOK, "overview", v)
}

func percent(n, of int) int {
	if of <= 0 {
		return 0
	}
	return min(100, n*100/of)
}

func day(t time.Time) time.Time {
	y, m, dd := t.UTC().Date()
	return time.Date(y, m, dd, 0, 0, 0, 0, time.UTC)
}

// ---- API keys ----

type keyRow struct {
	store.APIKey
	Active  bool
	Expired bool
}

type keysView struct {
	Keys        []keyRow
	Operations  []string
	NewKey      string // shown once
	NewKeyName  string
	FormName    string
	FormPerms   []string
	FormExpires string
}

func (d *Dashboard) keysView(r *http.Request, a *store.Account) (*keysView, error) {
	keys, err := d.acc.Keys(r.Context(), a.ID)
	if err != nil {
		return nil, err
	}
	kv := &keysView{Operations: auth.Operations, FormPerms: []string{auth.ScopeRead}, FormExpires: "never"}
	now := d.now()
	for _, k := range keys {
		row := keyRow{APIKey: k}
		row.Expired = !k.ExpiresAt.IsZero() && !now.Before(k.ExpiresAt)
		row.Active = k.RevokedAt.IsZero() && !row.Expired
		kv.Keys = append(kv.Keys, row)
	}
	return kv, nil
}

func (d *Dashboard) keysPage(w http.ResponseWriter, r *http.Request, s *session, a *store.Account) {
	kv, err := d.keysView(r, a)
	if err != nil {
		d.unavailable(w, r, err)
		return
	}
	v := d.base("API keys", "keys", s, a)
	v.P = kv
	switch r.URL.Query().Get("done") {
	case "revoked":
		v.Notice = "The key was revoked. Requests made with it are now refused."
	}
	d.render(w, r, http.StatusOK, "keys", v)
}

// expiryChoices are the "Expires" options of the new-key form, in days.
var expiryChoices = map[string]int{"never": 0, "7": 7, "30": 30, "90": 90, "365": 365}

func (d *Dashboard) createKey(w http.ResponseWriter, r *http.Request, s *session, a *store.Account) {
	name := strings.TrimSpace(r.PostFormValue("name"))
	perms := r.PostForm["permissions"]
	exp := r.PostFormValue("expires")
	v := d.base("API keys", "keys", s, a)
	fail := func(status int, field, msg string) {
		kv, err := d.keysView(r, a)
		if err != nil {
			d.unavailable(w, r, err)
			return
		}
		kv.FormName, kv.FormPerms, kv.FormExpires = name, perms, exp
		v.P, v.Error, v.Fields = kv, msg, map[string]string{field: msg}
		d.render(w, r, status, "keys", v)
	}
	days, ok := expiryChoices[exp]
	if !ok {
		fail(http.StatusBadRequest, "expires", "expires must be one of never, 7, 30, 90 or 365 days")
		return
	}
	var expires time.Time
	if days > 0 {
		expires = d.now().Add(time.Duration(days) * 24 * time.Hour)
	}
	value, k, err := d.acc.CreateKey(r.Context(), a.ID, name, perms, expires)
	if err != nil {
		if field, msg, ok := fieldError(err); ok {
			fail(http.StatusBadRequest, field, msg)
			return
		}
		var le *store.LimitError
		if errors.As(err, &le) {
			fail(http.StatusConflict, "name", "this account has "+strconv.Itoa(le.Count)+" usable API keys, the most it may have; revoke one to create another")
			return
		}
		d.unavailable(w, r, err)
		return
	}
	kv, err := d.keysView(r, a)
	if err != nil {
		d.unavailable(w, r, err)
		return
	}
	kv.NewKey, kv.NewKeyName = value, k.Name
	v.P = kv
	d.render(w, r, http.StatusCreated, "keys", v)
}

func (d *Dashboard) revokeKey(w http.ResponseWriter, r *http.Request, s *session, a *store.Account) {
	// Through the auth server, which also drops the key from its cache.
	err := d.acc.RevokeKey(r.Context(), a.ID, r.PathValue("id"))
	if isNotFound(err) {
		d.errorPage(w, r, a, http.StatusNotFound, "No such API key.")
		return
	}
	if err != nil {
		d.unavailable(w, r, err)
		return
	}
	http.Redirect(w, r, Prefix+"/keys?done=revoked", http.StatusSeeOther)
}

// ---- OAuth applications ----

type appsView struct {
	Apps       []store.Client
	FormName   string
	FormURIs   string
	FormScopes []string
}

type appView struct {
	App       *store.Client
	NewSecret string // shown once
	Created   bool
}

func (d *Dashboard) activeApps(r *http.Request, a *store.Account) ([]store.Client, error) {
	cs, err := d.acc.Clients(r.Context(), a.ID)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(cs, func(c store.Client) bool { return !c.RevokedAt.IsZero() }), nil
}

func (d *Dashboard) appsPage(w http.ResponseWriter, r *http.Request, s *session, a *store.Account) {
	cs, err := d.activeApps(r, a)
	if err != nil {
		d.unavailable(w, r, err)
		return
	}
	v := d.base("OAuth applications", "apps", s, a)
	v.P = &appsView{Apps: cs, FormScopes: []string{auth.ScopeRead}}
	if r.URL.Query().Get("done") == "deleted" {
		v.Notice = "The application was deleted. Its secret and tokens no longer work."
	}
	d.render(w, r, http.StatusOK, "apps", v)
}

func splitLines(s string) []string {
	var out []string
	for _, l := range strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '\r' }) {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

func (d *Dashboard) createApp(w http.ResponseWriter, r *http.Request, s *session, a *store.Account) {
	name := strings.TrimSpace(r.PostFormValue("name"))
	uris := r.PostFormValue("redirect_uris")
	scopes := r.PostForm["scopes"]
	list := splitLines(uris)
	var err error
	if len(list) == 0 {
		err = fieldErr("redirectUris", "needs at least one redirect URL")
	}
	var secret string
	var c *store.Client
	if err == nil {
		secret, c, err = d.acc.CreateClient(r.Context(), a.ID, name, list, scopes)
	}
	status := http.StatusBadRequest
	if err != nil {
		field, msg, ok := fieldError(err)
		var le *store.LimitError
		if errors.As(err, &le) {
			status, field, msg, ok = http.StatusConflict, "name", "this account has "+strconv.Itoa(le.Count)+
				" OAuth applications, the most it may have; delete one to create another", true
		}
		if !ok {
			d.unavailable(w, r, err)
			return
		}
		cs, lerr := d.activeApps(r, a)
		if lerr != nil {
			d.unavailable(w, r, lerr)
			return
		}
		v := d.base("OAuth applications", "apps", s, a)
		v.P = &appsView{Apps: cs, FormName: name, FormURIs: uris, FormScopes: scopes}
		v.Error, v.Fields = msg, map[string]string{field: msg}
		d.render(w, r, status, "apps", v)
		return
	}
	v := d.base(c.Name, "apps", s, a)
	v.P = &appView{App: c, NewSecret: secret, Created: true}
	d.render(w, r, http.StatusCreated, "app", v)
}

func (d *Dashboard) ownApp(w http.ResponseWriter, r *http.Request, a *store.Account) (*store.Client, bool) {
	c, err := d.acc.Client(r.Context(), a.ID, r.PathValue("id"))
	if isNotFound(err) {
		d.errorPage(w, r, a, http.StatusNotFound, "No such application.")
		return nil, false
	}
	if err != nil {
		d.unavailable(w, r, err)
		return nil, false
	}
	return c, true
}

func (d *Dashboard) appPage(w http.ResponseWriter, r *http.Request, s *session, a *store.Account) {
	c, ok := d.ownApp(w, r, a)
	if !ok {
		return
	}
	v := d.base(c.Name, "apps", s, a)
	v.P = &appView{App: c}
	d.render(w, r, http.StatusOK, "app", v)
}

func (d *Dashboard) rotateApp(w http.ResponseWriter, r *http.Request, s *session, a *store.Account) {
	c, ok := d.ownApp(w, r, a)
	if !ok {
		return
	}
	secret, err := d.acc.RotateClientSecret(r.Context(), a.ID, c.ID)
	if err != nil {
		if isNotFound(err) {
			d.errorPage(w, r, a, http.StatusNotFound, "No such application.")
			return
		}
		d.unavailable(w, r, err)
		return
	}
	v := d.base(c.Name, "apps", s, a)
	v.P = &appView{App: c, NewSecret: secret}
	v.Notice = "A new client secret was generated. The old one no longer works."
	d.render(w, r, http.StatusOK, "app", v)
}

func (d *Dashboard) deleteApp(w http.ResponseWriter, r *http.Request, s *session, a *store.Account) {
	err := d.acc.DeleteClient(r.Context(), a.ID, r.PathValue("id"))
	if isNotFound(err) {
		d.errorPage(w, r, a, http.StatusNotFound, "No such application.")
		return
	}
	if err != nil {
		d.unavailable(w, r, err)
		return
	}
	http.Redirect(w, r, Prefix+"/apps?done=deleted", http.StatusSeeOther)
}

// ---- usage ----

type usageView struct {
	Today, Limit, Percent int
	Plan                  store.Plan
	Total                 int
	Chart                 *barChart
	Days                  []store.Usage
	ResetsAt              time.Time
}

func (d *Dashboard) usagePage(w http.ResponseWriter, r *http.Request, s *session, a *store.Account) {
	today := day(d.now())
	from := today.AddDate(0, 0, -29)
	us, err := d.acc.Usage(r.Context(), a.ID, from, today)
	if err != nil {
		d.unavailable(w, r, err)
		return
	}
	counts := map[time.Time]int{}
	for _, u := range us {
		counts[day(u.Day)] += u.Count
	}
	uv := &usageView{Limit: d.limit(r.Context(), a), Plan: a.Plan, ResetsAt: today.AddDate(0, 0, 1)}
	var labels []string
	var values []int
	for i := range 30 {
		dd := from.AddDate(0, 0, i)
		n := counts[dd]
		labels, values = append(labels, dd.Format("01-02")), append(values, n)
		uv.Days = append(uv.Days, store.Usage{Day: dd, Count: n})
		uv.Total += n
	}
	uv.Today = counts[today]
	uv.Percent = percent(uv.Today, uv.Limit)
	uv.Chart = newBarChart("Requests per day, last 30 days (UTC)", "day (UTC)", "requests", labels, values, uv.Limit)
	v := d.base("Usage", "usage", s, a)
	v.P = uv
	d.render(w, r, http.StatusOK, "usage", v)
}
