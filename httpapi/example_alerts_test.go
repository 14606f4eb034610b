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
	"github.com/seokit/seokit/monitor"
)

// Example_alerts adds a webhook alert rule to a project and sends it a test
// alert, which the receiver verifies with the secret shown once.
func Example_alerts() {
	ctx := context.Background()
	st, err := sqlstore.Open(ctx, ":memory:", nil)
	if err != nil {
		panic(err)
	}
	defer st.Close()
	// AllowPrivate: the receiver below listens on loopback.
	srv, err := httpapi.New(ctx, &httpapi.Options{Store: st, AllowPrivate: true, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		panic(err)
	}
	if err := srv.Start(ctx); err != nil {
		panic(err)
	}
	defer srv.Close()
	acct, _ := srv.Auth().CreateAccount(ctx, "dev@example.com", "Dev", "", store.Free)
	key, _, _ := srv.Auth().CreateAPIKey(ctx, acct.ID, "example", []string{auth.ScopeRead, auth.ScopeWrite}, time.Time{})
	project := &store.Project{AccountID: acct.ID, Name: "Shop", Domain: "shop.example.com"}
	if err := st.CreateProject(ctx, project); err != nil {
		panic(err)
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()

	var secret string
	received := make(chan error, 1)
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		received <- monitor.Verify(secret, r.Header.Get(monitor.SignatureHeader), body, time.Now(), time.Minute)
	}))
	defer hook.Close()

	call := func(path, body string, v any) int {
		req, _ := http.NewRequest("POST", ts.URL+path, strings.NewReader(body))
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
	var rule httpapi.AlertRule
	status := call("/v1/projects/"+project.ID+"/alerts",
		`{"kind":"new_findings","params":{"severity":"warning"},"channel":"webhook","target":"`+hook.URL+`"}`, &rule)
	secret = rule.Secret
	fmt.Println(status, rule.Kind, string(rule.Params) != "{}", strings.HasPrefix(secret, "whsec_"))
	var res httpapi.AlertTestResult
	call("/v1/projects/"+project.ID+"/alerts/"+rule.ID+"/test", "", &res)
	fmt.Println(res.State, <-received)
	// Output:
	// 201 new_findings true true
	// delivered <nil>
}
