package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/seokit/seokit/httpapi/auth"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/httpapi/store/sqlstore"
)

func TestEmbed(t *testing.T) {
	ctx := context.Background()
	st, err := sqlstore.Open(ctx, ":memory:", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	mux, api, err := newMux(ctx, st, true)
	if err != nil {
		t.Fatal(err)
	}
	defer api.Close()
	acct, err := api.Auth().CreateAccount(ctx, "me@example.com", "Me", "", store.Free)
	if err != nil {
		t.Fatal(err)
	}
	key, _, err := api.Auth().CreateAPIKey(ctx, acct.ID, "t", []string{auth.ScopeRead, auth.ScopeWrite}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(mux)
	defer ts.Close()
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "<!doctype html><title>Local test page</title><h1>Hello</h1>")
	}))
	defer site.Close()
	call := func(method, path, body string, withKey bool) (*http.Response, string) {
		t.Helper()
		var rd io.Reader
		if body != "" {
			rd = strings.NewReader(body)
		}
		req, _ := http.NewRequest(method, ts.URL+path, rd)
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		if withKey {
			req.Header.Set("X-API-Key", key)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp, string(b)
	}
	if resp, body := call("GET", "/", "", false); resp.StatusCode != 200 || !strings.Contains(body, "my application") {
		t.Errorf("own route: %d %s", resp.StatusCode, body)
	}
	if resp, body := call("GET", "/healthz", "", false); resp.StatusCode != 200 || body != "ok\n" {
		t.Errorf("healthz: %d %s", resp.StatusCode, body)
	}
	if resp, body := call("GET", "/seo/v1/analyze/site", "", false); resp.StatusCode != 401 || !strings.Contains(body, `"code":"unauthorized"`) {
		t.Errorf("no key: %d %s", resp.StatusCode, body)
	}
	if resp, body := call("GET", "/seo/v2/analyze/site", "", true); resp.StatusCode != 404 || !strings.Contains(body, `"code":"not_found"`) {
		t.Errorf("v2: %d %s", resp.StatusCode, body)
	}
	resp, body := call("POST", "/seo/v1/optimize/content", `{"content":"Oak tables last.","keywords":["oak tables"],"locale":"en-US"}`, true)
	if resp.StatusCode != 200 || resp.Header.Get("X-RateLimit-Remaining") == "" {
		t.Errorf("optimize: %d %s", resp.StatusCode, body)
	}
	resp, body = call("POST", "/seo/v1/analyze/site", `{"domain":"`+strings.TrimPrefix(site.URL, "http://")+`","options":{"maxPages":1}}`, true)
	var job struct {
		ID    string `json:"id"`
		Links struct {
			Self string `json:"self"`
		} `json:"links"`
	}
	json.Unmarshal([]byte(body), &job)
	if resp.StatusCode != 202 || resp.Header.Get("Location") != "/seo/v1/analyze/site/"+job.ID || job.Links.Self != resp.Header.Get("Location") {
		t.Errorf("job: %d Location %q %s", resp.StatusCode, resp.Header.Get("Location"), body)
	}
	if resp, body := call("DELETE", "/seo/v1/analyze/site/"+job.ID, "", true); resp.StatusCode != 200 && resp.StatusCode != 409 {
		t.Errorf("cancel: %d %s", resp.StatusCode, body)
	}
}
