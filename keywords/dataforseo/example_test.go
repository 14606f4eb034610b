package dataforseo_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"

	"github.com/seokit/seokit/keywords/dataforseo"
	"github.com/seokit/seokit/seo"
)

func Example() {
	// A stand-in for api.dataforseo.com answering a recorded response.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := os.ReadFile("testdata/suggestions_ok.json")
		w.Write(b)
	}))
	defer srv.Close()

	src := dataforseo.New("login", "password", &dataforseo.Options{BaseURL: srv.URL})
	ideas, err := src.Suggest(context.Background(), "cheap laptops", seo.Locale{Language: "en", Region: "US"}, 2)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, k := range ideas {
		fmt.Printf("%s: volume %d, difficulty %d (%s)\n", k.Keyword, *k.Volume, *k.Difficulty, k.DifficultyMethod)
		break
	}
	fmt.Println(len(ideas), "ideas from", src.Name())
	// Output:
	// cheap laptops for sale: volume 2900, difficulty 53 (dataforseo:keyword_difficulty)
	// 2 ideas from dataforseo
}
