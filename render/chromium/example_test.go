package chromium_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/seokit/seokit/render"
	"github.com/seokit/seokit/render/chromium"
	"github.com/seokit/seokit/seo"
)

// A pool renders pages with the safe fetcher's address policy; raw
// analysis goes on when no browser is installed.
func ExampleNew() {
	ctx := context.Background()
	pool, err := chromium.New(ctx, &chromium.Options{
		Browsers: 1,
		Tabs:     4,
		Fetcher:  seo.NewFetcher(nil), // public addresses only
	})
	if errors.Is(err, render.ErrUnavailable) {
		log.Printf("rendering off: %v", err)
		return
	}
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()

	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	res, err := pool.Render(ctx, &render.Request{URL: "https://example.com/", Device: render.Mobile})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Status, res.TimedOut, len(res.HTML) > 0)
	for _, r := range res.Resources {
		if r.Outcome != render.OutcomeOK {
			fmt.Println("not fetched:", r.URL, r.Outcome, r.Error)
		}
	}
}
