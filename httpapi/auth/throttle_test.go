package auth

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"golang.org/x/oauth2"
)

// fromAddr is Options.ClientAddr reading the test's X-Test-Addr header.
func fromAddr(r *http.Request) string { return r.Header.Get("X-Test-Addr") }

func TestThrottlePolicy(t *testing.T) {
	ctx := context.Background()
	type step struct {
		addr, id string
		ok       bool // the secret is right
		wantErr  bool // Begin or Failed refuses
	}
	rep := func(n int, s step) []step {
		out := make([]step, n)
		for i := range out {
			out[i] = s
		}
		return out
	}
	cat := func(ss ...[]step) (out []step) {
		for _, s := range ss {
			out = append(out, s...)
		}
		return out
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{"pair burst then refused even with the right secret", cat(
			rep(10, step{"203.0.113.1", "c1", false, false}),
			[]step{{"203.0.113.1", "c1", true, true}})},
		{"right secret from another address after the pair is spent", cat(
			rep(12, step{"203.0.113.1", "c1", false, false})[:10],
			[]step{{"203.0.113.1", "c1", false, true}, {"198.51.100.2", "c1", true, false}})},
		{"successes do not spend the pair", rep(50, step{"203.0.113.1", "c1", true, false})},
		{"keyless failures hit the address backstop only", cat(
			rep(100, step{"203.0.113.1", "", false, false}),
			[]step{{"203.0.113.1", "", false, true}, {"203.0.113.1", "c1", true, false}, {"198.51.100.2", "", false, false}})},
		{"IPv6 addresses count per /64", cat(
			rep(5, step{"2001:db8::1", "c1", false, false}),
			rep(5, step{"2001:db8::2", "c1", false, false}),
			[]step{{"2001:db8::3", "c1", true, true}, {"2001:db8:1::1", "c1", true, false}})},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			now := testNow()
			th := NewThrottle(&ThrottleOptions{Now: func() time.Time { return now }})
			for i, s := range tc.steps {
				at, err := th.Begin(ctx, s.addr, s.id)
				if err == nil {
					if s.ok {
						at.Succeeded()
					} else {
						err = at.Failed()
					}
				}
				if (err != nil) != s.wantErr {
					t.Fatalf("step %d %+v: err = %v", i, s, err)
				}
				if err != nil && (!errors.Is(err, ErrThrottled) || RetryAfterSeconds(err) < 1) {
					t.Fatalf("step %d: %v is not a ThrottledError with a Retry-After", i, err)
				}
			}
		})
	}
}

// TestThrottleSlowsHotIdentity: failures of one identity from many
// addresses slow it (SlowDelay, one attempt per new address) but the right
// secret from a fresh address still succeeds.
func TestThrottleSlowsHotIdentity(t *testing.T) {
	now := testNow()
	th := NewThrottle(&ThrottleOptions{IdentityBurst: 20, SlowDelay: 20 * time.Millisecond, Now: func() time.Time { return now }})
	ctx := context.Background()
	for i := range 20 {
		at, err := th.Begin(ctx, fmt.Sprintf("203.0.113.%d", i), "admin")
		if err != nil {
			t.Fatal(err)
		}
		at.Failed()
	}
	start := time.Now()
	at, err := th.Begin(ctx, "198.51.100.9", "admin")
	if err != nil {
		t.Fatalf("fresh address on a hot identity refused: %v", err)
	}
	if time.Since(start) < 20*time.Millisecond {
		t.Error("hot identity was not slowed")
	}
	at.Succeeded()
	// A new address gets one wrong attempt, not a full burst.
	at, _ = th.Begin(ctx, "198.51.100.10", "admin")
	at.Failed()
	if _, err := th.Begin(ctx, "198.51.100.10", "admin"); !errors.Is(err, ErrThrottled) {
		t.Errorf("second attempt of a new address on a hot identity: %v, want throttled", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := th.Begin(cctx, "198.51.100.11", "admin"); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled wait: %v", err)
	}
}

// TestThrottleBounded: the tables hold at most MaxEntries, and an address
// past its backstop adds no entries (it cannot flush others' state).
func TestThrottleBounded(t *testing.T) {
	now := testNow()
	th := NewThrottle(&ThrottleOptions{MaxEntries: 100, AddrBurst: 50, Now: func() time.Time { return now }})
	ctx := context.Background()
	victim, _ := th.Begin(ctx, "198.51.100.1", "victim")
	victim.Failed()
	for i := range 1000 {
		at, err := th.Begin(ctx, "203.0.113.1", fmt.Sprint("junk", i))
		if err == nil {
			at.Failed()
		}
	}
	if th.pairs.len() > 100 || th.ids.len() > 100 || th.addrs.len() > 100 {
		t.Errorf("tables hold %d/%d/%d entries, cap 100", th.pairs.len(), th.ids.len(), th.addrs.len())
	}
	if _, ok := th.pairs.get("198.51.100.1\x00victim"); !ok {
		t.Error("one address evicted another's state")
	}
}

// TestClientLockoutIsPerAddress: bad client secrets from A throttle A
// (429 slow_down with Retry-After, even with the right secret), not the
// app's other users: the right secret from B gets a token.
func TestClientLockoutIsPerAddress(t *testing.T) {
	e := newEnv(t, &Options{ClientAddr: fromAddr})
	a := e.account("b@example.com")
	secret, c := e.client(a, nil, nil)
	tokenFrom := func(addr, secret string, basic bool) (int, map[string]any, string) {
		form := url.Values{"grant_type": {"client_credentials"}}
		if !basic {
			form.Set("client_id", c.ID)
			form.Set("client_secret", secret)
		}
		req, _ := http.NewRequest("POST", e.ts.URL+"/v1/auth/token", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("X-Test-Addr", addr)
		if basic {
			req.SetBasicAuth(c.ID, secret)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var m map[string]any
		json.NewDecoder(res.Body).Decode(&m)
		return res.StatusCode, m, res.Header.Get("Retry-After")
	}
	for i := range 12 {
		st, body, _ := tokenFrom("203.0.113.1", "guess", i%2 == 0)
		if i < 10 && (st != 401 || body["error"] != "invalid_client") {
			t.Fatalf("guess %d: %d %v, want 401 invalid_client", i, st, body)
		}
		if i >= 10 && (st != 429 || body["error"] != "slow_down") {
			t.Fatalf("guess %d: %d %v, want 429 slow_down", i, st, body)
		}
	}
	if st, body, _ := tokenFrom("198.51.100.2", secret, true); st != 200 || body["access_token"] == nil {
		t.Errorf("right secret from another address: %d %v", st, body)
	}
	if st, body, ra := tokenFrom("203.0.113.1", secret, false); st != 429 || body["error"] != "slow_down" || ra == "" {
		t.Errorf("right secret from the guessing address: %d %v Retry-After %q; want 429 slow_down", st, body, ra)
	}
}

// TestSignInLockoutIsPerAddress is the same for passwords.
func TestSignInLockoutIsPerAddress(t *testing.T) {
	e := newEnv(t, &Options{ClientAddr: fromAddr})
	e.account("admin@example.com")
	signIn := func(addr, pw string) error {
		r, _ := http.NewRequest("POST", "/", nil)
		r.Header.Set("X-Test-Addr", addr)
		_, err := e.srv.SignIn(r, "Admin@example.com", pw)
		return err
	}
	for i := range 10 {
		if err := signIn("203.0.113.1", "wrong"); !errors.Is(err, ErrInvalidCredentials) || errors.Is(err, ErrThrottled) {
			t.Fatalf("attempt %d: %v", i, err)
		}
	}
	if err := signIn("203.0.113.1", testPassword); !errors.Is(err, ErrThrottled) {
		t.Errorf("right password from the guessing address: %v, want throttled", err)
	}
	if err := signIn("198.51.100.2", testPassword); err != nil {
		t.Errorf("right password from another address: %v", err)
	}
}

// exchange runs the code flow for conf and returns the tokens.
func exchange(t *testing.T, e *env, conf *oauth2.Config) *oauth2.Token {
	t.Helper()
	code, v := getCode(t, e, conf)
	tok, err := conf.Exchange(context.Background(), code, oauth2.VerifierOption(v))
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func refresh(t *testing.T, conf *oauth2.Config, rt, scope string) (int, map[string]any) {
	t.Helper()
	form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}}
	if scope != "" {
		form.Set("scope", scope)
	}
	return postForm(t, conf.Endpoint.TokenURL, form, conf.ClientID+":"+conf.ClientSecret)
}

// TestRefreshChecksBeforeSpending: a refresh with a wider scope, or from
// another client, is refused and leaves the token usable.
func TestRefreshChecksBeforeSpending(t *testing.T) {
	e := newEnv(t, nil)
	conf, acct := oauthSetup(t, e, ScopeRead)
	tok := exchange(t, e, conf)
	if st, body := refresh(t, conf, tok.RefreshToken, "read write"); st != 400 || body["error"] != "invalid_scope" {
		t.Fatalf("wider scope: %d %v, want 400 invalid_scope", st, body)
	}
	otherSecret, other := e.client(acct, []string{testRedirect}, nil)
	c2 := *conf
	c2.ClientID, c2.ClientSecret = other.ID, otherSecret
	if st, body := refresh(t, &c2, tok.RefreshToken, ""); st != 400 || body["error"] != "invalid_grant" {
		t.Fatalf("another client: %d %v, want 400 invalid_grant", st, body)
	}
	st, body := refresh(t, conf, tok.RefreshToken, "read")
	if st != 200 || body["refresh_token"] == nil {
		t.Fatalf("retry with the granted scope: %d %v", st, body)
	}
	if st, _ := e.bearer(body["access_token"].(string)); st != 200 {
		t.Errorf("new access token: %d", st)
	}
}

// TestRevokeRefusesOtherClients: RFC 7009 section 2.1.
func TestRevokeRefusesOtherClients(t *testing.T) {
	e := newEnv(t, nil)
	conf, acct := oauthSetup(t, e, ScopeRead)
	tok := exchange(t, e, conf)
	otherSecret, other := e.client(e.account("mallory@example.com"), nil, nil)
	_ = acct
	for _, tc := range []struct{ name, token string }{
		{"refresh token", tok.RefreshToken},
		{"access token", tok.AccessToken},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, body := postForm(t, e.ts.URL+"/v1/oauth/revoke", url.Values{"token": {tc.token}}, other.ID+":"+otherSecret)
			if st != 400 || body["error"] != "invalid_grant" {
				t.Errorf("revoke by another client: %d %v, want 400 invalid_grant", st, body)
			}
		})
	}
	if st, _ := e.bearer(tok.AccessToken); st != 200 {
		t.Errorf("access token after the refused revocations: %d", st)
	}
	if st, body := refresh(t, conf, tok.RefreshToken, ""); st != 200 {
		t.Errorf("refresh after the refused revocations: %d %v", st, body)
	}
}

// TestIssuerIsPublicURL: the metadata is built from BaseURL whatever the
// Host header, is cacheable, and its issuer is every token's iss.
func TestIssuerIsPublicURL(t *testing.T) {
	const base = "https://api.example.com"
	e := newEnv(t, &Options{BaseURL: base + "/"})
	req, _ := http.NewRequest("GET", e.ts.URL+"/.well-known/oauth-authorization-server", nil)
	req.Host = "evil.example"
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(res.Body)
	res.Body.Close()
	var m map[string]any
	json.Unmarshal(raw, &m)
	if m["issuer"] != base || m["token_endpoint"] != base+"/v1/oauth/token" || strings.Contains(string(raw), "evil") {
		t.Errorf("metadata %s", raw)
	}
	if cc := res.Header.Get("Cache-Control"); !strings.Contains(cc, "public") {
		t.Errorf("Cache-Control %q", cc)
	}
	secret, c := e.client(e.account("iss@example.com"), nil, nil)
	st, body := postJSON(t, e.ts.URL+"/v1/auth/token", map[string]string{"client_id": c.ID, "client_secret": secret})
	if st != 200 {
		t.Fatalf("token: %d %v", st, body)
	}
	if iss := jwtIssuer(t, body["access_token"].(string)); iss != base {
		t.Errorf("token iss %q, want %q", iss, base)
	}
	if st, _ := e.bearer(body["access_token"].(string)); st != 200 {
		t.Errorf("token verifies: %d", st)
	}

	t.Run("no public URL, no metadata", func(t *testing.T) {
		e := newEnv(t, nil)
		req, _ := http.NewRequest("GET", e.ts.URL+"/.well-known/oauth-authorization-server", nil)
		req.Host = "evil.example"
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 404 || strings.Contains(string(raw), "evil") {
			t.Errorf("%d %s", res.StatusCode, raw)
		}
	})
	t.Run("issuer must be the public URL", func(t *testing.T) {
		if _, err := New(context.Background(), e.st, &Options{BaseURL: base, Issuer: "seokit"}); err == nil {
			t.Error("New accepted an Issuer that differs from BaseURL")
		}
	})
}

func jwtIssuer(t *testing.T, tok string) string {
	t.Helper()
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		t.Fatalf("not a JWT: %q", tok)
	}
	b, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		Iss string `json:"iss"`
	}
	json.Unmarshal(b, &c)
	return c.Iss
}

// TestTokenEndpointErrorCodes: RFC 6749 section 5.2 on every error path.
func TestTokenEndpointErrorCodes(t *testing.T) {
	e := newEnv(t, nil)
	secret, c := e.client(e.account("codes@example.com"), nil, []string{ScopeRead})
	creds := c.ID + ":" + secret
	tests := []struct {
		name, path string
		form       url.Values
		user       string
		status     int
		code       string
	}{
		{"client token: wrong grant type", "/v1/auth/token", url.Values{"grant_type": {"password"}}, creds, 400, "unsupported_grant_type"},
		{"client token: no grant type", "/v1/auth/token", url.Values{}, creds, 400, "invalid_request"},
		{"client token: wider scope", "/v1/auth/token", url.Values{"grant_type": {"client_credentials"}, "scope": {"write"}}, creds, 400, "invalid_scope"},
		{"client token: no client", "/v1/auth/token", url.Values{"grant_type": {"client_credentials"}}, "", 401, "invalid_client"},
		{"oauth: no grant type", "/v1/oauth/token", url.Values{}, creds, 400, "invalid_request"},
		{"oauth: unknown grant type", "/v1/oauth/token", url.Values{"grant_type": {"password"}}, creds, 400, "unsupported_grant_type"},
		{"oauth: no refresh token", "/v1/oauth/token", url.Values{"grant_type": {"refresh_token"}}, creds, 400, "invalid_request"},
		{"oauth: unknown refresh token", "/v1/oauth/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {"nope"}}, creds, 400, "invalid_grant"},
		{"oauth: unknown code", "/v1/oauth/token", url.Values{"grant_type": {"authorization_code"}, "code": {"x"}, "redirect_uri": {testRedirect},
			"code_verifier": {strings.Repeat("v", 43)}}, creds, 400, "invalid_grant"},
		{"oauth: basic wrong secret", "/v1/oauth/token", url.Values{"grant_type": {"refresh_token"}}, c.ID + ":wrong", 401, "invalid_client"},
		{"revoke: no token", "/v1/oauth/revoke", url.Values{}, creds, 400, "invalid_request"},
		{"revoke: bad hint", "/v1/oauth/revoke", url.Values{"token": {"x"}, "token_type_hint": {"id_token"}}, creds, 400, "unsupported_token_type"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st, body := postForm(t, e.ts.URL+tc.path, tc.form, tc.user)
			if st != tc.status || body["error"] != tc.code || body["_cache"] != "no-store" {
				t.Errorf("%d %v, want %d %s", st, body, tc.status, tc.code)
			}
			if st == 401 && tc.user != "" && !strings.HasPrefix(body["_www"].(string), "Basic") {
				t.Errorf("401 to Basic client auth without WWW-Authenticate: Basic")
			}
		})
	}
}
