package rankings_test

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/seokit/seokit/rankings"
	"github.com/seokit/seokit/rankings/memstore"
	"github.com/seokit/seokit/seo"
)

// pageSource is a Source answering one fixed result page, standing in for
// a provider in this example.
type pageSource struct{ results []rankings.Result }

func (pageSource) Name() string { return "example" }

func (s pageSource) Search(ctx context.Context, q rankings.Query) (*rankings.SERP, error) {
	if q.Keyword != "seo audit" {
		return &rankings.SERP{Query: q, Depth: 100, Source: "example", CheckedAt: time.Date(2025, 3, 1, 3, 0, 0, 0, time.UTC)}, nil
	}
	return &rankings.SERP{Query: q, Results: s.results, Depth: 100, Source: "example", CheckedAt: time.Date(2025, 3, 1, 3, 0, 0, 0, time.UTC)}, nil
}

func ExampleTracker_Check() {
	src := pageSource{results: []rankings.Result{
		{Position: 1, URL: "https://notexample.com/audit"},
		{Position: 2, URL: "https://www.example.com/tools/audit"},
	}}
	tr := rankings.NewTracker(src, memstore.New(nil), nil)
	rs, err := tr.Check(context.Background(), "example.com", []string{"seo audit", "rank tracker"}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range rs {
		if r.Position == nil {
			fmt.Printf("%s: not in the top %d\n", r.Keyword, r.Depth)
			continue
		}
		fmt.Printf("%s: %d %s\n", r.Keyword, *r.Position, r.URL)
	}
	// Output:
	// seo audit: 2 https://www.example.com/tools/audit
	// rank tracker: not in the top 100
}

func ExampleImportSearchConsole() {
	export := "Top queries,Clicks,Impressions,CTR,Position\n" +
		"seo audit,120,4800,2.5%,4.27\n" +
		"rank tracker,45,3100,1.45%,8.9\n"
	st := memstore.New(nil)
	rep, err := rankings.ImportSearchConsole(context.Background(), st, strings.NewReader(export), rankings.ImportOptions{
		Domain: "example.com", Date: time.Date(2025, 2, 28, 0, 0, 0, 0, time.UTC), Locale: seo.Locale{Language: "en", Region: "US"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("imported", rep.Imported)
	// No provider account: the tracker answers from the imported data.
	rs, _ := rankings.NewTracker(nil, st, nil).Rankings(context.Background(), "example.com", []string{"seo audit", "rank tracker"}, nil)
	for _, r := range rs {
		fmt.Printf("%s: %d (average %.2f, %s)\n", r.Keyword, *r.Position, *r.AveragePosition, r.Source)
	}
	// Output:
	// imported 2
	// seo audit: 4 (average 4.27, searchconsole-export)
	// rank tracker: 9 (average 8.90, searchconsole-export)
}
