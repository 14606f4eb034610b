package dataforseo_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"

	"github.com/seokit/seokit/rankings"
	"github.com/seokit/seokit/rankings/dataforseo"
	"github.com/seokit/seokit/seo"
)

func Example() {
	// A stand-in for api.dataforseo.com answering a recorded response.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := os.ReadFile("testdata/serp_ok.json")
		w.Write(b)
	}))
	defer srv.Close()

	src := dataforseo.New("login", "password", &dataforseo.Options{BaseURL: srv.URL})
	serp, err := src.Search(context.Background(), rankings.Query{
		Keyword: "iphone 12 pro", Locale: seo.Locale{Language: "en", Region: "US"}, Device: rankings.Mobile,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range serp.Results {
		fmt.Println(r.Position, r.URL)
	}
	fmt.Println("examined", serp.Depth, "organic positions")
	// Output:
	// 1 https://www.apple.com/iphone-12-pro/
	// 2 https://www.t-mobile.com/cell-phone/apple-iphone-12-pro
	// 3 https://en.wikipedia.org/wiki/IPhone_12_Pro
	// examined 3 organic positions
}
