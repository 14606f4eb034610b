package customsearch_test

import (
	"testing"
	"time"

	"github.com/seokit/seokit/rankings"
	"github.com/seokit/seokit/rankings/rankingstest"
)

// customsearchAnswers are the recorded Custom Search answers of each
// provider answer the conformance suite asks for.
var customsearchAnswers = map[rankingstest.Answer]answer{
	rankingstest.Empty:        {200, "empty.json", 0},
	rankingstest.ServerError:  {500, "internal.json", 0},
	rankingstest.RateLimited:  {429, "quota.json", 0},
	rankingstest.Unauthorized: {403, "forbidden.json", 0},
	rankingstest.Garbage:      {200, "garbage.html", 0},
	rankingstest.Truncated:    {200, "truncated.json", 0},
	rankingstest.Slow:         {200, "page1.json", 3 * time.Second},
}

func TestConformance(t *testing.T) {
	src, f := newSource(t, three)
	rankingstest.RunSource(t, src, rankingstest.SourceCase{
		Query: rankings.Query{Keyword: "sourdough starter", Locale: enUS},
		Want: []rankings.Result{
			{Position: 1, URL: "https://site01.example.org/sourdough-starter"},
			{Position: 2, URL: "https://site02.example.org/sourdough-starter"},
			{Position: 3, URL: "https://site03.example.org/sourdough-starter"},
		},
		ShallowDepth: 15,
		With: func(t *testing.T, a rankingstest.Answer) rankings.Source {
			ans, ok := customsearchAnswers[a]
			if !ok {
				return nil
			}
			s, _ := newSource(t, map[string]answer{"1": ans})
			return s
		},
		Requests: func() int {
			f.mu.Lock()
			defer f.mu.Unlock()
			return len(f.reqs)
		},
		Secrets: []string{"api-key-1"},
	})
}
