package memstore_test

import (
	"context"
	"fmt"
	"time"

	"github.com/seokit/seokit/rankings"
	"github.com/seokit/seokit/rankings/memstore"
)

func Example() {
	st := memstore.New(nil)
	ctx := context.Background()
	day := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	var obs []rankings.Observation
	for i, p := range []float64{9, 7, 4} {
		pos := p
		obs = append(obs, rankings.Observation{Domain: "example.com", Keyword: "seo audit", Date: day.AddDate(0, 0, i), Position: &pos, Source: "example"})
	}
	if err := st.Record(ctx, obs); err != nil {
		fmt.Println(err)
		return
	}
	latest, _ := st.Latest(ctx, rankings.Filter{Domain: "example.com"})
	fmt.Println(latest[0].Keyword, latest[0].Date.Format(time.DateOnly), *latest[0].Position)
	// Output: seo audit 2025-03-03 4
}
