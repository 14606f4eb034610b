package auth

import (
	"context"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/seokit/seokit/seo"
)

const (
	testBase     = "https://api.example.com"
	mcpResource  = testBase + "/mcp"
	testAddrHdr  = "X-Test-Addr"
	ownerEmail   = "owner@example.com"
	publicRedir  = "http://127.0.0.1:9/cb"
	otherAudMCP  = "https://other.example.com/mcp"
	registerPath = "/v1/oauth/register"
)

// mcpEnv is an env whose server has a public URL and the protected
// resource /mcp; the client address comes from the X-Test-Addr header.
func mcpEnv(t *testing.T, mod func(*Options)) *env {
	t.Helper()
	o := &Options{
		BaseURL:   testBase,
		Resources: []string{"/mcp"},
		ClientAddr: func(r *http.Request) string {
			return r.Header.Get(testAddrHdr)
		},
	}
	if mod != nil {
		mod(o)
	}
	return newEnv(t, o)
}

// getJSON GETs u and decodes the JSON object answered.
func getJSON(t *testing.T, u string) (int, map[string]any) {
	t.Helper()
	return do(t, mustReq(t, "GET", u))
}

// register posts RFC 7591 client metadata from addr.
func register(t *testing.T, e *env, addr string, body any) (int, map[string]any, http.Header) {
	t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest("POST", e.ts.URL+registerPath, strings.NewReader(string(b)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(testAddrHdr, addr)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var m map[string]any
	json.NewDecoder(res.Body).Decode(&m)
	return res.StatusCode, m, res.Header
}

// registerPublic registers a public client with redirect URI publicRedir.
func registerPublic(t *testing.T, e *env) string {
	t.Helper()
	st, m, _ := register(t, e, "192.0.2.1", map[string]any{"redirect_uris": []string{publicRedir}, "client_name": "Agent", "token_endpoint_auth_method": "none"})
	if st != http.StatusCreated {
		t.Fatalf("register: %d %v", st, m)
	}
	return m["client_id"].(string)
}

// authURL is an authorization request of a public client with PKCE S256
// for verifier and, when set, a resource indicator.
func authURL(e *env, clientID, redirect, verifier, resource string) string {
	q := url.Values{"client_id": {clientID}, "redirect_uri": {redirect}, "response_type": {"code"},
		"scope": {"read write"}, "state": {"s1"}}
	if verifier != "" {
		q.Set("code_challenge", oauth2.S256ChallengeFromVerifier(verifier))
		q.Set("code_challenge_method", "S256")
	}
	if resource != "" {
		q.Set("resource", resource)
	}
	return e.ts.URL + "/v1/oauth/authorize?" + q.Encode()
}

// publicCode runs the consent flow for a public client and returns the
// code and its verifier.
func publicCode(t *testing.T, e *env, clientID, redirect, resource string) (string, string) {
	t.Helper()
	v := oauth2.GenerateVerifier()
	loc := authorize(t, browser(t), e.ts.URL, authURL(e, clientID, redirect, v, resource), ownerEmail, testPassword, "allow")
	if loc.Query().Get("iss") != testBase {
		t.Errorf("authorization response iss = %q, want %q (RFC 9207)", loc.Query().Get("iss"), testBase)
	}
	code := loc.Query().Get("code")
	if code == "" {
		t.Fatalf("no code in %s", loc)
	}
	return code, v
}

// exchangePublic redeems a code as a public client (no secret).
func exchangePublic(t *testing.T, e *env, clientID, redirect, code, verifier, resource string) (int, map[string]any) {
	t.Helper()
	f := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {redirect}, "client_id": {clientID}}
	if verifier != "" {
		f.Set("code_verifier", verifier)
	}
	if resource != "" {
		f.Set("resource", resource)
	}
	return postForm(t, e.ts.URL+"/v1/oauth/token", f, "")
}

// audience reads the aud claim of a JWT without verifying it.
func audience(t *testing.T, tok string) []string {
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
		Aud any `json:"aud"`
	}
	json.Unmarshal(b, &c)
	switch a := c.Aud.(type) {
	case string:
		return []string{a}
	case []any:
		var out []string
		for _, x := range a {
			out = append(out, fmt.Sprint(x))
		}
		return out
	}
	return nil
}

// mcp calls the /mcp stand-in with an Authorization or X-API-Key value.
func mcp(t *testing.T, e *env, header, value string) (int, string) {
	t.Helper()
	req := mustReq(t, "POST", e.ts.URL+"/mcp")
	if header != "" {
		req.Header.Set(header, value)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode, res.Header.Get("WWW-Authenticate")
}

// TestProtectedResourceMetadata checks the RFC 9728 documents (both
// well-known forms), the RFC 8414 additions and the 401 challenge naming
// the metadata.
func TestProtectedResourceMetadata(t *testing.T) {
	e := mcpEnv(t, nil)
	for _, path := range []string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"} {
		st, m := getJSON(t, e.ts.URL+path)
		if st != http.StatusOK {
			t.Fatalf("GET %s: %d", path, st)
		}
		if m["resource"] != mcpResource || fmt.Sprint(m["authorization_servers"]) != "["+testBase+"]" ||
			fmt.Sprint(m["scopes_supported"]) != "[read write]" || fmt.Sprint(m["bearer_methods_supported"]) != "[header]" {
			t.Errorf("GET %s = %v", path, m)
		}
	}
	if res, err := http.Get(e.ts.URL + "/.well-known/oauth-protected-resource/v1"); err != nil || res.StatusCode != http.StatusNotFound {
		t.Errorf("metadata of an unknown resource path: %v %v, want 404", res.StatusCode, err)
	} else {
		res.Body.Close()
	}
	_, m := getJSON(t, e.ts.URL+"/.well-known/oauth-authorization-server")
	if m["registration_endpoint"] != testBase+registerPath || m["client_id_metadata_document_supported"] != false ||
		!slices.Contains(anyStrings(m["token_endpoint_auth_methods_supported"]), "none") ||
		m["authorization_response_iss_parameter_supported"] != true {
		t.Errorf("authorization server metadata = %v", m)
	}
	st, www := mcp(t, e, "", "")
	want := `Bearer realm="seokit", scope="read", resource_metadata="` + testBase + `/.well-known/oauth-protected-resource/mcp"`
	if st != http.StatusUnauthorized || www != want {
		t.Errorf("/mcp without credentials: %d %q, want 401 %q", st, www, want)
	}
	st, www = mcp(t, e, "Authorization", "Bearer nonsense.token.here")
	if st != http.StatusUnauthorized || !strings.Contains(www, `error="invalid_token"`) || !strings.Contains(www, "resource_metadata=") {
		t.Errorf("/mcp with a bad token: %d %q", st, www)
	}
	if got := e.srv.ResourceChallenge("/mcp", "insufficient_scope", "read write", "write needed"); got !=
		`Bearer realm="seokit", error="insufficient_scope", error_description="write needed", scope="read write", resource_metadata="`+testBase+`/.well-known/oauth-protected-resource/mcp"` {
		t.Errorf("insufficient_scope challenge = %q", got)
	}
	for _, bad := range []string{"mcp", "/mcp/", "/mcp?x=1", "//evil/mcp", "/.well-known/x"} {
		if _, err := New(context.Background(), e.st, &Options{BaseURL: testBase, Resources: []string{bad}}); err == nil {
			t.Errorf("resource path %q accepted", bad)
		}
	}
}

func anyStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

// TestResourceTokensBoundToAudience: a token from a flow with the resource
// indicator has the resource as audience and works at /mcp only; tokens
// for the API or another audience are refused at /mcp; a resource the
// server does not serve is invalid_target; the refresh keeps the
// resource; API keys work at /mcp as bearer credentials.
func TestResourceTokensBoundToAudience(t *testing.T) {
	e := mcpEnv(t, nil)
	acct := e.account(ownerEmail)
	id := registerPublic(t, e)

	code, v := publicCode(t, e, id, publicRedir, mcpResource)
	if st, m := exchangePublic(t, e, id, publicRedir, code, v, otherAudMCP); st != http.StatusBadRequest || m["error"] != "invalid_target" {
		t.Errorf("token request naming another resource: %d %v, want invalid_target", st, m)
	}
	st, tr := exchangePublic(t, e, id, publicRedir, code, v, mcpResource)
	if st != http.StatusOK {
		t.Fatalf("token: %d %v", st, tr)
	}
	tok := tr["access_token"].(string)
	if aud := audience(t, tok); !slices.Equal(aud, []string{mcpResource}) {
		t.Errorf("aud = %v, want [%s]", aud, mcpResource)
	}
	if st, _ := mcp(t, e, "Authorization", "Bearer "+tok); st != http.StatusOK {
		t.Errorf("/mcp with its token: %d", st)
	}
	if st, _ := e.bearer(tok); st != http.StatusUnauthorized {
		t.Errorf("the API accepted a token bound to /mcp: %d", st)
	}

	// The refresh keeps the resource.
	st, rr := postForm(t, e.ts.URL+"/v1/oauth/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tr["refresh_token"].(string)}, "client_id": {id}}, "")
	if st != http.StatusOK || !slices.Equal(audience(t, rr["access_token"].(string)), []string{mcpResource}) {
		t.Errorf("refresh: %d %v", st, rr)
	}

	// Without the resource indicator the token is the API's, as before,
	// and /mcp refuses it.
	code, v = publicCode(t, e, id, publicRedir, "")
	_, tr = exchangePublic(t, e, id, publicRedir, code, v, "")
	apiTok := tr["access_token"].(string)
	if st, _ := e.bearer(apiTok); st != http.StatusOK {
		t.Errorf("API token at the API: %d", st)
	}
	if st, www := mcp(t, e, "Authorization", "Bearer "+apiTok); st != http.StatusUnauthorized || !strings.Contains(www, `error="invalid_token"`) {
		t.Errorf("/mcp accepted the API's token: %d %q", st, www)
	}

	// A token of this issuer for another audience.
	other, _, err := e.srv.issueToken(context.Background(), acct.ID, id, "", otherAudMCP, []string{ScopeRead}, 3600e9)
	if err != nil {
		t.Fatal(err)
	}
	if st, _ := mcp(t, e, "Authorization", "Bearer "+other); st != http.StatusUnauthorized {
		t.Errorf("/mcp accepted a token for %s: %d", otherAudMCP, st)
	}
	if st, _ := e.bearer(other); st != http.StatusUnauthorized {
		t.Errorf("the API accepted a token for %s: %d", otherAudMCP, st)
	}

	// A resource this server does not serve: the client is told.
	res, err := browser(t).Get(authURL(e, id, publicRedir, oauth2.GenerateVerifier(), otherAudMCP))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	loc, _ := url.Parse(res.Header.Get("Location"))
	if res.StatusCode != http.StatusSeeOther || loc == nil || loc.Query().Get("error") != "invalid_target" {
		t.Errorf("authorize with resource %s: %d %q, want a redirect with invalid_target", otherAudMCP, res.StatusCode, res.Header.Get("Location"))
	}

	// client_credentials with a resource: a confidential client's
	// token for /mcp.
	secret, cc := e.client(acct, nil, []string{ScopeRead})
	st, ct := postForm(t, e.ts.URL+"/v1/oauth/token", url.Values{"grant_type": {"client_credentials"}, "resource": {mcpResource}}, cc.ID+":"+secret)
	if st != http.StatusOK {
		t.Fatalf("client_credentials with resource: %d %v", st, ct)
	}
	if st, _ := mcp(t, e, "Authorization", "Bearer "+ct["access_token"].(string)); st != http.StatusOK {
		t.Errorf("/mcp with a client-credentials token for it: %d", st)
	}

	// API keys, as a bearer credential or X-API-Key, for scripts.
	key, _, err := e.srv.CreateAPIKey(context.Background(), acct.ID, "script", []string{ScopeRead}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range [][2]string{{"Authorization", "Bearer " + key}, {"X-API-Key", key}} {
		if st, _ := mcp(t, e, h[0], h[1]); st != http.StatusOK {
			t.Errorf("/mcp with an API key in %s: %d", h[0], st)
		}
	}
	if st, _ := mcp(t, e, "Authorization", "Bearer "+key[:len(key)-1]+"x"); st != http.StatusUnauthorized {
		t.Errorf("/mcp with a mangled API key: %d", st)
	}
}

// TestPublicClientNeedsPKCE: a public client has no secret, so PKCE is
// its only proof: an authorization request without a challenge, a token
// request without or with the wrong verifier are refused; a secret sent
// by a public client, and client_credentials for one, are refused too.
func TestPublicClientNeedsPKCE(t *testing.T) {
	e := mcpEnv(t, nil)
	e.account(ownerEmail)
	id := registerPublic(t, e)

	res, err := browser(t).Get(authURL(e, id, publicRedir, "", mcpResource))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	loc, _ := url.Parse(res.Header.Get("Location"))
	if res.StatusCode != http.StatusSeeOther || loc == nil || loc.Query().Get("error") != "invalid_request" ||
		!strings.Contains(loc.Query().Get("error_description"), "code_challenge") {
		t.Errorf("authorize without code_challenge: %d %q", res.StatusCode, res.Header.Get("Location"))
	}

	code, v := publicCode(t, e, id, publicRedir, mcpResource)
	if st, m := exchangePublic(t, e, id, publicRedir, code, "", mcpResource); st != http.StatusBadRequest || m["error"] != "invalid_request" {
		t.Errorf("token without code_verifier: %d %v", st, m)
	}
	if st, m := exchangePublic(t, e, id, publicRedir, code, oauth2.GenerateVerifier(), mcpResource); st != http.StatusBadRequest || m["error"] != "invalid_grant" {
		t.Errorf("token with another verifier: %d %v", st, m)
	}
	f := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {publicRedir}, "code_verifier": {v}}
	if st, m := postForm(t, e.ts.URL+"/v1/oauth/token", f, id+":guessed-secret"); st != http.StatusUnauthorized || m["error"] != "invalid_client" {
		t.Errorf("public client with a secret: %d %v", st, m)
	}
	if st, m := exchangePublic(t, e, id, publicRedir, code, v, mcpResource); st != http.StatusOK {
		t.Errorf("the right verifier after refusals: %d %v (the code must stay usable)", st, m)
	}
	if st, m := postForm(t, e.ts.URL+"/v1/oauth/token", url.Values{"grant_type": {"client_credentials"}, "client_id": {id}}, ""); st != http.StatusBadRequest || m["error"] != "unauthorized_client" {
		t.Errorf("client_credentials for a public client: %d %v", st, m)
	}
}

// TestDynamicRegistration: RFC 7591 registration of public clients,
// invalid metadata refused naming the field, per-address and total caps.
func TestDynamicRegistration(t *testing.T) {
	e := mcpEnv(t, func(o *Options) { o.Registration = RegistrationOptions{MaxClients: 5, PerAddress: 3} })
	bad := []struct {
		body map[string]any
		code string
	}{
		{map[string]any{"client_name": "x"}, "invalid_redirect_uri"},
		{map[string]any{"redirect_uris": []string{"http://evil.example/cb"}}, "invalid_redirect_uri"},
		{map[string]any{"redirect_uris": []string{"https://app.example/cb#f"}}, "invalid_redirect_uri"},
		{map[string]any{"redirect_uris": []string{publicRedir}, "token_endpoint_auth_method": "client_secret_basic"}, "invalid_client_metadata"},
		{map[string]any{"redirect_uris": []string{publicRedir}, "grant_types": []string{"implicit"}}, "invalid_client_metadata"},
		{map[string]any{"redirect_uris": []string{publicRedir}, "scope": "admin"}, "invalid_client_metadata"},
		{map[string]any{"redirect_uris": "not-a-list"}, "invalid_client_metadata"},
		// A right-to-left override would show the suffix the server
		// appends reversed and the name's own claim readable.
		{map[string]any{"redirect_uris": []string{publicRedir}, "client_name": "\u202e)deifirev( tnegA"}, "invalid_client_metadata"},
		{map[string]any{"redirect_uris": []string{publicRedir}, "client_name": "Agent\u2067"}, "invalid_client_metadata"},
		{map[string]any{"redirect_uris": []string{publicRedir}, "client_name": "Agent\nverified"}, "invalid_client_metadata"},
	}
	for _, b := range bad {
		st, m, _ := register(t, e, "192.0.2.1", b.body)
		if st != http.StatusBadRequest || m["error"] != b.code {
			t.Errorf("register %v: %d %v, want 400 %s", b.body, st, m, b.code)
		}
	}
	ok := map[string]any{"redirect_uris": []string{publicRedir}, "client_name": "Agent"}
	for i := range 3 {
		st, m, _ := register(t, e, "192.0.2.1", ok)
		if st != http.StatusCreated || m["token_endpoint_auth_method"] != "none" || !strings.HasPrefix(fmt.Sprint(m["client_id"]), "cli_") {
			t.Fatalf("registration %d: %d %v", i, st, m)
		}
	}
	st, m, h := register(t, e, "192.0.2.1", ok)
	if st != http.StatusTooManyRequests || h.Get("Retry-After") == "" {
		t.Errorf("4th registration from one address: %d %v Retry-After %q, want 429", st, m, h.Get("Retry-After"))
	}
	// The /64 is one address.
	st, _, _ = register(t, e, "2001:db8::1", ok)
	st2, _, _ := register(t, e, "2001:db8::2", ok)
	if st != http.StatusCreated || st2 != http.StatusCreated {
		t.Fatalf("registrations from a fresh /64: %d %d", st, st2)
	}
	// 5 clients now: the cap.
	st, m, _ = register(t, e, "198.51.100.7", ok)
	if st != http.StatusServiceUnavailable || m["error"] != "temporarily_unavailable" {
		t.Errorf("registration past MaxClients: %d %v, want 503", st, m)
	}
	cs, err := e.sql.Clients(context.Background(), RegistryAccountID)
	if err != nil || len(cs) != 5 {
		t.Errorf("stored self-registered clients: %d, %v; want 5", len(cs), err)
	}

	off := mcpEnv(t, func(o *Options) { o.Registration.MaxClients = -1 })
	if st, _, _ := register(t, off, "192.0.2.1", ok); st != http.StatusNotFound {
		t.Errorf("registration turned off: %d, want 404", st)
	}
	if _, m := getJSON(t, off.ts.URL+"/.well-known/oauth-authorization-server"); m["registration_endpoint"] != nil {
		t.Errorf("registration_endpoint advertised while off: %v", m["registration_endpoint"])
	}
}

// docServer serves client ID metadata documents over TLS on loopback and
// counts the fetches.
type docServer struct {
	ts    *httptest.Server
	docs  map[string]string // path -> body
	hits  atomic.Int64
	roots *x509.CertPool
}

func newDocServer(t *testing.T) *docServer {
	d := &docServer{docs: map[string]string{}}
	d.ts = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d.hits.Add(1)
		body, ok := d.docs[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, body)
	}))
	t.Cleanup(d.ts.Close)
	d.roots = x509.NewCertPool()
	d.roots.AddCert(d.ts.Certificate())
	return d
}

// add publishes a document at path whose client_id is its URL (or id).
func (d *docServer) add(path, id string, redirects []string, extra string) string {
	u := d.ts.URL + path
	if id == "" {
		id = u
	}
	rb, _ := json.Marshal(redirects)
	d.docs[path] = fmt.Sprintf(`{"client_id":%q,"client_name":"Doc Agent","redirect_uris":%s,"token_endpoint_auth_method":"none"%s}`, id, rb, extra)
	return u
}

// TestClientMetadataDocument: a client_id that is an https URL is
// described by the document there, fetched through the safe fetcher: on a
// private address it is refused unless the address policy allows it; the
// document must name its own URL and the redirect URI; it is cached; the
// flow then works like any public client's.
func TestClientMetadataDocument(t *testing.T) {
	d := newDocServer(t)
	good := d.add("/client.json", "", []string{publicRedir}, "")

	// The default address policy: loopback is private, refused.
	strict := mcpEnv(t, func(o *Options) { o.ClientFetcher = seo.NewFetcher(&seo.FetcherOptions{TLSRoots: d.roots}) })
	res, err := browser(t).Get(authURL(strict, good, publicRedir, oauth2.GenerateVerifier(), mcpResource))
	if err != nil {
		t.Fatal(err)
	}
	body := readAll(res)
	if res.StatusCode != http.StatusBadRequest || !strings.Contains(body, "address is not allowed") {
		t.Errorf("document on a loopback address with the default policy: %d %q", res.StatusCode, clipBody(body))
	}
	if d.hits.Load() != 0 {
		t.Errorf("the refused document was fetched %d times", d.hits.Load())
	}
	if _, m := getJSON(t, strict.ts.URL+"/.well-known/oauth-authorization-server"); m["client_id_metadata_document_supported"] != true {
		t.Errorf("client_id_metadata_document_supported = %v with a fetcher", m["client_id_metadata_document_supported"])
	}

	// An address allowed, but a certificate nobody vouches for.
	untrusted := mcpEnv(t, func(o *Options) { o.ClientFetcher = seo.NewFetcher(&seo.FetcherOptions{AllowPrivate: true}) })
	res, err = browser(t).Get(authURL(untrusted, good, publicRedir, oauth2.GenerateVerifier(), mcpResource))
	if err != nil {
		t.Fatal(err)
	}
	if body := readAll(res); res.StatusCode != http.StatusBadRequest || !strings.Contains(body, "certificate does not verify") {
		t.Errorf("document behind an untrusted certificate: %d %q", res.StatusCode, clipBody(body))
	}

	// A policy that allows private addresses (tests, intranets).
	e := mcpEnv(t, func(o *Options) {
		o.ClientFetcher = seo.NewFetcher(&seo.FetcherOptions{AllowPrivate: true, TLSRoots: d.roots})
	})
	e.account(ownerEmail)
	refusals := []struct {
		id, redirect, want string
	}{
		{d.add("/liar.json", "https://app.example.com/client.json", []string{publicRedir}, ""), publicRedir, "differs from the URL"},
		{good, "http://127.0.0.1:9/other", "redirect_uri is not registered"},
		{d.add("/secret.json", "", []string{publicRedir}, `,"client_secret":"s"`), publicRedir, "must not hold a client secret"},
		{d.add("/big.json", "", []string{publicRedir}, `,"x":"`+strings.Repeat("a", 6000)+`"`), publicRedir, "larger than"},
		{d.ts.URL + "/missing.json", publicRedir, "HTTP 404"},
		{d.ts.URL + "/client.json?x=1", publicRedir, "query"},
		{"https://example.com", publicRedir, "must have a path"},
	}
	for _, r := range refusals {
		res, err := browser(t).Get(authURL(e, r.id, r.redirect, oauth2.GenerateVerifier(), mcpResource))
		if err != nil {
			t.Fatal(err)
		}
		if body := readAll(res); res.StatusCode != http.StatusBadRequest || !strings.Contains(body, r.want) {
			t.Errorf("client_id %s redirect %s: %d %q, want 400 naming %q", r.id, r.redirect, res.StatusCode, clipBody(body), r.want)
		}
	}

	before := d.hits.Load()
	code, v := publicCode(t, e, good, publicRedir, mcpResource)
	if got := d.hits.Load() - before; got != 0 {
		t.Errorf("the cached document was fetched %d more times", got)
	}
	st, tr := exchangePublic(t, e, good, publicRedir, code, v, mcpResource)
	if st != http.StatusOK {
		t.Fatalf("token for a metadata-document client: %d %v", st, tr)
	}
	if st, _ := mcp(t, e, "Authorization", "Bearer "+tr["access_token"].(string)); st != http.StatusOK {
		t.Errorf("/mcp with the document client's token: %d", st)
	}
	c, err := e.sql.Client(context.Background(), good)
	if err != nil || c.AccountID != RegistryAccountID || len(c.SecretHash) != 0 || !strings.Contains(c.Name, "Doc Agent (127.0.0.1:") {
		t.Errorf("stored client = %+v, %v", c, err)
	}
}

func readAll(res *http.Response) string {
	defer res.Body.Close()
	var b strings.Builder
	buf := make([]byte, 64<<10)
	for {
		n, err := res.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			return b.String()
		}
	}
}

func clipBody(s string) string {
	if len(s) > 300 {
		return s[:300]
	}
	return s
}

// TestClientMetadataDocumentFetchesLimited: one client address makes the
// server fetch at most documentFetchesPerHour documents; cached ones do
// not count.
func TestClientMetadataDocumentFetchesLimited(t *testing.T) {
	d := newDocServer(t)
	e := mcpEnv(t, func(o *Options) {
		o.ClientFetcher = seo.NewFetcher(&seo.FetcherOptions{AllowPrivate: true, TLSRoots: d.roots})
	})
	get := func(addr, id string) int {
		req := mustReq(t, "GET", authURL(e, id, publicRedir, oauth2.GenerateVerifier(), mcpResource))
		req.Header.Set(testAddrHdr, addr)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	for i := range documentFetchesPerHour {
		if st := get("192.0.2.9", fmt.Sprintf("%s/doc-%d.json", d.ts.URL, i)); st != http.StatusBadRequest {
			t.Fatalf("fetch %d: %d, want 400 (no such document)", i, st)
		}
	}
	if st := get("192.0.2.9", d.ts.URL+"/doc-0.json"); st != http.StatusBadRequest {
		t.Errorf("a cached refusal: %d, want 400 without a fetch", st)
	}
	if st := get("192.0.2.9", d.ts.URL+"/doc-new.json"); st != http.StatusTooManyRequests {
		t.Errorf("fetch %d from one address: %d, want 429", documentFetchesPerHour+1, st)
	}
	if got := d.hits.Load(); got != documentFetchesPerHour {
		t.Errorf("documents fetched: %d, want %d", got, documentFetchesPerHour)
	}
	if st := get("198.51.100.9", d.ts.URL+"/doc-new.json"); st != http.StatusBadRequest {
		t.Errorf("another address: %d, want 400 after a fetch", st)
	}
}
