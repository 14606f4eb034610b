package serpapi_test

import (
	"testing"
	"time"

	"github.com/seokit/seokit/rankings"
	"github.com/seokit/seokit/rankings/rankingstest"
)

// serpapiAnswers are the recorded SerpApi answers of each provider answer
// the conformance suite asks for.
var serpapiAnswers = map[rankingstest.Answer]answer{
	rankingstest.Empty:        {status: 200, fixture: "fully_empty.json"},
	rankingstest.ServerError:  {status: 500, fixture: "internal.json"},
	rankingstest.RateLimited:  {status: 429, fixture: "out_of_searches.json", header: map[string]string{"Retry-After": "60"}},
	rankingstest.Unauthorized: {status: 401, fixture: "invalid_key.json"},
	rankingstest.Garbage:      {status: 200, fixture: "garbage.html"},
	rankingstest.Truncated:    {status: 200, fixture: "truncated.json"},
	rankingstest.Slow:         {status: 200, fixture: "page1.json", delay: 3 * time.Second},
}

func TestConformance(t *testing.T) {
	src, f := newSource(t, map[string]answer{"0": {status: 200, fixture: "page1.json"}, "10": {status: 200, fixture: "page2.json"}})
	rankingstest.RunSource(t, src, rankingstest.SourceCase{
		Query: rankings.Query{Keyword: "espresso machine", Locale: enUS},
		Want: []rankings.Result{
			{Position: 1, URL: "https://www.coffeegeek.com/guides/espresso-machines"},
			{Position: 2, URL: "https://www.seriouseats.com/best-espresso-machines"},
			{Position: 3, URL: "https://www.wired.com/gallery/best-espresso-machines/"},
		},
		ShallowDepth: 5,
		With: func(t *testing.T, a rankingstest.Answer) rankings.Source {
			ans, ok := serpapiAnswers[a]
			if !ok {
				return nil
			}
			s, _ := newSource(t, map[string]answer{"0": ans})
			return s
		},
		Requests: func() int {
			f.mu.Lock()
			defer f.mu.Unlock()
			return len(f.starts)
		},
		Secrets: []string{"secret-key"},
	})
}
