package customsearch_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"

	"github.com/seokit/seokit/rankings"
	"github.com/seokit/seokit/rankings/customsearch"
	"github.com/seokit/seokit/seo"
)

func Example() {
	// A stand-in for www.googleapis.com answering one recorded page.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := os.ReadFile("testdata/page1.json")
		w.Write(b)
	}))
	defer srv.Close()

	src := customsearch.New("api-key", "engine-id", &customsearch.Options{BaseURL: srv.URL})
	serp, err := src.Search(context.Background(), rankings.Query{
		Keyword: "sourdough starter", Locale: seo.Locale{Language: "en", Region: "US"}, Depth: 10,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(serp.Results), "results;", "first:", serp.Results[0].URL)
	// Output:
	// 10 results; first: https://site01.example.org/sourdough-starter
}
