package searchconsole_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"time"

	"golang.org/x/oauth2"

	"github.com/seokit/seokit/rankings"
	"github.com/seokit/seokit/rankings/searchconsole"
)

func ExampleSource_Search() {
	// A stand-in for searchconsole.googleapis.com answering in the
	// documented searchAnalytics.query format.
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"rows":[{"keys":["seo audit","https://www.example.com/audit/"],"clicks":41,"impressions":1250,"ctr":0.0328,"position":3.6}],"responseAggregationType":"byPage"}`)
	}))
	defer api.Close()

	src, err := searchconsole.New("sc-domain:example.com", &searchconsole.Options{
		BaseURL:     api.URL, // omit in production
		TokenSource: oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "ya29.example"}),
		Now:         func() time.Time { return time.Date(2024, 9, 10, 0, 0, 0, 0, time.UTC) },
	})
	if err != nil {
		log.Fatal(err)
	}
	serp, err := src.Search(context.Background(), rankings.Query{Keyword: "seo audit"})
	if err != nil {
		log.Fatal(err)
	}
	start, end := src.Window()
	fmt.Println("window:", start.Format("2006-01-02"), "to", end.Format("2006-01-02"))
	fmt.Println("average:", serp.Average)
	for _, r := range serp.Results {
		fmt.Println(r.Position, r.URL)
	}
	// Output:
	// window: 2024-09-02 to 2024-09-08
	// average: true
	// 4 https://www.example.com/audit/
}
