package crawler_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/seokit/seokit/crawler"
)

// TestAICrawlerProbe crawls a site whose firewall refuses ClaudeBot (403)
// and serves PerplexityBot a challenge page, while robots.txt allows both.
func TestAICrawlerProbe(t *testing.T) {
	var mu sync.Mutex
	agents := map[string]int{}
	home := cleanRoutes()["/"]
	rs := cleanRoutes().with(routes{
		"/robots.txt": serveRobots("User-agent: *\nDisallow: /b\n\nUser-agent: GPTBot\nDisallow: /\n"),
		"/llms.txt": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/markdown")
			w.Write([]byte("# Site\n\n> A test site.\n\n## Pages\n\n- [A](/a): page A\n"))
		},
		"/": func(w http.ResponseWriter, r *http.Request) {
			ua := r.UserAgent()
			mu.Lock()
			agents[ua]++
			mu.Unlock()
			switch {
			case strings.Contains(ua, "ClaudeBot"):
				http.Error(w, "forbidden", http.StatusForbidden)
			case strings.Contains(ua, "PerplexityBot"):
				w.Header().Set("Cf-Mitigated", "challenge")
				w.Write([]byte("<html>Just a moment...</html>"))
			default:
				home(w, r)
			}
		},
	})
	srv := httptest.NewServer(rs)
	defer srv.Close()
	rep := crawlFacts(t, srv.URL, crawler.Options{AICrawlers: true})
	ai := rep.AICrawlers
	if ai == nil {
		t.Fatal("no aiCrawlers report")
	}
	if ai.Status != "complete" || ai.Baseline == nil || ai.Baseline.Status != 200 || !ai.LLMsTxt.Present || ai.LLMsTxt.IssuesTotal != 0 || ai.LLMsTxt.Links != 1 {
		t.Fatalf("report %+v, baseline %+v, llms.txt %+v", ai, ai.Baseline, ai.LLMsTxt)
	}
	rows := map[string]crawler.AICrawlerStatus{}
	for _, c := range ai.Crawlers {
		rows[c.Token] = c
	}
	if c := rows["ClaudeBot"]; c.Probe == nil || !c.Probe.Blocked || c.Probe.Status != 403 {
		t.Errorf("ClaudeBot probe %+v: want blocked with 403", c.Probe)
	}
	if c := rows["PerplexityBot"]; c.Probe == nil || !c.Probe.Blocked || !c.Probe.Challenge {
		t.Errorf("PerplexityBot probe %+v: want a blocked challenge", c.Probe)
	}
	if c := rows["OAI-SearchBot"]; c.Probe == nil || c.Probe.Blocked || !c.Home.Allowed || c.BlockedURLs != 1 {
		t.Errorf("OAI-SearchBot %+v probe %+v: want allowed, not blocked, /b disallowed", c, c.Probe)
	}
	if c := rows["GPTBot"]; c.Home.Allowed || c.Home.Line != 5 || c.Home.Rule != "Disallow: /" {
		t.Errorf("GPTBot home %+v: want disallowed by line 5", c.Home)
	}
	if c := rows["Google-Extended"]; c.Probe != nil {
		t.Errorf("Google-Extended probed: %+v", c.Probe)
	}
	var fw string
	for _, f := range rep.SiteFindings {
		switch f.ID {
		case "ai.firewall_blocks":
			fw = f.Evidence.Value
		case "ai.search_crawlers_blocked", "ai.llms_txt_malformed":
			t.Errorf("unexpected %s: %s", f.ID, f.Message)
		}
	}
	if fw != "ClaudeBot, PerplexityBot" {
		t.Errorf("ai.firewall_blocks names %q, want ClaudeBot, PerplexityBot", fw)
	}
	mu.Lock()
	defer mu.Unlock()
	probes := 0
	for _, c := range crawler.AICrawlers() {
		if c.UserAgent != "" {
			probes += agents[c.UserAgent]
		}
	}
	if probes != 11 {
		t.Errorf("%d probe requests for the home page, want one per crawler with a fetcher (11): %v", probes, agents)
	}
}

// TestAICrawlersOff checks that a crawl without Options.AICrawlers sends
// no request for /llms.txt and reports no aiCrawlers.
func TestAICrawlersOff(t *testing.T) {
	var mu sync.Mutex
	llms := 0
	srv := httptest.NewServer(cleanRoutes().with(routes{"/llms.txt": func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		llms++
		mu.Unlock()
		http.NotFound(w, r)
	}}))
	defer srv.Close()
	rep := crawlFacts(t, srv.URL, crawler.Options{})
	mu.Lock()
	defer mu.Unlock()
	if rep.AICrawlers != nil || llms != 0 {
		t.Errorf("aiCrawlers %v, %d /llms.txt requests: want none", rep.AICrawlers, llms)
	}
}
