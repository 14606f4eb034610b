package dataforseo_test

import (
	"encoding/base64"
	"testing"
	"time"

	"github.com/seokit/seokit/rankings"
	"github.com/seokit/seokit/rankings/rankingstest"
)

// dataforseoAnswers are the recorded DataForSEO answers of each provider
// answer the conformance suite asks for.
var dataforseoAnswers = map[rankingstest.Answer]answer{
	rankingstest.Empty:        {status: 200, fixture: "serp_empty.json"},
	rankingstest.ServerError:  {status: 500},
	rankingstest.RateLimited:  {status: 429, header: map[string]string{"Retry-After": "12"}},
	rankingstest.Unauthorized: {status: 401, fixture: "unauthorized.json"},
	rankingstest.Garbage:      {status: 200, fixture: "garbage.html"},
	rankingstest.Truncated:    {status: 200, fixture: "truncated.json"},
	rankingstest.Slow:         {status: 200, fixture: "serp_ok.json", delay: 3 * time.Second},
}

func TestConformance(t *testing.T) {
	src, f := newSource(t, answer{status: 200, fixture: "serp_ok.json"})
	rankingstest.RunSource(t, src, rankingstest.SourceCase{
		Query: rankings.Query{Keyword: "iphone 12 pro", Locale: enUS},
		Want: []rankings.Result{
			{Position: 1, URL: "https://www.apple.com/iphone-12-pro/"},
			{Position: 2, URL: "https://www.t-mobile.com/cell-phone/apple-iphone-12-pro"},
			{Position: 3, URL: "https://en.wikipedia.org/wiki/IPhone_12_Pro"},
		},
		ShallowDepth: 2,
		With: func(t *testing.T, a rankingstest.Answer) rankings.Source {
			ans, ok := dataforseoAnswers[a]
			if !ok {
				return nil
			}
			s, _ := newSource(t, ans)
			return s
		},
		Requests: func() int {
			f.mu.Lock()
			defer f.mu.Unlock()
			return len(f.tasks)
		},
		// The Basic credentials as the Authorization header carries them.
		Secrets: []string{base64.StdEncoding.EncodeToString([]byte("login:pw"))},
	})
}
