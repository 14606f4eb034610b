package auth_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/seokit/seokit/httpapi/auth"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/httpapi/store/sqlstore"
)

func Example() {
	ctx := context.Background()
	st, err := sqlstore.Open(ctx, ":memory:", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer st.Close()
	srv, err := auth.New(ctx, st, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	acct, err := srv.CreateAccount(ctx, "owner@example.com", "Owner", "", store.Pro)
	if err != nil {
		fmt.Println(err)
		return
	}
	// A read-only key limited to keyword suggestions.
	key, rec, err := srv.CreateAPIKey(ctx, acct.ID, "dashboard", []string{"read", "keywords"}, time.Time{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(strings.HasPrefix(key, rec.Prefix), len(key))

	r := httptest.NewRequest("GET", "/v1/keywords/suggest?q=seo", nil)
	r.Header.Set("X-API-Key", key)
	p, err := srv.Authenticate(r)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(p.Method, p.AccountID == acct.ID)
	fmt.Println(p.Allowed(auth.ScopeRead, auth.OpKeywords), p.Allowed(auth.ScopeRead, auth.OpReports), p.Allowed(auth.ScopeWrite, auth.OpKeywords))

	r = httptest.NewRequest("GET", "/v1/keywords/suggest?api_key="+key, nil)
	fmt.Println(auth.RedactQuery(r.URL))
	// Output:
	// true 45
	// api_key true
	// true false false
	// /v1/keywords/suggest?api_key=REDACTED
}
