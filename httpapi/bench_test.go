package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/seokit/seokit/httpapi/auth"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/httpapi/store/sqlstore"
)

// benchServer returns a server over an in-memory store and a key of an
// account whose limit the benchmark never reaches.
func benchServer(b *testing.B, disableAuth bool) (*Server, string) {
	ctx := context.Background()
	st, err := sqlstore.Open(ctx, ":memory:", nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	s, err := New(ctx, &Options{Store: st, DisableAuth: disableAuth, Logger: slog.New(slog.DiscardHandler),
		BurstRate: 1e9, Burst: 1 << 30})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	if disableAuth {
		return s, ""
	}
	acct, err := s.Auth().CreateAccount(ctx, "bench@example.com", "bench", "", store.Enterprise)
	if err != nil {
		b.Fatal(err)
	}
	acct.DailyLimit = 1 << 30
	if err := st.UpdateAccount(ctx, acct); err != nil {
		b.Fatal(err)
	}
	key, _, err := s.Auth().CreateAPIKey(ctx, acct.ID, "bench", []string{auth.ScopeRead}, time.Time{})
	if err != nil {
		b.Fatal(err)
	}
	return s, key
}

// BenchmarkListJobs measures one GET /v1/analyze/site through the whole
// middleware chain: with an API key (authentication, daily counter in
// SQLite, permission) and with DisableAuth as the baseline.
func BenchmarkListJobs(b *testing.B) {
	for _, tc := range []struct {
		name    string
		disable bool
	}{{"apikey", false}, {"noauth", true}} {
		b.Run(tc.name, func(b *testing.B) {
			s, key := benchServer(b, tc.disable)
			b.ReportAllocs()
			for b.Loop() {
				r := httptest.NewRequest("GET", "/v1/analyze/site", nil)
				r.RemoteAddr = "127.0.0.1:5000"
				if key != "" {
					r.Header.Set("X-API-Key", key)
				}
				w := httptest.NewRecorder()
				s.ServeHTTP(w, r)
				if w.Code != http.StatusOK {
					b.Fatalf("status %d: %s", w.Code, w.Body)
				}
			}
		})
	}
}
