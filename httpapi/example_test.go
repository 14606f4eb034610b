package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/seokit/seokit/httpapi"
	"github.com/seokit/seokit/httpapi/auth"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/httpapi/store/sqlstore"
)

// Example serves the API over a private in-memory store, creates an
// account and a key, and optimises a text through it.
func Example() {
	ctx := context.Background()
	st, err := sqlstore.Open(ctx, ":memory:", nil)
	if err != nil {
		panic(err)
	}
	defer st.Close()
	srv, err := httpapi.New(ctx, &httpapi.Options{Store: st, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		panic(err)
	}
	if err := srv.Start(ctx); err != nil {
		panic(err)
	}
	defer srv.Close()
	acct, err := srv.Auth().CreateAccount(ctx, "dev@example.com", "Dev", "", store.Free)
	if err != nil {
		panic(err)
	}
	key, _, err := srv.Auth().CreateAPIKey(ctx, acct.ID, "example", []string{auth.ScopeRead, auth.ScopeWrite}, time.Time{})
	if err != nil {
		panic(err)
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()

	body := `{"content":"Oak tables last for generations.","keywords":["oak tables"],"locale":"en-US"}`
	req, _ := http.NewRequest("POST", ts.URL+"/v1/optimize/content", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-API-Key", key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		panic(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	fmt.Println(resp.StatusCode, resp.Header.Get("X-RateLimit-Limit"), resp.Header.Get("X-RateLimit-Remaining"))

	resp, err = http.Get(ts.URL + "/v1/keywords/suggest?query=oak")
	if err != nil {
		panic(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Println(resp.StatusCode, strings.Contains(string(b), `"code":"unauthorized"`))
	// Output:
	// 200 100 99
	// 401 true
}

// Example_projects creates a project (a site the account monitors, with its
// crawl configuration and tracked keywords) and reads its analysis history,
// empty until site analyses are started with its projectId.
func Example_projects() {
	ctx := context.Background()
	st, err := sqlstore.Open(ctx, ":memory:", nil)
	if err != nil {
		panic(err)
	}
	defer st.Close()
	srv, err := httpapi.New(ctx, &httpapi.Options{Store: st, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		panic(err)
	}
	if err := srv.Start(ctx); err != nil {
		panic(err)
	}
	defer srv.Close()
	acct, err := srv.Auth().CreateAccount(ctx, "dev@example.com", "Dev", "", store.Free)
	if err != nil {
		panic(err)
	}
	key, _, err := srv.Auth().CreateAPIKey(ctx, acct.ID, "example", []string{auth.ScopeRead, auth.ScopeWrite}, time.Time{})
	if err != nil {
		panic(err)
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	call := func(method, path, body string, v any) int {
		req, _ := http.NewRequest(method, ts.URL+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-API-Key", key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			panic(err)
		}
		defer resp.Body.Close()
		json.NewDecoder(resp.Body).Decode(v)
		return resp.StatusCode
	}

	var p httpapi.Project
	status := call("POST", "/v1/projects", `{"name":"Shop","domain":"shop.example.com","timeZone":"Europe/Berlin",
		"config":{"maxPages":200,"basicAuth":{"username":"staging","password":"s3cret"}},"keywords":["oak tables"]}`, &p)
	fmt.Println(status, p.Name, p.Domain, p.TimeZone, p.Config.MaxPages, p.Config.BasicAuth.Password, p.Keywords)

	var h httpapi.ProjectAnalyses
	status = call("GET", "/v1/projects/"+p.ID+"/analyses", "", &h)
	fmt.Println(status, len(h.Analyses), h.HasMore)
	// Output:
	// 201 Shop shop.example.com Europe/Berlin 200 [redacted] [oak tables]
	// 200 0 false
}
