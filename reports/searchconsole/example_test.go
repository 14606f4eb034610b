package searchconsole_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"time"

	"golang.org/x/oauth2"

	"github.com/seokit/seokit/reports/searchconsole"
)

func ExampleSource_Traffic() {
	// A stand-in for searchconsole.googleapis.com answering in the
	// documented searchAnalytics.query format; 2024-09-02 has no data.
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"rows":[
			{"keys":["2024-09-01"],"clicks":30,"impressions":1200,"ctr":0.025,"position":9.8},
			{"keys":["2024-09-03"],"clicks":42,"impressions":1500,"ctr":0.028,"position":9.1}],
			"responseAggregationType":"byProperty"}`)
	}))
	defer api.Close()

	src, err := searchconsole.New(&searchconsole.Options{
		BaseURL:     api.URL, // omit in production
		TokenSource: oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "ya29.example"}),
	})
	if err != nil {
		log.Fatal(err)
	}
	start := time.Date(2024, 9, 1, 0, 0, 0, 0, time.UTC)
	tr, err := src.Traffic(context.Background(), "example.com", start, start.AddDate(0, 0, 2))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s: %d clicks, %d impressions, CTR %.4f\n", tr.Source, *tr.Clicks, *tr.Impressions, *tr.CTR)
	for _, d := range tr.Daily {
		fmt.Println(d.Date, *d.Clicks, *d.Impressions)
	}
	// Output:
	// searchconsole: 72 clicks, 2700 impressions, CTR 0.0267
	// 2024-09-01 30 1200
	// 2024-09-03 42 1500
}
