package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seokit/seokit/httpapi"
	"github.com/seokit/seokit/httpapi/mcpserver"
	"github.com/seokit/seokit/internal/pgtest"
)

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

var listenRE = regexp.MustCompile(`Listening on (http://\S+)`)

// start runs the server until the returned stop is called, and returns its
// output once it listens and its base URL.
func start(t *testing.T, dir string, extra ...string) (out string, base string, stop func()) {
	t.Helper()
	for _, v := range []string{"DATAFORSEO_LOGIN", "DATAFORSEO_PASSWORD", "SERPAPI_KEY", "GOOGLE_CSE_KEY", "GOOGLE_CSE_CX", "SEOKIT_ADDR", "SEOKIT_DB", "SEOKIT_DATA_DB", "SEOKIT_TLS_CERT", "SEOKIT_TLS_KEY", "SEOKIT_TRUSTED_PROXIES", "SEOKIT_FREE_LIMIT", "SEOKIT_PRO_LIMIT", "SEOKIT_SESSION_KEY"} {
		t.Setenv(v, "") // no provider is ever called from a test
	}
	ctx, cancel := context.WithCancel(context.Background())
	stdout, stderr := &syncBuffer{}, &syncBuffer{}
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, append([]string{"-addr", "127.0.0.1:0", "-db", filepath.Join(dir, "api.db"), "-data-db", filepath.Join(dir, "data.db")}, extra...), stdout, stderr)
	}()
	// stop ends the server and waits for it; it runs at the end of the
	// test too, so the server never outlives a test that failed early.
	stop = sync.OnceFunc(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("run: %v", err)
			}
		case <-time.After(time.Minute):
			t.Error("server did not shut down")
		}
	})
	t.Cleanup(stop)
	deadline := time.Now().Add(time.Minute) // a loaded machine starts slowly
	for {
		if m := listenRE.FindStringSubmatch(stdout.String()); m != nil {
			base = m[1]
			break
		}
		select {
		case err := <-done:
			done <- err // for stop
			t.Fatalf("server exited: %v\n%s", err, stderr)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("server did not start:\n%s\n%s", stdout, stderr)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return stdout.String(), base, stop
}

var (
	keyRE  = regexp.MustCompile(`(?m)^API key: (\S+)$`)
	dashRE = regexp.MustCompile(`(?m)^Dashboard: (http://\S+/dashboard/)  email: (\S+)  password: (\S+)$`)
	csrfRE = regexp.MustCompile(`name="csrf_token" value="([^"]+)"`)
)

func noRedirects(jar http.CookieJar) *http.Client {
	return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

func fetch(t *testing.T, c *http.Client, method, u string, form url.Values) (*http.Response, string) {
	t.Helper()
	var resp *http.Response
	var err error
	if method == "POST" {
		resp, err = c.PostForm(u, form)
	} else {
		resp, err = c.Get(u)
	}
	if err != nil {
		t.Fatalf("%s %s: %v", method, u, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// signIn does the dashboard's sign-in form flow and returns the status of
// the form post.
func signIn(t *testing.T, c *http.Client, base, email, password string) *http.Response {
	t.Helper()
	_, page := fetch(t, c, "GET", base+"/dashboard/login", nil)
	m := csrfRE.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("sign-in page has no CSRF token:\n%s", page)
	}
	resp, _ := fetch(t, c, "POST", base+"/dashboard/login", url.Values{"csrf_token": {m[1]}, "email": {email}, "password": {password}, "next": {"/dashboard/keys"}})
	return resp
}

// TestDashboardSignIn signs in with the password printed on the first
// start, over HTTP against the running server, and stays signed in across
// a restart (the session key is stored).
func TestDashboardSignIn(t *testing.T) {
	dir := t.TempDir()
	out, base, stop := start(t, dir)
	m := dashRE.FindStringSubmatch(out)
	if m == nil {
		stop()
		t.Fatalf("first start printed no dashboard credentials:\n%s", out)
	}
	if m[1] != base+"/dashboard/" || m[2] != "admin@localhost" || len(m[3]) < 20 {
		t.Errorf("dashboard line %q (base %s)", m[0], base)
	}
	password := m[3]
	jar, _ := cookiejar.New(nil)
	c := noRedirects(jar)

	resp, _ := fetch(t, c, "GET", base+"/", nil)
	if resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != "/dashboard/" {
		t.Errorf("root: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	resp, _ = fetch(t, c, "GET", base+"/dashboard/", nil)
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(resp.Header.Get("Location"), "/dashboard/login") {
		t.Errorf("signed out overview: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	if resp := signIn(t, c, base, "admin@localhost", password+"x"); resp.StatusCode == http.StatusSeeOther {
		t.Fatal("a wrong password signed in")
	}
	resp = signIn(t, c, base, "admin@localhost", password)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/dashboard/keys" {
		t.Fatalf("sign-in: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	resp, page := fetch(t, c, "GET", base+"/dashboard/keys", nil)
	if resp.StatusCode != http.StatusOK || !strings.Contains(page, "admin@localhost") || !strings.Contains(page, "seo_live_") {
		t.Fatalf("keys page: %d\n%s", resp.StatusCode, page)
	}

	// Keywords tracked through the API join the caller's rankings page.
	key := keyRE.FindStringSubmatch(out)[1]
	req, _ := http.NewRequest("POST", base+"/v1/rankings/track", strings.NewReader(`{"domain":"www.oak-shop.example","keywords":["oak tables"],"locale":"en-US"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-API-Key", key)
	r2, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	r2.Body.Close()
	if r2.StatusCode != http.StatusOK {
		t.Fatalf("rankings: %d", r2.StatusCode)
	}
	_, page = fetch(t, c, "GET", base+"/dashboard/rankings?domain=oak-shop.example", nil)
	if !strings.Contains(page, "oak tables") {
		t.Errorf("API-tracked keyword missing from the rankings page:\n%s", page)
	}
	stop()

	out, base, stop = start(t, dir)
	defer stop()
	if strings.Contains(out, "password:") || strings.Contains(out, "API key:") {
		t.Errorf("restart printed credentials again:\n%s", out)
	}
	resp, _ = fetch(t, c, "GET", base+"/dashboard/keys", nil)
	if resp.StatusCode != http.StatusOK {
		t.Errorf("session lost on restart: %d", resp.StatusCode)
	}
	// The consent page has the dashboard's look.
	resp, page = fetch(t, c, "GET", base+"/v1/oauth/authorize?client_id=nope", nil)
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(page, `<header class="top">`) {
		t.Errorf("consent error page: %d\n%s", resp.StatusCode, page)
	}
}

func TestResetAdminPassword(t *testing.T) {
	dir := t.TempDir()
	out, _, stop := start(t, dir)
	old := dashRE.FindStringSubmatch(out)
	stop()
	if old == nil {
		t.Fatalf("first start printed no password:\n%s", out)
	}
	out, base, stop := start(t, dir, "-reset-admin-password")
	defer stop()
	m := dashRE.FindStringSubmatch(out)
	if m == nil || m[3] == old[3] || strings.Contains(out, "API key:") {
		t.Fatalf("reset printed %q (old password %q):\n%s", m, old[3], out)
	}
	jar, _ := cookiejar.New(nil)
	c := noRedirects(jar)
	if resp := signIn(t, c, base, "admin@localhost", old[3]); resp.StatusCode == http.StatusSeeOther {
		t.Error("the old password still signs in")
	}
	if resp := signIn(t, c, base, "admin@localhost", m[3]); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("the new password does not sign in: %d", resp.StatusCode)
	}
}

// TestServerOnPostgres: the stored session secret and the watchlist work
// on PostgreSQL too, and a restart keeps the sign-in.
func TestServerOnPostgres(t *testing.T) {
	dsn := pgtest.DSN(t)
	dir := t.TempDir()
	out, base, stop := start(t, dir, "-db", dsn)
	m := dashRE.FindStringSubmatch(out)
	if m == nil {
		stop()
		t.Fatalf("no dashboard credentials:\n%s", out)
	}
	jar, _ := cookiejar.New(nil)
	c := noRedirects(jar)
	if resp := signIn(t, c, base, "admin@localhost", m[3]); resp.StatusCode != http.StatusSeeOther {
		stop()
		t.Fatalf("sign-in: %d", resp.StatusCode)
	}
	stop()
	_, base, stop = start(t, dir, "-db", dsn)
	defer stop()
	if resp, _ := fetch(t, c, "GET", base+"/dashboard/rankings", nil); resp.StatusCode != http.StatusOK {
		t.Errorf("rankings page after restart: %d", resp.StatusCode)
	}
}

func TestSessionKeyFlag(t *testing.T) {
	dir := t.TempDir()
	err := run(context.Background(), []string{"-addr", "127.0.0.1:0", "-session-key", "too short", "-db", filepath.Join(dir, "a.db"), "-data-db", filepath.Join(dir, "d.db")}, &syncBuffer{}, &syncBuffer{})
	if err == nil || !strings.Contains(err.Error(), "session-key") {
		t.Errorf("short session key: %v", err)
	}
}

func TestServerFirstStartAndRestart(t *testing.T) {
	dir := t.TempDir()
	out, base, stop := start(t, dir)
	m := keyRE.FindStringSubmatch(out)
	if m == nil || !strings.Contains(out, "Client ID: ") || !strings.Contains(out, "Client secret: ") || !dashRE.MatchString(out) ||
		strings.Count(out, "password: ") != 1 || strings.Count(out, "API key: ") != 1 {
		stop()
		t.Fatalf("first start printed no credentials:\n%s", out)
	}
	key := m[1]
	suggest := func(base string) *http.Response {
		req, _ := http.NewRequest("GET", base+"/v1/keywords/suggest?query=oak+tables&locale=en-US", nil)
		req.Header.Set("X-API-Key", key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	resp := suggest(base)
	var body struct {
		Suggestions []json.RawMessage `json:"suggestions"`
	}
	err := json.NewDecoder(resp.Body).Decode(&body)
	resp.Body.Close()
	if resp.StatusCode != 200 || err != nil || body.Suggestions == nil {
		t.Errorf("suggest: status %d, err %v, body %+v", resp.StatusCode, err, body)
	}
	if resp.Header.Get("X-RateLimit-Limit") != "1000" || resp.Header.Get("X-RateLimit-Remaining") != "999" {
		t.Errorf("rate-limit headers %v", resp.Header)
	}
	stop()

	out, base, stop = start(t, dir)
	defer stop()
	if strings.Contains(out, "API key:") || strings.Contains(out, "password:") {
		t.Errorf("restart printed a key or password again:\n%s", out)
	}
	resp = suggest(base)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("X-RateLimit-Remaining") != "998" {
		t.Errorf("after restart: status %d, remaining %s", resp.StatusCode, resp.Header.Get("X-RateLimit-Remaining"))
	}
}

// TestFirstStartOnAddressInUse starts the server for the first time on an
// address another listener holds: it fails naming -addr and creates no
// account, so the next start, on a free address, prints the secrets.
func TestFirstStartOnAddressInUse(t *testing.T) {
	held, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	dir := t.TempDir()
	var out syncBuffer
	err = run(context.Background(), []string{"-addr", held.Addr().String(), "-db", filepath.Join(dir, "api.db"), "-data-db", filepath.Join(dir, "data.db")}, &out, &syncBuffer{})
	if err == nil || !strings.Contains(err.Error(), "-addr "+held.Addr().String()) || strings.Contains(out.String(), "API key") {
		t.Fatalf("start on an address in use: err %v, output:\n%s", err, out.String())
	}
	first, _, stop := start(t, dir)
	defer stop()
	if !keyRE.MatchString(first) || strings.Count(first, "password: ") != 1 {
		t.Errorf("the start after the failed one printed no credentials:\n%s", first)
	}
}

func TestServerRefusesPlainHTTPOnPublicAddress(t *testing.T) {
	dir := t.TempDir()
	err := run(context.Background(), []string{"-addr", "0.0.0.0:0", "-db", filepath.Join(dir, "a.db"), "-data-db", filepath.Join(dir, "d.db")}, &syncBuffer{}, &syncBuffer{})
	if err == nil || !strings.Contains(err.Error(), "refusing plain HTTP") {
		t.Errorf("err %v", err)
	}
}

func TestServerFlags(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"cert without key", []string{"-tls-cert", "c.pem"}},
		{"negative limit", []string{"-free-limit", "-1"}},
		{"extra argument", []string{"serve"}},
		{"bad proxy", []string{"-trusted-proxy", "nope", "-addr", "0.0.0.0:0"}},
		{"zero account rate", []string{"-account-rate", "0"}},
		{"infinite account rate", []string{"-account-rate", "+Inf"}},
		{"NaN account rate", []string{"-account-rate", "NaN"}},
		{"zero account burst", []string{"-account-burst", "0"}},
		{"negative job timeout", []string{"-job-timeout", "-1s"}},
		{"zero MCP sessions per account", []string{"-mcp-sessions-per-account", "0"}},
		{"zero MCP sessions", []string{"-mcp-sessions", "0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := run(context.Background(), tc.args, &syncBuffer{}, &syncBuffer{}); err == nil {
				t.Error("accepted")
			}
		})
	}
}

// TestMCPSessionFlags: -mcp-sessions-per-account and -mcp-sessions reach
// the admission options, and their defaults are the MCP server's.
func TestMCPSessionFlags(t *testing.T) {
	c, err := parse([]string{"-mcp-sessions-per-account", "3", "-mcp-sessions", "40"}, &syncBuffer{})
	if err != nil || c.admission.MCPSessionsPerAccount != 3 || c.admission.MCPSessions != 40 {
		t.Fatalf("parse = %+v, %v", c.admission, err)
	}
	c, err = parse(nil, &syncBuffer{})
	if err != nil || c.admission.MCPSessionsPerAccount != mcpserver.DefaultMaxSessionsPerAccount || c.admission.MCPSessions != mcpserver.DefaultMaxSessions {
		t.Fatalf("defaults: %+v, %v", c.admission, err)
	}
}

// TestAccountRateFlags: -account-rate and -account-burst reach the
// configuration, and their defaults are the API's.
func TestAccountRateFlags(t *testing.T) {
	c, err := parse([]string{"-account-rate", "2500.5", "-account-burst", "10000"}, &syncBuffer{})
	if err != nil || c.accountRate != 2500.5 || c.accountBurst != 10000 {
		t.Fatalf("parse = %+v, %v", c, err)
	}
	c, err = parse(nil, &syncBuffer{})
	if err != nil || c.accountRate != httpapi.DefaultBurstRate || c.accountBurst != httpapi.DefaultBurst {
		t.Fatalf("defaults: rate %v, burst %d, %v", c.accountRate, c.accountBurst, err)
	}
}
