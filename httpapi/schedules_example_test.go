package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
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

// Example_schedule schedules a weekly site analysis of a project in its
// time zone. The answer gives the next run in that zone.
func Example_schedule() {
	ctx := context.Background()
	st, err := sqlstore.Open(ctx, ":memory:", nil)
	if err != nil {
		panic(err)
	}
	defer st.Close()
	now := func() time.Time { return time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC) } // a Friday
	srv, err := httpapi.New(ctx, &httpapi.Options{Store: st, Now: now, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		panic(err)
	}
	if err := srv.Start(ctx); err != nil {
		panic(err)
	}
	defer srv.Close()
	acct, err := srv.Auth().CreateAccount(ctx, "agency@example.com", "Agency", "", store.Pro)
	if err != nil {
		panic(err)
	}
	key, _, err := srv.Auth().CreateAPIKey(ctx, acct.ID, "example", []string{auth.ScopeRead, auth.ScopeWrite}, time.Time{})
	if err != nil {
		panic(err)
	}
	p := &store.Project{AccountID: acct.ID, Name: "Shop", Domain: "shop.example.com", TimeZone: "Europe/Paris"}
	if err := st.CreateProject(ctx, p); err != nil {
		panic(err)
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()

	req, _ := http.NewRequest("POST", ts.URL+"/v1/projects/"+p.ID+"/schedules", strings.NewReader(`{"kind":"site","spec":"weekly@mon 06:00"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-API-Key", key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	var sc httpapi.Schedule
	if err := json.NewDecoder(resp.Body).Decode(&sc); err != nil {
		panic(err)
	}
	fmt.Println(resp.StatusCode, sc.Kind, sc.Cron, sc.TimeZone)
	fmt.Println(sc.NextRun.Format(time.RFC3339))
	// Output:
	// 201 site 0 6 * * 1 Europe/Paris
	// 2026-11-30T05:00:00Z
}
