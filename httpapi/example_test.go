package httpapi_test

import (
	"context"
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
