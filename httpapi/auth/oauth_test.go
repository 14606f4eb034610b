package auth

import (
	"context"
	"encoding/json"
	"errors"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seokit/seokit/httpapi/store"
	"golang.org/x/oauth2"
)

const testRedirect = "http://127.0.0.1:9/callback"

var hiddenRE = regexp.MustCompile(`<input type="hidden" name="([^"]+)" value="([^"]*)">`)

// browser is a user agent with cookies that does not follow redirects.
func browser(t *testing.T) *http.Client {
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// consentForm GETs authURL and returns the status, the hidden fields and
// the response.
func consentForm(t *testing.T, b *http.Client, authURL string) (*http.Response, url.Values) {
	t.Helper()
	res, err := b.Get(authURL)
	if err != nil {
		t.Fatalf("GET authorize: %v", err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	form := url.Values{}
	for _, m := range hiddenRE.FindAllStringSubmatch(string(body), -1) {
		form.Set(html.UnescapeString(m[1]), html.UnescapeString(m[2]))
	}
	return res, form
}

// authorize drives the consent page: GET, then POST with the user's
// email, password and action; returns the 303 Location.
func authorize(t *testing.T, b *http.Client, base, authURL, email, password, action string) *url.URL {
	t.Helper()
	res, form := consentForm(t, b, authURL)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET authorize: status %d", res.StatusCode)
	}
	form.Set("email", email)
	form.Set("password", password)
	form.Set("action", action)
	res, err := b.PostForm(base+"/v1/oauth/authorize", form)
	if err != nil {
		t.Fatalf("POST authorize: %v", err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("POST authorize: status %d, want 303", res.StatusCode)
	}
	loc, err := url.Parse(res.Header.Get("Location"))
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

// oauthSetup makes an account and an OAuth client and its x/oauth2 config.
func oauthSetup(t *testing.T, e *env, scopes ...string) (*oauth2.Config, *store.Account) {
	a := e.account("owner@example.com")
	secret, c := e.client(a, []string{testRedirect}, []string{ScopeRead, ScopeWrite})
	return &oauth2.Config{
		ClientID:     c.ID,
		ClientSecret: secret,
		Endpoint:     oauth2.Endpoint{AuthURL: e.ts.URL + "/v1/oauth/authorize", TokenURL: e.ts.URL + "/v1/oauth/token"},
		RedirectURL:  testRedirect,
		Scopes:       scopes,
	}, a
}

// getCode runs the consent flow and returns the code and verifier.
func getCode(t *testing.T, e *env, conf *oauth2.Config) (code, verifier string) {
	verifier = oauth2.GenerateVerifier()
	authURL := conf.AuthCodeURL("st@te/1", oauth2.S256ChallengeOption(verifier))
	loc := authorize(t, browser(t), e.ts.URL, authURL, "owner@example.com", testPassword, "allow")
	if got := loc.Query().Get("state"); got != "st@te/1" {
		t.Fatalf("state = %q, want echoed", got)
	}
	if !strings.HasPrefix(loc.String(), testRedirect+"?") {
		t.Fatalf("redirected to %s", loc)
	}
	code = loc.Query().Get("code")
	if code == "" {
		t.Fatalf("no code in %s", loc)
	}
	return code, verifier
}

func retrieveCode(err error) string {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		return re.ErrorCode
	}
	return ""
}

func TestOAuthFlowWithXOAuth2(t *testing.T) {
	e := newEnv(t, nil)
	conf, acct := oauthSetup(t, e, ScopeRead)
	ctx := context.Background()

	code, verifier := getCode(t, e, conf)
	tok, err := conf.Exchange(ctx, code, oauth2.VerifierOption(verifier))
	if err != nil {
		t.Fatalf("Exchange: %v", err)
	}
	if tok.RefreshToken == "" || tok.TokenType != "Bearer" {
		t.Fatalf("token = %+v", tok)
	}
	if got := time.Until(tok.Expiry); got < 50*time.Minute || got > 61*time.Minute {
		t.Errorf("expiry in %v, want about 1h (OAuthTokenTTL)", got)
	}
	if sc, _ := tok.Extra("scope").(string); sc != "read" {
		t.Errorf("scope = %q, want read", sc)
	}

	// The access token authenticates, as the consenting account, read only.
	res, err := conf.Client(ctx, tok).Get(e.ts.URL + "/v1/whoami")
	if err != nil {
		t.Fatal(err)
	}
	var p Principal
	json.NewDecoder(res.Body).Decode(&p)
	res.Body.Close()
	if res.StatusCode != 200 || p.AccountID != acct.ID || p.Method != MethodOAuth || p.ClientID != conf.ClientID {
		t.Fatalf("whoami: %d %+v", res.StatusCode, p)
	}
	if !p.Allowed(ScopeRead, OpAnalyze) || p.Allowed(ScopeWrite, OpAnalyze) {
		t.Errorf("read token: Allowed(read)=%v Allowed(write)=%v", p.Allowed(ScopeRead, OpAnalyze), p.Allowed(ScopeWrite, OpAnalyze))
	}

	// Refresh through a TokenSource: a new pair (rotation).
	old := *tok
	expired := *tok
	expired.Expiry = time.Now().Add(-time.Minute)
	tok2, err := conf.TokenSource(ctx, &expired).Token()
	if err != nil {
		t.Fatalf("refresh: %v", err)
	}
	if tok2.RefreshToken == old.RefreshToken || tok2.AccessToken == old.AccessToken {
		t.Fatal("refresh did not rotate the tokens")
	}
	if st, _ := e.bearer(tok2.AccessToken); st != 200 {
		t.Fatalf("refreshed token: status %d", st)
	}

	// Scope cannot widen on refresh.
	wide := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tok2.RefreshToken}, "scope": {"read write"},
		"client_id": {conf.ClientID}, "client_secret": {conf.ClientSecret}}
	if st, body := postForm(t, conf.Endpoint.TokenURL, wide, ""); st != 400 || body["error"] != "invalid_scope" {
		t.Fatalf("widening refresh: %d %v", st, body)
	}
	// That request burned tok2's refresh token (it was presented), so
	// presenting it again is reuse: take a fresh pair first.
	code, verifier = getCode(t, e, conf)
	tok, err = conf.Exchange(ctx, code, oauth2.VerifierOption(verifier))
	if err != nil {
		t.Fatal(err)
	}
	expired = *tok
	expired.Expiry = time.Now().Add(-time.Minute)
	tok3, err := conf.TokenSource(ctx, &expired).Token()
	if err != nil {
		t.Fatal(err)
	}

	// Reuse of the rotated refresh token: invalid_grant, and the whole
	// family is revoked, including the newest tokens.
	_, err = conf.TokenSource(ctx, &expired).Token()
	if retrieveCode(err) != "invalid_grant" {
		t.Fatalf("reuse: err = %v, want invalid_grant", err)
	}
	if st, _ := e.bearer(tok3.AccessToken); st != 401 {
		t.Errorf("access token after reuse detection: status %d, want 401", st)
	}
	exp3 := *tok3
	exp3.Expiry = time.Now().Add(-time.Minute)
	if _, err := conf.TokenSource(ctx, &exp3).Token(); retrieveCode(err) != "invalid_grant" {
		t.Errorf("newest refresh after reuse: %v, want invalid_grant", err)
	}
}

// postForm posts a form (with Basic auth when user is set as "id:secret")
// and returns status and decoded JSON.
func postForm(t *testing.T, u string, form url.Values, user string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest("POST", u, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if id, sec, ok := strings.Cut(user, ":"); ok {
		req.SetBasicAuth(url.QueryEscape(id), url.QueryEscape(sec))
	}
	return do(t, req)
}

func postJSON(t *testing.T, u string, body any) (int, map[string]any) {
	t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest("POST", u, strings.NewReader(string(b)))
	req.Header.Set("Content-Type", "application/json")
	return do(t, req)
}

func do(t *testing.T, req *http.Request) (int, map[string]any) {
	t.Helper()
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var m map[string]any
	b, _ := io.ReadAll(res.Body)
	if len(b) > 0 {
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("body %q: %v", b, err)
		}
	}
	if m == nil {
		m = map[string]any{}
	}
	m["_cache"] = res.Header.Get("Cache-Control")
	m["_www"] = res.Header.Get("WWW-Authenticate")
	return res.StatusCode, m
}

func TestRevocation(t *testing.T) {
	e := newEnv(t, nil)
	conf, _ := oauthSetup(t, e, ScopeRead, ScopeWrite)
	ctx := context.Background()
	revokeURL := e.ts.URL + "/v1/oauth/revoke"
	creds := conf.ClientID + ":" + conf.ClientSecret
	pair := func() *oauth2.Token {
		code, v := getCode(t, e, conf)
		tok, err := conf.Exchange(ctx, code, oauth2.VerifierOption(v))
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}

	t.Run("refresh token revokes its family", func(t *testing.T) {
		tok := pair()
		if st, _ := postForm(t, revokeURL, url.Values{"token": {tok.RefreshToken}, "token_type_hint": {"refresh_token"}}, creds); st != 200 {
			t.Fatalf("revoke: %d", st)
		}
		if st, _ := e.bearer(tok.AccessToken); st != 401 {
			t.Errorf("access token of revoked grant: %d, want 401", st)
		}
		exp := *tok
		exp.Expiry = time.Now().Add(-time.Minute)
		if _, err := conf.TokenSource(ctx, &exp).Token(); retrieveCode(err) != "invalid_grant" {
			t.Errorf("refresh after revoke: %v", err)
		}
	})
	t.Run("access token revokes its jti", func(t *testing.T) {
		tok := pair()
		if st, _ := e.bearer(tok.AccessToken); st != 200 {
			t.Fatalf("before revoke: %d", st)
		}
		if st, _ := postForm(t, revokeURL, url.Values{"token": {tok.AccessToken}, "client_id": {conf.ClientID}, "client_secret": {conf.ClientSecret}}, ""); st != 200 {
			t.Fatalf("revoke: %d", st)
		}
		if st, _ := e.bearer(tok.AccessToken); st != 401 {
			t.Errorf("after revoke: %d, want 401", st)
		}
	})
	t.Run("unknown token is 200", func(t *testing.T) {
		if st, _ := postForm(t, revokeURL, url.Values{"token": {"no-such-token"}}, creds); st != 200 {
			t.Errorf("status %d, want 200", st)
		}
	})
	t.Run("client auth required", func(t *testing.T) {
		tok := pair()
		st, body := postForm(t, revokeURL, url.Values{"token": {tok.AccessToken}}, "")
		if st != 401 || body["error"] != "invalid_client" {
			t.Errorf("no client auth: %d %v", st, body)
		}
		if st, _ := e.bearer(tok.AccessToken); st != 200 {
			t.Errorf("token revoked without client auth: %d", st)
		}
	})
}

func TestCodeReuseRace(t *testing.T) {
	e := newEnv(t, nil)
	conf, _ := oauthSetup(t, e, ScopeRead)
	code, verifier := getCode(t, e, conf)
	const n = 12
	var wg sync.WaitGroup
	toks := make([]*oauth2.Token, n)
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			toks[i], errs[i] = conf.Exchange(context.Background(), code, oauth2.VerifierOption(verifier))
		})
	}
	wg.Wait()
	ok := 0
	var won *oauth2.Token
	for i := range n {
		switch {
		case errs[i] == nil:
			ok++
			won = toks[i]
		case retrieveCode(errs[i]) != "invalid_grant":
			t.Errorf("loser %d: %v, want invalid_grant", i, errs[i])
		}
	}
	if ok != 1 {
		t.Fatalf("%d of %d redemptions succeeded, want exactly 1", ok, n)
	}
	// The reuse revoked the winner's grant (RFC 6749 section 4.1.2).
	if st, _ := e.bearer(won.AccessToken); st != 401 {
		t.Errorf("winner's token after reuse: %d, want 401", st)
	}
}

func TestTokenEndpointErrors(t *testing.T) {
	e := newEnv(t, nil)
	conf, acct := oauthSetup(t, e, ScopeRead)
	otherSecret, other := e.client(acct, []string{testRedirect}, nil)
	ctx := context.Background()

	t.Run("expired code", func(t *testing.T) {
		code, v := getCode(t, e, conf)
		e.clock.Advance(10*time.Minute + time.Second)
		defer e.clock.Advance(-(10*time.Minute + time.Second))
		if _, err := conf.Exchange(ctx, code, oauth2.VerifierOption(v)); retrieveCode(err) != "invalid_grant" {
			t.Fatalf("err = %v, want invalid_grant", err)
		}
	})
	t.Run("code redeemed by another client", func(t *testing.T) {
		code, v := getCode(t, e, conf)
		c2 := *conf
		c2.ClientID, c2.ClientSecret = other.ID, otherSecret
		if _, err := c2.Exchange(ctx, code, oauth2.VerifierOption(v)); retrieveCode(err) != "invalid_grant" {
			t.Fatalf("err = %v, want invalid_grant", err)
		}
		// The code was checked, not spent: its own client still redeems it.
		if tok, err := conf.Exchange(ctx, code, oauth2.VerifierOption(v)); err != nil || tok.AccessToken == "" {
			t.Fatalf("the rightful client after another's attempt: %v", err)
		}
	})
	t.Run("wrong verifier", func(t *testing.T) {
		code, v := getCode(t, e, conf)
		if _, err := conf.Exchange(ctx, code, oauth2.VerifierOption(oauth2.GenerateVerifier())); retrieveCode(err) != "invalid_grant" {
			t.Fatalf("err = %v, want invalid_grant", err)
		}
		if tok, err := conf.Exchange(ctx, code, oauth2.VerifierOption(v)); err != nil || tok.AccessToken == "" {
			t.Fatalf("the right verifier after a wrong one: %v", err)
		}
	})
	t.Run("missing verifier", func(t *testing.T) {
		code, _ := getCode(t, e, conf)
		if _, err := conf.Exchange(ctx, code); retrieveCode(err) != "invalid_request" {
			t.Fatalf("err = %v, want invalid_request", err)
		}
	})
	t.Run("redirect_uri differs", func(t *testing.T) {
		code, v := getCode(t, e, conf)
		c2 := *conf
		c2.RedirectURL = testRedirect + "/x"
		if _, err := c2.Exchange(ctx, code, oauth2.VerifierOption(v)); retrieveCode(err) != "invalid_grant" {
			t.Fatalf("err = %v, want invalid_grant", err)
		}
	})
	t.Run("wrong secret basic", func(t *testing.T) {
		st, body := postForm(t, conf.Endpoint.TokenURL, url.Values{"grant_type": {"authorization_code"}, "code": {"x"}}, conf.ClientID+":wrong")
		if st != 401 || body["error"] != "invalid_client" || !strings.HasPrefix(body["_www"].(string), "Basic") {
			t.Fatalf("%d %v", st, body)
		}
	})
	t.Run("implicit and password grants refused", func(t *testing.T) {
		for _, gt := range []string{"password", "implicit", "urn:ietf:params:oauth:grant-type:device_code"} {
			st, body := postForm(t, conf.Endpoint.TokenURL, url.Values{"grant_type": {gt}}, conf.ClientID+":"+conf.ClientSecret)
			if st != 400 || body["error"] != "unsupported_grant_type" {
				t.Errorf("%s: %d %v", gt, st, body)
			}
		}
	})
	t.Run("JSON body as in the spec", func(t *testing.T) {
		code, v := getCode(t, e, conf)
		st, body := postJSON(t, conf.Endpoint.TokenURL, map[string]string{"grant_type": "authorization_code", "code": code,
			"client_id": conf.ClientID, "client_secret": conf.ClientSecret, "redirect_uri": testRedirect, "code_verifier": v})
		if st != 200 || body["access_token"] == nil || body["refresh_token"] == nil || body["_cache"] != "no-store" {
			t.Fatalf("%d %v", st, body)
		}
	})
}

func TestAuthorizeRequestErrors(t *testing.T) {
	e := newEnv(t, nil)
	conf, _ := oauthSetup(t, e, ScopeRead)
	v := oauth2.GenerateVerifier()
	b := browser(t)
	get := func(u string) *http.Response {
		res, err := b.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return res
	}
	redirectErr := func(res *http.Response) string {
		if res.StatusCode != http.StatusSeeOther && res.StatusCode != http.StatusFound {
			return ""
		}
		loc, _ := url.Parse(res.Header.Get("Location"))
		if !strings.HasPrefix(loc.String(), testRedirect) {
			return "redirect elsewhere: " + loc.String()
		}
		return loc.Query().Get("error")
	}
	tests := []struct {
		name string
		url  string
		want string
	}{
		{"no PKCE", conf.AuthCodeURL("s"), "invalid_request"},
		{"plain PKCE", conf.AuthCodeURL("s", oauth2.SetAuthURLParam("code_challenge", v), oauth2.SetAuthURLParam("code_challenge_method", "plain")), "invalid_request"},
		{"token response type", strings.Replace(conf.AuthCodeURL("s", oauth2.S256ChallengeOption(v)), "response_type=code", "response_type=token", 1), "unsupported_response_type"},
		{"scope not allowed", strings.Replace(conf.AuthCodeURL("s", oauth2.S256ChallengeOption(v)), "scope=read", "scope=read+admin", 1), "invalid_scope"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := redirectErr(get(tc.url)); got != tc.want {
				t.Errorf("error = %q, want %q", got, tc.want)
			}
		})
	}
	t.Run("unknown client gets an error page", func(t *testing.T) {
		c2 := *conf
		c2.ClientID = "cli_nope"
		res := get(c2.AuthCodeURL("s", oauth2.S256ChallengeOption(v)))
		if res.StatusCode != 400 || res.Header.Get("Location") != "" {
			t.Errorf("status %d location %q", res.StatusCode, res.Header.Get("Location"))
		}
	})
}

func TestRedirectURIExactMatch(t *testing.T) {
	e := newEnv(t, nil)
	a := e.account("owner@example.com")
	const reg = "https://app.example.com/cb?x=1"
	_, c := e.client(a, []string{reg}, nil)
	v := oauth2.GenerateVerifier()
	try := func(redirect string) *http.Response {
		conf := &oauth2.Config{ClientID: c.ID, Endpoint: oauth2.Endpoint{AuthURL: e.ts.URL + "/v1/oauth/authorize"}, RedirectURL: redirect, Scopes: []string{"read"}}
		res, err := browser(t).Get(conf.AuthCodeURL("s", oauth2.S256ChallengeOption(v)))
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res
	}
	if res := try(reg); res.StatusCode != 200 {
		t.Fatalf("registered URI: status %d", res.StatusCode)
	}
	for name, bad := range map[string]string{
		"extra path":      "https://app.example.com/cb/../evil?x=1",
		"path suffix":     "https://app.example.com/cb2?x=1",
		"suffix host":     "https://app.example.com.evil.com/cb?x=1",
		"prefix host":     "https://evilapp.example.com/cb?x=1",
		"subdomain":       "https://sub.app.example.com/cb?x=1",
		"changed query":   "https://app.example.com/cb?x=2",
		"extra query":     "https://app.example.com/cb?x=1&y=2",
		"no query":        "https://app.example.com/cb",
		"fragment":        "https://app.example.com/cb?x=1#f",
		"scheme change":   "http://app.example.com/cb?x=1",
		"userinfo":        "https://app.example.com@evil.com/cb?x=1",
		"trailing slash":  "https://app.example.com/cb/?x=1",
		"percent-encoded": "https://app.example.com/%63b?x=1",
		"upper-case host": "https://APP.example.com/cb?x=1",
		"upper-case path": "https://app.example.com/CB?x=1",
		"explicit port":   "https://app.example.com:443/cb?x=1",
		"empty":           "",
	} {
		t.Run(name, func(t *testing.T) {
			res := try(bad)
			if res.StatusCode != 400 || res.Header.Get("Location") != "" {
				t.Errorf("%q: status %d location %q, want 400 error page", bad, res.StatusCode, res.Header.Get("Location"))
			}
		})
	}
}

func TestConsentPage(t *testing.T) {
	e := newEnv(t, nil)
	conf, _ := oauthSetup(t, e, ScopeRead, ScopeWrite)
	v := oauth2.GenerateVerifier()
	authURL := conf.AuthCodeURL("xyz", oauth2.S256ChallengeOption(v))

	t.Run("headers", func(t *testing.T) {
		res, form := consentForm(t, browser(t), authURL)
		csp := res.Header.Get("Content-Security-Policy")
		if !strings.Contains(csp, "default-src 'none'") || !strings.Contains(csp, "frame-ancestors 'none'") || res.Header.Get("X-Frame-Options") != "DENY" {
			t.Errorf("headers: %v", res.Header)
		}
		if form.Get("csrf_token") == "" || form.Get("code_challenge") != oauth2.S256ChallengeFromVerifier(v) {
			t.Errorf("form: %v", form)
		}
	})
	t.Run("deny", func(t *testing.T) {
		loc := authorize(t, browser(t), e.ts.URL, authURL, "", "", "deny")
		if loc.Query().Get("error") != "access_denied" || loc.Query().Get("state") != "xyz" || loc.Query().Get("code") != "" {
			t.Errorf("deny redirect: %s", loc)
		}
	})
	t.Run("wrong password", func(t *testing.T) {
		b := browser(t)
		_, form := consentForm(t, b, authURL)
		form.Set("email", "owner@example.com")
		form.Set("password", "wrong password")
		form.Set("action", "allow")
		res, err := b.PostForm(e.ts.URL+"/v1/oauth/authorize", form)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != 401 || res.Header.Get("Location") != "" {
			t.Errorf("status %d", res.StatusCode)
		}
	})
	t.Run("missing CSRF cookie", func(t *testing.T) {
		_, form := consentForm(t, browser(t), authURL)
		form.Set("email", "owner@example.com")
		form.Set("password", testPassword)
		form.Set("action", "allow")
		res, err := http.PostForm(e.ts.URL+"/v1/oauth/authorize", form) // no cookie jar
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != 403 {
			t.Errorf("status %d, want 403", res.StatusCode)
		}
	})
	t.Run("cross-site POST", func(t *testing.T) {
		b := browser(t)
		_, form := consentForm(t, b, authURL)
		form.Set("email", "owner@example.com")
		form.Set("password", testPassword)
		form.Set("action", "allow")
		req, _ := http.NewRequest("POST", e.ts.URL+"/v1/oauth/authorize", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Sec-Fetch-Site", "cross-site")
		res, err := b.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != 403 {
			t.Errorf("status %d, want 403", res.StatusCode)
		}
	})
	t.Run("tampered scope in form", func(t *testing.T) {
		b := browser(t)
		_, form := consentForm(t, b, conf.AuthCodeURL("xyz", oauth2.S256ChallengeOption(v), oauth2.SetAuthURLParam("scope", "read")))
		form.Set("scope", "read admin")
		form.Set("email", "owner@example.com")
		form.Set("password", testPassword)
		form.Set("action", "allow")
		res, err := b.PostForm(e.ts.URL+"/v1/oauth/authorize", form)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		loc, _ := url.Parse(res.Header.Get("Location"))
		if loc.Query().Get("code") != "" || loc.Query().Get("error") != "invalid_scope" {
			t.Errorf("got %d %s", res.StatusCode, loc)
		}
	})
}

func TestSessionAccountSkipsLogin(t *testing.T) {
	var acctID string
	e := newEnv(t, &Options{SessionAccount: func(*http.Request) (string, bool) { return acctID, acctID != "" }})
	conf, a := oauthSetup(t, e, ScopeRead)
	acctID = a.ID
	v := oauth2.GenerateVerifier()
	b := browser(t)
	res, form := consentForm(t, b, conf.AuthCodeURL("s", oauth2.S256ChallengeOption(v)))
	if res.StatusCode != 200 {
		t.Fatal(res.StatusCode)
	}
	form.Set("action", "allow")
	res, err := b.PostForm(e.ts.URL+"/v1/oauth/authorize", form)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	loc, _ := url.Parse(res.Header.Get("Location"))
	tok, err := conf.Exchange(context.Background(), loc.Query().Get("code"), oauth2.VerifierOption(v))
	if err != nil {
		t.Fatalf("exchange: %v (location %s)", err, loc)
	}
	if _, p := e.bearer(tok.AccessToken); p == nil || p.AccountID != a.ID {
		t.Fatalf("principal %+v", p)
	}
}

func TestMetadata(t *testing.T) {
	e := newEnv(t, &Options{BaseURL: "https://api.example.com"})
	res, err := http.Get(e.ts.URL + "/.well-known/oauth-authorization-server")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var m struct {
		Issuer        string   `json:"issuer"`
		Token         string   `json:"token_endpoint"`
		Methods       []string `json:"code_challenge_methods_supported"`
		Grants        []string `json:"grant_types_supported"`
		ResponseTypes []string `json:"response_types_supported"`
	}
	json.NewDecoder(res.Body).Decode(&m)
	if m.Issuer != "https://api.example.com" || m.Token != "https://api.example.com/v1/oauth/token" ||
		!slices.Equal(m.Methods, []string{"S256"}) || slices.Contains(m.Grants, "password") || slices.Contains(m.Grants, "implicit") ||
		!slices.Equal(m.ResponseTypes, []string{"code"}) {
		t.Errorf("metadata %+v", m)
	}
}
