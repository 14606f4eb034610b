package provider_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/seokit/seokit/internal/provider"
	"github.com/seokit/seokit/seo"
)

func ExampleClient_Do() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("q") == "" {
			w.Header().Set("Retry-After", "30")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		fmt.Fprint(w, `{"results":["a","b"]}`)
	}))
	defer srv.Close()
	c := provider.New("example", nil)

	var out struct{ Results []string }
	err := c.Do(context.Background(), &provider.Request{URL: srv.URL + "/search?q=seo"}, &out)
	fmt.Println(out.Results, err)

	err = c.Do(context.Background(), &provider.Request{URL: srv.URL + "/search"}, &out)
	var rl *seo.RateLimitError
	fmt.Println(errors.As(err, &rl), rl.RetryAfter)
	// Output:
	// [a b] <nil>
	// true 30s
}
