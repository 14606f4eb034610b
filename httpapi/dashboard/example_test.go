package dashboard_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/seokit/seokit/httpapi/auth"
	"github.com/seokit/seokit/httpapi/dashboard"
	"github.com/seokit/seokit/httpapi/store/sqlstore"
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
