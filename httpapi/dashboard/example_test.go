package dashboard_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/seokit/seokit/httpapi/auth"
	"github.com/seokit/seokit/httpapi/dashboard"
	"github.com/seokit/seokit/httpapi/store/sqlstore"
	"github.com/seokit/seokit/rankings"
	"github.com/seokit/seokit/seo"
)

// The dashboard shares the API's store and authenticator; its
// SessionAccount tells the OAuth consent page who is signed in.
func Example() {
	ctx := context.Background()
	st, err := sqlstore.Open(ctx, ":memory:", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer st.Close()
	var d *dashboard.Dashboard
	au, err := auth.New(ctx, st, &auth.Options{
		SessionAccount: func(r *http.Request) (string, bool) { return d.SessionAccount(r) },
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	d, err = dashboard.New(st, au, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	mux := http.NewServeMux()
	au.Register(mux)
	mux.Handle("/dashboard/", d)

	rec := httptest.NewRecorder()
	mux.ServeHTTP(rec, httptest.NewRequest("GET", "/dashboard/keys", nil))
	fmt.Println(rec.Code, rec.Header().Get("Location"))

	rec = httptest.NewRecorder()
	mux.ServeHTTP(rec, httptest.NewRequest("GET", "/dashboard/login", nil))
	fmt.Println(rec.Code, rec.Header().Get("X-Frame-Options"))
	// Output:
	// 303 /dashboard/login?next=%2Fdashboard%2Fkeys
	// 200 DENY
}

// Each account sees only the ranking keywords on its own watchlist; a
// SQLWatchlist keeps the lists in the API's database.
func ExampleNewSQLWatchlist() {
	ctx := context.Background()
	st, err := sqlstore.Open(ctx, ":memory:", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer st.Close()
	w, err := dashboard.NewSQLWatchlist(ctx, st.DB(), string(st.Dialect()))
	if err != nil {
		fmt.Println(err)
		return
	}
	us := seo.Locale{Language: "en", Region: "US"}
	w.Watch(ctx, "acct_ada", []rankings.Tracked{{Domain: "shop.example", Keyword: "oak tables", Locale: us, Device: rankings.Desktop}}, 0)
	w.Watch(ctx, "acct_bea", []rankings.Tracked{{Domain: "blog.example", Keyword: "pine chairs", Locale: us, Device: rankings.Desktop}}, 0)
	for _, acct := range []string{"acct_ada", "acct_bea"} {
		ts, _ := w.Watched(ctx, acct, "")
		for _, t := range ts {
			fmt.Println(acct, t.Domain, t.Keyword, t.Locale, t.Device)
		}
	}
	// Output:
	// acct_ada shop.example oak tables en-US desktop
	// acct_bea blog.example pine chairs en-US desktop
}
