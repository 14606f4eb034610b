package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/seokit/seokit/httpapi/auth"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/httpapi/store/sqlstore"
)

const mcpTestBase = "https://seokit.test"

// mcpAuthAPI is a test API whose auth server has a public URL and /mcp as
// a protected resource, with a stand-in MCP handler behind
// authenticateMCP: it answers the principal, and "start_site_analysis"
// is its one writing tool.
func mcpAuthAPI(t *testing.T) *testAPI {
	t.Helper()
	ctx := context.Background()
	st, err := sqlstore.Open(ctx, ":memory:", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	au, err := auth.New(ctx, st, &auth.Options{BaseURL: mcpTestBase, Resources: []string{MCPPath}})
	if err != nil {
		t.Fatal(err)
	}
	var srv *Server
	a := newTestAPI(t, &Options{Store: st, Auth: au, routes: func(mux *http.ServeMux) {
		mux.HandleFunc("POST "+MCPPath, func(w http.ResponseWriter, r *http.Request) {
			p := srv.authenticateMCP(w, r, func(name string) bool { return name == "start_site_analysis" })
			if p == nil {
				return
			}
			writeJSON(w, http.StatusOK, p)
		})
	}})
	srv = a.srv
	return a
}

func toolCall(name string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + name + `","arguments":{}}}`
}

// mcpPost posts body to /mcp with the header set. The MCP endpoint is not
// a /v1 operation of openapi.json, so its exchanges bypass the contract
// recording.
func mcpPost(a *testAPI, header, value, body string) *http.Response {
	a.t.Helper()
	r, err := http.NewRequest("POST", a.ts.URL+MCPPath, strings.NewReader(body))
	if err != nil {
		a.t.Fatal(err)
	}
	r.Header.Set("Content-Type", "application/json")
	if header != "" {
		r.Header.Set(header, value)
	}
	resp, err := a.ts.Client().Do(r)
	if err != nil {
		a.t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(b))
	return resp
}

// TestMCPAuthorization: the MCP endpoint as a protected resource through
// the API's middleware: the 401 challenge names the metadata, which is
// served; tokens are accepted by audience (an API token is refused at
// /mcp, an /mcp token at /v1); API keys work as bearer credentials; a
// read-only credential calling a writing tool gets 403 insufficient_scope
// and its reads pass.
func TestMCPAuthorization(t *testing.T) {
	a := mcpAuthAPI(t)
	meta := mcpTestBase + "/.well-known/oauth-protected-resource/mcp"

	resp := mcpPost(a, "", "", toolCall("list_site_analyses"))
	want := `Bearer realm="seokit", scope="read write", resource_metadata="` + meta + `"`
	if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("WWW-Authenticate") != want {
		t.Errorf("/mcp without credentials: %d %q, want 401 %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"), want)
	}
	resp.Body.Close()
	for _, p := range []string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"} {
		resp := a.call("GET", p, "", "")
		var m map[string]any
		readJSON(t, resp, &m)
		if resp.StatusCode != http.StatusOK || m["resource"] != mcpTestBase+MCPPath {
			t.Errorf("GET %s: %d %v", p, resp.StatusCode, m)
		}
	}

	// API keys, as X-API-Key or the bearer token. A read-only key's
	// call of a writing tool reaches the tool, which refuses it as /v1
	// does (a key cannot be stepped up).
	_, readKey := a.account("reader@example.com", store.Free, auth.ScopeRead)
	for _, h := range []string{"Authorization", "X-API-Key"} {
		v := readKey
		if h == "Authorization" {
			v = "Bearer " + readKey
		}
		resp := mcpPost(a, h, v, toolCall("start_site_analysis"))
		var p auth.Principal
		readJSON(t, resp, &p)
		if resp.StatusCode != http.StatusOK || p.Method != auth.MethodAPIKey || strings.Join(p.Permissions, " ") != "read" {
			t.Errorf("read-only key in %s: %d %+v", h, resp.StatusCode, p)
		}
	}
	wantStatus(t, mcpPost(a, "Authorization", "Bearer "+a.key[:len(a.key)-2]+"zz", toolCall("list_site_analyses")), http.StatusUnauthorized)

	// Tokens by audience: client_credentials with and without the
	// resource indicator.
	secret, c, err := a.srv.Auth().CreateClient(context.Background(), a.acct.ID, "script", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	token := func(resource string, scope ...string) string {
		f := url.Values{"grant_type": {"client_credentials"}, "client_id": {c.ID}, "client_secret": {secret}, "scope": {strings.Join(scope, " ")}}
		if resource != "" {
			f.Set("resource", resource)
		}
		r, _ := http.NewRequest("POST", "/v1/oauth/token", strings.NewReader(f.Encode()))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		resp := a.do(r)
		var tr struct {
			AccessToken string `json:"access_token"`
		}
		readJSON(t, resp, &tr)
		if resp.StatusCode != http.StatusOK || tr.AccessToken == "" {
			t.Fatalf("token (resource %q): %d", resource, resp.StatusCode)
		}
		return tr.AccessToken
	}
	apiTok, mcpTok := token(""), token(mcpTestBase+MCPPath)
	bearer := func(path, tok string) *http.Response {
		r := a.req("GET", path, "", "")
		r.Header.Set("Authorization", "Bearer "+tok)
		return a.do(r)
	}
	resp = mcpPost(a, "Authorization", "Bearer "+apiTok, toolCall("list_site_analyses"))
	www := resp.Header.Get("WWW-Authenticate")
	apiErr(t, resp, http.StatusUnauthorized, CodeUnauthorized)
	if !strings.Contains(www, `error="invalid_token"`) || !strings.Contains(www, meta) {
		t.Errorf("/mcp with the API's token: WWW-Authenticate %q", www)
	}
	wantStatus(t, bearer("/v1/analyze/site", apiTok), http.StatusOK)
	resp = mcpPost(a, "Authorization", "Bearer "+mcpTok, toolCall("list_site_analyses"))
	var p auth.Principal
	readJSON(t, resp, &p)
	if resp.StatusCode != http.StatusOK || p.AccountID != a.acct.ID || p.ClientID != c.ID {
		t.Errorf("/mcp with its token: %d %+v", resp.StatusCode, p)
	}
	apiErr(t, bearer("/v1/analyze/site", mcpTok), http.StatusUnauthorized, CodeUnauthorized)

	// A read-only token calling a writing tool: 403 insufficient_scope
	// naming the scope to ask for (step-up); its reads pass.
	roTok := token(mcpTestBase+MCPPath, auth.ScopeRead)
	resp = mcpPost(a, "Authorization", "Bearer "+roTok, toolCall("start_site_analysis"))
	www = resp.Header.Get("WWW-Authenticate")
	apiErr(t, resp, http.StatusForbidden, CodeForbidden)
	if !strings.Contains(www, `error="insufficient_scope"`) || !strings.Contains(www, `scope="read write"`) || !strings.Contains(www, meta) {
		t.Errorf("read-only token calling a writing tool: WWW-Authenticate %q", www)
	}
	wantStatus(t, mcpPost(a, "Authorization", "Bearer "+roTok, toolCall("list_site_analyses")), http.StatusOK)
	wantStatus(t, mcpPost(a, "Authorization", "Bearer "+mcpTok, toolCall("start_site_analysis")), http.StatusOK)

	// The authorization server metadata advertises registration and
	// the public-client method.
	resp = a.call("GET", "/.well-known/oauth-authorization-server", "", "")
	var m map[string]any
	readJSON(t, resp, &m)
	if m["registration_endpoint"] != mcpTestBase+"/v1/oauth/register" || !strings.Contains(mustJSON(m["token_endpoint_auth_methods_supported"]), `"none"`) {
		t.Errorf("authorization server metadata: %v", m)
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
