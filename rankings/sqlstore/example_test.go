package sqlstore_test

import (
	"context"
	"fmt"
	"time"

	"github.com/seokit/seokit/rankings"
	"github.com/seokit/seokit/rankings/sqlstore"
)

func ExampleOpen() {
	ctx := context.Background()
	// A file path keeps the history; ":memory:" is for tests and examples.
	st, err := sqlstore.Open(ctx, ":memory:", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer st.Close()
	pos := 3.0
	err = st.Record(ctx, []rankings.Observation{
		{Domain: "example.com", Keyword: "seo audit", Date: time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC), Position: &pos, Source: "example"},
		{Domain: "example.com", Keyword: "rank tracker", Date: time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC), Source: "example"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	h, _ := st.History(ctx, rankings.Filter{Domain: "example.com"})
	for _, o := range h {
		if o.Position == nil {
			fmt.Println(o.Keyword, "not ranked")
		} else {
			fmt.Println(o.Keyword, *o.Position)
		}
	}
	// Output:
	// rank tracker not ranked
	// seo audit 3
}
