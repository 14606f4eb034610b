package dashboard_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/seokit/seokit/httpapi/store"
)

var newPasswordRE = regexp.MustCompile(`id="new-password" class="secret" type="text" readonly value="([^"]+)"`)

// makeAdmin gives the env's account the admin flag.
func (e *env) makeAdmin(t *testing.T) {
	t.Helper()
	e.acct.Admin = true
	if err := e.st.UpdateAccount(context.Background(), e.acct); err != nil {
		t.Fatalf("UpdateAccount: %v", err)
	}
}

// signIn signs c in as email and reports the status of the form post.
func (e *env) signIn(t *testing.T, c *http.Client, email, password string) int {
	t.Helper()
	_, body := get(t, c, e.srv.URL+"/dashboard/login")
	resp, _ := post(t, c, e.srv.URL+"/dashboard/login", url.Values{
		"csrf_token": {csrfOf(t, body)}, "email": {email}, "password": {password}, "next": {"/dashboard/"},
	})
	return resp.StatusCode
}

// signedIn reports whether c's session still opens the dashboard.
func (e *env) signedIn(t *testing.T, c *http.Client) bool {
	t.Helper()
	resp, _ := get(t, c, e.srv.URL+"/dashboard/keys")
	switch resp.StatusCode {
	case http.StatusOK:
		return true
	case http.StatusSeeOther:
		if loc := resp.Header.Get("Location"); !strings.HasPrefix(loc, "/dashboard/login") {
			t.Fatalf("signed-out redirect to %q", loc)
		}
		return false
	}
	t.Fatalf("keys page: status %d", resp.StatusCode)
	return false
}

func (e *env) account(t *testing.T, email string) *store.Account {
	t.Helper()
	a, err := e.st.AccountByEmail(context.Background(), email)
	if err != nil {
		t.Fatalf("AccountByEmail(%s): %v", email, err)
	}
	return a
}

func TestAdminPagesRefuseNonAdmins(t *testing.T) {
	e := newEnv(t, nil)
	c := e.client(t)
	token := e.login(t, c)
	_, overview := get(t, c, e.srv.URL+"/dashboard/")
	if strings.Contains(overview, "/dashboard/admin/accounts") {
		t.Error("the navigation links the admin page for a non-admin")
	}
	if resp, _ := get(t, c, e.srv.URL+"/dashboard/admin/accounts"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET admin page: status %d, want 404", resp.StatusCode)
	}
	resp, _ := post(t, c, e.srv.URL+"/dashboard/admin/accounts", url.Values{
		"csrf_token": {token}, "email": {"eve@example.com"}, "name": {"Eve"}, "plan": {"pro"}, "admin": {"on"},
	})
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("POST create account: status %d, want 404", resp.StatusCode)
	}
	resp, _ = post(t, c, e.srv.URL+"/dashboard/admin/accounts/"+e.acct.ID+"/plan", url.Values{
		"csrf_token": {token}, "plan": {"enterprise"}, "daily_limit": {"999999"},
	})
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("POST own plan: status %d, want 404", resp.StatusCode)
	}
	if resp, _ := post(t, c, e.srv.URL+"/dashboard/admin/accounts/"+e.acct.ID+"/password", url.Values{"csrf_token": {token}}); resp.StatusCode != http.StatusNotFound {
		t.Errorf("POST reset password: status %d, want 404", resp.StatusCode)
	}
	if n, _ := e.st.CountAccounts(context.Background()); n != 1 {
		t.Errorf("%d accounts after a non-admin's create, want 1", n)
	}
	if a := e.account(t, testEmail); a.Plan != store.Free || a.DailyLimit != 0 || a.Admin {
		t.Errorf("a non-admin changed its own plan: %+v", a)
	}
	// Signed out, the page asks for a sign-in; a forged form is refused.
	anon := e.client(t)
	if resp, _ := get(t, anon, e.srv.URL+"/dashboard/admin/accounts"); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("signed-out GET: status %d, want 303 to sign-in", resp.StatusCode)
	}
}

func TestAdminCreateAccount(t *testing.T) {
	e := newEnv(t, nil)
	e.makeAdmin(t)
	c := e.client(t)
	token := e.login(t, c)
	resp, body := get(t, c, e.srv.URL+"/dashboard/admin/accounts")
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, testEmail) || !strings.Contains(body, `aria-current="page">Accounts<`) {
		t.Fatalf("admin page: %d\n%s", resp.StatusCode, body)
	}
	resp, body = post(t, c, e.srv.URL+"/dashboard/admin/accounts", url.Values{
		"csrf_token": {token}, "email": {"Grace@Example.com"}, "name": {"<script>alert(1)</script>"}, "plan": {"pro"}, "daily_limit": {"5000"},
	})
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("create: status %d\n%s", resp.StatusCode, body)
	}
	if strings.Contains(body, "<script>alert") || !strings.Contains(body, "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Error("the account name is not escaped")
	}
	m := newPasswordRE.FindStringSubmatch(body)
	if m == nil || len(m[1]) < 20 {
		t.Fatalf("no generated password shown:\n%s", body)
	}
	g := e.account(t, "grace@example.com")
	if g.Plan != store.Pro || g.DailyLimit != 5000 || g.Admin || g.PasswordHash == "" || strings.Contains(g.PasswordHash, m[1]) {
		t.Errorf("created account = %+v", g)
	}
	if st := e.signIn(t, e.client(t), "grace@example.com", m[1]); st != http.StatusSeeOther {
		t.Errorf("the shown password does not sign in: status %d", st)
	}
	// The password is shown once: the page does not show it again.
	if _, again := get(t, c, e.srv.URL+"/dashboard/admin/accounts"); strings.Contains(again, m[1]) {
		t.Error("the admin page shows the password again")
	}

	tests := []struct {
		name, email, plan, limit, want string
	}{
		{"unknown plan", "h@example.com", "gold", "", "plan"},
		{"taken email", "GRACE@example.com", "free", "", "already registered"},
		{"bad email", "not an email", "free", "", "email"},
		{"negative limit", "i@example.com", "free", "-1", "dailyLimit"},
		{"limit not a number", "j@example.com", "free", "lots", "dailyLimit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := post(t, c, e.srv.URL+"/dashboard/admin/accounts", url.Values{
				"csrf_token": {token}, "email": {tt.email}, "name": {"X"}, "plan": {tt.plan}, "daily_limit": {tt.limit},
			})
			if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, tt.want) || !strings.Contains(body, `role="alert"`) {
				t.Errorf("status %d, want 400 naming %q:\n%s", resp.StatusCode, tt.want, body)
			}
		})
	}
	if n, _ := e.st.CountAccounts(context.Background()); n != 2 {
		t.Errorf("%d accounts after bad input, want 2", n)
	}
	// Without the session's CSRF token nothing is created.
	resp, _ = post(t, c, e.srv.URL+"/dashboard/admin/accounts", url.Values{"email": {"k@example.com"}, "name": {"K"}, "plan": {"free"}})
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("create without CSRF token: status %d, want 403", resp.StatusCode)
	}
}

func TestAdminSetPlan(t *testing.T) {
	e := newEnv(t, nil)
	e.makeAdmin(t)
	ctx := context.Background()
	other, err := e.au.CreateAccount(ctx, "bob@example.com", "Bob", "", store.Free)
	if err != nil {
		t.Fatal(err)
	}
	c := e.client(t)
	token := e.login(t, c)
	planURL := e.srv.URL + "/dashboard/admin/accounts/" + other.ID + "/plan"
	resp, body := post(t, c, planURL, url.Values{"csrf_token": {token}, "plan": {"enterprise"}, "daily_limit": {"20000"}, "after": {"acct_0"}})
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/dashboard/admin/accounts?after=acct_0&done=plan" {
		t.Fatalf("set plan: status %d to %q\n%s", resp.StatusCode, resp.Header.Get("Location"), body)
	}
	if b := e.account(t, "bob@example.com"); b.Plan != store.Enterprise || b.DailyLimit != 20000 {
		t.Errorf("after set plan: %+v", b)
	}
	_, body = get(t, c, e.srv.URL+"/dashboard/admin/accounts?done=plan")
	if !strings.Contains(body, "20000 requests a day") || !strings.Contains(body, `value="enterprise" selected`) {
		t.Errorf("the page does not show the new plan:\n%s", body)
	}
	// Back to Pro without a limit: the plan's limit applies.
	if resp, _ := post(t, c, planURL, url.Values{"csrf_token": {token}, "plan": {"pro"}, "daily_limit": {""}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("set plan pro: status %d", resp.StatusCode)
	}
	if b := e.account(t, "bob@example.com"); b.Plan != store.Pro || b.DailyLimit != 0 {
		t.Errorf("after set plan pro: %+v", b)
	}
	for _, tt := range []struct{ plan, limit string }{{"gold", "0"}, {"", "0"}, {"pro", "-5"}, {"pro", "1e9x"}} {
		resp, body := post(t, c, planURL, url.Values{"csrf_token": {token}, "plan": {tt.plan}, "daily_limit": {tt.limit}})
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, "bob@example.com: ") {
			t.Errorf("plan %q limit %q: status %d, want 400 naming the account", tt.plan, tt.limit, resp.StatusCode)
		}
	}
	if b := e.account(t, "bob@example.com"); b.Plan != store.Pro || b.DailyLimit != 0 {
		t.Errorf("bad input changed the account: %+v", b)
	}
	resp, _ = post(t, c, e.srv.URL+"/dashboard/admin/accounts/acct_missing/plan", url.Values{"csrf_token": {token}, "plan": {"pro"}})
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("unknown account: status %d, want 404", resp.StatusCode)
	}
}

func TestAdminPaging(t *testing.T) {
	e := newEnv(t, nil)
	e.makeAdmin(t)
	ctx := context.Background()
	for i := range 60 {
		if err := e.st.CreateAccount(ctx, &store.Account{Email: fmt.Sprintf("user%02d@example.com", i), Name: "U", Plan: store.Free}); err != nil {
			t.Fatal(err)
		}
	}
	c := e.client(t)
	e.login(t, c)
	rowRE := regexp.MustCompile(`action="/dashboard/admin/accounts/(acct_[^/]+)/plan"`)
	nextRE := regexp.MustCompile(`href="/dashboard/admin/accounts\?after=([^"]+)" rel="next"`)
	seen := map[string]bool{}
	u := e.srv.URL + "/dashboard/admin/accounts"
	for pages := 1; ; pages++ {
		if pages > 3 {
			t.Fatal("more pages than accounts allow")
		}
		resp, body := get(t, c, u)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("page %d: status %d", pages, resp.StatusCode)
		}
		rows := rowRE.FindAllStringSubmatch(body, -1)
		if len(rows) > 50 {
			t.Fatalf("page %d lists %d accounts, want at most 50", pages, len(rows))
		}
		for _, r := range rows {
			if seen[r[1]] {
				t.Errorf("account %s listed twice", r[1])
			}
			seen[r[1]] = true
		}
		m := nextRE.FindStringSubmatch(body)
		if m == nil {
			if pages != 2 {
				t.Errorf("%d pages, want 2", pages)
			}
			break
		}
		u = e.srv.URL + "/dashboard/admin/accounts?after=" + m[1]
	}
	if len(seen) != 61 {
		t.Errorf("listed %d accounts, want 61", len(seen))
	}
	_, body := get(t, c, e.srv.URL+"/dashboard/admin/accounts?email=USER07@example.com")
	if rows := rowRE.FindAllStringSubmatch(body, -1); len(rows) != 1 || !strings.Contains(body, "user07@example.com") {
		t.Errorf("find by email lists %d accounts", len(rows))
	}
	_, body = get(t, c, e.srv.URL+"/dashboard/admin/accounts?email=nobody@example.com")
	if !strings.Contains(body, "No account has the email nobody@example.com") {
		t.Error("find by an unknown email does not say so")
	}
}

// TestChangePasswordSignsOutOtherSessions: a password change refuses every
// session signed in before it except the browser that made it.
func TestChangePasswordSignsOutOtherSessions(t *testing.T) {
	e := newEnv(t, nil)
	c1, c2 := e.client(t), e.client(t)
	token := e.login(t, c1)
	token2 := e.login(t, c2)
	old := c1.Jar.Cookies(mustURL(t, e.srv.URL))
	pwURL := e.srv.URL + "/dashboard/account/password"
	const newPassword = "a much longer new passphrase"
	tests := []struct {
		name                   string
		current, next, confirm string
		status                 int
		want                   string
	}{
		{"wrong current", "wrong password!", newPassword, newPassword, http.StatusForbidden, "current password is wrong"},
		{"confirmation differs", testPassword, newPassword, newPassword + "x", http.StatusBadRequest, "confirmation differ"},
		{"too short", testPassword, "short pw", "short pw", http.StatusBadRequest, "at least 12 characters"},
		{"unchanged", testPassword, testPassword, testPassword, http.StatusBadRequest, "must differ"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := post(t, c1, pwURL, url.Values{"csrf_token": {token}, "current_password": {tt.current}, "new_password": {tt.next}, "confirm_password": {tt.confirm}})
			if resp.StatusCode != tt.status || !strings.Contains(body, tt.want) {
				t.Errorf("status %d, want %d with %q:\n%s", resp.StatusCode, tt.status, tt.want, body)
			}
		})
	}
	if !e.signedIn(t, c1) || !e.signedIn(t, c2) {
		t.Fatal("a refused change signed a session out")
	}
	resp, body := post(t, c1, pwURL, url.Values{"csrf_token": {token}, "current_password": {testPassword}, "new_password": {newPassword}, "confirm_password": {newPassword}})
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/dashboard/account?done=password" {
		t.Fatalf("change: status %d to %q\n%s", resp.StatusCode, resp.Header.Get("Location"), body)
	}
	resp, body = get(t, c1, e.srv.URL+"/dashboard/account?done=password")
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, "Your password was changed") {
		t.Fatalf("the browser that changed the password was signed out: %d", resp.StatusCode)
	}
	if e.signedIn(t, c2) {
		t.Error("the other session still works after the password change")
	}
	resp, _ = post(t, c2, e.srv.URL+"/dashboard/keys", url.Values{"csrf_token": {token2}, "name": {"k"}, "permissions": {"read"}, "expires": {"never"}})
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("form of the old session: status %d, want 401", resp.StatusCode)
	}
	// A copy of the changing browser's cookie from before the change is
	// refused too, by the page and by the OAuth consent page.
	req := httptest.NewRequest("GET", "/dashboard/keys", nil)
	for _, ck := range old {
		req.AddCookie(ck)
	}
	if _, ok := e.d.SessionAccount(req); ok {
		t.Error("SessionAccount accepts a session from before the password change")
	}
	if st := e.signIn(t, e.client(t), testEmail, testPassword); st == http.StatusSeeOther {
		t.Error("the old password still signs in")
	}
	if st := e.signIn(t, c2, testEmail, newPassword); st != http.StatusSeeOther || !e.signedIn(t, c2) {
		t.Errorf("the new password does not sign in: %d", st)
	}
}

// TestSetPasswordSignsOut: a password set outside the dashboard (the
// server's command line) refuses the sessions signed in before.
func TestSetPasswordSignsOut(t *testing.T) {
	e := newEnv(t, nil)
	c1, c2 := e.client(t), e.client(t)
	e.login(t, c1)
	e.login(t, c2)
	if _, err := e.au.SetPassword(context.Background(), e.acct.ID, "set from the command line"); err != nil {
		t.Fatal(err)
	}
	if e.signedIn(t, c1) || e.signedIn(t, c2) {
		t.Error("a session signed in before SetPassword still works")
	}
	// A plan change is not a password change: sessions stay.
	c3 := e.client(t)
	if st := e.signIn(t, c3, testEmail, "set from the command line"); st != http.StatusSeeOther {
		t.Fatalf("sign-in: %d", st)
	}
	a := e.account(t, testEmail)
	a.Plan = store.Pro
	if err := e.st.UpdateAccount(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	if !e.signedIn(t, c3) {
		t.Error("a plan change signed the account out")
	}
}

func TestChangePasswordThrottled(t *testing.T) {
	e := newEnv(t, nil)
	c := e.client(t)
	token := e.login(t, c)
	form := url.Values{"csrf_token": {token}, "current_password": {"not the password"}, "new_password": {"another long passphrase"}, "confirm_password": {"another long passphrase"}}
	var last int
	for range 11 {
		resp, _ := post(t, c, e.srv.URL+"/dashboard/account/password", form)
		last = resp.StatusCode
	}
	if last != http.StatusTooManyRequests {
		t.Errorf("11th wrong current password: status %d, want 429", last)
	}
	form.Set("current_password", testPassword)
	if resp, _ := post(t, c, e.srv.URL+"/dashboard/account/password", form); resp.StatusCode != http.StatusTooManyRequests {
		t.Errorf("right password while throttled: status %d, want 429", resp.StatusCode)
	}
	e.clock.Add(time.Minute)
	if resp, _ := post(t, c, e.srv.URL+"/dashboard/account/password", form); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("right password a minute later: status %d, want 303", resp.StatusCode)
	}
}

// TestAdminResetPassword: an admin's reset signs the account out; an admin
// resetting their own password stays signed in with working forms.
func TestAdminResetPassword(t *testing.T) {
	e := newEnv(t, nil)
	e.makeAdmin(t)
	ctx := context.Background()
	bob, err := e.au.CreateAccount(ctx, "bob@example.com", "Bob", "bob's first password", store.Free)
	if err != nil {
		t.Fatal(err)
	}
	admin := e.client(t)
	token := e.login(t, admin)
	bc := e.client(t)
	if st := e.signIn(t, bc, "bob@example.com", "bob's first password"); st != http.StatusSeeOther {
		t.Fatalf("bob sign-in: %d", st)
	}
	resp, body := post(t, admin, e.srv.URL+"/dashboard/admin/accounts/"+bob.ID+"/password", url.Values{"csrf_token": {token}})
	m := newPasswordRE.FindStringSubmatch(body)
	if resp.StatusCode != http.StatusOK || m == nil {
		t.Fatalf("reset: status %d\n%s", resp.StatusCode, body)
	}
	if e.signedIn(t, bc) {
		t.Error("bob's session survived the reset")
	}
	if st := e.signIn(t, bc, "bob@example.com", m[1]); st != http.StatusSeeOther {
		t.Errorf("the new password does not sign in: %d", st)
	}

	resp, body = post(t, admin, e.srv.URL+"/dashboard/admin/accounts/"+e.acct.ID+"/password", url.Values{"csrf_token": {token}})
	if resp.StatusCode != http.StatusOK || !e.signedIn(t, admin) {
		t.Fatalf("own reset: status %d, signed out", resp.StatusCode)
	}
	resp, _ = post(t, admin, e.srv.URL+"/dashboard/admin/accounts/"+bob.ID+"/plan", url.Values{"csrf_token": {csrfOf(t, body)}, "plan": {"pro"}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Errorf("a form of the page after the own reset: status %d", resp.StatusCode)
	}
}
