package dashboard_test

import (
	"context"
	"encoding/json"
	"fmt"
	"html/template"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/httpapi/auth"
	"github.com/seokit/seokit/httpapi/dashboard"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/rankings"
	"github.com/seokit/seokit/rankings/memstore"
	"github.com/seokit/seokit/seo"
)

func TestNewRejectsBadOptions(t *testing.T) {
	e := newEnv(t, nil)
	cases := []struct {
		name string
		st   store.Store
		au   *auth.Server
		opts *dashboard.Options
	}{
		{"nil store", nil, e.au, nil},
		{"nil auth", e.st, nil, nil},
		{"short session key", e.st, e.au, &dashboard.Options{SessionKey: []byte("short")}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := dashboard.New(tc.st, tc.au, tc.opts); err == nil || !strings.HasPrefix(err.Error(), "dashboard: ") {
				t.Fatalf("New: err = %v, want a dashboard: error", err)
			}
		})
	}
}

func TestSecurityHeaders(t *testing.T) {
	e := newEnv(t, nil)
	c := e.client(t)
	for _, path := range []string{"/dashboard/login", "/dashboard/nope"} {
		resp, _ := get(t, c, e.srv.URL+path)
		h := resp.Header
		checks := map[string]string{
			"Content-Security-Policy": dashboard.ContentSecurityPolicy,
			"X-Frame-Options":         "DENY",
			"X-Content-Type-Options":  "nosniff",
			"Cache-Control":           "no-store",
		}
		for k, want := range checks {
			if got := h.Get(k); got != want {
				t.Errorf("%s: %s = %q, want %q", path, k, got, want)
			}
		}
		for _, d := range []string{"frame-ancestors 'none'", "script-src 'self'", "default-src 'none'"} {
			if !strings.Contains(h.Get("Content-Security-Policy"), d) {
				t.Errorf("%s: CSP lacks %q", path, d)
			}
		}
		if strings.Contains(h.Get("Content-Security-Policy"), "unsafe-inline") {
			t.Errorf("%s: CSP allows unsafe-inline", path)
		}
	}
	resp, body := get(t, c, e.srv.URL+"/dashboard/static/app.css")
	if resp.StatusCode != 200 || !strings.Contains(body, "--accent") {
		t.Fatalf("static css: %d", resp.StatusCode)
	}
}

func TestLogin(t *testing.T) {
	e := newEnv(t, nil)
	cases := []struct {
		name, email, password string
		status                int
	}{
		{"wrong password", testEmail, "wrong password!", http.StatusUnauthorized},
		{"unknown email", "nobody@example.com", testPassword, http.StatusUnauthorized},
		{"empty", "", "", http.StatusBadRequest},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := e.client(t)
			_, body := get(t, c, e.srv.URL+"/dashboard/login")
			resp, body := post(t, c, e.srv.URL+"/dashboard/login", url.Values{
				"csrf_token": {csrfOf(t, body)}, "email": {tc.email}, "password": {tc.password},
			})
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d", resp.StatusCode, tc.status)
			}
			for _, ck := range resp.Cookies() {
				if ck.Name == "seokit_session" && ck.Value != "" {
					t.Fatal("a failed sign-in set a session cookie")
				}
			}
			if !strings.Contains(body, `role="alert"`) {
				t.Fatal("no error message shown")
			}
		})
	}
	t.Run("cookie flags", func(t *testing.T) {
		c := e.client(t)
		_, body := get(t, c, e.srv.URL+"/dashboard/login")
		resp, _ := post(t, c, e.srv.URL+"/dashboard/login", url.Values{
			"csrf_token": {csrfOf(t, body)}, "email": {testEmail}, "password": {testPassword}, "next": {"//evil.example/x"},
		})
		if loc := resp.Header.Get("Location"); loc != "/dashboard/" {
			t.Errorf("open redirect: Location %q", loc)
		}
		var sc *http.Cookie
		for _, ck := range resp.Cookies() {
			if ck.Name == "seokit_session" {
				sc = ck
			}
		}
		if sc == nil || !sc.HttpOnly || sc.SameSite != http.SameSiteLaxMode || sc.Path != "/" {
			t.Fatalf("session cookie %+v", sc)
		}
		if sc.Secure {
			t.Error("Secure set on plain HTTP without Options.Secure")
		}
	})
}

func TestSecureCookieOnTLS(t *testing.T) {
	e := newEnv(t, nil)
	srv := httptest.NewTLSServer(e.mux)
	defer srv.Close()
	c := srv.Client()
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, _ := get(t, c, srv.URL+"/dashboard/login")
	var found bool
	for _, ck := range resp.Cookies() {
		if ck.Name == "seokit_login_csrf" {
			found = true
			if !ck.Secure {
				t.Fatal("cookie over TLS is not Secure")
			}
		}
	}
	if !found {
		t.Fatal("no login CSRF cookie")
	}
}

func TestCSRF(t *testing.T) {
	e := newEnv(t, nil)
	c := e.client(t)
	token := e.login(t, c)
	cases := []struct {
		name   string
		form   url.Values
		header map[string]string
	}{
		{"no token", url.Values{"name": {"k"}, "permissions": {"read"}, "expires": {"never"}}, nil},
		{"wrong token", url.Values{"csrf_token": {"AAAA" + token[4:]}, "name": {"k"}, "permissions": {"read"}, "expires": {"never"}}, nil},
		{"cross-site", url.Values{"csrf_token": {token}, "name": {"k"}, "permissions": {"read"}, "expires": {"never"}},
			map[string]string{"Sec-Fetch-Site": "cross-site"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest("POST", e.srv.URL+"/dashboard/keys", strings.NewReader(tc.form.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			for k, v := range tc.header {
				req.Header.Set(k, v)
			}
			resp, err := c.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusForbidden {
				t.Fatalf("status %d, want 403", resp.StatusCode)
			}
			keys, err := e.st.Keys(context.Background(), e.acct.ID)
			if err != nil || len(keys) != 0 {
				t.Fatalf("keys after rejected form: %v, %v", keys, err)
			}
		})
	}
	t.Run("login form without token", func(t *testing.T) {
		c := e.client(t)
		resp, _ := post(t, c, e.srv.URL+"/dashboard/login", url.Values{"email": {testEmail}, "password": {testPassword}})
		if resp.StatusCode != http.StatusForbidden {
			t.Fatalf("status %d, want 403", resp.StatusCode)
		}
	})
	t.Run("token of another session", func(t *testing.T) {
		other := e.client(t)
		otherToken := e.login(t, other)
		resp, _ := post(t, c, e.srv.URL+"/dashboard/keys", url.Values{"csrf_token": {otherToken}, "name": {"k"}, "permissions": {"read"}, "expires": {"never"}})
		if resp.StatusCode != http.StatusForbidden {
			t.Fatalf("status %d, want 403", resp.StatusCode)
		}
	})
}

func TestSessionExpiry(t *testing.T) {
	e := newEnv(t, nil)
	c := e.client(t)
	e.login(t, c)
	req := httptest.NewRequest("GET", "/v1/oauth/authorize", nil)
	for _, ck := range c.Jar.Cookies(mustURL(t, e.srv.URL)) {
		req.AddCookie(ck)
	}
	if id, ok := e.d.SessionAccount(req); !ok || id != e.acct.ID {
		t.Fatalf("SessionAccount = %q, %v; want %q", id, ok, e.acct.ID)
	}
	e.clock.Add(dashboard.DefaultSessionTTL + time.Second)
	resp, _ := get(t, c, e.srv.URL+"/dashboard/keys")
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(resp.Header.Get("Location"), "/dashboard/login") {
		t.Fatalf("expired session: status %d, location %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	if _, ok := e.d.SessionAccount(req); ok {
		t.Fatal("SessionAccount accepts an expired session")
	}
}

func TestSignOutRevokes(t *testing.T) {
	e := newEnv(t, nil)
	c := e.client(t)
	token := e.login(t, c)
	old := c.Jar.Cookies(mustURL(t, e.srv.URL))
	resp, _ := post(t, c, e.srv.URL+"/dashboard/logout", url.Values{"csrf_token": {token}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("logout: %d", resp.StatusCode)
	}
	// A copy of the cookie taken before signing out no longer works.
	req, _ := http.NewRequest("GET", e.srv.URL+"/dashboard/keys", nil)
	for _, ck := range old {
		req.AddCookie(ck)
	}
	resp, err := e.client(t).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("revoked cookie: status %d, want redirect to sign-in", resp.StatusCode)
	}
	if _, ok := e.d.SessionAccount(req); ok {
		t.Fatal("SessionAccount accepts a signed-out session")
	}
}

func TestTamperedCookie(t *testing.T) {
	e := newEnv(t, nil)
	c := e.client(t)
	e.login(t, c)
	var v string
	for _, ck := range c.Jar.Cookies(mustURL(t, e.srv.URL)) {
		if ck.Name == "seokit_session" {
			v = ck.Value
		}
	}
	cases := map[string]string{
		"flipped signature": v[:len(v)-2] + "AA",
		"no signature":      strings.Split(v, ".")[0],
		"garbage":           "x.y",
		"oversized":         strings.Repeat("A", 5000),
	}
	for name, val := range cases {
		t.Run(name, func(t *testing.T) {
			req := httptest.NewRequest("GET", "/dashboard/", nil)
			req.AddCookie(&http.Cookie{Name: "seokit_session", Value: val})
			if _, ok := e.d.SessionAccount(req); ok {
				t.Fatal("tampered cookie accepted")
			}
		})
	}
}

func TestAPIKeyShownOnce(t *testing.T) {
	e := newEnv(t, nil)
	c := e.client(t)
	token := e.login(t, c)
	resp, body := post(t, c, e.srv.URL+"/dashboard/keys", url.Values{
		"csrf_token": {token}, "name": {"ci script"}, "permissions": {"read", "rankings"}, "expires": {"30"},
	})
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("create key: %d\n%s", resp.StatusCode, body)
	}
	m := strings.Index(body, `value="`+auth.KeyPrefix)
	if m < 0 {
		t.Fatalf("new key not shown:\n%s", body)
	}
	value := body[m+len(`value="`):]
	value = value[:strings.IndexByte(value, '"')]
	if !auth.ValidKeyFormat(value) {
		t.Fatalf("shown key %q is not a valid key", value)
	}
	req := httptest.NewRequest("GET", "/v1/rankings", nil)
	req.Header.Set("X-API-Key", value)
	p, err := e.au.Authenticate(req)
	if err != nil || p.AccountID != e.acct.ID || !p.Allowed(auth.ScopeRead, auth.OpRankings) || p.Allowed(auth.ScopeRead, auth.OpReports) {
		t.Fatalf("Authenticate with the shown key: %+v, %v", p, err)
	}
	_, list := get(t, c, e.srv.URL+"/dashboard/keys")
	if strings.Contains(list, value) {
		t.Fatal("the key value is shown again on the list page")
	}
	if !strings.Contains(list, value[:13]+"…") || !strings.Contains(list, "read, rankings") || !strings.Contains(list, "ci script") {
		t.Fatalf("list lacks prefix, permissions or name:\n%s", list)
	}
	if resp.Header.Get("Cache-Control") != "no-store" {
		t.Fatal("page with the key value may be cached")
	}

	// Revoke: the key stops authenticating.
	keys, _ := e.st.Keys(context.Background(), e.acct.ID)
	resp, _ = post(t, c, e.srv.URL+"/dashboard/keys/"+keys[0].ID+"/revoke", url.Values{"csrf_token": {token}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("revoke: %d", resp.StatusCode)
	}
	if _, err := e.au.Authenticate(req); err == nil {
		t.Fatal("revoked key still authenticates")
	}
}

func TestCreateKeyBadInput(t *testing.T) {
	e := newEnv(t, nil)
	c := e.client(t)
	token := e.login(t, c)
	cases := []struct {
		name  string
		form  url.Values
		field string
	}{
		{"no permissions", url.Values{"name": {"k"}, "expires": {"never"}}, "permissions"},
		{"unknown permission", url.Values{"name": {"k"}, "permissions": {"read", "admin"}, "expires": {"never"}}, "permissions"},
		{"empty name", url.Values{"name": {"  "}, "permissions": {"read"}, "expires": {"never"}}, "name"},
		{"bad expiry", url.Values{"name": {"k"}, "permissions": {"read"}, "expires": {"-3"}}, "expires"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.form.Set("csrf_token", token)
			resp, body := post(t, c, e.srv.URL+"/dashboard/keys", tc.form)
			if resp.StatusCode != http.StatusBadRequest {
				t.Fatalf("status %d, want 400", resp.StatusCode)
			}
			if !strings.Contains(body, `role="alert"`) || !strings.Contains(body, tc.field) {
				t.Fatalf("error does not name %s:\n%s", tc.field, body)
			}
			if keys, _ := e.st.Keys(context.Background(), e.acct.ID); len(keys) != 0 {
				t.Fatal("a key was created")
			}
		})
	}
}

func TestOAuthApps(t *testing.T) {
	e := newEnv(t, nil)
	c := e.client(t)
	token := e.login(t, c)
	bad := []struct{ name, uris string }{
		{"http on public host", "http://app.example.com/cb"},
		{"fragment", "https://app.example.com/cb#x"},
		{"none", ""},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := post(t, c, e.srv.URL+"/dashboard/apps", url.Values{"csrf_token": {token}, "name": {"App"}, "redirect_uris": {tc.uris}, "scopes": {"read"}})
			if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, "redirectUris") {
				t.Fatalf("status %d, body:\n%s", resp.StatusCode, body)
			}
		})
	}
	resp, body := post(t, c, e.srv.URL+"/dashboard/apps", url.Values{"csrf_token": {token}, "name": {"Reporting <b>app</b>"},
		"redirect_uris": {"https://app.example.com/cb\r\nhttp://127.0.0.1:8080/cb"}, "scopes": {"read", "write"}})
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("create: %d\n%s", resp.StatusCode, body)
	}
	if strings.Contains(body, "<b>app</b>") {
		t.Fatal("app name not escaped")
	}
	apps, _ := e.st.Clients(context.Background(), e.acct.ID)
	if len(apps) != 1 || len(apps[0].RedirectURIs) != 2 {
		t.Fatalf("stored apps: %+v", apps)
	}
	secret1 := secretOf(t, body)
	_, page := get(t, c, e.srv.URL+"/dashboard/apps/"+apps[0].ID)
	if strings.Contains(page, secret1) || !strings.Contains(page, apps[0].ID) {
		t.Fatal("app page shows the secret again, or not the client ID")
	}
	resp, body = post(t, c, e.srv.URL+"/dashboard/apps/"+apps[0].ID+"/rotate", url.Values{"csrf_token": {token}})
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("rotate: %d", resp.StatusCode)
	}
	if secret2 := secretOf(t, body); secret2 == secret1 {
		t.Fatal("rotation kept the secret")
	}
	// Another account cannot see or delete it.
	other, err := e.au.CreateAccount(context.Background(), "eve@example.com", "Eve", "another password", store.Free)
	if err != nil {
		t.Fatal(err)
	}
	_ = other
	resp, _ = post(t, c, e.srv.URL+"/dashboard/apps/cli_nope/delete", url.Values{"csrf_token": {token}})
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("delete unknown: %d", resp.StatusCode)
	}
	resp, _ = post(t, c, e.srv.URL+"/dashboard/apps/"+apps[0].ID+"/delete", url.Values{"csrf_token": {token}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("delete: %d", resp.StatusCode)
	}
	if resp, _ := get(t, c, e.srv.URL+"/dashboard/apps/"+apps[0].ID); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("deleted app page: %d", resp.StatusCode)
	}
}

// TestOAuthAppsCapped: an account holds at most store.MaxClients OAuth
// applications, as it holds at most store.MaxKeys API keys; the next is
// refused 409 saying so, with nothing stored, and deleting one frees its
// place. The dashboard created any number (each a stored row read by
// every Applications page).
func TestOAuthAppsCapped(t *testing.T) {
	e := newEnv(t, nil)
	c := e.client(t)
	token := e.login(t, c)
	create := func(i int) (*http.Response, string) {
		return post(t, c, e.srv.URL+"/dashboard/apps", url.Values{"csrf_token": {token}, "name": {"App " + strconv.Itoa(i)},
			"redirect_uris": {"https://app.example.com/cb"}, "scopes": {"read"}})
	}
	for i := range store.MaxClients {
		if resp, body := create(i); resp.StatusCode != http.StatusCreated {
			t.Fatalf("app %d: status %d\n%.500s", i+1, resp.StatusCode, body)
		}
	}
	resp, body := create(store.MaxClients)
	if resp.StatusCode != http.StatusConflict || !strings.Contains(body, "the most it may have") {
		t.Fatalf("app past the cap: status %d, want 409 saying the account has the most it may have\n%.500s", resp.StatusCode, body)
	}
	apps, err := e.st.Clients(context.Background(), e.acct.ID)
	if err != nil || len(apps) != store.MaxClients {
		t.Fatalf("stored apps: %d, %v; want %d", len(apps), err, store.MaxClients)
	}
	if resp, _ := post(t, c, e.srv.URL+"/dashboard/apps/"+apps[0].ID+"/delete", url.Values{"csrf_token": {token}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("delete: %d", resp.StatusCode)
	}
	if resp, body := create(store.MaxClients + 1); resp.StatusCode != http.StatusCreated {
		t.Fatalf("app after a delete: status %d\n%.500s", resp.StatusCode, body)
	}
}

func secretOf(t *testing.T, body string) string {
	t.Helper()
	i := strings.Index(body, `value="seo_secret_`)
	if i < 0 {
		t.Fatalf("no secret shown:\n%s", body)
	}
	s := body[i+len(`value="`):]
	return s[:strings.IndexByte(s, '"')]
}

func TestUsage(t *testing.T) {
	e := newEnv(t, &envOptions{opts: dashboard.Options{Quota: fixedQuota(5)}})
	ctx := context.Background()
	today := e.clock.Now().UTC().Truncate(24 * time.Hour)
	for range 3 {
		if _, _, err := e.st.Take(ctx, e.acct.ID, today, 5); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := e.st.Take(ctx, e.acct.ID, today.AddDate(0, 0, -2), 5); err != nil {
		t.Fatal(err)
	}
	c := e.client(t)
	e.login(t, c)
	_, body := get(t, c, e.srv.URL+"/dashboard/usage")
	for _, want := range []string{`3 <span class="muted">of 5 requests`, `value="60"`, "4 requests in total", "limit 5", today.Format("01-02") + ": 3"} {
		if !strings.Contains(body, want) {
			t.Errorf("usage page lacks %q", want)
		}
	}
	if strings.Count(body, `<rect class="bar`) != 30 {
		t.Errorf("chart has %d bars, want 30", strings.Count(body, `<rect class="bar`))
	}
}

// storeReport stores a finished job whose report carries hostile crawled
// text.
func storeReport(t *testing.T, e *env, accountID string, rep *crawler.SiteReport) *store.Job {
	t.Helper()
	res, _ := json.Marshal(rep)
	now := e.clock.Now()
	j := &store.Job{ID: "job_xss" + accountID[len(accountID)-4:], AccountID: accountID, Kind: "site", Status: store.JobQueued,
		Request: []byte(`{"domain":"evil.example","options":{}}`), CreatedAt: now, UpdatedAt: now}
	ctx := context.Background()
	if err := e.st.CreateJob(ctx, j); err != nil {
		t.Fatal(err)
	}
	j.Status, j.Result, j.FinishedAt = store.JobSucceeded, res, now
	if err := e.st.UpdateJob(ctx, j); err != nil {
		t.Fatal(err)
	}
	return j
}

func TestCrawledTextEscaped(t *testing.T) {
	e := newEnv(t, nil)
	const evil = `<script>alert('xss')</script>`
	rep := &crawler.SiteReport{
		Domain: "evil.example", StatusCodes: map[int]int{200: 1},
		Findings: []crawler.FindingGroup{{ID: "title.too_long", Severity: seo.Warning, Count: 1, Pages: 1,
			Message: "title " + evil, Examples: []string{"https://evil.example/\"><img src=x onerror=alert(1)>"}}},
		SiteFindings: []seo.Finding{{ID: "site.x", Severity: seo.Error, Message: "m",
			Evidence: seo.Evidence{Element: "<title>", Value: evil}, URL: "javascript:alert(1)"}},
		Pages: []crawler.PageSummary{{URL: "https://evil.example/", Status: 200, Title: evil, H1: evil}},
	}
	j := storeReport(t, e, e.acct.ID, rep)
	c := e.client(t)
	e.login(t, c)
	resp, body := get(t, c, e.srv.URL+"/dashboard/analyses/"+j.ID)
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	if strings.Contains(body, evil) || strings.Contains(body, "<img src=x") {
		t.Fatalf("crawled markup rendered raw:\n%s", body)
	}
	if !strings.Contains(body, `<td class="k-line page-title" data-label="Title" title="&lt;script&gt;alert(&#39;xss&#39;)&lt;/script&gt;">&lt;script&gt;alert(&#39;xss&#39;)&lt;/script&gt;</td>`) {
		t.Fatalf("escaped title missing:\n%s", body)
	}
	if strings.Contains(body, `href="javascript:`) {
		t.Fatal("javascript: URL rendered as a link")
	}
	// The downloadable report is sandboxed and escaped too.
	resp, body = get(t, c, e.srv.URL+"/dashboard/analyses/"+j.ID+"/report.html")
	if resp.StatusCode != 200 || strings.Contains(body, evil) || !strings.HasPrefix(resp.Header.Get("Content-Security-Policy"), "sandbox") {
		t.Fatalf("report.html: status %d, CSP %q", resp.StatusCode, resp.Header.Get("Content-Security-Policy"))
	}
	// Another account does not see it.
	if _, err := e.au.CreateAccount(context.Background(), "eve@example.com", "Eve", "another password", store.Free); err != nil {
		t.Fatal(err)
	}
	eve := e.client(t)
	_, lb := get(t, eve, e.srv.URL+"/dashboard/login")
	post(t, eve, e.srv.URL+"/dashboard/login", url.Values{"csrf_token": {csrfOf(t, lb)}, "email": {"eve@example.com"}, "password": {"another password"}})
	if resp, _ := get(t, eve, e.srv.URL+"/dashboard/analyses/"+j.ID); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("other account sees the job: %d", resp.StatusCode)
	}
}

func TestStartAnalysisValidation(t *testing.T) {
	e := newEnv(t, nil)
	c := e.client(t)
	token := e.login(t, c)
	cases := []struct {
		name, domain, maxPages, field string
	}{
		{"scheme", "https://example.com", "", "domain"},
		{"empty", "", "", "domain"},
		{"path", "example.com/x", "", "domain"},
		{"max pages zero", "example.com", "0", "maxPages"},
		{"max pages text", "example.com", "many", "maxPages"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := post(t, c, e.srv.URL+"/dashboard/analyses", url.Values{"csrf_token": {token}, "domain": {tc.domain}, "max_pages": {tc.maxPages}})
			if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, tc.field) {
				t.Fatalf("status %d; body lacks %q", resp.StatusCode, tc.field)
			}
			if js, _ := e.st.Jobs(context.Background(), e.acct.ID, 10); len(js) != 0 {
				t.Fatal("a job was created")
			}
		})
	}
}

func TestAnalysisRuns(t *testing.T) {
	e := newEnv(t, &envOptions{realClock: true})
	site := newTestSite(t)
	c := e.client(t)
	token := e.login(t, c)
	host := strings.TrimPrefix(site.URL, "http://")
	resp, _ := post(t, c, e.srv.URL+"/dashboard/analyses", url.Values{"csrf_token": {token}, "domain": {host}, "max_pages": {"10"}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("start: %d", resp.StatusCode)
	}
	loc := resp.Header.Get("Location")
	deadline := time.Now().Add(20 * time.Second)
	var p struct {
		Status    string
		Done      bool
		PagesDone int
	}
	for time.Now().Before(deadline) {
		_, body := get(t, c, e.srv.URL+loc+"/progress")
		if err := json.Unmarshal([]byte(body), &p); err != nil {
			t.Fatalf("progress: %v: %s", err, body)
		}
		if p.Done {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if p.Status != "succeeded" || p.PagesDone < 3 {
		t.Fatalf("progress at end: %+v", p)
	}
	_, body := get(t, c, e.srv.URL+loc)
	for _, want := range []string{"Acme Widgets", "&lt;script&gt;document.title=", "Findings by severity", "Pages by status code", "/missing"} {
		if !strings.Contains(body, want) {
			t.Errorf("report lacks %q", want)
		}
	}
}

func TestRankingsPage(t *testing.T) {
	rs := memstore.New(nil)
	e := newEnv(t, &envOptions{rankings: rs})
	ctx := context.Background()
	day := rankings.Day(e.clock.Now())
	var obs []rankings.Observation
	for i, pos := range []float64{8, 6, 0, 3} {
		o := rankings.Observation{Domain: "example.com", Keyword: "blue <widgets>", Device: rankings.Desktop, Depth: 100,
			Date: day.AddDate(0, 0, i-3), Source: "serpapi", CheckedAt: day.AddDate(0, 0, i-3), URL: "https://example.com/blue"}
		if pos > 0 {
			p := pos
			o.Position = &p
		}
		obs = append(obs, o)
	}
	if err := rs.Record(ctx, obs); err != nil {
		t.Fatal(err)
	}
	c := e.client(t)
	token := e.login(t, c)
	resp, _ := post(t, c, e.srv.URL+"/dashboard/rankings", url.Values{"csrf_token": {token}, "domain": {"example.com"},
		"keywords": {"blue <widgets>"}, "locale": {"en-US"}, "device": {"desktop"}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("track: %d", resp.StatusCode)
	}
	_, body := get(t, c, e.srv.URL+"/dashboard/rankings?domain=example.com")
	for _, want := range []string{"blue &lt;widgets&gt;", `<polyline class="line s0"`, "not ranked in the top 100", "source: serpapi"} {
		if !strings.Contains(body, want) {
			t.Errorf("rankings page lacks %q", want)
		}
	}
	// The gap splits the line in two, and the single point after it is a dot.
	if n := strings.Count(body, "<polyline"); n != 1 {
		t.Errorf("%d polylines, want 1 (two points, a gap, one point)", n)
	}
	if n := strings.Count(body, `<circle class="dot`); n != 3 {
		t.Errorf("%d dots, want 3", n)
	}
	resp, body = get(t, c, e.srv.URL+"/dashboard/rankings?domain=http://x/y?q")
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, "domain") {
		t.Fatalf("bad domain: %d", resp.StatusCode)
	}
}

func TestSignedOutRedirects(t *testing.T) {
	e := newEnv(t, nil)
	c := e.client(t)
	for _, path := range []string{"/dashboard/", "/dashboard/keys", "/dashboard/usage"} {
		resp, _ := get(t, c, e.srv.URL+path)
		if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/dashboard/login?next="+url.QueryEscape(path) {
			t.Errorf("%s: %d %q", path, resp.StatusCode, resp.Header.Get("Location"))
		}
	}
	resp, _ := post(t, c, e.srv.URL+"/dashboard/keys", url.Values{"name": {"x"}})
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("POST signed out: %d", resp.StatusCode)
	}
}

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// TestAnalysisShowsCutLists: a report whose lists were cut at their caps
// says so, with the totals, and counts the pages crawled, not listed.
func TestAnalysisShowsCutLists(t *testing.T) {
	e := newEnv(t, nil)
	rep := &crawler.SiteReport{
		Domain: "big.example", StatusCodes: map[int]int{200: 12000},
		Crawl: crawler.CrawlStats{Fetched: 12000},
		Pages: []crawler.PageSummary{{URL: "https://big.example/", Status: 200}},
		Truncated: seo.Truncated{
			"pages":       {Total: 12000, Omitted: 2000},
			"sitemapUrls": {Total: 1000000, Omitted: 949900},
		},
	}
	j := storeReport(t, e, e.acct.ID, rep)
	c := e.client(t)
	e.login(t, c)
	resp, body := get(t, c, e.srv.URL+"/dashboard/analyses/"+j.ID)
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	for _, want := range []string{"pages: 10000 of 12000", "sitemapUrls: 50100 of 1000000", `<span class="num">12000</span><span class="lbl">Pages</span>`} {
		if !strings.Contains(body, want) {
			t.Errorf("analysis page lacks %q", want)
		}
	}
}

// TestPageDetailView: the page view of an analysis shows the page's
// findings (the template-wide one marked), the links the report keeps to
// and from it and its rendering state; a missing url is 400, a page the
// report does not have 404, another account's analysis 404.
func TestPageDetailView(t *testing.T) {
	e := newEnv(t, nil)
	rep := largeReport(300)
	j := storeReport(t, e, e.acct.ID, rep)
	c := e.client(t)
	e.login(t, c)
	base := e.srv.URL + "/dashboard/analyses/" + j.ID
	p := rep.Pages[10] // it has a broken link (LinkFindings every 10th page)
	resp, body := get(t, c, base+"/page?url="+url.QueryEscape(p.URL))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("page view: %d\n%s", resp.StatusCode, body)
	}
	for _, want := range []string{`id="page-findings-h"`, "security.csp_missing</code>", "(on every analysed page)", "links.broken_internal", `id="outlinks-h"`,
		template.HTMLEscapeString(p.URL) + "x</span>", "Not rendered: this analysis read the raw HTML only", fmt.Sprintf("%d internal links point here", p.Inlinks)} {
		if !strings.Contains(body, want) {
			t.Errorf("page view lacks %q", want)
		}
	}
	for path, status := range map[string]int{"/page": http.StatusBadRequest, "/page?url=https%3A%2F%2Fnot-there.example%2F": http.StatusNotFound} {
		if resp, body := get(t, c, base+path); resp.StatusCode != status {
			t.Errorf("%s: %d, want %d\n%s", path, resp.StatusCode, status, body)
		}
	}
	bob, err := e.au.CreateAccount(context.Background(), "bob@example.com", "Bob", testPassword, store.Free)
	if err != nil {
		t.Fatal(err)
	}
	other := storeReport(t, e, bob.ID, rep)
	if resp, _ := get(t, c, e.srv.URL+"/dashboard/analyses/"+other.ID+"/page?url="+url.QueryEscape(p.URL)); resp.StatusCode != http.StatusNotFound {
		t.Errorf("another account's page view: %d, want 404", resp.StatusCode)
	}
}

// TestKeyCap: past store.MaxKeys usable keys the dashboard refuses another
// with 409 and says to revoke one; after a revocation it creates one.
func TestKeyCap(t *testing.T) {
	e := newEnv(t, nil)
	c := e.client(t)
	token := e.login(t, c)
	ctx := context.Background()
	for i := range store.MaxKeys {
		if _, _, err := e.au.CreateAPIKey(ctx, e.acct.ID, fmt.Sprintf("k%d", i), []string{"read"}, time.Time{}); err != nil {
			t.Fatal(err)
		}
	}
	form := url.Values{"csrf_token": {token}, "name": {"one more"}, "permissions": {"read"}, "expires": {"never"}}
	resp, body := post(t, c, e.srv.URL+"/dashboard/keys", form)
	if resp.StatusCode != http.StatusConflict || !strings.Contains(body, "revoke one to create another") {
		t.Fatalf("a key past the cap: %d, want 409 saying to revoke one", resp.StatusCode)
	}
	keys, err := e.st.Keys(ctx, e.acct.ID)
	if err != nil || len(keys) != store.MaxKeys {
		t.Fatalf("%d keys stored, %v; want %d", len(keys), err, store.MaxKeys)
	}
	if err := e.au.RevokeAPIKey(ctx, e.acct.ID, keys[0].ID); err != nil {
		t.Fatal(err)
	}
	if resp, _ := post(t, c, e.srv.URL+"/dashboard/keys", form); resp.StatusCode != http.StatusCreated {
		t.Fatalf("a key after a revocation: %d, want 201", resp.StatusCode)
	}
}
