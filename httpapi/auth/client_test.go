package auth

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/seo"
)

func TestClientCredentialsToken(t *testing.T) {
	e := newEnv(t, nil)
	a := e.account("c@example.com")
	secret, c := e.client(a, nil, []string{"read"})
	u := e.ts.URL + "/v1/auth/token"
	check := func(t *testing.T, st int, body map[string]any) {
		t.Helper()
		if st != 200 || body["token_type"] != "Bearer" || body["expires_in"] != float64(86400) || body["scope"] != "read" || body["_cache"] != "no-store" {
			t.Fatalf("%d %v", st, body)
		}
		stt, p := e.bearer(body["access_token"].(string))
		if stt != 200 || p.AccountID != a.ID || p.Method != MethodBearer || p.ClientID != c.ID {
			t.Fatalf("principal %d %+v", stt, p)
		}
	}
	t.Run("JSON as in the spec", func(t *testing.T) {
		st, body := postJSON(t, u, map[string]string{"client_id": c.ID, "client_secret": secret})
		check(t, st, body)
	})
	t.Run("form with body credentials", func(t *testing.T) {
		st, body := postForm(t, u, url.Values{"grant_type": {"client_credentials"}, "client_id": {c.ID}, "client_secret": {secret}}, "")
		check(t, st, body)
	})
	t.Run("form with Basic", func(t *testing.T) {
		st, body := postForm(t, u, url.Values{"grant_type": {"client_credentials"}}, c.ID+":"+secret)
		check(t, st, body)
	})
	t.Run("wrong secret JSON", func(t *testing.T) {
		st, body := postJSON(t, u, map[string]string{"client_id": c.ID, "client_secret": secret + "x"})
		if st != 401 || body["error"] != "invalid_client" || body["_www"] != "" {
			t.Fatalf("%d %v", st, body)
		}
	})
	t.Run("wrong secret Basic", func(t *testing.T) {
		st, body := postForm(t, u, url.Values{"grant_type": {"client_credentials"}}, c.ID+":nope")
		if st != 401 || body["error"] != "invalid_client" || !strings.HasPrefix(body["_www"].(string), "Basic") {
			t.Fatalf("%d %v", st, body)
		}
	})
	t.Run("unknown client", func(t *testing.T) {
		st, body := postJSON(t, u, map[string]string{"client_id": "cli_nope", "client_secret": secret})
		if st != 401 || body["error"] != "invalid_client" {
			t.Fatalf("%d %v", st, body)
		}
	})
	t.Run("scope widening", func(t *testing.T) {
		st, body := postForm(t, u, url.Values{"grant_type": {"client_credentials"}, "scope": {"write"}}, c.ID+":"+secret)
		if st != 400 || body["error"] != "invalid_scope" {
			t.Fatalf("%d %v", st, body)
		}
	})
	t.Run("bad bodies", func(t *testing.T) {
		if st, body := postJSON(t, u, []string{"x"}); st != 400 || body["error"] != "invalid_request" {
			t.Errorf("array: %d %v", st, body)
		}
		if st, body := postJSON(t, u, map[string]any{"client_id": 5}); st != 400 || body["error"] != "invalid_request" {
			t.Errorf("number: %d %v", st, body)
		}
		if st, body := postForm(t, u, url.Values{"grant_type": {"password"}}, c.ID+":"+secret); st != 400 || body["error"] != "unsupported_grant_type" {
			t.Errorf("password grant: %d %v", st, body)
		}
	})
	t.Run("rotated secret", func(t *testing.T) {
		s2, err := e.srv.RotateClientSecret(context.Background(), a.ID, c.ID)
		if err != nil {
			t.Fatal(err)
		}
		if st, _ := postJSON(t, u, map[string]string{"client_id": c.ID, "client_secret": secret}); st != 401 {
			t.Errorf("old secret: %d", st)
		}
		st, body := postJSON(t, u, map[string]string{"client_id": c.ID, "client_secret": s2})
		check(t, st, body)
		if _, err := e.srv.RotateClientSecret(context.Background(), "acct_other", c.ID); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("other account: %v", err)
		}
	})
}

func TestClientBruteForceThrottle(t *testing.T) {
	e := newEnv(t, nil)
	a := e.account("b@example.com")
	secret, c := e.client(a, nil, nil)
	u := e.ts.URL + "/v1/auth/token"
	for i := range 10 {
		if st, _ := postJSON(t, u, map[string]string{"client_id": c.ID, "client_secret": "guess"}); st != 401 {
			t.Fatalf("attempt %d: %d", i, st)
		}
	}
	before := e.st.calls.Load()
	st, body := postJSON(t, u, map[string]string{"client_id": c.ID, "client_secret": secret})
	if st != 429 || body["error"] != "slow_down" {
		t.Fatalf("after 10 failures: %d %v, want 429", st, body)
	}
	if e.st.calls.Load() != before {
		t.Error("throttled request reached the store")
	}
	e.clock.Advance(20 * 1e9) // 20 s refill 10 attempts at one per 2 s
	if st, _ := postJSON(t, u, map[string]string{"client_id": c.ID, "client_secret": secret}); st != 200 {
		t.Errorf("after waiting: %d", st)
	}
}

func TestValidateRedirectURI(t *testing.T) {
	tests := []struct {
		uri string
		ok  bool
	}{
		{"https://app.example.com/cb", true},
		{"https://app.example.com/cb?x=1", true},
		{"http://127.0.0.1:8080/cb", true},
		{"http://[::1]/cb", true},
		{"http://localhost:3000/cb", true},
		{"http://app.example.com/cb", false},
		{"https://app.example.com/cb#frag", false},
		{"https://app.example.com/cb#", false},
		{"https://user:pw@app.example.com/cb", false},
		{"/cb", false},
		{"app.example.com/cb", false},
		{"javascript:alert(1)", false},
		{"custom.scheme:/cb", false},
		{"", false},
		{"https://" + strings.Repeat("a", 2100) + ".com/", false},
	}
	for _, tc := range tests {
		err := ValidateRedirectURI(tc.uri)
		if tc.ok != (err == nil) {
			t.Errorf("%.40q: err = %v, want ok=%v", tc.uri, err, tc.ok)
		}
		if err != nil {
			if ie, ok := seo.AsInputError(err); !ok || ie.Field != "redirectUris" {
				t.Errorf("%.40q: %v is not an InputError on redirectUris", tc.uri, err)
			}
		}
	}
}

func TestCreateClientAndAccountValidation(t *testing.T) {
	e := newEnv(t, nil)
	ctx := context.Background()
	a := e.account("x@example.com")
	field := func(err error) string {
		if ie, ok := seo.AsInputError(err); ok {
			return ie.Field
		}
		return "<" + errString(err) + ">"
	}
	_, _, err := e.srv.CreateClient(ctx, a.ID, "app", []string{"http://evil.example/cb"}, nil)
	if f := field(err); f != "redirectUris" {
		t.Errorf("http redirect: %s", f)
	}
	_, _, err = e.srv.CreateClient(ctx, a.ID, "app", nil, []string{"admin"})
	if f := field(err); f != "scopes" {
		t.Errorf("scope: %s", f)
	}
	for _, name := range []string{"", "app\u202e", "app\x00"} {
		_, _, err = e.srv.CreateClient(ctx, a.ID, name, nil, nil)
		if f := field(err); f != "name" {
			t.Errorf("name %q: %s", name, f)
		}
	}
	for name, tc := range map[string]struct {
		email, pw string
		plan      store.Plan
		field     string
	}{
		"bad email":      {"not-an-email", "", "", "email"},
		"display name":   {"Bob <b@example.com>", "", "", "email"},
		"short password": {"s@example.com", "short", "", "password"},
		"bad plan":       {"p@example.com", "", "gold", "plan"},
		"duplicate":      {"X@example.com", "", "", "email"},
	} {
		_, err := e.srv.CreateAccount(ctx, tc.email, "N", tc.pw, tc.plan)
		if f := field(err); f != tc.field {
			t.Errorf("%s: field %s, want %s", name, f, tc.field)
		}
	}
	acct, err := e.srv.CreateAccount(ctx, "New@Example.com", "N", "", "")
	if err != nil || acct.Email != "new@example.com" || acct.Plan != store.Free || acct.PasswordHash != "" {
		t.Errorf("account %+v %v", acct, err)
	}
}

func errString(err error) string {
	if err == nil {
		return "nil"
	}
	return err.Error()
}

func TestPasswordHash(t *testing.T) {
	h, err := HashPassword("s3cret password")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(h, "$argon2id$v=19$m=19456,t=2,p=1$") {
		t.Errorf("hash %q", h)
	}
	h2, _ := HashPassword("s3cret password")
	if h == h2 {
		t.Error("same hash twice: salt not random")
	}
	for _, tc := range []struct {
		pw   string
		want bool
	}{{"s3cret password", true}, {"s3cret passwor", false}, {"", false}} {
		if ok, err := VerifyPassword(h, tc.pw); ok != tc.want || err != nil {
			t.Errorf("VerifyPassword(%q) = %v, %v", tc.pw, ok, err)
		}
	}
	for _, bad := range []string{"", "plain", "$argon2i$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA",
		"$argon2id$v=19$m=4294967295,t=2,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA", "$argon2id$v=19$m=19456,t=2,p=1$!!$aGFzaA"} {
		if _, err := VerifyPassword(bad, "x"); !errors.Is(err, ErrBadHash) {
			t.Errorf("%q: err = %v", bad, err)
		}
	}
}
