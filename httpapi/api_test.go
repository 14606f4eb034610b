package httpapi

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/seokit/seokit/httpapi/auth"
	"github.com/seokit/seokit/httpapi/store/sqlstore"
)

// pageSite serves a small HTML page on loopback.
func pageSite(t *testing.T) *httptest.Server {
	t.Helper()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, `<!doctype html><html lang="en"><head><title>Handmade oak tables and chairs</title>
<meta name="description" content="Oak tables and chairs made by hand in our workshop, delivered across the country within two weeks.">
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body><h1>Oak tables</h1><p>We make tables.</p></body></html>`)
	}))
	t.Cleanup(ts.Close)
	return ts
}

func TestRouting(t *testing.T) {
	a := newTestAPI(t, &Options{AllowPrivate: true})
	tests := []struct {
		name, method, path string
		status             int
		code, allow        string
	}{
		{"unknown v1 path", "GET", "/v1/nothing", 404, CodeNotFound, ""},
		{"other version", "POST", "/v2/analyze/page", 404, CodeNotFound, ""},
		{"root", "GET", "/", 404, CodeNotFound, ""},
		{"wrong method on page analysis", "GET", "/v1/analyze/page", 405, CodeMethodNotAllowed, "POST"},
		{"wrong method on job", "PUT", "/v1/analyze/site/job_x", 405, CodeMethodNotAllowed, "GET, HEAD, DELETE"},
		{"wrong method on auth route", "GET", "/v1/auth/token", 405, CodeMethodNotAllowed, "POST"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp := a.call(tc.method, tc.path, a.key, "")
			apiErr(t, resp, tc.status, tc.code)
			if got := resp.Header.Get("Allow"); got != tc.allow {
				t.Errorf("Allow %q, want %q", got, tc.allow)
			}
			if resp.Header.Get("X-Content-Type-Options") != "nosniff" || resp.Header.Get("Cache-Control") != "no-store" {
				t.Errorf("security headers missing: %v", resp.Header)
			}
		})
	}
}

func TestAuthFailures(t *testing.T) {
	ctx := context.Background()
	clk := &clock{t: time.Now()}
	st, err := sqlstore.Open(ctx, ":memory:", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	au, err := auth.New(ctx, st, &auth.Options{Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	a := newTestAPI(t, &Options{Store: st, Auth: au, Now: clk.Now})
	readOnly := a.newKey(a.acct.ID, auth.ScopeRead)
	keywordsOnly := a.newKey(a.acct.ID, auth.ScopeRead, auth.ScopeWrite, "keywords")
	revoked, rec, err := au.CreateAPIKey(ctx, a.acct.ID, "old", []string{auth.ScopeRead, auth.ScopeWrite}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.RevokeKey(ctx, a.acct.ID, rec.ID, time.Now()); err != nil {
		t.Fatal(err)
	}
	secret, client, err := au.CreateClient(ctx, a.acct.ID, "cli", nil, []string{auth.ScopeRead, auth.ScopeWrite})
	if err != nil {
		t.Fatal(err)
	}
	resp := a.call("POST", "/v1/auth/token", "", fmt.Sprintf(`{"client_id":%q,"client_secret":%q}`, client.ID, secret))
	wantStatus(t, resp, 200)
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	readJSON(t, resp, &tok)

	body := `{"content":"Oak tables are sturdy.","keywords":["oak tables"],"locale":"en-US"}`
	tests := []struct {
		name   string
		header string
		value  string
		status int
		code   string
	}{
		{"no credential", "", "", 401, CodeUnauthorized},
		{"malformed key", "X-API-Key", "seo_live_nope", 401, CodeUnauthorized},
		{"revoked key", "X-API-Key", revoked, 401, CodeUnauthorized},
		{"read-only key on write route", "X-API-Key", readOnly, 403, CodeForbidden},
		{"key without the operation", "X-API-Key", keywordsOnly, 403, CodeForbidden},
		{"garbage JWT", "Authorization", "Bearer eyJhbGciOiJub25lIn0.e30.", 401, CodeUnauthorized},
		{"valid JWT", "Authorization", "Bearer " + tok.AccessToken, 200, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := a.req("POST", "/v1/optimize/content", "", body)
			if tc.header != "" {
				r.Header.Set(tc.header, tc.value)
			}
			resp := a.do(r)
			if tc.status == 200 {
				wantStatus(t, resp, 200)
				return
			}
			apiErr(t, resp, tc.status, tc.code)
			if tc.status == 401 && !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), `Bearer realm="seokit"`) {
				t.Errorf("WWW-Authenticate %q", resp.Header.Get("WWW-Authenticate"))
			}
			if tc.status == 403 && resp.Header.Get("X-RateLimit-Limit") == "" {
				t.Error("403 after authentication lacks X-RateLimit-Limit")
			}
		})
	}
	t.Run("api_key query parameter", func(t *testing.T) {
		resp := a.call("GET", "/v1/analyze/site?api_key="+url.QueryEscape(a.key), "", "")
		wantStatus(t, resp, 200)
		if strings.Contains(a.logs.String(), a.key) {
			t.Error("the API key reached the access log")
		}
	})
	t.Run("expired JWT", func(t *testing.T) {
		clk.Add(25 * time.Hour)
		r := a.req("POST", "/v1/optimize/content", "", body)
		r.Header.Set("Authorization", "Bearer "+tok.AccessToken)
		apiErr(t, a.do(r), 401, CodeUnauthorized)
	})
}

func TestAnalyzePage(t *testing.T) {
	site := pageSite(t)
	a := newTestAPI(t, &Options{AllowPrivate: true, MaxBodyBytes: 4096})
	good := fmt.Sprintf(`{"url":%q,"options":{"depth":"complete"}}`, site.URL+"/")
	for _, tc := range []struct{ name, method, path, body string }{
		{"POST /analyze/page", "POST", "/v1/analyze/page", good},
		{"POST /analyze", "POST", "/v1/analyze", good},
		{"GET /analyze", "GET", "/v1/analyze?depth=basic&url=" + url.QueryEscape(site.URL+"/"), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := a.call(tc.method, tc.path, a.key, tc.body)
			wantStatus(t, resp, 200)
			var rep struct {
				URL    string `json:"url"`
				Status int    `json:"status"`
				Title  struct {
					Text string `json:"text"`
				} `json:"title"`
				Score struct {
					Value int `json:"value"`
				} `json:"score"`
				Depth string `json:"depth"`
			}
			readJSON(t, resp, &rep)
			if rep.Status != 200 || !strings.HasPrefix(rep.URL, site.URL) {
				t.Errorf("report %+v", rep)
			}
			if tc.method == "POST" && rep.Depth != "complete" {
				t.Errorf("depth %q, want complete", rep.Depth)
			}
		})
	}
	bad := []struct {
		name, ctype, body, field string
	}{
		{"unknown field", "application/json", `{"url":"https://example.com/","plan":"pro"}`, "plan"},
		{"unknown nested field", "application/json", `{"url":"https://example.com/","options":{"deep":true}}`, "options.deep"},
		{"wrong type", "application/json", `{"url":42}`, "url"},
		{"wrong nested type", "application/json", `{"url":"https://example.com/","options":{"checkLinks":"yes"}}`, "options.checkLinks"},
		{"bad url", "application/json", `{"url":"ftp://example.com/x"}`, "url"},
		{"relative url", "application/json", `{"url":"/index.html"}`, "url"},
		{"missing url", "application/json", `{}`, "url"},
		{"bad depth", "application/json", `{"url":"https://example.com/","options":{"depth":"deep"}}`, "options.depth"},
		{"over-limit body", "application/json", `{"url":"https://example.com/` + strings.Repeat("a", 5000) + `"}`, "body"},
		{"wrong content type", "text/plain", `{"url":"https://example.com/"}`, "Content-Type"},
		{"no content type", "", `{"url":"https://example.com/"}`, "Content-Type"},
		{"trailing data", "application/json", `{"url":"https://example.com/"} {}`, "body"},
		{"not JSON", "application/json", `{"url":`, "body"},
		{"array", "application/json", `[1]`, "body"},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			r := a.req("POST", "/v1/analyze/page", a.key, tc.body)
			r.Header.Del("Content-Type")
			if tc.ctype != "" {
				r.Header.Set("Content-Type", tc.ctype)
			}
			e := apiErr(t, a.do(r), 400, CodeInvalidRequest)
			if e.Field != tc.field {
				t.Errorf("field %q, want %q (%s)", e.Field, tc.field, e.Message)
			}
		})
	}
	t.Run("GET with a bad boolean", func(t *testing.T) {
		e := apiErr(t, a.call("GET", "/v1/analyze?url=https://example.com/&checkLinks=maybe", a.key, ""), 400, CodeInvalidRequest)
		if e.Field != "checkLinks" {
			t.Errorf("field %q", e.Field)
		}
	})
	t.Run("private address refused without AllowPrivate", func(t *testing.T) {
		b := newTestAPI(t, nil)
		e := apiErr(t, b.call("POST", "/v1/analyze/page", b.key, good), 400, CodeInvalidRequest)
		if e.Field != "url" {
			t.Errorf("field %q", e.Field)
		}
	})
}

func TestOptimize(t *testing.T) {
	a := newTestAPI(t, nil)
	resp := a.call("POST", "/v1/optimize/content", a.key, `{"content":"Oak tables last for generations. Our oak tables are made by hand.","keywords":["oak tables"],"locale":"en-US","title":"Oak tables"}`)
	wantStatus(t, resp, 200)
	var rep struct {
		Locale   string `json:"locale"`
		SEOScore *int   `json:"seoScore"`
		Stats    struct {
			Words int `json:"words"`
		} `json:"stats"`
	}
	readJSON(t, resp, &rep)
	if rep.Locale != "en-US" || rep.SEOScore == nil || rep.Stats.Words != 12 {
		t.Errorf("report %+v", rep)
	}
	for _, tc := range []struct{ name, body, field string }{
		{"bad locale", `{"content":"x","keywords":["x"],"locale":"english"}`, "locale"},
		{"unknown field", `{"content":"x","keywords":["x"],"locale":"en-US","score":100}`, "score"},
		{"keywords not an array", `{"content":"x","keywords":"x","locale":"en-US"}`, "keywords"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := apiErr(t, a.call("POST", "/v1/optimize/content", a.key, tc.body), 400, CodeInvalidRequest)
			if e.Field != tc.field {
				t.Errorf("field %q, want %q", e.Field, tc.field)
			}
		})
	}
}

func TestPanicRecovered(t *testing.T) {
	a := newTestAPI(t, &Options{routes: func(mux *http.ServeMux) {
		mux.HandleFunc("GET /v1/test/panic", func(http.ResponseWriter, *http.Request) {
			panic("secret internal detail 0xdeadbeef")
		})
	}})
	resp := a.call("GET", "/v1/test/panic", "", "")
	b, _ := io.ReadAll(resp.Body)
	resp.Body = io.NopCloser(strings.NewReader(string(b)))
	e := apiErr(t, resp, 500, CodeInternal)
	if strings.Contains(string(b), "deadbeef") || strings.Contains(string(b), "goroutine") {
		t.Errorf("body leaks internals: %s", b)
	}
	logs := a.logs.String()
	if !strings.Contains(logs, "0xdeadbeef") || !strings.Contains(logs, e.RequestID) || !strings.Contains(logs, "goroutine") {
		t.Errorf("log lacks the panic, its stack or the request ID %s:\n%s", e.RequestID, logs)
	}
	if !strings.Contains(logs, "status=500") {
		t.Errorf("no access log line with status 500:\n%s", logs)
	}
}

func TestDisableAuth(t *testing.T) {
	a := newTestAPI(t, &Options{DisableAuth: true}, apiConfig{noAccount: true})
	resp := a.call("POST", "/v1/optimize/content", "", `{"content":"Oak tables.","keywords":["oak"],"locale":"en-US"}`)
	wantStatus(t, resp, 200)
	if resp.Header.Get("X-RateLimit-Limit") != "" {
		t.Error("rate-limit headers without auth")
	}
}

func TestHTTPSPolicy(t *testing.T) {
	proxy := "198.51.100.7"
	a := newTestAPI(t, &Options{TrustedProxies: []netipPrefix{mustPrefix(proxy + "/32")}})
	tests := []struct {
		name, peer, proto string
		status            int
	}{
		{"loopback plain HTTP", "", "", 200},
		{"public peer plain HTTP", "203.0.113.9:5555", "", 403},
		{"public peer claiming https", "203.0.113.9:5555", "https", 403},
		{"trusted proxy with https", proxy + ":443", "https", 200},
		{"trusted proxy with http", proxy + ":443", "http", 403},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := a.req("GET", "/v1/analyze/site", a.key, "")
			if tc.peer != "" {
				r.Header.Set(testPeerHeader, tc.peer)
			}
			if tc.proto != "" {
				r.Header.Set("X-Forwarded-Proto", tc.proto)
			}
			resp := a.do(r)
			if tc.status == 403 {
				apiErr(t, resp, 403, CodeHTTPSRequired)
				return
			}
			wantStatus(t, resp, tc.status)
			hsts := resp.Header.Get("Strict-Transport-Security")
			if (tc.proto == "https") != (hsts != "") {
				t.Errorf("HSTS %q", hsts)
			}
		})
	}
	t.Run("TLS", func(t *testing.T) {
		b := newTestAPI(t, nil, apiConfig{tls: true})
		r := b.req("GET", "/v1/analyze/site", b.key, "")
		r.Header.Set(testPeerHeader, "203.0.113.9:5555")
		resp := b.do(r)
		wantStatus(t, resp, 200)
		if !strings.Contains(resp.Header.Get("Strict-Transport-Security"), "max-age=") {
			t.Errorf("no HSTS on TLS: %v", resp.Header)
		}
	})
}
