package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/pb33f/libopenapi-validator/config"
	vErrors "github.com/pb33f/libopenapi-validator/errors"
	"github.com/pb33f/libopenapi-validator/paths"
	"github.com/pb33f/libopenapi-validator/schema_validation"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"

	"github.com/seokit/seokit/httpapi/auth"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/httpapi/store/sqlstore"
)

// exchange is one request a test made and the response it got.
type exchange struct {
	method, url string
	reqHeader   http.Header
	reqBody     []byte
	status      int
	respHeader  http.Header
	respBody    []byte
}

var recorded struct {
	mu sync.Mutex
	ex []exchange
}

// init records every exchange of every test of the package; TestMain
// validates them against openapi.json after the tests ran.
func init() {
	recordExchange = func(req *http.Request, reqBody []byte, resp *http.Response, respBody []byte) {
		recorded.mu.Lock()
		defer recorded.mu.Unlock()
		recorded.ex = append(recorded.ex, exchange{
			method: req.Method, url: req.URL.String(), reqHeader: req.Header.Clone(), reqBody: reqBody,
			status: resp.StatusCode, respHeader: resp.Header.Clone(), respBody: respBody,
		})
	}
}

func TestMain(m *testing.M) {
	code := m.Run()
	recorded.mu.Lock()
	ex := recorded.ex
	recorded.mu.Unlock()
	if len(ex) > 0 {
		if err := validateExchanges(os.Stdout, ex); err != nil {
			fmt.Fprintf(os.Stderr, "FAIL: OpenAPI contract: %v\n", err)
			if code == 0 {
				code = 1
			}
		}
	}
	os.Exit(code)
}

// contract is the parsed document and its validator.
type contract struct {
	doc   libopenapi.Document
	model *v3.Document
	v     validator.Validator
	opts  *config.ValidationOptions
}

// sharedContract is the contract every check of the package uses: parsing
// the document and building its validator (which compiles the schemas it
// meets and keeps them) is the costly part, done once. Its users run one
// at a time: the validator is not shared between parallel tests.
var sharedContract = sync.OnceValues(loadContract)

func loadContract() (*contract, error) {
	doc, err := libopenapi.NewDocument(openAPIDoc)
	if err != nil {
		return nil, fmt.Errorf("parse openapi.json: %w", err)
	}
	m, err := doc.BuildV3Model()
	if err != nil {
		return nil, fmt.Errorf("build model: %w", err)
	}
	v, errs := validator.NewValidator(doc)
	if len(errs) > 0 {
		return nil, fmt.Errorf("validator: %v", errs)
	}
	return &contract{doc: doc, model: &m.Model, v: v, opts: config.NewValidationOptions()}, nil
}

// route finds the document's path template of r ("" if none).
func (c *contract) route(r *http.Request) (*v3.PathItem, string) {
	pi, errs, p := paths.FindPath(r, c.model, c.opts)
	if pi == nil || len(errs) > 0 {
		return nil, ""
	}
	return pi, p
}

func verrs(errs []*vErrors.ValidationError) string {
	var b strings.Builder
	for _, e := range errs {
		fmt.Fprintf(&b, "\n    - %s: %s", e.Message, e.Reason)
		for i, f := range e.SchemaValidationErrors {
			if i == 5 {
				fmt.Fprintf(&b, "\n      ... %d more", len(e.SchemaValidationErrors)-5)
				break
			}
			fmt.Fprintf(&b, "\n      * %s at %s (%s)", f.Reason, f.FieldPath, f.KeywordLocation)
		}
	}
	return b.String()
}

func (e exchange) requests() (*http.Request, *http.Response, error) {
	req, err := http.NewRequest(e.method, e.url, bytes.NewReader(e.reqBody))
	if err != nil {
		return nil, nil, err
	}
	req.Header = e.reqHeader.Clone()
	resp := &http.Response{StatusCode: e.status, Header: e.respHeader.Clone(), Body: io.NopCloser(bytes.NewReader(e.respBody)), Request: req}
	return req, resp, nil
}

// validateExchanges checks every recorded response against the document
// and prints counts. Responses of paths or methods the document does not
// have must be the 404 or 405 error envelope.
func validateExchanges(w io.Writer, ex []exchange) error {
	c, err := sharedContract()
	if err != nil {
		return err
	}
	envelope := c.model.Components.Schemas.GetOrZero("ErrorEnvelope").Schema()
	sv := schema_validation.NewSchemaValidator()
	var (
		failures                        []string
		perRoute                        = map[string]int{}
		unmatched, negative, lenient, n int
	)
	for _, e := range ex {
		req, resp, err := e.requests()
		if err != nil {
			failures = append(failures, fmt.Sprintf("%s %s: %v", e.method, e.url, err))
			continue
		}
		n++
		pi, tmpl := c.route(req)
		var op *v3.Operation
		if pi != nil {
			op = pi.GetOperations().GetOrZero(strings.ToLower(e.method))
		}
		if op == nil {
			// Not an operation of the document (an unknown path or method,
			// or a route tests add): must be a 404, 405 or 500 envelope.
			unmatched++
			perRoute[fmt.Sprintf("(undocumented path or method) %d", e.status)]++
			ok, errs := sv.ValidateSchemaBytes(envelope, e.respBody)
			ct := e.respHeader.Get("Content-Type")
			if (e.status != 404 && e.status != 405 && e.status != 500) || !ok || !strings.HasPrefix(ct, "application/json") {
				failures = append(failures, fmt.Sprintf("%s %s -> %d (%s): path/method not in the document and not a 404/405/500 envelope%s",
					e.method, req.URL.Path, e.status, ct, verrs(errs)))
			}
			continue
		}
		key := fmt.Sprintf("%s %s %d", e.method, tmpl, e.status)
		perRoute[key]++
		if ok, errs := c.v.ValidateHttpResponse(req, resp); !ok {
			failures = append(failures, fmt.Sprintf("response %s %s -> %d: %s", e.method, req.URL.RequestURI(), e.status, verrs(errs)))
		}
		req2, _, _ := e.requests()
		okReq, rerrs := c.v.ValidateHttpRequestSync(req2)
		switch {
		case !okReq && e.status < 300:
			failures = append(failures, fmt.Sprintf("request %s %s was answered %d but the document refuses it: %s", e.method, req.URL.RequestURI(), e.status, verrs(rerrs)))
		case !okReq:
			negative++
		case okReq && e.status == 400:
			lenient++
		}
	}
	fmt.Fprintf(w, "openapi: %d exchanges validated against openapi.json (%d on undocumented paths or methods, checked as 404/405/500 envelopes)\n", n, unmatched)
	fmt.Fprintf(w, "openapi: %d requests refused by the document were also refused by the server; %d requests the document accepts got 400 (checks beyond the schema)\n", negative, lenient)
	keys := make([]string, 0, len(perRoute))
	for k := range perRoute {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(w, "openapi:   %4d  %s\n", perRoute[k], k)
	}
	if len(failures) > 0 {
		return fmt.Errorf("%d of %d exchanges do not match the document:\n  %s", len(failures), n, strings.Join(failures, "\n  "))
	}
	return nil
}

// authPatterns are the routes package auth registers (auth.Server.Register).
var authPatterns = []string{
	"POST /v1/auth/token",
	"GET /v1/oauth/authorize",
	"POST /v1/oauth/authorize",
	"POST /v1/oauth/token",
	"POST /v1/oauth/revoke",
	"GET /v1/auth/jwks.json",
	"GET /.well-known/jwks.json",
	"GET /.well-known/oauth-authorization-server",
	"POST /v1/oauth/register",
	"GET /.well-known/oauth-protected-resource",
	"GET /.well-known/oauth-protected-resource/mcp",
}

const openAPIPattern = "GET /v1/openapi.json"

func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }

// withOpenAPIRoute adds the document's route through the test hook when
// the route table does not register it yet.
func withOpenAPIRoute(t *testing.T, opts *Options) *Options {
	t.Helper()
	var o Options
	if opts != nil {
		o = *opts
	}
	st, err := sqlstore.Open(context.Background(), ":memory:", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	probe, err := New(context.Background(), &Options{Store: st, JobWorkers: 1, Logger: discardLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer probe.Close()
	r, _ := http.NewRequest("GET", "/v1/openapi.json", nil)
	if _, p := probe.mux.Handler(r); p == "/" || p == "" {
		prev := o.routes
		o.routes = func(mux *http.ServeMux) {
			if prev != nil {
				prev(mux)
			}
			mux.HandleFunc(openAPIPattern, openAPIHandler(o.BasePath))
		}
	}
	return &o
}

func TestOpenAPIDocument(t *testing.T) {
	c, err := sharedContract()
	if err != nil {
		t.Fatal(err)
	}
	if v := c.doc.GetVersion(); v != "3.1.0" {
		t.Errorf("openapi version %q, want 3.1.0", v)
	}
	if ok, errs := c.v.ValidateDocument(); !ok {
		t.Fatalf("openapi.json is not a valid OpenAPI 3.1 document:%s", verrs(errs))
	}

	a := newTestAPI(t, withOpenAPIRoute(t, nil))
	documented := map[string]*v3.Operation{}
	for p, item := range c.model.Paths.PathItems.FromOldest() {
		for m, op := range item.GetOperations().FromOldest() {
			documented[strings.ToUpper(m)+" "+p] = op
		}
	}
	// Every registered route is documented, with its permission.
	for _, rt := range a.srv.routeTable() {
		op := documented[rt.pattern]
		if op == nil {
			t.Errorf("route %s is not in openapi.json", rt.pattern)
			continue
		}
		if !strings.Contains(op.Description, "**"+rt.scope+"**") || !strings.Contains(op.Description, "`"+rt.op+"`") {
			t.Errorf("%s: description does not name permission %s and operation %s: %q", rt.pattern, rt.scope, rt.op, op.Description)
		}
		var schemes []string
		for _, req := range op.Security {
			for name, scopes := range req.Requirements.FromOldest() {
				schemes = append(schemes, name)
				if name == "oauth2" && !slices.Equal(scopes, []string{rt.scope}) {
					t.Errorf("%s: oauth2 scopes %v, want [%s]", rt.pattern, scopes, rt.scope)
				}
			}
		}
		slices.Sort(schemes)
		if want := []string{"apiKeyHeader", "apiKeyQuery", "bearerAuth", "oauth2"}; !slices.Equal(schemes, want) {
			t.Errorf("%s: security %v, want %v", rt.pattern, schemes, want)
		}
		for _, st := range []string{"401", "403", "429", "500", "503"} {
			if op.Responses.Codes.GetOrZero(st) == nil {
				t.Errorf("%s: response %s not documented", rt.pattern, st)
			}
		}
	}
	for _, p := range append(slices.Clone(authPatterns), openAPIPattern) {
		if documented[p] == nil {
			t.Errorf("route %s is not in openapi.json", p)
		}
	}
	// Every documented operation is served by a route of the mux.
	for p := range documented {
		method, path, _ := strings.Cut(p, " ")
		r, _ := http.NewRequest(method, strings.ReplaceAll(path, "{id}", "job_x"), nil)
		if _, pat := a.srv.mux.Handler(r); pat == "/" || pat == "" {
			t.Errorf("openapi.json documents %s but no route serves it", p)
		}
	}
	for _, name := range []string{"bearerAuth", "apiKeyHeader", "apiKeyQuery", "oauth2"} {
		if c.model.Components.SecuritySchemes.GetOrZero(name) == nil {
			t.Errorf("security scheme %s missing", name)
		}
	}
	ac := c.model.Components.SecuritySchemes.GetOrZero("oauth2").Flows.AuthorizationCode
	if ac == nil || ac.Scopes.GetOrZero("read") == "" || ac.Scopes.GetOrZero("write") == "" || !strings.Contains(c.model.Components.SecuritySchemes.GetOrZero("oauth2").Description, "PKCE") {
		t.Error("oauth2 authorizationCode flow with read/write scopes and PKCE note missing")
	}
}

func TestOpenAPIServed(t *testing.T) {
	a := newTestAPI(t, withOpenAPIRoute(t, nil))
	resp := a.call("GET", "/v1/openapi.json", "", "")
	wantStatus(t, resp, 200)
	b, _ := io.ReadAll(resp.Body)
	if !bytes.Equal(b, openAPIDoc) {
		t.Error("served document differs from the embedded openapi.json")
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("Content-Type %q", ct)
	}

	// Mounted under a prefix, servers names the prefix.
	p := newTestAPI(t, withOpenAPIRoute(t, &Options{BasePath: "/seo"}))
	resp = p.call("GET", "/v1/openapi.json", "", "")
	wantStatus(t, resp, 200)
	var doc struct {
		OpenAPI string `json:"openapi"`
		Servers []struct {
			URL string `json:"url"`
		} `json:"servers"`
		Paths map[string]any `json:"paths"`
	}
	readJSON(t, resp, &doc)
	if doc.OpenAPI != "3.1.0" || len(doc.Servers) != 1 || doc.Servers[0].URL != "/seo" || doc.Paths["/v1/keywords/suggest"] == nil {
		t.Errorf("prefixed document: openapi %q servers %+v, %d paths", doc.OpenAPI, doc.Servers, len(doc.Paths))
	}
}

// TestOpenAPIAuthFlows drives the token, OAuth, JWKS and metadata
// endpoints and the three credential kinds, so that their answers are
// validated against the document too.
func TestOpenAPIAuthFlows(t *testing.T) {
	ctx := context.Background()
	o := withOpenAPIRoute(t, dataOptions(t))
	st, err := sqlstore.Open(ctx, ":memory:", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	// The metadata is served only with the server's public URL.
	au, err := auth.New(ctx, st, &auth.Options{BaseURL: "https://api.example.com"})
	if err != nil {
		t.Fatal(err)
	}
	o.Store, o.Auth = st, au
	a := newTestAPI(t, o)
	const redirect = "https://client.example/cb"
	secret, cl, err := a.srv.Auth().CreateClient(ctx, a.acct.ID, "contract test", []string{redirect}, []string{auth.ScopeRead, auth.ScopeWrite})
	if err != nil {
		t.Fatal(err)
	}
	noFollow := *a.client
	noFollow.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	send := func(method, path, ct, body string, hdr ...string) *http.Response {
		t.Helper()
		var rd io.Reader
		if body != "" {
			rd = strings.NewReader(body)
		}
		r, err := http.NewRequest(method, a.ts.URL+path, rd)
		if err != nil {
			t.Fatal(err)
		}
		if ct != "" {
			r.Header.Set("Content-Type", ct)
		}
		for i := 0; i+1 < len(hdr); i += 2 {
			r.Header.Set(hdr[i], hdr[i+1])
		}
		resp, err := noFollow.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	js := func(v map[string]string) string { b, _ := json.Marshal(v); return string(b) }

	// Client credentials, JSON as the specification shows.
	resp := send("POST", "/v1/auth/token", "application/json", js(map[string]string{"client_id": cl.ID, "client_secret": secret}))
	wantStatus(t, resp, 200)
	var tok struct {
		AccessToken string `json:"access_token"`
		ExpiresIn   int    `json:"expires_in"`
	}
	readJSON(t, resp, &tok)
	if tok.AccessToken == "" || tok.ExpiresIn != 86400 {
		t.Fatalf("token %+v", tok)
	}
	// The form, with HTTP Basic.
	form := url.Values{"grant_type": {"client_credentials"}, "scope": {"read"}}
	r, _ := http.NewRequest("POST", a.ts.URL+"/v1/auth/token", strings.NewReader(form.Encode()))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	r.SetBasicAuth(cl.ID, secret)
	resp, err = noFollow.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, resp, 200)
	// Errors in the RFC 6749 format.
	resp = send("POST", "/v1/auth/token", "application/json", js(map[string]string{"client_id": cl.ID, "client_secret": "wrong"}))
	wantStatus(t, resp, 401)
	resp = send("POST", "/v1/auth/token", "application/x-www-form-urlencoded", "client_id="+cl.ID)
	wantStatus(t, resp, 400)
	resp = send("POST", "/v1/oauth/token", "application/x-www-form-urlencoded", url.Values{"grant_type": {"authorization_code"}, "code": {"nope"},
		"redirect_uri": {redirect}, "code_verifier": {strings.Repeat("v", 43)}, "client_id": {cl.ID}, "client_secret": {secret}}.Encode())
	wantStatus(t, resp, 400)
	var oe struct {
		Error string `json:"error"`
	}
	readJSON(t, resp, &oe)
	if oe.Error != "invalid_grant" {
		t.Errorf("error %q, want invalid_grant", oe.Error)
	}
	resp = send("POST", "/v1/oauth/token", "application/json", js(map[string]string{"grant_type": "password", "client_id": cl.ID, "client_secret": secret}))
	wantStatus(t, resp, 400)
	resp = send("POST", "/v1/oauth/revoke", "application/x-www-form-urlencoded", url.Values{"token": {tok.AccessToken}, "client_id": {cl.ID}, "client_secret": {secret}}.Encode())
	wantStatus(t, resp, 200)
	resp = send("POST", "/v1/oauth/revoke", "application/x-www-form-urlencoded", url.Values{"client_id": {cl.ID}, "client_secret": {secret}}.Encode())
	wantStatus(t, resp, 400)

	// The revoked token is refused; a fresh one works.
	resp = send("GET", "/v1/keywords/suggest?query=oak", "", "", "Authorization", "Bearer "+tok.AccessToken)
	wantStatus(t, resp, 401)
	resp = send("POST", "/v1/auth/token", "application/json", js(map[string]string{"client_id": cl.ID, "client_secret": secret}))
	wantStatus(t, resp, 200)
	readJSON(t, resp, &tok)
	resp = send("GET", "/v1/keywords/suggest?query=oak&locale=en-US", "", "", "Authorization", "Bearer "+tok.AccessToken)
	wantStatus(t, resp, 200)
	// API key in the query.
	resp = send("GET", "/v1/keywords/suggest?query=oak&api_key="+url.QueryEscape(a.key), "", "")
	wantStatus(t, resp, 200)
	// A key limited to reading cannot start work.
	_, readKey := a.account("reader@example.com", store.Pro, auth.ScopeRead)
	resp = send("POST", "/v1/optimize/content", "application/json", `{"content":"Oak tables last.","keywords":["oak tables"],"locale":"en-US"}`, "X-API-Key", readKey)
	wantStatus(t, resp, 403)

	// Authorization endpoint: the consent page, a redirect with an error,
	// and the error page.
	challenge := "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
	q := url.Values{"client_id": {cl.ID}, "redirect_uri": {redirect}, "response_type": {"code"}, "scope": {"read write"},
		"state": {"xyz"}, "code_challenge": {challenge}, "code_challenge_method": {"S256"}}
	resp = send("GET", "/v1/oauth/authorize?"+q.Encode(), "", "")
	wantStatus(t, resp, 200)
	q.Del("code_challenge")
	resp = send("GET", "/v1/oauth/authorize?"+q.Encode(), "", "")
	wantStatus(t, resp, 303)
	if loc := resp.Header.Get("Location"); !strings.HasPrefix(loc, redirect+"?") || !strings.Contains(loc, "error=invalid_request") {
		t.Errorf("Location %q", loc)
	}
	q.Set("client_id", "cl_unknown")
	resp = send("GET", "/v1/oauth/authorize?"+q.Encode(), "", "")
	wantStatus(t, resp, 400)

	// Keys and metadata.
	for _, p := range []string{"/v1/auth/jwks.json", "/.well-known/jwks.json"} {
		resp = send("GET", p, "", "")
		wantStatus(t, resp, 200)
		var set struct {
			Keys []map[string]string `json:"keys"`
		}
		readJSON(t, resp, &set)
		if len(set.Keys) == 0 || set.Keys[0]["alg"] != "EdDSA" {
			t.Errorf("%s: %+v", p, set)
		}
	}
	resp = send("GET", "/.well-known/oauth-authorization-server", "", "")
	wantStatus(t, resp, 200)
}

// TestOpenAPIRejectsMismatch makes sure the contract check can fail: a
// response that breaks the document is reported with route and status.
func TestOpenAPIRejectsMismatch(t *testing.T) {
	hdr := http.Header{"Content-Type": {"application/json"}, "X-Request-Id": {"req_abc"}}
	for _, tc := range []struct {
		name, want string
		ex         exchange
	}{
		{"wrong field type", "GET /v1/keywords/suggest", exchange{method: "GET", url: "http://127.0.0.1/v1/keywords/suggest?query=oak",
			status: 200, respHeader: hdr, respBody: []byte(`{"query":"oak","locale":"en-US","suggestions":[{"keyword":"oak","volume":"many"}],"sources":["local"]}`)}},
		{"undocumented status", "-> 418", exchange{method: "GET", url: "http://127.0.0.1/v1/rankings?domain=example.com&keywords[]=a",
			status: 418, respHeader: hdr, respBody: []byte(`{}`)}},
		{"error code of another status", "-> 401", exchange{method: "GET", url: "http://127.0.0.1/v1/reports?domain=example.com&start=2026-01-01&end=2026-01-02",
			status: 401, respHeader: hdr, respBody: []byte(`{"error":{"code":"forbidden","message":"x","status":401}}`)}},
		{"undocumented path not an envelope", "/v9/nothing", exchange{method: "GET", url: "http://127.0.0.1/v9/nothing",
			status: 200, respHeader: hdr, respBody: []byte(`{"ok":true}`)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			err := validateExchanges(&out, []exchange{tc.ex})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one naming %q", err, tc.want)
			}
		})
	}
}
