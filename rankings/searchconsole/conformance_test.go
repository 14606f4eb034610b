package searchconsole

import (
	"testing"
	"time"

	"github.com/seokit/seokit/rankings"
	"github.com/seokit/seokit/rankings/rankingstest"
	"github.com/seokit/seokit/seo"
)

// conformanceAnswers are the recorded Search Console answers of each
// provider answer the conformance suite asks for.
var conformanceAnswers = map[rankingstest.Answer]answer{
	rankingstest.Empty:        {200, "empty.json", 0},
	rankingstest.ServerError:  {500, "error_500.json", 0},
	rankingstest.RateLimited:  {429, "error_429.json", 0},
	rankingstest.Unauthorized: {401, "error_401.json", 0},
	rankingstest.Garbage:      {200, "garbage.txt", 0},
	rankingstest.Slow:         {200, "pages.json", 2 * time.Second},
}

func TestConformance(t *testing.T) {
	f, src := newSource(t, "https://www.example.com/", Options{}, answer{200, "pages.json", 0})
	rankingstest.RunSource(t, src, rankingstest.SourceCase{
		Query: rankings.Query{Keyword: "seo audit", Locale: seo.Locale{Language: "en", Region: "US"}, Device: rankings.Mobile},
		// pages.json: the page with most impressions has position 3.6.
		Want:         []rankings.Result{{Position: 4, URL: "https://www.example.com/audit/"}},
		ShallowDepth: 2,
		With: func(t *testing.T, a rankingstest.Answer) rankings.Source {
			ans, ok := conformanceAnswers[a]
			if !ok {
				return nil
			}
			_, s := newSource(t, "https://www.example.com/", Options{}, ans)
			return s
		},
		Requests: func() int {
			f.mu.Lock()
			defer f.mu.Unlock()
			return len(f.reqs)
		},
		Secrets: []string{"ya29.test-token"},
	})
}
