package httpapi

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/url"
	"strings"
	"testing"

	"github.com/seokit/seokit/httpapi/auth"
)

// TestFailuresNeverBlockValidCredentials: requests without credentials do
// not count, and invalid ones past the address's budget get 429 while a
// valid key from the same address still gets 200.
func TestFailuresNeverBlockValidCredentials(t *testing.T) {
	a := newTestAPI(t, nil)
	for range 30 {
		apiErr(t, a.call("GET", "/v1/analyze/site", "", ""), 401, CodeUnauthorized)
	}
	wantStatus(t, a.call("GET", "/v1/analyze/site", a.key, ""), 200)
	saw429 := false
	for range auth.DefaultAddrBurst + 5 {
		resp := a.call("GET", "/v1/analyze/site", "seo_live_wrong", "")
		if resp.StatusCode == 429 {
			saw429 = true
			if resp.Header.Get("Retry-After") == "" {
				t.Error("429 without Retry-After")
			}
		}
		resp.Body.Close()
	}
	if !saw429 {
		t.Error("invalid keys were never throttled")
	}
	wantStatus(t, a.call("GET", "/v1/analyze/site", a.key, ""), 200)
}

// TestMetadataBehindProxy: behind the trusted TLS proxy, a hostile Host
// header is not reflected; the metadata shows the configured https issuer,
// which is the tokens' iss.
func TestMetadataBehindProxy(t *testing.T) {
	const proxy, base = "198.51.100.7", "https://api.example.com"
	a0 := newTestAPI(t, nil, apiConfig{noAccount: true})
	au, err := auth.New(context.Background(), a0.st, &auth.Options{BaseURL: base})
	if err != nil {
		t.Fatal(err)
	}
	a := newTestAPI(t, &Options{Store: a0.st, Auth: au, TrustedProxies: []netipPrefix{mustPrefix(proxy + "/32")}})
	r := a.req("GET", "/.well-known/oauth-authorization-server", "", "")
	r.Header.Set(testPeerHeader, proxy+":443")
	r.Header.Set("X-Forwarded-Proto", "https")
	r.Header.Set("X-Forwarded-For", "203.0.113.5")
	r.Host = "evil.example"
	resp := a.do(r)
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var m map[string]any
	json.Unmarshal(raw, &m)
	if resp.StatusCode != 200 || m["issuer"] != base || strings.Contains(string(raw), "evil") || strings.Contains(string(raw), "http://") {
		t.Fatalf("metadata %d %s", resp.StatusCode, raw)
	}
	secret, c, err := au.CreateClient(context.Background(), a.acct.ID, "app", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	r = a.req("POST", "/v1/auth/token", "", `{"client_id":"`+c.ID+`","client_secret":"`+secret+`"}`)
	r.Header.Set(testPeerHeader, proxy+":443")
	r.Header.Set("X-Forwarded-Proto", "https")
	resp = a.do(r)
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	readJSON(t, resp, &tok)
	parts := strings.Split(tok.AccessToken, ".")
	if len(parts) != 3 {
		t.Fatalf("token %q", tok.AccessToken)
	}
	payload, _ := base64.RawURLEncoding.DecodeString(parts[1])
	var claims struct {
		Iss string `json:"iss"`
	}
	json.Unmarshal(payload, &claims)
	if claims.Iss != m["issuer"] {
		t.Errorf("token iss %q, metadata issuer %v", claims.Iss, m["issuer"])
	}
}

// TestSecretsNotLogged: no credential sent in the query string reaches the
// access log.
func TestSecretsNotLogged(t *testing.T) {
	a := newTestAPI(t, nil)
	for i, p := range append(auth.SecretParams, "API_KEY", "api%5Fkey", "Access_Token") {
		secret := "s3cr3t" + strings.Repeat("x", i+1) + "END"
		path := "/v1/analyze/site?limit=1&" + p + "=" + url.QueryEscape(secret)
		a.call("GET", path, a.key, "").Body.Close()
		a.call("POST", "/v1/oauth/token?"+p+"="+secret, "", "").Body.Close()
	}
	logs := a.logs.String()
	if strings.Contains(logs, "s3cr3t") {
		t.Errorf("a secret reached the log:\n%s", logs)
	}
	if !strings.Contains(logs, "limit=1") || !strings.Contains(logs, auth.Redacted) {
		t.Errorf("the access log lost the path:\n%s", logs)
	}
}
