package ga4_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"time"

	"golang.org/x/oauth2"

	"github.com/seokit/seokit/reports/ga4"
)

func ExampleSource_Traffic() {
	// A stand-in for analyticsdata.googleapis.com answering runReport in
	// the documented format: values are strings, dates are YYYYMMDD.
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"dimensionHeaders":[{"name":"date"}],
			"metricHeaders":[{"name":"sessions","type":"TYPE_INTEGER"},{"name":"totalUsers","type":"TYPE_INTEGER"}],
			"rows":[{"dimensionValues":[{"value":"20240901"}],"metricValues":[{"value":"123"},{"value":"101"}]},
			        {"dimensionValues":[{"value":"20240902"}],"metricValues":[{"value":"140"},{"value":"118"}]}],
			"rowCount":2,"kind":"analyticsData#runReport"}`)
	}))
	defer api.Close()

	src, err := ga4.New(map[string]string{"example.com": "123456789"}, &ga4.Options{
		BaseURL:     api.URL, // omit in production
		TokenSource: oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "ya29.example"}),
	})
	if err != nil {
		log.Fatal(err)
	}
	start := time.Date(2024, 9, 1, 0, 0, 0, 0, time.UTC)
	tr, err := src.Traffic(context.Background(), "example.com", start, start.AddDate(0, 0, 1))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s: %d organic sessions\n", tr.Source, *tr.Sessions)
	for _, d := range tr.Daily {
		fmt.Println(d.Date, *d.Sessions)
	}
	// Output:
	// ga4: 263 organic sessions
	// 2024-09-01 123
	// 2024-09-02 140
}
