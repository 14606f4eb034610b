package searchconsole_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"

	"golang.org/x/oauth2"

	"github.com/seokit/seokit/indexstatus/searchconsole"
)

func ExampleInspector_Inspect() {
	// A stand-in for searchconsole.googleapis.com answering in the
	// documented urlInspection/index:inspect format.
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"inspectionResult":{"indexStatusResult":{
			"verdict":"NEUTRAL","coverageState":"Crawled - currently not indexed",
			"robotsTxtState":"ALLOWED","indexingState":"INDEXING_ALLOWED",
			"lastCrawlTime":"2026-11-30T08:15:02Z","pageFetchState":"SUCCESSFUL","crawledAs":"MOBILE"}}}`)
	}))
	defer api.Close()

	ins, err := searchconsole.New(&searchconsole.Options{
		BaseURL:     api.URL, // omit in production
		TokenSource: oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "ya29.example"}),
	})
	if err != nil {
		log.Fatal(err)
	}
	in, err := ins.Inspect(context.Background(), "sc-domain:example.com", "https://example.com/shoes")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(in.Coverage, "| indexed:", in.Indexed(), "| last crawl:", in.LastCrawl.Format("2006-01-02"))
	fmt.Println("Google canonical:", in.GoogleCanonical == "")
	// Output:
	// Crawled - currently not indexed | indexed: false | last crawl: 2026-11-30
	// Google canonical: true
}
