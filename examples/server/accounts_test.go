package main

import (
	"context"
	"net/http"
	"net/http/cookiejar"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/seokit/seokit/httpapi/auth"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/httpapi/store/sqlstore"
)

// newStore creates an empty API store file and returns its path.
func newStore(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "api.db")
	st, err := sqlstore.Open(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	return path
}

// accounts runs "server accounts args..." on the store at db with stdin.
func accounts(t *testing.T, db, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	t.Setenv("SEOKIT_DB", db)
	var out, errOut syncBuffer
	var err error
	if stdin == "" {
		err = run(context.Background(), append([]string{"accounts"}, args...), &out, &errOut)
	} else {
		err = runAccounts(context.Background(), args, strings.NewReader(stdin), &out, &errOut)
	}
	if err != nil {
		errOut.Write([]byte("server: " + err.Error() + "\n"))
		code = exitCode(err)
	}
	return out.String(), errOut.String(), code
}

func account(t *testing.T, db, email string) *store.Account {
	t.Helper()
	st, err := sqlstore.Open(context.Background(), db, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	a, err := st.AccountByEmail(context.Background(), email)
	if err != nil {
		t.Fatalf("AccountByEmail(%s): %v", email, err)
	}
	return a
}

var (
	cliPasswordRE = regexp.MustCompile(`(?m)password(?: of \S+)? \(shown only once\): (\S+)$`)
	cliKeyRE      = regexp.MustCompile(`(?m)^API key \(shown only once\): (seo_live_\S+)$`)
)

func TestAccountsCommands(t *testing.T) {
	db := newStore(t)
	out, errOut, code := accounts(t, db, "", "create", "-email", "Grace@Example.com", "-plan", "pro", "-daily-limit", "5000")
	m := cliPasswordRE.FindStringSubmatch(out)
	if code != 0 || m == nil || !strings.Contains(out, "grace@example.com (plan pro, daily limit 5000)") {
		t.Fatalf("create: exit %d\n%s%s", code, out, errOut)
	}
	g := account(t, db, "grace@example.com")
	if g.Plan != store.Pro || g.DailyLimit != 5000 || g.Admin || g.Name != "Grace" {
		t.Errorf("created account = %+v", g)
	}
	if ok, err := auth.VerifyPassword(g.PasswordHash, m[1]); !ok || err != nil {
		t.Errorf("the printed password does not match: %v %v", ok, err)
	}

	out, errOut, code = accounts(t, db, "a long enough passphrase\n", "create", "-email", "ops@example.com", "-name", "Ops", "-admin", "-password-stdin")
	if code != 0 || strings.Contains(out, "passphrase") || strings.Contains(out, "shown only once") {
		t.Fatalf("create -password-stdin: exit %d\n%s%s", code, out, errOut)
	}
	ops := account(t, db, "ops@example.com")
	if ok, _ := auth.VerifyPassword(ops.PasswordHash, "a long enough passphrase"); !ok || !ops.Admin || ops.Plan != store.Free {
		t.Errorf("create -password-stdin -admin: %+v, password ok %v", ops, ok)
	}

	if out, errOut, code = accounts(t, db, "", "set-plan", "-email", "GRACE@example.com", "-plan", "enterprise", "-daily-limit", "20000"); code != 0 {
		t.Fatalf("set-plan: exit %d\n%s%s", code, out, errOut)
	}
	if g := account(t, db, "grace@example.com"); g.Plan != store.Enterprise || g.DailyLimit != 20000 {
		t.Errorf("after set-plan: %+v", g)
	}
	if _, _, code = accounts(t, db, "", "set-plan", "-email", "grace@example.com", "-plan", "free"); code != 0 {
		t.Fatalf("set-plan free: exit %d", code)
	}
	if g := account(t, db, "grace@example.com"); g.Plan != store.Free || g.DailyLimit != 0 {
		t.Errorf("set-plan without -daily-limit keeps the override: %+v", g)
	}

	out, errOut, code = accounts(t, db, "", "reset-password", "-email", "grace@example.com")
	m2 := cliPasswordRE.FindStringSubmatch(out)
	if code != 0 || m2 == nil || m2[1] == m[1] || !strings.Contains(out, "signed out") {
		t.Fatalf("reset-password: exit %d\n%s%s", code, out, errOut)
	}
	if ok, _ := auth.VerifyPassword(account(t, db, "grace@example.com").PasswordHash, m2[1]); !ok {
		t.Error("reset-password: the printed password does not match")
	}

	out, errOut, code = accounts(t, db, "", "create-key", "-email", "grace@example.com", "-name", "reporting", "-permissions", "read")
	k := cliKeyRE.FindStringSubmatch(out)
	if code != 0 || k == nil {
		t.Fatalf("create-key: exit %d\n%s%s", code, out, errOut)
	}
	st, err := sqlstore.Open(context.Background(), db, nil)
	if err != nil {
		t.Fatal(err)
	}
	keys, err := st.Keys(context.Background(), g.ID)
	st.Close()
	if err != nil || len(keys) != 1 || keys[0].Name != "reporting" || !strings.HasPrefix(k[1], keys[0].Prefix) || strings.Join(keys[0].Permissions, ",") != "read" {
		t.Errorf("stored keys = %+v, %v (printed %s)", keys, err, k[1])
	}

	out, _, code = accounts(t, db, "", "list")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 3 || !strings.HasPrefix(lines[0], "ID ") || !strings.Contains(out, "grace@example.com") ||
		!strings.Contains(out, "ops@example.com") || strings.Contains(out, m2[1]) {
		t.Errorf("list: exit %d\n%s", code, out)
	}
}

func TestAccountsCommandErrors(t *testing.T) {
	db := newStore(t)
	if _, errOut, code := accounts(t, db, "", "create", "-email", "taken@example.com"); code != 0 {
		t.Fatalf("create: exit %d\n%s", code, errOut)
	}
	tests := []struct {
		name  string
		stdin string
		args  []string
		code  int
		want  string
	}{
		{"no command", "", nil, 2, "name a command"},
		{"unknown command", "", []string{"frobnicate"}, 2, `unknown command "frobnicate"`},
		{"unknown flag", "", []string{"list", "-bogus"}, 2, "-bogus"},
		{"extra argument", "", []string{"list", "extra"}, 2, "unexpected arguments"},
		{"missing email", "", []string{"create"}, 2, "-email is required"},
		{"unknown plan", "", []string{"create", "-email", "a@example.com", "-plan", "gold"}, 2, `unknown plan "gold"`},
		{"negative limit", "", []string{"create", "-email", "a@example.com", "-daily-limit", "-1"}, 2, "-daily-limit must not be negative"},
		{"bad email", "", []string{"create", "-email", "not an email"}, 2, "is not an email address"},
		{"short password", "short\n", []string{"create", "-email", "a@example.com", "-password-stdin"}, 2, "at least 12 characters"},
		{"duplicate email", "", []string{"create", "-email", "TAKEN@example.com"}, 1, "already registered"},
		{"set-plan without plan", "", []string{"set-plan", "-email", "taken@example.com"}, 2, "-plan is required"},
		{"set-plan unknown account", "", []string{"set-plan", "-email", "nobody@example.com", "-plan", "pro"}, 1, "no account with email nobody@example.com"},
		{"reset unknown account", "", []string{"reset-password", "-email", "nobody@example.com"}, 1, "no account with email nobody@example.com"},
		{"key unknown account", "", []string{"create-key", "-email", "nobody@example.com"}, 1, "no account with email nobody@example.com"},
		{"key bad permission", "", []string{"create-key", "-email", "taken@example.com", "-permissions", "root"}, 2, "unknown permission"},
		{"missing store", "", []string{"list", "-db", filepath.Join(t.TempDir(), "typo.db")}, 1, "no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := accounts(t, db, tt.stdin, tt.args...)
			if code != tt.code || !strings.Contains(errOut, tt.want) {
				t.Errorf("exit %d, want %d with %q\nstdout: %s\nstderr: %s", code, tt.code, tt.want, out, errOut)
			}
		})
	}
	out, _, _ := accounts(t, db, "", "list")
	if strings.Count(out, "@example.com") != 1 {
		t.Errorf("bad commands changed the accounts:\n%s", out)
	}
}

// TestPasswordResetsSignOut: a dashboard session signed in before
// "accounts reset-password" or -reset-admin-password is refused after it,
// also across a restart; a new sign-in works.
func TestPasswordResetsSignOut(t *testing.T) {
	dir := t.TempDir()
	out, base, stop := start(t, dir)
	m := dashRE.FindStringSubmatch(out)
	if m == nil {
		stop()
		t.Fatalf("first start printed no password:\n%s", out)
	}
	jar1, _ := cookiejar.New(nil)
	jar2, _ := cookiejar.New(nil)
	c1, c2 := noRedirects(jar1), noRedirects(jar2)
	for _, c := range []*http.Client{c1, c2} {
		if resp := signIn(t, c, base, adminEmail, m[3]); resp.StatusCode != http.StatusSeeOther {
			stop()
			t.Fatalf("sign-in: %d", resp.StatusCode)
		}
	}
	signedIn := func(c *http.Client) bool {
		resp, _ := fetch(t, c, "GET", base+"/dashboard/keys", nil)
		return resp.StatusCode == http.StatusOK
	}
	// The command line changes the password of the running server's store.
	cli, errOut, code := accounts(t, filepath.Join(dir, "api.db"), "", "reset-password", "-email", adminEmail)
	pw := cliPasswordRE.FindStringSubmatch(cli)
	if code != 0 || pw == nil {
		stop()
		t.Fatalf("reset-password: exit %d\n%s%s", code, cli, errOut)
	}
	if signedIn(c1) || signedIn(c2) {
		t.Error("a session survived accounts reset-password")
	}
	if resp := signIn(t, c1, base, adminEmail, pw[1]); resp.StatusCode != http.StatusSeeOther || !signedIn(c1) {
		t.Errorf("the new password does not sign in: %d", resp.StatusCode)
	}
	stop()

	out, base, stop = start(t, dir, "-reset-admin-password")
	defer stop()
	if m = dashRE.FindStringSubmatch(out); m == nil {
		t.Fatalf("-reset-admin-password printed no password:\n%s", out)
	}
	if signedIn(c1) {
		t.Error("a session survived -reset-admin-password")
	}
	if resp := signIn(t, c2, base, adminEmail, m[3]); resp.StatusCode != http.StatusSeeOther || !signedIn(c2) {
		t.Errorf("the reset password does not sign in: %d", resp.StatusCode)
	}
}
