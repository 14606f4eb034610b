package auth

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/seokit/seokit/seo"
)

// signWith signs claims with key under the given header values.
func signWith(t *testing.T, method jwt.SigningMethod, key any, kid, typ string, claims jwt.Claims) string {
	t.Helper()
	tok := jwt.NewWithClaims(method, claims)
	if kid != "" {
		tok.Header["kid"] = kid
	}
	if typ != "" {
		tok.Header["typ"] = typ
	}
	s, err := tok.SignedString(key)
	if err != nil {
		t.Fatalf("sign: %v", err)
	}
	return s
}

func (e *env) signer() (string, ed25519.PrivateKey) {
	k, err := e.srv.currentKeys(context.Background())
	if err != nil {
		e.t.Fatal(err)
	}
	return k.signer.kid, k.signer.key
}

func TestJWTAttacks(t *testing.T) {
	e := newEnv(t, nil)
	kid, priv := e.signer()
	pub := priv.Public().(ed25519.PublicKey)
	now := e.clock.Now()
	claims := func(mod func(c *Claims)) *Claims {
		c := &Claims{RegisteredClaims: jwt.RegisteredClaims{
			Issuer: "seokit", Audience: jwt.ClaimStrings{"seokit-api"}, Subject: "acct_1", ID: "jti-" + randomBase62(8),
			ExpiresAt: jwt.NewNumericDate(now.Add(time.Hour)), IssuedAt: jwt.NewNumericDate(now), NotBefore: jwt.NewNumericDate(now),
		}, Scope: "read write"}
		if mod != nil {
			mod(c)
		}
		return c
	}
	valid := signWith(t, jwt.SigningMethodEdDSA, priv, kid, "at+jwt", claims(nil))
	_, otherKey, _ := ed25519.GenerateKey(rand.Reader)
	parts := strings.Split(valid, ".")
	var payload map[string]any
	pb, _ := base64.RawURLEncoding.DecodeString(parts[1])
	json.Unmarshal(pb, &payload)
	payload["sub"] = "acct_admin"
	tampered, _ := json.Marshal(payload)
	sig := []byte(parts[2])
	if sig[5] == 'A' {
		sig[5] = 'B'
	} else {
		sig[5] = 'A'
	}

	tests := []struct {
		name  string
		token string
		ok    bool
	}{
		{"valid", valid, true},
		{"alg none", signWith(t, jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, kid, "at+jwt", claims(nil)), false},
		{"alg none unsigned", parts[0][:0] + base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none","kid":"`+kid+`","typ":"at+jwt"}`)) + "." + parts[1] + ".", false},
		{"HS256 with public key", signWith(t, jwt.SigningMethodHS256, []byte(pub), kid, "at+jwt", claims(nil)), false},
		{"HS256 with base64 public key", signWith(t, jwt.SigningMethodHS256, []byte(base64.RawURLEncoding.EncodeToString(pub)), kid, "at+jwt", claims(nil)), false},
		{"expired", signWith(t, jwt.SigningMethodEdDSA, priv, kid, "at+jwt", claims(func(c *Claims) { c.ExpiresAt = jwt.NewNumericDate(now.Add(-2 * time.Minute)) })), false},
		{"nbf in the future", signWith(t, jwt.SigningMethodEdDSA, priv, kid, "at+jwt", claims(func(c *Claims) { c.NotBefore = jwt.NewNumericDate(now.Add(5 * time.Minute)) })), false},
		{"iat in the future", signWith(t, jwt.SigningMethodEdDSA, priv, kid, "at+jwt", claims(func(c *Claims) { c.IssuedAt = jwt.NewNumericDate(now.Add(5 * time.Minute)) })), false},
		{"wrong aud", signWith(t, jwt.SigningMethodEdDSA, priv, kid, "at+jwt", claims(func(c *Claims) { c.Audience = jwt.ClaimStrings{"other-api"} })), false},
		{"wrong iss", signWith(t, jwt.SigningMethodEdDSA, priv, kid, "at+jwt", claims(func(c *Claims) { c.Issuer = "evil" })), false},
		{"missing exp", signWith(t, jwt.SigningMethodEdDSA, priv, kid, "at+jwt", claims(func(c *Claims) { c.ExpiresAt = nil })), false},
		{"missing jti", signWith(t, jwt.SigningMethodEdDSA, priv, kid, "at+jwt", claims(func(c *Claims) { c.ID = "" })), false},
		{"wrong typ", signWith(t, jwt.SigningMethodEdDSA, priv, kid, "JWT", claims(nil)), false},
		{"no typ", signWith(t, jwt.SigningMethodEdDSA, priv, kid, "", claims(nil)), false},
		{"unknown kid", signWith(t, jwt.SigningMethodEdDSA, otherKey, "nope", "at+jwt", claims(nil)), false},
		{"no kid", signWith(t, jwt.SigningMethodEdDSA, priv, "", "at+jwt", claims(nil)), false},
		{"known kid, other key", signWith(t, jwt.SigningMethodEdDSA, otherKey, kid, "at+jwt", claims(nil)), false},
		{"tampered payload", parts[0] + "." + base64.RawURLEncoding.EncodeToString(tampered) + "." + parts[2], false},
		{"tampered signature", parts[0] + "." + parts[1] + "." + string(sig), false},
		{"10,000 dots", strings.Repeat(".", 10000), false},
		{"1 MB token", parts[0] + "." + strings.Repeat("A", 1<<20) + "." + parts[2], false},
		{"empty", "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			st, p := e.bearer(tc.token)
			if tc.ok != (st == 200) {
				t.Fatalf("status %d (principal %+v), want ok=%v", st, p, tc.ok)
			}
			if !tc.ok {
				_, err := e.srv.parseToken(context.Background(), tc.token, e.srv.opts.Audience)
				if !errors.Is(err, ErrInvalidCredentials) {
					t.Errorf("parseToken: %v, want ErrInvalidCredentials", err)
				}
			}
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("took %v", d)
			}
		})
	}
}

func TestOversizedTokenRejectedCheaply(t *testing.T) {
	e := newEnv(t, nil)
	calls := e.st.calls.Load()
	for _, tok := range []string{strings.Repeat(".", 10000), strings.Repeat("a", 1<<20)} {
		start := time.Now()
		_, err := e.srv.parseToken(context.Background(), tok, e.srv.opts.Audience)
		if !errors.Is(err, ErrInvalidCredentials) {
			t.Fatalf("err = %v", err)
		}
		if d := time.Since(start); d > time.Second { // generous: -race and a loaded machine
			t.Errorf("rejecting %d bytes took %v", len(tok), d)
		}
	}
	if got := e.st.calls.Load() - calls; got != 0 {
		t.Errorf("%d store calls, want 0", got)
	}
}

func TestKeyRotation(t *testing.T) {
	e := newEnv(t, nil)
	ctx := context.Background()
	a := e.account("a@example.com")
	secret, c := e.client(a, nil, nil)
	token := func() string {
		st, body := postJSON(t, e.ts.URL+"/v1/auth/token", map[string]string{"client_id": c.ID, "client_secret": secret})
		if st != 200 {
			t.Fatalf("token: %d %v", st, body)
		}
		return body["access_token"].(string)
	}
	kidOf := func(tok string) string {
		h, _ := base64.RawURLEncoding.DecodeString(strings.Split(tok, ".")[0])
		var m map[string]any
		json.Unmarshal(h, &m)
		return m["kid"].(string)
	}
	t1 := token()
	oldKID := kidOf(t1)
	newKID, err := e.srv.RotateSigningKey(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t2 := token()
	if kidOf(t2) != newKID || newKID == oldKID {
		t.Fatalf("new token kid %q, want %q", kidOf(t2), newKID)
	}
	jwks, _ := e.srv.JWKS(ctx)
	if len(jwks) != 2 || jwks[0].KID != newKID || jwks[1].KID != oldKID || jwks[0].Kty != "OKP" || jwks[0].Crv != "Ed25519" {
		t.Fatalf("jwks %+v", jwks)
	}
	for _, tok := range []string{t1, t2} {
		if st, _ := e.bearer(tok); st != 200 {
			t.Fatalf("before retire: %d", st)
		}
	}
	if err := e.srv.RetireSigningKey(ctx, newKID); err == nil {
		t.Error("retiring the current signing key succeeded")
	}
	if err := e.srv.RetireSigningKey(ctx, oldKID); err != nil {
		t.Fatal(err)
	}
	if st, _ := e.bearer(t1); st != 401 {
		t.Errorf("token of retired key: %d, want 401", st)
	}
	if st, _ := e.bearer(t2); st != 200 {
		t.Errorf("token of current key: %d, want 200", st)
	}
	if jwks, _ := e.srv.JWKS(ctx); len(jwks) != 1 {
		t.Errorf("jwks after retire: %+v", jwks)
	}
	// The published JWKS verifies tokens (what an external verifier does).
	res, body := do(t, mustReq(t, "GET", e.ts.URL+"/.well-known/jwks.json"))
	if res != 200 {
		t.Fatal(res)
	}
	keys := body["keys"].([]any)
	x, _ := base64.RawURLEncoding.DecodeString(keys[0].(map[string]any)["x"].(string))
	if _, err := jwt.Parse(t2, func(*jwt.Token) (any, error) { return ed25519.PublicKey(x), nil }, jwt.WithValidMethods([]string{"EdDSA"})); err != nil {
		t.Errorf("verify with published key: %v", err)
	}
	// A second Server over the same store sees the same keys.
	s2, err := New(ctx, e.st, &Options{Now: e.clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s2.authenticateToken(ctx, t2, s2.opts.Audience); err != nil {
		t.Errorf("second server: %v", err)
	}
	var ie *seo.InputError
	if err := e.srv.RetireSigningKey(ctx, "nope"); !errors.As(err, &ie) || ie.Field != "kid" {
		t.Errorf("retire unknown: %v", err)
	}
}

func TestRevokeByJTI(t *testing.T) {
	e := newEnv(t, nil)
	ctx := context.Background()
	tok, c, err := e.srv.issueToken(ctx, "acct_1", "cli_1", "", "", []string{"read"}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if st, _ := e.bearer(tok); st != 200 {
		t.Fatalf("before: %d", st)
	}
	if err := e.srv.RevokeToken(ctx, c.ID, c.ExpiresAt.Time); err != nil {
		t.Fatal(err)
	}
	if st, _ := e.bearer(tok); st != 401 {
		t.Errorf("after revoke: %d, want 401", st)
	}
}

func TestBearerSchemeCaseInsensitive(t *testing.T) {
	e := newEnv(t, nil)
	tok, _, err := e.srv.issueToken(context.Background(), "acct_1", "cli_1", "", "", []string{"read"}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range []string{"bearer " + tok, "BEARER " + tok} {
		if st, _ := e.whoami("Authorization", h); st != 200 {
			t.Errorf("%q: %d", h[:7], st)
		}
	}
	if st, _ := e.whoami("Authorization", "Basic "+tok); st != 401 {
		t.Errorf("Basic scheme: %d", st)
	}
}

// A token signed with a key another instance added to the shared store
// verifies at once, not only after KeyRefresh.
func TestKeyAddedByAnotherInstance(t *testing.T) {
	e := newEnv(t, &Options{KeyRefresh: time.Hour})
	a := e.account("shared@example.com")
	other, err := New(context.Background(), e.st, &Options{Now: e.clock.Now, KeyRefresh: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	kid, err := other.RotateSigningKey(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	tok, _, err := other.issueToken(context.Background(), a.ID, "", "", "", []string{ScopeRead}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if code, p := e.whoami("Authorization", "Bearer "+tok); code != 200 || p.AccountID != a.ID {
		t.Fatalf("token of kid %s from the other instance: status %d, want 200", kid, code)
	}
	// Made-up kids reload the keys at most once a second.
	before := e.st.calls.Load()
	for range 20 {
		e.whoami("Authorization", "Bearer "+forgeKid(t, tok, "kNOSUCHKEY00000"))
	}
	if n := e.st.calls.Load() - before; n > 2 {
		t.Fatalf("20 tokens with an unknown kid made %d store calls, want at most 2", n)
	}
}

// forgeKid replaces the kid in a token's header (the signature no longer
// matters: the kid is looked up first).
func forgeKid(t *testing.T, tok, kid string) string {
	t.Helper()
	parts := strings.Split(tok, ".")
	hdr, err := base64.RawURLEncoding.DecodeString(parts[0])
	if err != nil {
		t.Fatal(err)
	}
	var h map[string]any
	if err := json.Unmarshal(hdr, &h); err != nil {
		t.Fatal(err)
	}
	h["kid"] = kid
	b, _ := json.Marshal(h)
	parts[0] = base64.RawURLEncoding.EncodeToString(b)
	return strings.Join(parts, ".")
}
