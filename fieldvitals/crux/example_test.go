package crux_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/seokit/seokit/fieldvitals"
	"github.com/seokit/seokit/fieldvitals/crux"
)

func ExampleSource_Record() {
	// A stand-in for chromeuxreport.googleapis.com in the documented
	// format: LCP and CLS only, and no data at all for /new.
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.ContentLength > 0 && r.URL.Path == "/v1/records:queryRecord" {
			var q struct{ URL string }
			_ = json.NewDecoder(r.Body).Decode(&q)
			if q.URL == "https://example.com/new" {
				w.WriteHeader(http.StatusNotFound)
				fmt.Fprint(w, `{"error":{"code":404,"message":"chrome ux report data not found","status":"NOT_FOUND"}}`)
				return
			}
		}
		fmt.Fprint(w, `{"record":{"key":{"url":"https://example.com/"},"metrics":{
			"largest_contentful_paint":{"histogram":[{"start":0,"end":2500,"density":0.71},{"start":2500,"end":4000,"density":0.18},{"start":4000,"density":0.11}],"percentiles":{"p75":2710}},
			"cumulative_layout_shift":{"histogram":[{"start":"0.00","end":"0.10","density":0.9},{"start":"0.10","end":"0.25","density":0.06},{"start":"0.25","density":0.04}],"percentiles":{"p75":"0.03"}}},
			"collectionPeriod":{"firstDate":{"year":2026,"month":11,"day":2},"lastDate":{"year":2026,"month":11,"day":29}}}}`)
	}))
	defer api.Close()

	src, err := crux.New("AIza-example", &crux.Options{BaseURL: api.URL}) // omit BaseURL in production
	if err != nil {
		log.Fatal(err)
	}
	for _, u := range []string{"https://example.com/", "https://example.com/new"} {
		rec, err := src.Record(context.Background(), fieldvitals.Query{URL: u, FormFactor: fieldvitals.Phone})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(u, rec.Status)
		for _, m := range rec.Metrics {
			if m.P75 == nil {
				fmt.Printf("  %-4s %s\n", m.Name, m.Status)
				continue
			}
			fmt.Printf("  %-4s p75 %g%s %s\n", m.Name, *m.P75, m.Unit, m.Rating)
		}
	}
	// Output:
	// https://example.com/ ok
	//   lcp  p75 2710ms needs_improvement
	//   inp  insufficient_data
	//   cls  p75 0.03 good
	//   fcp  insufficient_data
	//   ttfb insufficient_data
	// https://example.com/new insufficient_data
}
