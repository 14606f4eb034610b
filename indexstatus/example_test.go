package indexstatus_test

import (
	"context"
	"fmt"
	"log"
	"net/http/httptest"

	"golang.org/x/oauth2"

	"github.com/seokit/seokit/indexstatus"
	"github.com/seokit/seokit/indexstatus/indexstatustest"
	"github.com/seokit/seokit/indexstatus/searchconsole"
	"github.com/seokit/seokit/internal/googlefake"
)

func ExampleRun() {
	// A local Search Console speaking the documented format, and a
	// synthetic crawl report of 1,000 pages.
	api := httptest.NewServer(&googlefake.SearchConsole{Status: indexstatustest.Status})
	defer api.Close()
	ins, err := searchconsole.New(&searchconsole.Options{BaseURL: api.URL,
		TokenSource: oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "ya29.example"})})
	if err != nil {
		log.Fatal(err)
	}
	site := indexstatustest.Site(1000)

	rep, err := indexstatus.Run(context.Background(), site, ins, "sc-domain:example.com", &indexstatus.Options{SampleSize: 100})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d eligible, %d inspected (%s), %d indexed\n", rep.Sample.Eligible, rep.Counts.Inspected, rep.SampleLimit, rep.Counts.Indexed)
	for _, s := range rep.Sample.Strata {
		fmt.Printf("  %-8s %-4s %4d pages, %3d sampled\n", s.Template, s.Segment, s.Pages, s.Sampled)
	}
	// Output:
	// 990 eligible, 100 inspected (sample_size), 71 indexed
	//   product  shop  600 pages,  59 sampled
	//   blog     blog  200 pages,  20 sampled
	//   category shop  150 pages,  16 sampled
	//   page            40 pages,   5 sampled
}
