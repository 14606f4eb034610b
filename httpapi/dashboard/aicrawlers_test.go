package dashboard_test

import (
	"strings"
	"testing"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/seo/robotstxt"
)

// TestAnalysisShowsAICrawlers: a report with the AI crawler matrix and
// segments shows them as tables on the analysis page.
func TestAnalysisShowsAICrawlers(t *testing.T) {
	e := newEnv(t, nil)
	rep := &crawler.SiteReport{
		Domain: "ai.example", StatusCodes: map[int]int{200: 1}, Crawl: crawler.CrawlStats{Fetched: 1},
		Pages: []crawler.PageSummary{{URL: "https://ai.example/", Status: 200}},
		AICrawlers: &crawler.AICrawlerReport{Status: "complete", RobotsURL: "https://ai.example/robots.txt", RobotsStatus: 200,
			HomeURL: "https://ai.example/", CrawledURLs: 1, Baseline: &crawler.AIProbe{Status: 200, Bytes: 5000},
			Crawlers: []crawler.AICrawlerStatus{
				{AICrawler: crawler.AICrawler{Token: "GPTBot", Operator: "OpenAI", Purpose: crawler.AITraining, Source: "https://platform.openai.com/docs/bots"},
					Home: robotstxt.Decision{Group: "gptbot", Line: 2, Rule: "Disallow: /"}, BlockedURLs: 1, Probe: &crawler.AIProbe{Status: 200, Bytes: 5000}},
				{AICrawler: crawler.AICrawler{Token: "ClaudeBot", Operator: "Anthropic", Purpose: crawler.AITraining, Source: "https://example.org/"},
					Home: robotstxt.Decision{Allowed: true, Rule: robotstxt.DecisionNoGroup}, AllowedURLs: 1, Probe: &crawler.AIProbe{Status: 403, Blocked: true, Reason: "status 403 where the normal fetch answers 200"}},
			},
			LLMsTxt:              crawler.LLMsTxtReport{URL: "https://ai.example/llms.txt", Status: 404},
			ContentNeedsJSReason: "pages were not rendered",
		},
		Segments: []crawler.SegmentSummary{{Name: "blog", Pages: 1, ByID: map[string]int{"title.missing": 1}}, {Name: crawler.NoSegment, ByID: map[string]int{}}},
	}
	j := storeReport(t, e, e.acct.ID, rep)
	c := e.client(t)
	e.login(t, c)
	resp, body := get(t, c, e.srv.URL+"/dashboard/analyses/"+j.ID)
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	for _, want := range []string{`id="ai-crawlers"`, "GPTBot", "line 2: <code>Disallow: /</code>", "<strong>refused</strong>: status 403", "/llms.txt: absent (status 404)",
		`id="segments"`, "<code>blog</code>", "<code>title.missing</code> 1"} {
		if !strings.Contains(body, want) {
			t.Errorf("analysis page lacks %q", want)
		}
	}
}
