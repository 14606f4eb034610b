package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/seokit/seokit/httpapi/ratelimit"
	"github.com/seokit/seokit/httpapi/store/sqlstore"
)

// TestHealthzWritePath checks that /healthz reports a database that
// answers reads but refuses every write (as with a full disk), naming it,
// and reports ok again once writes succeed.
func TestHealthzWritePath(t *testing.T) {
	ctx := context.Background()
	st, err := sqlstore.Open(ctx, filepath.Join(t.TempDir(), "api.db"), &sqlstore.Options{MaxOpenConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	probe := newWriteProbe(st, time.Minute)
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	probe.now = func() time.Time { return now }
	h := ready(st, ratelimit.NewLocal(st), probe)
	get := func() (int, string) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/healthz", nil))
		b, _ := io.ReadAll(rec.Body)
		return rec.Code, string(b)
	}
	heartbeat := func() string {
		var at string
		if err := st.DB().QueryRowContext(ctx, `SELECT at FROM seokit_heartbeat WHERE instance = ?`, probe.instance).Scan(&at); err != nil {
			t.Fatal(err)
		}
		return at
	}
	if code, body := get(); code != http.StatusOK || body != "ok\n" {
		t.Fatalf("healthy: %d %q, want 200 ok", code, body)
	}
	if got := heartbeat(); got != now.Format(time.RFC3339Nano) {
		t.Fatalf("heartbeat %q, want %s", got, now.Format(time.RFC3339Nano))
	}

	// Every write of the (only) connection fails; reads and pings work.
	if _, err := st.DB().ExecContext(ctx, `PRAGMA query_only = 1`); err != nil {
		t.Fatal(err)
	}
	// Within the interval the last outcome stands: no write is tried.
	if code, _ := get(); code != http.StatusOK {
		t.Fatalf("within the interval: %d, want the last outcome, 200", code)
	}
	now = now.Add(time.Minute)
	code, body := get()
	if code != http.StatusServiceUnavailable || !strings.HasPrefix(body, "database writes failing: ") || !strings.Contains(body, "readonly") {
		t.Fatalf("writes refused: %d %q, want 503 naming the failing database writes and the error", code, body)
	}
	t.Logf("answer while writes fail: %d %q", code, strings.TrimSpace(body))

	if _, err := st.DB().ExecContext(ctx, `PRAGMA query_only = 0`); err != nil {
		t.Fatal(err)
	}
	now = now.Add(time.Minute)
	if code, body := get(); code != http.StatusOK {
		t.Fatalf("writes back: %d %q, want 200", code, body)
	}
	if got := heartbeat(); got != now.Format(time.RFC3339Nano) {
		t.Fatalf("heartbeat %q after recovery, want %s", got, now.Format(time.RFC3339Nano))
	}
}
