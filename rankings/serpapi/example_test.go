package serpapi_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"

	"github.com/seokit/seokit/rankings"
	"github.com/seokit/seokit/rankings/serpapi"
	"github.com/seokit/seokit/seo"
)

func Example() {
	// A stand-in for serpapi.com answering one recorded page.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := os.ReadFile("testdata/page1.json")
		w.Write(b)
	}))
	defer srv.Close()

	src := serpapi.New("api-key", &serpapi.Options{BaseURL: srv.URL})
	serp, err := src.Search(context.Background(), rankings.Query{
		Keyword: "espresso machine", Locale: seo.Locale{Language: "en", Region: "US"}, Depth: 3,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range serp.Results {
		fmt.Println(r.Position, r.URL)
	}
	// Output:
	// 1 https://www.coffeegeek.com/guides/espresso-machines
	// 2 https://www.seriouseats.com/best-espresso-machines
	// 3 https://www.wired.com/gallery/best-espresso-machines/
}
