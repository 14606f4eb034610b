package dashboard_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/seokit/seokit/httpapi/dashboard"
	"github.com/seokit/seokit/httpapi/store/sqlstore"
)

// TestSQLWatchlistOpensOldTable opens a watchlist table written by the last
// release before its schema was versioned (the statements copied here).
func TestSQLWatchlistOpensOldTable(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "api.db")
	st, err := sqlstore.Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, s := range []string{`CREATE TABLE IF NOT EXISTS dashboard_watchlist (
	account_id TEXT NOT NULL,
	domain TEXT NOT NULL,
	keyword TEXT NOT NULL,
	locale TEXT NOT NULL,
	device TEXT NOT NULL,
	added_at BIGINT NOT NULL,
	PRIMARY KEY (account_id, domain, keyword, locale, device))`,
		`CREATE INDEX IF NOT EXISTS dashboard_watchlist_entry ON dashboard_watchlist (domain, keyword, locale, device)`,
		`INSERT INTO dashboard_watchlist VALUES ('acct_1', 'example.com', 'seo tools', 'en-US', 'desktop', 1700000000)`,
	} {
		if _, err := st.DB().ExecContext(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	w, err := dashboard.NewSQLWatchlist(ctx, st.DB(), string(st.Dialect()))
	if err != nil {
		t.Fatal(err)
	}
	got, err := w.Watched(ctx, "acct_1", "")
	if err != nil || len(got) != 1 || got[0].Keyword != "seo tools" {
		t.Fatalf("Watched = %+v, %v; want the stored entry", got, err)
	}
	if _, err := dashboard.NewSQLWatchlist(ctx, st.DB(), "mysql"); err == nil {
		t.Error("NewSQLWatchlist(mysql): no error")
	}
}
