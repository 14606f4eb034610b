package httpapi_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seokit/seokit/httpapi"
	"github.com/seokit/seokit/httpapi/auth"
	"github.com/seokit/seokit/httpapi/plans"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/httpapi/store/sqlstore"
	"github.com/seokit/seokit/internal/pgtest"
)

// TestMultiInstanceCaps: three instances, each with its own store on one
// PostgreSQL database (as three processes), receive at once many creations
// of projects, then schedules, then alert rules from one Free account,
// spread over the instances. The stored counts equal the plan's caps
// (Free: 3 projects, 2 schedules, 5 alert rules), every creation past
// them answers 409 conflict, and nothing answers otherwise.
func TestMultiInstanceCaps(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	dsn := pgtest.DSN(t)
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	t.Cleanup(site.Close)
	su, _ := url.Parse(site.URL)
	_, port, _ := strings.Cut(su.Host, ":")
	hook := site.URL + "/hook"

	var (
		urls    []string
		stores  []*sqlstore.Store
		servers []*httpapi.Server
		errlog  lockedBuffer
	)
	for i := range 3 {
		st, err := sqlstore.Open(ctx, dsn, nil)
		if err != nil {
			t.Fatalf("instance %d: open store: %v", i, err)
		}
		t.Cleanup(func() { st.Close() })
		srv, err := httpapi.New(ctx, &httpapi.Options{
			Store: st, AllowPrivate: true, BurstRate: 1e6, Burst: 1e6,
			Logger:           slog.New(slog.NewTextHandler(&errlog, &slog.HandlerOptions{Level: slog.LevelError})),
			ScheduleInterval: -1,
		})
		if err != nil {
			t.Fatalf("instance %d: %v", i, err)
		}
		t.Cleanup(func() { srv.Close() })
		if err := srv.Start(ctx); err != nil {
			t.Fatalf("instance %d: start: %v", i, err)
		}
		ts := httptest.NewServer(srv)
		t.Cleanup(ts.Close)
		urls, stores, servers = append(urls, ts.URL), append(stores, st), append(servers, srv)
	}
	// The account and its key, made through the first instance.
	a, err := servers[0].Auth().CreateAccount(ctx, "caps@example.com", "Caps", "", store.Free)
	if err != nil {
		t.Fatal(err)
	}
	key, _, err := servers[0].Auth().CreateAPIKey(ctx, a.ID, "caps", []string{auth.ScopeRead, auth.ScopeWrite}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	free := plans.Defaults[store.Free]
	client := &http.Client{Timeout: 30 * time.Second}
	t.Cleanup(client.CloseIdleConnections)

	// hammer sends n POSTs at once, the i-th to instance i%3, and counts
	// the statuses.
	const n = 18
	hammer := func(what string, path func(i int) string, body func(i int) string) map[int]int {
		t.Helper()
		var (
			wg       sync.WaitGroup
			mu       sync.Mutex
			statuses = map[int]int{}
			start    = make(chan struct{})
		)
		for i := range n {
			wg.Go(func() {
				<-start
				req, _ := http.NewRequestWithContext(ctx, "POST", urls[i%3]+path(i), strings.NewReader(body(i)))
				req.Header.Set("X-API-Key", key)
				req.Header.Set("Content-Type", "application/json")
				resp, err := client.Do(req)
				if err != nil {
					t.Errorf("%s %d: %v", what, i, err)
					return
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				mu.Lock()
				statuses[resp.StatusCode]++
				mu.Unlock()
				if resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusConflict {
					t.Errorf("%s %d: %d %s", what, i, resp.StatusCode, b)
				}
			})
		}
		close(start)
		wg.Wait()
		return statuses
	}
	check := func(what string, statuses map[int]int, stored, limit int) {
		t.Helper()
		t.Logf("%s: %d stored, plan cap %d (%d concurrent requests over 3 instances: %d×201, %d×409)",
			what, stored, limit, n, statuses[http.StatusCreated], statuses[http.StatusConflict])
		if stored != limit || statuses[http.StatusCreated] != limit || statuses[http.StatusConflict] != n-limit {
			t.Errorf("%s: %d stored, statuses %v; want %d stored, %d×201 and %d×409; error logs:\n%s",
				what, stored, statuses, limit, limit, n-limit, errlog.String())
		}
	}

	st := hammer("projects", func(int) string { return "/v1/projects" },
		func(i int) string { return fmt.Sprintf(`{"domain":"127.0.%d.%d:%s"}`, i/200, i%200+1, port) })
	ps, err := stores[1].Projects(ctx, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	check("projects", st, len(ps), free.Projects)
	if len(ps) == 0 {
		t.FailNow()
	}

	st = hammer("schedules", func(i int) string { return "/v1/projects/" + ps[i%len(ps)].ID + "/schedules" },
		func(int) string { return `{"kind":"site","spec":"daily@06:00"}` })
	ns, err := stores[2].CountSchedules(ctx, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	check("schedules", st, ns, free.Schedules)

	st = hammer("alert rules", func(i int) string { return "/v1/projects/" + ps[i%len(ps)].ID + "/alerts" },
		func(int) string { return fmt.Sprintf(`{"kind":"new_findings","channel":"webhook","target":%q}`, hook) })
	nr, err := stores[0].CountAlertRules(ctx, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	check("alert rules", st, nr, free.AlertRules)
}
