package googleads_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"

	"golang.org/x/oauth2"

	"github.com/seokit/seokit/keywords/googleads"
	"github.com/seokit/seokit/seo"
)

func Example() {
	// A stand-in for googleads.googleapis.com answering a recorded response.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := os.ReadFile("testdata/ideas_ok.json")
		w.Write(b)
	}))
	defer srv.Close()

	tokens := oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "access-token"})
	src, err := googleads.New("123-456-7890", "developer-token", tokens, &googleads.Options{BaseURL: srv.URL})
	if err != nil {
		fmt.Println(err)
		return
	}
	ideas, err := src.Suggest(context.Background(), "buy laptop", seo.Locale{Language: "en", Region: "US"}, 2)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, k := range ideas {
		fmt.Printf("%s: volume %d, paid competition %d, organic difficulty known: %v\n",
			k.Keyword, *k.Volume, *k.PaidCompetition, k.Difficulty != nil)
	}
	// Output:
	// buy laptop: volume 12100, paid competition 100, organic difficulty known: false
	// laptop sale: volume 33100, paid competition 61, organic difficulty known: false
}
